/* depthmatte.c: GObject glue for the depthmatte element.
 *
 * A GstVideoAggregator with three request pads:
 *   video       8-bit packed RGB colour (plain GstVideoAggregatorPad, never converted)
 *   depth       GRAY16_LE/BE depth or disparity, or a GRAY8 normalised map, registered
 *               to the video (plain pad, never converted; see depth-kind)
 *   background  optional, any video (GstVideoAggregatorConvertPad: converted to the
 *               output format; aspect-fill scaling happens in the Swift kit)
 * The output follows the video pad: its size, rate and format (with output=alpha,
 * the alpha variant of the format).
 *
 * No pixel work and no keying decisions here: every frame, the settings are
 * copied under the object lock, the face ROI metas are collected, and the
 * mapped planes go to dm_depthmatte_process() (Swift bridge).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include <string.h>
#include <unistd.h>
#include <gst/gst.h>
#include <gst/video/video.h>
#include <gst/video/gstvideoaggregator.h>
#include "depthmatte.h"
#include "element.h"
#include "elements.h"
#include "padlog.h"
#include "rgbimage.h"

GST_DEBUG_CATEGORY_STATIC (gst_depth_matte_debug);
#define GST_CAT_DEFAULT gst_depth_matte_debug

#define DM_MAX_FACES 32

#define GST_TYPE_DEPTH_MATTE (gst_depth_matte_get_type ())
G_DECLARE_FINAL_TYPE (GstDepthMatte, gst_depth_matte, GST, DEPTH_MATTE, GstVideoAggregator)

/* A frame kept for pairing colour and depth by time: the pad's prepared
 * frame's buffer (the colour pad's may be a converted copy), its layout,
 * its running time and (colour) the face boxes of the original buffer. */
typedef struct
{
  GstBuffer *buf;
  GstVideoInfo info;
  GstClockTime rt;
  GstClockTime duration;
  DMBox faces[DM_MAX_FACES];
  gint n_faces;
} DMHeldFrame;

#define DM_COLOUR_HISTORY 4
/* depth frames are copied (a camera's buffer pool is not starved): about
 * two seconds at 30 frames/s, 30 MB at 640x360 */
#define DM_DEPTH_HISTORY 64

typedef struct
{
  DMHeldFrame *f;               /* cap entries (allocated at init) */
  guint n, cap;
} DMHistory;

struct _GstDepthMatte
{
  GstVideoAggregator parent;

  /* pads, guarded by the object lock; NULL until requested */
  GstVideoAggregatorPad *video_pad;
  GstVideoAggregatorPad *depth_pad;
  GstVideoAggregatorPad *background_pad;

  /* properties (depthmatte_properties.def), guarded by the object lock */
  DMDepthMatteSettings settings;

  /* streaming thread only */
  void *state;                  /* Swift DepthMatter */
  gboolean warned_no_depth;
  gboolean warned_no_video;
  guint warned_unmappable;      /* bit per input (INPUT_*): warned once */
  guint stalled;                /* bit per input: stall warned, not recovered */

  /* debug log, streaming thread only (reset in start) */
  gint logged_lock;             /* lock source last logged; -1: none yet */
  gdouble logged_cutoff;        /* cutoff (m) last logged */
  guint present;                /* bit per input: had a frame last output */

  /* pairing by time, streaming thread only (cleared on start, flush, stop) */
  DMHistory colour_history, depth_history;
  GMutex depth_lock;            /* depth_history and depth_segment: the
                                 * depth pad's probe fills them as frames
                                 * arrive, before the base class drops a
                                 * late one */
  GstSegment depth_segment;
  GstVideoInfo depth_info;      /* from the depth pad's caps event */
  gboolean depth_info_valid;
  DMHeldFrame pair_colour, pair_depth;  /* the last good pairing (bufs ref'd) */
  gboolean holding;             /* the last output repeated that pairing */
  gint flush_pending;           /* (atomic) a FLUSH_STOP arrived: reset the
                                 * lock and the pairing at the next frame */
};

/* inputs, for the per-input warning bits */
#define INPUT_VIDEO 1u
#define INPUT_DEPTH 2u
#define INPUT_BACKGROUND 4u
/* A live depth or background input whose newest frame ended this long before
 * the output time has stalled (its last frame keeps being used). */
#define STALL_THRESHOLD (500 * GST_MSECOND)
/* An input that ended (EOS) while the video goes on is held; after this
 * long that is worth a warning. */
#define ENDED_THRESHOLD GST_SECOND
/* cutoff changes below this (metres) are not logged (smoothing, noise) */
#define LOG_CUTOFF_STEP 0.03
/* output rate for a video pad at framerate 0/1 (as compositor's) */
#define DM_STILL_FPS 25


G_DEFINE_TYPE (GstDepthMatte, gst_depth_matte, GST_TYPE_VIDEO_AGGREGATOR);

static void pairing_clear (GstDepthMatte * self);
static GstPadProbeReturn depth_probe (GstPad * pad, GstPadProbeInfo * info,
    gpointer user_data);

/* ---- enums ---------------------------------------------------------------- */

DM_DEFINE_ENUM (static, dm_depthmatte_mode_get_type, "GstDepthMatteMode",
    {DM_MODE_FACE, "Lock the cutoff to the subject's face from the face ROI "
          "metas (cutoff = face depth + cutoff-offset; see lock-strategy)",
        "face"},
    {DM_MODE_FIXED, "Always use the cutoff property", "fixed"},
    {DM_MODE_NEAREST, "From depth alone: the nearest large body (head depth "
          "+ cutoff-offset); no face detector needed", "nearest"},
    {DM_MODE_HIGHPASS, "Focus high-pass: keep everything nearer than focus, "
          "ramping to nothing at focus + 1/slope metres", "highpass"},
    {DM_MODE_BANDPASS, "Focus band-pass: keep focus +- focus-width, ramping "
          "to nothing at focus +- (focus-width + 1/slope) metres", "bandpass"});

DM_DEFINE_ENUM (static, dm_depthmatte_lock_strategy_get_type, "GstDepthMatteLockStrategy",
    {DM_LOCK_ROBUST, "Face choice by head size and depth, tracking in depth "
          "through face loss, depth-only finder, smoothing", "robust"},
    {DM_LOCK_ORIGINAL, "The original sample's: first face box, its centre "
          "depth pixel, held while no face is seen", "original"});

DM_DEFINE_ENUM (static, dm_depthmatte_effect_get_type, "GstDepthMatteBackgroundEffect",
    {0, "No effect: the background colour replaces the background", "none"},
    {1, "The video's background in grey (Rec.709 luma)", "desaturate"},
    {2, "The video's background posterised with dark edge lines", "comic"},
    {3, "The video's background blurred (portrait style, no subject halo)",
        "blur"});

DM_DEFINE_ENUM (static, dm_depthmatte_refine_get_type, "GstDepthMatteRefine",
    {DM_REFINE_GUIDED, "Edge-aware: depth holes decided from their neighbours "
          "and the colour image, a weighted colour guided filter "
          "(untrusted band around the depth edge: 2 depth pixels on the "
          "subject's side, 1 on the background's), temporal smoothing that "
          "follows a moving camera", "guided"},
    {DM_REFINE_ORIGINAL, "The original sample's chain: threshold, blur, "
          "gamma, bicubic upscale", "original"},
    {DM_REFINE_NONE, "The hard threshold mask, upscaled (debugging)", "none"});

