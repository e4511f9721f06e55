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
  DM_SCENE_DOOR_FRAME = 3, DM_SCENE_ENTER_LEFT = 4 } DMScene;

/* Every property of rgbdtestsrc, once (see dmcommon.h for the columns). */
#define DM_RGBDTESTSRC_PROPERTIES(P, X) \
  P (X, ENUM, stream, "stream", "Stream", 0, 0, DM_STREAM_VIDEO, dm_rgbdtestsrc_stream_get_type, READY, \
      "Which picture of the scene to produce: colour, depth registered " \
      "to it, or the ground-truth matte") \
  P (X, BOOLEAN, is_live, "is-live", "Is live", 0, 1, 0, NULL, READY, \
      "Act as a live source: produce frames in real time, paced by the " \
      "clock") \
  P (X, UINT, seed, "seed", "Seed", 0, 4294967295.0, 0, NULL, PLAYING, \
      "Seed of the pseudo-random depth artefacts (noise, holes, flying " \
      "pixels); the same seed and time give the same frame") \
  P (X, DOUBLE, depth_scale, "depth-scale", "Depth scale", 1e-6, 10.0, 0.001, NULL, PLAYING, \
      "Metres per depth sample unit written by stream=depth " \
      "(0.001 = millimetres)") \
  P (X, BOOLEAN, noise, "noise", "Noise", 0, 1, 0, NULL, PLAYING, \
      "Depth noise growing with distance squared (sigma = 1.5 mm at 1 m, " \
      "6 mm at 2 m)") \
  P (X, BOOLEAN, holes, "holes", "Holes", 0, 1, 0, NULL, PLAYING, \
      "Zero-valued depth holes: occlusion shadows left of near objects, " \
      "small random clusters and speckle on the top of the hair") \
  P (X, BOOLEAN, flying_pixels, "flying-pixels", "Flying pixels", 0, 1, 0, NULL, PLAYING, \
      "Depth pixels on depth edges take intermediate depths between the " \
      "near and the far side") \
  P (X, INT, misregistration, "misregistration", "Misregistration", -8, 8, 0, NULL, PLAYING, \
      "Depth content shifted right (positive) or left (negative) by this " \
      "many depth pixels against the colour") \
  P (X, BOOLEAN, motion, "motion", "Motion", 0, 1, 1, NULL, PLAYING, \
      "The subject moves: sways left/right, steps between 0.85 m and " \
      "1.35 m, raises a hand (t mod 12 s in [5, 9)) and turns away " \
      "briefly (t mod 15 s in [12, 13.2)). Off: the scene is held at its " \
      "t = 0 state (face at 1.0 m)") \
  P (X, BOOLEAN, false_face, "false-face", "False face", 0, 1, 0, NULL, PLAYING, \
      "A life-size face printed on the poster behind the subject, " \
      "reported as a face ROI (first in meta order), plus a one-frame " \
      "stray face box on the plant every 1.7 s, as a real face detector " \
      "does") \
  P (X, BOOLEAN, face_cover, "face-cover", "Face cover", 0, 1, 0, NULL, PLAYING, \
      "The subject's face is not reported while covered: t mod 8 s in " \
      "[2.8, 4.6), spanning a step in depth") \
  P (X, BOOLEAN, face_meta, "face-meta", "Face meta", 0, 1, 1, NULL, PLAYING, \
      "Attach face ROI metas (false: as with no face detector upstream)") \
  P (X, STRING, calibration, "calibration", "Calibration", 0, 0, 0, NULL, READY, \
      "A camera pair as depthalign reads it (JSON): stream=depth renders " \
      "what that depth camera sees (its pose, intrinsics and size: depth " \
      "that needs depthalign with the same file), the other streams are the " \
      "colour camera's (its size). Unset: depth registered to the colour") \
  P (X, ENUM, scene, "scene", "Scene", 0, 0, DM_SCENE_PORTRAIT, dm_rgbdtestsrc_scene_get_type, PLAYING, \
      "Which scene: the portrait, or one with surfaces nearer than the " \
      "cutoff that are not the subject (a chair back, a sloping floor, a " \
      "door frame), or the subject walking in at the left edge") \
  P (X, BOOLEAN, quantization, "quantization", "Quantization", 0, 1, 0, NULL, PLAYING, \
      "Depth in disparity steps growing with distance squared (2.8 mm at " \
      "1 m, 2.2 cm at 2.8 m)") \
  P (X, BOOLEAN, correlated_noise, "correlated-noise", "Correlated noise", 0, 1, 0, NULL, PLAYING, \
      "Depth noise correlated over patches of about 4 depth pixels " \
      "(sigma about 1.6 x 1.5 mm x d squared)") \
  P (X, BOOLEAN, pan, "pan", "Pan", 0, 1, 0, NULL, PLAYING, \
      "The camera pans slowly to the right (0.025 ray units per second: " \
      "about 0.6 pixel of 640 per frame at 30 fps)")

/* A copy of the element's properties, taken under the object lock per frame. */
typedef struct {
  DM_RGBDTESTSRC_PROPERTIES (DM_SETTINGS_FIELD, _)
} DMRGBDTestSrcSettings;

static inline void
dm_rgbdtestsrc_settings_init (DMRGBDTestSrcSettings *s)
{
  DM_RGBDTESTSRC_PROPERTIES (DM_SETTINGS_DEFAULT, _)
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
 * the colour, or as the depth camera of `calibration_json` sees it (NULL: registered). */
void dm_rgbdtestsrc_render_depth(const DMRGBDTestSrcSettings *s, double t,
    const char *calibration_json, const DMGrayImage *out);
/* Ground-truth matte: GRAY8, 255 = subject. */
void dm_rgbdtestsrc_render_truth(const DMRGBDTestSrcSettings *s, double t, const DMGrayImage *out);

#ifdef __cplusplus
}
#endif
#endif
