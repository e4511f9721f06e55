/* SPDX-License-Identifier: LGPL-2.1-or-later */
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
typedef enum { DM_PERSON_FUSE = 0, DM_PERSON_ALONE = 1, DM_PERSON_IGNORE = 2 } DMPersonPrior;
typedef enum { DM_EFFECT_NONE = 0, DM_EFFECT_DESATURATE = 1, DM_EFFECT_COMIC = 2,
  DM_EFFECT_BLUR = 3 } DMBackgroundEffect;

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
  double cutoff;          /* metres, the cutoff used for this frame */
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
