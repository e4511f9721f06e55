/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* depthmatte.c: GObject glue for the depthmatte element.
 *
 * A GstVideoAggregator with four request pads:
 *   video       the colour: packed RGB read as it is, any other camera format
 *               converted to the output's format (a GstVideoAggregatorConvertPad
 *               that skips the conversion for packed RGB; depthmatte-caps.c)
 *   depth       GRAY16_LE/BE depth or disparity, or a GRAY8 normalised map, registered
 *               to the video (plain pad, never converted; see depth-kind)
 *   person      optional, a GRAY8 person probability of the video (255 = person),
 *               any size, e.g. from personmask (plain pad; see person-prior)
 *   background  optional, any video (GstVideoAggregatorConvertPad: converted to the
 *               output format; aspect-fill scaling happens in the Swift kit)
 * The output follows the video pad: its size, rate and format (with output=alpha,
 * the alpha variant of the format).
 *
 * No pixel work and no keying decisions here: every frame, the settings are
 * copied under the object lock, the face ROI metas are collected, and the
 * mapped planes go to dm_depthmatte_process() (Swift bridge).
 *
 * This file holds the type, its pads, start/stop and properties; the output
 * caps, the pairing by time and the per-frame step have files of their own
 * (depthmatte-private.h lists them).
 */
#include <unistd.h>
#include "depthmatte-private.h"
#include "element.h"
#include "elements.h"
#include "padlog.h"

GST_DEBUG_CATEGORY (gst_depth_matte_debug);

G_DEFINE_TYPE (GstDepthMatte, gst_depth_matte, GST_TYPE_VIDEO_AGGREGATOR);

/* ---- enums ---------------------------------------------------------------- */

DM_DEFINE_ENUM (static, dm_depthmatte_mode_get_type, "GstDepthMatteMode", DM_MODE_LIST);

DM_DEFINE_ENUM (static, dm_depthmatte_lock_strategy_get_type, "GstDepthMatteLockStrategy", DM_LOCK_STRATEGY_LIST);

DM_DEFINE_ENUM (static, dm_depthmatte_person_prior_get_type, "GstDepthMattePersonPrior", DM_PERSON_PRIOR_LIST);

DM_DEFINE_ENUM (static, dm_depthmatte_effect_get_type, "GstDepthMatteBackgroundEffect", DM_EFFECT_LIST);

DM_DEFINE_ENUM (static, dm_depthmatte_refine_get_type, "GstDepthMatteRefine", DM_REFINE_LIST);

DM_DEFINE_ENUM (static, dm_depthmatte_output_get_type, "GstDepthMatteOutput", DM_OUTPUT_LIST);

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

static GstStaticPadTemplate person_template = GST_STATIC_PAD_TEMPLATE ("person",
    GST_PAD_SINK, GST_PAD_REQUEST,
    GST_STATIC_CAPS (GST_VIDEO_CAPS_MAKE ("GRAY8")));

static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE ("src",
    GST_PAD_SRC, GST_PAD_ALWAYS,
    GST_STATIC_CAPS (GST_VIDEO_CAPS_MAKE (DM_PACKED_RGB_FORMATS)));
/* ---- pads ------------------------------------------------------------------- */

/* The input a pad (or a pad template name) stands for; -1: none. */
static gint
input_named (const gchar * name)
{
  gint i;
  for (i = 0; i < DM_N_INPUTS; i++)
    if (g_str_equal (name, gst_depth_matte_input_role (i)))
      return i;
  return -1;
}

static gint
input_of_pad (GstDepthMatte * self, GstPad * pad)
{
  gint i, input = -1;
  GST_OBJECT_LOCK (self);
  for (i = 0; i < DM_N_INPUTS; i++)
    if (pad == (GstPad *) self->pads[i])
      input = i;
  GST_OBJECT_UNLOCK (self);
  return input;
}

static GstAggregatorPad *
gst_depth_matte_create_new_pad (GstAggregator * agg, GstPadTemplate * templ,
    const gchar * req_name, const GstCaps * caps)
{
  GstDepthMatte *self = GST_DEPTH_MATTE (agg);
  const gchar *name = GST_PAD_TEMPLATE_NAME_TEMPLATE (templ);
  gint input = input_named (name);
  GstAggregatorPad *pad;

  if (input < 0)
    return NULL;
  GST_OBJECT_LOCK (self);
  if (self->pads[input]) {
    GST_OBJECT_UNLOCK (self);
    GST_WARNING_OBJECT (self, "pad '%s' was already requested", name);
    return NULL;
  }
  pad = g_object_new (GST_PAD_TEMPLATE_GTYPE (templ), "name", name,
      "direction", GST_PAD_SINK, "template", templ, NULL);
  self->pads[input] = (GstVideoAggregatorPad *) pad;
  GST_OBJECT_UNLOCK (self);

  dm_watch_refused_caps (GST_ELEMENT (self), GST_PAD (pad));

  /* A depth map or a background picture that ends early is held (its last
   * frame repeats) until the video ends; a person probability is not (the
   * matte goes on by depth alone). */
  if (input == DM_INPUT_DEPTH || input == DM_INPUT_BACKGROUND)
    g_object_set (pad, "repeat-after-eos", TRUE, NULL);
  if (input == DM_INPUT_DEPTH || input == DM_INPUT_PERSON)
    gst_depth_matte_watch_pad (self, GST_PAD (pad), input);
  dm_log_pad_caps (GST_PAD (pad), GST_CAT_DEFAULT);
  GST_INFO_OBJECT (self, "requested the %s pad", name);
  return pad;
}