DM_DEFINE_ENUM (static, dm_depthmatte_output_get_type, "GstDepthMatteOutput",
    {DM_OUTPUT_COMPOSITE, "The subject over the background pad or "
          "background-color", "composite"},
    {DM_OUTPUT_MATTE, "The matte as a grey picture (white = subject)",
        "matte"},
    {DM_OUTPUT_ALPHA, "The video with the matte in its alpha channel "
          "(output format gets alpha)", "alpha"},
    {DM_OUTPUT_DEPTH, "The depth map as a picture at video size (see "
          "depth-colormap, depth-range-min/max, hole-color)", "depth"});

/* ---- pad templates --------------------------------------------------------- */

/* Every raw colour format a camera or decoder gives (no grey: an unnamed
 * GRAY16 link picks the depth pad). Packed RGB is read as it is; the rest is
 * converted to the output's format by the pad (see the video pad below). */
#define DM_CAMERA_FORMATS "{ BGRx, RGBx, BGRA, RGBA, xRGB, xBGR, ARGB, ABGR, " \
  "RGB, BGR, YUY2, UYVY, YVYU, I420, YV12, NV12, NV21, Y42B, Y444, NV16, " \
  "NV24, AYUV, VUYA, Y41B, v308, IYU2, RGB16, BGR16, I420_10LE, P010_10LE }"

static GstStaticPadTemplate video_template = GST_STATIC_PAD_TEMPLATE ("video",
    GST_PAD_SINK, GST_PAD_REQUEST,
    GST_STATIC_CAPS (GST_VIDEO_CAPS_MAKE (DM_CAMERA_FORMATS)));

static GstStaticPadTemplate depth_template = GST_STATIC_PAD_TEMPLATE ("depth",
    GST_PAD_SINK, GST_PAD_REQUEST,
    GST_STATIC_CAPS (GST_VIDEO_CAPS_MAKE ("{ GRAY16_LE, GRAY16_BE, GRAY8 }")));

static GstStaticPadTemplate background_template =
GST_STATIC_PAD_TEMPLATE ("background", GST_PAD_SINK, GST_PAD_REQUEST,
    GST_STATIC_CAPS ("video/x-raw"));

static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE ("src",
    GST_PAD_SRC, GST_PAD_ALWAYS,
    GST_STATIC_CAPS (GST_VIDEO_CAPS_MAKE (DM_PACKED_RGB_FORMATS)));

/* ---- the video pad ------------------------------------------------------------ */

/* A convert pad that leaves packed RGB alone (the kit reads any packed RGB
 * layout, and converting would cost a frame copy) and converts everything
 * else (YUY2, I420, NV12, ...) to the output's format, at its own size. */
typedef GstVideoAggregatorConvertPad GstDepthMatteVideoPad;
typedef GstVideoAggregatorConvertPadClass GstDepthMatteVideoPadClass;
GType gst_depth_matte_video_pad_get_type (void);
G_DEFINE_TYPE (GstDepthMatteVideoPad, gst_depth_matte_video_pad,
    GST_TYPE_VIDEO_AGGREGATOR_CONVERT_PAD);

static gboolean
is_packed_rgb (GstVideoFormat f)
{
  const GstVideoFormatInfo *fi = gst_video_format_get_info (f);
  return fi && GST_VIDEO_FORMAT_INFO_IS_RGB (fi)
      && GST_VIDEO_FORMAT_INFO_N_PLANES (fi) == 1
      && GST_VIDEO_FORMAT_INFO_BITS (fi) == 8
      && (GST_VIDEO_FORMAT_INFO_PSTRIDE (fi, 0) == 3
      || GST_VIDEO_FORMAT_INFO_PSTRIDE (fi, 0) == 4);
}

static void
gst_depth_matte_video_pad_create_conversion_info (GstVideoAggregatorConvertPad *
    pad, GstVideoAggregator * agg, GstVideoInfo * conversion_info)
{
  GstVideoAggregatorPad *vpad = GST_VIDEO_AGGREGATOR_PAD (pad);

  GST_VIDEO_AGGREGATOR_CONVERT_PAD_CLASS
      (gst_depth_matte_video_pad_parent_class)->create_conversion_info (pad,
      agg, conversion_info);
  if (vpad->info.finfo && is_packed_rgb (GST_VIDEO_INFO_FORMAT (&vpad->info)))
    *conversion_info = vpad->info;
}

static void
gst_depth_matte_video_pad_class_init (GstDepthMatteVideoPadClass * klass)
{
  klass->create_conversion_info =
      gst_depth_matte_video_pad_create_conversion_info;
}

static void
gst_depth_matte_video_pad_init (GstDepthMatteVideoPad * pad)
{
}

/* ---- helpers ---------------------------------------------------------------- */

static const gchar *
pad_role (GstDepthMatte * self, GstPad * pad)
{
  if (pad == (GstPad *) self->video_pad)
    return "video";
  if (pad == (GstPad *) self->depth_pad)
    return "depth";
  if (pad == (GstPad *) self->background_pad)
    return "background";
  return NULL;
}

/* The alpha-carrying variant of a packed RGB format (for output=alpha). */
static GstVideoFormat
with_alpha (GstVideoFormat f)
{
  switch (f) {
    case GST_VIDEO_FORMAT_RGBx:
    case GST_VIDEO_FORMAT_RGB:
      return GST_VIDEO_FORMAT_RGBA;
    case GST_VIDEO_FORMAT_BGRx:
    case GST_VIDEO_FORMAT_BGR:
      return GST_VIDEO_FORMAT_BGRA;
    case GST_VIDEO_FORMAT_xRGB:
      return GST_VIDEO_FORMAT_ARGB;
    case GST_VIDEO_FORMAT_xBGR:
      return GST_VIDEO_FORMAT_ABGR;
    default:
      return f;
  }
}

static GstVideoAggregatorPad *
ref_pad (GstDepthMatte * self, GstVideoAggregatorPad ** slot)
{
  GstVideoAggregatorPad *pad;
  GST_OBJECT_LOCK (self);
  pad = *slot ? gst_object_ref (*slot) : NULL;
  GST_OBJECT_UNLOCK (self);
  return pad;
}

/* ---- pads ------------------------------------------------------------------- */

