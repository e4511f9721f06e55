/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* depthalign.c: GObject glue for the depthalign element.
 *
 * A GstVideoFilter from depth seen by the depth camera (GRAY16_LE or _BE, units of
 * the calibration's depth_scale, 0 = no reading) to depth seen by the colour
 * camera: the colour intrinsics' size, same units, each value the distance
 * along the colour camera's axis, 0 where the depth camera cannot see. The
 * calibration JSON (`calibration`) is read when the element starts; a missing
 * file, a bad field or a depth input of another size than the calibration's
 * is an element error naming the file and the field.
 *
 * No pixel work here: per frame the settings are copied under the object lock
 * and the mapped planes go to dm_depthalign_process() (Swift bridge,
 * Sources/GstDepthMatte/depthalign/DepthAlignBridge.swift; algorithm in
 * Sources/DepthMatteKit/depthalign/).
 */
#include <math.h>
#include <gst/gst.h>
#include <gst/base/gstbasetransform.h>
#include <gst/video/video.h>
#include <gst/video/gstvideofilter.h>
#include "depthalign.h"
#include "calibrationfile.h"
#include "element.h"
#include "elements.h"
#include "rgbimage.h"

GST_DEBUG_CATEGORY_STATIC (gst_depthalign_debug);
#define GST_CAT_DEFAULT gst_depthalign_debug

#define GST_TYPE_DEPTHALIGN (gst_depthalign_get_type ())
G_DECLARE_FINAL_TYPE (GstDepthAlign, gst_depthalign, GST, DEPTHALIGN,
    GstVideoFilter)

struct _GstDepthAlign
{
  GstVideoFilter parent;
  DMDepthAlignSettings settings;        /* depthalign_properties.def, object lock */
  void *state;                  /* Swift DepthAlignState */
  DMLoadedCalibration calibration;      /* read at start */
  gboolean have_cal;            /* and loaded into the state */
  gboolean size_error_posted;   /* the wrong-size error, once per start */
};

G_DEFINE_TYPE (GstDepthAlign, gst_depthalign, GST_TYPE_VIDEO_FILTER);

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE ("sink",
    GST_PAD_SINK, GST_PAD_ALWAYS,
    GST_STATIC_CAPS (GST_VIDEO_CAPS_MAKE ("{ GRAY16_LE, GRAY16_BE }")));

static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE ("src",
    GST_PAD_SRC, GST_PAD_ALWAYS,
    GST_STATIC_CAPS (GST_VIDEO_CAPS_MAKE ("GRAY16_LE")));

/* ---- calibration ------------------------------------------------------------ */

/* A depth-to-colour baseline over a metre is no RGB-D camera pair: most
 * likely a translation in millimetres where the file wants metres. */
static void
check_baseline (GstDepthAlign * self)
{
  const gdouble *t = self->calibration.values.translation;
  gdouble baseline = sqrt (t[0] * t[0] + t[1] * t[1] + t[2] * t[2]);
  if (baseline > 1.0)
    GST_ELEMENT_WARNING (self, STREAM, FAILED,
        ("The calibration \"%s\" puts the depth camera %.1f m from the colour "
            "camera: depth_to_color.translation is in metres (a millimetre "
            "value such as 26 means 26 m)", self->calibration.path, baseline),
        ("translation [%g, %g, %g]", t[0], t[1], t[2]));
}

static gboolean
gst_depthalign_start (GstBaseTransform * trans)
{
  GstDepthAlign *self = GST_DEPTHALIGN (trans);

  self->have_cal = FALSE;
  self->size_error_posted = FALSE;
  if (!dm_calibration_load (GST_ELEMENT (self), &self->settings.calibration,
          &self->calibration))
    return FALSE;
  if (!self->calibration.parsed) {
    GST_ELEMENT_ERROR (self, RESOURCE, NOT_FOUND,
        ("depthalign has no calibration file."),
        ("Set the 'calibration' property to the JSON file of the camera pair "
            "(depth and colour intrinsics, depth_to_color extrinsics, "
            "depth_scale)"));
    return FALSE;
  }
  if (!self->state)
    self->state = dm_depthalign_new ();
  dm_depthalign_load (self->state, self->calibration.parsed);
  self->have_cal = TRUE;
  check_baseline (self);
  return TRUE;
}

/* ---- caps ------------------------------------------------------------------- */

/* Downstream: the colour size; upstream: the calibration's depth size. */
static GstCaps *
gst_depthalign_transform_caps (GstBaseTransform * trans,
    GstPadDirection direction, GstCaps * caps, GstCaps * filter)
{
  GstDepthAlign *self = GST_DEPTHALIGN (trans);
  GstCaps *out = gst_caps_new_empty ();
  guint i;

  if (gst_caps_is_any (caps)) {
    gst_caps_unref (out);
    caps = out = gst_caps_from_string ("video/x-raw, format=GRAY16_LE");
    out = gst_caps_new_empty ();
  } else {
    gst_caps_ref (caps);
  }
  for (i = 0; i < gst_caps_get_size (caps); i++) {
    GstStructure *s = gst_structure_copy (gst_caps_get_structure (caps, i));
    if (direction == GST_PAD_SINK) {
      gst_structure_set (s, "format", G_TYPE_STRING, "GRAY16_LE", NULL);
    } else {
      /* the output is little-endian; the input may be either (16-bit PNG
       * depth images are big-endian) */
      GValue list = G_VALUE_INIT, v = G_VALUE_INIT;
      gst_value_list_init (&list, 2);
      g_value_init (&v, G_TYPE_STRING);
      g_value_set_static_string (&v, "GRAY16_LE");
      gst_value_list_append_value (&list, &v);
      g_value_set_static_string (&v, "GRAY16_BE");
      gst_value_list_append_value (&list, &v);
      gst_structure_take_value (s, "format", &list);
      g_value_unset (&v);
    }
    gst_structure_remove_fields (s, "colorimetry", "chroma-site", NULL);
    if (self->have_cal) {
      GstStructure *sized = gst_structure_copy (s);
      const DMCalibration *cal = &self->calibration.values;
      gint w = direction == GST_PAD_SINK ? cal->color.width : cal->depth.width;
      gint h = direction == GST_PAD_SINK ? cal->color.height :
          cal->depth.height;
      gst_structure_set (sized, "width", G_TYPE_INT, w, "height", G_TYPE_INT,
          h, NULL);
      gst_caps_append_structure (out, sized);
    }
    if (!self->have_cal) {
      gst_structure_set (s, "width", GST_TYPE_INT_RANGE, 1, G_MAXINT,
          "height", GST_TYPE_INT_RANGE, 1, G_MAXINT, NULL);
      gst_caps_append_structure (out, s);
    } else {
      gst_structure_free (s);
    }
  }
  gst_caps_unref (caps);
  return dm_caps_filter (out, filter);
}

/* A depth input of another size than the calibration's would fail upstream
 * with a bare not-negotiated: answer its offer so that its caps arrive and
 * set_info refuses them with a message that names both sizes. */
static gboolean
gst_depthalign_query (GstBaseTransform * trans, GstPadDirection direction,
    GstQuery * query)
{
  gboolean ret = GST_BASE_TRANSFORM_CLASS (gst_depthalign_parent_class)->query
      (trans, direction, query);
  GstCaps *filter, *result;

  if (ret && direction == GST_PAD_SINK && GST_QUERY_TYPE (query) == GST_QUERY_CAPS) {
    gst_query_parse_caps (query, &filter);
    gst_query_parse_caps_result (query, &result);
    if (filter && result && gst_caps_is_empty (result)) {
      GstCaps *templ = gst_static_pad_template_get_caps (&sink_template);
      GstCaps *offer = gst_caps_intersect (filter, templ);
      if (!gst_caps_is_empty (offer))
        gst_query_set_caps_result (query, offer);
      gst_caps_unref (offer);
      gst_caps_unref (templ);
    }
  }
  return ret;
}

static gboolean
gst_depthalign_set_info (GstVideoFilter * filter, GstCaps * incaps,
    GstVideoInfo * in_info, GstCaps * outcaps, GstVideoInfo * out_info)
{
  GstDepthAlign *self = GST_DEPTHALIGN (filter);
  const DMCalibration *cal = &self->calibration.values;

  if (!self->have_cal)
    return FALSE;
  if (GST_VIDEO_INFO_WIDTH (in_info) != cal->depth.width
      || GST_VIDEO_INFO_HEIGHT (in_info) != cal->depth.height) {
    /* negotiation retries the same caps: one error, not one per try */
    if (self->size_error_posted)
      return FALSE;
    self->size_error_posted = TRUE;
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION,
        ("The depth input is %dx%d but the calibration \"%s\" is for %dx%d "
            "depth.", GST_VIDEO_INFO_WIDTH (in_info),
            GST_VIDEO_INFO_HEIGHT (in_info), self->calibration.path,
            cal->depth.width, cal->depth.height),
        ("depth.width/depth.height of the calibration must be the depth "
            "stream's size; offered %" GST_PTR_FORMAT, incaps));
    return FALSE;
  }
  return GST_VIDEO_INFO_WIDTH (out_info) == cal->color.width
      && GST_VIDEO_INFO_HEIGHT (out_info) == cal->color.height;
}

