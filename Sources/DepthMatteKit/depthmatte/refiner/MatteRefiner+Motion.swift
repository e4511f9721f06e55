// SPDX-License-Identifier: LGPL-2.1-or-later
/// docs/quality.md step 2, refine=guided, sub-step 2.6, first part: camera motion
/// (`MatteRefiner.Tuning.cameraMotion`). When the whole picture moved
/// since the last frame (a pan, a hand-held camera), the temporal state
/// (the previous matte and the guide it was set with on the output grid,
/// the previous labels and their guide at depth resolution) is moved with
/// it before 2.6 compares the new frame with it: what the depth's noise or
/// its sampling grid changes is then held as on a still camera, and the
/// edge moves with the picture by fractions of a pixel instead of in the
/// steps the depth grid quantises it to.
///
/// The motion is one translation of the guide's luma at depth resolution
/// (Lucas–Kanade, a few Gauss–Newton steps on every second pixel, residuals
/// over `motionOutlier` down-weighted so a person moving over a still room
/// does not drag the estimate). It is used only when it explains the
/// change: the luma residual after the shift must be below `motionGain` of
/// the residual without it, the shift at most `motionRange` depth pixels
/// (larger motion is followed at once anyway), and at most one region of a
/// 4 x 4 grid worse with it (`cameraMotionUsable`: on the real Motorcycle
/// pan one region read worse in 3 of 9 frames from the noise alone; a
/// person moving in a room makes several worse). A still camera, a person
/// moving in a still textured room or a cut leave the state where it is;
/// a person moving over a plain wall is followed (nothing says the wall
/// stayed, and a plain wall looks the same shifted).
@_spi(Bench) public struct MotionEstimator {
    /// Depth pixels of the estimated shift (x, y): the picture content at
    /// (x, y) in the previous frame is at (x + dx, y + dy) now.
    @_spi(Bench) public internal(set) var dx: Float = 0, dy: Float = 0
    /// Mean squared luma residual per sampled pixel, without and with the shift.
    @_spi(Bench) public internal(set) var before: Float = 0, after: Float = 0
    /// Regions (of a 4 x 4 grid) whose residual the shift made worse (by over 10 %).
    @_spi(Bench) public internal(set) var worse = 0
    /// Regions per side of that grid.
    static let regionSide = 4
    /// Whether the shift was applied to the temporal state this frame.
    @_spi(Bench) public internal(set) var applied = false

    init() {}

    /// Estimate the shift from `previous` to `current` (luma planes `w` × `h`).
    /// Every second pixel of every second row is sampled; the first step
    /// (no shift yet: no interpolation) also gives the residual without a
    /// shift, and a still picture stops there.
    mutating func estimate(previous p: UnsafePointer<Float>, current c: UnsafePointer<Float>, width w: Int, height h: Int,
                           outlier: Float, iterations: Int = 4) {
        dx = 0; dy = 0; before = 0; after = 0; worse = 0
        let m = Self.border
        guard w > 2 * m + 8, h > 2 * m + 8 else { return }
        let q = MotionEstimator.regionSide
        withUnsafeTemporaryAllocation(of: Double.self, capacity: 2 * q * q) { re in
            re.initialize(repeating: 0)
            let tau2 = outlier * outlier
            // first step, at no shift
            var (s, e0, count) = Self.unshiftedSums(p, c, w, h, regions: re.baseAddress!)
            before = Float(e0 / Double(max(count, 1)))
            after = before
            var vx: Float = 0, vy: Float = 0
            for it in 0..<iterations {
                if it > 0 { s = Self.shiftedSums(p, c, w, h, vx, vy, tau2) }
                let a11 = s.a11, a12 = s.a12, a22 = s.a22, b1 = s.b1, b2 = s.b2
                let det = a11 * a22 - a12 * a12
                if det <= 1e-12 * (a11 + a22) * (a11 + a22) || det <= 0 { return }
                // c(x) ≈ p(x − v − δ) ≈ p(x − v) − ∇ · δ: the residual
                // r + ∇ · δ is least for A δ = −b
                let dvx = Float((-a22 * b1 + a12 * b2) / det), dvy = Float((a12 * b1 - a11 * b2) / det)
                vx += dvx; vy += dvy
                if !(vx.isFinite && vy.isFinite) || abs(vx) > 8 || abs(vy) > 8 { return }
                // (a still picture: done, nothing moved)
                if it == 0 && abs(vx) + abs(vy) < 0.005 { return }
                if abs(dvx) < 0.002 && abs(dvy) < 0.002 { break }
            }
            // the residual with the final shift, per region too
            let e = Self.residual(p, c, w, h, vx, vy, regions: re.baseAddress! + q * q)
            after = Float(e / Double(max(count, 1)))
            dx = vx; dy = vy
            for k in 0..<(q * q) where re[q * q + k] > 1.1 * re[k] + 1e-9 { worse += 1 }
        }
    }

