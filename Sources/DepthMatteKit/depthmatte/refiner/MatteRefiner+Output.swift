// SPDX-License-Identifier: LGPL-2.1-or-later
import DMKernels

/// docs/quality.md step 2, refine=guided, sub-steps 2.4 (last part) to 2.7, on the
/// output grid.
extension RefinePass {
    /// The output grid, pixel by pixel: 2.4, the coefficients upsampled
    /// bilinearly and applied to the guide there, α = ā·I + b̄, clamped to
    /// the range of the four depth-resolution values around it
    /// (`rangeClamp`); 2.5, contrast; 2.6, temporal smoothing (each pixel
    /// reads and writes only its own `previous`); where the coarse fit has no
    /// edge, the rest of 2.5's `flatContrast`; 2.7, snap to 0 and 1.
    /// Interior pixels keep their filled label. Records the depth rows and
    /// columns under the pixels it leaves for 2.8 in band `b`'s `reach`.
    func output(_ ys: Range<Int>, band b: Int) {
        let dw = dw, dh = dh, gw = gw
        // (with 2.8 the matte goes to `raw`, which phase `edge` reads)
        let edged = edgeContrast > 0
        let dst = edged ? raw : out
        let unknown = DepthLabel.unknown.rawValue
        let invK = 1 / Float(k)
        var edgeRows = 0, edgeColumns = 0
        for y in ys {
            let fy = max(0, (Float(y) + 0.5) * invK - 0.5)
            let y0 = min(Int(fy), dh - 1), y1 = min(y0 + 1, dh - 1)
            let ty = fy - Float(y0)
            let innerRow = interior + min(Int(fy + 0.5), dh - 1) * dw
            let labelRow = label + min(Int(fy + 0.5), dh - 1) * dw
            // step 3's colour detail is 0 outside the columns the model
            // wrote last frame (`detailSpans`): only those are cleared again
            let spans = detail == nil ? nil : detailSpans
            let oldLo = spans.map { Int($0[2 * y]) } ?? 0, oldHi = spans.map { Int($0[2 * y + 1]) } ?? -1
            var newLo = gw, newHi = -1
            let blocks = edgeBlocks + y * RefinePass.edgeBlocksPerRow(gw)
            if edged { blocks.initialize(repeating: 0, count: RefinePass.edgeBlocksPerRow(gw)) }
            @inline(__always) func innerAt(_ x: Int) -> Float {
                let nx = Int(outputColumns[3 * x])
                return labelRow[nx] == unknown ? 0.5 : innerRow[nx]
            }
            var x = 0
            if avx2, let bases = outputBases {
                // (the same values eight at a time, `DMKernels`)
                let cm = CM.base, ny = min(Int(fy + 0.5), dh - 1)
                var row = DMOutputRow(
                    o: y * gw, gw: Int32(gw), dw: Int32(dw), n: n, cm0: cm + y0 * dw, cm1: cm + y1 * dw,
                    low0: low + y0 * dw, low1: low + y1 * dw, interior: interior + ny * dw, label: label + ny * dw,
                    unknown: Int32(unknown), ty: ty, block_bases: bases, offsets: outputOffsets, offset_stride: gw,
                    tx: outputWeights, grid: grid.base, gn: gn, up: y > 0 ? -gw : 0, down: y < gh - 1 ? gw : 0,
                    previous: previous, previous_guide: previousGuide, gs: gw * gh, dst: dst, out: out,
                    settled: edged ? settled : nil, detail: detail, old_lo: Int32(oldLo), old_hi: Int32(oldHi),
                    blocks: blocks, blend: blend ? 1 : 0, range_clamp: rangeClamp ? 1 : 0, contrast: contrast,
                    flat_contrast: flatContrast, detail_min_spread: detailMinSpread, detail_gain_limit: detailGainLimit,
                    colour_noise: colourNoise, colour_slack: colourSlack, hold: hold, leak: leak, base: base, gain: gain,
                    new_lo: 0, new_hi: 0)
                x = Int(dm_output_row_avx2(&row))
                newLo = Int(row.new_lo); newHi = Int(row.new_hi)
            }
            var scalarEnd = 0
            while x < gw {
                let o = y * gw + x
                if x >= scalarEnd && x + 4 <= gw {
                    // four interior pixels at once (most of the grid), the
                    // same values as one by one below
                    let v = F4(innerAt(x), innerAt(x + 1), innerAt(x + 2), innerAt(x + 3))
                    if all((v .== 1) .| (v .== 0)) && (!blend || all(loadF4(previous + o) .== v)) {
                        storeF4(v, dst + o)
                        if edged { storeF4(v, out + o); storeF4(F4(repeating: 1), settled + o) }
                        if !blend { storeF4(v, previous + o) }
                        if let detail, x + 3 >= oldLo && x <= oldHi {
                            for j in 0..<4 { storeF4(F4(repeating: 0), detail + 4 * (o + j)) }
                        }
                        x += 4
                        continue
                    }
                    scalarEnd = x + 4
                }
                defer { x += 1 }
                // interior pixels keep their label: the colour model (most
                // of the work here) is evaluated only where it has a say
                // (not for holes: a hole the fill made subject, inside a
                // wide occlusion shadow, is for the colour model to decide)
                let inner = innerAt(x)
                if (inner == 1 || inner == 0) && (!blend || previous[o] == inner) {
                    // most of the grid: the label, and (blending) the same as
                    // last frame, which the blend and the snap keep as it is
                    dst[o] = inner
                    if edged { out[o] = inner; settled[o] = 1 }
                    if !blend { previous[o] = inner }  // (blending, it holds this value already)
                    if let detail, x >= oldLo && x <= oldHi { storeF4(F4(repeating: 0), detail + 4 * o) }
                    continue
                }
                newLo = min(newLo, x); newHi = x
                if edged { blocks[x >> 4] = 1 }
                var m: Float
                var flat: Float = 1
                // step 3's colour detail: the gain where the model decides
                var g = F4(repeating: 0)
                if inner == 1 {
                    m = 1
                } else if inner == 0 {
                    m = 0
                } else {
                    (m, flat, g) = model(x, y0, y1, ty, o)
                }
                m = smoothed(m, o)
                // 2.7 (2.6 keeps the value before the rest of `flatContrast`)
                m = snapped(m)
                previous[o] = m
                if flat != 1 {
                    // 2.5, the rest of `flatContrast` (2.6 smoothed the milder value)
                    m = min(max((m - 0.5) * flat + 0.5, 0), 1)
                    m = snapped(m)
                }
                dst[o] = m
                if edged { settled[o] = 0 }
                if let detail { storeF4(g, detail + 4 * o) }
            }
            if let spans { spans[2 * y] = Int32(newLo); spans[2 * y + 1] = Int32(newHi) }
            if newHi >= 0 {
                // (2.8 reads the confidence at depth pixel (x / k, y / k))
                edgeRows = max(edgeRows, min(y / k, dh - 1) + 1)
                edgeColumns = max(edgeColumns, min(newHi / k, dw - 1) + 1)
            }
        }
        reachBuffer[4 * b + 2] = Int32(edgeRows); reachBuffer[4 * b + 3] = Int32(edgeColumns)
    }

