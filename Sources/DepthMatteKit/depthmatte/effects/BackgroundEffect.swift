// SPDX-License-Identifier: LGPL-2.1-or-later
/// Background effects: the video itself, changed, as the picture behind the
/// subject when no background pad is linked (`background-effect`). The bridge
/// hands the effected copy to the compositor as the background, so where the
/// matte is 1 the output is the untouched video and the effect shows only
/// where the matte says background.
///
/// - desaturate: Rec.709 luma grey, Y = (54 R + 183 G + 19 B + 128) >> 8.
/// - comic: each channel posterised to 4 levels (0, 85, 170, 255) and black
///   lines where the Sobel gradient magnitude |Gx| + |Gy| of luma exceeds
///   `comicEdge` (128, 8-bit units), like Core Image's comic effect.
/// - blur: a box blur of the video applied three times (close to a Gaussian) at a
///   quarter of the resolution, `radius` in video pixels; pixels with weight 0
///   (the subject, from depth) do not contribute, so the subject does not
///   leave a halo in the blurred background. With a `growth` plane the blur
///   grows with depth behind the subject: a third of the radius just behind
///   it, the full radius from `growth` = 1 on.

enum BackgroundEffect: Int32, CaseIterable, Sendable {
    case none = 0
    case desaturate = 1
    case comic = 2
    case blur = 3
}

final class BackgroundEffects {
    /// Comic edge threshold on |Gx| + |Gy| of 8-bit luma.
    var comicEdge: Int = 128
    private var buffer: UnsafeMutablePointer<UInt8>?
    private var capacity = 0
    private var luma: [UInt8] = []
    private var small: [Float] = []
    private var tmp: [Float] = []
    private var near: [Float] = []
    private var wcol: [Int] = []
    private var cellRGB: [UInt8] = []

    init() {}
    deinit { buffer?.deallocate() }

    /// 4 levels: round(c · 3 / 255) · 85.
    @inlinable static func posterize(_ c: UInt8) -> UInt8 { UInt8(((Int(c) * 3 + 127) / 255) * 85) }

    @inlinable static func luma(_ p: UnsafePointer<UInt8>, _ v: RGBImageView) -> Int {
        (54 * Int(p[v.r]) + 183 * Int(p[v.g]) + 19 * Int(p[v.b]) + 128) >> 8
    }

    /// A copy of `video` (same size and layout, tightly packed rows) with the
    /// effect applied; valid until the next call. `weight`, when given, is the
    /// blur weight (0 = subject, 1 = background) at its own resolution.
    /// `growth`, when given (blur only, 0…1 at its own resolution), mixes per
    /// pixel from a blur of a third of `radius` (0) to the full `radius` (1).
    func apply(_ e: BackgroundEffect, video v: RGBImageView, radius: Double = 12,
                      weight: FloatPlane? = nil, growth: FloatPlane? = nil) -> RGBImageView {
        let ps = v.pixelStride, W = v.width, H = v.height
        let stride = W * ps
        if stride * H > capacity {
            buffer?.deallocate()
            capacity = stride * H
            buffer = .allocate(capacity: capacity)
        }
        let out = RGBImageView(base: buffer!, width: W, height: H, stride: stride, pixelStride: ps,
                               r: v.r, g: v.g, b: v.b, a: v.a)
        for y in 0..<H { (out.row(y)).update(from: v.row(y), count: stride) }
        switch e {
        case .none: break
        case .desaturate:
            for y in 0..<H {
                let row = out.row(y)
                for x in 0..<W {
                    let p = row + x * ps
                    let l = UInt8(BackgroundEffects.luma(p, v))
                    p[v.r] = l; p[v.g] = l; p[v.b] = l
                }
            }
        case .comic: comic(v, out)
        case .blur: blur(v, out, radius: radius, weight: weight, growth: growth)
        }
        return out
    }

    private func comic(_ v: RGBImageView, _ out: RGBImageView) {
        let W = v.width, H = v.height, ps = v.pixelStride
        if luma.count < W * H { luma = [UInt8](repeating: 0, count: W * H) }
        for y in 0..<H {
            let row = v.row(y)
            for x in 0..<W { luma[y * W + x] = UInt8(BackgroundEffects.luma(row + x * ps, v)) }
        }
        luma.withUnsafeBufferPointer { L in
            for y in 0..<H {
                let row = out.row(y)
                let ym = max(0, y - 1), yp = min(H - 1, y + 1)
                for x in 0..<W {
                    let xm = max(0, x - 1), xp = min(W - 1, x + 1)
                    @inline(__always) func l(_ xx: Int, _ yy: Int) -> Int { Int(L[yy * W + xx]) }
                    let gx = (l(xp, ym) + 2 * l(xp, y) + l(xp, yp)) - (l(xm, ym) + 2 * l(xm, y) + l(xm, yp))
                    let gy = (l(xm, yp) + 2 * l(x, yp) + l(xp, yp)) - (l(xm, ym) + 2 * l(x, ym) + l(xp, ym))
                    let p = row + x * ps
                    if abs(gx) + abs(gy) > comicEdge {
                        p[v.r] = 0; p[v.g] = 0; p[v.b] = 0
                    } else {
                        p[v.r] = BackgroundEffects.posterize(p[v.r])
                        p[v.g] = BackgroundEffects.posterize(p[v.g])
                        p[v.b] = BackgroundEffects.posterize(p[v.b])
                    }
                }
            }
        }
    }

