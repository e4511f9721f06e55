// SPDX-License-Identifier: LGPL-2.1-or-later
/// docs/quality.md step 2, refine=guided, sub-step 2.4, first part: the decisions
/// applied and the products whose window means the guided filter solves.
extension RefinePass {
    /// 2.4: the decisions applied (full weight), then the products of the
    /// weighted colour guided filter at depth resolution (`FitProduct`).
    func products(_ ys: Range<Int>) {
        let Lr = L[.r], Lg = L[.g], Lb = L[.b]
        let end = ys.upperBound * dw
        var i = ys.lowerBound * dw
        if let lp = labelPrevious { holdLabels(lp, from: i, to: end) }
        // The products in four groups of four, interleaved (`RefinePass.productGroup`):
        // (R, G, B, p), then (Rp, Gp, Bp, RR), (RG, RB, GG, GB), (BB, pp, 0, 0),
        // which the box means make from the first as they read it (`MatteRefiner.boxMean4`'s `group`).
        // (w is 1 everywhere once the decisions are applied: w·R·p is R·p to the bit)
        let g0 = productGroup(0)
        @inline(__always) func put(_ g: UnsafeMutablePointer<Float>, _ i: Int,
                                   _ a: F4, _ b: F4, _ c: F4, _ d: F4) {
            // (lanes: pixels i ..< i + 4; stored pixel by pixel, four products each)
            let (t0, t1, t2, t3) = transpose4(a, b, c, d)
            storeF4(t0, g + 4 * i); storeF4(t1, g + 4 * i + 4); storeF4(t2, g + 4 * i + 8); storeF4(t3, g + 4 * i + 12)
        }
        // four pixels at a time, the same operations per lane as below
        while i + 4 <= end {
            let w = loadF4(weight + i)
            var p = loadF4(fill + i)
            let undecided = w .!= 1
            if any(undecided) {
                p.replace(with: loadF4(decision + i), where: undecided)
                storeF4(p, fill + i)
                storeF4(F4(repeating: 1), weight + i)
            }
            let R = loadF4(Lr + i), G = loadF4(Lg + i), B = loadF4(Lb + i)
            put(g0, i, R, G, B, p)
            i += 4
        }
        for i in i..<end {
            if weight[i] != 1 {
                fill[i] = decision[i]
                weight[i] = 1
            }
            let p = fill[i]
            let R = Lr[i], G = Lg[i], B = Lb[i]
            storeF4(F4(R, G, B, p), g0 + 4 * i)
        }
    }

    /// 2.6 at depth resolution (`labelHold`): where the guide did not
    /// change since the label was last followed, and the label's
    /// mean over `band` did not change coherently (a new cutoff, an
    /// edge that moved), the label is averaged with the previous one
    /// (the depth's noise flips single pixels), else followed.
    /// Interior pixels (their label uniform: 2.4 keeps it) only record
    /// it: the guide there is compared again once they are near an edge.
    /// Pixels i ..< end; the decisions are applied here first (`weight` 1,
    /// `fill` the held or followed label). `lp` holds the previous label,
    /// then the guide (R, G, B) and the band mean it last followed.
    private func holdLabels(_ lp: UnsafeMutablePointer<Float>, from i: Int, to end: Int) {
        let Lr = L[.r], Lg = L[.g], Lb = L[.b]
        let pn = dw * dh, pr = lp + pn, pg = lp + 2 * pn, pb = lp + 3 * pn, pm = lp + 4 * pn
        let one = F4(repeating: 1), zero = F4(repeating: 0)
        let noise = F4(repeating: colourNoise), invNoise = F4(repeating: 1 / colourNoise)
        let shift = F4(repeating: labelShift), base = F4(repeating: labelBase)
        @inline(__always) func absDiff(_ a: F4, _ b: F4) -> F4 { pointwiseMax(a - b, b - a) }
        @inline(__always) func lanes(_ j: Int, _ k: Int) {
            @inline(__always) func load(_ q: UnsafeMutablePointer<Float>) -> F4 { k == 4 ? loadF4(q + j) : F4(repeating: q[j]) }
            @inline(__always) func store(_ v: F4, _ q: UnsafeMutablePointer<Float>) { if k == 4 { storeF4(v, q + j) } else { q[j] = v[0] } }
            var p = load(fill), w = load(weight)
            let undecided = w .!= one
            if any(undecided) {
                p.replace(with: load(decision), where: undecided)
                w.replace(with: one, where: undecided)
                store(w, weight)
            }
            let inner = load(interior), bx = load(boxed)
            if labelBlend && !all((inner .== zero) .| (inner .== one)) {
                let prev = load(lp)
                let dR = absDiff(load(Lr), load(pr)), dG = absDiff(load(Lg), load(pg)), dB = absDiff(load(Lb), load(pb))
                let dc: F4 = pointwiseMax(pointwiseMax(dR, dG), dB)
                let over: F4 = pointwiseMax(zero, dc - noise) * invNoise
                let moved: F4 = pointwiseMin(one, over)
                let dm = absDiff(bx, load(pm))
                let still: SIMDMask<SIMD4<Int32>> = (dm .< shift) .& (moved .< one)
                let edge: SIMDMask<SIMD4<Int32>> = (inner .!= zero) .& (inner .!= one)
                let held = still .& edge
                let weightNew: F4 = base + (one - base) * moved
                let blended: F4 = prev + weightNew * (p - prev)
                p.replace(with: blended, where: held)
                let follow = .!held
                var v = load(pr); v.replace(with: load(Lr), where: follow); store(v, pr)
                v = load(pg); v.replace(with: load(Lg), where: follow); store(v, pg)
                v = load(pb); v.replace(with: load(Lb), where: follow); store(v, pb)
                v = load(pm); v.replace(with: bx, where: follow); store(v, pm)
            } else {
                store(load(Lr), pr); store(load(Lg), pg); store(load(Lb), pb); store(bx, pm)
            }
            store(p, fill)
            store(p, lp)
        }
        var j = i
        while j + 4 <= end { lanes(j, 4); j += 4 }
        while j < end { lanes(j, 1); j += 1 }
    }
}