    /// 2.8 on output rows `ys`: each value of `raw` that is not an interior
    /// pixel's label moves towards its [1 2 1]/4 smoothing down and across
    /// (edges replicated) with `edgeContrast` around 0.5, by
    /// u = min(1, (1 − c)·`edgeGate`), where c is the fit confidence of the
    /// depth pixel under it (u = 1 without a gate); with `edgeKeepSide`, never
    /// past 0.25 + v/2 towards 0.5 (it keeps its side of 0.5 and half its
    /// distance: a thin part the colour cannot separate is softened, not
    /// lost); then 2.7's snap. Into `out`.
    func edge(_ ys: Range<Int>) {
        let confidence = CM[.confidence]
        let perRow = RefinePass.edgeBlocksPerRow(gw)
        for y in ys {
            let up = y > 0 ? -gw : 0, down = y < gh - 1 ? gw : 0
            let c = confidence + min(y / k, dh - 1) * dw
            let blocks = edgeBlocks + y * perRow
            var x = 0
            if avx2 {
                // (the same values eight at a time, `DMKernels`)
                var row = DMEdgeRow(o: y * gw, up: up, down: down, gw: Int32(gw), k: Int32(k), dw: Int32(dw), raw: raw,
                                    settled: settled, confidence: c, out: out, blocks: blocks, contrast: edgeContrast,
                                    gate: edgeGate, keep_side: edgeKeepSide ? 1 : 0)
                x = Int(dm_edge_row_avx2(&row))
            }
            while x < gw {
                // (16 settled pixels: the block `output` did not mark)
                if x & 15 == 0 && blocks[x >> 4] == 0 { x += 16; continue }
                let o = y * gw + x
                // (four settled pixels at once: most of the grid)
                if x + 4 <= gw && all(loadF4(settled + o) .== 1) { x += 4; continue }
                defer { x += 1 }
                if settled[o] == 1 { continue }  // (`output` wrote it to `out` too)
                let v0 = raw[o]
                var u: Float = 1
                if edgeGate > 0 { u = min(1, (1 - c[min(x / k, dw - 1)]) * edgeGate) }
                if !(u > 0) { out[o] = v0; continue }
                let l = x > 0 ? o - 1 : o, r = x < gw - 1 ? o + 1 : o
                @inline(__always) func across(_ d: Int) -> Float { raw[l + d] + 2 * raw[o + d] + raw[r + d] }
                let smooth = (across(up) + 2 * across(0) + across(down)) * 0.0625
                let e = min(max((smooth - 0.5) * edgeContrast + 0.5, 0), 1)
                var v = v0 + u * (e - v0)
                if edgeKeepSide { v = v0 >= 0.5 ? max(v, 0.25 + 0.5 * v0) : min(v, 0.25 + 0.5 * v0) }
                out[o] = snapped(v)
            }
        }
    }