static GstAggregatorPad *
gst_depth_matte_create_new_pad (GstAggregator * agg, GstPadTemplate * templ,
    const gchar * req_name, const GstCaps * caps)
{
  GstDepthMatte *self = GST_DEPTH_MATTE (agg);
  const gchar *name = GST_PAD_TEMPLATE_NAME_TEMPLATE (templ);
  GstVideoAggregatorPad **slot;
  GstAggregatorPad *pad;

  if (g_str_equal (name, "video"))
    slot = &self->video_pad;
  else if (g_str_equal (name, "depth"))
    slot = &self->depth_pad;
  else if (g_str_equal (name, "background"))
    slot = &self->background_pad;
  else
    return NULL;

  GST_OBJECT_LOCK (self);
  if (*slot) {
    GST_OBJECT_UNLOCK (self);
    GST_WARNING_OBJECT (self, "pad '%s' was already requested", name);
    return NULL;
  }
  pad = g_object_new (GST_PAD_TEMPLATE_GTYPE (templ), "name", name,
      "direction", GST_PAD_SINK, "template", templ, NULL);
  *slot = (GstVideoAggregatorPad *) pad;
  GST_OBJECT_UNLOCK (self);

  dm_watch_refused_caps (GST_ELEMENT (self), GST_PAD (pad));
  GST_INFO_OBJECT (self, "requested the %s pad", name);

  /* A depth map or a background picture that ends early is held (its last
   * frame repeats) until the video ends. */
  if (slot != &self->video_pad)
    g_object_set (pad, "repeat-after-eos", TRUE, NULL);
  if (slot == &self->depth_pad)
    gst_pad_add_probe (GST_PAD (pad), GST_PAD_PROBE_TYPE_BUFFER
        | GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM, depth_probe, self, NULL);
  dm_log_pad_caps (GST_PAD (pad), GST_CAT_DEFAULT);
  GST_INFO_OBJECT (self, "requested the %s pad", name);
  return pad;
}

static void
gst_depth_matte_release_pad (GstElement * element, GstPad * pad)
{
  GstDepthMatte *self = GST_DEPTH_MATTE (element);
  GST_INFO_OBJECT (self, "releasing the %s pad", GST_PAD_NAME (pad));
  GST_OBJECT_LOCK (self);
  if (pad == (GstPad *) self->video_pad)
    self->video_pad = NULL;
  else if (pad == (GstPad *) self->depth_pad)
    self->depth_pad = NULL;
  else if (pad == (GstPad *) self->background_pad)
    self->background_pad = NULL;
  GST_OBJECT_UNLOCK (self);
  GST_ELEMENT_CLASS (gst_depth_matte_parent_class)->release_pad (element, pad);
}

/* The base class answers CAPS / ACCEPT_CAPS on plain pads with the *src*
 * caps, which would refuse GRAY16_LE depth. The video and depth pads accept
 * exactly their template. */
static gboolean
gst_depth_matte_sink_query (GstAggregator * agg, GstAggregatorPad * aggpad,
    GstQuery * query)
{
  GstDepthMatte *self = GST_DEPTH_MATTE (agg);
  const gchar *role;

  GST_OBJECT_LOCK (self);
  role = pad_role (self, GST_PAD (aggpad));
  GST_OBJECT_UNLOCK (self);

  if (role && !g_str_equal (role, "background")) {
    switch (GST_QUERY_TYPE (query)) {
      case GST_QUERY_CAPS:{
        GstCaps *filter, *templ, *result;
        gst_query_parse_caps (query, &filter);
        templ = gst_pad_get_pad_template_caps (GST_PAD (aggpad));
        if (filter) {
          result = gst_caps_intersect_full (filter, templ,
              GST_CAPS_INTERSECT_FIRST);
          gst_caps_unref (templ);
        } else {
          result = templ;
        }
        gst_query_set_caps_result (query, result);
        gst_caps_unref (result);
        return TRUE;
      }
      case GST_QUERY_ACCEPT_CAPS:{
        GstCaps *caps, *templ;
        gst_query_parse_accept_caps (query, &caps);
        templ = gst_pad_get_pad_template_caps (GST_PAD (aggpad));
        gst_query_set_accept_caps_result (query, gst_caps_is_subset (caps,
                templ));
        gst_caps_unref (templ);
        return TRUE;
      }
      default:
        break;
    }
  }
  return GST_AGGREGATOR_CLASS (gst_depth_matte_parent_class)->sink_query (agg,
      aggpad, query);
}

/* A flushing seek starts a new lock (at the next aggregate). (Caps a pad cannot take are refused by
 * the shared refused-caps probes, refusedcaps.c.) */
static gboolean
gst_depth_matte_sink_event (GstAggregator * agg, GstAggregatorPad * aggpad,
    GstEvent * event)
{
  GstDepthMatte *self = GST_DEPTH_MATTE (agg);

  /* (this runs on the thread that flushes, while the aggregate may be
   * running on the source task: the Swift state and the pairing are only
   * touched on the streaming thread, which honours the flag at its next
   * frame) */
  if (GST_EVENT_TYPE (event) == GST_EVENT_FLUSH_STOP)
    g_atomic_int_set (&self->flush_pending, 1);
  return GST_AGGREGATOR_CLASS (gst_depth_matte_parent_class)->sink_event (agg,
      aggpad, event);
}

/* ---- caps ------------------------------------------------------------------- */

/* The output follows the video pad (size, rate, format), not the largest or
 * fastest pad as the base class would choose. */
static GstFlowReturn
gst_depth_matte_update_src_caps (GstAggregator * agg, GstCaps * downstream,
    GstCaps ** ret)
{
  GstDepthMatte *self = GST_DEPTH_MATTE (agg);
  GstVideoAggregatorPad *vpad = ref_pad (self, &self->video_pad);
  GstCaps *vcaps, *outcaps;
  GstVideoInfo info;
  gint output, video_fps_n;

  if (!vpad) {
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION,
        ("depthmatte needs a linked video pad."),
        ("Request the 'video' pad (e.g. '... ! m.video') and link colour to it"));
    return GST_FLOW_NOT_NEGOTIATED;
  }
  vcaps = gst_pad_get_current_caps (GST_PAD (vpad));
  gst_object_unref (vpad);
  if (!vcaps)
    return GST_AGGREGATOR_FLOW_NEED_DATA;

  if (!gst_video_info_from_caps (&info, vcaps)) {
    gst_caps_unref (vcaps);
    return GST_FLOW_NOT_NEGOTIATED;
  }
  gst_caps_unref (vcaps);
  video_fps_n = GST_VIDEO_INFO_FPS_N (&info);

  GST_OBJECT_LOCK (self);
  output = self->settings.output;
  GST_OBJECT_UNLOCK (self);

  /* the video's size, rate and aspect; packed RGB video keeps its format
   * (with output=alpha its alpha variant); other video (YUY2, I420, ...) is
   * converted by the video pad to the packed RGB format downstream prefers */
  outcaps = gst_video_info_to_caps (&info);
  gst_structure_remove_fields (gst_caps_get_structure (outcaps, 0),
      "colorimetry", "chroma-site", NULL);
  if (is_packed_rgb (GST_VIDEO_INFO_FORMAT (&info))) {
    GstVideoFormat f = GST_VIDEO_INFO_FORMAT (&info);
    if (output == DM_OUTPUT_ALPHA)
      f = with_alpha (f);
    gst_caps_set_simple (outcaps, "format", G_TYPE_STRING,
        gst_video_format_to_string (f), NULL);
  } else {
    GstCaps *formats = gst_caps_from_string (output == DM_OUTPUT_ALPHA ?
        "video/x-raw, format=(string){ BGRA, RGBA, ARGB, ABGR }" :
        "video/x-raw, format=(string){ BGRx, RGBx, BGRA, RGBA, xRGB, xBGR, "
        "ARGB, ABGR, RGB, BGR }");
    gst_structure_set_value (gst_caps_get_structure (outcaps, 0), "format",
        gst_structure_get_value (gst_caps_get_structure (formats, 0),
            "format"));
    gst_caps_unref (formats);
  }
  if (video_fps_n == 0) {
    /* A still picture (pngdec, jpegdec) or variable-rate video says
     * framerate 0/1. The base class divides by the output rate (frame
     * duration, latency: GLib criticals with 0/1), so, like compositor, the
     * output gets a real rate: any, fixated to DM_STILL_FPS. A still video
     * still gives one output frame. */
    gst_caps_set_simple (outcaps, "framerate", GST_TYPE_FRACTION_RANGE,
        1, G_MAXINT, G_MAXINT, 1, NULL);
    GST_INFO_OBJECT (self, "the video has framerate 0/1 (a still picture "
        "or variable rate): the output rate is open, %d/1 by default",
        DM_STILL_FPS);
  }

  if (downstream) {
    *ret = gst_caps_intersect (outcaps, downstream);
    if (gst_caps_is_empty (*ret)) {
      gchar *s = gst_caps_to_string (outcaps);
      GST_ELEMENT_ERROR (self, CORE, NEGOTIATION,
          ("Downstream does not accept depthmatte's output."),
          ("The output follows the video pad: %s", s));
      g_free (s);
      gst_caps_unref (outcaps);
      gst_caps_replace (ret, NULL);
      return GST_FLOW_NOT_NEGOTIATED;
    }
    gst_caps_unref (outcaps);
  } else {
    *ret = outcaps;
  }
  return GST_FLOW_OK;
}

