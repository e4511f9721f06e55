/* depthmatte.h: the depthmatte element's contract between the shim
 * (depthmatte.c) and the bridge (DepthMatteBridge.swift). */
#ifndef DM_DEPTHMATTE_H
#define DM_DEPTHMATTE_H

#include "dmcommon.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum { DM_MODE_FACE = 0, DM_MODE_FIXED = 1, DM_MODE_NEAREST = 2,
  DM_MODE_HIGHPASS = 3, DM_MODE_BANDPASS = 4 } DMMode;
typedef enum { DM_LOCK_ROBUST = 0, DM_LOCK_ORIGINAL = 1 } DMLockStrategy;
typedef enum { DM_REFINE_GUIDED = 0, DM_REFINE_ORIGINAL = 1, DM_REFINE_NONE = 2 } DMRefine;
typedef enum { DM_OUTPUT_COMPOSITE = 0, DM_OUTPUT_MATTE = 1, DM_OUTPUT_ALPHA = 2,
  DM_OUTPUT_DEPTH = 3 } DMOutput;
typedef enum { DM_EFFECT_NONE = 0, DM_EFFECT_DESATURATE = 1, DM_EFFECT_COMIC = 2,
  DM_EFFECT_BLUR = 3 } DMBackgroundEffect;

/* Every property of depthmatte, once (see dmcommon.h for the columns). */
#define DM_DEPTHMATTE_PROPERTIES(P, X) \
  P (X, ENUM, mode, "mode", "Mode", 0, 0, DM_MODE_FACE, dm_depthmatte_mode_get_type, PLAYING, \
      "Where the depth cutoff comes from") \
  P (X, DOUBLE, cutoff, "cutoff", "Cutoff", 0.0, 100.0, 1.0, NULL, PLAYING, \
      "Depth cutoff in metres: used in mode=fixed, and in mode=face or " \
      "nearest while no subject is found in depth (with " \
      "lock-strategy=original: before the first face). Pixels at or " \
      "nearer than the cutoff are the subject") \
  P (X, DOUBLE, cutoff_offset, "cutoff-offset", "Cutoff offset", -10.0, 10.0, 0.25, NULL, PLAYING, \
      "Metres added to the face (or nearest body's head) depth to give the " \
      "cutoff in mode=face and mode=nearest") \
  P (X, ENUM, refine, "refine", "Refine", 0, 0, DM_REFINE_GUIDED, dm_depthmatte_refine_get_type, PLAYING, \
      "How the matte is made from the depth mask: guided (edge-aware, " \
      "uses the colour frame; blur-radius and gamma do not apply), " \
      "original (the sample's threshold, blur, gamma, upscale) or none " \
      "(hard mask)") \
  P (X, BOOLEAN, subject_only, "subject-only", "Subject only", 0, 1, 1, NULL, PLAYING, \
      "refine=guided|none in mode=face|nearest: key only the depth " \
      "surfaces connected to the locked subject (its body and what it " \
      "holds); chair backs, floors, desk edges and door frames that are " \
      "merely nearer than the cutoff stay out. false: every pixel nearer " \
      "than the cutoff, as the original sample (mode=fixed always is)") \
  P (X, DOUBLE, blur_radius, "blur-radius", "Blur radius", 0.0, 100.0, 5.0, NULL, PLAYING, \
      "refine=original: Gaussian blur sigma of the mask, in depth pixels " \
      "(0 = no blur)") \
  P (X, DOUBLE, gamma, "gamma", "Gamma", 0.01, 10.0, 0.5, NULL, PLAYING, \
      "refine=original: exponent applied to the blurred mask (matte = " \
      "mask^gamma; below 1 widens the subject)") \
  DM_DEPTH_ENCODING_PROPERTIES (P, X) \
  P (X, DOUBLE, focus, "focus", "Focus", 0.0, 1000.0, 1.0, NULL, PLAYING, \
      "mode=highpass|bandpass: focus distance in metres (whatever " \
      "depth-kind; change it live, e.g. from a slider or a control source)") \
  P (X, DOUBLE, slope, "slope", "Slope", 0.1, 1000.0, 4.0, NULL, PLAYING, \
      "mode=highpass|bandpass: ramp steepness per metre; the ramp is " \
      "1/slope metres wide (4 = soft, 10 = sharp)") \
  P (X, DOUBLE, focus_width, "focus-width", "Focus width", 0.0, 100.0, 0.05, NULL, PLAYING, \
      "mode=bandpass: metres either side of focus kept fully") \
  P (X, ENUM, output, "output", "Output", 0, 0, DM_OUTPUT_COMPOSITE, dm_depthmatte_output_get_type, PLAYING, \
      "What the src pad carries") \
  P (X, UINT, background_argb, "background-color", "Background colour", 0, 4294967295.0, \
      0xff000000u, NULL, PLAYING, \
      "Replacement colour as 0xAARRGGBB when no background pad is linked " \
      "and background-effect=none") \
  P (X, ENUM, background_effect, "background-effect", "Background effect", 0, 0, DM_EFFECT_NONE, \
      dm_depthmatte_effect_get_type, PLAYING, \
      "output=composite without a background pad: show the video itself, " \
      "changed, where the matte says background (instead of " \
      "background-color)") \
  P (X, DOUBLE, effect_radius, "effect-radius", "Effect radius", 0.0, 1000.0, 24.0, NULL, PLAYING, \
      "background-effect=blur: blur radius in video pixels") \
  P (X, BOOLEAN, effect_growth, "effect-depth-growth", "Effect depth growth", 0, 1, 1, NULL, PLAYING, \
      "background-effect=blur: the blur grows with depth behind the " \
      "subject, from effect-radius/3 just behind it to effect-radius at " \
      "1 m and beyond (false: uniform effect-radius)") \
  DM_DEPTH_DISPLAY_PROPERTIES (P, X) \
  P (X, ENUM, lock_strategy, "lock-strategy", "Lock strategy", 0, 0, DM_LOCK_ROBUST, \
      dm_depthmatte_lock_strategy_get_type, PLAYING, \
      "How mode=face picks and keeps the subject") \
  P (X, DOUBLE, lock_hold, "lock-hold", "Lock hold", 0.0, 3600.0, 4.0, NULL, PLAYING, \
      "Seconds a lost face is trusted: the subject is tracked in depth " \
      "meanwhile; then the nearest body is used") \
  P (X, DOUBLE, lock_smoothing, "lock-smoothing", "Lock smoothing", 0.0, 60.0, 0.1, NULL, PLAYING, \
      "Seconds: time constant with which the cutoff follows the subject " \
      "(0 = at once)") \
  P (X, UINT, n_threads, "n-threads", "Threads", 0, 64, 0, NULL, PLAYING, \
      "Threads sharing the rows of each output frame (0 = one per CPU core)") \
  P (X, BOOLEAN, post_messages, "post-messages", "Post messages", 0, 1, 1, NULL, PLAYING, \
      "Post a 'depthmatte' element message per output frame with " \
      "running-time, face-found, face-depth (m), cutoff (m) and coverage " \
      "(0-1), lock (face, tracked, nearest or fixed: where the cutoff " \
      "came from)")

