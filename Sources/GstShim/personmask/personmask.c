/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* personmask.c: GObject glue for the personmask element.
 *
 * A GstVideoFilter from packed RGB of any size to the person probability of
 * the whole frame (GRAY8, 255 = person) at the model's input size (general
 * 256x256, landscape 256x144) or at the width/height properties; the mask's
 * pixel-aspect-ratio keeps the frame's display aspect. Timestamps, duration
 * and framerate are the input's, e.g.
 *   v4l2src ! videoconvert ! personmask ! videoscale ! ... ! m.person
 *
 * The model runs in-process through the LiteRT runtime (Sources/CLiteRT);
 * per frame the settings are copied under the object lock and the mapped
 * planes go to dm_personmask_process() (Swift bridge,
 * Sources/GstDepthMatte/personmask/PersonMaskBridge.swift; the image work in
 * Sources/DepthMatteKit/personmask/).
 *
 * Without the runtime or the model file (or when the model fails its
 * start-up self-test) the element posts one WARNING saying why and sends
 * empty masks flagged GAP, which depthmatte's person pad skips: the keying
 * is then by depth alone. With full-body=auto a frame the selfie model sees
 * no one in goes through mediapipe's pose models (the bridge's
 * FullBodyFallback); without those models one INFO message says so and the
 * selfie model's mask stands.
 */
#include <gst/gst.h>
#include <gst/base/gstbasetransform.h>
#include <gst/video/video.h>
#include <gst/video/gstvideofilter.h>
#include "personmask.h"
#include "element.h"
#include "elements.h"
#include "rgbimage.h"

GST_DEBUG_CATEGORY_STATIC (gst_personmask_debug);
#define GST_CAT_DEFAULT gst_personmask_debug

#define GST_TYPE_PERSONMASK (gst_personmask_get_type ())
G_DECLARE_FINAL_TYPE (GstPersonMask, gst_personmask, GST, PERSONMASK,
    GstVideoFilter)

struct _GstPersonMask
{
  GstVideoFilter parent;
  DMPersonMaskSettings settings;        /* personmask_properties.def, object lock */
  void *state;                  /* Swift PersonMasker, streaming thread */
  gboolean unavailable;         /* no model: GAP masks (streaming thread) */
};

G_DEFINE_TYPE (GstPersonMask, gst_personmask, GST_TYPE_VIDEO_FILTER);

DM_DEFINE_ENUM (, dm_person_model_get_type, "GstPersonMaskModel", DM_PERSON_MODEL_LIST);
DM_DEFINE_ENUM (, dm_person_full_body_get_type, "GstPersonMaskFullBody",
    DM_PERSON_FULL_BODY_LIST);

/* ---- pads and caps --------------------------------------------------------- */

static GstStaticPadTemplate sink_template =
DM_PACKED_RGB_TEMPLATE ("sink", GST_PAD_SINK);

static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE ("src",
    GST_PAD_SRC, GST_PAD_ALWAYS,
    GST_STATIC_CAPS (GST_VIDEO_CAPS_MAKE ("GRAY8")));

static void
output_size (GstPersonMask * self, gint * width, gint * height)
{
  DMPersonMaskSettings s;
  gint32 mw, mh;

  DM_COPY_SETTINGS (self, s);
  dm_personmask_model_size (s.model, &mw, &mh);
  *width = s.width > 0 ? s.width : mw;
  *height = s.height > 0 ? s.height : mh;
}

/* Sink to src: GRAY8 at the output size, the framerate kept. Src to sink:
 * the packed RGB template, the framerate kept. */
static GstCaps *
gst_personmask_transform_caps (GstBaseTransform * trans,
    GstPadDirection direction, GstCaps * caps, GstCaps * filter)
{
  GstPersonMask *self = GST_PERSONMASK (trans);
  GstCaps *templ = gst_static_pad_template_get_caps (direction == GST_PAD_SINK ?
      &src_template : &sink_template);
  GstCaps *out = gst_caps_new_empty ();
  gint width, height;
  guint i;

  output_size (self, &width, &height);
  for (i = 0; i < gst_caps_get_size (caps); i++) {
    const GstStructure *in = gst_caps_get_structure (caps, i);
    GstStructure *s = gst_structure_copy (gst_caps_get_structure (templ, 0));
    const GValue *rate = gst_structure_get_value (in, "framerate");

    if (direction == GST_PAD_SINK) {
      gst_structure_set (s, "width", G_TYPE_INT, width, "height", G_TYPE_INT,
          height, "pixel-aspect-ratio", GST_TYPE_FRACTION_RANGE, 1, G_MAXINT,
          G_MAXINT, 1, NULL);
    }
    if (rate)
      gst_structure_set_value (s, "framerate", rate);
    out = gst_caps_merge_structure (out, s);
  }
  gst_caps_unref (templ);
  out = dm_caps_filter (out, filter);
  GST_DEBUG_OBJECT (trans, "%s %" GST_PTR_FORMAT " -> %" GST_PTR_FORMAT,
      direction == GST_PAD_SINK ? "sink" : "src", caps, out);
  return out;
}

