/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* mpfacedetect.c: GObject glue for the mpfacedetect element.
 *
 * A GstBaseTransform in place on the colour path: packed RGB of any size,
 * the same caps out as in, the pixels untouched (mapped for reading only,
 * so a shared buffer is never copied). Per face it attaches a
 * GstVideoRegionOfInterestMeta of roi_type "face" in the buffer's pixel
 * coordinates (clamped to the frame) and, per frame with faces, posts an
 * element message "mpfacedetect" (facedetect's timestamp fields and a list
 * of "face" structures with x, y, width, height and confidence), e.g.
 *   v4l2src ! videoconvert ! mpfacedetect ! depthmatte name=m ...
 *
 * BlazeFace runs in-process through the LiteRT runtime (Sources/CLiteRT);
 * per frame the settings are copied under the object lock and the mapped
 * plane goes to dm_mpfacedetect_process() (Swift bridge,
 * Sources/GstDepthMatte/mpfacedetect/FaceDetectBridge.swift; anchors, box
 * decoding and weighted NMS in Sources/DepthMatteKit/mpfacedetect/).
 *
 * Without the runtime or a model file (or when a model fails its start-up
 * self-test) the element posts one WARNING saying why and passes frames
 * through with no faces: depthmatte then locks without them.
 */
#include <gst/gst.h>
#include <gst/base/gstbasetransform.h>
#include <gst/video/video.h>
#include "mpfacedetect.h"
#include "element.h"
#include "elements.h"
#include "rgbimage.h"

GST_DEBUG_CATEGORY_STATIC (gst_mpfacedetect_debug);
#define GST_CAT_DEFAULT gst_mpfacedetect_debug

#define GST_TYPE_MPFACEDETECT (gst_mpfacedetect_get_type ())
G_DECLARE_FINAL_TYPE (GstMpFaceDetect, gst_mpfacedetect, GST, MPFACEDETECT,
    GstBaseTransform)

struct _GstMpFaceDetect
{
  GstBaseTransform parent;
  DMFaceDetectSettings settings;        /* mpfacedetect_properties.def, object lock */
  void *state;                  /* Swift FaceFinder, streaming thread */
  GstVideoInfo info;            /* the negotiated caps (streaming thread) */
  gboolean unavailable;         /* no model: no faces (streaming thread) */
};

G_DEFINE_TYPE (GstMpFaceDetect, gst_mpfacedetect, GST_TYPE_BASE_TRANSFORM);

DM_DEFINE_ENUM (, dm_face_model_get_type, "GstMpFaceDetectModel", DM_FACE_MODEL_LIST);

static GstStaticPadTemplate sink_template =
DM_PACKED_RGB_TEMPLATE ("sink", GST_PAD_SINK);
static GstStaticPadTemplate src_template =
DM_PACKED_RGB_TEMPLATE ("src", GST_PAD_SRC);

static gboolean
gst_mpfacedetect_set_caps (GstBaseTransform * trans, GstCaps * incaps,
    GstCaps * outcaps)
{
  GstMpFaceDetect *self = GST_MPFACEDETECT (trans);
  return gst_video_info_from_caps (&self->info, incaps);
}

DM_LEARNED_START (gst_mpfacedetect, GstMpFaceDetect, DMFaceDetectSettings,
    mpfacedetect, "face", "Frames pass through with no faces.");

/* The "mpfacedetect" structure: facedetect's timestamp fields and the faces. */
static GstStructure *
faces_message (GstMpFaceDetect * self, GstBuffer * buf, const DMFace * faces,
    gint n)
{
  GstSegment *segment = &GST_BASE_TRANSFORM (self)->segment;
  GstClockTime pts = GST_BUFFER_PTS (buf);
  GstStructure *s = gst_structure_new ("mpfacedetect",
      "timestamp", G_TYPE_UINT64, pts,
      "stream-time", G_TYPE_UINT64,
      gst_segment_to_stream_time (segment, GST_FORMAT_TIME, pts),
      "running-time", G_TYPE_UINT64,
      gst_segment_to_running_time (segment, GST_FORMAT_TIME, pts),
      "duration", G_TYPE_UINT64, GST_BUFFER_DURATION (buf), NULL);
  GValue list = G_VALUE_INIT;
  gint i;

  g_value_init (&list, GST_TYPE_LIST);
  for (i = 0; i < n; i++) {
    GValue v = G_VALUE_INIT;
    g_value_init (&v, GST_TYPE_STRUCTURE);
    g_value_take_boxed (&v, gst_structure_new ("face",
            "x", G_TYPE_UINT, (guint) faces[i].box.x,
            "y", G_TYPE_UINT, (guint) faces[i].box.y,
            "width", G_TYPE_UINT, (guint) faces[i].box.width,
            "height", G_TYPE_UINT, (guint) faces[i].box.height,
            "confidence", G_TYPE_DOUBLE, faces[i].confidence, NULL));
    gst_value_list_append_and_take_value (&list, &v);
  }
  gst_structure_take_value (s, "faces", &list);
  return s;
}

