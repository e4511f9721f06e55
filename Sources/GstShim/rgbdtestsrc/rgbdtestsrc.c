/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* rgbdtestsrc.c: GObject glue for the rgbdtestsrc element.
 *
 * A GstPushSrc that produces one stream of a deterministic synthetic RGB-D
 * scene (a person in front of a plant and a wall): colour, depth registered to
 * it, or the ground-truth matte, chosen by the `stream` property. Every frame
 * is a function of (scene properties, timestamp, size) only, so three
 * instances with the same properties give colour, depth and matte that line
 * up exactly, at any resolutions.
 *
 * No pixel work here: per frame the settings are copied under the object lock,
 * the buffer is mapped as a GstVideoFrame and the planes go to the
 * dm_rgbdtestsrc_render_* functions (Swift bridge). For stream=video the subject's
 * head box is attached as a GstVideoRegionOfInterestMeta of type "face", as
 * facedetect does.
 */
#include <gst/gst.h>
#include <gst/base/gstpushsrc.h>
#include <gst/video/video.h>
#include "rgbdtestsrc.h"
#include "calibrationfile.h"
#include "element.h"
#include "elements.h"
#include "padlog.h"
#include "rgbimage.h"

GST_DEBUG_CATEGORY_STATIC (gst_rgbd_test_src_debug);
#define GST_CAT_DEFAULT gst_rgbd_test_src_debug

#define DM_MAX_SCENE_FACES 8
/* sizes and rate that fixation moves towards */
#define DEFAULT_VIDEO_WIDTH 640
#define DEFAULT_VIDEO_HEIGHT 360
#define DEFAULT_DEPTH_WIDTH 320
#define DEFAULT_DEPTH_HEIGHT 180
#define DEFAULT_FPS_N 30
#define DEFAULT_FPS_D 1


#define GST_TYPE_RGBD_TEST_SRC (gst_rgbd_test_src_get_type ())
G_DECLARE_FINAL_TYPE (GstRgbdTestSrc, gst_rgbd_test_src, GST, RGBD_TEST_SRC, GstPushSrc)

struct _GstRgbdTestSrc
{
  GstPushSrc parent;

  /* properties and negotiated format, guarded by the object lock */
  DMRGBDTestSrcSettings settings;   /* properties (rgbdtestsrc_properties.def) */
  GstVideoInfo info;

  /* streaming thread (and do_seek, which holds the stream lock) */
  GstClockTime base_pts;        /* timestamp of frame 0 at the current rate */
  guint64 n_frames;             /* frames since base_pts */
  guint64 offset;               /* buffer offset (frame number) */

  /* calibration=: the camera pair, read at start */
  DMLoadedCalibration calibration;
};


G_DEFINE_TYPE (GstRgbdTestSrc, gst_rgbd_test_src, GST_TYPE_PUSH_SRC);

/* ---- enums ---------------------------------------------------------------- */

DM_DEFINE_ENUM (static, dm_rgbdtestsrc_stream_get_type, "GstRgbdTestSrcStream", DM_STREAM_LIST);

DM_DEFINE_ENUM (static, dm_rgbdtestsrc_scene_get_type, "GstRgbdTestSrcScene", DM_SCENE_LIST);

/* ---- caps ------------------------------------------------------------------- */

static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE ("src",
    GST_PAD_SRC, GST_PAD_ALWAYS,
    GST_STATIC_CAPS (GST_VIDEO_CAPS_MAKE (DM_PACKED_RGB_FORMATS) "; "
        GST_VIDEO_CAPS_MAKE ("GRAY16_LE") "; "
        GST_VIDEO_CAPS_MAKE ("GRAY8")));

static GstStaticCaps video_caps =
GST_STATIC_CAPS (GST_VIDEO_CAPS_MAKE (DM_PACKED_RGB_FORMATS));
static GstStaticCaps depth_caps =
GST_STATIC_CAPS (GST_VIDEO_CAPS_MAKE ("GRAY16_LE"));
static GstStaticCaps truth_caps =
GST_STATIC_CAPS (GST_VIDEO_CAPS_MAKE ("GRAY8"));