/* The mask's display aspect is the frame's:
 * par_out = par_in * (in_w / out_w) / (in_h / out_h). */
static GstCaps *
gst_personmask_fixate_caps (GstBaseTransform * trans,
    GstPadDirection direction, GstCaps * caps, GstCaps * othercaps)
{
  GstStructure *in, *out;
  gint in_w = 0, in_h = 0, out_w = 0, out_h = 0, par_n = 1, par_d = 1;
  guint64 num, den;

  othercaps = gst_caps_truncate (gst_caps_make_writable (othercaps));
  if (direction != GST_PAD_SINK)
    return gst_caps_fixate (othercaps);
  in = gst_caps_get_structure (caps, 0);
  out = gst_caps_get_structure (othercaps, 0);
  if (!gst_structure_get_int (in, "width", &in_w)
      || !gst_structure_get_int (in, "height", &in_h)
      || !gst_structure_get_int (out, "width", &out_w)
      || !gst_structure_get_int (out, "height", &out_h)
      || in_w <= 0 || in_h <= 0 || out_w <= 0 || out_h <= 0)
    return gst_caps_fixate (othercaps);
  if (!gst_structure_get_fraction (in, "pixel-aspect-ratio", &par_n, &par_d)
      || par_n <= 0 || par_d <= 0)
    par_n = par_d = 1;
  num = (guint64) par_n * in_w * out_h;
  den = (guint64) par_d * in_h * out_w;
  {
    guint64 a = num, b = den;
    while (b) {
      guint64 t = a % b;
      a = b;
      b = t;
    }
    num /= a;
    den /= a;
  }
  while (num > G_MAXINT || den > G_MAXINT) {
    num = MAX (1, num / 2);
    den = MAX (1, den / 2);
  }
  gst_structure_fixate_field_nearest_fraction (out, "pixel-aspect-ratio",
      (gint) num, (gint) den);
  return gst_caps_fixate (othercaps);
}

/* A live LATENCY query gets one frame added on its way back downstream: the
 * mask of a frame leaves after the frame itself, so a live aggregator
 * downstream (depthmatte's person pad) waits that long to pair them. */
static gboolean
gst_personmask_query (GstBaseTransform * trans, GstPadDirection direction,
    GstQuery * query)
{
  gboolean ok = GST_BASE_TRANSFORM_CLASS (gst_personmask_parent_class)->query
      (trans, direction, query);

  if (ok && direction == GST_PAD_SRC && GST_QUERY_TYPE (query) ==
      GST_QUERY_LATENCY) {
    gboolean live;
    GstClockTime min, max, frame = GST_SECOND / 30;
    GstVideoFilter *filter = GST_VIDEO_FILTER (trans);

    gst_query_parse_latency (query, &live, &min, &max);
    if (live) {
      if (filter->negotiated && GST_VIDEO_INFO_FPS_N (&filter->in_info) > 0)
        frame = gst_util_uint64_scale_int (GST_SECOND,
            GST_VIDEO_INFO_FPS_D (&filter->in_info),
            GST_VIDEO_INFO_FPS_N (&filter->in_info));
      gst_query_set_latency (query, live, min + frame,
          GST_CLOCK_TIME_IS_VALID (max) ? max + frame : max);
    }
  }
  return ok;
}

/* ---- state and frames --------------------------------------------------------- */

DM_LEARNED_START (gst_personmask_selfie, GstPersonMask, DMPersonMaskSettings,
    personmask, "person", "Its masks are empty and flagged GAP, so depthmatte "
    "keys by depth alone.");

/* The selfie model, then (full-body=auto) the pose models: without them one
 * INFO message says so, and the selfie model's mask stands on every frame. */
