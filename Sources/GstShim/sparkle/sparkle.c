/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* sparkle.c: GObject glue for the sparkle element.
 *
 * An in-place GstVideoFilter on 8-bit packed RGB. It meters the ambient
 * brightness of the frames (every `interval` of stream time), posts each
 * reading as a "sparkle" element message, and draws twinkling four-pointed
 * glints whose number follows the brightness ("vampire in sunlight"). With
 * alpha formats the glints land only where alpha > 0.5, so after
 * `depthmatte output=alpha` they sparkle on the subject only.
 *
 * No pixel work and no decisions here: per frame the settings are copied under
 * the object lock, the frame's stream time is worked out, and the mapped plane
 * goes to dm_sparkle_process() (Swift bridge, Sources/GstDepthMatte/
 * sparkle/SparkleBridge.swift; algorithms in Sources/DepthMatteKit/sparkle/).
 *
 * draw=false makes the element passthrough: buffers are not made writable and
 * are mapped read-only, so a pure meter never copies or changes a frame.
 */
#include <gst/gst.h>
#include <gst/base/gstbasetransform.h>
#include <gst/video/video.h>
#include <gst/video/gstvideofilter.h>
#include "sparkle.h"
#include "element.h"
#include "elements.h"
#include "rgbimage.h"

GST_DEBUG_CATEGORY_STATIC (gst_sparkle_debug);
#define GST_CAT_DEFAULT gst_sparkle_debug

#define GST_TYPE_SPARKLE (gst_sparkle_get_type ())
G_DECLARE_FINAL_TYPE (GstSparkle, gst_sparkle, GST, SPARKLE, GstVideoFilter)

struct _GstSparkle
{
  GstVideoFilter parent;

  /* properties (sparkle_properties.def), guarded by the object lock */
  DMSparkleSettings settings;

  /* streaming thread only (and start / flush-stop, when it is idle) */
  void *state;                  /* Swift SparkleEffect */
};


G_DEFINE_TYPE (GstSparkle, gst_sparkle, GST_TYPE_VIDEO_FILTER);

/* ---- enum ------------------------------------------------------------------ */

DM_DEFINE_ENUM (static, dm_sparkle_measure_get_type, "GstSparkleMeasure", DM_SPARKLE_MEASURE_LIST);

/* ---- pad templates ------------------------------------------------------------ */

static GstStaticPadTemplate sink_template =
DM_PACKED_RGB_TEMPLATE ("sink", GST_PAD_SINK);
static GstStaticPadTemplate src_template =
DM_PACKED_RGB_TEMPLATE ("src", GST_PAD_SRC);

/* ---- per frame ------------------------------------------------------------------ */

static void
post_reading (GstSparkle * self, GstBuffer * buf, GstClockTime stream_time,
    GstClockTime running_time, const DMSparkleResult * r)
{
  GstStructure *s = gst_structure_new ("sparkle",
      "timestamp", G_TYPE_UINT64, GST_BUFFER_PTS (buf),
      "stream-time", G_TYPE_UINT64, stream_time,
      "running-time", G_TYPE_UINT64, running_time,
      "duration", G_TYPE_UINT64, GST_BUFFER_DURATION (buf),
      "brightness", G_TYPE_DOUBLE, r->brightness,
      "sparkles", G_TYPE_INT, r->sparkles, NULL);
  gst_element_post_message (GST_ELEMENT (self),
      gst_message_new_element (GST_OBJECT (self), s));
}

