/// README step 2, refine=guided, sub-step 2.4, first part: the decisions
/// applied and the products whose window means the guided filter solves.
extension RefinePass {
    /// 2.4: the decisions applied (full weight), then the products of the
    /// weighted colour guided filter at depth resolution (`FitProduct`).
    func products(_ ys: Range<Int>) {
        let Lr = L[.r], Lg = L[.g], Lb = L[.b]
        let end = ys.upperBound * dw
        var i = ys.lowerBound * dw
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
