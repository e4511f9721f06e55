/* framestack.c: GObject glue for the framestack element.
 *
 * Stacks N aligned frames into one by per-channel mean or median (people who
 * walk through the shot disappear, noise averages out).
 *
 * Why a plain GstElement with one sink and one src pad: the element is N→1
 * (batch) or 1→1 with an N-frame memory (sliding). GstBaseTransform is built
 * around one output per input (N→1 needs submit_input_buffer/generate_output
 * tricks and its caps/allocation logic assumes 1:1 rates), and GstAggregator
 * would add a second thread, timeouts and live-latency machinery for a single
 * pad that needs none of it. A chain function plus explicit event handling
 * states the rules directly:
 *   CAPS       src caps = sink caps with framerate in/N (batch; 0/1 stays
 *              0/1) or unchanged (sliding). New size/format mid-stack: the
 *              partial stack is pushed first (under the old caps), then the
 *              stack restarts at the new size.
 *   SEGMENT    a partial batch is pushed first, then the segment forwarded.
 *   EOS        a partial batch is pushed, then EOS forwarded.
 *   FLUSH_STOP collected frames are dropped.
 *   GAP        forwarded in sliding mode, dropped in batch mode (a gap inside
 *              a batch would precede the batch's output timestamp).
 * Output timestamps: batch PTS = PTS of the batch's first frame, duration =
 * end of its last frame - PTS; sliding: PTS/duration of the newest input.
 * In batch mode the element reports (N-1) frames of extra latency.
 *
 * No pixel work and no decisions about frames here: the Swift bridge keeps
 * the frames (copied, so upstream buffer pools are not starved) and says
 * when an output is due.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include <gst/gst.h>
#include <gst/video/video.h>
#include <gst/video/gstvideopool.h>
#include "framestack.h"
#include "element.h"
#include "elements.h"
#include "padlog.h"
#include "rgbimage.h"

GST_DEBUG_CATEGORY_STATIC (gst_frame_stack_debug);
#define GST_CAT_DEFAULT gst_frame_stack_debug

#define GST_TYPE_FRAME_STACK (gst_frame_stack_get_type ())
G_DECLARE_FINAL_TYPE (GstFrameStack, gst_frame_stack, GST, FRAME_STACK, GstElement)

struct _GstFrameStack
{
  GstElement parent;
  GstPad *sinkpad, *srcpad;

  /* properties (framestack_properties.def), guarded by the object lock */
  DMFrameStackSettings settings;

  /* streaming thread (chain and serialized events) */
  void *state;                  /* Swift FrameStacker */
  gboolean have_info;
  GstVideoInfo info;            /* input (= output) size and format */
  gint frames, mode;            /* taken from the properties at each CAPS */
  GstSegment segment;
  gboolean discont;
  GstBufferPool *pool;
  /* latency added in batch mode; read by the latency query */
  GstClockTime frame_duration;  /* guarded by the object lock */

  /* message arrays for DMFrameStackResult */
  double shift_x[DM_FRAMESTACK_MAX_FRAMES], shift_y[DM_FRAMESTACK_MAX_FRAMES];
  int32_t registered[DM_FRAMESTACK_MAX_FRAMES];
  uint64_t frame_pts[DM_FRAMESTACK_MAX_FRAMES];
  uint64_t sample_counts[DM_FRAMESTACK_MAX_FRAMES + 1];
};


G_DEFINE_TYPE (GstFrameStack, gst_frame_stack, GST_TYPE_ELEMENT);

/* ---- enums ---------------------------------------------------------------- */

DM_DEFINE_ENUM (static, dm_framestack_method_get_type, "GstFrameStackMethod",
    {DM_FS_METHOD_MEAN, "Per-channel mean of the samples (noise falls by "
          "about sqrt(N); moving objects leave ghosts)", "mean"},
    {DM_FS_METHOD_MEDIAN, "Per-channel median of the samples (objects "
          "present in fewer than half the frames vanish)", "median"});

