/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The depth-only lock's floor test (DepthComponents.markFloorLike) with
 * AVX2: eight cells of a row at once, each lane doing the Swift loop's
 * arithmetic in its order (compiled without FP contraction); a cell
 * without a reading in the window adds +0 to each sum, which leaves it as
 * it is, and a step that is no longer smooth only clears the lane. */
#include "dmkernels.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>

__attribute__((target("avx2")))
void dm_floor_like_avx2(const float *d, uint8_t *f, int w, int h, int t, float k,
                        float jump_base, float jump_gain)
{
  const __m256 zero = _mm256_setzero_ps(), one = _mm256_set1_ps(1.0f), four = _mm256_set1_ps(4.0f);
  const __m256 base = _mm256_set1_ps(jump_base), gain = _mm256_set1_ps(jump_gain);
  const __m256 kk = _mm256_set1_ps(k), tf = _mm256_set1_ps((float)t);
  const __m256 magnitude = _mm256_castsi256_ps(_mm256_set1_epi32(0x7fffffff));
  const int w8 = w & ~7;
  for (int y = t; y < h - t; y++) {
    for (int x = 0; x < w8; x += 8) {
      const float *c = d + (intptr_t)y * w + x;
      const __m256 v = _mm256_loadu_ps(c);
      __m256 m = zero, sk = zero, skk = zero, sd = zero, skd = zero, prev = zero, rough = zero;
      for (int j = -t; j <= t; j++) {
        const __m256 a = _mm256_loadu_ps(c + (intptr_t)j * w);
        const __m256 valid = _mm256_cmp_ps(a, zero, _CMP_GT_OQ);
        /* |a - prev| >= jump(min(a, prev)), Swift's min: prev < a ? prev : a */
        const __m256 diff = _mm256_and_ps(_mm256_sub_ps(a, prev), magnitude);
        const __m256 lo = _mm256_blendv_ps(a, prev, _mm256_cmp_ps(prev, a, _CMP_LT_OQ));
        const __m256 jump = _mm256_add_ps(base, _mm256_mul_ps(gain, lo));
        const __m256 step = _mm256_and_ps(_mm256_cmp_ps(prev, zero, _CMP_GT_OQ), _mm256_cmp_ps(diff, jump, _CMP_GE_OQ));
        rough = _mm256_or_ps(rough, _mm256_and_ps(valid, step));
        prev = _mm256_blendv_ps(prev, a, valid);
        const float fj = (float)j;
        const __m256 vj = _mm256_set1_ps(fj);
        m = _mm256_add_ps(m, _mm256_and_ps(valid, one));
        sk = _mm256_add_ps(sk, _mm256_and_ps(valid, vj));
        skk = _mm256_add_ps(skk, _mm256_and_ps(valid, _mm256_set1_ps(fj * fj)));
        sd = _mm256_add_ps(sd, _mm256_and_ps(valid, a));
        skd = _mm256_add_ps(skd, _mm256_and_ps(valid, _mm256_mul_ps(vj, a)));
      }
      const __m256 den = _mm256_sub_ps(_mm256_mul_ps(m, skk), _mm256_mul_ps(sk, sk));
      const __m256 lhs = _mm256_mul_ps(four, _mm256_sub_ps(_mm256_mul_ps(sk, sd), _mm256_mul_ps(m, skd)));
      const __m256 rhs = _mm256_mul_ps(_mm256_mul_ps(kk, v), den);
      __m256 ok = _mm256_andnot_ps(rough, _mm256_cmp_ps(v, zero, _CMP_GT_OQ));
      ok = _mm256_and_ps(ok, _mm256_cmp_ps(m, tf, _CMP_GT_OQ));
      ok = _mm256_and_ps(ok, _mm256_cmp_ps(den, zero, _CMP_GT_OQ));
      ok = _mm256_and_ps(ok, _mm256_cmp_ps(lhs, rhs, _CMP_GE_OQ));
      int bits = _mm256_movemask_ps(ok);
      uint8_t *o = f + (intptr_t)y * w + x;
      for (int l = 0; l < 8; l++) o[l] = (uint8_t)((bits >> l) & 1);
    }
  }
}

#else
void dm_floor_like_avx2(const float *d, uint8_t *f, int w, int h, int t, float k,
                        float jump_base, float jump_gain)
{
  (void)d; (void)f; (void)w; (void)h; (void)t; (void)k; (void)jump_base; (void)jump_gain;
}
#endif