static GstFlowReturn
gst_mpfacedetect_transform_ip (GstBaseTransform * trans, GstBuffer * buf)
{
  GstMpFaceDetect *self = GST_MPFACEDETECT (trans);
  DMFaceDetectSettings settings;
  DMFace faces[DM_MAX_FACES];
  GstVideoFrame frame;
  DMRGBImage image;
  char why[512] = "";
  gint n, i;

  if (self->unavailable)
    return GST_FLOW_OK;
  if (!gst_video_frame_map (&frame, &self->info, buf, GST_MAP_READ)) {
    GST_ELEMENT_ERROR (self, STREAM, FORMAT,
        ("Buffer does not match its caps."),
        ("a %" G_GSIZE_FORMAT "-byte buffer is too small for a %dx%d %s frame",
            gst_buffer_get_size (buf), GST_VIDEO_INFO_WIDTH (&self->info),
            GST_VIDEO_INFO_HEIGHT (&self->info),
            GST_VIDEO_INFO_NAME (&self->info)));
    return GST_FLOW_ERROR;
  }
  image = dm_rgb_image_from_frame (&frame);
  DM_COPY_SETTINGS (self, settings);
  n = dm_mpfacedetect_process (self->state, &settings, &image, faces, why,
      sizeof why);
  gst_video_frame_unmap (&frame);
  if (n < 0) {
    GST_ELEMENT_ERROR (self, STREAM, FAILED,
        ("mpfacedetect could not search a frame for faces: %s.", why), (NULL));
    return GST_FLOW_ERROR;
  }
  for (i = 0; i < n; i++)
    gst_buffer_add_video_region_of_interest_meta (buf, "face",
        faces[i].box.x, faces[i].box.y, faces[i].box.width,
        faces[i].box.height);
  GST_LOG_OBJECT (self, "%d faces at %" GST_TIME_FORMAT, n,
      GST_TIME_ARGS (GST_BUFFER_PTS (buf)));
  if (n > 0 && settings.post_messages)
    gst_element_post_message (GST_ELEMENT (self),
        gst_message_new_element (GST_OBJECT (self),
            faces_message (self, buf, faces, n)));
  return GST_FLOW_OK;
}

static const DMPropSpec properties[] = {
#define DM_PROPERTY(...) DM_PROP_SPEC (DMFaceDetectSettings, __VA_ARGS__)
#include "mpfacedetect_properties.def"
};

static const DMElementInfo element_info = {
  "Face detector (BlazeFace)", "Filter/Analyzer/Video",
      "Detects faces with BlazeFace run in-process and attaches a "
      "GstVideoRegionOfInterestMeta (roi_type \"face\") per face to the "
      "buffer, which passes through unchanged",
  DM_ELEMENT_PROPERTIES (properties), NULL,
  DM_ELEMENT_LAYOUT (GstMpFaceDetect),
  {&sink_template, &src_template}
};

static void
gst_mpfacedetect_class_init (GstMpFaceDetectClass * klass)
{
  GstBaseTransformClass *trans_class = dm_learned_class_init (klass,
      &element_info, GST_DEBUG_FUNCPTR (gst_mpfacedetect_start));

  trans_class->set_caps = GST_DEBUG_FUNCPTR (gst_mpfacedetect_set_caps);
  trans_class->transform_ip = GST_DEBUG_FUNCPTR (gst_mpfacedetect_transform_ip);
}

static void
gst_mpfacedetect_init (GstMpFaceDetect * self)
{
  dm_mpfacedetect_settings_init (&self->settings);
  dm_video_filter_init (self, GST_CAT_DEFAULT);
  gst_base_transform_set_in_place (GST_BASE_TRANSFORM (self), TRUE);
}

GST_ELEMENT_REGISTER_DEFINE_WITH_CODE (mpfacedetect, "mpfacedetect",
    GST_RANK_NONE, GST_TYPE_MPFACEDETECT,
    GST_DEBUG_CATEGORY_INIT (gst_mpfacedetect_debug, "mpfacedetect", 0,
        "faces from BlazeFace"));