    /// Weighted box blur (3 passes) at 1/4 resolution, upsampled by nearest block.
    private func blur(_ v: RGBImageView, _ out: RGBImageView, radius: Double, weight: FloatPlane?,
                      growth: FloatPlane?) {
        let f = 4
        let W = v.width, H = v.height
        let sw = max(1, (W + f - 1) / f), sh = max(1, (H + f - 1) / f)
        let n = sw * sh
        downsample(v, weight: weight, factor: f, cellsWide: sw, cells: n)
        blurCells(radius: radius, growth: growth, factor: f, cellsWide: sw, cellsHigh: sh, cells: n)
        if let g = growth { mixNear(g, factor: f, cellsWide: sw, cellsHigh: sh, width: W, height: H) }
        upsample(v, into: out, factor: f, cellsWide: sw, cells: n)
    }

    /// The video's weighted sums per f x f cell into `small` (r·w, g·w,
    /// b·w, w; weight 1 without a weight plane).
    private func downsample(_ v: RGBImageView, weight: FloatPlane?, factor f: Int, cellsWide sw: Int, cells n: Int) {
        let W = v.width, H = v.height, ps = v.pixelStride
        let rOff = v.r, gOff = v.g, bOff = v.b
        // 4 channels: r*w, g*w, b*w, w
        if small.count < 4 * n { small = [Float](repeating: 0, count: 4 * n) }
        if tmp.count < 4 * n { tmp = [Float](repeating: 0, count: 4 * n) }
        for i in 0..<(4 * n) { small[i] = 0 }
        if wcol.count < W { wcol = [Int](repeating: 0, count: W) }
        if let wp = weight { for x in 0..<W { wcol[x] = min(wp.width - 1, x * wp.width / W) } }
        small.withUnsafeMutableBufferPointer { S in
            wcol.withUnsafeBufferPointer { C in
                let none: [Float] = []
                (weight?.pixels ?? none).withUnsafeBufferPointer { WP in
                    for y in 0..<H {
                        let row = v.row(y)
                        let cells = S.baseAddress! + 4 * ((y / f) * sw)
                        if let wp = weight {
                            let wrow = WP.baseAddress! + min(wp.height - 1, y * wp.height / H) * wp.width
                            for x in 0..<W {
                                let w = wrow[C[x]]
                                let p = row + x * ps
                                let c = cells + 4 * (x / f)
                                c[0] += w * Float(p[rOff]); c[1] += w * Float(p[gOff])
                                c[2] += w * Float(p[bOff]); c[3] += w
                            }
                        } else {
                            for x in 0..<W {
                                let p = row + x * ps
                                let c = cells + 4 * (x / f)
                                c[0] += Float(p[rOff]); c[1] += Float(p[gOff]); c[2] += Float(p[bOff]); c[3] += 1
                            }
                        }
                    }
                }
            }
        }
    }

    /// Three box passes over the cells (the blur's radius in cells); with
    /// `growth`, also the milder blur near the subject into `near`.
    private func blurCells(radius: Double, growth: FloatPlane?, factor f: Int, cellsWide sw: Int, cellsHigh sh: Int,
                           cells n: Int) {
        let r = max(0, Int((radius / Double(f) / 3).rounded()))   // three passes of width 2r+1
        if growth != nil {
            // the near-the-subject blur: a third of the radius
            if near.count < 4 * n { near = [Float](repeating: 0, count: 4 * n) }
            for i in 0..<(4 * n) { near[i] = small[i] }
            let rn = max(0, Int((radius / 3 / Double(f) / 3).rounded()))
            if rn > 0 {
                for _ in 0..<3 {
                    boxPass(&near, &tmp, sw, sh, rn, horizontal: true)
                    boxPass(&tmp, &near, sw, sh, rn, horizontal: false)
                }
            }
        }
        if r > 0 {
            for _ in 0..<3 {
                boxPass(&small, &tmp, sw, sh, r, horizontal: true)
                boxPass(&tmp, &small, sw, sh, r, horizontal: false)
            }
        }
    }

