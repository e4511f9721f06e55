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
 * SparkleBridge.swift; algorithms in Sources/DepthMatteKit/Sparkle.swift and
 * Brightness.swift).
 *
 * draw=false makes the element passthrough: buffers are not made writable and
 * are mapped read-only, so a pure meter never copies or changes a frame.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include <gst/gst.h>
#include <gst/base/gstbasetransform.h>
#include <gst/video/video.h>
#include <gst/video/gstvideofilter.h>
#include "dmsparkle.h"
#include "elements.h"
#include "padlog.h"
#include "rgbimage.h"

GST_DEBUG_CATEGORY_STATIC (gst_sparkle_debug);
#define GST_CAT_DEFAULT gst_sparkle_debug

#define SPARKLE_FORMATS \
  "{ RGBA, BGRA, ARGB, ABGR, RGBx, BGRx, xRGB, xBGR, RGB, BGR }"

#define DEFAULT_MEASURE DM_SPARKLE_MEASURE_MEAN_RGB
#define DEFAULT_GRID_STEP 32
#define DEFAULT_INTERVAL (200 * GST_MSECOND)
#define DEFAULT_POST_MESSAGES TRUE
#define DEFAULT_DRAW TRUE
#define DEFAULT_MAX_SPARKLES 64
#define DEFAULT_THRESHOLD 0.25
#define DEFAULT_SIZE 0.03
#define DEFAULT_LIFE (600 * GST_MSECOND)
#define DEFAULT_COLOR 0xffffffffu
#define DEFAULT_SEED 0

enum
{
  PROP_0,
  PROP_MEASURE,
  PROP_GRID_STEP,
  PROP_INTERVAL,
  PROP_POST_MESSAGES,
  PROP_DRAW,
  PROP_MAX_SPARKLES,
  PROP_THRESHOLD,
  PROP_SIZE,
  PROP_LIFE,
  PROP_COLOR,
  PROP_SEED,
};

typedef struct
{
  GstVideoFilter parent;

  /* properties, guarded by the object lock */
  DMSparkleSettings settings;
  gboolean post_messages;

  /* streaming thread only (and start / flush-stop, when it is idle) */
  void *state;                  /* Swift SparkleEffect */
} GstSparkle;

typedef struct
{
  GstVideoFilterClass parent_class;
} GstSparkleClass;

#define GST_TYPE_SPARKLE (gst_sparkle_get_type ())
#define GST_SPARKLE(obj) ((GstSparkle *) (obj))
GType gst_sparkle_get_type (void);
G_DEFINE_TYPE (GstSparkle, gst_sparkle, GST_TYPE_VIDEO_FILTER);

/* ---- enum ------------------------------------------------------------------ */

#define GST_TYPE_SPARKLE_MEASURE (gst_sparkle_measure_get_type ())
static GType
gst_sparkle_measure_get_type (void)
{
  static gsize type = 0;
  static const GEnumValue values[] = {
    {DM_SPARKLE_MEASURE_MEAN_RGB, "Mean of (R+G+B)/(3*255)", "mean-rgb"},
    {DM_SPARKLE_MEASURE_REC709_LUMA, "Mean Rec.709 luma "
          "(0.2126 R' + 0.7152 G' + 0.0722 B')/255 of the encoded values",
        "rec709-luma"},
    {0, NULL, NULL},
  };
  return dm_enum_type (&type, "GstSparkleMeasure", values);
}

/* ---- pad templates ------------------------------------------------------------ */

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE ("sink",
    GST_PAD_SINK, GST_PAD_ALWAYS,
    GST_STATIC_CAPS (GST_VIDEO_CAPS_MAKE (SPARKLE_FORMATS)));

static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE ("src",
    GST_PAD_SRC, GST_PAD_ALWAYS,
    GST_STATIC_CAPS (GST_VIDEO_CAPS_MAKE (SPARKLE_FORMATS)));

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

/* Controlled properties follow the stream time. */
static void
gst_sparkle_before_transform (GstBaseTransform * trans, GstBuffer * buf)
{
  GstClockTime ts = GST_BUFFER_PTS (buf);
  if (GST_CLOCK_TIME_IS_VALID (ts) && trans->segment.format == GST_FORMAT_TIME) {
    GstClockTime st = gst_segment_to_stream_time (&trans->segment,
        GST_FORMAT_TIME, ts);
    if (GST_CLOCK_TIME_IS_VALID (st))
      gst_object_sync_values (GST_OBJECT (trans), st);
  }
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

  GST_OBJECT_LOCK (self);
  settings = self->settings;
  post = self->post_messages;
  GST_OBJECT_UNLOCK (self);

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
    dm_sparkle_reset (self->state);
}