    /// The border the shift never reads outside of.
    static let border = 3

    /// The least-squares system of a step: A = [a11 a12; a12 a22], b.
    struct Normal {
        var a11: Double = 0, a12: Double = 0, a22: Double = 0, b1: Double = 0, b2: Double = 0
    }

    /// `body(x, y, region)` at every sampled pixel of a `w` x `h` plane:
    /// every second pixel of every second row inside the border, the rows
    /// and columns in q bands each (the regions of a q x q grid: a shift
    /// that explains a moving person makes the still room around it worse).
    @inline(__always)
    private static func samples(_ w: Int, _ h: Int, _ body: (Int, Int, Int) -> Void) {
        let m = border, q = regionSide
        @inline(__always) func bandEnd(_ b: Int, _ n: Int) -> Int { b == q - 1 ? n - m : m + (b + 1) * (n - 2 * m) / q }
        var y = m
        for by in 0..<q {
            let yEnd = bandEnd(by, h)
            while y < yEnd {
                var x = m
                for bx in 0..<q {
                    let xEnd = bandEnd(bx, w)
                    while x < xEnd { body(x, y, by * q + bx); x += 2 }
                }
                y += 2
            }
        }
    }

    /// The first step, at no shift: the mean of both pictures' central
    /// differences for the gradient (no first-order bias). Returns the
    /// system, the squared residual's sum and the sample count; adds each
    /// region's squared residual to `re`.
    @inline(__always)
    private static func unshiftedSums(_ p: UnsafePointer<Float>, _ c: UnsafePointer<Float>, _ w: Int, _ h: Int,
                                      regions re: UnsafeMutablePointer<Double>) -> (Normal, Double, Int) {
        var a11: Double = 0, a12: Double = 0, a22: Double = 0, b1: Double = 0, b2: Double = 0
        var e0: Double = 0, count = 0
        samples(w, h) { x, y, k in
            let i = y * w + x
            let r: Float = c[i] - p[i]
            let gx: Float = 0.25 * (c[i + 1] - c[i - 1] + p[i + 1] - p[i - 1])
            let gy: Float = 0.25 * (c[i + w] - c[i - w] + p[i + w] - p[i - w])
            a11 += Double(gx * gx); a12 += Double(gx * gy); a22 += Double(gy * gy)
            b1 += Double(gx * r); b2 += Double(gy * r)
            e0 += Double(r * r); count += 1
            re[k] += Double(r * r)
        }
        return (Normal(a11: a11, a12: a12, a22: a22, b1: b1, b2: b2), e0, count)
    }

