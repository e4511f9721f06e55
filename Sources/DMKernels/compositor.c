/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The compositor's word path with AVX2 (MatteCompositor+Rows.swift): the
 * uniform runs eight 32-bit pixels per store, whole cache lines of a large
 * frame with non-temporal stores (an 8 MB fill takes 0.37 ms streamed
 * against 0.63 ms through the cache, which first reads every line it
 * writes); and an edge run's colour detail (MatteDetail.add) and blend
 * (EdgeBlend.run) eight pixels per step. The arithmetic is the Swift
 * code's, lane by lane and in its order (compiled without FP contraction):
 * the output is the same to the bit. */
#include "dmkernels.h"

#include <string.h>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>

__attribute__((target("avx2")))
void dm_fill_words_avx2(uint32_t *out, const uint32_t *src, intptr_t n, uint32_t and_mask, uint32_t or_mask,
                        int stream)
{
  const __m256i am = _mm256_set1_epi32((int)and_mask), om = _mm256_set1_epi32((int)or_mask);
  intptr_t i = 0;
#define WORDS(i) (src ? _mm256_or_si256(_mm256_and_si256(_mm256_loadu_si256((const __m256i *)(src + (i))), am), om) : om)
  if (stream && ((uintptr_t)out & 3) == 0) {
    /* ordinary stores up to the first 64-byte line, then whole lines streamed */
    const intptr_t head = (intptr_t)((-(uintptr_t)out & 63) / 4);
    if (head + 16 <= n) {
      for (; i < head; i++) out[i] = (src ? src[i] & and_mask : 0) | or_mask;
      for (; i + 16 <= n; i += 16) {
        _mm256_stream_si256((__m256i *)(out + i), WORDS(i));
        _mm256_stream_si256((__m256i *)(out + i + 8), WORDS(i + 8));
      }
    }
  }
  for (; i + 8 <= n; i += 8) _mm256_storeu_si256((__m256i *)(out + i), WORDS(i));
  for (; i < n; i++) {
    uint32_t s = 0;
    if (src) memcpy(&s, src + i, 4);
    s = (s & and_mask) | or_mask;
    memcpy(out + i, &s, 4);
  }
#undef WORDS
}

void dm_store_fence(void) { _mm_sfence(); }

/* Eight pixels from x: the detail added to the matte m (when `detail`), then
 * the blend; the covered count of the lanes in `lanes` (a bit each). */
