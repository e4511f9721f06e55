/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* depthview.c: GObject glue for the depthview element.
 *
 * A GstVideoFilter from a depth stream (GRAY16_LE/BE or GRAY8) to a picture
 * (RGBx, BGRx, RGBA, BGRA) of the same size: near bright/warm, far dark/cool,
 * holes in their own colour, e.g.
 *   v4l2src ! video/x-raw,format=GRAY16_LE ! depthview ! videoconvert ! autovideosink
 *
 * No pixel work here: per frame the settings are copied under the object lock
 * and the mapped planes go to dm_depthview_process() (Swift bridge,
 * Sources/GstDepthMatte/depthview/DepthViewBridge.swift; algorithms in
 * Sources/DepthMatteKit/depthview/ and common/DepthDecode.swift).
 */
#include <gst/gst.h>
#include <gst/base/gstbasetransform.h>
#include <gst/video/video.h>
#include <gst/video/gstvideofilter.h>
#include "depthview.h"
#include "element.h"
#include "elements.h"
#include "rgbimage.h"

GST_DEBUG_CATEGORY_STATIC (gst_depthview_debug);
#define GST_CAT_DEFAULT gst_depthview_debug

#define IN_FORMATS "{ GRAY16_LE, GRAY16_BE, GRAY8 }"
#define OUT_FORMATS "{ BGRx, RGBx, BGRA, RGBA }"

#define GST_TYPE_DEPTHVIEW (gst_depthview_get_type ())
G_DECLARE_FINAL_TYPE (GstDepthView, gst_depthview, GST, DEPTHVIEW, GstVideoFilter)

struct _GstDepthView
{
  GstVideoFilter parent;
  DMDepthViewSettings settings; /* depthview_properties.def, object lock */
  void *state;                  /* Swift DepthViewRenderer, streaming thread */
};


G_DEFINE_TYPE (GstDepthView, gst_depthview, GST_TYPE_VIDEO_FILTER);

/* ---- enums (shared with depthmatte) ----------------------------------------- */

DM_DEFINE_ENUM (, dm_depth_kind_get_type, "GstDepthMatteDepthKind", DM_DEPTH_KIND_LIST);

DM_DEFINE_ENUM (, dm_colormap_get_type, "GstDepthMatteColormap", DM_COLORMAP_LIST);

/* ---- pads and caps --------------------------------------------------------- */

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE ("sink",
    GST_PAD_SINK, GST_PAD_ALWAYS,
    GST_STATIC_CAPS (GST_VIDEO_CAPS_MAKE (IN_FORMATS)));

static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE ("src",
    GST_PAD_SRC, GST_PAD_ALWAYS,
    GST_STATIC_CAPS (GST_VIDEO_CAPS_MAKE (OUT_FORMATS)));

/* Same size and rate on both sides; the format is the other side's. */
static GstCaps *
gst_depthview_transform_caps (GstBaseTransform * trans,
    GstPadDirection direction, GstCaps * caps, GstCaps * filter)
{
  GstCaps *templ = gst_static_pad_template_get_caps (direction == GST_PAD_SINK ?
      &src_template : &sink_template);
  const GValue *formats =
      gst_structure_get_value (gst_caps_get_structure (templ, 0), "format");
  GstCaps *out = gst_caps_new_empty ();
  guint i;

  for (i = 0; i < gst_caps_get_size (caps); i++) {
    GstStructure *s = gst_structure_copy (gst_caps_get_structure (caps, i));
    gst_structure_set_value (s, "format", formats);
    gst_structure_remove_fields (s, "colorimetry", "chroma-site", NULL);
    out = gst_caps_merge_structure (out, s);
  }
  gst_caps_unref (templ);
  out = dm_caps_filter (out, filter);
  GST_DEBUG_OBJECT (trans, "%s %" GST_PTR_FORMAT " -> %" GST_PTR_FORMAT,
      direction == GST_PAD_SINK ? "sink" : "src", caps, out);
  return out;
}

/* ---- per frame ------------------------------------------------------------- */

static GstFlowReturn
gst_depthview_transform_frame (GstVideoFilter * filter, GstVideoFrame * in,
    GstVideoFrame * out)
{
  GstDepthView *self = GST_DEPTHVIEW (filter);
  DMDepthViewSettings settings;
  DMGrayImage depth = dm_gray_image_from_frame (in);
  DMRGBImage image = dm_rgb_image_from_frame (out);

  DM_COPY_SETTINGS (self, settings);
  settings.eight_bit =
      GST_VIDEO_FRAME_FORMAT (in) == GST_VIDEO_FORMAT_GRAY8;
  settings.big_endian =
      GST_VIDEO_FRAME_FORMAT (in) == GST_VIDEO_FORMAT_GRAY16_BE;

  if (!self->state)
    self->state = dm_depthview_new ();
  dm_depthview_process (self->state, &settings, &depth, &image);
  GST_LOG_OBJECT (self, "frame at %" GST_TIME_FORMAT ": %dx%d depth",
      GST_TIME_ARGS (GST_BUFFER_PTS (in->buffer)), depth.width, depth.height);
  return GST_FLOW_OK;
}

static gboolean
gst_depthview_start (GstBaseTransform * trans)
{
  GST_INFO_OBJECT (trans, "starting");
  return TRUE;
}

/* ---- properties -------------------------------------------------------------- */

static const DMPropSpec properties[] = {
#define DM_PROPERTY(...) DM_PROP_SPEC (DMDepthViewSettings, __VA_ARGS__)
#include "depthview_properties.def"
};

static const DMElementInfo element_info = {
  "Depth view", "Filter/Converter/Video",
      "Shows a depth stream (GRAY16_LE/BE depth or disparity, or GRAY8 "
      "normalised maps) as a grey or colour-mapped picture, holes in their "
      "own colour",
  DM_ELEMENT_PROPERTIES (properties), NULL,
  DM_ELEMENT_LAYOUT (GstDepthView),
  {&sink_template, &src_template}
};

static void
gst_depthview_class_init (GstDepthViewClass * klass)
{
  GstBaseTransformClass *trans_class = dm_video_filter_class_init (klass, &element_info);

  trans_class->transform_caps =
      GST_DEBUG_FUNCPTR (gst_depthview_transform_caps);
  trans_class->start = GST_DEBUG_FUNCPTR (gst_depthview_start);
  GST_VIDEO_FILTER_CLASS (klass)->transform_frame =
      GST_DEBUG_FUNCPTR (gst_depthview_transform_frame);
}

DM_VIDEO_FILTER_DEFINE (gst_depthview, GstDepthView, dm_depthview_settings_init, depthview, GST_TYPE_DEPTHVIEW,
    gst_depthview_debug, "depth stream as a picture");