static GstCaps *
gst_depth_matte_fixate_src_caps (GstAggregator * agg, GstCaps * caps)
{
  GstStructure *s;

  caps = gst_caps_make_writable (caps);
  if (!gst_caps_is_empty (caps)) {
    /* only a still video leaves the rate open (update_src_caps) */
    s = gst_caps_get_structure (caps, 0);
    gst_structure_fixate_field_nearest_fraction (s, "framerate", DM_STILL_FPS,
        1);
  }
  return gst_caps_fixate (caps);
}

/* ---- per frame --------------------------------------------------------------- */

static gint
collect_faces (GstBuffer * buf, DMBox * boxes)
{
  gpointer state = NULL;
  GstMeta *meta;
  gint n = 0;
  GQuark face = g_quark_from_static_string ("face");

  if (!buf)
    return 0;
  while (n < DM_MAX_FACES && (meta = gst_buffer_iterate_meta_filtered (buf,
              &state, GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE))) {
    GstVideoRegionOfInterestMeta *roi = (GstVideoRegionOfInterestMeta *) meta;
    if (roi->roi_type != face)
      continue;
    boxes[n].x = roi->x;
    boxes[n].y = roi->y;
    boxes[n].width = roi->w;
    boxes[n].height = roi->h;
    n++;
  }
  return n;
}

static const gchar *
lock_source_name (gint source)
{
  static const gchar *names[] = { "fixed", "face", "tracked", "nearest" };
  return source >= 0 && source < 4 ? names[source] : "fixed";
}

static void
post_result (GstDepthMatte * self, GstBuffer * outbuf,
    const DMDepthMatteResult * r)
{
  GstAggregator *agg = GST_AGGREGATOR (self);
  GstSegment *seg = &GST_AGGREGATOR_PAD (agg->srcpad)->segment;
  GstClockTime ts = GST_BUFFER_PTS (outbuf);
  GstStructure *s;

  s = gst_structure_new ("depthmatte",
      "timestamp", G_TYPE_UINT64, ts,
      "stream-time", G_TYPE_UINT64,
      gst_segment_to_stream_time (seg, GST_FORMAT_TIME, ts),
      "running-time", G_TYPE_UINT64,
      gst_segment_to_running_time (seg, GST_FORMAT_TIME, ts),
      "duration", G_TYPE_UINT64, GST_BUFFER_DURATION (outbuf),
      "face-found", G_TYPE_BOOLEAN, r->face_found != 0,
      "face-depth", G_TYPE_DOUBLE, r->face_depth,
      "cutoff", G_TYPE_DOUBLE, r->cutoff,
      "coverage", G_TYPE_DOUBLE, r->coverage,
      "lock", G_TYPE_STRING, lock_source_name (r->lock_source),
      "camera-moving", G_TYPE_BOOLEAN, r->camera_moving != 0,
      "camera-shift-x", G_TYPE_DOUBLE, r->camera_shift_x,
      "camera-shift-y", G_TYPE_DOUBLE, r->camera_shift_y, NULL);
  gst_element_post_message (GST_ELEMENT (self),
      gst_message_new_element (GST_OBJECT (self), s));
}

/* An input buffer the base class could not map (smaller than its caps say)
 * leaves the pad with a current buffer but no prepared frame: the element
 * never reads it. Say so once per input instead of failing silently. */
static void
check_unmappable (GstDepthMatte * self, GstVideoAggregatorPad * pad,
    GstVideoFrame * frame, const gchar * role, guint bit)
{
  GstBuffer *buf;
  gsize size, want;

  if (!pad || frame)
    return;
  buf = gst_video_aggregator_pad_get_current_buffer (pad);
  if (!buf)
    return;
  size = gst_buffer_get_size (buf);
  if (size == 0 && GST_BUFFER_FLAG_IS_SET (buf, GST_BUFFER_FLAG_GAP))
    return;
  if (self->warned_unmappable & bit)
    return;
  self->warned_unmappable |= bit;
  want = GST_VIDEO_INFO_SIZE (&pad->info);
  GST_ELEMENT_WARNING (self, STREAM, FORMAT,
      ("A %s buffer could not be mapped and was dropped.", role),
      ("The %s buffer has %" G_GSIZE_FORMAT " bytes, its caps (%dx%d %s) "
          "need %" G_GSIZE_FORMAT "; treated as no %s frame (warned once)",
          role, size, GST_VIDEO_INFO_WIDTH (&pad->info),
          GST_VIDEO_INFO_HEIGHT (&pad->info),
          gst_video_format_to_string (GST_VIDEO_INFO_FORMAT (&pad->info)),
          want, role));
}

/* A depth or background input that stopped delivering (without EOS) keeps
 * its last frame in use; warn when that frame is STALL_THRESHOLD old, and
 * again after it recovers and stalls anew. */
