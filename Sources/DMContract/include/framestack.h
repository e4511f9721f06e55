/* SPDX-License-Identifier: LGPL-2.1-or-later */
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

#define DM_FS_METHOD_LIST(X) \
  X (DM_FS_METHOD_MEAN, "mean", \
      "Per-channel mean of the samples (noise falls by about sqrt(N); " \
      "moving objects leave ghosts)") \
  X (DM_FS_METHOD_MEDIAN, "median", \
      "Per-channel median of the samples (objects present in fewer " \
      "than half the frames vanish)")
DM_ENUM_TYPEDEF (DMFrameStackMethod, DM_FS_METHOD_LIST)

#define DM_FS_ALIGN_LIST(X) \
  X (DM_FS_ALIGN_NONE, "none", \
      "Stack frames as they are (tripod)") \
  X (DM_FS_ALIGN_TRANSLATION, "translation", \
      "Estimate a sub-pixel translation per frame (robust to moving " \
      "objects) and resample before stacking")
DM_ENUM_TYPEDEF (DMFrameStackAlign, DM_FS_ALIGN_LIST)

#define DM_FS_MODE_LIST(X) \
  X (DM_FS_MODE_BATCH, "batch", \
      "Collect N frames, output one stack, repeat (framerate / N; a " \
      "partial stack at EOS)") \
  X (DM_FS_MODE_SLIDING, "sliding", \
      "Output the stack of the last N frames for every input (same " \
      "framerate; live denoise)")
DM_ENUM_TYPEDEF (DMFrameStackMode, DM_FS_MODE_LIST)

/* A copy of the element's properties (framestack_properties.def), taken
 * under the object lock. */
typedef struct {
#define DM_PROPERTY DM_SETTINGS_FIELD
#include "framestack_properties.def"
} DMFrameStackSettings;

static inline void
dm_framestack_settings_init (DMFrameStackSettings *s)
{
#define DM_PROPERTY DM_SETTINGS_DEFAULT
#include "framestack_properties.def"
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
/* Returns 0 when the frames could not be stacked into `out` (a picture of
 * another size or layout than the frames': nothing written). */
int32_t dm_framestack_render(void *state, const DMFrameStackSettings *settings,
    const DMRGBImage *out, DMFrameStackResult *result);

#ifdef __cplusplus
}
#endif
#endif
