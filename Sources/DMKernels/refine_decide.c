/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* RefinePass.decide's search for the nearest trusted colour of each side
 * (MatteRefiner+Decide.swift, nearestTrusted) with AVX2, eight row pixels
 * per step: each distance summed as the Swift code's (compiled without FP
 * contraction); a minimum does not depend on the order, so the result is the
 * same to the bit. */
#include "dmkernels.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>

/* The nearest distance on each side over row pixels a ... b (masked loads
 * for the last step: nothing is read past b). */
__attribute__((target("avx2"))) static inline void
scan(const float *weight, const float *fill, const float *lr, const float *lg, const float *lb, intptr_t a,
     intptr_t b, __m256 R, __m256 G, __m256 B, __m256 *bf, __m256 *bb)
{
  const __m256 one = _mm256_set1_ps(1.0f);
  const __m256i iota = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  for (intptr_t j = a; j <= b; j += 8) {
    const intptr_t n = b + 1 - j;
    __m256 w, f, r, g, bl;
    if (n >= 8) {
      w = _mm256_loadu_ps(weight + j);
      if (_mm256_movemask_ps(_mm256_cmp_ps(w, one, _CMP_EQ_OQ)) == 0) continue;
      f = _mm256_loadu_ps(fill + j);
      r = _mm256_loadu_ps(lr + j); g = _mm256_loadu_ps(lg + j); bl = _mm256_loadu_ps(lb + j);
    } else {
      const __m256i m = _mm256_cmpgt_epi32(_mm256_set1_epi32((int)n), iota);
      w = _mm256_maskload_ps(weight + j, m);  /* (masked lanes 0: not trusted) */
      if (_mm256_movemask_ps(_mm256_cmp_ps(w, one, _CMP_EQ_OQ)) == 0) continue;
      f = _mm256_maskload_ps(fill + j, m);
      r = _mm256_maskload_ps(lr + j, m); g = _mm256_maskload_ps(lg + j, m); bl = _mm256_maskload_ps(lb + j, m);
    }
    const __m256 trusted = _mm256_cmp_ps(w, one, _CMP_EQ_OQ);
    const __m256 dr = _mm256_sub_ps(r, R), dg = _mm256_sub_ps(g, G), db = _mm256_sub_ps(bl, B);
    const __m256 dist = _mm256_add_ps(_mm256_add_ps(_mm256_mul_ps(dr, dr), _mm256_mul_ps(dg, dg)), _mm256_mul_ps(db, db));
    const __m256 front = _mm256_cmp_ps(f, one, _CMP_EQ_OQ);
    const __m256 tf = _mm256_and_ps(trusted, front), tb = _mm256_andnot_ps(front, trusted);
    *bf = _mm256_blendv_ps(*bf, dist, _mm256_and_ps(tf, _mm256_cmp_ps(dist, *bf, _CMP_LT_OQ)));
    *bb = _mm256_blendv_ps(*bb, dist, _mm256_and_ps(tb, _mm256_cmp_ps(dist, *bb, _CMP_LT_OQ)));
  }
}

__attribute__((target("avx2"))) static inline float
hmin(__m256 v)
{
  __m128 m = _mm_min_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  m = _mm_min_ps(m, _mm_movehl_ps(m, m));
  m = _mm_min_ss(m, _mm_shuffle_ps(m, m, 1));
  return _mm_cvtss_f32(m);
}

__attribute__((target("avx2")))
int dm_nearest_trusted_avx2(const float *weight, const float *fill, const float *lr, const float *lg,
                            const float *lb, intptr_t dw, intptr_t dh, intptr_t x, intptr_t y, int sr,
                            int max_reach, int match_widening, float match_noise, float r, float g, float b,
                            float *out_bf, float *out_bb)
{
  const __m256 R = _mm256_set1_ps(r), G = _mm256_set1_ps(g), B = _mm256_set1_ps(b);
  __m256 bf8 = _mm256_set1_ps(__builtin_inff()), bb8 = bf8;
  float bf = __builtin_inff(), bb = __builtin_inff();
  intptr_t reach = sr, searched = -1, max = max_reach;
  int matched = 0;
  while (reach <= max) {
    const intptr_t y0 = y - reach > 0 ? y - reach : 0, y1 = y + reach < dh - 1 ? y + reach : dh - 1;
    const intptr_t xs = x - reach > 0 ? x - reach : 0, xe = x + reach < dw - 1 ? x + reach : dw - 1;
    for (intptr_t yy = y0; yy <= y1; yy++) {
      const intptr_t row = yy * dw;
      const intptr_t d = yy - y < 0 ? y - yy : yy - y;
      if (d <= searched) {
        /* the part of the row already searched is skipped */
        const intptr_t e = xe < x - searched - 1 ? xe : x - searched - 1;
        const intptr_t s = xs > x + searched + 1 ? xs : x + searched + 1;
        scan(weight, fill, lr, lg, lb, row + xs, row + e, R, G, B, &bf8, &bb8);
        scan(weight, fill, lr, lg, lb, row + s, row + xe, R, G, B, &bf8, &bb8);
      } else {
        scan(weight, fill, lr, lg, lb, row + xs, row + xe, R, G, B, &bf8, &bb8);
      }
    }
    const float mf = hmin(bf8), mb = hmin(bb8);
    bf = mf < bf ? mf : bf; bb = mb < bb ? mb : bb;
    if (bf < __builtin_inff() && bb < __builtin_inff()) break;
    if (reach == sr && max == sr && match_widening && (bb < bf ? bb : bf) <= match_noise) {
      max = 3 * (intptr_t)sr;
      matched = 1;
    }
    searched = reach;
    reach += sr;
  }
  *out_bf = bf; *out_bb = bb;
  return matched;
}

