/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* dmkernels.h: CPU-specific kernels the kit calls where Swift cannot say
 * them (AVX2), each behind a run-time check; the kit's Swift stays the
 * fallback and the reference: every kernel here gives its results to the bit. */
#ifndef DM_KERNELS_H
#define DM_KERNELS_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* 1 when this CPU runs the AVX2 kernels below, else 0 (then calling them is an error). */
int dm_kernels_have_avx2(void);

/* MatteRefiner.boxMean4 (MatteRefiner+BoxMean.swift): the window means of
 * four interleaved float planes `src` (4 floats per pixel, w x h) over the
 * (2r+1)^2 window clipped to the picture, into the planar dst + lane *
 * plane_stride for lanes 0 .. lanes-1; tmp holds 4*w*h floats, sums 4*w
 * doubles. Every lane is summed in double in the Swift kernel's order. */
void dm_box_mean4_avx2(const float *src, float *dst, intptr_t plane_stride, int lanes,
                       int w, int h, int r, float *tmp, double *sums);

#ifdef __cplusplus
}
#endif

#endif
