// SPDX-License-Identifier: LGPL-2.1-or-later
/// Translational registration of one frame against a reference frame, robust
/// to things that move through the shot.
///
/// Method (coarse to fine on a box-filtered luma pyramid):
///  1. Exhaustive integer search at a coarse level, over the whole
///     `maxShift` range, minimising the mean *truncated* absolute difference
///     (each pixel's contribution is capped, so a person walking through
///     costs at most a constant instead of dominating), followed by a
///     parabola fit through the neighbouring costs for a sub-pixel start.
///  2. At every finer level down to the finest registration level: robust
///     Gauss-Newton (Lucas-Kanade) with Tukey biweights (IRLS) on both the
///     intensity residual and the disagreement between the two frames'
///     gradients. The residual scale comes from the 30th percentile of
///     |residual| (not the median: moving objects may disagree over more than
///     half the pixels), tightened twice by the truncated second moment.
///     The gradient term matters: without it, object pixels that happen to
///     match the background's brightness but carry strong edges bias the
///     fit (measured: 0.17 px → 0.012 px mean error with 30% moving boxes).
/// The finest level is the largest one with at most
/// `LumaPyramid.maxFinestPixels` pixels (full resolution for small frames,
/// 1/2 for 640×480, 1/4 for 1080p).
///
/// Sign convention: the result `d` satisfies `moving(x + d) ≈ reference(x)`:
/// it is the displacement of the moving frame's content relative to the reference.

// MARK: - Pyramid

/// A luma pyramid in one owned Float buffer. Level L is the mean of
/// 2^L × 2^L blocks of full-resolution luma (BT.601 weights, 0...255);
/// levels run from `finest` to `coarsest`.
final class LumaPyramid {
    /// The finest stored level is the first with at most this many pixels
    /// (1080p: 1/4 scale, 480×270; 640×480: 1/2 scale; small frames: full).
    static let maxFinestPixels = 160_000
    /// The coarsest stored level still has at least this many pixels per side.
    static let minCoarsestSize = 8

    let width: Int, height: Int
    let finest: Int, coarsest: Int
    private(set) var widths: [Int] = [], heights: [Int] = [], offsets: [Int] = []
    let data: UnsafeMutablePointer<Float>
    /// False until `build` ran for the current frame.
    var valid = false

    init(width: Int, height: Int) {
        self.width = width
        self.height = height
        var f = 0
        while (width >> f) * (height >> f) > Self.maxFinestPixels { f += 1 }
        var c = f
        while min(width >> (c + 1), height >> (c + 1)) >= Self.minCoarsestSize { c += 1 }
        finest = f
        coarsest = c
        var total = 0
        for l in f...c {
            let w = max(width >> l, 1), h = max(height >> l, 1)
            widths.append(w); heights.append(h); offsets.append(total)
            total += w * h
        }
        data = .allocate(capacity: max(total, 1))
        data.initialize(repeating: 0, count: max(total, 1))
    }
    deinit { data.deallocate() }

    func levelSize(_ l: Int) -> (width: Int, height: Int) {
        (widths[l - finest], heights[l - finest])
    }
    func level(_ l: Int) -> UnsafeMutablePointer<Float> { data + offsets[l - finest] }

    /// Build from packed 8-bit RGB (`ps` bytes per pixel, component offsets r, g, b).
    func build(_ src: UnsafePointer<UInt8>, stride: Int, pixelStride ps: Int, r: Int, g: Int, b: Int) {
        let (w, h) = levelSize(finest)
        let dst = level(finest)
        let block = 1 << finest
        let scale = 1 / Float(256 * block * block)
        for y in 0..<h {
            let d = dst + y * w
            for x in 0..<w {
                var acc: Int32 = 0
                for yy in 0..<block {
                    var p = src + (y * block + yy) * stride + x * block * ps
                    for _ in 0..<block {
                        acc &+= 77 &* Int32(p[r]) &+ 150 &* Int32(p[g]) &+ 29 &* Int32(p[b])
                        p += ps
                    }
                }
                d[x] = Float(acc) * scale
            }
        }
        if coarsest > finest {
            for l in (finest + 1)...coarsest {
                let (w1, h1) = levelSize(l), (w0, _) = levelSize(l - 1)
                let s = level(l - 1), d = level(l)
                for y in 0..<h1 {
                    let a = s + 2 * y * w0, b = a + w0, o = d + y * w1
                    for x in 0..<w1 {
                        o[x] = 0.25 * (a[2 * x] + a[2 * x + 1] + b[2 * x] + b[2 * x + 1])
                    }
                }
            }
        }
        valid = true
    }
}

// MARK: - Registration