static void
gst_depth_matte_release_pad (GstElement * element, GstPad * pad)
{
  GstDepthMatte *self = GST_DEPTH_MATTE (element);
  guint i;

  GST_INFO_OBJECT (self, "releasing the %s pad", GST_PAD_NAME (pad));
  GST_OBJECT_LOCK (self);
  for (i = 0; i < DM_N_INPUTS; i++)
    if (pad == (GstPad *) self->pads[i])
      self->pads[i] = NULL;
  GST_OBJECT_UNLOCK (self);
  GST_ELEMENT_CLASS (gst_depth_matte_parent_class)->release_pad (element, pad);
}

/* CAPS and ACCEPT_CAPS answered from the pad's own template; FALSE for
 * other queries. */
static gboolean
answer_from_template (GstPad * pad, GstQuery * query)
{
  GstCaps *filter, *caps, *templ;

  switch (GST_QUERY_TYPE (query)) {
    case GST_QUERY_CAPS:
      gst_query_parse_caps (query, &filter);
      caps = dm_caps_filter (gst_pad_get_pad_template_caps (pad), filter);
      gst_query_set_caps_result (query, caps);
      gst_caps_unref (caps);
      return TRUE;
    case GST_QUERY_ACCEPT_CAPS:
      gst_query_parse_accept_caps (query, &caps);
      templ = gst_pad_get_pad_template_caps (pad);
      gst_query_set_accept_caps_result (query, gst_caps_is_subset (caps,
              templ));
      gst_caps_unref (templ);
      return TRUE;
    default:
      return FALSE;
  }
}

/* The base class answers CAPS / ACCEPT_CAPS on plain pads with the *src*
 * caps, which would refuse GRAY16_LE depth. The video, depth and person
 * pads accept exactly their template. */
