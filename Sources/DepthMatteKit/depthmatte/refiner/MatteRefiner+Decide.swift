// SPDX-License-Identifier: LGPL-2.1-or-later
import DMKernels

/// docs/quality.md step 2, refine=guided, sub-step 2.3, second part: the decision
/// of each untrusted pixel by colour.
extension RefinePass {
    /// 2.3: the decision for each untrusted pixel into `decision` (trust is
    /// read from `weight` unchanged until every pixel is decided: the next
    /// phase applies it). The side (subject or background) whose nearest
    /// trusted colour within `decisionRadius` is nearer wins (soft:
    /// d_bg / (d_fg + d_bg)); where one side has no trusted pixel in reach,
    /// a pixel whose colour matches the other side's nearest trusted colour
    /// to within the noise (`matchWidening`) searches on for it; otherwise
    /// the window mean colours of the two sides are compared.
    func decide(_ ys: some Sequence<Int>) {
        let sr = decisionRadius
        let Lr = L[.r], Lg = L[.g], Lb = L[.b]
        let unknown = DepthLabel.unknown.rawValue, subjectLabel = DepthLabel.subject.rawValue
        for y in ys {
            for x in 0..<dw where weight[y * dw + x] != 1 {
                let i = y * dw + x
                let R = Lr[i], G = Lg[i], B = Lb[i]
                var p = fill[i]
                var nearest = false
                if sr > 0 {
                    let (bf, bb, matched) = avx2 ? nearestTrustedAVX2(x, y, i, R, G, B, Lr, Lg, Lb, unknown)
                        : nearestTrusted(x, y, i, R, G, B, Lr, Lg, Lb, unknown)
                    if bf < .infinity && bb < .infinity {
                        p = bb / max(bf + bb, 1e-12)
                        nearest = true
                        if matched {
                            let c = abs(bb - bf) / max(bf + bb, 1e-12)
                            p = fill[i] + c * (p - fill[i])
                        }
                    } else if thinParts && bb < .infinity && !matched {
                        // a thin part (`thinParts`): no trusted subject pixel in
                        // reach, as along a rod or a cable one or two depth
                        // pixels wide (all of it within the band), and the pixel
                        // is not the wall's colour: the subject's colour is that
                        // of the subject READINGS next to it (depth says the part
                        // is there; colour says where)
                        let bu = nearestReading(x, y, i, R, G, B, Lr, Lg, Lb, subjectLabel)
                        // (only where the part's colour is clearly not the
                        // wall's: a leaf against a leaf-patterned wall is not
                        // decided this way)
                        if 4 * bu < bb {
                            p = bb / max(bu + bb, 1e-12)
                            nearest = true
                        }
                    }
                }
                if !nearest {
                    // the window means of the two sides' trusted colours
                    p = meanSides(i, R, G, B, p)
                }
                decision[i] = p
            }
        }
    }

    /// 2.3's search around untrusted pixel i at (x, y), colour (R, G, B):
    /// the nearest trusted colour (squared distance) on each side within
    /// `decisionRadius`, a striped or multi-coloured background being not
    /// one mean. Inside a wide occlusion shadow one side may be out of
    /// reach: the search widens (2x, 3x) until both are found. Returns
    /// the subject side's, the background side's (infinity: none found)
    /// and whether the pixel matched one side's colour (`matchWidening`).
    @inline(__always)
    private func nearestTrusted(_ x: Int, _ y: Int, _ i: Int, _ R: Float, _ G: Float, _ B: Float,
                                _ Lr: UnsafeMutablePointer<Float>, _ Lg: UnsafeMutablePointer<Float>,
                                _ Lb: UnsafeMutablePointer<Float>, _ unknown: UInt8) -> (Float, Float, Bool) {
        let sr = decisionRadius
        var bf = Float.infinity, bb = Float.infinity
        var reach = sr, searched = -1
        // widen only for holes the fill made foreground: an occlusion
        // shadow is wall the projector cannot see, so the risk is
        // keying it in; a hole filled as background stays so when
        // no subject colour is in reach
        var maxReach = label[i] == unknown && fill[i] == 1 ? 3 * sr : sr
        var matched = false
        // the nearest distance on each side over row pixels
        // a...b: four at a time (the minimum does not depend on
        // the order; each distance is summed as one by one)
        let R4 = F4(repeating: R), G4 = F4(repeating: G), B4 = F4(repeating: B)
        var bf4 = F4(repeating: .infinity), bb4 = bf4
        @inline(__always) func scan(_ row: Int, _ a: Int, _ b: Int) {
            var xx = a
            while xx + 4 <= b + 1 {
                let j = row + xx
                xx += 4
                let trusted = loadF4(weight + j) .== 1
                if !any(trusted) { continue }
                let dr = loadF4(Lr + j) - R4, dg = loadF4(Lg + j) - G4, db = loadF4(Lb + j) - B4
                let dist = dr * dr + dg * dg + db * db
                let front = loadF4(fill + j) .== 1
                // (compare-and-blend: SIMD pointwiseMin goes lane by lane)
                bf4.replace(with: dist, where: trusted .& front .& (dist .< bf4))
                bb4.replace(with: dist, where: trusted .& .!front .& (dist .< bb4))
            }
            while xx <= b {
                let j = row + xx
                xx += 1
                guard weight[j] == 1 else { continue }
                let dr = Lr[j] - R, dg = Lg[j] - G, db = Lb[j] - B
                let dist = dr * dr + dg * dg + db * db
                if fill[j] == 1 { bf = min(bf, dist) } else { bb = min(bb, dist) }
            }
        }
        while reach <= maxReach {
            for yy in max(0, y - reach)...min(dh - 1, y + reach) {
                let row = yy * dw
                let xStart = max(0, x - reach), xEnd = min(dw - 1, x + reach)
                if abs(yy - y) <= searched {
                    // skip the part of the row already searched
                    scan(row, xStart, min(xEnd, x - searched - 1))
                    scan(row, max(xStart, x + searched + 1), xEnd)
                } else {
                    scan(row, xStart, xEnd)
                }
            }
            bf = min(bf, bf4.min()); bb = min(bb, bb4.min())
            if bf < .infinity && bb < .infinity { break }
            // one side only, and the pixel is that side's colour to
            // within the noise (eps): search on for the other side's
            // colours, but let the result override the fill only as
            // far as it is clear (below)
            if reach == sr && maxReach == sr && matchWidening && min(bf, bb) <= matchNoise {
                maxReach = 3 * sr
                matched = true
            }
            searched = reach
            reach += sr
        }
        return (bf, bb, matched)
    }