/* A copy of the element's properties, taken under the object lock once per
 * frame, plus what the shim adds per frame. */
typedef struct {
  DM_DEPTHMATTE_PROPERTIES (DM_SETTINGS_FIELD, _)
  double frame_duration;   /* seconds since the previous frame (set per frame) */
} DMDepthMatteSettings;

static inline void
dm_depthmatte_settings_init (DMDepthMatteSettings *s)
{
  DM_DEPTHMATTE_PROPERTIES (DM_SETTINGS_DEFAULT, _)
  s->frame_duration = 0;
}

typedef struct {
  DMRGBImage video;            /* colour input (read only) */
  DMGrayImage depth;           /* GRAY16_LE/BE or GRAY8 depth input (read only) */
  int32_t has_depth;           /* 0: no depth buffer for this frame */
  DMRGBImage background;       /* background input, already in the output format */
  int32_t has_background;      /* 0: use background_argb */
  DMRGBImage output;           /* output picture, same size as video */
  const DMBox *faces;          /* face boxes (video pixels), in meta order */
  int32_t n_faces;
  int32_t depth_eight_bit;     /* 1: the depth input is GRAY8 (normalised map) */
  int32_t depth_big_endian;    /* 1: the depth input is GRAY16_BE */
} DMDepthMatteFrame;

typedef struct {
  int32_t face_found;     /* a face box was used to set the cutoff on this frame */
  double face_depth;      /* metres; 0 when no valid depth was found in the face */
  double cutoff;          /* metres, the cutoff used for this frame */
  double coverage;        /* fraction of output pixels with matte > 0.5 */
  int32_t lock_source;    /* 0 fixed, 1 face, 2 tracked, 3 nearest */
  DMBox face_box;         /* the face box (video pixels) that set the cutoff; all 0 when face_found is 0 */
} DMDepthMatteResult;

void *dm_depthmatte_new(void);
void dm_depthmatte_process(void *state, const DMDepthMatteSettings *settings,
    const DMDepthMatteFrame *frame, DMDepthMatteResult *result);

#ifdef __cplusplus
}
#endif
#endif