    /// 2.7: values within half an 8-bit level of 0 or 1 become 0 or 1.
    @inline(__always)
    private func snapped(_ v: Float) -> Float {
        v < 0.5 / 255 ? 0 : (v > 1 - 0.5 / 255 ? 1 : v)
    }

    /// 2.4 and 2.5 at output pixel o (column x, between depth rows y0 and
    /// y1 at weight ty): the colour model's matte, clamped to 0...1; the
    /// rest of `flatContrast` to apply after 2.6 (1: none); and step 3's
    /// colour detail gain (zero where the model has no say).
    @inline(__always)
    private func model(_ x: Int, _ y0: Int, _ y1: Int, _ ty: Float, _ o: Int) -> (Float, Float, F4) {
        let A = CM
        var m: Float
        var flat: Float = 1
        var g = F4(repeating: 0)
        let x0 = Int(outputColumns[3 * x + 1]), x1 = Int(outputColumns[3 * x + 2])
        let tx = outputWeights[x]
        let w00 = (1 - tx) * (1 - ty), w01 = tx * (1 - ty), w10 = (1 - tx) * ty, w11 = tx * ty
        let i00 = y0 * dw + x0, i01 = y0 * dw + x1, i10 = y1 * dw + x0, i11 = y1 * dw + x1
        @inline(__always) func up(_ c: Coefficient) -> Float {
            let a = A[c]
            return a[i00] * w00 + a[i01] * w01 + a[i10] * w10 + a[i11] * w11
        }
        let ar = up(.aR), ag = up(.aG), ab = up(.aB)
        let ir = grid[.r][o], ig = grid[.g][o], ib = grid[.b][o]
        let fit = ar * ir + ag * ig + ab * ib + up(.b)
        m = fit
        // (the depth-resolution range: also whether the coarse fit has an
        // edge here at all, for step 3's colour detail below)
        var spread: Float = 1
        if rangeClamp {
            let a00 = low[i00], a01 = low[i01], a10 = low[i10], a11 = low[i11]
            let lo = min(a00, a01, a10, a11), hi = max(a00, a01, a10, a11)
            m = min(max(m, lo), hi)
            spread = hi - lo
        }
        // 2.5
        m = (m - 0.5) * contrast + 0.5
        // (where the coarse fit has no edge, `flatContrast`, after 2.6)
        if spread < detailMinSpread { flat = flatContrast / contrast }
        if detail != nil && spread >= detailMinSpread && m == (fit - 0.5) * contrast + 0.5
            && m > -0.5 && m < 1.5 {
            // (only across an edge of the coarse fit (`detailMinSpread`);
            // not where the range
            // clamp held the model back; where the
            // contrast saturates, the model's overshoot (up to 0.5) stays
            // in the offset, so a video pixel whose colour differs from
            // the cell's mean can still cross to the other side)
            let sum = abs(ar) + abs(ag) + abs(ab)
            let c = contrast * min(1, detailGainLimit / max(sum * contrast, 1e-9))
            let over = m - min(max(m, 0), 1)
            g = F4(c * ar, c * ag, c * ab, c * (ar * ir + ag * ig + ab * ib) - over)
        }
        m = min(max(m, 0), 1)
        if !(m == m) { m = 0 }
        return (m, flat, g)
    }