    /// A later step: the system against the previous luma at (x − v),
    /// bilinear, and its gradient (residuals over the outlier level, tau2
    /// its square, count less).
    @inline(__always)
    private static func shiftedSums(_ p: UnsafePointer<Float>, _ c: UnsafePointer<Float>, _ w: Int, _ h: Int,
                                    _ vx: Float, _ vy: Float, _ tau2: Float) -> Normal {
        let fx = (-vx).rounded(.down), fy = (-vy).rounded(.down)
        let ix = Int(fx), iy = Int(fy), tx = -vx - fx, ty = -vy - fy
        var a11: Double = 0, a12: Double = 0, a22: Double = 0, b1: Double = 0, b2: Double = 0
        samples(w, h) { x, y, _ in
            let sy = min(max(y + iy, 1), h - 3), sx = min(max(x + ix, 1), w - 3)
            let r0 = p + sy * w, r1 = r0 + w, r2 = r1 + w, rm = r0 - w
            let i = y * w + x
            let warped = lerp2(r0, r1, sx, sx + 1, tx, ty)
            let wx: Float = lerp2(r0, r1, sx + 1, sx + 2, tx, ty) - lerp2(r0, r1, sx - 1, sx, tx, ty)
            let wy: Float = lerp2(r1, r2, sx, sx + 1, tx, ty) - lerp2(rm, r0, sx, sx + 1, tx, ty)
            let gx: Float = 0.25 * (c[i + 1] - c[i - 1] + wx), gy: Float = 0.25 * (c[i + w] - c[i - w] + wy)
            let r: Float = c[i] - warped
            let wgt: Float = 1 / (1 + r * r / tau2)
            a11 += Double(wgt * gx * gx); a12 += Double(wgt * gx * gy); a22 += Double(wgt * gy * gy)
            b1 += Double(wgt * gx * r); b2 += Double(wgt * gy * r)
        }
        return Normal(a11: a11, a12: a12, a22: a22, b1: b1, b2: b2)
    }

    /// The squared residual's sum with the shift (vx, vy); adds each
    /// region's to `re`.
    @inline(__always)
    private static func residual(_ p: UnsafePointer<Float>, _ c: UnsafePointer<Float>, _ w: Int, _ h: Int,
                                 _ vx: Float, _ vy: Float, regions re: UnsafeMutablePointer<Double>) -> Double {
        let fx = (-vx).rounded(.down), fy = (-vy).rounded(.down)
        let ix = Int(fx), iy = Int(fy), tx = -vx - fx, ty = -vy - fy
        var e: Double = 0
        samples(w, h) { x, y, k in
            let sy = min(max(y + iy, 0), h - 2), sx = min(max(x + ix, 0), w - 2)
            let r0 = p + sy * w
            let r: Float = c[y * w + x] - lerp2(r0, r0 + w, sx, sx + 1, tx, ty)
            e += Double(r * r)
            re[k] += Double(r * r)
        }
        return e
    }

    /// Move `plane` (`w` × `h`, `planes` consecutive planes `stride` floats
    /// apart) by (sx, sy) pixels, edges repeated: the value at (x, y)
    /// becomes the old value at (x − sx, y − sy). Separable Catmull-Rom
    /// cubic, clamped to the range of the four nearest old values (no
    /// overshoot): a held state is moved again every frame of a pan, and
    /// bilinear's blur would add up over the frames it is held. `tmp`
    /// holds one plane.
    static func shift(_ plane: UnsafeMutablePointer<Float>, planes: Int, stride: Int, width w: Int, height h: Int,
                      by sx: Float, _ sy: Float, tmp: UnsafeMutablePointer<Float>) {
        guard w >= 2, h >= 2 else { return }
        let fx = (-sx).rounded(.down), fy = (-sy).rounded(.down)
        let ix = Int(fx), iy = Int(fy)
        let kx = catmullRom(-sx - fx), ky = catmullRom(-sy - fy)
        for c in 0..<planes {
            let q = plane + c * stride
            // horizontal into tmp, keeping the row's two nearest for the clamp
            for y in 0..<h {
                let row = UnsafePointer(q + y * w), out = tmp + y * w
                for x in 0..<w {
                    @inline(__always) func at(_ d: Int) -> Float { row[min(max(x + ix + d, 0), w - 1)] }
                    let a = at(0), b = at(1)
                    let v = kx.0 * at(-1) + kx.1 * a + kx.2 * b + kx.3 * at(2)
                    out[x] = min(max(v, min(a, b)), max(a, b))
                }
            }
            // vertical back into the plane
            for y in 0..<h {
                @inline(__always) func rowAt(_ d: Int) -> UnsafePointer<Float> { UnsafePointer(tmp + min(max(y + iy + d, 0), h - 1) * w) }
                let rm = rowAt(-1), r0 = rowAt(0), r1 = rowAt(1), r2 = rowAt(2), out = q + y * w
                for x in 0..<w {
                    let a = r0[x], b = r1[x]
                    let v = ky.0 * rm[x] + ky.1 * a + ky.2 * b + ky.3 * r2[x]
                    out[x] = min(max(v, min(a, b)), max(a, b))
                }
            }
        }
    }
}

