/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The guided filter's 3x3 solve per window with AVX2, eight windows per
 * step: RefinePass.solve's expressions lane by lane and in its order
 * (compiled without FP contraction), so the coefficients are the same to
 * the bit. */
#include "dmkernels.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>

/* FitProduct raw values (MatteRefiner+Pass.swift) */
enum { W_R = 1, W_G, W_B, W_P, W_RP, W_GP, W_BP, W_RR, W_RG, W_RB, W_GG, W_GB, W_BB, W_PP };

__attribute__((target("avx2")))
intptr_t dm_solve_avx2(const float *means, intptr_t plane_stride, float *group, float *confidence,
                       intptr_t start, intptr_t end, float eps, float fit_floor)
{
  const __m256 e = _mm256_set1_ps(eps), zero = _mm256_setzero_ps(), one = _mm256_set1_ps(1);
  const __m256 tiny = _mm256_set1_ps(1e-20f), fl = _mm256_set1_ps(fit_floor);
  intptr_t i = start;
#define M(c) _mm256_loadu_ps(means + (c) * plane_stride + i)
#define MUL _mm256_mul_ps
#define ADD _mm256_add_ps
#define SUB _mm256_sub_ps
  for (; i + 8 <= end; i += 8) {
    const __m256 mR = M(W_R), mG = M(W_G), mB = M(W_B), mp = M(W_P);
    const __m256 cR = SUB(M(W_RP), MUL(mR, mp)), cG = SUB(M(W_GP), MUL(mG, mp)), cB = SUB(M(W_BP), MUL(mB, mp));
    const __m256 rr = ADD(SUB(M(W_RR), MUL(mR, mR)), e), rg = SUB(M(W_RG), MUL(mR, mG)), rb = SUB(M(W_RB), MUL(mR, mB));
    const __m256 gg = ADD(SUB(M(W_GG), MUL(mG, mG)), e), gb = SUB(M(W_GB), MUL(mG, mB));
    const __m256 bb = ADD(SUB(M(W_BB), MUL(mB, mB)), e);
    const __m256 i00 = SUB(MUL(gg, bb), MUL(gb, gb)), i01 = SUB(MUL(rb, gb), MUL(rg, bb));
    const __m256 i02 = SUB(MUL(rg, gb), MUL(rb, gg)), i11 = SUB(MUL(rr, bb), MUL(rb, rb));
    const __m256 i12 = SUB(MUL(rb, rg), MUL(rr, gb)), i22 = SUB(MUL(rr, gg), MUL(rg, rg));
    const __m256 det = ADD(ADD(MUL(rr, i00), MUL(rg, i01)), MUL(rb, i02));
    const __m256 solvable = _mm256_cmp_ps(det, tiny, _CMP_GT_OQ);
    const __m256 id = _mm256_div_ps(one, _mm256_blendv_ps(one, det, solvable));
    __m256 aR = MUL(ADD(ADD(MUL(i00, cR), MUL(i01, cG)), MUL(i02, cB)), id);
    __m256 aG = MUL(ADD(ADD(MUL(i01, cR), MUL(i11, cG)), MUL(i12, cB)), id);
    __m256 aB = MUL(ADD(ADD(MUL(i02, cR), MUL(i12, cG)), MUL(i22, cB)), id);
    aR = _mm256_blendv_ps(zero, aR, solvable);
    aG = _mm256_blendv_ps(zero, aG, solvable);
    aB = _mm256_blendv_ps(zero, aB, solvable);
    __m256 b = SUB(SUB(SUB(mp, MUL(aR, mR)), MUL(aG, mG)), MUL(aB, mB));
    if (fit_floor > 0) {
      const __m256 vp = SUB(M(W_PP), MUL(mp, mp));
      const __m256 v0 = _mm256_blendv_ps(vp, zero, _mm256_cmp_ps(vp, zero, _CMP_LT_OQ));
      const __m256 ex = ADD(ADD(ADD(MUL(aR, cR), MUL(aG, cG)), MUL(aB, cB)),
                            MUL(e, ADD(ADD(MUL(aR, aR), MUL(aG, aG)), MUL(aB, aB))));
      __m256 ex0 = _mm256_blendv_ps(ex, zero, _mm256_cmp_ps(ex, zero, _CMP_LT_OQ));
      ex0 = _mm256_blendv_ps(ex0, v0, _mm256_cmp_ps(ex, v0, _CMP_GT_OQ));
      const __m256 tr = ADD(ADD(SUB(rr, e), SUB(gg, e)), SUB(bb, e));
      const __m256 tr0 = _mm256_blendv_ps(tr, zero, _mm256_cmp_ps(tr, zero, _CMP_LT_OQ));
      const __m256 s = _mm256_div_ps(tr0, ADD(tr0, e));
      const __m256 c = SUB(one, MUL(s, _mm256_div_ps(SUB(v0, ex0), ADD(v0, fl))));
      aR = MUL(c, aR); aG = MUL(c, aG); aB = MUL(c, aB); b = MUL(c, b);
      _mm256_storeu_ps(confidence + i, c);
    }
    /* (aR, aG, aB, b) of each pixel together: two 4x4 transposes */
    __m128 r0 = _mm256_castps256_ps128(aR), r1 = _mm256_castps256_ps128(aG);
    __m128 r2 = _mm256_castps256_ps128(aB), r3 = _mm256_castps256_ps128(b);
    _MM_TRANSPOSE4_PS(r0, r1, r2, r3);
    float *g = group + 4 * i;
    _mm_storeu_ps(g, r0); _mm_storeu_ps(g + 4, r1); _mm_storeu_ps(g + 8, r2); _mm_storeu_ps(g + 12, r3);
    __m128 h0 = _mm256_extractf128_ps(aR, 1), h1 = _mm256_extractf128_ps(aG, 1);
    __m128 h2 = _mm256_extractf128_ps(aB, 1), h3 = _mm256_extractf128_ps(b, 1);
    _MM_TRANSPOSE4_PS(h0, h1, h2, h3);
    _mm_storeu_ps(g + 16, h0); _mm_storeu_ps(g + 20, h1); _mm_storeu_ps(g + 24, h2); _mm_storeu_ps(g + 28, h3);
  }
#undef M
#undef MUL
#undef ADD
#undef SUB
  return i;
}

#else

intptr_t dm_solve_avx2(const float *means, intptr_t plane_stride, float *group, float *confidence,
                       intptr_t start, intptr_t end, float eps, float fit_floor)
{
  (void)means; (void)plane_stride; (void)group; (void)confidence; (void)end; (void)eps; (void)fit_floor;
  return start;
}

#endif
