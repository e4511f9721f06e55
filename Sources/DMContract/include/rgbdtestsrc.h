/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* rgbdtestsrc.h: the rgbdtestsrc element's contract between the shim
 * (rgbdtestsrc.c) and the bridge (RGBDTestSrcBridge.swift). */
#ifndef DM_RGBDTESTSRC_H
#define DM_RGBDTESTSRC_H

#include "dmcommon.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum { DM_STREAM_VIDEO = 0, DM_STREAM_DEPTH = 1, DM_STREAM_TRUTH = 2 } DMStream;
typedef enum { DM_SCENE_PORTRAIT = 0, DM_SCENE_CHAIR = 1, DM_SCENE_SLOPING_FLOOR = 2,
  DM_SCENE_DOOR_FRAME = 3, DM_SCENE_ENTER_LEFT = 4, DM_SCENE_THIN_ROD = 5,
  DM_SCENE_CARRY_BINDER = 6, DM_SCENE_SELFIE = 7 } DMScene;

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
