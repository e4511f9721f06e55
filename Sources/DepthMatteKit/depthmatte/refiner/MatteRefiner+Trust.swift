// SPDX-License-Identifier: LGPL-2.1-or-later
import DMKernels

/// docs/quality.md step 2, refine=guided, sub-step 2.3, first part: which depth
/// pixels are trusted, and what the trusted ones of each side look like.
extension RefinePass {
    /// 2.3: trust (a reading, and a filled label uniform within the band:
    /// holes, flying pixels on edges and the 1–2 px misregistration between
    /// depth and colour all fall into the untrusted band); the guide averaged
    /// from the grid cells to each depth cell; the products of the two-colour
    /// model (`SideProduct`).
    /// `ring`: room for `dw` columns (the band's scratch; the AVX2 kernel's ring columns of a row).
    func trust(_ ys: Range<Int>, ring: UnsafeMutablePointer<Int32>) {
        let uw = untrustedWeight, inv = 1 / Float(k * k)
        // (the band's guide rows first: `wallColoured` reads them)
        for y in ys {
            // the guide at depth resolution: the mean of each k × k block of
            // grid cells (summed row by row, left to right, from 0)
            for c in 0..<3 {  // GuideChannel r, g, b
                let g = grid.plane(c) + y * k * gw, out = L.plane(c) + y * dw
                var x = 0
                if k == 2 {
                    // four depth pixels per step, each lane in the same order
                    let g1 = g + gw
                    while x + 4 <= dw {
                        let a = UnsafeRawPointer(g + 2 * x).loadUnaligned(as: SIMD8<Float>.self)
                        let b = UnsafeRawPointer(g1 + 2 * x).loadUnaligned(as: SIMD8<Float>.self)
                        let sum = ((a.evenHalf + a.oddHalf) + b.evenHalf) + b.oddHalf
                        UnsafeMutableRawPointer(out + x).storeBytes(of: sum * inv, as: SIMD4<Float>.self)
                        x += 4
                    }
                }
                while x < dw {
                    var s: Float = 0
                    for j in 0..<k { for u in 0..<k { s += g[j * gw + x * k + u] } }
                    out[x] = s * inv
                    x += 1
                }
            }
        }
        for y in ys {
            // (background readings by their own band when it differs: the
            // `decision` plane holds the label's mean over it until `decide`;
            // one in the ring between the two bands is trusted only if its
            // colour is nearer the background readings around it than the
            // subject readings: a depth edge that lies inside the subject's
            // colour, by a misregistration of 2, leaves subject colour there)
            let mb = backgroundBand == band ? boxed : decision
            if avx2 {
                // (the ring pixels' columns from the kernel, then their colour test)
                let row = y * dw
                let count = dm_trust_row_avx2(label + row, boxed + row, mb + row, weight + row, dw,
                                              DepthLabel.unknown.rawValue, uw, ring)
                for j in 0..<count {
                    let x = Int(ring[j])
                    weight[row + x] = wallColoured(x, y, guideRows: ys) ? 1 : uw
                }
            } else {
                for x in 0..<dw {
                    let i = y * dw + x
                    let m = boxed[i]
                    var trusted = label[i] != DepthLabel.unknown.rawValue && (m == 1 || mb[i] == 0)
                    if trusted && m != 0 && m != 1 { trusted = wallColoured(x, y, guideRows: ys) }
                    weight[i] = trusted ? 1 : uw
                }
            }
            // untrusted pixels: foreground if their colour is nearer the mean
            // colour of the trusted foreground than of the trusted background in
            // the window (a local two-colour model; no window extrapolates)
            // (only when the window means of the sides can decide: `needsSideMeans`)
            var x = needsSideMeans ? 0 : dw
            while x + 4 <= dw {  // four pixels at a time, as the scalar tail per lane
                let i = y * dw + x
                let t = loadF4(weight + i) .== 1, f = loadF4(fill + i)
                let wf = F4(repeating: 0).replacing(with: 1, where: t .& (f .== 1))
                let wb = F4(repeating: 0).replacing(with: 1, where: t .& (f .== 0))
                let R = loadF4(L[.r] + i), G = loadF4(L[.g] + i), B = loadF4(L[.b] + i)
                storeF4(wf, side[.subject] + i); storeF4(wf * R, side[.subjectR] + i)
                storeF4(wf * G, side[.subjectG] + i); storeF4(wf * B, side[.subjectB] + i)
                storeF4(wb, side[.background] + i); storeF4(wb * R, side[.backgroundR] + i)
                storeF4(wb * G, side[.backgroundG] + i); storeF4(wb * B, side[.backgroundB] + i)
                x += 4
            }
            for x in x..<dw {
                let i = y * dw + x
                let t = weight[i] == 1, f = fill[i]
                let wf: Float = t && f == 1 ? 1 : 0, wb: Float = t && f == 0 ? 1 : 0
                let R = L[.r][i], G = L[.g][i], B = L[.b][i]
                side[.subject][i] = wf; side[.subjectR][i] = wf * R; side[.subjectG][i] = wf * G; side[.subjectB][i] = wf * B
                side[.background][i] = wb; side[.backgroundR][i] = wb * R; side[.backgroundG][i] = wb * G
                side[.backgroundB][i] = wb * B
            }
        }
    }

    /// The guide's colour of depth pixel (x, y), from the grid (every row of
    /// the grid is there before phase `trust`; `L` is only for its own rows).
    @inline(__always) func gridColour(_ x: Int, _ y: Int) -> SIMD4<Float> {
        var c = SIMD4<Float>(repeating: 0)
        for j in 0..<k {
            let row = (y * k + j) * gw + x * k
            for u in 0..<k { c += SIMD4(grid[.r][row + u], grid[.g][row + u], grid[.b][row + u], 0) }
        }
        return c / Float(k * k)
    }

    /// A background reading in the ring between `backgroundBand` and `band`:
    /// its colour is nearer (squared RGB) the other background readings
    /// within `band` than the subject readings there. The colours of rows
    /// `guideRows` are read from `L` where k is a power of two (k · k cells
    /// summed in `gridColour`'s order, times 1 / (k · k), which is exact:
    /// the same bits as its division; the sign of a zero sum aside, which
    /// the squared distance drops).
    func wallColoured(_ x: Int, _ y: Int, guideRows: Range<Int>) -> Bool {
        let fromL = k & (k - 1) == 0
        let Lr = L[.r], Lg = L[.g], Lb = L[.b]
        @inline(__always) func colour(_ x: Int, _ y: Int) -> SIMD4<Float> {
            if fromL && guideRows.contains(y) {
                let i = y * dw + x
                return SIMD4(Lr[i], Lg[i], Lb[i], 0)
            }
            return gridColour(x, y)
        }
        let c = colour(x, y)
        var du = Float.infinity, db = Float.infinity
        let subject = DepthLabel.subject.rawValue, background = DepthLabel.background.rawValue
        for yy in max(0, y - band)...min(dh - 1, y + band) {
            for xx in max(0, x - band)...min(dw - 1, x + band) where xx != x || yy != y {
                let l = label[yy * dw + xx]
                if l != subject && l != background { continue }
                let e = colour(xx, yy) - c
                let d = (e * e).sum()
                if l == subject { du = min(du, d) } else { db = min(db, d) }
            }
        }
        return db < du
    }
}
