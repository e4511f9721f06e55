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
 * doubles. Every lane is summed in double in the Swift kernel's order.
 * Only the means of rows 0 .. rows-1, columns 0 .. cols-1 are written (the
 * sums still start at row and column 0: the same values as for the whole
 * plane). */
void dm_box_mean4_avx2(const float *src, float *dst, intptr_t plane_stride, int lanes,
                       int w, int h, int r, float *tmp, double *sums, int rows, int cols);

/* The same for the fit's product group `group` (1 ... 3, RefinePass.products)
 * made from group 0's (R, G, B, p) at `src` as each pixel is read: (Rp, Gp,
 * Bp, RR), (RG, RB, GG, GB), (BB, pp, -, -); group 0: `src` itself. */
void dm_box_mean4_products_avx2(const float *src, int group, float *dst, intptr_t plane_stride, int lanes,
                                int w, int h, int r, float *tmp, double *sums, int rows, int cols);

/* RefinePass.solve (MatteRefiner+Solve.swift): the linear model of every
 * window for pixels i = start .. end-1, eight at a time; returns the first
 * pixel not done (the Swift kernel does the rest). `means` holds the
 * FitProduct window means, plane c at means + c * plane_stride; the
 * coefficients (aR, aG, aB, b) go interleaved to `group` + 4 i, the fit
 * confidence to `confidence` (with fit_floor > 0; else NULL). */
intptr_t dm_solve_avx2(const float *means, intptr_t plane_stride, float *group, float *confidence,
                       intptr_t start, intptr_t end, float eps, float fit_floor);

/* DepthComponents.markFloorLike (NearestBody.swift): the floor test of
 * the cells x = 0 .. (w & ~7) - 1 of rows t .. h-t-1 of the w x h grid `d`
 * (metres, 0 = no reading) into `f` (1 floor-like, else 0), eight at a
 * time; the Swift loop does the rest of each row and the rows above and
 * below. k: the slope threshold; jump_base + jump_gain * d: the step that
 * is no longer smooth. */
void dm_floor_like_avx2(const float *d, uint8_t *f, int w, int h, int t, float k,
                        float jump_base, float jump_gain);

/* --- The guided refiner's passes at depth resolution (refine.c) --- */

/* RefinePass.labelMean (MatteRefiner+BoxMean.swift): the inner columns
 * x .. end-1 of one row of the label's mean over radius r from the rows a
 * (above the window) and b (its last) of the summed-area table, eight at a
 * time: out[x] = (float)((double)count * scale). Returns the first column
 * not done (the Swift kernel does the rest). */
intptr_t dm_label_mean_row_avx2(const int32_t *a, const int32_t *b, float *out, intptr_t x, intptr_t end,
                                int r, double scale);

/* RefinePass.output (MatteRefiner+Output.swift): one output-grid row,
 * eight pixels per step, while a whole step fits; returns the first column
 * not done (the Swift kernel does the rest) and the first and last column
 * it left unsettled in new_lo, new_hi (gw, -1: none). */
typedef struct DMOutputRow {
  /* the row: its first grid pixel, the grid width */
  intptr_t o;
  int gw;
  /* depth resolution: the width, the coefficient means of rows y0 and y1
   * (aR, aG, aB, b, planes n apart), the fit there (`low`), the nearest
   * row's interior label mean and three-state label, DepthLabel.unknown */
  int dw;
  intptr_t n;
  const float *cm0, *cm1, *low0, *low1, *interior;
  const uint8_t *label;
  int unknown;
  float ty;
  /* per 8 grid columns from 0: the nearest, first and second depth column
   * of its first pixel; per grid column, three rows `offset_stride` apart:
   * each one's offsets from those (0 ... 7); the second column's weight */
  const int32_t *block_bases, *offsets;
  intptr_t offset_stride;
  const float *tx;
  /* the guide on the grid (planes gn apart), the row offsets of the rows
   * above and below (0 at the picture's edge) */
  const float *grid;
  intptr_t gn, up, down;
  /* 2.6's state (the previous guide's planes gs apart), the matte, and for
   * 2.8 `out` and `settled` (NULL: 2.8 off); step 3's detail (NULL: off)
   * and last frame's columns of it; 2.8's 16-pixel marks of the row
   * (`settled` is written only in marked blocks and in one not whole in
   * the eight-pixel steps: 2.8 reads it nowhere else) */
  float *previous, *previous_guide;
  intptr_t gs;
  float *dst, *out, *settled, *detail;
  int old_lo, old_hi;
  uint8_t *blocks;
  /* the knobs (RefinePass's) */
  int blend, range_clamp;
  float contrast, flat_contrast, detail_min_spread, detail_gain_limit;
  float colour_noise, colour_slack, hold, leak, base, gain;
  /* results */
  int new_lo, new_hi;
} DMOutputRow;

int dm_output_row_avx2(DMOutputRow *row);

/* RefinePass.edge (MatteRefiner+Output.swift), 2.8 on one output-grid row
 * o .. o+gw-1, eight pixels per step while a whole step fits; returns the
 * first column not done (the Swift kernel does the rest). */