struct Registration {
    /// Content displacement of the moving frame relative to the reference, in pixels.
    var x: Double = 0
    var y: Double = 0
    /// False when the frames had too little texture or agreement to register;
    /// x and y are then 0.
    var ok = false
    init() {}
}

final class TranslationRegistrar {
    /// Tukey biweight constants, in units of the residual scale, for the
    /// intensity residual and for the disagreement of the two gradients
    /// (which rejects outliers that happen to match in brightness but not in
    /// structure, e.g. a striped shirt over a mid-grey wall).
    static let tukey: Float = 4.685
    static let tukeyGradient: Float = 6
    static let scaleRefinements = 2
    /// Cap on one pixel's contribution to the coarse search cost (luma units).
    static let truncation: Float = 12
    /// Work budget of the coarse search: positions × pixels.
    static let searchBudget = 1_500_000

    private var residuals = UnsafeMutablePointer<Float>.allocate(capacity: 1)
    private var gradientResiduals = UnsafeMutablePointer<Float>.allocate(capacity: 1)
    private var capacity = 0
    private var costs = UnsafeMutablePointer<Float>.allocate(capacity: 1)
    private var costCapacity = 0
    private var histogram = UnsafeMutablePointer<Int>.allocate(capacity: 256)
    private var gradientHistogram = UnsafeMutablePointer<Int>.allocate(capacity: 256)

    init() {}
    deinit { residuals.deallocate(); gradientResiduals.deallocate(); costs.deallocate(); histogram.deallocate(); gradientHistogram.deallocate() }

    /// Register `moving` against `reference` (same geometry), searching
    /// displacements up to `maxShift` full-resolution pixels in x and y.
    /// Frames of another size are not registered (`ok` false).
    func register(_ moving: LumaPyramid, to reference: LumaPyramid, maxShift: Double) -> Registration {
        var result = Registration()
        guard moving.width == reference.width && moving.height == reference.height else { return result }
        let (fw, fh) = moving.levelSize(moving.finest)
        if fw * fh > capacity {
            residuals.deallocate()
            gradientResiduals.deallocate()
            capacity = fw * fh
            residuals = .allocate(capacity: capacity)
            gradientResiduals = .allocate(capacity: capacity)
        }
        // Coarse level: the finest one whose full search fits the budget.
        var lc = moving.finest
        var radius = 0
        while true {
            let (w, h) = moving.levelSize(lc)
            radius = min(Int((maxShift / Double(1 << lc)).rounded(.up)), max(min(w, h) / 3, 0))
            let work = (2 * radius + 1) * (2 * radius + 1) * w * h
            if work <= Self.searchBudget || lc == moving.coarsest { break }
            lc += 1
        }
        var d = coarseSearch(moving, reference, level: lc, radius: radius)
        var fit = Fit()
        for l in stride(from: lc, through: moving.finest, by: -1) {
            if l != lc { d.x *= 2; d.y *= 2 }
            let limit = maxShift / Double(1 << l) + 1
            fit = refine(moving, reference, level: l, d: &d, iterations: l == moving.finest ? 12 : 6, limit: limit)

            if !fit.solved { break }
        }
        let scale = Double(1 << moving.finest)
        let dx = d.x * scale, dy = d.y * scale
        // Texture: smallest eigenvalue of the weighted normal matrix per unit
        // weight (luma² per pixel²); agreement: share of pixels with weight.
        if fit.solved && fit.texture > 0.02 && fit.inliers > 0.15
            && abs(dx) <= maxShift + 0.5 && abs(dy) <= maxShift + 0.5 {
            result.x = dx
            result.y = dy
            result.ok = true
        }
        return result
    }

    // MARK: coarse search

    private func coarseSearch(_ mov: LumaPyramid, _ ref: LumaPyramid, level l: Int, radius: Int) -> (x: Double, y: Double) {
        if radius <= 0 { return (0, 0) }
        let (w, h) = mov.levelSize(l)
        let img = mov.level(l), tpl = ref.level(l)
        let side = 2 * radius + 1
        if side * side > costCapacity {
            costs.deallocate()
            costCapacity = side * side
            costs = .allocate(capacity: costCapacity)
        }
        let tau = Self.truncation
        var best = Float.infinity, bu = 0, bv = 0
        for v in -radius...radius {
            for u in -radius...radius {
                let x0 = max(0, -u), x1 = min(w, w - u), y0 = max(0, -v), y1 = min(h, h - v)
                var c = Float.infinity
                if x1 > x0 && y1 > y0 && (x1 - x0) * (y1 - y0) * 2 >= w * h {
                    var s: Float = 0
                    for y in y0..<y1 {
                        let a = img + (y + v) * w + u, t = tpl + y * w
                        var rs: Float = 0
                        for x in x0..<x1 { rs += min(abs(a[x] - t[x]), tau) }
                        s += rs
                    }
                    c = s / Float((x1 - x0) * (y1 - y0))
                }
                costs[(v + radius) * side + (u + radius)] = c
                // prefer the smaller displacement on ties (flat pictures stay at 0)
                if c < best - 1e-6 || (abs(c - best) <= 1e-6 && abs(u) + abs(v) < abs(bu) + abs(bv)) {
                    best = c; bu = u; bv = v
                }
            }
        }
        func at(_ u: Int, _ v: Int) -> Float? {
            guard abs(u) <= radius && abs(v) <= radius else { return nil }
            let c = costs[(v + radius) * side + (u + radius)]
            return c.isFinite ? c : nil
        }
        func vertex(_ m: Float?, _ c: Float, _ p: Float?) -> Double {
            guard let m, let p else { return 0 }
            let den = m - 2 * c + p
            guard den > 1e-6 else { return 0 }
            return Double(max(-0.5, min(0.5, 0.5 * (m - p) / den)))
        }
        return (Double(bu) + vertex(at(bu - 1, bv), best, at(bu + 1, bv)),
                Double(bv) + vertex(at(bu, bv - 1), best, at(bu, bv + 1)))
    }

