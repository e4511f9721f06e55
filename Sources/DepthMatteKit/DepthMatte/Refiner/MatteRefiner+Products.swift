/// README step 2, refine=guided, sub-step 2.4, first part: the decisions
/// applied and the products whose window means the guided filter solves.
extension RefinePass {
    /// 2.4: the decisions applied (full weight), then the products of the
    /// weighted colour guided filter at depth resolution (`FitProduct`).
    func products(_ ys: Range<Int>) {
        let Lr = L[.r], Lg = L[.g], Lb = L[.b]
        let end = ys.upperBound * dw
        var i = ys.lowerBound * dw
        if let lp = labelPrevious {
            // 2.6 at depth resolution (`labelHold`): where the guide did not
            // change since the label was last followed, and the label's
            // mean over `band` did not change coherently (a new cutoff, an
            // edge that moved), the label is averaged with the previous one
            // (the depth's noise flips single pixels), else followed
            let pn = dw * dh, pr = lp + pn, pg = lp + 2 * pn, pb = lp + 3 * pn, pm = lp + 4 * pn
            for j in i..<end {
                if weight[j] != 1 { fill[j] = decision[j]; weight[j] = 1 }
                var p = fill[j]
                var follow = true
                if labelBlend && abs(boxed[j] - pm[j]) < labelShift {
                    let dc = max(abs(Lr[j] - pr[j]), abs(Lg[j] - pg[j]), abs(Lb[j] - pb[j]))
                    let moved = min(1, max(0, dc - colourNoise) / colourNoise)
                    if moved < 1 {
                        p = lp[j] + (labelBase + (1 - labelBase) * moved) * (p - lp[j])
                        fill[j] = p
                        follow = false
                    }
                }
                if follow { pr[j] = Lr[j]; pg[j] = Lg[j]; pb[j] = Lb[j]; pm[j] = boxed[j] }
                lp[j] = p
            }
        }
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
}