    /// The guide's steepest change per grid pixel at o (the largest of the
    /// three channels' central differences across and down): what a
    /// misalignment of one grid pixel changes the colour there by.
    @inline(__always)
    private func gridSlope(_ o: Int) -> Float {
        let x = o % gw, y = o / gw
        let l = x > 0 ? o - 1 : o, r = x < gw - 1 ? o + 1 : o
        let u = y > 0 ? o - gw : o, d = y < gh - 1 ? o + gw : o
        @inline(__always) func slope(_ p: UnsafeMutablePointer<Float>) -> Float { max(abs(p[r] - p[l]), abs(p[d] - p[u])) }
        return 0.5 * max(slope(grid[.r]), slope(grid[.g]), slope(grid[.b]))
    }

    /// 2.6 at output pixel o: the matte m smoothed against last frame's
    /// (`previous`), by the depth's change alone or with the colour's
    /// evidence (`colourNoise`, which also updates `previousGuide`).
    @inline(__always)
    private func smoothed(_ m: Float, _ o: Int) -> Float {
        var m = m
        if blend && colourNoise <= 0 {
            // 2.6
            let prev = previous[o]
            let w = min(1, base + gain * abs(m - prev))
            m = prev + w * (m - prev)
        } else if colourNoise > 0 {
            // 2.6 with colour evidence (`colourNoise`): how far the colour
            // moved at this pixel since its matte was last set (a slow
            // drift adds up until it counts)
            let gr = grid[.r][o], gg = grid[.g][o], gb = grid[.b][o]
            let pg = previousGuide + o, gs = gw * gh
            var held = false
            if blend {
                let prev = previous[o]
                let dm = abs(m - prev)
                let dc = max(abs(gr - pg[0]), abs(gg - pg[gs]), abs(gb - pg[2 * gs]))
                let tolerance = colourNoise + (colourSlack > 0 ? colourSlack * gridSlope(o) : 0)
                let moved = min(1, max(0, dc - tolerance) / colourNoise)
                if dm <= hold * (1 - moved) {
                    // the colour did not change: only the depth's noise did
                    m = prev + leak * (m - prev)
                    held = true
                } else {
                    let w = min(1, base + gain * dm + moved)
                    m = prev + w * (m - prev)
                }
            }
            if !held { pg[0] = gr; pg[gs] = gg; pg[2 * gs] = gb }
        }
        return m
    }
}