static void
check_stalled (GstDepthMatte * self, GstVideoAggregatorPad * pad,
    GstClockTime out_rt, const gchar * role, guint bit)
{
  GstBuffer *buf;
  GstClockTime end, end_rt;
  GstSegment *seg;
  gboolean ended;

  if (!pad || !GST_CLOCK_TIME_IS_VALID (out_rt))
    return;
  buf = gst_video_aggregator_pad_get_current_buffer (pad);
  if (!buf || !GST_BUFFER_PTS_IS_VALID (buf))
    return;
  ended = gst_aggregator_pad_is_eos (GST_AGGREGATOR_PAD (pad));
  end = GST_BUFFER_PTS (buf);
  if (GST_BUFFER_DURATION_IS_VALID (buf))
    end += GST_BUFFER_DURATION (buf);
  seg = &GST_AGGREGATOR_PAD (pad)->segment;
  end_rt = gst_segment_to_running_time (seg, GST_FORMAT_TIME, end);
  if (!GST_CLOCK_TIME_IS_VALID (end_rt))
    return;
  if (ended) {
    /* a depth stream that ended early (a truncated recording) is held: say
     * so once it has been held for a second while the video flows (a depth
     * still, one frame, and a background picture are held on purpose) */
    guint frames;
    g_mutex_lock (&self->depth_lock);
    frames = self->depth_history.n;
    g_mutex_unlock (&self->depth_lock);
    if (bit == INPUT_DEPTH && frames >= 2 && end_rt + ENDED_THRESHOLD < out_rt
        && !(self->stalled & bit)) {
      self->stalled |= bit;
      GST_ELEMENT_WARNING (self, STREAM, FAILED,
          ("The %s input ended: keying with its last frame.", role),
          ("The last %s frame ended at running time %" GST_TIME_FORMAT
              ", the output is at %" GST_TIME_FORMAT " and the video goes on",
              role, GST_TIME_ARGS (end_rt), GST_TIME_ARGS (out_rt)));
    }
    return;
  }
  if (end_rt + STALL_THRESHOLD < out_rt) {
    if (!(self->stalled & bit)) {
      self->stalled |= bit;
      GST_ELEMENT_WARNING (self, STREAM, FAILED,
          ("The %s input stalled: %s.", role, bit == INPUT_DEPTH
              ? "repeating the last colour frame keyed with depth of its own "
              "time" : "keying with its last frame"),
          ("The newest %s frame ended at running time %" GST_TIME_FORMAT
              ", the output is at %" GST_TIME_FORMAT, role,
              GST_TIME_ARGS (end_rt), GST_TIME_ARGS (out_rt)));
    }
  } else if (self->stalled & bit) {
    self->stalled &= ~bit;
    GST_INFO_OBJECT (self, "the %s input recovered", role);
  }
}

/* What a user debugging the lock needs, from consecutive results: INFO when
 * the lock source changes (with the face box and depth that set it), DEBUG
 * when the cutoff moves by more than LOG_CUTOFF_STEP. Nothing per frame. */
static void
log_lock (GstDepthMatte * self, const DMDepthMatteResult * r, gint n_faces,
    GstClockTime pts)
{
  if (r->lock_source != self->logged_lock) {
    if (r->face_found)
      GST_INFO_OBJECT (self, "lock %s -> %s at %" GST_TIME_FORMAT
          ": face box %dx%d at (%d,%d) of %d, face depth %.3f m, "
          "cutoff %.3f m", self->logged_lock < 0 ? "none" :
          lock_source_name (self->logged_lock),
          lock_source_name (r->lock_source), GST_TIME_ARGS (pts),
          r->face_box.width, r->face_box.height, r->face_box.x,
          r->face_box.y, n_faces, r->face_depth, r->cutoff);
    else
      GST_INFO_OBJECT (self, "lock %s -> %s at %" GST_TIME_FORMAT
          ": cutoff %.3f m (%d face boxes)", self->logged_lock < 0 ? "none" :
          lock_source_name (self->logged_lock),
          lock_source_name (r->lock_source), GST_TIME_ARGS (pts), r->cutoff,
          n_faces);
    self->logged_lock = r->lock_source;
    self->logged_cutoff = r->cutoff;
  } else if (ABS (r->cutoff - self->logged_cutoff) > LOG_CUTOFF_STEP) {
    GST_DEBUG_OBJECT (self, "cutoff %.3f -> %.3f m at %" GST_TIME_FORMAT
        " (lock %s, face depth %.3f m)", self->logged_cutoff, r->cutoff,
        GST_TIME_ARGS (pts), lock_source_name (r->lock_source),
        r->face_depth);
    self->logged_cutoff = r->cutoff;
  }
}

/* INFO when an input starts or stops having a frame for the output time
 * (transitions only; the once-only warnings say what it means). */
static void
log_presence (GstDepthMatte * self, GstVideoAggregatorPad * pad,
    GstVideoFrame * frame, const gchar * role, guint bit, GstClockTime pts)
{
  gboolean now = frame != NULL;
  gboolean before = (self->present & bit) != 0;

  if (now == before || !pad)
    return;
  if (now) {
    self->present |= bit;
    GST_INFO_OBJECT (self, "%s frames present from %" GST_TIME_FORMAT, role,
        GST_TIME_ARGS (pts));
  } else {
    self->present &= ~bit;
    GST_INFO_OBJECT (self, "no %s frame for the output at %" GST_TIME_FORMAT
        "%s", role, GST_TIME_ARGS (pts),
        gst_aggregator_pad_is_eos (GST_AGGREGATOR_PAD (pad)) ? " (eos)" : "");
  }
}

/* ---- pairing colour and depth by time ------------------------------------- */

static void
held_clear (DMHeldFrame * h)
{
  gst_clear_buffer (&h->buf);
  h->rt = GST_CLOCK_TIME_NONE;
}

static void
held_copy (DMHeldFrame * dst, const DMHeldFrame * src)
{
  GstBuffer *old = dst->buf;
  *dst = *src;
  if (dst->buf)
    gst_buffer_ref (dst->buf);
  if (old)
    gst_buffer_unref (old);
}

static void
history_clear (DMHistory * h)
{
  guint i;
  for (i = 0; i < h->n; i++)
    held_clear (&h->f[i]);
  h->n = 0;
}

static void
pairing_clear (GstDepthMatte * self)
{
  history_clear (&self->colour_history);
  g_mutex_lock (&self->depth_lock);
  history_clear (&self->depth_history);
  g_mutex_unlock (&self->depth_lock);
  held_clear (&self->pair_colour);
  held_clear (&self->pair_depth);
  self->holding = FALSE;
}

/* Adds a frame at running time `rt` unless the newest kept has that time;
 * the oldest goes when the history is full. `copy`: a deep copy (a camera's
 * buffer pool is not starved by a long history), else a reference. */
static DMHeldFrame *
history_add (DMHistory * h, GstBuffer * buf, const GstVideoInfo * info,
    GstClockTime rt, gboolean copy)
{
  DMHeldFrame *e;
  if (h->n > 0 && h->f[h->n - 1].rt == rt)
    return NULL;
  if (h->n == h->cap) {
    held_clear (&h->f[0]);
    memmove (&h->f[0], &h->f[1], (h->cap - 1) * sizeof (DMHeldFrame));
    h->n--;
  }
  e = &h->f[h->n++];
  e->buf = copy ? gst_buffer_copy_deep (buf) : gst_buffer_ref (buf);
  e->info = *info;
  e->rt = rt;
  e->duration = GST_BUFFER_DURATION (buf);
  e->n_faces = 0;
  return e;
}

/* Adds the pad's current (prepared) frame to the history when it is a new
 * one (another running time than the newest kept). */
