/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* rgbdtestsrc.h: the rgbdtestsrc element's contract between the shim
 * (rgbdtestsrc.c) and the bridge (RGBDTestSrcBridge.swift). */
#ifndef DM_RGBDTESTSRC_H
#define DM_RGBDTESTSRC_H

#include "dmcommon.h"

#ifdef __cplusplus
extern "C" {
#endif

#define DM_STREAM_LIST(X) \
  X (DM_STREAM_VIDEO, "video", \
      "Colour (packed 8-bit RGB), with a 'face' " \
      "GstVideoRegionOfInterestMeta on the subject's head") \
  X (DM_STREAM_DEPTH, "depth", \
      "Depth registered to the colour (GRAY16_LE, units of " \
      "depth-scale, 0 = no reading)") \
  X (DM_STREAM_TRUTH, "truth", \
      "Ground-truth matte (GRAY8, 255 = subject)")
DM_ENUM_TYPEDEF (DMStream, DM_STREAM_LIST)

#define DM_SCENE_LIST(X) \
  X (DM_SCENE_PORTRAIT, "portrait", \
      "The head-and-shoulders portrait") \
  X (DM_SCENE_CHAIR, "chair", \
      "A chair back rising behind the shoulders, 0.16 m behind the " \
      "face") \
  X (DM_SCENE_SLOPING_FLOOR, "sloping-floor", \
      "A floor seen from a camera pitched down, meeting the torso in " \
      "depth and receding to the wall") \
  X (DM_SCENE_DOOR_FRAME, "door-frame", \
      "A door jamb along the left edge at 1.0 m") \
  X (DM_SCENE_ENTER_LEFT, "enter-left", \
      "The subject walks in from the left (0-4 s of 10 s), stands, " \
      "walks out on the right (6-10 s), over the floor") \
  X (DM_SCENE_THIN_ROD, "thin-rod", \
      "The portrait, hand raised, holding a 5 mm rod up (a part one " \
      "or two depth pixels wide)") \
  X (DM_SCENE_CARRY_BINDER, "carry-binder", \
      "The enter-left walk carrying a dark binder against the chest " \
      "(with holes: 90 % of its depth pixels have no reading, as an " \
      "IR-absorbing surface)") \
  X (DM_SCENE_SELFIE, "selfie", \
      "An arm's-length selfie for an upright 3:4 picture " \
      "(square-pixels): the torso leaning back fills the bottom edge, " \
      "nearer than the face there; a chair back behind; the face " \
      "reads 0.33 m")
DM_ENUM_TYPEDEF (DMScene, DM_SCENE_LIST)

/* A copy of the element's properties (rgbdtestsrc_properties.def), taken
 * under the object lock per frame. */
typedef struct {
#define DM_PROPERTY DM_SETTINGS_FIELD
#include "rgbdtestsrc_properties.def"
} DMRGBDTestSrcSettings;

static inline void
dm_rgbdtestsrc_settings_init (DMRGBDTestSrcSettings *s)
{
#define DM_PROPERTY DM_SETTINGS_DEFAULT
#include "rgbdtestsrc_properties.def"
}

/* Render the scene at time t (seconds of stream time).
 * Colour: fills out, and writes the subject's face box (video pixels) to face;
 * returns 1 when a face is visible. */
int32_t dm_rgbdtestsrc_render_video(const DMRGBDTestSrcSettings *s, double t, const DMRGBImage *out, DMBox *face);
/* The face boxes a detector would report at time t in a width x height
 * picture, in meta order; writes at most max boxes, returns how many. */
int32_t dm_rgbdtestsrc_faces(const DMRGBDTestSrcSettings *s, double t, int32_t width, int32_t height,
    DMBox *out, int32_t max);
/* Depth: GRAY16_LE in units of depth_scale, 0 = no reading; registered to
 * the colour, or as the depth camera of `calibration` (dm_calibration_new's
 * handle) sees it (NULL: registered). */
void dm_rgbdtestsrc_render_depth(const DMRGBDTestSrcSettings *s, double t,
    const void *calibration, const DMGrayImage *out);
/* Ground-truth matte: GRAY8, 255 = subject. */
void dm_rgbdtestsrc_render_truth(const DMRGBDTestSrcSettings *s, double t, const DMGrayImage *out);

#ifdef __cplusplus
}
#endif
#endif