static gboolean
gst_depth_matte_sink_query (GstAggregator * agg, GstAggregatorPad * aggpad,
    GstQuery * query)
{
  gint input = input_of_pad (GST_DEPTH_MATTE (agg), GST_PAD (aggpad));

  if ((input == DM_INPUT_VIDEO || input == DM_INPUT_DEPTH
          || input == DM_INPUT_PERSON) && answer_from_template (GST_PAD (aggpad), query))
    return TRUE;
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

/* ---- state -------------------------------------------------------------------- */

/* The next output time, for the base class's wait on the clock: none before
 * PLAYING. GstAggregator (1.22) otherwise waits on the clock as soon as it
 * has one and a latency, which is before the bin sets its base time: with a
 * base time of 0 every wait is long past, and the output time ran ahead of
 * the sources by 1.7 s in 1 ms (the first output then spanned the sources'
 * first frames and the rest came late: 1 output of 30, about once in 100
 * live starts on a loaded box). Until PLAYING the base class waits for data
 * instead; going to PLAYING wakes it. */
static GstClockTime
gst_depth_matte_get_next_time (GstAggregator * agg)
{
  if (!g_atomic_int_get (&GST_DEPTH_MATTE (agg)->playing))
    return GST_CLOCK_TIME_NONE;
  return gst_aggregator_simple_get_next_time (agg);
}

static GstStateChangeReturn
gst_depth_matte_change_state (GstElement * element, GstStateChange transition)
{
  GstDepthMatte *self = GST_DEPTH_MATTE (element);

  /* before the base class wakes its thread (PAUSED to PLAYING); the bin has
   * set the base time by then */
  if (transition == GST_STATE_CHANGE_PAUSED_TO_PLAYING)
    g_atomic_int_set (&self->playing, 1);
  else if (transition == GST_STATE_CHANGE_PLAYING_TO_PAUSED)
    g_atomic_int_set (&self->playing, 0);
  return GST_ELEMENT_CLASS (gst_depth_matte_parent_class)->change_state
      (element, transition);
}

static gboolean
gst_depth_matte_start (GstAggregator * agg)
{
  GstDepthMatte *self = GST_DEPTH_MATTE (agg);
  guint n_threads;
  if (self->state)
    dm_state_reset (self->state);
  self->warned_no_depth = FALSE;
  self->warned_far_lock = FALSE;
  self->warned_no_video = FALSE;
  self->warned_unmappable = 0;
  self->stalled = 0;
  self->person_missing_since = GST_CLOCK_TIME_NONE;
  self->keyed_video_pts = self->keyed_output_pts = GST_CLOCK_TIME_NONE;
  self->logged_lock = -1;
  self->logged_cutoff = 0.0;
  self->present = 0;
  g_atomic_int_set (&self->flush_pending, 0);
  gst_depth_matte_pairing_clear (self);
  dm_log_pad_caps (GST_AGGREGATOR_SRC_PAD (agg), GST_CAT_DEFAULT);
  GST_OBJECT_LOCK (self);
  n_threads = self->settings.n_threads;
  GST_OBJECT_UNLOCK (self);
  /* as WorkerPool.threadCount and ThreadBudget resolve it */
  if (n_threads)
    GST_INFO_OBJECT (self, "starting: %u worker threads per frame", MIN (n_threads, 64));
  else
    GST_INFO_OBJECT (self, "starting: worker threads per frame: 1 while a "
        "frame keys in under half its interval, else %ld (n-threads=0)",
        CLAMP (sysconf (_SC_NPROCESSORS_ONLN), 1, 64));
  return GST_AGGREGATOR_CLASS (gst_depth_matte_parent_class)->start (agg);
}

static gboolean
gst_depth_matte_stop (GstAggregator * agg)
{
  gst_depth_matte_pairing_clear (GST_DEPTH_MATTE (agg));
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
  if ((old_value == DM_OUTPUT_ALPHA) != (new_value == DM_OUTPUT_ALPHA))
    gst_pad_mark_reconfigure (GST_AGGREGATOR_SRC_PAD (object));
}

static const DMElementInfo element_info = {
  "Depth matte", "Filter/Editor/Video/Compositor",
      "Keys video by depth: locks a depth cutoff to the subject's face, "
      "builds a soft matte and puts the subject over a new background",
  DM_ELEMENT_PROPERTIES (properties), gst_depth_matte_property_changed,
  DM_ELEMENT_LAYOUT (GstDepthMatte), { NULL }, gst_depth_matte_pairing_free, 0,
  "output"
};

static void
gst_depth_matte_class_init (GstDepthMatteClass * klass)
{
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstAggregatorClass *agg_class = GST_AGGREGATOR_CLASS (klass);

  dm_element_class_init (klass, &element_info);

  gst_element_class_add_static_pad_template_with_gtype (element_class,
      &src_template, GST_TYPE_AGGREGATOR_PAD);
  gst_element_class_add_static_pad_template_with_gtype (element_class,
      &video_template, gst_depth_matte_video_pad_get_type ());
  gst_element_class_add_static_pad_template_with_gtype (element_class,
      &depth_template, GST_TYPE_VIDEO_AGGREGATOR_PAD);
  gst_element_class_add_static_pad_template_with_gtype (element_class,
      &background_template, GST_TYPE_VIDEO_AGGREGATOR_CONVERT_PAD);
  gst_element_class_add_static_pad_template_with_gtype (element_class,
      &person_template, GST_TYPE_VIDEO_AGGREGATOR_PAD);

  element_class->release_pad = GST_DEBUG_FUNCPTR (gst_depth_matte_release_pad);
  element_class->change_state =
      GST_DEBUG_FUNCPTR (gst_depth_matte_change_state);
  agg_class->create_new_pad =
      GST_DEBUG_FUNCPTR (gst_depth_matte_create_new_pad);
  agg_class->sink_query = GST_DEBUG_FUNCPTR (gst_depth_matte_sink_query);
  agg_class->sink_event = GST_DEBUG_FUNCPTR (gst_depth_matte_sink_event);
  agg_class->get_next_time = GST_DEBUG_FUNCPTR (gst_depth_matte_get_next_time);
  agg_class->start = GST_DEBUG_FUNCPTR (gst_depth_matte_start);
  agg_class->stop = GST_DEBUG_FUNCPTR (gst_depth_matte_stop);
  agg_class->update_src_caps =
      GST_DEBUG_FUNCPTR (gst_depth_matte_update_src_caps);
  agg_class->fixate_src_caps =
      GST_DEBUG_FUNCPTR (gst_depth_matte_fixate_src_caps);
  gst_depth_matte_aggregate_class_init (GST_VIDEO_AGGREGATOR_CLASS (klass));
}

static void
gst_depth_matte_init (GstDepthMatte * self)
{
  dm_depthmatte_settings_init (&self->settings);
  gst_depth_matte_pairing_init (self);
}

GST_ELEMENT_REGISTER_DEFINE_WITH_CODE (depthmatte, "depthmatte", GST_RANK_NONE,
    GST_TYPE_DEPTH_MATTE, GST_DEBUG_CATEGORY_INIT (gst_depth_matte_debug, "depthmatte", 0,
      "depth matte keyer"));