static void
history_push (DMHistory * h, GstVideoAggregatorPad * pad, GstVideoFrame * frame,
    gboolean faces)
{
  GstBuffer *cur;
  GstClockTime rt;
  DMHeldFrame *e;

  if (!pad || !frame)
    return;
  cur = gst_video_aggregator_pad_get_current_buffer (pad);
  if (!cur || !GST_BUFFER_PTS_IS_VALID (cur))
    return;
  rt = gst_segment_to_running_time (&GST_AGGREGATOR_PAD (pad)->segment,
      GST_FORMAT_TIME, GST_BUFFER_PTS (cur));
  if (!GST_CLOCK_TIME_IS_VALID (rt))
    return;
  e = history_add (h, frame->buffer, &frame->info, rt, FALSE);
  if (e) {
    e->duration = GST_BUFFER_DURATION (cur);
    e->n_faces = faces ? collect_faces (cur, e->faces) : 0;
  }
}

/* Every depth frame as it arrives on the depth pad (upstream's thread): a
 * frame arriving after its output time is dropped by the base class before
 * it becomes the pad's current frame, yet it is the one a colour frame of
 * that time needs. */
static GstPadProbeReturn
depth_probe (GstPad * pad, GstPadProbeInfo * info, gpointer user_data)
{
  GstDepthMatte *self = GST_DEPTH_MATTE (user_data);

  if (info->type & GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM) {
    GstEvent *ev = GST_PAD_PROBE_INFO_EVENT (info);
    if (GST_EVENT_TYPE (ev) == GST_EVENT_SEGMENT) {
      const GstSegment *seg;
      gst_event_parse_segment (ev, &seg);
      g_mutex_lock (&self->depth_lock);
      gst_segment_copy_into (seg, &self->depth_segment);
      g_mutex_unlock (&self->depth_lock);
    } else if (GST_EVENT_TYPE (ev) == GST_EVENT_CAPS) {
      /* the layout once per caps, not per frame */
      GstCaps *caps;
      gst_event_parse_caps (ev, &caps);
      g_mutex_lock (&self->depth_lock);
      self->depth_info_valid = gst_video_info_from_caps (&self->depth_info, caps);
      g_mutex_unlock (&self->depth_lock);
    }
  } else if (info->type & GST_PAD_PROBE_TYPE_BUFFER) {
    GstBuffer *buf = GST_PAD_PROBE_INFO_BUFFER (info);
    g_mutex_lock (&self->depth_lock);
    if (self->depth_info_valid && GST_BUFFER_PTS_IS_VALID (buf)
        && self->depth_segment.format == GST_FORMAT_TIME) {
      GstClockTime rt = gst_segment_to_running_time (&self->depth_segment,
          GST_FORMAT_TIME, GST_BUFFER_PTS (buf));
      if (GST_CLOCK_TIME_IS_VALID (rt))
        history_add (&self->depth_history, buf, &self->depth_info, rt, TRUE);
    }
    g_mutex_unlock (&self->depth_lock);
  }
  return GST_PAD_PROBE_OK;
}

static GstClockTime
pairing_tolerance (GstDepthMatte * self, guint64 setting)
{
  GstClockTime longest = 0;
  guint i;
  if (setting > 0)
    return setting;
  /* half the longer frame duration of the two inputs, plus 5 ms */
  for (i = 0; i < self->colour_history.n; i++)
    if (GST_CLOCK_TIME_IS_VALID (self->colour_history.f[i].duration))
      longest = MAX (longest, self->colour_history.f[i].duration);
  for (i = 0; i < self->depth_history.n; i++)
    if (GST_CLOCK_TIME_IS_VALID (self->depth_history.f[i].duration))
      longest = MAX (longest, self->depth_history.f[i].duration);
  if (longest == 0)
    longest = GST_SECOND / 30;
  return longest / 2 + 5 * GST_MSECOND;
}

static inline GstClockTime
rt_distance (const DMHeldFrame * a, const DMHeldFrame * b)
{
  return a->rt > b->rt ? a->rt - b->rt : b->rt - a->rt;
}

/* The newest colour frame that has a depth frame within `tol` of its time,
 * and that depth frame (the nearest). FALSE when no colour frame has. */
static gboolean
pairing_choose (GstDepthMatte * self, GstClockTime tol, DMHeldFrame ** colour,
    DMHeldFrame ** depth)
{
  gint i;
  guint j;
  for (i = (gint) self->colour_history.n - 1; i >= 0; i--) {
    DMHeldFrame *c = &self->colour_history.f[i], *best = NULL;
    GstClockTime best_d = GST_CLOCK_TIME_NONE;
    for (j = 0; j < self->depth_history.n; j++) {
      DMHeldFrame *d = &self->depth_history.f[j];
      GstClockTime diff = rt_distance (c, d);
      if (!best || diff < best_d) {
        best = d;
        best_d = diff;
      }
    }
    if (best && best_d <= tol) {
      *colour = c;
      *depth = best;
      return TRUE;
    }
  }
  return FALSE;
}

/* The colour and depth frames closest in time of the two histories (before
 * any pairing within the tolerance: the first frames of a run). */
static gboolean
pairing_closest (GstDepthMatte * self, DMHeldFrame ** colour,
    DMHeldFrame ** depth)
{
  guint i, j;
  GstClockTime best = GST_CLOCK_TIME_NONE;
  for (i = 0; i < self->colour_history.n; i++)
    for (j = 0; j < self->depth_history.n; j++) {
      DMHeldFrame *c = &self->colour_history.f[i], *d = &self->depth_history.f[j];
      GstClockTime diff = rt_distance (c, d);
      if (!GST_CLOCK_TIME_IS_VALID (best) || diff <= best) {
        best = diff;
        *colour = c;
        *depth = d;
      }
    }
  return GST_CLOCK_TIME_IS_VALID (best);
}