DM_DEFINE_ENUM (static, dm_framestack_align_get_type, "GstFrameStackAlign",
    {DM_FS_ALIGN_NONE, "Stack frames as they are (tripod)", "none"},
    {DM_FS_ALIGN_TRANSLATION, "Estimate a sub-pixel translation per frame "
          "(robust to moving objects) and resample before stacking",
        "translation"});

DM_DEFINE_ENUM (static, dm_framestack_mode_get_type, "GstFrameStackMode",
    {DM_FS_MODE_BATCH, "Collect N frames, output one stack, repeat "
          "(framerate / N; a partial stack at EOS)", "batch"},
    {DM_FS_MODE_SLIDING, "Output the stack of the last N frames for every "
          "input (same framerate; live denoise)", "sliding"});

/* ---- pad templates --------------------------------------------------------- */

static GstStaticPadTemplate sink_template =
DM_PACKED_RGB_TEMPLATE ("sink", GST_PAD_SINK);
static GstStaticPadTemplate src_template =
DM_PACKED_RGB_TEMPLATE ("src", GST_PAD_SRC);

/* ---- helpers ---------------------------------------------------------------- */

static DMFrameStackSettings
copy_settings (GstFrameStack * self, gboolean * post)
{
  DMFrameStackSettings s;
  GST_OBJECT_LOCK (self);
  s = self->settings;
  if (post)
    *post = self->settings.post_messages;
  GST_OBJECT_UNLOCK (self);
  /* frames and mode are fixed between CAPS events */
  s.frames = self->frames;
  s.mode = self->mode;
  return s;
}

/* Caps on the other side: same, with any framerate (it is derived). */
static GstCaps *
any_framerate (GstCaps * caps)
{
  GstCaps *res = gst_caps_copy (caps);
  guint i;
  for (i = 0; i < gst_caps_get_size (res); i++) {
    GstStructure *s = gst_caps_get_structure (res, i);
    gst_structure_remove_field (s, "framerate");
  }
  return res;
}

static GstCaps *
query_caps_through (GstPad * pad, GstPad * otherpad, GstCaps * filter)
{
  GstCaps *templ = gst_pad_get_pad_template_caps (pad);
  GstCaps *peer = gst_pad_peer_query_caps (otherpad, NULL);
  GstCaps *res;

  if (peer && !gst_caps_is_any (peer)) {
    GstCaps *loose = any_framerate (peer);
    res = gst_caps_intersect_full (loose, templ, GST_CAPS_INTERSECT_FIRST);
    gst_caps_unref (loose);
    gst_caps_unref (templ);
  } else {
    res = templ;
  }
  if (peer)
    gst_caps_unref (peer);
  if (filter) {
    GstCaps *f = gst_caps_intersect_full (filter, res, GST_CAPS_INTERSECT_FIRST);
    gst_caps_unref (res);
    res = f;
  }
  return res;
}

static void
drop_pool (GstFrameStack * self)
{
  if (self->pool) {
    gst_buffer_pool_set_active (self->pool, FALSE);
    gst_object_unref (self->pool);
    self->pool = NULL;
  }
}

/* Use downstream's pool when it offers one, else a video pool of our own. */
static void
setup_pool (GstFrameStack * self, GstCaps * caps)
{
  GstQuery *query = gst_query_new_allocation (caps, TRUE);
  GstBufferPool *pool = NULL;
  guint size = self->info.size, min = 0, max = 0;
  GstStructure *config;

  drop_pool (self);
  if (gst_pad_peer_query (self->srcpad, query)
      && gst_query_get_n_allocation_pools (query) > 0)
    gst_query_parse_nth_allocation_pool (query, 0, &pool, &size, &min, &max);
  if (!pool)
    pool = gst_video_buffer_pool_new ();
  size = MAX (size, (guint) self->info.size);
  config = gst_buffer_pool_get_config (pool);
  gst_buffer_pool_config_set_params (config, caps, size, min, max);
  if (gst_query_find_allocation_meta (query, GST_VIDEO_META_API_TYPE, NULL))
    gst_buffer_pool_config_add_option (config,
        GST_BUFFER_POOL_OPTION_VIDEO_META);
  if (!gst_buffer_pool_set_config (pool, config)) {
    /* the pool changed our config: take it if it still fits */
    config = gst_buffer_pool_get_config (pool);
    if (!gst_buffer_pool_config_validate_params (config, caps, size, min, max)
        || !gst_buffer_pool_set_config (pool, config)) {
      gst_object_unref (pool);
      pool = gst_video_buffer_pool_new ();
      config = gst_buffer_pool_get_config (pool);
      gst_buffer_pool_config_set_params (config, caps, self->info.size, 0, 0);
      gst_buffer_pool_set_config (pool, config);
    }
  }
  gst_buffer_pool_set_active (pool, TRUE);
  self->pool = pool;
  gst_query_unref (query);
}

