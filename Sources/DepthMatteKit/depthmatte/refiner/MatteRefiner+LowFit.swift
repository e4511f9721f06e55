// SPDX-License-Identifier: LGPL-2.1-or-later
/// docs/quality.md step 2, refine=guided, sub-step 2.4, third part: the averaged
/// coefficients, and the fit at depth resolution for the range clamp.
extension RefinePass {
    /// 2.4 (`fitWeighting`): the confidence-weighted coefficient sums divided
    /// by the summed confidence, ā = Σ c_k a_k / Σ c_k.
    func normalise(_ ys: Range<Int>) {
        let aR = CM[.aR], aG = CM[.aG], aB = CM[.aB], b = CM[.b], c = CM[.confidence]
        // (columns 0 ..< `fitColumns`: the coefficient means there)
        for y in ys {
            for i in (y * dw)..<(y * dw + fitColumns) {
                let inv = 1 / max(c[i], 1e-30)
                aR[i] *= inv; aG[i] *= inv; aB[i] *= inv; b[i] *= inv
            }
        }
    }

    /// 2.4 (`rangeClamp`): the fitted matte at depth resolution (the
    /// coefficients applied to the guide there) into `low`: the range the
    /// output between four depth pixels is clamped to.
    func lowFit(_ ys: Range<Int>) {
        let aR = CM[.aR], aG = CM[.aG], aB = CM[.aB], b = CM[.b]
        let Lr = L[.r], Lg = L[.g], Lb = L[.b]
        for y in ys {
            for i in (y * dw)..<(y * dw + fitColumns) {
                low[i] = aR[i] * Lr[i] + aG[i] * Lg[i] + aB[i] * Lb[i] + b[i]
            }
        }
    }
}
