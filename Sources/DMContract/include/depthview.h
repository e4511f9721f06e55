/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* depthview.h: the depthview element's contract between the shim
 * (depthview.c) and the bridge (DepthViewBridge.swift). */
#ifndef DM_DEPTHVIEW_H
#define DM_DEPTHVIEW_H

#include "dmcommon.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A copy of the element's properties (depthview_properties.def), taken under
 * the object lock per frame, plus what the shim adds per frame. */
typedef struct {
#define DM_PROPERTY DM_SETTINGS_FIELD
#include "depthview_properties.def"
  int32_t eight_bit;     /* 1: GRAY8 normalised map, 0: GRAY16 */
  int32_t big_endian;    /* 1: GRAY16_BE (16-bit PNG depth images) */
} DMDepthViewSettings;

static inline void
dm_depthview_settings_init (DMDepthViewSettings *s)
{
#define DM_PROPERTY DM_SETTINGS_DEFAULT
#include "depthview_properties.def"
  s->eight_bit = 0;
  s->big_endian = 0;
}

void *dm_depthview_new(void);
void dm_depthview_process(void *state, const DMDepthViewSettings *settings,
    const DMGrayImage *depth, const DMRGBImage *out);

#ifdef __cplusplus
}
#endif
#endif