static void
post_result (GstFrameStack * self, GstBuffer * outbuf,
    const DMFrameStackResult * r)
{
  GstClockTime ts = GST_BUFFER_PTS (outbuf);
  GValue arr_x = G_VALUE_INIT, arr_y = G_VALUE_INIT, arr_ok = G_VALUE_INIT;
  GValue arr_ts = G_VALUE_INIT, arr_n = G_VALUE_INIT, v = G_VALUE_INIT;
  GstStructure *s;
  guint64 border = 0;
  gint k;

  gst_value_array_init (&arr_x, r->n_frames);
  gst_value_array_init (&arr_y, r->n_frames);
  gst_value_array_init (&arr_ok, r->n_frames);
  gst_value_array_init (&arr_ts, r->n_frames);
  gst_value_array_init (&arr_n, r->n_frames + 1);
  for (k = 0; k < r->n_frames; k++) {
    g_value_init (&v, G_TYPE_DOUBLE);
    g_value_set_double (&v, r->shift_x[k]);
    gst_value_array_append_and_take_value (&arr_x, &v);
    g_value_init (&v, G_TYPE_DOUBLE);
    g_value_set_double (&v, r->shift_y[k]);
    gst_value_array_append_and_take_value (&arr_y, &v);
    g_value_init (&v, G_TYPE_BOOLEAN);
    g_value_set_boolean (&v, r->registered[k] != 0);
    gst_value_array_append_and_take_value (&arr_ok, &v);
    g_value_init (&v, G_TYPE_UINT64);
    g_value_set_uint64 (&v, r->frame_pts[k]);
    gst_value_array_append_and_take_value (&arr_ts, &v);
  }
  for (k = 0; k <= r->n_frames; k++) {
    g_value_init (&v, G_TYPE_UINT64);
    g_value_set_uint64 (&v, r->sample_counts[k]);
    gst_value_array_append_and_take_value (&arr_n, &v);
    if (k < r->n_frames)
      border += r->sample_counts[k];
  }

  s = gst_structure_new ("framestack",
      "timestamp", G_TYPE_UINT64, ts,
      "stream-time", G_TYPE_UINT64,
      gst_segment_to_stream_time (&self->segment, GST_FORMAT_TIME, ts),
      "running-time", G_TYPE_UINT64,
      gst_segment_to_running_time (&self->segment, GST_FORMAT_TIME, ts),
      "duration", G_TYPE_UINT64, GST_BUFFER_DURATION (outbuf),
      "frames", G_TYPE_INT, r->n_frames,
      "min-samples", G_TYPE_INT, r->min_samples,
      "border-pixels", G_TYPE_UINT64, border,
      "full-x", G_TYPE_INT, r->full_x, "full-y", G_TYPE_INT, r->full_y,
      "full-width", G_TYPE_INT, r->full_width,
      "full-height", G_TYPE_INT, r->full_height, NULL);
  gst_structure_take_value (s, "shift-x", &arr_x);
  gst_structure_take_value (s, "shift-y", &arr_y);
  gst_structure_take_value (s, "registered", &arr_ok);
  gst_structure_take_value (s, "frame-timestamps", &arr_ts);
  gst_structure_take_value (s, "sample-counts", &arr_n);
  gst_element_post_message (GST_ELEMENT (self),
      gst_message_new_element (GST_OBJECT (self), s));
}