    /// `nearestTrusted` by `DMKernels`' AVX2 kernel (the same bits).
    @inline(__always)
    private func nearestTrustedAVX2(_ x: Int, _ y: Int, _ i: Int, _ R: Float, _ G: Float, _ B: Float,
                                    _ Lr: UnsafeMutablePointer<Float>, _ Lg: UnsafeMutablePointer<Float>,
                                    _ Lb: UnsafeMutablePointer<Float>, _ unknown: UInt8) -> (Float, Float, Bool) {
        let sr = decisionRadius
        let maxReach = label[i] == unknown && fill[i] == 1 ? 3 * sr : sr
        var bf = Float.infinity, bb = Float.infinity
        let matched = dm_nearest_trusted_avx2(weight, fill, Lr, Lg, Lb, dw, dh, x, y, Int32(sr), Int32(maxReach),
                                              matchWidening ? 1 : 0, matchNoise, R, G, B, &bf, &bb)
        return (bf, bb, matched != 0)
    }

    /// The thin-part colour distance (`thinParts`): the nearest colour of a
    /// subject reading within `band` + 1 of pixel i (squared distance;
    /// infinity: none).
    @inline(__always)
    private func nearestReading(_ x: Int, _ y: Int, _ i: Int, _ R: Float, _ G: Float, _ B: Float,
                                _ Lr: UnsafeMutablePointer<Float>, _ Lg: UnsafeMutablePointer<Float>,
                                _ Lb: UnsafeMutablePointer<Float>, _ subjectLabel: UInt8) -> Float {
        let ur = band + 1
        var bu = Float.infinity
        for yy in max(0, y - ur)...min(dh - 1, y + ur) {
            for xx in max(0, x - ur)...min(dw - 1, x + ur) where label[yy * dw + xx] == subjectLabel {
                let j = yy * dw + xx
                if j == i { continue }
                let dr = Lr[j] - R, dg = Lg[j] - G, db = Lb[j] - B
                bu = min(bu, dr * dr + dg * dg + db * db)
            }
        }
        return bu
    }

    /// The decision by the window means of the two sides' trusted colours
    /// (the nearer mean wins, softly); `p` unchanged where a side has none.
    @inline(__always)
    private func meanSides(_ i: Int, _ R: Float, _ G: Float, _ B: Float, _ p: Float) -> Float {
        var p = p
        let nf = sideMeans[.subject][i], nb = sideMeans[.background][i]
        if nf > 0 && nb > 0 {
            let fr = sideMeans[.subjectR][i] / nf - R, fg = sideMeans[.subjectG][i] / nf - G
            let fb = sideMeans[.subjectB][i] / nf - B
            let br = sideMeans[.backgroundR][i] / nb - R, bg = sideMeans[.backgroundG][i] / nb - G
            let bb = sideMeans[.backgroundB][i] / nb - B
            let df = fr * fr + fg * fg + fb * fb, db = br * br + bg * bg + bb * bb
            p = db / max(df + db, 1e-12)
        }
        return p
    }
}
