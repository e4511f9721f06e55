/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The guided filter's window means of four interleaved planes with AVX2:
 * one 256-bit register holds a pixel's four sums in double, so each step of
 * a row's sliding sum is one add and one subtract for four planes. The
 * arithmetic is MatteRefiner.boxMean4's, lane by lane and in its order
 * (compiled without FP contraction): the means are the same to the bit. */
#include "dmkernels.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>

int dm_kernels_have_avx2(void)
{
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx2") ? 1 : 0;
}

static inline int imin(int a, int b) { return a < b ? a : b; }
static inline int imax(int a, int b) { return a > b ? a : b; }

/* A pixel's four values of `src`, or with group 1 ... 3 the fit's products
 * of that group from group 0's (R, G, B, p) (RefinePass.products' multiplies);
 * `source`: the same in double */
__attribute__((target("avx2"))) static inline __m128 product(const float *p, intptr_t x, int group)
{
  __m128 v = _mm_loadu_ps(p + 4 * x);
  if (group == 1) v = _mm_mul_ps(_mm_shuffle_ps(v, v, _MM_SHUFFLE(0, 2, 1, 0)), _mm_shuffle_ps(v, v, _MM_SHUFFLE(0, 3, 3, 3)));
  if (group == 2) v = _mm_mul_ps(_mm_shuffle_ps(v, v, _MM_SHUFFLE(1, 1, 0, 0)), _mm_shuffle_ps(v, v, _MM_SHUFFLE(2, 1, 2, 1)));
  if (group == 3) v = _mm_mul_ps(_mm_shuffle_ps(v, v, _MM_SHUFFLE(3, 2, 3, 2)), _mm_shuffle_ps(v, v, _MM_SHUFFLE(3, 2, 3, 2)));
  return v;
}

__attribute__((target("avx2"))) static inline __m256d source(const float *p, intptr_t x, int group)
{
  return _mm256_cvtps_pd(product(p, x, group));
}

/* The horizontal sliding sums of rows y .. y + 3 into `tmp` (the last block
 * repeats the last row, which writes the same values twice): four rows side
 * by side, four chains of dependent adds in flight. `two` (box_mean2): lanes
 * 0 and 1 of rows y and y + 1 share a register, as do those of y + 2 and
 * y + 3, each lane in the same order; `tmp` holds two floats a pixel. */
__attribute__((target("avx2"))) static inline
void row_sums(const float *src, float *tmp, int w, int h, int r, int y, int group, int two, int xe)
{
  const int head = imin(r, w), add_end = imax(0, w - r), sub_start = imin(r + 1, w), f = two ? 2 : 4;
  const int y1 = imin(y + 1, h - 1), y2 = imin(y + 2, h - 1), y3 = imin(y + 3, h - 1);
  const float *p0 = src + 4 * (intptr_t)y * w, *p1 = src + 4 * (intptr_t)y1 * w;
  const float *p2 = src + 4 * (intptr_t)y2 * w, *p3 = src + 4 * (intptr_t)y3 * w;
  float *q0 = tmp + f * (intptr_t)y * w, *q1 = tmp + f * (intptr_t)y1 * w;
  float *q2 = tmp + f * (intptr_t)y2 * w, *q3 = tmp + f * (intptr_t)y3 * w;
  __m256d s0 = _mm256_setzero_pd(), s1 = s0, s2 = s0, s3 = s0;
#define LS(p, x) source(p, (intptr_t)(x), group)
  /* lanes 0 and 1 of two rows' values at column x */
#define PAIR(a, b, x) _mm256_cvtps_pd(_mm_movelh_ps(product(a, (intptr_t)(x), group), product(b, (intptr_t)(x), group)))
#define STEP(op, x) do { if (two) { s0 = op(s0, PAIR(p0, p1, x)); s1 = op(s1, PAIR(p2, p3, x)); } \
                         else { s0 = op(s0, LS(p0, x)); s1 = op(s1, LS(p1, x)); \
                                s2 = op(s2, LS(p2, x)); s3 = op(s3, LS(p3, x)); } } while (0)
  for (int x = 0; x < head; x++) STEP(_mm256_add_pd, x);