/* Stack what was collected and push it. */
static GstFlowReturn
push_stack (GstFrameStack * self)
{
  DMFrameStackSettings settings;
  DMFrameStackResult result = { 0 };
  GstVideoFrame oframe;
  GstBuffer *outbuf = NULL;
  DMRGBImage out;
  gboolean post;
  GstFlowReturn ret;

  settings = copy_settings (self, &post);
  if (self->pool)
    ret = gst_buffer_pool_acquire_buffer (self->pool, &outbuf, NULL);
  else {
    outbuf = gst_buffer_new_allocate (NULL, self->info.size, NULL);
    ret = outbuf ? GST_FLOW_OK : GST_FLOW_ERROR;
  }
  if (ret != GST_FLOW_OK) {
    dm_state_reset (self->state);
    return ret;
  }
  if (!gst_video_frame_map (&oframe, &self->info, outbuf, GST_MAP_WRITE)) {
    gst_buffer_unref (outbuf);
    dm_state_reset (self->state);
    GST_ELEMENT_ERROR (self, STREAM, FAILED, ("Could not map output buffer"),
        (NULL));
    return GST_FLOW_ERROR;
  }
  result.shift_x = self->shift_x;
  result.shift_y = self->shift_y;
  result.registered = self->registered;
  result.frame_pts = self->frame_pts;
  result.sample_counts = self->sample_counts;
  out = dm_rgb_image_from_frame (&oframe);
  dm_framestack_render (self->state, &settings, &out, &result);
  gst_video_frame_unmap (&oframe);

  GST_BUFFER_PTS (outbuf) = result.pts;
  GST_BUFFER_DTS (outbuf) = GST_CLOCK_TIME_NONE;
  GST_BUFFER_DURATION (outbuf) = result.duration;
  if (self->discont) {
    GST_BUFFER_FLAG_SET (outbuf, GST_BUFFER_FLAG_DISCONT);
    self->discont = FALSE;
  }
  GST_LOG_OBJECT (self, "stack of %d frames at %" GST_TIME_FORMAT
      " duration %" GST_TIME_FORMAT ", min samples %d", result.n_frames,
      GST_TIME_ARGS (result.pts), GST_TIME_ARGS (result.duration),
      result.min_samples);
  if (post)
    post_result (self, outbuf, &result);
  return gst_pad_push (self->srcpad, outbuf);
}

/* Push a partial batch, if any. */
static GstFlowReturn
drain (GstFrameStack * self)
{
  if (self->state && self->have_info && self->mode == DM_FS_MODE_BATCH
      && dm_framestack_pending (self->state) > 0)
    return push_stack (self);
  return GST_FLOW_OK;
}

static void
forget (GstFrameStack * self)
{
  if (self->state)
    dm_state_reset (self->state);
  self->discont = TRUE;
}

/* ---- data ------------------------------------------------------------------- */

static GstFlowReturn
gst_frame_stack_chain (GstPad * pad, GstObject * parent, GstBuffer * buf)
{
  GstFrameStack *self = GST_FRAME_STACK (parent);
  DMFrameStackSettings settings;
  GstVideoFrame frame;
  DMRGBImage in;
  gint due;

  if (!self->have_info) {
    gst_buffer_unref (buf);
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION, (NULL),
        ("Buffer before caps"));
    return GST_FLOW_NOT_NEGOTIATED;
  }
  if (GST_BUFFER_FLAG_IS_SET (buf, GST_BUFFER_FLAG_DISCONT))
    self->discont = TRUE;
  if (!gst_video_frame_map (&frame, &self->info, buf, GST_MAP_READ)) {
    gsize size = gst_buffer_get_size (buf);
    gst_buffer_unref (buf);
    GST_ELEMENT_ERROR (self, STREAM, FORMAT,
        ("framestack could not map an input buffer."),
        ("The buffer has %" G_GSIZE_FORMAT " bytes, its caps (%dx%d %s) need "
            "%" G_GSIZE_FORMAT, size, GST_VIDEO_INFO_WIDTH (&self->info),
            GST_VIDEO_INFO_HEIGHT (&self->info),
            gst_video_format_to_string (GST_VIDEO_INFO_FORMAT (&self->info)),
            (gsize) GST_VIDEO_INFO_SIZE (&self->info)));
    return GST_FLOW_ERROR;
  }
  dm_props_sync (GST_OBJECT (self), &self->segment, GST_BUFFER_PTS (buf));
  settings = copy_settings (self, NULL);
  in = dm_rgb_image_from_frame (&frame);
  if (!self->state)
    self->state = dm_framestack_new ();
  due = dm_framestack_push (self->state, &settings, &in, GST_BUFFER_PTS (buf),
      GST_BUFFER_DURATION (buf));
  gst_video_frame_unmap (&frame);
  gst_buffer_unref (buf);

  return due ? push_stack (self) : GST_FLOW_OK;
}

