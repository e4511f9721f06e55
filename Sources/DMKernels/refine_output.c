/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* RefinePass.output (MatteRefiner+Output.swift) with AVX2, eight grid pixels
 * per step: every branch of the Swift loop evaluated for all eight lanes and
 * the lane's own result kept, each expression in the Swift order (compiled
 * without FP contraction; min and max as Swift's, NaN included), so the
 * matte, the previous matte and guide, the detail and 2.8's marks are the
 * same to the bit. */
#include "dmkernels.h"

#include <string.h>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>

#define T __attribute__((target("avx2"))) static inline

/* Swift's min(x, y): y < x ? y : x; max(x, y): y >= x ? y : x */
T __m256 smin(__m256 x, __m256 y) { return _mm256_min_ps(y, x); }
T __m256 smax(__m256 x, __m256 y) { return _mm256_blendv_ps(x, y, _mm256_cmp_ps(y, x, _CMP_GE_OQ)); }
T __m256 sabs(__m256 v) { return _mm256_andnot_ps(_mm256_set1_ps(-0.0f), v); }
T __m256 sel(__m256 mask, __m256 yes, __m256 no) { return _mm256_blendv_ps(no, yes, mask); }
/* 2.7 */
T __m256 snapped(__m256 v)
{
  const __m256 lo = _mm256_set1_ps(0.5f / 255), hi = _mm256_set1_ps(1 - 0.5f / 255);
  v = sel(_mm256_cmp_ps(v, hi, _CMP_GT_OQ), _mm256_set1_ps(1), v);
  return sel(_mm256_cmp_ps(v, lo, _CMP_LT_OQ), _mm256_setzero_ps(), v);
}

/* the guide's steepest change (RefinePass.gridSlope) of eight pixels at p + o */
T __m256 slope(const float *p, intptr_t o, int first, int last, intptr_t up, intptr_t down)
{
  __m256 l = _mm256_loadu_ps(p + o - 1), r = _mm256_loadu_ps(p + o + 1);
  const __m256 c = _mm256_loadu_ps(p + o);
  if (first) l = _mm256_blend_ps(l, c, 0x01);
  if (last) r = _mm256_blend_ps(r, c, 0x80);
  const __m256 u = _mm256_loadu_ps(p + o + up), d = _mm256_loadu_ps(p + o + down);
  return smax(sabs(_mm256_sub_ps(r, l)), sabs(_mm256_sub_ps(d, u)));
}