/* ---- per frame ------------------------------------------------------------- */

static GstFlowReturn
gst_depthalign_transform_frame (GstVideoFilter * filter, GstVideoFrame * in,
    GstVideoFrame * out)
{
  GstDepthAlign *self = GST_DEPTHALIGN (filter);
  DMDepthAlignSettings settings;
  DMGrayImage depth = dm_gray_image_from_frame (in);
  DMGrayImage image = dm_gray_image_from_frame (out);

  DM_COPY_SETTINGS (self, settings);
  settings.big_endian = GST_VIDEO_FRAME_FORMAT (in) == GST_VIDEO_FORMAT_GRAY16_BE;
  if (!dm_depthalign_process (self->state, &settings, &depth, &image)) {
    GST_ELEMENT_ERROR (self, STREAM, FAILED,
        ("depthalign could not register a depth frame."),
        ("depth %dx%d, output %dx%d, calibration %s", depth.width,
            depth.height, image.width, image.height, self->calibration.path));
    return GST_FLOW_ERROR;
  }
  GST_LOG_OBJECT (self, "registered %dx%d -> %dx%d", depth.width,
      depth.height, image.width, image.height);
  return GST_FLOW_OK;
}

/* ---- class ------------------------------------------------------------------ */

static const DMPropSpec properties[] = {
#define DM_PROPERTY(...) DM_PROP_SPEC (DMDepthAlignSettings, __VA_ARGS__)
#include "depthalign_properties.def"
};