/* ---- events ----------------------------------------------------------------- */

static gboolean
set_caps (GstFrameStack * self, GstCaps * caps)
{
  GstVideoInfo info;
  GstCaps *outcaps;
  gint frames, mode;
  GstClockTime fdur = GST_CLOCK_TIME_NONE;

  if (!gst_video_info_from_caps (&info, caps)) {
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION, (NULL),
        ("Invalid caps %" GST_PTR_FORMAT, caps));
    return FALSE;
  }
  GST_OBJECT_LOCK (self);
  frames = self->settings.frames;
  mode = self->settings.mode;
  GST_OBJECT_UNLOCK (self);

  if (self->have_info) {
    gboolean same = gst_video_info_is_equal (&info, &self->info)
        && frames == self->frames && mode == self->mode;
    if (same) {
      /* nothing changed that the stack depends on; re-announce downstream */
      GST_DEBUG_OBJECT (self, "caps unchanged");
    } else {
      /* a new size or format mid-stack: push the partial stack under the
       * old caps, then start over */
      GST_INFO_OBJECT (self, "caps changed with %d frames collected: "
          "pushing them as a partial stack", self->state ?
          dm_framestack_pending (self->state) : 0);
      drain (self);
      forget (self);
    }
  }
  self->info = info;
  self->have_info = TRUE;
  self->frames = frames;
  self->mode = mode;
  GST_INFO_OBJECT (self, "%s mode, %d frames per stack", mode ==
      DM_FS_MODE_BATCH ? "batch" : "sliding", frames);

  outcaps = gst_caps_copy (caps);
  if (GST_VIDEO_INFO_FPS_N (&info) > 0 && GST_VIDEO_INFO_FPS_D (&info) > 0) {
    gint n = GST_VIDEO_INFO_FPS_N (&info), d = GST_VIDEO_INFO_FPS_D (&info);
    fdur = gst_util_uint64_scale_int (GST_SECOND, d, n);
    if (mode == DM_FS_MODE_BATCH)
      gst_util_fraction_multiply (n, d, 1, frames, &n, &d);
    gst_caps_set_simple (outcaps, "framerate", GST_TYPE_FRACTION, n, d, NULL);
  } else {
    gst_caps_set_simple (outcaps, "framerate", GST_TYPE_FRACTION, 0, 1, NULL);
  }
  GST_OBJECT_LOCK (self);
  self->frame_duration = fdur;
  GST_OBJECT_UNLOCK (self);

  if (!gst_pad_push_event (self->srcpad, gst_event_new_caps (outcaps))) {
    gchar *s = gst_caps_to_string (outcaps);
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION,
        ("Downstream does not accept framestack's output."),
        ("framestack outputs the input size and format with framerate "
            "input/frames in batch mode: %s", s));
    g_free (s);
    gst_caps_unref (outcaps);
    return FALSE;
  }
  setup_pool (self, outcaps);
  gst_caps_unref (outcaps);
  return TRUE;
}

