/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* depthmatte-caps.c: what depthmatte outputs and how the video pad converts.
 *
 * The output follows the video pad (its size, rate and aspect), not the
 * largest or fastest pad as GstVideoAggregator would choose. Packed RGB video
 * keeps its format (with output=alpha its alpha variant) and is not converted
 * by the pad; other video (YUY2, I420, ...) is converted by the video pad to
 * the packed RGB format downstream prefers.
 */
#include "depthmatte-private.h"

/* output rate for a video pad at framerate 0/1 (as compositor's) */
#define DM_STILL_FPS 25

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

/* ---- the video pad ------------------------------------------------------------ */

/* A convert pad that leaves packed RGB alone (the kit reads any packed RGB
 * layout, and converting would cost a frame copy) and converts everything
 * else (YUY2, I420, NV12, ...) to the output's format, at its own size. */
typedef GstVideoAggregatorConvertPad GstDepthMatteVideoPad;
typedef GstVideoAggregatorConvertPadClass GstDepthMatteVideoPadClass;
G_DEFINE_TYPE (GstDepthMatteVideoPad, gst_depth_matte_video_pad,
    GST_TYPE_VIDEO_AGGREGATOR_CONVERT_PAD);

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

/* ---- output caps ------------------------------------------------------------ */

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

/* The video pad's negotiated layout into *info: GST_FLOW_OK; NEED_DATA
 * while it has no caps yet; NOT_NEGOTIATED (with an element error when the
 * pad was never requested). The layout is the pad's info, which the base
 * class sets on this thread as it handles the caps event, and marks the
 * source pad for renegotiation then; not the pad's current caps, which are
 * stored by upstream's thread only after the event is queued: reading those,
 * a negotiation between the two found no caps, asked for more data, and was
 * never asked again (a live pipeline then made no output at all, about once
 * in 400 starts on a loaded box). */
static GstFlowReturn
video_pad_info (GstDepthMatte * self, GstVideoInfo * info)
{
  GstVideoAggregatorPad *vpad;
  gboolean ok;

  GST_OBJECT_LOCK (self);
  vpad = self->pads[DM_INPUT_VIDEO] ?
      gst_object_ref (self->pads[DM_INPUT_VIDEO]) : NULL;
  GST_OBJECT_UNLOCK (self);
  if (!vpad) {
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION,
        ("depthmatte needs a linked video pad."),
        ("Request the 'video' pad (e.g. '... ! m.video') and link colour to it"));
    return GST_FLOW_NOT_NEGOTIATED;
  }
  ok = vpad->info.finfo != NULL
      && GST_VIDEO_INFO_FORMAT (&vpad->info) != GST_VIDEO_FORMAT_UNKNOWN;
  if (ok)
    *info = vpad->info;
  gst_object_unref (vpad);
  return ok ? GST_FLOW_OK : GST_AGGREGATOR_FLOW_NEED_DATA;
}

/* The output format field: packed RGB video's own format (with
 * output=alpha its alpha variant), else every packed RGB format (with
 * output=alpha those with alpha) for the pad to convert to. */
static void
set_output_format (GstCaps * outcaps, GstVideoFormat video_format,
    gint output)
{
  GstCaps *formats;

  if (is_packed_rgb (video_format)) {
    GstVideoFormat f = output == DM_OUTPUT_ALPHA ?
        with_alpha (video_format) : video_format;
    gst_caps_set_simple (outcaps, "format", G_TYPE_STRING,
        gst_video_format_to_string (f), NULL);
    return;
  }
  formats = gst_caps_from_string (output == DM_OUTPUT_ALPHA ?
      "video/x-raw, format=(string){ BGRA, RGBA, ARGB, ABGR }" :
      "video/x-raw, format=(string){ BGRx, RGBx, BGRA, RGBA, xRGB, xBGR, "
      "ARGB, ABGR, RGB, BGR }");
  gst_structure_set_value (gst_caps_get_structure (outcaps, 0), "format",
      gst_structure_get_value (gst_caps_get_structure (formats, 0), "format"));
  gst_caps_unref (formats);
}

/* A still picture (pngdec, jpegdec) or variable-rate video says framerate
 * 0/1. The base class divides by the output rate (frame duration, latency:
 * GLib criticals with 0/1), so, like compositor, the output gets a real rate:
 * any, fixated to DM_STILL_FPS. A still video still gives one output frame. */
static void
open_still_rate (GstDepthMatte * self, GstCaps * outcaps)
{
  gst_caps_set_simple (outcaps, "framerate", GST_TYPE_FRACTION_RANGE,
      1, G_MAXINT, G_MAXINT, 1, NULL);
  GST_INFO_OBJECT (self, "the video has framerate 0/1 (a still picture "
      "or variable rate): the output rate is open, %d/1 by default",
      DM_STILL_FPS);
}

/* `outcaps` (taken) as far as downstream accepts them into *ret; an element
 * error and NOT_NEGOTIATED when it accepts none of them. */
static GstFlowReturn
meet_downstream (GstDepthMatte * self, GstCaps * outcaps, GstCaps * downstream,
    GstCaps ** ret)
{
  if (!downstream) {
    *ret = outcaps;
    return GST_FLOW_OK;
  }
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
  return GST_FLOW_OK;
}

GstFlowReturn
gst_depth_matte_update_src_caps (GstAggregator * agg, GstCaps * downstream,
    GstCaps ** ret)
{
  GstDepthMatte *self = GST_DEPTH_MATTE (agg);
  GstVideoInfo info;
  GstCaps *outcaps;
  GstFlowReturn flow;
  gint output;

  flow = video_pad_info (self, &info);
  if (flow != GST_FLOW_OK)
    return flow;
  GST_OBJECT_LOCK (self);
  output = self->settings.output;
  GST_OBJECT_UNLOCK (self);

  /* the video's size, rate and aspect */
  outcaps = gst_video_info_to_caps (&info);
  gst_structure_remove_fields (gst_caps_get_structure (outcaps, 0),
      "colorimetry", "chroma-site", NULL);
  set_output_format (outcaps, GST_VIDEO_INFO_FORMAT (&info), output);
  if (GST_VIDEO_INFO_FPS_N (&info) == 0)
    open_still_rate (self, outcaps);
  return meet_downstream (self, outcaps, downstream, ret);
}

GstCaps *
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