#define ENTER(x) STEP(_mm256_add_pd, (x) + r)
#define LEAVE(x) STEP(_mm256_sub_pd, (x) - r - 1)
#define STORE(x) do { const intptr_t i_ = f * (intptr_t)(x); \
                      if (two) { const __m128 a_ = _mm256_cvtpd_ps(s0), b_ = _mm256_cvtpd_ps(s1); \
                                 _mm_storel_pi((__m64 *)(q0 + i_), a_); _mm_storeh_pi((__m64 *)(q1 + i_), a_); \
                                 _mm_storel_pi((__m64 *)(q2 + i_), b_); _mm_storeh_pi((__m64 *)(q3 + i_), b_); } \
                      else { _mm_storeu_ps(q0 + i_, _mm256_cvtpd_ps(s0)); _mm_storeu_ps(q1 + i_, _mm256_cvtpd_ps(s1)); \
                             _mm_storeu_ps(q2 + i_, _mm256_cvtpd_ps(s2)); _mm_storeu_ps(q3 + i_, _mm256_cvtpd_ps(s3)); } } while (0)
  /* (the sums of columns 0 .. xe-1: each the same as over the whole row) */
  int x = 0;
  for (; x < imin(imin(add_end, sub_start), xe); x++) { ENTER(x); STORE(x); }
  if (add_end <= sub_start) {
    for (; x < imin(sub_start, xe); x++) STORE(x);
  } else {
    for (; x < imin(add_end, xe); x++) { ENTER(x); LEAVE(x); STORE(x); }
  }
  for (; x < xe; x++) { LEAVE(x); STORE(x); }
#undef ENTER
#undef LEAVE
#undef STORE
#undef STEP
#undef PAIR
#undef LS
}

/* box_mean4 for one or two lanes (the fit's group 3, BB and pp): lanes 0
 * and 1 of two rows (horizontal, `row_sums`) or of two columns (vertical)
 * share a register, each lane in the same order; `tmp` holds two floats a
 * pixel. Half the conversions and adds of four lanes: 0.11 ms at 320x180,
 * where four lanes take 0.19. */
__attribute__((target("avx2"))) static inline
void box_mean2(const float *src, float *dst, intptr_t plane_stride, int lanes,
               int w, int h, int r, float *tmp, double *sums, int group, int rows, int cols)
{
  const int xe = imin(cols, w), ye = imin(rows, h);
  for (int y = 0; y < imin(ye + r, h); y += 4) row_sums(src, tmp, w, h, r, y, group, 1, xe);
#define ROW2(j) (tmp + 2 * (intptr_t)(j) * w)
  /* two floats of a row of sums (one column) as doubles; four (two columns) */
#define LD1(p, x) _mm_cvtps_pd(_mm_castpd_ps(_mm_load_sd((const double *)((p) + 2 * (intptr_t)(x)))))
#define LD2(p, x) _mm256_cvtps_pd(_mm_loadu_ps((p) + 2 * (intptr_t)(x)))
  for (int x = 0; x < 2 * xe; x++) sums[x] = 0;
  for (int y = 0; y < imin(r, h); y++) {
    const float *t = ROW2(y);
    for (int x = 0; x < xe; x++) _mm_storeu_pd(sums + 2 * x, _mm_add_pd(_mm_loadu_pd(sums + 2 * x), LD1(t, x)));
  }
  const int inner_lo = imin(r, w), inner_hi = imax(inner_lo, w - r);
  float *d0 = dst, *d1 = dst + plane_stride;
  for (int y = 0; y < ye; y++) {
    const int ny = imin(y + r, h - 1) - imax(y - r, 0) + 1;
    const float *add = y + r < h ? ROW2(y + r) : 0;
    const float *sub = y - r - 1 >= 0 ? ROW2(y - r - 1) : 0;
    const intptr_t o = (intptr_t)y * w;
    const double scale = 1 / (double)((2 * r + 1) * ny);
#define SLIDE1(x, c) do { c = _mm_loadu_pd(sums + 2 * (x)); \
                          if (add) c = _mm_add_pd(c, LD1(add, x)); \
                          if (sub) c = _mm_sub_pd(c, LD1(sub, x)); \
                          _mm_storeu_pd(sums + 2 * (x), c); } while (0)
#define PUT1(x, v) do { const __m128 v_ = _mm_cvtpd_ps(v); d0[o + (x)] = _mm_cvtss_f32(v_); \
                        if (lanes > 1) d1[o + (x)] = _mm_cvtss_f32(_mm_shuffle_ps(v_, v_, 1)); } while (0)
