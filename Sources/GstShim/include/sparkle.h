/* sparkle.h: the sparkle element's contract between the shim (sparkle.c) and
 * the bridge (SparkleBridge.swift). */
#ifndef DM_SPARKLE_H
#define DM_SPARKLE_H

#include "dmcommon.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
  DM_SPARKLE_MEASURE_MEAN_RGB = 0,     /* mean of (R+G+B)/(3*255) */
  DM_SPARKLE_MEASURE_REC709_LUMA = 1,  /* mean of (0.2126R'+0.7152G'+0.0722B')/255 */
} DMSparkleMeasure;

/* Every property of sparkle, once (see dmcommon.h for the columns). */
#define DM_SPARKLE_PROPERTIES(P, X) \
  P (X, ENUM, measure, "measure", "Measure", 0, 0, DM_SPARKLE_MEASURE_MEAN_RGB, \
      dm_sparkle_measure_get_type, PLAYING, "What brightness means (both give 0-1)") \
  P (X, INT, grid_step, "grid-step", "Grid step", 1, 1024, 32, NULL, PLAYING, \
      "Meter grid step in pixels: one pixel (the centre) of every " \
      "grid-step x grid-step cell is read; 1 reads every pixel") \
  P (X, UINT64, interval, "interval", "Interval", 0, 3600000000000.0, 200000000, NULL, PLAYING, \
      "Stream time between brightness readings in nanoseconds (the first " \
      "frame is always measured; 0 = every frame; at most an hour)") \
  P (X, BOOLEAN, post_messages, "post-messages", "Post messages", 0, 1, 1, NULL, PLAYING, \
      "Post a 'sparkle' element message for every reading, with " \
      "timestamp, stream-time, running-time, duration (ns), brightness " \
      "(0-1) and sparkles (live glints)") \
  P (X, BOOLEAN, draw, "draw", "Draw", 0, 1, 1, NULL, PLAYING, \
      "Draw the glints; false makes a pure meter (passthrough, frames " \
      "untouched)") \
  P (X, INT, max_sparkles, "max-sparkles", "Max sparkles", 0, 1000, 64, NULL, PLAYING, \
      "Live glints at brightness 1. Live glints = round(max-sparkles * " \
      "clamp((brightness - threshold) / (1 - threshold), 0, 1))") \
  P (X, DOUBLE, threshold, "threshold", "Threshold", 0.0, 1.0, 0.25, NULL, PLAYING, \
      "Brightness (0-1) at or below which no glints appear") \
  P (X, DOUBLE, size, "size", "Size", 0.001, 0.5, 0.03, NULL, PLAYING, \
      "Mean glint arm length at its peak, as a fraction of the frame's " \
      "shorter side (each glint varies 0.6x-1.4x)") \
  P (X, UINT64, life, "life", "Life", 1000000, 60000000000.0, 600000000, NULL, PLAYING, \
      "Mean glint life in nanoseconds of stream time: it grows, peaks at " \
      "half life and fades (each glint varies 0.6x-1.4x)") \
  P (X, UINT, color_argb, "color", "Colour", 0, 4294967295.0, 0xffffffffu, NULL, PLAYING, \
      "Glint colour as 0xAARRGGBB, added to the picture; AA scales the " \
      "strength (0xff = full)") \
  P (X, UINT, seed, "seed", "Seed", 0, 4294967295.0, 0, NULL, PLAYING, \
      "Seed of the glint positions, sizes and lives; the generator " \
      "restarts from it on flush and on READY, so runs are reproducible")

/* A copy of the element's properties, taken under the object lock per frame. */
typedef struct {
  DM_SPARKLE_PROPERTIES (DM_SETTINGS_FIELD, _)
} DMSparkleSettings;

static inline void
dm_sparkle_settings_init (DMSparkleSettings *s)
{
  DM_SPARKLE_PROPERTIES (DM_SETTINGS_DEFAULT, _)
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