/* The timestamp of frame `n` since base_pts at the rate of `info`. */
static GstClockTime
frame_pts (GstRgbdTestSrc * self, const GstVideoInfo * info, guint64 n)
{
  if (GST_VIDEO_INFO_FPS_N (info) <= 0)
    return self->base_pts;
  return self->base_pts + gst_util_uint64_scale (n,
      GST_SECOND * GST_VIDEO_INFO_FPS_D (info), GST_VIDEO_INFO_FPS_N (info));
}

static const gchar *
stream_name (gint stream)
{
  switch (stream) {
    case DM_STREAM_DEPTH:
      return "depth";
    case DM_STREAM_TRUTH:
      return "truth";
    default:
      return "video";
  }
}

/* The caps one stream can produce (a new reference). */
static GstCaps *
stream_caps (gint stream)
{
  switch (stream) {
    case DM_STREAM_DEPTH:
      return gst_static_caps_get (&depth_caps);
    case DM_STREAM_TRUTH:
      return gst_static_caps_get (&truth_caps);
    default:
      return gst_static_caps_get (&video_caps);
  }
}

/* The `stream` property (object lock). */
static gint
current_stream (GstRgbdTestSrc * self)
{
  gint stream;
  GST_OBJECT_LOCK (self);
  stream = self->settings.stream;
  GST_OBJECT_UNLOCK (self);
  return stream;
}

static GstCaps *
gst_rgbd_test_src_get_caps (GstBaseSrc * bsrc, GstCaps * filter)
{
  GstRgbdTestSrc *self = GST_RGBD_TEST_SRC (bsrc);
  return dm_caps_filter (stream_caps (current_stream (self)), filter);
}

/* Nearest to 640x360 (video, truth) or 320x180 (depth) at 30/1, square
 * pixels, BGRx. */
static GstCaps *
gst_rgbd_test_src_fixate (GstBaseSrc * bsrc, GstCaps * caps)
{
  GstRgbdTestSrc *self = GST_RGBD_TEST_SRC (bsrc);
  gint stream = current_stream (self), w, h;
  guint i;

  w = stream == DM_STREAM_DEPTH ? DEFAULT_DEPTH_WIDTH : DEFAULT_VIDEO_WIDTH;
  h = stream == DM_STREAM_DEPTH ? DEFAULT_DEPTH_HEIGHT : DEFAULT_VIDEO_HEIGHT;
  if (self->calibration.parsed) {
    /* the calibrated camera's size */
    const DMCalibration *cal = &self->calibration.values;
    w = stream == DM_STREAM_DEPTH ? cal->depth.width : cal->color.width;
    h = stream == DM_STREAM_DEPTH ? cal->depth.height : cal->color.height;
  }

  caps = gst_caps_make_writable (caps);
  for (i = 0; i < gst_caps_get_size (caps); i++) {
    GstStructure *s = gst_caps_get_structure (caps, i);
    gst_structure_fixate_field_nearest_int (s, "width", w);
    gst_structure_fixate_field_nearest_int (s, "height", h);
    gst_structure_fixate_field_nearest_fraction (s, "framerate",
        DEFAULT_FPS_N, DEFAULT_FPS_D);
    if (gst_structure_has_field (s, "pixel-aspect-ratio"))
      gst_structure_fixate_field_nearest_fraction (s, "pixel-aspect-ratio",
          1, 1);
    if (stream == DM_STREAM_VIDEO && gst_structure_has_field (s, "format"))
      gst_structure_fixate_field_string (s, "format", "BGRx");
  }
  return GST_BASE_SRC_CLASS (gst_rgbd_test_src_parent_class)->fixate (bsrc,
      caps);
}

/* Negotiation failures name the stream and what it can produce. */
static gboolean
gst_rgbd_test_src_negotiate (GstBaseSrc * bsrc)
{
  GstRgbdTestSrc *self = GST_RGBD_TEST_SRC (bsrc);
  gint stream;
  GstCaps *ours, *peer;
  gchar *a, *b;

  if (GST_BASE_SRC_CLASS (gst_rgbd_test_src_parent_class)->negotiate (bsrc))
    return TRUE;

  stream = current_stream (self);
  ours = stream_caps (stream);
  peer = gst_pad_peer_query_caps (GST_BASE_SRC_PAD (bsrc), NULL);
  a = gst_caps_to_string (ours);
  b = peer ? gst_caps_to_string (peer) : g_strdup ("(nothing)");
  GST_ELEMENT_ERROR (self, CORE, NEGOTIATION,
      ("rgbdtestsrc (stream=%s) and downstream could not agree on a format.",
          stream_name (stream)),
      ("stream=%s produces %s; downstream accepts %s", stream_name (stream),
          a, b));
  g_free (a);
  g_free (b);
  gst_caps_unref (ours);
  if (peer)
    gst_caps_unref (peer);
  return FALSE;
}