static gboolean
gst_sparkle_start (GstBaseTransform * trans)
{
  reset_state (GST_SPARKLE (trans));
  dm_log_pad_caps (GST_BASE_TRANSFORM_SINK_PAD (trans), GST_CAT_DEFAULT);
  dm_log_pad_caps (GST_BASE_TRANSFORM_SRC_PAD (trans), GST_CAT_DEFAULT);
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

static void
gst_sparkle_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstSparkle *self = GST_SPARKLE (object);
  gboolean set_passthrough = FALSE, passthrough = FALSE;

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_MEASURE:
      self->settings.measure = g_value_get_enum (value);
      break;
    case PROP_GRID_STEP:
      self->settings.grid_step = g_value_get_int (value);
      break;
    case PROP_INTERVAL:
      self->settings.interval = (gint64) g_value_get_uint64 (value);
      break;
    case PROP_POST_MESSAGES:
      self->post_messages = g_value_get_boolean (value);
      break;
    case PROP_DRAW:
      self->settings.draw = g_value_get_boolean (value);
      set_passthrough = TRUE;
      passthrough = !self->settings.draw;
      break;
    case PROP_MAX_SPARKLES:
      self->settings.max_sparkles = g_value_get_int (value);
      break;
    case PROP_THRESHOLD:
      self->settings.threshold = g_value_get_double (value);
      break;
    case PROP_SIZE:
      self->settings.size = g_value_get_double (value);
      break;
    case PROP_LIFE:
      self->settings.life = (gint64) g_value_get_uint64 (value);
      break;
    case PROP_COLOR:
      self->settings.color_argb = g_value_get_uint (value);
      break;
    case PROP_SEED:
      self->settings.seed = g_value_get_uint (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
  /* takes the object lock itself */
  if (set_passthrough)
    gst_base_transform_set_passthrough (GST_BASE_TRANSFORM (self), passthrough);
}

static void
gst_sparkle_get_property (GObject * object, guint prop_id, GValue * value,
    GParamSpec * pspec)
{
  GstSparkle *self = GST_SPARKLE (object);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_MEASURE:
      g_value_set_enum (value, self->settings.measure);
      break;
    case PROP_GRID_STEP:
      g_value_set_int (value, self->settings.grid_step);
      break;
    case PROP_INTERVAL:
      g_value_set_uint64 (value, (guint64) self->settings.interval);
      break;
    case PROP_POST_MESSAGES:
      g_value_set_boolean (value, self->post_messages);
      break;
    case PROP_DRAW:
      g_value_set_boolean (value, self->settings.draw);
      break;
    case PROP_MAX_SPARKLES:
      g_value_set_int (value, self->settings.max_sparkles);
      break;
    case PROP_THRESHOLD:
      g_value_set_double (value, self->settings.threshold);
      break;
    case PROP_SIZE:
      g_value_set_double (value, self->settings.size);
      break;
    case PROP_LIFE:
      g_value_set_uint64 (value, (guint64) self->settings.life);
      break;
    case PROP_COLOR:
      g_value_set_uint (value, self->settings.color_argb);
      break;
    case PROP_SEED:
      g_value_set_uint (value, self->settings.seed);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_sparkle_finalize (GObject * object)
{
  GstSparkle *self = GST_SPARKLE (object);
  if (self->state)
    dm_sparkle_free (self->state);
  self->state = NULL;
  G_OBJECT_CLASS (gst_sparkle_parent_class)->finalize (object);
}

#define SPARKLE_PARAM_FLAGS (G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | \
    GST_PARAM_MUTABLE_PLAYING | GST_PARAM_CONTROLLABLE)

static void
gst_sparkle_class_init (GstSparkleClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);
  GstVideoFilterClass *filter_class = GST_VIDEO_FILTER_CLASS (klass);

  gobject_class->set_property = gst_sparkle_set_property;
  gobject_class->get_property = gst_sparkle_get_property;
  gobject_class->finalize = gst_sparkle_finalize;

  g_object_class_install_property (gobject_class, PROP_MEASURE,
      g_param_spec_enum ("measure", "Measure",
          "What brightness means (both give 0-1)", GST_TYPE_SPARKLE_MEASURE,
          DEFAULT_MEASURE, SPARKLE_PARAM_FLAGS));
  g_object_class_install_property (gobject_class, PROP_GRID_STEP,
      g_param_spec_int ("grid-step", "Grid step",
          "Meter grid step in pixels: one pixel (the centre) of every "
          "grid-step x grid-step cell is read; 1 reads every pixel",
          1, 1024, DEFAULT_GRID_STEP, SPARKLE_PARAM_FLAGS));
  g_object_class_install_property (gobject_class, PROP_INTERVAL,
      g_param_spec_uint64 ("interval", "Interval",
          "Stream time between brightness readings in nanoseconds (the first "
          "frame is always measured; 0 = every frame)",
          0, G_MAXINT64, DEFAULT_INTERVAL, SPARKLE_PARAM_FLAGS));
  g_object_class_install_property (gobject_class, PROP_POST_MESSAGES,
      g_param_spec_boolean ("post-messages", "Post messages",
          "Post a 'sparkle' element message for every reading, with "
          "timestamp, stream-time, running-time, duration (ns), brightness "
          "(0-1) and sparkles (live glints)", DEFAULT_POST_MESSAGES,
          SPARKLE_PARAM_FLAGS));
  g_object_class_install_property (gobject_class, PROP_DRAW,
      g_param_spec_boolean ("draw", "Draw",
          "Draw the glints; false makes a pure meter (passthrough, frames "
          "untouched)", DEFAULT_DRAW, SPARKLE_PARAM_FLAGS));
  g_object_class_install_property (gobject_class, PROP_MAX_SPARKLES,
      g_param_spec_int ("max-sparkles", "Max sparkles",
          "Live glints at brightness 1. Live glints = round(max-sparkles * "
          "clamp((brightness - threshold) / (1 - threshold), 0, 1))",
          0, 1000, DEFAULT_MAX_SPARKLES, SPARKLE_PARAM_FLAGS));
  g_object_class_install_property (gobject_class, PROP_THRESHOLD,
      g_param_spec_double ("threshold", "Threshold",
          "Brightness (0-1) at or below which no glints appear",
          0.0, 1.0, DEFAULT_THRESHOLD, SPARKLE_PARAM_FLAGS));
  g_object_class_install_property (gobject_class, PROP_SIZE,
      g_param_spec_double ("size", "Size",
          "Mean glint arm length at its peak, as a fraction of the frame's "
          "shorter side (each glint varies 0.6x-1.4x)",
          0.001, 0.5, DEFAULT_SIZE, SPARKLE_PARAM_FLAGS));
  g_object_class_install_property (gobject_class, PROP_LIFE,
      g_param_spec_uint64 ("life", "Life",
          "Mean glint life in nanoseconds of stream time: it grows, peaks at "
          "half life and fades (each glint varies 0.6x-1.4x)",
          GST_MSECOND, 60 * GST_SECOND, DEFAULT_LIFE, SPARKLE_PARAM_FLAGS));
  g_object_class_install_property (gobject_class, PROP_COLOR,
      g_param_spec_uint ("color", "Color",
          "Glint colour as 0xAARRGGBB, added to the picture; AA scales the "
          "strength (0xff = full)", 0, G_MAXUINT32, DEFAULT_COLOR,
          SPARKLE_PARAM_FLAGS));
  g_object_class_install_property (gobject_class, PROP_SEED,
      g_param_spec_uint ("seed", "Seed",
          "Seed of the glint positions, sizes and lives; the generator "
          "restarts from it on flush and on READY, so runs are reproducible",
          0, G_MAXUINT32, DEFAULT_SEED, SPARKLE_PARAM_FLAGS));

  gst_element_class_add_static_pad_template (element_class, &sink_template);
  gst_element_class_add_static_pad_template (element_class, &src_template);

  gst_element_class_set_static_metadata (element_class, "Sparkle",
      "Filter/Analyzer/Video;Filter/Effect/Video",
      "Meters the ambient brightness of video (posting 'sparkle' element "
      "messages) and adds twinkling glints that multiply as it gets "
      "brighter; with alpha, only where alpha > 0.5",
      "depthmatte developers");

  trans_class->start = GST_DEBUG_FUNCPTR (gst_sparkle_start);
  trans_class->sink_event = GST_DEBUG_FUNCPTR (gst_sparkle_sink_event);
  trans_class->before_transform =
      GST_DEBUG_FUNCPTR (gst_sparkle_before_transform);
  filter_class->transform_frame_ip =
      GST_DEBUG_FUNCPTR (gst_sparkle_transform_frame_ip);

  gst_type_mark_as_plugin_api (GST_TYPE_SPARKLE_MEASURE, 0);
}