#define CLIPPED1(x) do { __m128d c; SLIDE1(x, c); \
                         const int area = (imin((x) + r, w - 1) - imax((x) - r, 0) + 1) * ny; \
                         PUT1(x, _mm_div_pd(c, _mm_set1_pd((double)area))); } while (0)
#define SLIDE2(x, c) do { c = _mm256_loadu_pd(sums + 2 * (x)); \
                          if (add) c = _mm256_add_pd(c, LD2(add, x)); \
                          if (sub) c = _mm256_sub_pd(c, LD2(sub, x)); \
                          _mm256_storeu_pd(sums + 2 * (x), c); } while (0)
    for (int x = 0; x < imin(inner_lo, xe); x++) CLIPPED1(x);
    int x = inner_lo;
    const __m256d s4 = _mm256_set1_pd(scale);
    for (; x + 4 <= imin(inner_hi, xe); x += 4) {
      __m256d a, b;
      SLIDE2(x, a); SLIDE2(x + 2, b);
      const __m128 ra = _mm256_cvtpd_ps(_mm256_mul_pd(a, s4)), rb = _mm256_cvtpd_ps(_mm256_mul_pd(b, s4));
      _mm_storeu_ps(d0 + o + x, _mm_shuffle_ps(ra, rb, _MM_SHUFFLE(2, 0, 2, 0)));
      if (lanes > 1) _mm_storeu_ps(d1 + o + x, _mm_shuffle_ps(ra, rb, _MM_SHUFFLE(3, 1, 3, 1)));
    }
    for (; x < imin(inner_hi, xe); x++) { __m128d c; SLIDE1(x, c); PUT1(x, _mm_mul_pd(c, _mm_set1_pd(scale))); }
    for (x = inner_hi; x < xe; x++) CLIPPED1(x);
  }
}

__attribute__((target("avx2"))) static inline
void box_mean4(const float *src, float *dst, intptr_t plane_stride, int lanes,
               int w, int h, int r, float *tmp, double *sums, int group, int rows, int cols)
{
  if (lanes <= 2) {
    box_mean2(src, dst, plane_stride, lanes, w, h, r, tmp, sums, group, rows, cols);
    return;
  }
  /* (rows 0 .. ye-1, columns 0 .. xe-1 of the result: the rows of sums they
   * reach, each row's and each column's sums from column and row 0) */
  const int xe = imin(cols, w), ye = imin(rows, h);
#define LD(p, x) _mm256_cvtps_pd(_mm_loadu_ps((p) + 4 * (intptr_t)(x)))
  for (int y = 0; y < imin(ye + r, h); y += 4) row_sums(src, tmp, w, h, r, y, group, 0, xe);
#define ROW(j) (tmp + 4 * (intptr_t)(j) * w)
  /* vertical: running column sums (four per pixel), the row entering, the
   * row leaving and the scaling in one pass */
  for (int x = 0; x < 4 * xe; x++) sums[x] = 0;
  for (int y = 0; y < imin(r, h); y++) {
    const float *t = ROW(y);
    for (int x = 0; x < xe; x++)
      _mm256_storeu_pd(sums + 4 * x, _mm256_add_pd(_mm256_loadu_pd(sums + 4 * x), LD(t, x)));
  }
  const int inner_lo = imin(r, w), inner_hi = imax(inner_lo, w - r);
  float *d0 = dst, *d1 = dst + plane_stride, *d2 = dst + 2 * plane_stride, *d3 = dst + 3 * plane_stride;
  for (int y = 0; y < ye; y++) {
    const int ny = imin(y + r, h - 1) - imax(y - r, 0) + 1;
    const float *add = y + r < h ? ROW(y + r) : 0;
    const float *sub = y - r - 1 >= 0 ? ROW(y - r - 1) : 0;
    const intptr_t o = (intptr_t)y * w;
    const __m256d scale = _mm256_set1_pd(1 / (double)((2 * r + 1) * ny));
#define SLIDE(x, c) do { c = _mm256_loadu_pd(sums + 4 * (x)); \
                         if (add) c = _mm256_add_pd(c, LD(add, x)); \
                         if (sub) c = _mm256_sub_pd(c, LD(sub, x)); \
                         _mm256_storeu_pd(sums + 4 * (x), c); } while (0)
#define PUT(x, v) do { float f[4]; _mm_storeu_ps(f, v); d0[o + (x)] = f[0]; \
                       if (lanes > 1) d1[o + (x)] = f[1]; if (lanes > 2) d2[o + (x)] = f[2]; \
                       if (lanes > 3) d3[o + (x)] = f[3]; } while (0)