__attribute__((target("avx2")))
int dm_output_row_avx2(DMOutputRow *a)
{
  const int gw = a->gw, edged = a->settled != 0;
  const intptr_t o0 = a->o, n = a->n, gn = a->gn, gs = a->gs;
  const __m256 one = _mm256_set1_ps(1), zero = _mm256_setzero_ps(), half = _mm256_set1_ps(0.5f);
  const __m256 contrast = _mm256_set1_ps(a->contrast), ty = _mm256_set1_ps(a->ty);
  const __m256 flatc = _mm256_set1_ps(a->flat_contrast / a->contrast), minSpread = _mm256_set1_ps(a->detail_min_spread);
  const __m256i unknown = _mm256_set1_epi32(a->unknown);
  int new_lo = gw, new_hi = -1;
  int x = 0;
  for (; x + 8 <= gw; x += 8) {
    const intptr_t o = o0 + x;
    const int32_t *b = a->block_bases + 3 * (x >> 3);
    const __m256i pn = _mm256_loadu_si256((const __m256i *)(a->offsets + x));
    const __m256i p0 = _mm256_loadu_si256((const __m256i *)(a->offsets + a->offset_stride + x));
    const __m256i p1 = _mm256_loadu_si256((const __m256i *)(a->offsets + 2 * a->offset_stride + x));
    /* the interior label at the nearest depth pixel (0.5 for a hole) */
    __m128i l8;
    if (a->dw - b[0] >= 8) {
      l8 = _mm_loadl_epi64((const __m128i *)(a->label + b[0]));
    } else {
      /* (the label plane ends with its last row) */
      uint8_t bytes[8] = {0};
      memcpy(bytes, a->label + b[0], (size_t)(a->dw - b[0]));
      l8 = _mm_loadl_epi64((const __m128i *)bytes);
    }
    const __m256i lab = _mm256_permutevar8x32_epi32(_mm256_cvtepu8_epi32(l8), pn);
    const __m256 iv = _mm256_permutevar8x32_ps(_mm256_loadu_ps(a->interior + b[0]), pn);
    const __m256 inner = sel(_mm256_castsi256_ps(_mm256_cmpeq_epi32(lab, unknown)), half, iv);
    const __m256 is1 = _mm256_cmp_ps(inner, one, _CMP_EQ_OQ), is0 = _mm256_cmp_ps(inner, zero, _CMP_EQ_OQ);
    const __m256 label01 = _mm256_or_ps(is1, is0);
    const __m256 prev = _mm256_loadu_ps(a->previous + o);
    const __m256 settled = a->blend ? _mm256_and_ps(label01, _mm256_cmp_ps(prev, inner, _CMP_EQ_OQ)) : label01;
    const int sm = _mm256_movemask_ps(settled);
    const int overlap = a->detail && x + 7 >= a->old_lo && x <= a->old_hi;
    if (sm == 0xff) {
      /* eight interior pixels (most of the grid) */
      _mm256_storeu_ps(a->dst + o, inner);
      if (edged) {
        _mm256_storeu_ps(a->out + o, inner);
        /* 2.8 reads `settled` only in the 16-pixel blocks marked below: the
         * first half of a block this loop covers whole is written when the
         * second half marks it */
        if ((x & 15) == 8 ? a->blocks[x >> 4] : x + 16 > gw) _mm256_storeu_ps(a->settled + o, one);
      }
      if (!a->blend) _mm256_storeu_ps(a->previous + o, inner);
      if (overlap) for (int j = 0; j < 8; j++) _mm_storeu_ps(a->detail + 4 * (o + j), _mm_setzero_ps());
      continue;
    }
    /* 2.4 and 2.5: the colour model (RefinePass.model) for every lane */
    const __m256 tx = _mm256_loadu_ps(a->tx + x);
    const __m256 ux = _mm256_sub_ps(one, tx), uy = _mm256_sub_ps(one, ty);
    const __m256 w00 = _mm256_mul_ps(ux, uy), w01 = _mm256_mul_ps(tx, uy);
    const __m256 w10 = _mm256_mul_ps(ux, ty), w11 = _mm256_mul_ps(tx, ty);
#define AT(row, base, p) _mm256_permutevar8x32_ps(_mm256_loadu_ps((row) + (base)), p)
#define UP(r0, r1) _mm256_add_ps(_mm256_add_ps(_mm256_add_ps(_mm256_mul_ps(AT(r0, b[1], p0), w00), \
                                 _mm256_mul_ps(AT(r0, b[2], p1), w01)), _mm256_mul_ps(AT(r1, b[1], p0), w10)), \
                                 _mm256_mul_ps(AT(r1, b[2], p1), w11))
    const __m256 ar = UP(a->cm0, a->cm1), ag = UP(a->cm0 + n, a->cm1 + n), ab = UP(a->cm0 + 2 * n, a->cm1 + 2 * n);
    const __m256 ir = _mm256_loadu_ps(a->grid + o), ig = _mm256_loadu_ps(a->grid + gn + o);
    const __m256 ib = _mm256_loadu_ps(a->grid + 2 * gn + o);
    const __m256 dot = _mm256_add_ps(_mm256_add_ps(_mm256_mul_ps(ar, ir), _mm256_mul_ps(ag, ig)), _mm256_mul_ps(ab, ib));
    const __m256 fit = _mm256_add_ps(dot, UP(a->cm0 + 3 * n, a->cm1 + 3 * n));
    __m256 m = fit, spread = one;
    if (a->range_clamp) {
      const __m256 l00 = AT(a->low0, b[1], p0), l01 = AT(a->low0, b[2], p1);
      const __m256 l10 = AT(a->low1, b[1], p0), l11 = AT(a->low1, b[2], p1);
      const __m256 lo = smin(smin(smin(l00, l01), l10), l11), hi = smax(smax(smax(l00, l01), l10), l11);
      m = smin(smax(m, lo), hi);
      spread = _mm256_sub_ps(hi, lo);
    }
