/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* depthalign.h: the depthalign element's contract between the shim
 * (depthalign.c) and the bridge (DepthAlignBridge.swift). */
#ifndef DM_DEPTHALIGN_H
#define DM_DEPTHALIGN_H

#include "dmcommon.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A copy of the element's properties (depthalign_properties.def), taken
 * under the object lock per frame, plus what the shim adds per frame. */
typedef struct {
#define DM_PROPERTY DM_SETTINGS_FIELD
#include "depthalign_properties.def"
  int32_t big_endian;    /* 1: the depth input is GRAY16_BE (16-bit PNG depth) */
} DMDepthAlignSettings;

static inline void
dm_depthalign_settings_init (DMDepthAlignSettings *s)
{
#define DM_PROPERTY DM_SETTINGS_DEFAULT
#include "depthalign_properties.def"
  s->big_endian = 0;
}

void *dm_depthalign_new(void);
/* Keep a parsed calibration (dm_calibration_new's handle, declared in the
 * calibration.h) for the frames to come: 1, or 0 without one. */
int32_t dm_depthalign_load(void *state, void *parsed);
/* Register one GRAY16_LE (or, settings->big_endian, GRAY16_BE) depth frame
 * (depth camera's view) into `out`
 * (GRAY16_LE, colour camera's size and view, same units, 0 = no reading).
 * Returns 1, or 0 when the sizes do not match the loaded calibration. */
int32_t dm_depthalign_process(void *state, const DMDepthAlignSettings *settings,
    const DMGrayImage *depth, const DMGrayImage *out);

#ifdef __cplusplus
}
#endif
#endif