typedef struct DMEdgeRow {
  intptr_t o, up, down;
  int gw, k, dw;
  /* the matte of phase output, its settled marks, the result; the fit
   * confidence of the depth row under it; the row's 16-pixel marks */
  const float *raw, *settled, *confidence;
  float *out;
  const uint8_t *blocks;
  float contrast, gate;
  int keep_side;
} DMEdgeRow;

int dm_edge_row_avx2(const DMEdgeRow *row);

/* ---- the compositor's word path and the guide (compositor.c, guide.c) ---- */

/* MatteCompositor's uniform runs (MatteCompositor+Rows.swift, fillWords):
 * out[i] = (src ? src[i] & and_mask : 0) | or_mask for i < n. stream != 0:
 * the whole 64-byte lines with non-temporal stores (dm_store_fence before
 * anyone else reads them). */
void dm_fill_words_avx2(uint32_t *out, const uint32_t *src, intptr_t n, uint32_t and_mask, uint32_t or_mask,
                        int stream);
/* Orders the non-temporal stores before the stores that follow (sfence). */
void dm_store_fence(void);

/* MatteDetail.add's colour detail of one output row: grid rows r0 and r1
 * (gR, gG, gB, offset per grid pixel, `width` of them) and the row weight
 * ty; per output column its first grid column and the second's weight; the
 * video's R, G, B bytes at these bit shifts of a pixel word. */
typedef struct {
  const float *r0, *r1;
  const int32_t *columns;
  const float *weights;
  float ty;
  int32_t width;
  int32_t shift_r, shift_g, shift_b;
} DMEdgeDetail;

/* EdgeBlend.run over output columns x0 .. x1-1 of one row, with the colour
 * detail added to the matte first when `detail` is not NULL: the matte
 * `matte` (the cubic, not clamped), the 32-bit video, background (NULL: the
 * word `color`) and output pixels, mode a MatteOutput raw value. Returns the
 * pixels with matte > 0.5. video_ahead != 0: the video and the output of
 * the same columns are prefetched video_ahead and out_ahead bytes on (a
 * later row). */
intptr_t dm_edge_blend_avx2(const float *matte, intptr_t x0, intptr_t x1, const uint32_t *video,
                            const uint32_t *background, uint32_t color, uint32_t alpha_mask, int alpha_shift,
                            uint32_t *out, int mode, const DMEdgeDetail *detail, intptr_t video_ahead,
                            intptr_t out_ahead);

/* MatteRefiner.areaRGB's 4-byte path (MatteRefiner+AreaGuide.swift), one grid
 * row: the packed column sums of `rows` video rows from `first` (`stride`
 * bytes apart, `width` pixels) into even and odd; with `cells` 2 or 3, the
 * means of the grid row's cells that are that many columns wide (columns
 * cx[gx] .. cx[gx + 1]), eight at a time from cell 0, as Float(sum) * inv3
 * (the reciprocal for that width) into the R, G, B rows (bytes ch_r, ch_g,
 * ch_b of a pixel); whole 32-bit words are added, so rows * cells <= 257.
 * Returns the first cell not done (the Swift code does the rest from the
 * column sums). */
intptr_t dm_area_row_avx2(const uint8_t *first, intptr_t stride, int rows, int width, uint32_t *even, uint32_t *odd,
                          const int32_t *cx, int gw, int cells, float inv3, int ch_r, int ch_g, int ch_b,
                          float *out_r, float *out_g, float *out_b);


/* RefinePass.decide's nearest trusted colours (MatteRefiner+Decide.swift,
 * nearestTrusted) around untrusted depth pixel (x, y) of colour (r, g, b):
 * the squared distance to the nearest trusted (weight == 1) pixel of each
 * side (fill == 1: the subject's, into out_bf; else into out_bb; infinity:
 * none) within sr, widened by sr up to max_reach until both are found (to
 * 3 sr where match_widening and the colour is within match_noise of one
 * side). Returns whether the pixel matched one side's colour. */
int dm_nearest_trusted_avx2(const float *weight, const float *fill, const float *lr, const float *lg,
                            const float *lb, intptr_t dw, intptr_t dh, intptr_t x, intptr_t y, int sr,
                            int max_reach, int match_widening, float match_noise, float r, float g, float b,
                            float *out_bf, float *out_bb);

/* RefinePass.trust's flags of one row of n depth pixels (MatteRefiner+Trust.swift):
 * weight 1 where trusted (label not `unknown`, boxed label mean 1 or the
 * background band's mean mb 0), else uw; the columns of the trusted ones
 * with a boxed mean strictly between 0 and 1 (for wallColoured) into ring,
 * in order. Returns their count. */
intptr_t dm_trust_row_avx2(const uint8_t *label, const float *boxed, const float *mb, float *weight, intptr_t n,
                           uint8_t unknown, float uw, int32_t *ring);

/* RefinePass.labelTable's row of the summed-area table of `fill` (w columns;
 * integer-valued): out[x] = above[x] + the sum of row[0 ... x] as Int32
 * (wrapping). */
void dm_label_table_row_avx2(const float *row, const int32_t *above, int32_t *out, intptr_t w);


#ifdef __cplusplus
}
#endif

#endif