#undef UP
#undef AT
    m = _mm256_add_ps(_mm256_mul_ps(_mm256_sub_ps(m, half), contrast), half);
    const __m256 flatLane = _mm256_cmp_ps(spread, minSpread, _CMP_LT_OQ);
    __m256 flat = sel(flatLane, flatc, one);
    __m256 g0 = zero, g1 = zero, g2 = zero, g3 = zero;
    if (a->detail) {
      const __m256 clean = _mm256_add_ps(_mm256_mul_ps(_mm256_sub_ps(fit, half), contrast), half);
      __m256 ok = _mm256_cmp_ps(spread, minSpread, _CMP_GE_OQ);
      ok = _mm256_and_ps(ok, _mm256_cmp_ps(m, clean, _CMP_EQ_OQ));
      ok = _mm256_and_ps(ok, _mm256_cmp_ps(m, _mm256_set1_ps(-0.5f), _CMP_GT_OQ));
      ok = _mm256_and_ps(ok, _mm256_cmp_ps(m, _mm256_set1_ps(1.5f), _CMP_LT_OQ));
      const __m256 sum = _mm256_add_ps(_mm256_add_ps(sabs(ar), sabs(ag)), sabs(ab));
      const __m256 lim = _mm256_div_ps(_mm256_set1_ps(a->detail_gain_limit),
                                       smax(_mm256_mul_ps(sum, contrast), _mm256_set1_ps(1e-9f)));
      const __m256 c = _mm256_mul_ps(contrast, smin(one, lim));
      const __m256 over = _mm256_sub_ps(m, smin(smax(m, zero), one));
      g0 = _mm256_and_ps(ok, _mm256_mul_ps(c, ar)); g1 = _mm256_and_ps(ok, _mm256_mul_ps(c, ag));
      g2 = _mm256_and_ps(ok, _mm256_mul_ps(c, ab));
      g3 = _mm256_and_ps(ok, _mm256_sub_ps(_mm256_mul_ps(c, dot), over));
    }
    m = smin(smax(m, zero), one);
    m = sel(_mm256_cmp_ps(m, m, _CMP_EQ_OQ), m, zero);
    /* a label of 0 or 1 (not settled: the previous matte differs) keeps it */
    m = sel(is1, one, sel(is0, zero, m));
    flat = sel(label01, one, flat);
    g0 = _mm256_andnot_ps(label01, g0); g1 = _mm256_andnot_ps(label01, g1);
    g2 = _mm256_andnot_ps(label01, g2); g3 = _mm256_andnot_ps(label01, g3);
    /* 2.6 (RefinePass.smoothed) */
    const __m256 active = _mm256_xor_ps(settled, _mm256_castsi256_ps(_mm256_set1_epi32(-1)));
    if (a->blend && a->colour_noise <= 0) {
      const __m256 w = smin(one, _mm256_add_ps(_mm256_set1_ps(a->base), _mm256_mul_ps(_mm256_set1_ps(a->gain),
                                                                                    sabs(_mm256_sub_ps(m, prev)))));
      m = _mm256_add_ps(prev, _mm256_mul_ps(w, _mm256_sub_ps(m, prev)));
    } else if (a->colour_noise > 0) {
      float *pg = a->previous_guide + o;
      __m256 held = zero;
      if (a->blend) {
        const __m256 noise = _mm256_set1_ps(a->colour_noise);
        const __m256 dm = sabs(_mm256_sub_ps(m, prev));
        const __m256 dc = smax(smax(sabs(_mm256_sub_ps(ir, _mm256_loadu_ps(pg))), sabs(_mm256_sub_ps(ig, _mm256_loadu_ps(pg + gs)))),
                               sabs(_mm256_sub_ps(ib, _mm256_loadu_ps(pg + 2 * gs))));
        __m256 tolerance;
        if (a->colour_slack > 0) {
          const int first = x == 0, last = x + 8 == gw;
          const __m256 s = _mm256_mul_ps(half, smax(smax(slope(a->grid, o, first, last, a->up, a->down),
                                                         slope(a->grid + gn, o, first, last, a->up, a->down)),
                                                    slope(a->grid + 2 * gn, o, first, last, a->up, a->down)));
          tolerance = _mm256_add_ps(noise, _mm256_mul_ps(_mm256_set1_ps(a->colour_slack), s));
        } else {
          tolerance = _mm256_set1_ps(a->colour_noise + 0.0f);
        }
        const __m256 moved = smin(one, _mm256_div_ps(smax(zero, _mm256_sub_ps(dc, tolerance)), noise));
        held = _mm256_cmp_ps(dm, _mm256_mul_ps(_mm256_set1_ps(a->hold), _mm256_sub_ps(one, moved)), _CMP_LE_OQ);
        const __m256 kept = _mm256_add_ps(prev, _mm256_mul_ps(_mm256_set1_ps(a->leak), _mm256_sub_ps(m, prev)));
        const __m256 w = smin(one, _mm256_add_ps(_mm256_add_ps(_mm256_set1_ps(a->base),
                                                               _mm256_mul_ps(_mm256_set1_ps(a->gain), dm)), moved));
        const __m256 followed = _mm256_add_ps(prev, _mm256_mul_ps(w, _mm256_sub_ps(m, prev)));
        m = sel(held, kept, followed);
      }
      const __m256i store = _mm256_castps_si256(_mm256_andnot_ps(held, active));
      _mm256_maskstore_ps(pg, store, ir); _mm256_maskstore_ps(pg + gs, store, ig); _mm256_maskstore_ps(pg + 2 * gs, store, ib);
    }
    /* 2.7, then the rest of 2.5's flat contrast */
    m = snapped(m);
    if (a->blend) _mm256_maskstore_ps(a->previous + o, _mm256_castps_si256(active), m);
    else _mm256_storeu_ps(a->previous + o, sel(settled, inner, m));
    const __m256 steep = _mm256_cmp_ps(flat, one, _CMP_NEQ_UQ);
    if (_mm256_movemask_ps(steep)) {
      const __m256 f = snapped(smin(smax(_mm256_add_ps(_mm256_mul_ps(_mm256_sub_ps(m, half), flat), half), zero), one));
      m = sel(steep, f, m);
    }
    _mm256_storeu_ps(a->dst + o, sel(settled, inner, m));
    if (edged) {
      _mm256_maskstore_ps(a->out + o, _mm256_castps_si256(settled), inner);
      _mm256_storeu_ps(a->settled + o, _mm256_and_ps(settled, one));
      /* (a first half left unwritten above) */
      if ((x & 15) == 8 && !a->blocks[x >> 4]) _mm256_storeu_ps(a->settled + o - 8, one);
    }
    if (a->detail) {
      __m128 r0 = _mm256_castps256_ps128(g0), r1 = _mm256_castps256_ps128(g1);
      __m128 r2 = _mm256_castps256_ps128(g2), r3 = _mm256_castps256_ps128(g3);
      _MM_TRANSPOSE4_PS(r0, r1, r2, r3);
      __m128 h0 = _mm256_extractf128_ps(g0, 1), h1 = _mm256_extractf128_ps(g1, 1);
      __m128 h2 = _mm256_extractf128_ps(g2, 1), h3 = _mm256_extractf128_ps(g3, 1);
      _MM_TRANSPOSE4_PS(h0, h1, h2, h3);
      const __m128 v[8] = {r0, r1, r2, r3, h0, h1, h2, h3};
      float *d = a->detail + 4 * o;
      for (int j = 0; j < 8; j++) {
        if (overlap || !((sm >> j) & 1)) _mm_storeu_ps(d + 4 * j, v[j]);
      }
    }
    const int ns = ~sm & 0xff;
    if (new_lo == gw) new_lo = x + __builtin_ctz(ns);
    new_hi = x + 31 - __builtin_clz(ns);
    if (edged) a->blocks[x >> 4] = 1;
  }
  a->new_lo = new_lo;
  a->new_hi = new_hi;
  return x;
}