static GstFlowReturn
gst_sparkle_transform_frame_ip (GstVideoFilter * filter, GstVideoFrame * frame)
{
  GstSparkle *self = GST_SPARKLE (filter);
  GstBaseTransform *trans = GST_BASE_TRANSFORM (filter);
  GstBuffer *buf = frame->buffer;
  GstClockTime pts = GST_BUFFER_PTS (buf);
  GstClockTime stream_time = GST_CLOCK_TIME_NONE;
  GstClockTime running_time = GST_CLOCK_TIME_NONE;
  gint64 frame_duration = -1;
  DMSparkleSettings settings;
  DMSparkleResult result = { 0 };
  DMRGBImage image;
  gboolean post;

  DM_COPY_SETTINGS (self, settings);
  post = settings.post_messages;

  /* In passthrough (draw=false) the frame is mapped read-only. */
  if (gst_base_transform_is_passthrough (trans))
    settings.draw = 0;

  if (GST_CLOCK_TIME_IS_VALID (pts)) {
    if (trans->segment.format == GST_FORMAT_TIME) {
      stream_time = gst_segment_to_stream_time (&trans->segment,
          GST_FORMAT_TIME, pts);
      running_time = gst_segment_to_running_time (&trans->segment,
          GST_FORMAT_TIME, pts);
    } else {
      stream_time = running_time = pts;
    }
  }
  if (GST_VIDEO_INFO_FPS_N (&filter->in_info) > 0)
    frame_duration = gst_util_uint64_scale_int (GST_SECOND,
        GST_VIDEO_INFO_FPS_D (&filter->in_info),
        GST_VIDEO_INFO_FPS_N (&filter->in_info));
  else if (GST_BUFFER_DURATION_IS_VALID (buf))
    frame_duration = GST_BUFFER_DURATION (buf);

  image = dm_rgb_image_from_frame (frame);
  if (!self->state)
    self->state = dm_sparkle_new ();
  dm_sparkle_process (self->state, &settings, &image,
      GST_CLOCK_TIME_IS_VALID (stream_time) ? (gint64) stream_time : -1,
      frame_duration, &result);

  GST_LOG_OBJECT (self, "stream-time %" GST_TIME_FORMAT " brightness %.4f "
      "sparkles %d/%d%s", GST_TIME_ARGS (stream_time), result.brightness,
      result.sparkles, result.target, result.measured ? " (new reading)" : "");

  if (result.measured && post)
    post_reading (self, buf, stream_time, running_time, &result);
  return GST_FLOW_OK;
}

/* ---- state ---------------------------------------------------------------------- */

static void
reset_state (GstSparkle * self)
{
  if (self->state)
    dm_state_reset (self->state);
}

static gboolean
gst_sparkle_start (GstBaseTransform * trans)
{
  reset_state (GST_SPARKLE (trans));
  GST_INFO_OBJECT (trans, "starting");
  return TRUE;
}

static gboolean
gst_sparkle_sink_event (GstBaseTransform * trans, GstEvent * event)
{
  if (GST_EVENT_TYPE (event) == GST_EVENT_FLUSH_STOP)
    reset_state (GST_SPARKLE (trans));
  return GST_BASE_TRANSFORM_CLASS (gst_sparkle_parent_class)->sink_event
      (trans, event);
}

/* ---- properties ------------------------------------------------------------------ */

static const DMPropSpec properties[] = {
#define DM_PROPERTY(...) DM_PROP_SPEC (DMSparkleSettings, __VA_ARGS__)
#include "sparkle_properties.def"
};

/* draw=false makes the element a passthrough meter (from init on too:
 * dm_element_init). */
static void
gst_sparkle_property_changed (GObject * object, const DMPropSpec * spec,
    gdouble old_value, gdouble new_value)
{
  gst_base_transform_set_passthrough (GST_BASE_TRANSFORM (object),
      new_value == 0);
}

static const DMElementInfo element_info = {
  "Sparkle", "Filter/Analyzer/Video;Filter/Effect/Video",
      "Meters the ambient brightness of video (posting 'sparkle' element "
      "messages) and adds twinkling glints that multiply as it gets "
      "brighter; with alpha, only where alpha > 0.5",
  DM_ELEMENT_PROPERTIES (properties), gst_sparkle_property_changed,
  DM_ELEMENT_LAYOUT (GstSparkle),
  {&sink_template, &src_template}, NULL, 0, "draw"
};

static void
gst_sparkle_class_init (GstSparkleClass * klass)
{
  GstBaseTransformClass *trans_class = dm_video_filter_class_init (klass, &element_info);

  trans_class->start = GST_DEBUG_FUNCPTR (gst_sparkle_start);
  trans_class->sink_event = GST_DEBUG_FUNCPTR (gst_sparkle_sink_event);
  GST_VIDEO_FILTER_CLASS (klass)->transform_frame_ip =
      GST_DEBUG_FUNCPTR (gst_sparkle_transform_frame_ip);
}

DM_VIDEO_FILTER_DEFINE (gst_sparkle, GstSparkle, dm_sparkle_settings_init, sparkle, GST_TYPE_SPARKLE,
    gst_sparkle_debug, "brightness meter and sparkle effect");
