/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* depthmatte.h: the depthmatte element's contract between the shim
 * (depthmatte.c) and the bridge (DepthMatteBridge.swift). */
#ifndef DM_DEPTHMATTE_H
#define DM_DEPTHMATTE_H

#include "dmcommon.h"

#ifdef __cplusplus
extern "C" {
#endif

#define DM_MODE_LIST(X) \
  X (DM_MODE_FACE, "face", \
      "Lock the cutoff to the subject's face from the face ROI metas " \
      "(cutoff = face depth + cutoff-offset; see lock-strategy)") \
  X (DM_MODE_FIXED, "fixed", \
      "Always use the cutoff property") \
  X (DM_MODE_NEAREST, "nearest", \
      "From depth alone: the nearest large body (head depth + " \
      "cutoff-offset); no face detector needed") \
  X (DM_MODE_HIGHPASS, "highpass", \
      "Focus high-pass: keep everything nearer than focus, ramping to " \
      "nothing at focus + 1/slope metres") \
  X (DM_MODE_BANDPASS, "bandpass", \
      "Focus band-pass: keep focus +- focus-width, ramping to nothing " \
      "at focus +- (focus-width + 1/slope) metres")
DM_ENUM_TYPEDEF (DMMode, DM_MODE_LIST)

#define DM_LOCK_STRATEGY_LIST(X) \
  X (DM_LOCK_ROBUST, "robust", \
      "Face choice by head size and depth, tracking in depth through " \
      "face loss, depth-only finder, smoothing") \
  X (DM_LOCK_ORIGINAL, "original", \
      "The original sample's: first face box, its centre depth pixel, " \
      "held while no face is seen")
DM_ENUM_TYPEDEF (DMLockStrategy, DM_LOCK_STRATEGY_LIST)

#define DM_REFINE_LIST(X) \
  X (DM_REFINE_GUIDED, "guided", \
      "Edge-aware: depth holes decided from their neighbours and the " \
      "colour image, a weighted colour guided filter (untrusted band " \
      "around the depth edge: 2 depth pixels on the subject's side, 1 " \
      "on the background's), temporal smoothing that follows a moving " \
      "camera") \
  X (DM_REFINE_ORIGINAL, "original", \
      "The original sample's chain: threshold, blur, gamma, bicubic " \
      "upscale") \
  X (DM_REFINE_NONE, "none", \
      "The hard threshold mask, upscaled (debugging)")
DM_ENUM_TYPEDEF (DMRefine, DM_REFINE_LIST)

#define DM_OUTPUT_LIST(X) \
  X (DM_OUTPUT_COMPOSITE, "composite", \
      "The subject over the background pad or background-color") \
  X (DM_OUTPUT_MATTE, "matte", \
      "The matte as a grey picture (white = subject)") \
  X (DM_OUTPUT_ALPHA, "alpha", \
      "The video with the matte in its alpha channel (output format " \
      "gets alpha)") \
  X (DM_OUTPUT_DEPTH, "depth", \
      "The depth map as a picture at video size (see depth-colormap, " \
      "depth-range-min/max, hole-color)")
DM_ENUM_TYPEDEF (DMOutput, DM_OUTPUT_LIST)

#define DM_PERSON_PRIOR_LIST(X) \
  X (DM_PERSON_FUSE, "fuse", \
      "The person probability decides which depth pieces are the " \
      "person (the face lock still picks which person; depth and " \
      "colour give the edge)") \
  X (DM_PERSON_ALONE, "alone", \
      "The person probability itself, upscaled (no depth decision; " \
      "also what a person pad without depth gives)") \
  X (DM_PERSON_IGNORE, "ignore", \
      "Depth only, as without a person pad")
DM_ENUM_TYPEDEF (DMPersonPrior, DM_PERSON_PRIOR_LIST)

#define DM_EFFECT_LIST(X) \
  X (DM_EFFECT_NONE, "none", \
      "No effect: the background colour replaces the background") \
  X (DM_EFFECT_DESATURATE, "desaturate", \
      "The video's background in grey (Rec.709 luma)") \
  X (DM_EFFECT_COMIC, "comic", \
      "The video's background posterised with dark edge lines") \
  X (DM_EFFECT_BLUR, "blur", \
      "The video's background blurred (portrait style, no subject " \
      "halo)")
DM_ENUM_TYPEDEF (DMBackgroundEffect, DM_EFFECT_LIST)

/* A copy of the element's properties (depthmatte_properties.def), taken
 * under the object lock once per frame, plus what the shim adds per frame. */
typedef struct {
#define DM_PROPERTY DM_SETTINGS_FIELD
#include "depthmatte_properties.def"
  double frame_duration;   /* seconds since the previous frame (set per frame) */
} DMDepthMatteSettings;

static inline void
dm_depthmatte_settings_init (DMDepthMatteSettings *s)
{
#define DM_PROPERTY DM_SETTINGS_DEFAULT
#include "depthmatte_properties.def"
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
  DMGrayImage person;          /* GRAY8 person probability (255 = person), any size */
  int32_t has_person;          /* 0: no person frame for this output (depth only) */
} DMDepthMatteFrame;

typedef struct {
  int32_t face_found;     /* a face box was used to set the cutoff on this frame */
  double face_depth;      /* metres; 0 when no valid depth was found in the face */
  double cutoff;          /* metres, the lock's cutoff for this frame */
  double keyed_cutoff;    /* metres, the depth the matte was cut at: 0 when
                           * subject-only found no subject; under a person
                           * prior the farthest depth the fusion kept */
  double coverage;        /* fraction of output pixels with matte > 0.5 */
  int32_t lock_source;    /* 0 fixed, 1 face, 2 tracked, 3 nearest */
  DMBox face_box;         /* the face box (video pixels) that set the cutoff; all 0 when face_found is 0 */
  int32_t camera_moving;  /* refine=guided: the temporal state followed one shift of the picture */
  double camera_shift_x;  /* that shift, video pixels since the last frame (0 when not moving) */
  double camera_shift_y;
  int32_t person_used;    /* the person probability took part in this frame's matte */
  double depth_median;    /* metres: median of a sparse sample of the 16-bit depth's
                           * non-zero readings (0: no 16-bit depth, or none) */
} DMDepthMatteResult;

void *dm_depthmatte_new(void);
void dm_depthmatte_process(void *state, const DMDepthMatteSettings *settings,
    const DMDepthMatteFrame *frame, DMDepthMatteResult *result);

#ifdef __cplusplus
}
#endif
#endif