/* RefinePass.edge (2.8) on one grid row, eight pixels per step */
__attribute__((target("avx2")))
int dm_edge_row_avx2(const DMEdgeRow *a)
{
  const int gw = a->gw;
  const __m256 one = _mm256_set1_ps(1), zero = _mm256_setzero_ps(), half = _mm256_set1_ps(0.5f);
  const __m256 two = _mm256_set1_ps(2), contrast = _mm256_set1_ps(a->contrast), gate = _mm256_set1_ps(a->gate);
  int x = 0;
  for (; x + 8 <= gw; x += 8) {
    if ((x & 15) == 0 && a->blocks[x >> 4] == 0) { x += 8; continue; }
    const intptr_t o = a->o + x;
    const __m256 todo = _mm256_cmp_ps(_mm256_loadu_ps(a->settled + o), one, _CMP_NEQ_UQ);
    if (!_mm256_movemask_ps(todo)) continue;
    const float *raw = a->raw;
    const __m256 v0 = _mm256_loadu_ps(raw + o);
    __m256 u = one;
    if (a->gate > 0) {
      int idx[8];
      for (int j = 0; j < 8; j++) { const int c = (x + j) / a->k; idx[j] = c < a->dw - 1 ? c : a->dw - 1; }
      const __m256 c = _mm256_i32gather_ps(a->confidence, _mm256_loadu_si256((const __m256i *)idx), 4);
      u = smin(one, _mm256_mul_ps(_mm256_sub_ps(one, c), gate));
    }
    const int first = x == 0, last = x + 8 == gw;
#define ACROSS(d) ({ __m256 l_ = _mm256_loadu_ps(raw + o + (d) - 1), r_ = _mm256_loadu_ps(raw + o + (d) + 1); \
                     const __m256 c_ = _mm256_loadu_ps(raw + o + (d)); \
                     if (first) l_ = _mm256_blend_ps(l_, c_, 0x01); \
                     if (last) r_ = _mm256_blend_ps(r_, c_, 0x80); \
                     _mm256_add_ps(_mm256_add_ps(l_, _mm256_mul_ps(two, c_)), r_); })
    const __m256 smooth = _mm256_mul_ps(_mm256_add_ps(_mm256_add_ps(ACROSS(a->up), _mm256_mul_ps(two, ACROSS(0))), ACROSS(a->down)),
                                        _mm256_set1_ps(0.0625f));
#undef ACROSS
    const __m256 e = smin(smax(_mm256_add_ps(_mm256_mul_ps(_mm256_sub_ps(smooth, half), contrast), half), zero), one);
    __m256 v = _mm256_add_ps(v0, _mm256_mul_ps(u, _mm256_sub_ps(e, v0)));
    if (a->keep_side) {
      const __m256 t = _mm256_add_ps(_mm256_set1_ps(0.25f), _mm256_mul_ps(half, v0));
      v = sel(_mm256_cmp_ps(v0, half, _CMP_GE_OQ), smax(v, t), smin(v, t));
    }
    v = sel(_mm256_cmp_ps(u, zero, _CMP_GT_OQ), snapped(v), v0);
    _mm256_maskstore_ps(a->out + o, _mm256_castps_si256(todo), v);
  }
  return x;
}

#else

int dm_output_row_avx2(DMOutputRow *a)
{
  a->new_lo = a->gw;
  a->new_hi = -1;
  return 0;
}

int dm_edge_row_avx2(const DMEdgeRow *a) { (void)a; return 0; }

#endif
