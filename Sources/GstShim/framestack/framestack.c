/* SPDX-License-Identifier: LGPL-2.1-or-later */
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
 * when an output is due. The output side (pool, push, message) is in
 * framestack-output.c.
 */
#include "framestack-private.h"
#include "element.h"
#include "elements.h"
#include "padlog.h"
#include "rgbimage.h"

GST_DEBUG_CATEGORY (gst_frame_stack_debug);

G_DEFINE_TYPE (GstFrameStack, gst_frame_stack, GST_TYPE_ELEMENT);

/* ---- enums ---------------------------------------------------------------- */

DM_DEFINE_ENUM (static, dm_framestack_method_get_type, "GstFrameStackMethod", DM_FS_METHOD_LIST);

DM_DEFINE_ENUM (static, dm_framestack_align_get_type, "GstFrameStackAlign", DM_FS_ALIGN_LIST);

DM_DEFINE_ENUM (static, dm_framestack_mode_get_type, "GstFrameStackMode", DM_FS_MODE_LIST);

/* ---- pad templates --------------------------------------------------------- */

static GstStaticPadTemplate sink_template =
DM_PACKED_RGB_TEMPLATE ("sink", GST_PAD_SINK);
static GstStaticPadTemplate src_template =
DM_PACKED_RGB_TEMPLATE ("src", GST_PAD_SRC);

/* ---- helpers ---------------------------------------------------------------- */

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
  return dm_caps_filter (res, filter);
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
  settings = gst_frame_stack_copy_settings (self, NULL);
  in = dm_rgb_image_from_frame (&frame);
  if (!self->state)
    self->state = dm_framestack_new ();
  due = dm_framestack_push (self->state, &settings, &in, GST_BUFFER_PTS (buf),
      GST_BUFFER_DURATION (buf));
  gst_video_frame_unmap (&frame);
  gst_buffer_unref (buf);

  return due ? gst_frame_stack_push_stack (self) : GST_FLOW_OK;
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
      gst_frame_stack_drain (self);
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
  gst_frame_stack_setup_pool (self, outcaps);
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
      gst_frame_stack_drain (self);
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
      gst_frame_stack_drain (self);
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
  if (res)
    res = dm_caps_filter (res, filter);
  else
    res = query_caps_through (pad, pad == self->srcpad ? self->sinkpad :
        self->srcpad, filter);
  gst_query_set_caps_result (query, res);
  gst_caps_unref (res);
  return TRUE;
}

/* Upstream's latency plus, in batch mode, N-1 frames: a batch is output
 * when its last frame arrives, N-1 frames after the batch's timestamp. */
static gboolean
answer_latency (GstFrameStack * self, GstQuery * query)
{
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
  if (mode == DM_FS_MODE_BATCH && GST_CLOCK_TIME_IS_VALID (fdur))
    extra = fdur * (frames - 1);
  min += extra;
  if (GST_CLOCK_TIME_IS_VALID (max))
    max += extra;
  gst_query_set_latency (query, live, min, max);
  return TRUE;
}

/* Both pads' queries: CAPS on either, ALLOCATION on the sink pad, LATENCY
 * on the src pad; the rest as the default handler answers them. */
static gboolean
gst_frame_stack_query (GstPad * pad, GstObject * parent, GstQuery * query)
{
  GstFrameStack *self = GST_FRAME_STACK (parent);

  switch (GST_QUERY_TYPE (query)) {
    case GST_QUERY_CAPS:
      return answer_caps (self, pad, query);
    case GST_QUERY_ALLOCATION:
      if (pad != self->sinkpad)
        break;
      /* frames are copied on arrival: any allocation upstream likes; we
       * read strides from GstVideoMeta */
      gst_query_add_allocation_meta (query, GST_VIDEO_META_API_TYPE, NULL);
      return TRUE;
    case GST_QUERY_LATENCY:
      if (pad != self->srcpad)
        break;
      return answer_latency (self, query);
    default:
      break;
  }
  return gst_pad_query_default (pad, parent, query);
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
    gst_frame_stack_drop_pool (self);
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
  gst_frame_stack_drop_pool (GST_FRAME_STACK (object));
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
      GST_DEBUG_FUNCPTR (gst_frame_stack_query));
  gst_element_add_pad (GST_ELEMENT (self), self->sinkpad);
  dm_watch_refused_caps (GST_ELEMENT (self), self->sinkpad);

  self->srcpad = gst_pad_new_from_static_template (&src_template, "src");
  gst_pad_set_query_function (self->srcpad,
      GST_DEBUG_FUNCPTR (gst_frame_stack_query));
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
