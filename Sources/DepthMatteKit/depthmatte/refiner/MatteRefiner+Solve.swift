// SPDX-License-Identifier: LGPL-2.1-or-later
import DMKernels

/// docs/quality.md step 2, refine=guided, sub-step 2.4, second part: the linear
/// model of every window and its fit confidence.
extension RefinePass {
    /// 2.4: the linear model α = a·I + b of every window (weighted least squares),
    /// four pixels at a time; the last ones of the band one by one through
    /// the same lanes (the same operations, so the same values). Columns
    /// 0 ..< `columns` of each row.
    func solve(_ ys: Range<Int>, columns: Int) {
        if columns < dw {
            for y in ys { solve(y * dw, y * dw + columns) }
        } else {
            solve(ys.lowerBound * dw, ys.upperBound * dw)
        }
    }

    /// Pixels `start ..< end` (row by row in the plane).
    private func solve(_ start: Int, _ end: Int) {
        typealias V = SIMD4<Float>
        @inline(__always) func load(_ p: UnsafeMutablePointer<Float>, _ i: Int, _ lanes: Int) -> V {
            lanes == 4 ? UnsafeRawPointer(p + i).loadUnaligned(as: V.self) : V(repeating: p[i])
        }
        @inline(__always) func store(_ v: V, _ p: UnsafeMutablePointer<Float>, _ i: Int, _ lanes: Int) {
            if lanes == 4 { UnsafeMutableRawPointer(p + i).storeBytes(of: v, as: V.self) } else { p[i] = v[0] }
        }
        // (aR, aG, aB, b) interleaved per pixel (`RefinePass.coefficientGroup`)
        let cg = coefficientGroup
        @inline(__always) func group(_ aR: V, _ aG: V, _ aB: V, _ b: V, _ i: Int, _ lanes: Int) {
            if lanes == 4 {
                let (t0, t1, t2, t3) = transpose4(aR, aG, aB, b)
                storeF4(t0, cg + 4 * i); storeF4(t1, cg + 4 * i + 4); storeF4(t2, cg + 4 * i + 8); storeF4(t3, cg + 4 * i + 12)
            } else {
                storeF4(V(aR[0], aG[0], aB[0], b[0]), cg + 4 * i)
            }
        }
        @inline(__always) func lanes(_ i: Int, _ k: Int) {
            let e = V(repeating: eps)
            // the window means of the products
            @inline(__always) func m(_ c: FitProduct) -> V { load(M[c], i, k) }
            // (every fit weight is 1 once the decisions are applied: the
            // window mean of w is exactly 1, so the means are the products'
            // own; `FitProduct.w` is neither written nor averaged)
            let mR = m(.wR), mG = m(.wG), mB = m(.wB), mp = m(.wp)
            let cR = m(.wRp) - mR * mp, cG = m(.wGp) - mG * mp, cB = m(.wBp) - mB * mp
            let rr = m(.wRR) - mR * mR + e, rg = m(.wRG) - mR * mG, rb = m(.wRB) - mR * mB
            let gg = m(.wGG) - mG * mG + e, gb = m(.wGB) - mG * mB, bb = m(.wBB) - mB * mB + e
            // symmetric 3x3 inverse (adjugate / determinant)
            let i00 = gg * bb - gb * gb, i01 = rb * gb - rg * bb, i02 = rg * gb - rb * gg
            let i11 = rr * bb - rb * rb, i12 = rb * rg - rr * gb, i22 = rr * gg - rg * rg
            let det = rr * i00 + rg * i01 + rb * i02
            let solvable = det .> 1e-20
            let id = 1 / det.replacing(with: 1, where: .!solvable)
            let zero = V(repeating: 0)
            let aR = ((i00 * cR + i01 * cG + i02 * cB) * id).replacing(with: zero, where: .!solvable)
            let aG = ((i01 * cR + i11 * cG + i12 * cB) * id).replacing(with: zero, where: .!solvable)
            let aB = ((i02 * cR + i12 * cG + i22 * cB) * id).replacing(with: zero, where: .!solvable)
            let b = mp - aR * mR - aG * mG - aB * mB
            if fitFloor > 0 {
                // the window's label variance and the part of it its model
                // explains: var(p) − E = a·cov(I, p) + eps·|a|² (E, the mean
                // squared residual, = var(p) − a·cov − eps·|a|² at the optimum)
                let vp = m(.wpp) - mp * mp
                let v0 = vp.replacing(with: zero, where: vp .< zero)
                let ex = (aR * cR + aG * cG + aB * cB) + e * (aR * aR + aG * aG + aB * aB)
                let ex0 = ex.replacing(with: zero, where: ex .< zero).replacing(with: v0, where: ex .> v0)
                let fl = V(repeating: fitFloor)
                // the unexplained fraction counts only as far as the window's
                // colours vary enough to have explained it (tr Σ against eps,
                // the filter's own edge/flat scale): a flat-colour window
                // keeps full weight, so edges colour cannot place stay soft
                let tr = (rr - e) + (gg - e) + (bb - e)
                let tr0 = tr.replacing(with: zero, where: tr .< zero)
                let s = tr0 / (tr0 + e)
                let c = 1 - s * ((v0 - ex0) / (v0 + fl))
                group(c * aR, c * aG, c * aB, c * b, i, k); store(c, C[.confidence], i, k)
            } else {
                group(aR, aG, aB, b, i, k)
            }
        }
        var i = start
        if avx2 {
            // (the same expressions eight windows at a time, `DMKernels`: 4x
            // faster here, 0.9 -> 0.23 ms a frame at 320x180)
            i = dm_solve_avx2(M.base, n, coefficientGroup, fitFloor > 0 ? C[.confidence] : nil, start, end, eps, fitFloor)
        }
        while i + 4 <= end { lanes(i, 4); i += 4 }
        while i < end { lanes(i, 1); i += 1 }
    }
}
