/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The guided refiner's per-pixel passes at depth resolution with AVX2, eight
 * pixels per step: the Swift kernels' expressions lane by lane and in their
 * order (compiled without FP contraction), so the results are the same to
 * the bit. */
#include "dmkernels.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>

__attribute__((target("avx2")))
intptr_t dm_label_mean_row_avx2(const int32_t *a, const int32_t *b, float *out, intptr_t x, intptr_t end,
                                int r, double scale)
{
  const __m256d s = _mm256_set1_pd(scale);
#define L(p, i) _mm256_loadu_si256((const __m256i *)((p) + (i)))
  for (; x + 8 <= end; x += 8) {
    const __m256i c = _mm256_add_epi32(_mm256_sub_epi32(_mm256_sub_epi32(L(b, x + r + 1), L(b, x - r)), L(a, x + r + 1)),
                                       L(a, x - r));
    const __m256d lo = _mm256_mul_pd(_mm256_cvtepi32_pd(_mm256_castsi256_si128(c)), s);
    const __m256d hi = _mm256_mul_pd(_mm256_cvtepi32_pd(_mm256_extracti128_si256(c, 1)), s);
    _mm256_storeu_ps(out + x, _mm256_set_m128(_mm256_cvtpd_ps(hi), _mm256_cvtpd_ps(lo)));
  }
#undef L
  return x;
}

#else

intptr_t dm_label_mean_row_avx2(const int32_t *a, const int32_t *b, float *out, intptr_t x, intptr_t end,
                                int r, double scale)
{
  (void)a; (void)b; (void)out; (void)end; (void)r; (void)scale;
  return x;
}

#endif