static gboolean
gst_rgbd_test_src_set_caps (GstBaseSrc * bsrc, GstCaps * caps)
{
  GstRgbdTestSrc *self = GST_RGBD_TEST_SRC (bsrc);
  GstVideoInfo info;
  gint stream = current_stream (self);
  GstCaps *ours = stream_caps (stream);
  gboolean ok;

  ok = gst_caps_can_intersect (caps, ours) && gst_video_info_from_caps (&info,
      caps);
  gst_caps_unref (ours);
  if (!ok) {
    gchar *s = gst_caps_to_string (caps);
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION,
        ("rgbdtestsrc (stream=%s) cannot produce the negotiated format.",
            stream_name (stream)), ("caps: %s", s));
    g_free (s);
    return FALSE;
  }

  /* keep timestamps continuous across a renegotiation: the next frame is
   * frame 0 of the new rate, at the time the old rate had reached */
  GST_OBJECT_LOCK (self);
  self->base_pts = frame_pts (self, &self->info, self->n_frames);
  self->n_frames = 0;
  self->info = info;
  GST_OBJECT_UNLOCK (self);
  GST_DEBUG_OBJECT (self, "stream=%s %s %dx%d at %d/%d", stream_name (stream),
      gst_video_format_to_string (GST_VIDEO_INFO_FORMAT (&info)),
      GST_VIDEO_INFO_WIDTH (&info), GST_VIDEO_INFO_HEIGHT (&info),
      GST_VIDEO_INFO_FPS_N (&info), GST_VIDEO_INFO_FPS_D (&info));
  return TRUE;
}

/* Use downstream's pool or a video buffer pool of the negotiated size, with
 * GstVideoMeta when downstream understands it (strides are respected through
 * GstVideoFrame mapping). */
static gboolean
gst_rgbd_test_src_decide_allocation (GstBaseSrc * bsrc, GstQuery * query)
{
  GstRgbdTestSrc *self = GST_RGBD_TEST_SRC (bsrc);
  GstBufferPool *pool = NULL;
  GstCaps *caps = NULL;
  guint size, min = 0, max = 0;
  gboolean update;

  GST_OBJECT_LOCK (self);
  size = GST_VIDEO_INFO_SIZE (&self->info);
  GST_OBJECT_UNLOCK (self);

  if (gst_query_get_n_allocation_pools (query) > 0) {
    guint psize;
    gst_query_parse_nth_allocation_pool (query, 0, &pool, &psize, &min, &max);
    size = MAX (size, psize);
    update = TRUE;
  } else {
    update = FALSE;
  }
  if (!pool)
    pool = gst_video_buffer_pool_new ();

  gst_query_parse_allocation (query, &caps, NULL);
  gst_buffer_pool_set_config (pool, dm_pool_config (pool, query, caps, size,
          min, max));

  if (update)
    gst_query_set_nth_allocation_pool (query, 0, pool, size, min, max);
  else
    gst_query_add_allocation_pool (query, pool, size, min, max);
  gst_object_unref (pool);

  return GST_BASE_SRC_CLASS (gst_rgbd_test_src_parent_class)->decide_allocation
      (bsrc, query);
}

/* ---- time ------------------------------------------------------------------- */

/* A live source syncs each buffer on its timestamp. */
static void
gst_rgbd_test_src_get_times (GstBaseSrc * bsrc, GstBuffer * buffer,
    GstClockTime * start, GstClockTime * end)
{
  if (gst_base_src_is_live (bsrc)) {
    GstClockTime ts = GST_BUFFER_PTS (buffer);
    if (GST_CLOCK_TIME_IS_VALID (ts)) {
      GstClockTime dur = GST_BUFFER_DURATION (buffer);
      if (GST_CLOCK_TIME_IS_VALID (dur))
        *end = ts + dur;
      *start = ts;
    }
  } else {
    *start = GST_CLOCK_TIME_NONE;
    *end = GST_CLOCK_TIME_NONE;
  }
}