static gboolean
gst_frame_stack_sink_event (GstPad * pad, GstObject * parent, GstEvent * event)
{
  GstFrameStack *self = GST_FRAME_STACK (parent);

  switch (GST_EVENT_TYPE (event)) {
    case GST_EVENT_CAPS:{
      GstCaps *caps;
      gboolean ok;
      gst_event_parse_caps (event, &caps);
      ok = set_caps (self, caps);
      gst_event_unref (event);
      return ok;
    }
    case GST_EVENT_SEGMENT:
      drain (self);
      forget (self);
      gst_event_copy_segment (event, &self->segment);
      if (self->segment.format != GST_FORMAT_TIME) {
        GST_ELEMENT_ERROR (self, STREAM, FAILED, (NULL),
            ("framestack needs a TIME segment"));
        gst_event_unref (event);
        return FALSE;
      }
      break;
    case GST_EVENT_EOS:
      drain (self);
      forget (self);
      break;
    case GST_EVENT_FLUSH_STOP:
      forget (self);
      gst_segment_init (&self->segment, GST_FORMAT_TIME);
      break;
    case GST_EVENT_GAP:
      if (self->mode == DM_FS_MODE_BATCH) {
        gst_event_unref (event);
        return TRUE;
      }
      break;
    default:
      break;
  }
  return gst_pad_event_default (pad, parent, event);
}

/* ---- queries ---------------------------------------------------------------- */

/* Either pad's CAPS query: the other side's caps (same size and format, any
 * rate); the src pad answers with its current caps once it has them. */
static gboolean
answer_caps (GstFrameStack * self, GstPad * pad, GstQuery * query)
{
  GstCaps *filter, *res = NULL;

  gst_query_parse_caps (query, &filter);
  if (pad == self->srcpad)
    res = gst_pad_get_current_caps (pad);
  if (res && filter) {
    GstCaps *f = gst_caps_intersect_full (filter, res, GST_CAPS_INTERSECT_FIRST);
    gst_caps_unref (res);
    res = f;
  } else if (!res) {
    res = query_caps_through (pad, pad == self->srcpad ? self->sinkpad :
        self->srcpad, filter);
  }
  gst_query_set_caps_result (query, res);
  gst_caps_unref (res);
  return TRUE;
}

static gboolean
gst_frame_stack_sink_query (GstPad * pad, GstObject * parent, GstQuery * query)
{
  GstFrameStack *self = GST_FRAME_STACK (parent);

  switch (GST_QUERY_TYPE (query)) {
    case GST_QUERY_CAPS:
      return answer_caps (self, pad, query);
    case GST_QUERY_ALLOCATION:
      /* frames are copied on arrival: any allocation upstream likes; we
       * read strides from GstVideoMeta */
      gst_query_add_allocation_meta (query, GST_VIDEO_META_API_TYPE, NULL);
      return TRUE;
    default:
      return gst_pad_query_default (pad, parent, query);
  }
}

static gboolean
gst_frame_stack_src_query (GstPad * pad, GstObject * parent, GstQuery * query)
{
  GstFrameStack *self = GST_FRAME_STACK (parent);

  switch (GST_QUERY_TYPE (query)) {
    case GST_QUERY_CAPS:
      return answer_caps (self, pad, query);
    case GST_QUERY_LATENCY:{
      gboolean live;
      GstClockTime min, max, extra = 0, fdur;
      gint frames, mode;
      if (!gst_pad_peer_query (self->sinkpad, query))
        return FALSE;
      gst_query_parse_latency (query, &live, &min, &max);
      GST_OBJECT_LOCK (self);
      fdur = self->frame_duration;
      frames = self->settings.frames;
      mode = self->settings.mode;
      GST_OBJECT_UNLOCK (self);
      if (self->have_info) {
        frames = self->frames;
        mode = self->mode;
      }
      /* a batch is output when its last frame arrives, N-1 frames after
       * the batch's timestamp */
      if (mode == DM_FS_MODE_BATCH && GST_CLOCK_TIME_IS_VALID (fdur))
        extra = fdur * (frames - 1);
      min += extra;
      if (GST_CLOCK_TIME_IS_VALID (max))
        max += extra;
      gst_query_set_latency (query, live, min, max);
      return TRUE;
    }
    default:
      return gst_pad_query_default (pad, parent, query);
  }
}

