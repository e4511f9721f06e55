/* dmframestack.h: the contract between framestack.c (GObject glue) and the
 * Swift bridge (Sources/GstDepthMatte/FrameStackBridge.swift).
 *
 * Plain C types only. The C side owns GStreamer (pads, caps, events, buffers,
 * messages); the Swift side keeps the frames and decides when an output is due.
 */
#ifndef DMFRAMESTACK_H
#define DMFRAMESTACK_H

#include <stdint.h>
#include "dmshim.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Upper bound of the frames property. */
#define DM_FRAMESTACK_MAX_FRAMES 128
/* "No timestamp" on this boundary (same value as GST_CLOCK_TIME_NONE). */
#define DM_FRAMESTACK_NO_TIME UINT64_MAX

typedef enum { DM_FS_METHOD_MEAN = 0, DM_FS_METHOD_MEDIAN = 1 } DMFrameStackMethod;
typedef enum { DM_FS_ALIGN_NONE = 0, DM_FS_ALIGN_TRANSLATION = 1 } DMFrameStackAlign;
typedef enum { DM_FS_MODE_BATCH = 0, DM_FS_MODE_SLIDING = 1 } DMFrameStackMode;

/* A copy of the element's properties, taken under the object lock. */
typedef struct {
  int32_t frames;          /* 1..DM_FRAMESTACK_MAX_FRAMES */
  int32_t method;          /* DMFrameStackMethod */
  int32_t align;           /* DMFrameStackAlign */
  double max_shift;        /* pixels */
  int32_t mode;            /* DMFrameStackMode */
} DMFrameStackSettings;

/* What one output was made of. The arrays are owned by the caller and must
 * hold DM_FRAMESTACK_MAX_FRAMES entries (sample_counts one more). */
typedef struct {
  uint64_t pts;            /* ns, DM_FRAMESTACK_NO_TIME if unknown */
  uint64_t duration;       /* ns, DM_FRAMESTACK_NO_TIME if unknown */
  int32_t n_frames;        /* frames stacked, oldest first in the arrays */
  double *shift_x;         /* per frame: content displacement relative to */
  double *shift_y;         /*   the output's reference frame, pixels */
  int32_t *registered;     /* per frame: 1 = registration succeeded */
  uint64_t *frame_pts;     /* per frame: input PTS */
  uint64_t *sample_counts; /* [k]: output pixels stacked from k samples, k = 0..n_frames */
  int32_t min_samples;     /* fewest samples used by any output pixel */
  int32_t full_x, full_y, full_width, full_height; /* region covered by all frames */
} DMFrameStackResult;

void *dm_framestack_new(void);
void dm_framestack_free(void *state);
/* Drop every collected frame (flush, size change). */
void dm_framestack_reset(void *state);
/* Frames collected and not yet rendered (batch) or in the window (sliding). */
int32_t dm_framestack_pending(void *state);
/* Copy and register one input frame. Returns 1 when an output is due now. */
int32_t dm_framestack_push(void *state, const DMFrameStackSettings *settings,
    const DMRGBImage *in, uint64_t pts, uint64_t duration);
/* Stack what was collected into out (same size and format as the input);
 * consumes the batch in batch mode. */
void dm_framestack_render(void *state, const DMFrameStackSettings *settings,
    const DMRGBImage *out, DMFrameStackResult *result);

#ifdef __cplusplus
}
#endif
#endif
