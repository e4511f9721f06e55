/* dmsparkle.h: the contract between the sparkle element's C shim
 * (sparkle.c) and its Swift bridge (Sources/GstDepthMatte/SparkleBridge.swift).
 *
 * Plain C types only. The shim maps the frame, copies the settings under the
 * object lock, works out the frame's stream time and posts the bus message;
 * the bridge measures, updates the glints and draws (DepthMatteKit).
 */
#ifndef DMSPARKLE_H
#define DMSPARKLE_H

#include <stdint.h>
#include "dmshim.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
  DM_SPARKLE_MEASURE_MEAN_RGB = 0,     /* mean of (R+G+B)/(3*255) */
  DM_SPARKLE_MEASURE_REC709_LUMA = 1,  /* mean of (0.2126R'+0.7152G'+0.0722B')/255 */
} DMSparkleMeasure;

/* A copy of the element's properties, taken under the object lock once per frame. */
typedef struct {
  int32_t measure;        /* DMSparkleMeasure */
  int32_t grid_step;      /* meter grid step, pixels (>= 1) */
  int64_t interval;       /* ns of stream time between readings; 0 = every frame */
  int32_t draw;           /* 0: pure meter, the frame is not written */
  int32_t max_sparkles;   /* live glints at brightness 1 */
  double threshold;       /* brightness (0-1) at or below which no glints live */
  double size;            /* mean arm length, fraction of the frame's shorter side */
  int64_t life;           /* mean glint life, ns of stream time */
  uint32_t color_argb;    /* glint colour 0xAARRGGBB, AA = strength */
  uint32_t seed;          /* generator seed */
} DMSparkleSettings;

typedef struct {
  int32_t measured;       /* 1: a new reading was taken on this frame */
  double brightness;      /* latest reading, 0-1 */
  int32_t sparkles;       /* glints live after this frame */
  int32_t target;         /* target glint count for the latest reading */
} DMSparkleResult;

void *dm_sparkle_new(void);
void dm_sparkle_free(void *state);
/* Forget readings and glints, restart the generator (flush, READY). */
void dm_sparkle_reset(void *state);
/* stream_time: the frame's stream time in ns, or -1 when unknown;
 * frame_duration: ns, or -1 when unknown (used only without timestamps).
 * The frame is written only when settings->draw is non-zero. */
void dm_sparkle_process(void *state, const DMSparkleSettings *settings,
    const DMRGBImage *frame, int64_t stream_time, int64_t frame_duration,
    DMSparkleResult *result);

#ifdef __cplusplus
}
#endif
#endif