/// Catmull-Rom weights of the samples at −1, 0, 1, 2 for a position t in [0, 1).
@inline(__always) private func catmullRom(_ t: Float) -> (Float, Float, Float, Float) {
    let t2 = t * t, t3 = t2 * t
    return (0.5 * (-t3 + 2 * t2 - t), 0.5 * (3 * t3 - 5 * t2 + 2), 0.5 * (-3 * t3 + 4 * t2 + t), 0.5 * (t3 - t2))
}

/// Bilinear between rows `r0`, `r1` and columns `x0`, `x1` (weights of the second: `tx`, `ty`).
@inline(__always) private func lerp2(_ r0: UnsafePointer<Float>, _ r1: UnsafePointer<Float>,
                                     _ x0: Int, _ x1: Int, _ tx: Float, _ ty: Float) -> Float {
    let top: Float = r0[x0] + tx * (r0[x1] - r0[x0])
    let bottom: Float = r1[x0] + tx * (r1[x1] - r1[x0])
    return top + ty * (bottom - top)
}

extension MatteRefiner {
    /// Whether an estimate is one the temporal state may follow: a shift of
    /// 0.01–`range` depth pixels that explains the change (residual below
    /// `gain` of the unshifted one) and makes at most one region worse.
    static func cameraMotionUsable(_ m: MotionEstimator, gain: Float, range: Float) -> Bool {
        abs(m.dx) <= range && abs(m.dy) <= range && abs(m.dx) + abs(m.dy) >= 0.01 && m.after < gain * m.before && m.worse <= 1
    }

    /// 2.6, camera motion: the guide's luma at depth resolution (from the
    /// pass's `guide` planes) is compared with the last frame's; when one
    /// shift explains the change, the temporal state is moved by it. Runs on
    /// the calling thread between two phases (the result does not depend on
    /// the band count). `scratch` holds one output-grid plane.
    static func followCamera(_ m: inout MotionEstimator, guide L: PlaneSet<GuideChannel>, dw: Int, dh: Int, k: Int,
                             previousLuma: UnsafeMutablePointer<Float>, haveLuma: Bool,
                             label: UnsafeMutablePointer<Float>?, grid: UnsafeMutablePointer<Float>?,
                             gridGuide: UnsafeMutablePointer<Float>?, scratch: UnsafeMutablePointer<Float>,
                             outlier: Float, gain: Float, range: Float) {
        // (green for luma: most of it, and no pass to mix the channels)
        let n = dw * dh, cur = L[.g]
        m = MotionEstimator()
        if haveLuma {
            m.estimate(previous: previousLuma, current: cur, width: dw, height: dh, outlier: outlier)
            let dx = m.dx, dy = m.dy
            if cameraMotionUsable(m, gain: gain, range: range) {
                m.applied = true
                if let label {
                    MotionEstimator.shift(label, planes: 5, stride: n, width: dw, height: dh, by: dx, dy, tmp: scratch)
                }
                // (the grid is k times the depth resolution: so is the shift)
                let gw = dw * k, gh = dh * k, gx = dx * Float(k), gy = dy * Float(k)
                if let grid { MotionEstimator.shift(grid, planes: 1, stride: gw * gh, width: gw, height: gh, by: gx, gy, tmp: scratch) }
                if let gridGuide {
                    MotionEstimator.shift(gridGuide, planes: 3, stride: gw * gh, width: gw, height: gh, by: gx, gy, tmp: scratch)
                }
            }
        }
        previousLuma.update(from: cur, count: n)
    }
}