/* ---- state -------------------------------------------------------------------- */

static GstStateChangeReturn
gst_frame_stack_change_state (GstElement * element, GstStateChange transition)
{
  GstFrameStack *self = GST_FRAME_STACK (element);
  GstStateChangeReturn ret;

  if (transition == GST_STATE_CHANGE_READY_TO_PAUSED) {
    gst_segment_init (&self->segment, GST_FORMAT_TIME);
    self->discont = TRUE;
    self->have_info = FALSE;
    dm_log_pad_caps (self->sinkpad, GST_CAT_DEFAULT);
    dm_log_pad_caps (self->srcpad, GST_CAT_DEFAULT);
    GST_INFO_OBJECT (self, "starting");
  }
  ret = GST_ELEMENT_CLASS (gst_frame_stack_parent_class)->change_state (element,
      transition);
  if (transition == GST_STATE_CHANGE_PAUSED_TO_READY) {
    forget (self);
    self->have_info = FALSE;
    drop_pool (self);
  }
  return ret;
}

/* ---- properties ------------------------------------------------------------ */

static const DMPropSpec properties[] = {
#define DM_PROPERTY(...) DM_PROP_SPEC (DMFrameStackSettings, __VA_ARGS__)
#include "framestack_properties.def"
};

static void
gst_frame_stack_free_more (GObject * object)
{
  drop_pool (GST_FRAME_STACK (object));
}

static const DMElementInfo element_info = {
  "Frame stacker", "Filter/Effect/Video",
      "Aligns frames by sub-pixel translation and stacks them by mean or "
      "median: removes passers-by and averages out noise",
  DM_ELEMENT_PROPERTIES (properties), NULL,
  DM_ELEMENT_LAYOUT (GstFrameStack),
  {&sink_template, &src_template}, gst_frame_stack_free_more
};

static void
gst_frame_stack_class_init (GstFrameStackClass * klass)
{
  dm_element_class_init (klass, &element_info);
  GST_ELEMENT_CLASS (klass)->change_state =
      GST_DEBUG_FUNCPTR (gst_frame_stack_change_state);
}

static void
gst_frame_stack_init (GstFrameStack * self)
{
  self->sinkpad = gst_pad_new_from_static_template (&sink_template, "sink");
  gst_pad_set_chain_function (self->sinkpad,
      GST_DEBUG_FUNCPTR (gst_frame_stack_chain));
  gst_pad_set_event_function (self->sinkpad,
      GST_DEBUG_FUNCPTR (gst_frame_stack_sink_event));
  gst_pad_set_query_function (self->sinkpad,
      GST_DEBUG_FUNCPTR (gst_frame_stack_sink_query));
  gst_element_add_pad (GST_ELEMENT (self), self->sinkpad);
  dm_watch_refused_caps (GST_ELEMENT (self), self->sinkpad);

  self->srcpad = gst_pad_new_from_static_template (&src_template, "src");
  gst_pad_set_query_function (self->srcpad,
      GST_DEBUG_FUNCPTR (gst_frame_stack_src_query));
  gst_pad_use_fixed_caps (self->srcpad);
  gst_element_add_pad (GST_ELEMENT (self), self->srcpad);

  dm_framestack_settings_init (&self->settings);
  self->frames = self->settings.frames;
  self->mode = self->settings.mode;
  self->frame_duration = GST_CLOCK_TIME_NONE;
  gst_segment_init (&self->segment, GST_FORMAT_TIME);
}

GST_ELEMENT_REGISTER_DEFINE_WITH_CODE (framestack, "framestack", GST_RANK_NONE,
    GST_TYPE_FRAME_STACK, GST_DEBUG_CATEGORY_INIT (gst_frame_stack_debug, "framestack", 0,
      "aligned frame stacking"));
