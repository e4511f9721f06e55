/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Helpers shared by the element files: describe mapped GstVideoFrames as the
 * plain structs of dmcommon.h. */
#ifndef DM_RGBIMAGE_H
#define DM_RGBIMAGE_H
#include <gst/video/video.h>
#include "dmcommon.h"

static inline DMRGBImage
dm_rgb_image_from_frame (GstVideoFrame * f)
{
  const GstVideoFormatInfo *fi = f->info.finfo;
  DMRGBImage img;
  img.data = GST_VIDEO_FRAME_PLANE_DATA (f, 0);
  img.width = GST_VIDEO_FRAME_WIDTH (f);
  img.height = GST_VIDEO_FRAME_HEIGHT (f);
  img.stride = GST_VIDEO_FRAME_PLANE_STRIDE (f, 0);
  img.pixel_stride = GST_VIDEO_FORMAT_INFO_PSTRIDE (fi, 0);
  img.r = GST_VIDEO_FORMAT_INFO_POFFSET (fi, GST_VIDEO_COMP_R);
  img.g = GST_VIDEO_FORMAT_INFO_POFFSET (fi, GST_VIDEO_COMP_G);
  img.b = GST_VIDEO_FORMAT_INFO_POFFSET (fi, GST_VIDEO_COMP_B);
  img.a = GST_VIDEO_FORMAT_INFO_HAS_ALPHA (fi) ?
      GST_VIDEO_FORMAT_INFO_POFFSET (fi, GST_VIDEO_COMP_A) : -1;
  return img;
}

static inline DMGrayImage
dm_gray_image_from_frame (GstVideoFrame * f)
{
  DMGrayImage img;
  img.data = GST_VIDEO_FRAME_PLANE_DATA (f, 0);
  img.width = GST_VIDEO_FRAME_WIDTH (f);
  img.height = GST_VIDEO_FRAME_HEIGHT (f);
  img.stride = GST_VIDEO_FRAME_PLANE_STRIDE (f, 0);
  return img;
}
#endif