static gboolean
gst_personmask_start (GstBaseTransform * trans)
{
  GstPersonMask *self = GST_PERSONMASK (trans);
  DMPersonMaskSettings settings;
  char why[512] = "";

  gst_personmask_selfie_start (trans);
  if (self->unavailable)
    return TRUE;
  DM_COPY_SETTINGS (self, settings);
  if (dm_personmask_start_full_body (self->state, &settings, why,
          sizeof why) != 0)
    GST_ELEMENT_INFO (self, RESOURCE, NOT_FOUND,
        ("personmask has no full-body models: %s. Frames the selfie model "
            "sees no one in keep its mask.", why),
        ("scripts/setup installs the pose models beside the selfie models "
            "in ~/.local/share/depthmatte (DEPTHMATTE_DATA_DIR overrides it)"));
  else
    GST_INFO_OBJECT (self, "full-body models ready (or full-body=off)");
  return TRUE;
}

static GstFlowReturn
gst_personmask_transform_frame (GstVideoFilter * filter, GstVideoFrame * in,
    GstVideoFrame * out)
{
  GstPersonMask *self = GST_PERSONMASK (filter);
  DMPersonMaskSettings settings;
  DMRGBImage image = dm_rgb_image_from_frame (in);
  DMGrayImage mask = dm_gray_image_from_frame (out);
  char why[512] = "";

  if (self->unavailable) {
    gint y;
    for (y = 0; y < mask.height; y++)
      memset (mask.data + (gsize) y * mask.stride, 0, mask.width);
    GST_BUFFER_FLAG_SET (out->buffer, GST_BUFFER_FLAG_GAP);
    return GST_FLOW_OK;
  }
  DM_COPY_SETTINGS (self, settings);
  if (dm_personmask_process (self->state, &settings, &image, &mask, why,
          sizeof why) != 0) {
    GST_ELEMENT_ERROR (self, STREAM, FAILED,
        ("personmask could not segment a frame: %s.", why),
        ("frame %dx%d at %" GST_TIME_FORMAT, image.width, image.height,
            GST_TIME_ARGS (GST_BUFFER_PTS (in->buffer))));
    return GST_FLOW_ERROR;
  }
  GST_LOG_OBJECT (self, "mask %dx%d of a %dx%d frame at %" GST_TIME_FORMAT,
      mask.width, mask.height, image.width, image.height,
      GST_TIME_ARGS (GST_BUFFER_PTS (in->buffer)));
  return GST_FLOW_OK;
}

/* A changed model or size renegotiates the output. */
static void
gst_personmask_changed (GObject * object, const DMPropSpec * spec,
    gdouble old_value, gdouble new_value)
{
  if (old_value != new_value && g_strcmp0 (spec->name, "interval") != 0
      && g_strcmp0 (spec->name, "full-body") != 0)
    gst_base_transform_reconfigure_src (GST_BASE_TRANSFORM (object));
}

/* ---- properties -------------------------------------------------------------- */

static const DMPropSpec properties[] = {
#define DM_PROPERTY(...) DM_PROP_SPEC (DMPersonMaskSettings, __VA_ARGS__)
#include "personmask_properties.def"
};

static const DMElementInfo element_info = {
  "Person mask", "Filter/Analyzer/Video",
      "Segments the people in packed RGB video with a selfie segmentation "
      "model run in-process (on frames it sees no one in, with mediapipe's "
      "pose models) and outputs their probability (GRAY8, 255 = person) over "
      "the whole frame at the model's input size",
  DM_ELEMENT_PROPERTIES (properties), gst_personmask_changed,
  DM_ELEMENT_LAYOUT (GstPersonMask),
  {&sink_template, &src_template}
};

static void
gst_personmask_class_init (GstPersonMaskClass * klass)
{
  GstBaseTransformClass *trans_class = dm_learned_class_init (klass,
      &element_info, GST_DEBUG_FUNCPTR (gst_personmask_start));

  trans_class->transform_caps =
      GST_DEBUG_FUNCPTR (gst_personmask_transform_caps);
  trans_class->fixate_caps = GST_DEBUG_FUNCPTR (gst_personmask_fixate_caps);
  trans_class->query = GST_DEBUG_FUNCPTR (gst_personmask_query);
  GST_VIDEO_FILTER_CLASS (klass)->transform_frame =
      GST_DEBUG_FUNCPTR (gst_personmask_transform_frame);
}

DM_VIDEO_FILTER_DEFINE (gst_personmask, GstPersonMask,
    dm_personmask_settings_init, personmask, GST_TYPE_PERSONMASK,
    gst_personmask_debug, "person probability from a selfie segmentation model");
