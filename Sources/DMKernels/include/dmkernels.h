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

/* RefinePass.solve (MatteRefiner+Solve.swift): the linear model of every
 * window for pixels i = start .. end-1, eight at a time; returns the first
 * pixel not done (the Swift kernel does the rest). `means` holds the
 * FitProduct window means, plane c at means + c * plane_stride; the
 * coefficients (aR, aG, aB, b) go interleaved to `group` + 4 i, the fit
 * confidence to `confidence` (with fit_floor > 0; else NULL). */
intptr_t dm_solve_avx2(const float *means, intptr_t plane_stride, float *group, float *confidence,
                       intptr_t start, intptr_t end, float eps, float fit_floor);

/* --- The guided refiner's passes at depth resolution (refine.c) --- */

/* RefinePass.labelMean (MatteRefiner+BoxMean.swift): the inner columns
 * x .. end-1 of one row of the label's mean over radius r from the rows a
 * (above the window) and b (its last) of the summed-area table, eight at a
 * time: out[x] = (float)((double)count * scale). Returns the first column
 * not done (the Swift kernel does the rest). */
intptr_t dm_label_mean_row_avx2(const int32_t *a, const int32_t *b, float *out, intptr_t x, intptr_t end,
                                int r, double scale);

#ifdef __cplusplus
}
#endif

#endif