    /// Per low-res cell: mix the normalised colours of the two blurs by
    /// `g` (1: the full blur).
    private func mixNear(_ g: FloatPlane, factor f: Int, cellsWide sw: Int, cellsHigh sh: Int, width W: Int, height H: Int) {
        for sy in 0..<sh {
            let gy = min(g.height - 1, (sy * f) * g.height / max(1, H))
            for sx in 0..<sw {
                let t = max(0, min(1, g.pixels[gy * g.width + min(g.width - 1, (sx * f) * g.width / max(1, W))]))
                let k = 4 * (sy * sw + sx)
                let wf = small[k + 3], wn = near[k + 3]
                if wf > 1e-6 && wn > 1e-6 {
                    for c in 0..<3 { small[k + c] = (t * small[k + c] / wf + (1 - t) * near[k + c] / wn) }
                    small[k + 3] = 1
                } else if wn > 1e-6 {
                    for c in 0..<4 { small[k + c] = near[k + c] }
                }
            }
        }
    }

    /// One colour per cell, then copied to its pixels of `out` (in the
    /// video's layout; cells with no weight keep the video).
    private func upsample(_ v: RGBImageView, into out: RGBImageView, factor f: Int, cellsWide sw: Int, cells n: Int) {
        let W = v.width, H = v.height, ps = v.pixelStride
        let rOff = v.r, gOff = v.g, bOff = v.b
        if cellRGB.count < 4 * n { cellRGB = [UInt8](repeating: 0, count: 4 * n) }
        for k in 0..<n {
            let w = small[4 * k + 3]
            if w > 1e-6 {
                cellRGB[4 * k] = UInt8(min(255, max(0, (small[4 * k] / w).rounded())))
                cellRGB[4 * k + 1] = UInt8(min(255, max(0, (small[4 * k + 1] / w).rounded())))
                cellRGB[4 * k + 2] = UInt8(min(255, max(0, (small[4 * k + 2] / w).rounded())))
                cellRGB[4 * k + 3] = 1
            } else {
                cellRGB[4 * k + 3] = 0
            }
        }
        cellRGB.withUnsafeBufferPointer { CB in
            for y in 0..<H {
                let row = out.row(y)
                let cells = CB.baseAddress! + 4 * ((y / f) * sw)
                for x in 0..<W {
                    let c = cells + 4 * (x / f)
                    if c[3] != 0 {
                        let p = row + x * ps
                        p[rOff] = c[0]; p[gOff] = c[1]; p[bOff] = c[2]
                    }
                }
            }
        }
    }

    private func boxPass(_ src: inout [Float], _ dst: inout [Float], _ w: Int, _ h: Int, _ r: Int, horizontal: Bool) {
        let len = horizontal ? w : h, lines = horizontal ? h : w
        // element step along a line and between lines, in floats (4 per cell)
        let step = horizontal ? 4 : 4 * w, lineStep = horizontal ? 4 * w : 4
        src.withUnsafeBufferPointer { S in
            dst.withUnsafeMutableBufferPointer { D in
                for line in 0..<lines {
                    let s0 = S.baseAddress! + line * lineStep
                    let d0 = D.baseAddress! + line * lineStep
                    // window [i-r, i+r], clamped (edge samples excluded, weights carry the normalisation)
                    var a0: Float = 0, a1: Float = 0, a2: Float = 0, a3: Float = 0
                    for j in 0...min(r, len - 1) {
                        let k = s0 + j * step
                        a0 += k[0]; a1 += k[1]; a2 += k[2]; a3 += k[3]
                    }
                    for i in 0..<len {
                        let d = d0 + i * step
                        d[0] = a0; d[1] = a1; d[2] = a2; d[3] = a3
                        let add = i + r + 1, sub = i - r
                        if add < len { let k = s0 + add * step; a0 += k[0]; a1 += k[1]; a2 += k[2]; a3 += k[3] }
                        if sub >= 0 { let k = s0 + sub * step; a0 -= k[0]; a1 -= k[1]; a2 -= k[2]; a3 -= k[3] }
                    }
                }
            }
        }
    }
}

extension BackgroundEffects {
    /// The blur's weights from depth, at depth resolution: `weight` is 0 on the
    /// subject (so it leaves no halo) and 1 behind it (nearer than `cutoff`
    /// metres is the subject; with `focus`, 1 − the focus mask); `growth` goes
    /// from 0 at the subject's depth (the cutoff, or the focus distance) to 1
    /// at 1 m behind it. Holes (0) count as background in both.
    static func depthWeights(depth d: Depth16View, scale: Double, cutoff: Double, focus: FocusSettings?,
                                    weight: inout FloatPlane, growth: inout FloatPlane) {
        weight.resize(width: d.width, height: d.height)
        growth.resize(width: d.width, height: d.height)
        let ref = focus?.focus ?? cutoff
        for y in 0..<d.height {
            for x in 0..<d.width {
                let raw = d.at(x, y)
                let m = Double(raw) * scale
                let w: Float
                if raw == 0 { w = 1 }
                else if let focus { w = 1 - FocusMask.alpha(metres: m, focus) }
                else { w = m > cutoff ? 1 : 0 }
                weight[x, y] = w
                growth[x, y] = raw == 0 ? 1 : Float(max(0, min(1, m - ref)))
            }
        }
    }
}