#define CLIPPED(x) do { __m256d c; SLIDE(x, c); \
                        const int area = (imin((x) + r, w - 1) - imax((x) - r, 0) + 1) * ny; \
                        PUT(x, _mm256_cvtpd_ps(_mm256_div_pd(c, _mm256_set1_pd((double)area)))); } while (0)
    for (int x = 0; x < imin(inner_lo, xe); x++) CLIPPED(x);
    int x = inner_lo;
    if (lanes == 4) {
      for (; x + 4 <= imin(inner_hi, xe); x += 4) {
        __m256d a, b, c, d;
        SLIDE(x, a); SLIDE(x + 1, b); SLIDE(x + 2, c); SLIDE(x + 3, d);
        __m128 ra = _mm256_cvtpd_ps(_mm256_mul_pd(a, scale)), rb = _mm256_cvtpd_ps(_mm256_mul_pd(b, scale));
        __m128 rc = _mm256_cvtpd_ps(_mm256_mul_pd(c, scale)), rd = _mm256_cvtpd_ps(_mm256_mul_pd(d, scale));
        _MM_TRANSPOSE4_PS(ra, rb, rc, rd);
        _mm_storeu_ps(d0 + o + x, ra); _mm_storeu_ps(d1 + o + x, rb);
        _mm_storeu_ps(d2 + o + x, rc); _mm_storeu_ps(d3 + o + x, rd);
      }
    }
    for (; x < imin(inner_hi, xe); x++) { __m256d c; SLIDE(x, c); PUT(x, _mm256_cvtpd_ps(_mm256_mul_pd(c, scale))); }
    for (x = inner_hi; x < xe; x++) CLIPPED(x);
#undef SLIDE
#undef PUT
#undef CLIPPED
  }
#undef ROW
#undef LD
}

__attribute__((target("avx2")))
void dm_box_mean4_avx2(const float *src, float *dst, intptr_t plane_stride, int lanes,
                       int w, int h, int r, float *tmp, double *sums, int rows, int cols)
{
  box_mean4(src, dst, plane_stride, lanes, w, h, r, tmp, sums, 0, rows, cols);
}

__attribute__((target("avx2")))
void dm_box_mean4_products_avx2(const float *src, int group, float *dst, intptr_t plane_stride, int lanes,
                                int w, int h, int r, float *tmp, double *sums, int rows, int cols)
{
  switch (group) {
  case 1: box_mean4(src, dst, plane_stride, lanes, w, h, r, tmp, sums, 1, rows, cols); break;
  case 2: box_mean4(src, dst, plane_stride, lanes, w, h, r, tmp, sums, 2, rows, cols); break;
  case 3: box_mean4(src, dst, plane_stride, lanes, w, h, r, tmp, sums, 3, rows, cols); break;
  default: box_mean4(src, dst, plane_stride, lanes, w, h, r, tmp, sums, 0, rows, cols); break;
  }
}

#else

int dm_kernels_have_avx2(void) { return 0; }

void dm_box_mean4_products_avx2(const float *src, int group, float *dst, intptr_t plane_stride, int lanes,
                                int w, int h, int r, float *tmp, double *sums, int rows, int cols)
{
  (void)src; (void)group; (void)dst; (void)plane_stride; (void)lanes; (void)w; (void)h; (void)r; (void)tmp; (void)sums;
  (void)rows; (void)cols;
}

void dm_box_mean4_avx2(const float *src, float *dst, intptr_t plane_stride, int lanes,
                       int w, int h, int r, float *tmp, double *sums, int rows, int cols)
{
  (void)src; (void)dst; (void)plane_stride; (void)lanes; (void)w; (void)h; (void)r; (void)tmp; (void)sums;
  (void)rows; (void)cols;
}

#endif