static gboolean
gst_rgbd_test_src_is_seekable (GstBaseSrc * bsrc)
{
  return TRUE;
}

/* Forward playback from the frame at (or just before) the segment position. */
static gboolean
gst_rgbd_test_src_do_seek (GstBaseSrc * bsrc, GstSegment * segment)
{
  GstRgbdTestSrc *self = GST_RGBD_TEST_SRC (bsrc);
  GstClockTime position = segment->position;
  gint fps_n, fps_d;

  if (segment->rate < 0) {
    GST_WARNING_OBJECT (self, "reverse playback is not supported");
    return FALSE;
  }
  segment->time = segment->start;

  GST_OBJECT_LOCK (self);
  fps_n = GST_VIDEO_INFO_FPS_N (&self->info);
  fps_d = GST_VIDEO_INFO_FPS_D (&self->info);
  GST_OBJECT_UNLOCK (self);

  if (fps_n > 0) {
    self->base_pts = 0;
    self->n_frames = gst_util_uint64_scale (position, fps_n,
        (guint64) fps_d * GST_SECOND);
    self->offset = self->n_frames;
  } else {
    /* not negotiated yet (or a still picture): start at the position */
    self->base_pts = position;
    self->n_frames = 0;
    self->offset = 0;
  }
  return TRUE;
}

static gboolean
gst_rgbd_test_src_query (GstBaseSrc * bsrc, GstQuery * query)
{
  GstRgbdTestSrc *self = GST_RGBD_TEST_SRC (bsrc);

  switch (GST_QUERY_TYPE (query)) {
    case GST_QUERY_LATENCY:{
      gint fps_n, fps_d;
      GST_OBJECT_LOCK (self);
      fps_n = GST_VIDEO_INFO_FPS_N (&self->info);
      fps_d = GST_VIDEO_INFO_FPS_D (&self->info);
      GST_OBJECT_UNLOCK (self);
      if (fps_n > 0) {
        /* a live frame is complete one frame duration after it starts */
        GstClockTime latency = gst_util_uint64_scale (GST_SECOND, fps_d, fps_n);
        gst_query_set_latency (query, gst_base_src_is_live (bsrc), latency,
            GST_CLOCK_TIME_NONE);
        return TRUE;
      }
      return FALSE;
    }
    case GST_QUERY_CONVERT:{
      GstFormat src_fmt, dest_fmt;
      gint64 src_val, dest_val;
      gboolean res;
      gst_query_parse_convert (query, &src_fmt, &src_val, &dest_fmt, &dest_val);
      GST_OBJECT_LOCK (self);
      res = gst_video_info_convert (&self->info, src_fmt, src_val, dest_fmt,
          &dest_val);
      GST_OBJECT_UNLOCK (self);
      if (res)
        gst_query_set_convert (query, src_fmt, src_val, dest_fmt, dest_val);
      return res;
    }
    default:
      return GST_BASE_SRC_CLASS (gst_rgbd_test_src_parent_class)->query (bsrc,
          query);
  }
}

/* ---- per frame --------------------------------------------------------------- */

/* Renders the scene at `t` seconds into `buffer` as settings->stream asks;
 * for stream=video also the face boxes a detector would report, into
 * `faces`. Returns how many boxes, or -1 when the buffer does not map. */