__attribute__((target("avx2"))) static inline __m256i
edge8(__m256 m, __m256i v, __m256i g, const DMEdgeDetail *detail,
      const int32_t *columns, const float *weights, uint32_t alpha_mask, int alpha_shift, int mode, int lanes,
      intptr_t *covered)
{
  const __m256i bytes = _mm256_set1_epi32(0xff);
  if (detail) {
    const __m256i c0 = _mm256_loadu_si256((const __m256i *)columns);
    const __m256i c1 = _mm256_min_epi32(_mm256_add_epi32(c0, _mm256_set1_epi32(1)), _mm256_set1_epi32(detail->width - 1));
    const __m256 tx = _mm256_loadu_ps(weights), ty = _mm256_set1_ps(detail->ty);
    int32_t i0[8], i1[8];
    _mm256_storeu_si256((__m256i *)i0, _mm256_slli_epi32(c0, 2));
    _mm256_storeu_si256((__m256i *)i1, _mm256_slli_epi32(c1, 2));
    const float *r0 = detail->r0, *r1 = detail->r1;
    __m256 d[4];
    /* register p holds pixels p and p + 4: (gR, gG, gB, offset) each */
    for (int p = 0; p < 4; p++) {
#define PAIR(row, ix) _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_loadu_ps((row) + ix[p])), _mm_loadu_ps((row) + ix[p + 4]), 1)
      const __m256 a0 = PAIR(r0, i0), a1 = PAIR(r0, i1), b0 = PAIR(r1, i0), b1 = PAIR(r1, i1);
#undef PAIR
      const __m256 t = _mm256_permutevar8x32_ps(tx, _mm256_setr_epi32(p, p, p, p, p + 4, p + 4, p + 4, p + 4));
      const __m256 top = _mm256_add_ps(a0, _mm256_mul_ps(_mm256_sub_ps(a1, a0), t));
      const __m256 bottom = _mm256_add_ps(b0, _mm256_mul_ps(_mm256_sub_ps(b1, b0), t));
      d[p] = _mm256_add_ps(top, _mm256_mul_ps(_mm256_sub_ps(bottom, top), ty));
    }
    const __m256 t0 = _mm256_unpacklo_ps(d[0], d[1]), t1 = _mm256_unpacklo_ps(d[2], d[3]);
    const __m256 t2 = _mm256_unpackhi_ps(d[0], d[1]), t3 = _mm256_unpackhi_ps(d[2], d[3]);
    const __m256 gr = _mm256_shuffle_ps(t0, t1, 0x44), gg = _mm256_shuffle_ps(t0, t1, 0xee);
    const __m256 gb = _mm256_shuffle_ps(t2, t3, 0x44), off = _mm256_shuffle_ps(t2, t3, 0xee);
#define CH(shift) _mm256_cvtepi32_ps(_mm256_and_si256(_mm256_srl_epi32(v, _mm_cvtsi32_si128(shift)), bytes))
    const __m256 R = CH(detail->shift_r), G = CH(detail->shift_g), B = CH(detail->shift_b);
#undef CH
    __m256 s = _mm256_add_ps(_mm256_mul_ps(gr, R), _mm256_mul_ps(gg, G));
    s = _mm256_add_ps(s, _mm256_mul_ps(gb, B));
    s = _mm256_mul_ps(s, _mm256_set1_ps(1.0f / 255.0f));
    /* (where the detail is 0 the Swift code keeps m as it is: m + 0 - 0 is m) */
    m = _mm256_sub_ps(_mm256_add_ps(m, s), off);
  }
  const __m256 zero = _mm256_setzero_ps(), one = _mm256_set1_ps(1);
  const int gt = _mm256_movemask_ps(_mm256_cmp_ps(m, _mm256_set1_ps(0.5f), _CMP_GT_OQ)) & lanes;
  *covered += __builtin_popcount((unsigned)gt);
  /* round(255 c), c clamped to [0, 1]: floor(255 c + 0.5) */
  const __m256 c = _mm256_min_ps(_mm256_max_ps(m, zero), one);
  const __m256i a = _mm256_cvttps_epi32(_mm256_add_ps(_mm256_mul_ps(c, _mm256_set1_ps(255)), _mm256_set1_ps(0.5f)));
  const __m256i mask = _mm256_set1_epi32((int)alpha_mask);
  if (mode == 1) {
    const __m256i a2 = _mm256_or_si256(a, _mm256_slli_epi32(a, 8));
    return _mm256_or_si256(_mm256_or_si256(a2, _mm256_slli_epi32(a2, 16)), mask);
  }
  if (mode == 2)
    return _mm256_or_si256(_mm256_andnot_si256(mask, v), _mm256_sll_epi32(a, _mm_cvtsi32_si128(alpha_shift)));
  /* v a + g (255 - a), rounded / 255, bytes 0 and 2 then 1 and 3 in 16-bit lanes */
  const __m256i lo8 = _mm256_set1_epi32(0x00ff00ff), r128 = _mm256_set1_epi16(0x80);
  const __m256i aa = _mm256_or_si256(a, _mm256_slli_epi32(a, 16)), ia = _mm256_sub_epi32(lo8, aa);
  __m256i lo = _mm256_add_epi16(_mm256_mullo_epi16(_mm256_and_si256(v, lo8), aa),
                                _mm256_mullo_epi16(_mm256_and_si256(g, lo8), ia));
  __m256i hi = _mm256_add_epi16(_mm256_mullo_epi16(_mm256_and_si256(_mm256_srli_epi32(v, 8), lo8), aa),
                                _mm256_mullo_epi16(_mm256_and_si256(_mm256_srli_epi32(g, 8), lo8), ia));
  lo = _mm256_add_epi16(lo, r128); hi = _mm256_add_epi16(hi, r128);
  lo = _mm256_srli_epi16(_mm256_add_epi16(lo, _mm256_srli_epi16(lo, 8)), 8);
  hi = _mm256_srli_epi16(_mm256_add_epi16(hi, _mm256_srli_epi16(hi, 8)), 8);
  return _mm256_or_si256(_mm256_or_si256(lo, _mm256_slli_epi32(hi, 8)), mask);
}