    // MARK: robust Gauss-Newton

    struct Fit {
        var solved = false
        var texture: Double = 0
        var inliers: Double = 0
    }

    private func refine(_ mov: LumaPyramid, _ ref: LumaPyramid, level l: Int, d: inout (x: Double, y: Double),
                        iterations: Int, limit: Double) -> Fit {
        let (w, h) = mov.levelSize(l)
        let img = mov.level(l), tpl = ref.level(l)
        var fit = Fit()
        // The gradient test is only meaningful near alignment: misalignment
        // alone makes gradients disagree. It starts once a step was small.
        var checkGradients = false
        for _ in 0..<iterations {
            let fxd = d.x.rounded(.down), fyd = d.y.rounded(.down)
            let ix = Int(fxd), iy = Int(fyd)
            let fx = Float(d.x - fxd), fy = Float(d.y - fyd)
            let x0 = max(1, 1 - ix), x1 = min(w - 2, w - 3 - ix)
            let y0 = max(1, 1 - iy), y1 = min(h - 2, h - 3 - iy)
            if x1 - x0 < 3 || y1 - y0 < 3 { return Fit() }
            // pass 1: residuals and a histogram of |r| in quarter luma steps
            for i in 0..<256 { histogram[i] = 0; gradientHistogram[i] = 0 }
            let n = residualPass(img, tpl, w, ix, iy, fx, fy, x0, x1, y0, y1)
            // robust scales of the residuals and of the gradient disagreement
            let (c2, ce2) = robustScales(n, checkGradients: checkGradients)
            // pass 2: Tukey-weighted normal equations, template gradients
            let (hxx, hxy, hyy, bx, by, sw) = normalEquations(tpl, w, x0, x1, y0, y1, c2: c2, ce2: ce2)
            guard sw > 16 else { return Fit() }
            let det = hxx * hyy - hxy * hxy
            let tr = hxx + hyy
            let lmin = 0.5 * (tr - (max(tr * tr - 4 * det, 0)).squareRoot())
            fit.texture = lmin / sw
            fit.inliers = sw / Double(n)
            guard det > 1e-9 * max(tr * tr, 1e-12), fit.texture > 1e-6 else { return Fit() }
            var sx = -(hyy * bx - hxy * by) / det
            var sy = -(hxx * by - hxy * bx) / det
            sx = max(-1, min(1, sx)); sy = max(-1, min(1, sy))
            d.x = max(-limit, min(limit, d.x + sx))
            d.y = max(-limit, min(limit, d.y + sy))
            fit.solved = true
            if sx * sx + sy * sy < 1e-6 && checkGradients { break }
            if sx * sx + sy * sy < 0.0625 { checkGradients = true }
        }
        return fit
    }