static void
gst_sparkle_init (GstSparkle * self)
{
  self->settings.measure = DEFAULT_MEASURE;
  self->settings.grid_step = DEFAULT_GRID_STEP;
  self->settings.interval = DEFAULT_INTERVAL;
  self->settings.draw = DEFAULT_DRAW;
  self->settings.max_sparkles = DEFAULT_MAX_SPARKLES;
  self->settings.threshold = DEFAULT_THRESHOLD;
  self->settings.size = DEFAULT_SIZE;
  self->settings.life = DEFAULT_LIFE;
  self->settings.color_argb = DEFAULT_COLOR;
  self->settings.seed = DEFAULT_SEED;
  self->post_messages = DEFAULT_POST_MESSAGES;
  gst_base_transform_set_passthrough (GST_BASE_TRANSFORM (self), !DEFAULT_DRAW);
  dm_watch_refused_caps (GST_ELEMENT (self),
      GST_BASE_TRANSFORM_SINK_PAD (self));
}

gboolean
dm_sparkle_register (GstPlugin * plugin)
{
  GST_DEBUG_CATEGORY_INIT (gst_sparkle_debug, "sparkle", 0,
      "brightness meter and sparkle effect");
  return gst_element_register (plugin, "sparkle", GST_RANK_NONE,
      GST_TYPE_SPARKLE);
}