__attribute__((target("avx2")))
intptr_t dm_edge_blend_avx2(const float *matte, intptr_t x0, intptr_t x1, const uint32_t *video,
                            const uint32_t *background, uint32_t color, uint32_t alpha_mask, int alpha_shift,
                            uint32_t *out, int mode, const DMEdgeDetail *detail, intptr_t video_ahead,
                            intptr_t out_ahead)
{
  intptr_t covered = 0, x = x0;
  const __m256i colour = _mm256_set1_epi32((int)color);
  const int32_t *columns = detail ? detail->columns : NULL;
  const float *weights = detail ? detail->weights : NULL;
  if (video_ahead) {
    /* the lines of this run's columns a few rows on, video and output (and the
     * video's first lines past the run): the next rows' edge is about here, where
     * their reads start, before the hardware prefetcher's streams */
    const char *p = (const char *)(video + x0) + video_ahead, *e = (const char *)(video + x1) + video_ahead + 256;
    for (p = (const char *)((uintptr_t)p & ~(uintptr_t)63); p < e; p += 64) _mm_prefetch(p, _MM_HINT_T0);
    p = (const char *)(out + x0) + out_ahead; e = (const char *)(out + x1) + out_ahead;
    for (p = (const char *)((uintptr_t)p & ~(uintptr_t)63); p < e; p += 64) _mm_prefetch(p, _MM_HINT_ET0);
  }
  for (; x + 8 <= x1; x += 8) {
    const __m256i v = _mm256_loadu_si256((const __m256i *)(video + x));
    const __m256i g = background ? _mm256_loadu_si256((const __m256i *)(background + x)) : colour;
    const __m256i r = edge8(_mm256_loadu_ps(matte + x), v, g, detail, columns ? columns + x : NULL,
                            weights ? weights + x : NULL, alpha_mask, alpha_shift, mode, 0xff, &covered);
    _mm256_storeu_si256((__m256i *)(out + x), r);
  }
  if (x < x1) {
    /* the last 1 to 7 pixels through the same lanes: copied out and padded
     * (grid column 0, weight 0, matte 0), only the first n written back */
    const int n = (int)(x1 - x);
    float m[8] = {0}, w[8] = {0};
    uint32_t v[8] = {0}, g[8], o[8];
    int32_t c[8] = {0};
    memcpy(m, matte + x, 4 * (size_t)n);
    memcpy(v, video + x, 4 * (size_t)n);
    for (int i = 0; i < 8; i++) g[i] = color;
    if (background) memcpy(g, background + x, 4 * (size_t)n);
    if (detail) { memcpy(c, columns + x, 4 * (size_t)n); memcpy(w, weights + x, 4 * (size_t)n); }
    const __m256i r = edge8(_mm256_loadu_ps(m), _mm256_loadu_si256((const __m256i *)v),
                            _mm256_loadu_si256((const __m256i *)g), detail, c, w, alpha_mask, alpha_shift,
                            mode, (1 << n) - 1, &covered);
    _mm256_storeu_si256((__m256i *)o, r);
    memcpy(out + x, o, 4 * (size_t)n);
  }
  return covered;
}

#else

void dm_fill_words_avx2(uint32_t *out, const uint32_t *src, intptr_t n, uint32_t and_mask, uint32_t or_mask,
                        int stream)
{
  (void)out; (void)src; (void)n; (void)and_mask; (void)or_mask; (void)stream;
}

void dm_store_fence(void) {}

intptr_t dm_edge_blend_avx2(const float *matte, intptr_t x0, intptr_t x1, const uint32_t *video,
                            const uint32_t *background, uint32_t color, uint32_t alpha_mask, int alpha_shift,
                            uint32_t *out, int mode, const DMEdgeDetail *detail, intptr_t video_ahead,
                            intptr_t out_ahead)
{
  (void)video_ahead; (void)out_ahead; (void)matte; (void)x0; (void)x1; (void)video; (void)background; (void)color; (void)alpha_mask;
  (void)alpha_shift; (void)out; (void)mode; (void)detail;
  return 0;
}

#endif
