/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* sparkle.h: the sparkle element's contract between the shim (sparkle.c) and
 * the bridge (SparkleBridge.swift). */
#ifndef DM_SPARKLE_H
#define DM_SPARKLE_H

#include "dmcommon.h"

#ifdef __cplusplus
extern "C" {
#endif

#define DM_SPARKLE_MEASURE_LIST(X) \
  X (DM_SPARKLE_MEASURE_MEAN_RGB, "mean-rgb", \
      "Mean of (R+G+B)/(3*255)") \
  X (DM_SPARKLE_MEASURE_REC709_LUMA, "rec709-luma", \
      "Mean Rec.709 luma (0.2126 R' + 0.7152 G' + 0.0722 B')/255 of " \
      "the encoded values")
DM_ENUM_TYPEDEF (DMSparkleMeasure, DM_SPARKLE_MEASURE_LIST)

/* A copy of the element's properties (sparkle_properties.def), taken under
 * the object lock per frame. */
typedef struct {
#define DM_PROPERTY DM_SETTINGS_FIELD
#include "sparkle_properties.def"
} DMSparkleSettings;

static inline void
dm_sparkle_settings_init (DMSparkleSettings *s)
{
#define DM_PROPERTY DM_SETTINGS_DEFAULT
#include "sparkle_properties.def"
}

typedef struct {
  int32_t measured;       /* 1: a new reading was taken on this frame */
  double brightness;      /* latest reading, 0-1 */
  int32_t sparkles;       /* glints live after this frame */
  int32_t target;         /* target glint count for the latest reading */
} DMSparkleResult;

void *dm_sparkle_new(void);
void dm_sparkle_process(void *state, const DMSparkleSettings *settings,
    const DMRGBImage *frame, int64_t stream_time, int64_t frame_duration,
    DMSparkleResult *result);

#ifdef __cplusplus
}
#endif
#endif