static gint
render_frame (GstRgbdTestSrc * self, const DMRGBDTestSrcSettings * settings,
    const GstVideoInfo * info, GstBuffer * buffer, double t, DMBox * faces)
{
  GstVideoFrame frame;
  DMBox face = { 0 };
  gint n_faces = 0;

  if (!gst_video_frame_map (&frame, info, buffer, GST_MAP_WRITE))
    return -1;
  switch (settings->stream) {
    case DM_STREAM_DEPTH:{
      DMGrayImage img = dm_gray_image_from_frame (&frame);
      dm_rgbdtestsrc_render_depth (settings, t, self->calibration.parsed, &img);
      break;
    }
    case DM_STREAM_TRUTH:{
      DMGrayImage img = dm_gray_image_from_frame (&frame);
      dm_rgbdtestsrc_render_truth (settings, t, &img);
      break;
    }
    default:{
      DMRGBImage img = dm_rgb_image_from_frame (&frame);
      dm_rgbdtestsrc_render_video (settings, t, &img, &face);
      n_faces = dm_rgbdtestsrc_faces (settings, t, img.width, img.height, faces,
          DM_MAX_SCENE_FACES);
      break;
    }
  }
  gst_video_frame_unmap (&frame);
  return n_faces;
}

/* The faces a detector would report, in its order (a false face first), as
 * "face" ROI metas. */
static void
attach_faces (GstBuffer * buffer, const DMBox * faces, gint n_faces)
{
  gint i;
  for (i = 0; i < n_faces; i++)
    gst_buffer_add_video_region_of_interest_meta (buffer, "face", faces[i].x,
        faces[i].y, faces[i].width, faces[i].height);
}

/* Counts the frame at `pts` and stamps its buffer: timestamp, duration up
 * to the next frame's (none for a still picture), offsets. */
static void
stamp_buffer (GstRgbdTestSrc * self, GstBuffer * buffer,
    const GstVideoInfo * info, GstClockTime pts)
{
  self->n_frames++;
  GST_BUFFER_PTS (buffer) = pts;
  GST_BUFFER_DTS (buffer) = GST_CLOCK_TIME_NONE;
  if (GST_VIDEO_INFO_FPS_N (info) > 0)
    GST_BUFFER_DURATION (buffer) = frame_pts (self, info, self->n_frames) - pts;
  else
    GST_BUFFER_DURATION (buffer) = GST_CLOCK_TIME_NONE;
  GST_BUFFER_OFFSET (buffer) = self->offset;
  GST_BUFFER_OFFSET_END (buffer) = self->offset + 1;
  self->offset++;
}

static GstFlowReturn
gst_rgbd_test_src_fill (GstPushSrc * psrc, GstBuffer * buffer)
{
  GstRgbdTestSrc *self = GST_RGBD_TEST_SRC (psrc);
  DMRGBDTestSrcSettings settings;
  GstVideoInfo info;
  GstClockTime pts;
  DMBox faces[DM_MAX_SCENE_FACES];
  gint n_faces;
  double t;

  GST_OBJECT_LOCK (self);
  info = self->info;
  GST_OBJECT_UNLOCK (self);

  if (GST_VIDEO_INFO_FORMAT (&info) == GST_VIDEO_FORMAT_UNKNOWN) {
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION,
        ("rgbdtestsrc has no negotiated format."), (NULL));
    return GST_FLOW_NOT_NEGOTIATED;
  }
  /* framerate 0/1: one still picture, then EOS */
  if (GST_VIDEO_INFO_FPS_N (&info) == 0 && self->n_frames >= 1)
    return GST_FLOW_EOS;

  pts = frame_pts (self, &info, self->n_frames);
  gst_object_sync_values (GST_OBJECT (self), pts);
  DM_COPY_SETTINGS (self, settings);
  t = (double) pts / GST_SECOND;
  n_faces = render_frame (self, &settings, &info, buffer, t, faces);
  if (n_faces < 0) {
    GST_ELEMENT_ERROR (self, RESOURCE, WRITE,
        ("Could not map the output buffer."), (NULL));
    return GST_FLOW_ERROR;
  }
  attach_faces (buffer, faces, n_faces);
  GST_LOG_OBJECT (self, "frame %" G_GUINT64_FORMAT " at %" GST_TIME_FORMAT
      " (scene t = %.3f s), %d face boxes", self->n_frames,
      GST_TIME_ARGS (pts), t, n_faces);
  stamp_buffer (self, buffer, &info, pts);
  return GST_FLOW_OK;
}

/* ---- state -------------------------------------------------------------------- */