static GstFlowReturn
gst_depth_matte_aggregate_frames (GstVideoAggregator * vagg,
    GstBuffer * outbuf)
{
  GstDepthMatte *self = GST_DEPTH_MATTE (vagg);
  GstVideoAggregatorPad *vpad, *dpad, *bpad;
  GstVideoFrame *vframe = NULL, *dframe = NULL, *bframe = NULL;
  GstVideoFrame oframe;
  DMDepthMatteSettings settings;
  DMDepthMatteFrame frame = { 0 };
  DMDepthMatteResult result = { 0 };
  DMBox faces[DM_MAX_FACES];
  gboolean post;
  GstFlowReturn ret = GST_FLOW_OK;
  GstVideoFrame paired_colour, paired_depth;
  gboolean own_colour = FALSE, own_depth = FALSE;
  DMHeldFrame *paired_faces = NULL;

  if (g_atomic_int_compare_and_exchange (&self->flush_pending, 1, 0)) {
    if (self->state)
      dm_state_reset (self->state);
    pairing_clear (self);
  }

  /* controlled properties (GstController) take their values for this frame */
  dm_props_sync (GST_OBJECT (self),
      &GST_AGGREGATOR_PAD (GST_AGGREGATOR_SRC_PAD (vagg))->segment,
      GST_BUFFER_PTS (outbuf));

  GST_OBJECT_LOCK (self);
  settings = self->settings;
  post = settings.post_messages;
  vpad = self->video_pad ? gst_object_ref (self->video_pad) : NULL;
  dpad = self->depth_pad ? gst_object_ref (self->depth_pad) : NULL;
  bpad = self->background_pad ? gst_object_ref (self->background_pad) : NULL;
  GST_OBJECT_UNLOCK (self);

  if (vpad)
    vframe = gst_video_aggregator_pad_get_prepared_frame (vpad);
  if (dpad)
    dframe = gst_video_aggregator_pad_get_prepared_frame (dpad);
  if (bpad)
    bframe = gst_video_aggregator_pad_get_prepared_frame (bpad);

  check_unmappable (self, vpad, vframe, "video", INPUT_VIDEO);
  check_unmappable (self, dpad, dframe, "depth", INPUT_DEPTH);
  check_unmappable (self, bpad, bframe, "background", INPUT_BACKGROUND);
  log_presence (self, vpad, vframe, "video", INPUT_VIDEO, GST_BUFFER_PTS (outbuf));
  log_presence (self, dpad, dframe, "depth", INPUT_DEPTH, GST_BUFFER_PTS (outbuf));
  log_presence (self, bpad, bframe, "background", INPUT_BACKGROUND,
      GST_BUFFER_PTS (outbuf));
  {
    GstSegment *oseg = &GST_AGGREGATOR_PAD (GST_AGGREGATOR_SRC_PAD (vagg))->segment;
    GstClockTime out_rt = GST_BUFFER_PTS_IS_VALID (outbuf) ?
        gst_segment_to_running_time (oseg, GST_FORMAT_TIME,
        GST_BUFFER_PTS (outbuf)) : GST_CLOCK_TIME_NONE;
    check_stalled (self, dpad, out_rt, "depth", INPUT_DEPTH);
    check_stalled (self, bpad, out_rt, "background", INPUT_BACKGROUND);
  }

  /* colour and depth paired by time: the newest colour frame with a depth
   * frame near its own time (a slow branch delivers one late: the other's
   * frame of that time is still in its history); none that close: the last
   * good pairing again, never one of mixed times. A depth input that has
   * ended is held on purpose (a depth still, one frame; a truncated
   * recording, warned about): a colour frame past its end is keyed with
   * its last frame, as before pairing. */
  if (vframe && dframe) {
    gboolean depth_ended = gst_aggregator_pad_is_eos (GST_AGGREGATOR_PAD (dpad));
    DMHeldFrame *c = NULL, *d = NULL;
    GstClockTime tol;
    history_push (&self->colour_history, vpad, vframe, TRUE);
    g_mutex_lock (&self->depth_lock);
    if (self->depth_history.n == 0)
      history_push (&self->depth_history, dpad, dframe, FALSE);
    tol = pairing_tolerance (self, settings.sync_tolerance);
    if (pairing_choose (self, tol, &c, &d)) {
      if (self->holding)
        GST_INFO_OBJECT (self, "colour at %" GST_TIME_FORMAT " paired with "
            "depth at %" GST_TIME_FORMAT " again", GST_TIME_ARGS (c->rt),
            GST_TIME_ARGS (d->rt));
      held_copy (&self->pair_colour, c);
      held_copy (&self->pair_depth, d);
      self->holding = FALSE;
    } else if (depth_ended) {
      held_clear (&self->pair_colour);
      held_clear (&self->pair_depth);
      self->holding = FALSE;
    } else if (!self->pair_colour.buf && pairing_closest (self, &c, &d)) {
      /* nothing paired yet: the two frames closest in time */
      held_copy (&self->pair_colour, c);
      held_copy (&self->pair_depth, d);
    } else if (self->pair_colour.buf) {
      if (!self->holding)
        GST_INFO_OBJECT (self, "no depth within %" GST_TIME_FORMAT " of the "
            "newest colour frames: repeating the last pairing (colour at %"
            GST_TIME_FORMAT ", depth at %" GST_TIME_FORMAT ")",
            GST_TIME_ARGS (tol), GST_TIME_ARGS (self->pair_colour.rt),
            GST_TIME_ARGS (self->pair_depth.rt));
      self->holding = TRUE;
    }
    g_mutex_unlock (&self->depth_lock);
    if (self->pair_colour.buf && self->pair_colour.buf != vframe->buffer
        && gst_video_frame_map (&paired_colour, &self->pair_colour.info,
            self->pair_colour.buf, GST_MAP_READ)) {
      vframe = &paired_colour;
      own_colour = TRUE;
    }
    if (self->pair_depth.buf && self->pair_depth.buf != dframe->buffer
        && gst_video_frame_map (&paired_depth, &self->pair_depth.info,
            self->pair_depth.buf, GST_MAP_READ)) {
      dframe = &paired_depth;
      own_depth = TRUE;
    }
    if (self->pair_colour.buf)
      paired_faces = &self->pair_colour;
  }

  if (!vframe && vpad && gst_aggregator_pad_is_eos (GST_AGGREGATOR_PAD (vpad))) {
    /* the video ended: so does the output */
    ret = GST_FLOW_EOS;
    goto done;
  }

  if (!gst_video_frame_map (&oframe, &vagg->info, outbuf, GST_MAP_WRITE)) {
    GST_ELEMENT_ERROR (self, STREAM, FAILED, ("Could not map output buffer"),
        (NULL));
    ret = GST_FLOW_ERROR;
    goto done;
  }

  frame.output = dm_rgb_image_from_frame (&oframe);
  if (vframe) {
    frame.video = dm_rgb_image_from_frame (vframe);
    if (paired_faces) {
      frame.n_faces = paired_faces->n_faces;
      memcpy (faces, paired_faces->faces, sizeof (faces));
    } else {
      frame.n_faces = collect_faces (gst_video_aggregator_pad_get_current_buffer
          (vpad), faces);
    }
    frame.faces = faces;
  } else {
    /* no colour for this output time: the output is the background */
    if (!self->warned_no_video && !(self->warned_unmappable & INPUT_VIDEO)) {
      GST_ELEMENT_WARNING (self, STREAM, FAILED,
          ("No video frame for this output time."),
          ("Producing background-only frames until video arrives"));
      self->warned_no_video = TRUE;
    }
  }
  if (dframe) {
    frame.depth = dm_gray_image_from_frame (dframe);
    frame.has_depth = 1;
    frame.depth_eight_bit =
        GST_VIDEO_FRAME_FORMAT (dframe) == GST_VIDEO_FORMAT_GRAY8;
    frame.depth_big_endian =
        GST_VIDEO_FRAME_FORMAT (dframe) == GST_VIDEO_FORMAT_GRAY16_BE;
  } else if (vframe && !self->warned_no_depth
      && !(self->warned_unmappable & INPUT_DEPTH)) {
    GST_ELEMENT_WARNING (self, STREAM, FAILED,
        ("No depth frame: passing the video through unkeyed."),
        ("The depth pad is %s; the matte is 1 everywhere until depth arrives",
            dpad ? "linked but has no buffer yet" : "not requested"));
    self->warned_no_depth = TRUE;
  }
  if (bframe) {
    frame.background = dm_rgb_image_from_frame (bframe);
    frame.has_background = 1;
  }

  /* the lock's clock: the output frame's duration */
  settings.frame_duration = GST_BUFFER_DURATION_IS_VALID (outbuf) ?
      (double) GST_BUFFER_DURATION (outbuf) / GST_SECOND : 0.0;
  if (!self->state)
    self->state = dm_depthmatte_new ();
  dm_depthmatte_process (self->state, &settings, &frame, &result);
  gst_video_frame_unmap (&oframe);

  log_lock (self, &result, frame.n_faces, GST_BUFFER_PTS (outbuf));
  GST_LOG_OBJECT (self, "frame %" GST_TIME_FORMAT ": video %s, depth %s, "
      "background %s, %d face boxes, lock %s, cutoff %.3f m, coverage %.3f",
      GST_TIME_ARGS (GST_BUFFER_PTS (outbuf)), vframe ? "yes" : "no",
      dframe ? "yes" : "no", bframe ? "yes" : "no", frame.n_faces,
      lock_source_name (result.lock_source), result.cutoff, result.coverage);

  if (post)
    post_result (self, outbuf, &result);

done:
  if (own_colour)
    gst_video_frame_unmap (&paired_colour);
  if (own_depth)
    gst_video_frame_unmap (&paired_depth);
  if (vpad)
    gst_object_unref (vpad);
  if (dpad)
    gst_object_unref (dpad);
  if (bpad)
    gst_object_unref (bpad);
  return ret;
}

