/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* personmask.h: the personmask element's contract between the shim
 * (personmask.c) and the bridge (PersonMaskBridge.swift). */
#ifndef DM_PERSONMASK_H
#define DM_PERSONMASK_H

#include <stddef.h>
#include "dmcommon.h"

#ifdef __cplusplus
extern "C" {
#endif

#define DM_PERSON_MODEL_LIST(X) \
  X (DM_PERSON_MODEL_GENERAL, "general", \
      "General model: 256x256 input, for people near the camera") \
  X (DM_PERSON_MODEL_LANDSCAPE, "landscape", \
      "Landscape model: 256x144 input, cheaper")
DM_ENUM_TYPEDEF (DMPersonModel, DM_PERSON_MODEL_LIST)

#define DM_PERSON_FULL_BODY_LIST(X) \
  X (DM_PERSON_FULL_BODY_OFF, "off", \
      "Off: the selfie model alone") \
  X (DM_PERSON_FULL_BODY_AUTO, "auto", \
      "Auto: the pose models on frames the selfie model sees no one in")
DM_ENUM_TYPEDEF (DMPersonFullBody, DM_PERSON_FULL_BODY_LIST)

/* A copy of the element's properties (personmask_properties.def), taken
 * under the object lock per frame. */
typedef struct {
#define DM_PROPERTY DM_SETTINGS_FIELD
#include "personmask_properties.def"
} DMPersonMaskSettings;

static inline void
dm_personmask_settings_init (DMPersonMaskSettings *s)
{
#define DM_PROPERTY DM_SETTINGS_DEFAULT
#include "personmask_properties.def"
}

/* The model's input size (the default output size). */
void dm_personmask_model_size(int32_t model, int32_t *width, int32_t *height);

void *dm_personmask_new(void);
/* Load the runtime and the settings' model and self-test it (once per
 * process and model). 0, or -1 with one line in `why`. */
int dm_personmask_start(void *state, const DMPersonMaskSettings *settings,
    char *why, size_t why_len);
/* Load the full-body fallback's pose models and self-test them (once per
 * process), when the settings ask for it. 0 (ready, or not asked), or -1
 * with one line in `why`: the element then runs without the fallback. */
int dm_personmask_start_full_body(void *state,
    const DMPersonMaskSettings *settings, char *why, size_t why_len);
/* One frame's mask into `out` (GRAY8, 255 = person). 0, or -1 with `why`. */
int dm_personmask_process(void *state, const DMPersonMaskSettings *settings,
    const DMRGBImage *in, const DMGrayImage *out, char *why, size_t why_len);

#ifdef __cplusplus
}
#endif
#endif