    /// Gauss-Newton pass 1 at the shift (ix + fx, iy + fy): the residuals
    /// and the gradients' disagreement over the samples x0...x1 x y0...y1
    /// into `residuals` and `gradientResiduals`, and their histograms of
    /// |r| in quarter luma steps. Returns the sample count.
    private func residualPass(_ img: UnsafeMutablePointer<Float>, _ tpl: UnsafeMutablePointer<Float>, _ w: Int,
                              _ ix: Int, _ iy: Int, _ fx: Float, _ fy: Float,
                              _ x0: Int, _ x1: Int, _ y0: Int, _ y1: Int) -> Int {
        var n = 0
        for y in y0...y1 {
            // rows y-1 ... y+2 of the moving level around the sample
            let a = img + (y + iy) * w + ix, b = a + w, au = a - w, bd = b + w
            let t = tpl + y * w, tu = t - w, td = t + w
            @inline(__always) func lerp(_ p: UnsafeMutablePointer<Float>, _ x: Int) -> Float {
                p[x] + fx * (p[x + 1] - p[x])
            }
            for x in x0...x1 {
                let top = lerp(a, x), bot = lerp(b, x)
                let r = top + fy * (bot - top) - t[x]
                residuals[n] = r
                // disagreement of the two gradients at the sample position
                let left = lerp(a, x - 1) + fy * (lerp(b, x - 1) - lerp(a, x - 1))
                let right = lerp(a, x + 1) + fy * (lerp(b, x + 1) - lerp(a, x + 1))
                let up = lerp(au, x) + fy * (top - lerp(au, x))
                let down = bot + fy * (lerp(bd, x) - bot)
                let e = 0.5 * (abs((right - left) - (t[x + 1] - t[x - 1])) + abs((down - up) - (td[x] - tu[x])))
                gradientResiduals[n] = e
                gradientHistogram[min(Int(e * 4), 255)] += 1
                n += 1
                histogram[min(Int(abs(r) * 4), 255)] += 1
            }
        }
        return n
    }

    /// The Tukey cut-offs (squared) from the histograms of `n` samples: the
    /// residuals' and, with `checkGradients`, the gradient disagreement's
    /// (infinity without).
    private func robustScales(_ n: Int, checkGradients: Bool) -> (Float, Float) {
        // robust scale from the 30th percentile of |r| (|N(0,1)| has it at 0.385)
        let target = (n * 3) / 10
        var cum = 0, bin = 0
        while bin < 255 && cum + histogram[bin] <= target { cum += histogram[bin]; bin += 1 }
        let q = (Float(bin) + 0.5) / 4
        var sigma = max(q / 0.385, 0.5)
        // The percentile overestimates the inliers' spread when many
        // pixels are outliers; shrink it with the second moment of the
        // residuals within 2.5 sigma (a normal truncated there keeps 94%
        // of its variance), twice.
        for _ in 0..<Self.scaleRefinements {
            let cut = 2.5 * sigma
            var m2: Float = 0, cnt = 0
            var lo = 0
            while lo < 256 && (Float(lo) + 0.5) / 4 < cut {
                let v = (Float(lo) + 0.5) / 4
                m2 += Float(histogram[lo]) * v * v
                cnt += histogram[lo]
                lo += 1
            }
            if cnt < 16 { break }
            sigma = max((m2 / Float(cnt) / 0.94).squareRoot(), 0.5)
        }
        let c2 = (Self.tukey * sigma) * (Self.tukey * sigma)
        // the gradient disagreement has its own scale (noise, and the
        // smoothing of bilinear resampling on steep texture)
        cum = 0; bin = 0
        while bin < 255 && cum + gradientHistogram[bin] <= target { cum += gradientHistogram[bin]; bin += 1 }
        let sigmaE = max((Float(bin) + 0.5) / 4 / 0.385, 0.5)
        let ce2 = checkGradients ? (Self.tukeyGradient * sigmaE) * (Self.tukeyGradient * sigmaE) : Float.infinity
        return (c2, ce2)
    }

    /// Gauss-Newton pass 2: the Tukey-weighted normal equations with the
    /// template's gradients (H, b and the weights' sum).
    private func normalEquations(_ tpl: UnsafeMutablePointer<Float>, _ w: Int, _ x0: Int, _ x1: Int, _ y0: Int, _ y1: Int,
                                 c2: Float, ce2: Float)
        -> (Double, Double, Double, Double, Double, Double) {
        var hxx = 0.0, hxy = 0.0, hyy = 0.0, bx = 0.0, by = 0.0, sw = 0.0
        var k = 0
        for y in y0...y1 {
            let t = tpl + y * w, tu = t - w, td = t + w
            var rxx: Float = 0, rxy: Float = 0, ryy: Float = 0, rbx: Float = 0, rby: Float = 0, rw: Float = 0
            for x in x0...x1 {
                let r = residuals[k], e = gradientResiduals[k]
                k += 1
                let rr = r * r, ee = e * e
                if rr < c2 && ee < ce2 {
                    let u = 1 - rr / c2, v = 1 - ee / ce2
                    let wt = u * u * v * v
                    let gx = 0.5 * (t[x + 1] - t[x - 1]), gy = 0.5 * (td[x] - tu[x])
                    rxx += wt * gx * gx; rxy += wt * gx * gy; ryy += wt * gy * gy
                    rbx += wt * gx * r; rby += wt * gy * r; rw += wt
                }
            }
            hxx += Double(rxx); hxy += Double(rxy); hyy += Double(ryy)
            bx += Double(rbx); by += Double(rby); sw += Double(rw)
        }
        return (hxx, hxy, hyy, bx, by, sw)
    }
}