static gboolean
gst_rgbd_test_src_start (GstBaseSrc * bsrc)
{
  GstRgbdTestSrc *self = GST_RGBD_TEST_SRC (bsrc);

  /* calibration=: read and check the camera pair (errors name file and field) */
  if (!dm_calibration_load (GST_ELEMENT (self), &self->settings.calibration,
          &self->calibration))
    return FALSE;
  GST_OBJECT_LOCK (self);
  gst_video_info_init (&self->info);
  GST_OBJECT_UNLOCK (self);
  self->base_pts = 0;
  self->n_frames = 0;
  self->offset = 0;
  dm_log_pad_caps (GST_BASE_SRC_PAD (bsrc), GST_CAT_DEFAULT);
  GST_INFO_OBJECT (self, "starting (%s)",
      gst_base_src_is_live (bsrc) ? "live" : "not live");
  return TRUE;
}

/* ---- properties ------------------------------------------------------------ */

static const DMPropSpec properties[] = {
#define DM_PROPERTY(...) DM_PROP_SPEC (DMRGBDTestSrcSettings, __VA_ARGS__)
#include "rgbdtestsrc_properties.def"
};

/* is-live is GstBaseSrc's: hand it over when it changes (and at init:
 * dm_element_init). */
static void
gst_rgbd_test_src_property_changed (GObject * object, const DMPropSpec * spec,
    gdouble old_value, gdouble new_value)
{
  gst_base_src_set_live (GST_BASE_SRC (object), new_value != 0);
}

static const DMElementInfo element_info = {
  "RGB-D test source", "Source/Video",
  "Synthetic RGB-D scene: colour, registered depth and ground-truth "
      "matte of a person in front of a plant and a wall",
  DM_ELEMENT_PROPERTIES (properties), gst_rgbd_test_src_property_changed,
  DM_ELEMENT_LAYOUT_NO_STATE (GstRgbdTestSrc),
  {&src_template}, NULL, DM_ELEMENT_CALIBRATION (GstRgbdTestSrc), "is-live"
};

static void
gst_rgbd_test_src_class_init (GstRgbdTestSrcClass * klass)
{
  GstBaseSrcClass *bsrc_class = GST_BASE_SRC_CLASS (klass);
  GstPushSrcClass *psrc_class = GST_PUSH_SRC_CLASS (klass);

  dm_element_class_init (klass, &element_info);

  bsrc_class->get_caps = GST_DEBUG_FUNCPTR (gst_rgbd_test_src_get_caps);
  bsrc_class->fixate = GST_DEBUG_FUNCPTR (gst_rgbd_test_src_fixate);
  bsrc_class->negotiate = GST_DEBUG_FUNCPTR (gst_rgbd_test_src_negotiate);
  bsrc_class->set_caps = GST_DEBUG_FUNCPTR (gst_rgbd_test_src_set_caps);
  bsrc_class->decide_allocation =
      GST_DEBUG_FUNCPTR (gst_rgbd_test_src_decide_allocation);
  bsrc_class->get_times = GST_DEBUG_FUNCPTR (gst_rgbd_test_src_get_times);
  bsrc_class->is_seekable = GST_DEBUG_FUNCPTR (gst_rgbd_test_src_is_seekable);
  bsrc_class->do_seek = GST_DEBUG_FUNCPTR (gst_rgbd_test_src_do_seek);
  bsrc_class->query = GST_DEBUG_FUNCPTR (gst_rgbd_test_src_query);
  bsrc_class->start = GST_DEBUG_FUNCPTR (gst_rgbd_test_src_start);
  psrc_class->fill = GST_DEBUG_FUNCPTR (gst_rgbd_test_src_fill);
}

static void
gst_rgbd_test_src_init (GstRgbdTestSrc * self)
{
  dm_rgbdtestsrc_settings_init (&self->settings);
  gst_video_info_init (&self->info);
  gst_base_src_set_format (GST_BASE_SRC (self), GST_FORMAT_TIME);
  dm_element_init (self);       /* is-live */
}

GST_ELEMENT_REGISTER_DEFINE_WITH_CODE (rgbdtestsrc, "rgbdtestsrc", GST_RANK_NONE,
    GST_TYPE_RGBD_TEST_SRC, GST_DEBUG_CATEGORY_INIT (gst_rgbd_test_src_debug, "rgbdtestsrc", 0,
      "synthetic RGB-D scene source"));