static const DMElementInfo element_info = {
  "Depth align", "Filter/Converter/Video",
  "Registers depth to the colour camera: depth from the depth camera's "
      "viewpoint in, depth at the colour camera's size and viewpoint out "
      "(z-buffered, upsampling gaps filled without bridging steps, occlusion "
      "shadows 0), from a calibration JSON",
  DM_ELEMENT_PROPERTIES (properties), NULL, DM_ELEMENT_LAYOUT (GstDepthAlign),
  {&sink_template, &src_template}, NULL, DM_ELEMENT_CALIBRATION (GstDepthAlign)
};

static void
gst_depthalign_class_init (GstDepthAlignClass * klass)
{
  GstBaseTransformClass *trans_class = dm_video_filter_class_init (klass, &element_info);

  trans_class->start = GST_DEBUG_FUNCPTR (gst_depthalign_start);
  trans_class->transform_caps =
      GST_DEBUG_FUNCPTR (gst_depthalign_transform_caps);
  trans_class->query = GST_DEBUG_FUNCPTR (gst_depthalign_query);
  GST_VIDEO_FILTER_CLASS (klass)->set_info =
      GST_DEBUG_FUNCPTR (gst_depthalign_set_info);
  GST_VIDEO_FILTER_CLASS (klass)->transform_frame =
      GST_DEBUG_FUNCPTR (gst_depthalign_transform_frame);
}

DM_VIDEO_FILTER_DEFINE (gst_depthalign, GstDepthAlign, dm_depthalign_settings_init, depthalign, GST_TYPE_DEPTHALIGN,
    gst_depthalign_debug, "depth registered to the colour camera");
