/* framestack.h: the framestack element's contract between the shim
 * (framestack.c) and the bridge (FrameStackBridge.swift). */
#ifndef DM_FRAMESTACK_H
#define DM_FRAMESTACK_H

#include "dmcommon.h"

#ifdef __cplusplus
extern "C" {
#endif

#define DM_FRAMESTACK_MAX_FRAMES 128
#define DM_FRAMESTACK_NO_TIME UINT64_MAX

typedef enum { DM_FS_METHOD_MEAN = 0, DM_FS_METHOD_MEDIAN = 1 } DMFrameStackMethod;
typedef enum { DM_FS_ALIGN_NONE = 0, DM_FS_ALIGN_TRANSLATION = 1 } DMFrameStackAlign;
typedef enum { DM_FS_MODE_BATCH = 0, DM_FS_MODE_SLIDING = 1 } DMFrameStackMode;

/* Every property of framestack, once (see dmcommon.h for the columns). */
#define DM_FRAMESTACK_PROPERTIES(P, X) \
  P (X, UINT, frames, "frames", "Frames", 1, DM_FRAMESTACK_MAX_FRAMES, 20, NULL, READY, \
      "Frames per stack (mode=batch) or in the window (mode=sliding). " \
      "Memory: frames x one input frame. Takes effect at the next caps") \
  P (X, ENUM, method, "method", "Method", 0, 0, DM_FS_METHOD_MEDIAN, \
      dm_framestack_method_get_type, PLAYING, \
      "How the aligned samples of a pixel are combined") \
  P (X, ENUM, align, "align", "Align", 0, 0, DM_FS_ALIGN_TRANSLATION, \
      dm_framestack_align_get_type, PLAYING, \
      "How frames are aligned to the reference frame (batch: the first " \
      "of the batch; sliding: the newest)") \
  P (X, DOUBLE, max_shift, "max-shift", "Maximum shift", 0.0, 1024.0, 64.0, NULL, PLAYING, \
      "Largest displacement searched between a frame and its reference, " \
      "in pixels (per axis)") \
  P (X, ENUM, mode, "mode", "Mode", 0, 0, DM_FS_MODE_BATCH, dm_framestack_mode_get_type, READY, \
      "When stacks are output. Takes effect at the next caps") \
  P (X, BOOLEAN, post_messages, "post-messages", "Post messages", 0, 1, 1, NULL, PLAYING, \
      "Post a 'framestack' element message per output with frames, " \
      "shift-x/shift-y (pixels, per frame), registered, frame-timestamps, " \
      "sample-counts (pixels per number of samples), min-samples, " \
      "border-pixels and the full-x/y/width/height region")

/* A copy of the element's properties, taken under the object lock. */
typedef struct {
  DM_FRAMESTACK_PROPERTIES (DM_SETTINGS_FIELD, _)
} DMFrameStackSettings;

static inline void
dm_framestack_settings_init (DMFrameStackSettings *s)
{
  DM_FRAMESTACK_PROPERTIES (DM_SETTINGS_DEFAULT, _)
}

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
int32_t dm_framestack_pending(void *state);
int32_t dm_framestack_push(void *state, const DMFrameStackSettings *settings,
    const DMRGBImage *in, uint64_t pts, uint64_t duration);
void dm_framestack_render(void *state, const DMFrameStackSettings *settings,
    const DMRGBImage *out, DMFrameStackResult *result);

#ifdef __cplusplus
}
#endif
#endif
