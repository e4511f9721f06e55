// SPDX-License-Identifier: LGPL-2.1-or-later
/// README step 2, refine=guided, sub-step 2.4, first part: the decisions
/// applied and the products whose window means the guided filter solves.
extension RefinePass {
    /// 2.4: the decisions applied (full weight), then the products of the
    /// weighted colour guided filter at depth resolution (`FitProduct`).
    func products(_ ys: Range<Int>) {
        let Lr = L[.r], Lg = L[.g], Lb = L[.b]
        let end = ys.upperBound * dw
        var i = ys.lowerBound * dw
        if let lp = labelPrevious { holdLabels(lp, from: i, to: end) }
        // four pixels at a time, the same operations per lane as below
        while i + 4 <= end {
            var w = loadF4(weight + i), p = loadF4(fill + i)
            let undecided = w .!= 1
            if any(undecided) {
                p.replace(with: loadF4(decision + i), where: undecided)
                w.replace(with: 1, where: undecided)
                storeF4(p, fill + i)
                storeF4(w, weight + i)
            }
            let R = loadF4(Lr + i), G = loadF4(Lg + i), B = loadF4(Lb + i)
            storeF4(w, P[.w] + i); storeF4(w * R, P[.wR] + i); storeF4(w * G, P[.wG] + i); storeF4(w * B, P[.wB] + i)
            storeF4(w * p, P[.wp] + i); storeF4(w * R * p, P[.wRp] + i); storeF4(w * G * p, P[.wGp] + i)
            storeF4(w * B * p, P[.wBp] + i)
            storeF4(w * R * R, P[.wRR] + i); storeF4(w * R * G, P[.wRG] + i); storeF4(w * R * B, P[.wRB] + i)
            storeF4(w * G * G, P[.wGG] + i); storeF4(w * G * B, P[.wGB] + i); storeF4(w * B * B, P[.wBB] + i)
            storeF4(w * p * p, P[.wpp] + i)
            i += 4
        }
        for i in i..<end {
            if weight[i] != 1 {
                fill[i] = decision[i]
                weight[i] = 1
            }
            let w = weight[i], p = fill[i]
            let R = Lr[i], G = Lg[i], B = Lb[i]
            P[.w][i] = w; P[.wR][i] = w * R; P[.wG][i] = w * G; P[.wB][i] = w * B
            P[.wp][i] = w * p; P[.wRp][i] = w * R * p; P[.wGp][i] = w * G * p; P[.wBp][i] = w * B * p
            P[.wRR][i] = w * R * R; P[.wRG][i] = w * R * G; P[.wRB][i] = w * R * B
            P[.wGG][i] = w * G * G; P[.wGB][i] = w * G * B; P[.wBB][i] = w * B * B
            P[.wpp][i] = w * p * p
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