/* RefinePass.trust's flags of one row (MatteRefiner+Trust.swift). */
__attribute__((target("avx2")))
intptr_t dm_trust_row_avx2(const uint8_t *label, const float *boxed, const float *mb, float *weight, intptr_t n,
                           uint8_t unknown, float uw, int32_t *ring)
{
  const __m256 one = _mm256_set1_ps(1.0f), zero = _mm256_setzero_ps(), u = _mm256_set1_ps(uw);
  const __m256i unk = _mm256_set1_epi32(unknown);
  intptr_t count = 0, x = 0;
  for (; x + 8 <= n; x += 8) {
    const __m256i l = _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)(label + x)));
    const __m256 known = _mm256_castsi256_ps(_mm256_cmpeq_epi32(l, unk));  /* (inverted below) */
    const __m256 m = _mm256_loadu_ps(boxed + x), b = _mm256_loadu_ps(mb + x);
    const __m256 m1 = _mm256_cmp_ps(m, one, _CMP_EQ_OQ), m0 = _mm256_cmp_ps(m, zero, _CMP_EQ_OQ);
    const __m256 trusted = _mm256_andnot_ps(known, _mm256_or_ps(m1, _mm256_cmp_ps(b, zero, _CMP_EQ_OQ)));
    _mm256_storeu_ps(weight + x, _mm256_blendv_ps(u, one, trusted));
    unsigned bits = (unsigned)_mm256_movemask_ps(_mm256_andnot_ps(_mm256_or_ps(m0, m1), trusted));
    while (bits) {
      ring[count++] = (int32_t)(x + __builtin_ctz(bits));
      bits &= bits - 1;
    }
  }
  for (; x < n; x++) {
    const float m = boxed[x];
    const int trusted = label[x] != unknown && (m == 1 || mb[x] == 0);
    weight[x] = trusted ? 1 : uw;
    if (trusted && m != 0 && m != 1) ring[count++] = (int32_t)x;
  }
  return count;
}

/* RefinePass.labelTable's row: out[x] = above[x] + the sum of Int32(row[0 ... x]),
 * eight columns a step (integer sums, wrapping as the Swift code's &+). */
__attribute__((target("avx2")))
void dm_label_table_row_avx2(const float *row, const int32_t *above, int32_t *out, intptr_t w)
{
  __m256i run = _mm256_setzero_si256();
  const __m256i last = _mm256_set1_epi32(7), mid = _mm256_setr_epi32(0, 0, 0, 0, 3, 3, 3, 3);
  intptr_t x = 0;
  for (; x + 8 <= w; x += 8) {
    __m256i v = _mm256_cvttps_epi32(_mm256_loadu_ps(row + x));
    v = _mm256_add_epi32(v, _mm256_slli_si256(v, 4));
    v = _mm256_add_epi32(v, _mm256_slli_si256(v, 8));
    /* (the low half's total into the high half) */
    const __m256i low = _mm256_blend_epi32(_mm256_setzero_si256(), _mm256_permutevar8x32_epi32(v, mid), 0xf0);
    v = _mm256_add_epi32(_mm256_add_epi32(v, low), run);
    _mm256_storeu_si256((__m256i *)(out + x),
                        _mm256_add_epi32(_mm256_loadu_si256((const __m256i *)(above + x)), v));
    run = _mm256_permutevar8x32_epi32(v, last);
  }
  uint32_t r = (uint32_t)_mm256_cvtsi256_si32(run);
  for (; x < w; x++) {
    r += (uint32_t)(int32_t)row[x];
    out[x] = (int32_t)((uint32_t)above[x] + r);
  }
}

#else

int dm_nearest_trusted_avx2(const float *weight, const float *fill, const float *lr, const float *lg,
                            const float *lb, intptr_t dw, intptr_t dh, intptr_t x, intptr_t y, int sr,
                            int max_reach, int match_widening, float match_noise, float r, float g, float b,
                            float *out_bf, float *out_bb)
{
  (void)weight; (void)fill; (void)lr; (void)lg; (void)lb; (void)dw; (void)dh; (void)x; (void)y; (void)sr;
  (void)max_reach; (void)match_widening; (void)match_noise; (void)r; (void)g; (void)b;
  *out_bf = __builtin_inff(); *out_bb = __builtin_inff();
  return 0;
}


intptr_t dm_trust_row_avx2(const uint8_t *label, const float *boxed, const float *mb, float *weight, intptr_t n,
                           uint8_t unknown, float uw, int32_t *ring)
{
  (void)label; (void)boxed; (void)mb; (void)weight; (void)n; (void)unknown; (void)uw; (void)ring;
  return 0;
}


void dm_label_table_row_avx2(const float *row, const int32_t *above, int32_t *out, intptr_t w)
{
  (void)row; (void)above; (void)out; (void)w;
}

#endif