/* ---- state -------------------------------------------------------------------- */

static gboolean
gst_depth_matte_start (GstAggregator * agg)
{
  GstDepthMatte *self = GST_DEPTH_MATTE (agg);
  guint n_threads;
  if (self->state)
    dm_state_reset (self->state);
  self->warned_no_depth = FALSE;
  self->warned_no_video = FALSE;
  self->warned_unmappable = 0;
  self->stalled = 0;
  self->logged_lock = -1;
  self->logged_cutoff = 0.0;
  self->present = 0;
  g_atomic_int_set (&self->flush_pending, 0);
  pairing_clear (self);
  dm_log_pad_caps (GST_AGGREGATOR_SRC_PAD (agg), GST_CAT_DEFAULT);
  GST_OBJECT_LOCK (self);
  n_threads = self->settings.n_threads;
  GST_OBJECT_UNLOCK (self);
  /* as WorkerPool.threadCount resolves it */
  GST_INFO_OBJECT (self, "starting: %ld worker threads per frame (n-threads=%u"
      "%s)", n_threads ? (glong) MIN (n_threads, 64) :
      CLAMP (sysconf (_SC_NPROCESSORS_ONLN), 1, 64), n_threads,
      n_threads ? "" : ": one per online CPU core");
  return GST_AGGREGATOR_CLASS (gst_depth_matte_parent_class)->start (agg);
}

static gboolean
gst_depth_matte_stop (GstAggregator * agg)
{
  pairing_clear (GST_DEPTH_MATTE (agg));
  return GST_AGGREGATOR_CLASS (gst_depth_matte_parent_class)->stop (agg);
}

/* ---- properties ------------------------------------------------------------ */

static const DMPropSpec properties[] = {
#define DM_PROPERTY(...) DM_PROP_SPEC (DMDepthMatteSettings, __VA_ARGS__)
#include "depthmatte_properties.def"
};

/* output=alpha changes the output format: renegotiate when it is switched on
 * or off. */
static void
gst_depth_matte_property_changed (GObject * object, const DMPropSpec * spec,
    gdouble old_value, gdouble new_value)
{
  if (g_str_equal (spec->name, "output")
      && (old_value == DM_OUTPUT_ALPHA) != (new_value == DM_OUTPUT_ALPHA))
    gst_pad_mark_reconfigure (GST_AGGREGATOR_SRC_PAD (object));
}

static void
gst_depth_matte_free_more (GObject * object)
{
  GstDepthMatte *self = GST_DEPTH_MATTE (object);
  pairing_clear (self);
  g_mutex_clear (&self->depth_lock);
  g_free (self->colour_history.f);
  g_free (self->depth_history.f);
}

static const DMElementInfo element_info = {
  "Depth matte", "Filter/Editor/Video/Compositor",
      "Keys video by depth: locks a depth cutoff to the subject's face, "
      "builds a soft matte and puts the subject over a new background",
  DM_ELEMENT_PROPERTIES (properties), gst_depth_matte_property_changed,
  DM_ELEMENT_LAYOUT (GstDepthMatte), { NULL }, gst_depth_matte_free_more
};

static void
gst_depth_matte_class_init (GstDepthMatteClass * klass)
{
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstAggregatorClass *agg_class = GST_AGGREGATOR_CLASS (klass);
  GstVideoAggregatorClass *vagg_class = GST_VIDEO_AGGREGATOR_CLASS (klass);

  dm_element_class_init (klass, &element_info);

  gst_element_class_add_static_pad_template_with_gtype (element_class,
      &src_template, GST_TYPE_AGGREGATOR_PAD);
  gst_element_class_add_static_pad_template_with_gtype (element_class,
      &video_template, gst_depth_matte_video_pad_get_type ());
  gst_element_class_add_static_pad_template_with_gtype (element_class,
      &depth_template, GST_TYPE_VIDEO_AGGREGATOR_PAD);
  gst_element_class_add_static_pad_template_with_gtype (element_class,
      &background_template, GST_TYPE_VIDEO_AGGREGATOR_CONVERT_PAD);


  element_class->release_pad = GST_DEBUG_FUNCPTR (gst_depth_matte_release_pad);
  agg_class->create_new_pad =
      GST_DEBUG_FUNCPTR (gst_depth_matte_create_new_pad);
  agg_class->sink_query = GST_DEBUG_FUNCPTR (gst_depth_matte_sink_query);
  agg_class->sink_event = GST_DEBUG_FUNCPTR (gst_depth_matte_sink_event);
  agg_class->update_src_caps =
      GST_DEBUG_FUNCPTR (gst_depth_matte_update_src_caps);
  agg_class->fixate_src_caps =
      GST_DEBUG_FUNCPTR (gst_depth_matte_fixate_src_caps);
  agg_class->start = GST_DEBUG_FUNCPTR (gst_depth_matte_start);
  agg_class->stop = GST_DEBUG_FUNCPTR (gst_depth_matte_stop);
  vagg_class->aggregate_frames =
      GST_DEBUG_FUNCPTR (gst_depth_matte_aggregate_frames);

}

static void
gst_depth_matte_init (GstDepthMatte * self)
{
  dm_depthmatte_settings_init (&self->settings);
  g_mutex_init (&self->depth_lock);
  gst_segment_init (&self->depth_segment, GST_FORMAT_UNDEFINED);
  self->colour_history.cap = DM_COLOUR_HISTORY;
  self->colour_history.f = g_new0 (DMHeldFrame, DM_COLOUR_HISTORY);
  self->depth_history.cap = DM_DEPTH_HISTORY;
  self->depth_history.f = g_new0 (DMHeldFrame, DM_DEPTH_HISTORY);
}

GST_ELEMENT_REGISTER_DEFINE_WITH_CODE (depthmatte, "depthmatte", GST_RANK_NONE,
    GST_TYPE_DEPTH_MATTE, GST_DEBUG_CATEGORY_INIT (gst_depth_matte_debug, "depthmatte", 0,
      "depth matte keyer"));
