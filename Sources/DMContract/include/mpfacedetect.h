/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* mpfacedetect.h: the mpfacedetect element's contract between the shim
 * (mpfacedetect.c) and the bridge (FaceDetectBridge.swift). */
#ifndef DM_MPFACEDETECT_H
#define DM_MPFACEDETECT_H

#include <stddef.h>
#include "dmcommon.h"

#ifdef __cplusplus
extern "C" {
#endif

#define DM_FACE_MODEL_LIST(X) \
  X (DM_FACE_MODEL_SHORT, "short", \
      "Short range only: faces within about 2 m of the camera " \
      "(128x128 input)") \
  X (DM_FACE_MODEL_FULL, "full", \
      "Full range only: faces up to about 5 m (192x192 input)") \
  X (DM_FACE_MODEL_BOTH, "both", \
      "Full range, plus the short-range faces that full range " \
      "confirms or that score 0.8 or more alone")
DM_ENUM_TYPEDEF (DMFaceModel, DM_FACE_MODEL_LIST)

/* A copy of the element's properties (mpfacedetect_properties.def), taken
 * under the object lock per frame. */
typedef struct {
#define DM_PROPERTY DM_SETTINGS_FIELD
#include "mpfacedetect_properties.def"
} DMFaceDetectSettings;

static inline void
dm_mpfacedetect_settings_init (DMFaceDetectSettings *s)
{
#define DM_PROPERTY DM_SETTINGS_DEFAULT
#include "mpfacedetect_properties.def"
}

/* A face in pixels of the frame, clamped to it, with its detection score. */
typedef struct {
  DMBox box;
  double confidence;
} DMFace;

/* At most this many faces a frame are reported. */
#define DM_MAX_FACES 32

void *dm_mpfacedetect_new(void);
/* Load the runtime and the settings' models and self-test them (once per
 * process and model). 0, or -1 with one line in `why`. */
int dm_mpfacedetect_start(void *state, const DMFaceDetectSettings *settings,
    char *why, size_t why_len);
/* The faces of one frame into `faces` (DM_MAX_FACES of room): their number,
 * or -1 with `why`. */
int dm_mpfacedetect_process(void *state, const DMFaceDetectSettings *settings,
    const DMRGBImage *in, DMFace *faces, char *why, size_t why_len);

#ifdef __cplusplus
}
#endif
#endif
