/// README step 2, refine=guided, sub-step 2.6, first part: camera motion
/// (`MatteRefiner.cameraMotion`, issue 20). When the whole picture moved
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
/// the residual without it, and the shift at most `motionRange` depth
/// pixels (larger motion is followed at once anyway). A still camera, a
/// moving subject or a cut leave the state where it is.
public struct MotionEstimator {
    /// Depth pixels of the estimated shift (x, y): the picture content at
    /// (x, y) in the previous frame is at (x + dx, y + dy) now.
    public internal(set) var dx: Float = 0, dy: Float = 0
    /// Mean squared luma residual per sampled pixel, without and with the shift.
    public internal(set) var before: Float = 0, after: Float = 0
    /// Regions (of a 4 x 4 grid) whose residual the shift made worse (by over 10 %).
    public internal(set) var worse = 0
    static let regions = 16
    /// Whether the shift was applied to the temporal state this frame.
    public internal(set) var applied = false

    public init() {}

    /// Estimate the shift from `previous` to `current` (luma planes `w` × `h`).
    mutating func estimate(previous p: UnsafePointer<Float>, current c: UnsafePointer<Float>, width w: Int, height h: Int,
                           outlier: Float, iterations: Int = 4) {
        dx = 0; dy = 0; before = 0; after = 0
        let m = 3  // border: the shift never reads outside
        guard w > 2 * m + 4, h > 2 * m + 4 else { return }
        // per region of a 4 x 4 grid too: a shift that explains a moving
        // person makes the still room around it worse
        withUnsafeTemporaryAllocation(of: Double.self, capacity: 2 * MotionEstimator.regions) { re in
        re.initialize(repeating: 0)
        @inline(__always) func region(_ x: Int, _ y: Int) -> Int {
            4 * min(3, 4 * (y - m) / (h - 2 * m)) + min(3, 4 * (x - m) / (w - 2 * m))
        }
        var e0: Double = 0, count = 0
        var y = m
        while y < h - m {
            var x = m
            while x < w - m {
                let r = c[y * w + x] - p[y * w + x]
                e0 += Double(r * r); count += 1
                re[region(x, y)] += Double(r * r)
                x += 2
            }
            y += 2
        }
        before = Float(e0 / Double(max(count, 1)))
        let tau2 = outlier * outlier
        var vx: Float = 0, vy: Float = 0
        for it in 0..<iterations {
            // the previous luma at (x − v): bilinear; its gradient by central
            // differences of the current luma (the same picture, shifted)
            let fx = (-vx).rounded(.down), fy = (-vy).rounded(.down)
            let ix = Int(fx), iy = Int(fy), tx = -vx - fx, ty = -vy - fy
            var a11: Double = 0, a12: Double = 0, a22: Double = 0, b1: Double = 0, b2: Double = 0
            var y = m
            while y < h - m {
                let sy = min(max(y + iy, 1), h - 3)
                let r0 = p + sy * w, r1 = r0 + w
                var x = m
                while x < w - m {
                    let sx = min(max(x + ix, 1), w - 3)
                    let warped = lerp2(r0, r1, sx, sx + 1, tx, ty)
                    let i = y * w + x
                    // (the mean of both pictures' gradients: the symmetric
                    // step has no first-order bias)
                    let r2 = UnsafePointer(r1 + w), rm = UnsafePointer(r0 - w)
                    let wx: Float = lerp2(r0, r1, sx + 1, sx + 2, tx, ty) - lerp2(r0, r1, sx - 1, sx, tx, ty)
                    let wy: Float = lerp2(r1, r2, sx, sx + 1, tx, ty) - lerp2(rm, r0, sx, sx + 1, tx, ty)
                    let gx: Float = 0.25 * (c[i + 1] - c[i - 1] + wx), gy: Float = 0.25 * (c[i + w] - c[i - w] + wy)
                    let r: Float = c[i] - warped
                    // (robust: the first step counts everything)
                    let wgt: Float = it == 0 ? 1 : 1 / (1 + r * r / tau2)
                    a11 += Double(wgt * gx * gx); a12 += Double(wgt * gx * gy); a22 += Double(wgt * gy * gy)
                    b1 += Double(wgt * gx * r); b2 += Double(wgt * gy * r)
                    x += 2
                }
                y += 2
            }
            let det = a11 * a22 - a12 * a12
            if det <= 1e-12 * (a11 + a22) * (a11 + a22) || det <= 0 { return }
            // c(x) ≈ p(x − v − δ) ≈ p(x − v) − ∇c · δ (∇p(x − v) ≈ ∇c(x)), so
            // the residual r + ∇c · δ is least for A δ = −b
            let dvx = Float((-a22 * b1 + a12 * b2) / det), dvy = Float((a12 * b1 - a11 * b2) / det)
            vx += dvx; vy += dvy
            if !(vx.isFinite && vy.isFinite) || abs(vx) > 8 || abs(vy) > 8 { return }
            if abs(dvx) < 0.002 && abs(dvy) < 0.002 { break }
        }
        // the residual with the final shift
        let fx = (-vx).rounded(.down), fy = (-vy).rounded(.down)
        let ix = Int(fx), iy = Int(fy), tx = -vx - fx, ty = -vy - fy
        var e: Double = 0
        y = m
        while y < h - m {
            let sy = min(max(y + iy, 0), h - 2)
            let r0 = p + sy * w, r1 = r0 + w
            var x = m
            while x < w - m {
                let sx = min(max(x + ix, 0), w - 2)
                let warped = lerp2(r0, r1, sx, sx + 1, tx, ty)
                let r = c[y * w + x] - warped
                e += Double(r * r)
                re[MotionEstimator.regions + region(x, y)] += Double(r * r)
                x += 2
            }
            y += 2
        }
        after = Float(e / Double(max(count, 1)))
        dx = vx; dy = vy
        worse = 0
        for i in 0..<MotionEstimator.regions where re[MotionEstimator.regions + i] > 1.1 * re[i] + 1e-9 { worse += 1 }
        }
    }

    /// Move `plane` (`w` × `h`, `planes` consecutive planes `stride` floats
    /// apart) by (sx, sy) pixels, bilinear, edges repeated: the value at
    /// (x, y) becomes the old value at (x − sx, y − sy). `tmp` holds one plane.
    static func shift(_ plane: UnsafeMutablePointer<Float>, planes: Int, stride: Int, width w: Int, height h: Int,
                      by sx: Float, _ sy: Float, tmp: UnsafeMutablePointer<Float>) {
        guard w >= 2, h >= 2 else { return }
        let fx = (-sx).rounded(.down), fy = (-sy).rounded(.down)
        let ix = Int(fx), iy = Int(fy), tx = -sx - fx, ty = -sy - fy
        for c in 0..<planes {
            let q = plane + c * stride
            tmp.update(from: q, count: w * h)
            for y in 0..<h {
                let y0 = min(max(y + iy, 0), h - 1), y1 = min(max(y + iy + 1, 0), h - 1)
                let r0 = UnsafePointer(tmp + y0 * w), r1 = UnsafePointer(tmp + y1 * w), out = q + y * w
                for x in 0..<w {
                    let x0 = min(max(x + ix, 0), w - 1), x1 = min(max(x + ix + 1, 0), w - 1)
                    out[x] = lerp2(r0, r1, x0, x1, tx, ty)
                }
            }
        }
    }
}

/// Bilinear between rows `r0`, `r1` and columns `x0`, `x1` (weights of the second: `tx`, `ty`).
@inline(__always) private func lerp2(_ r0: UnsafePointer<Float>, _ r1: UnsafePointer<Float>,
                                     _ x0: Int, _ x1: Int, _ tx: Float, _ ty: Float) -> Float {
    let top: Float = r0[x0] + tx * (r0[x1] - r0[x0])
    let bottom: Float = r1[x0] + tx * (r1[x1] - r1[x0])
    return top + ty * (bottom - top)
}

extension MatteRefiner {
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
            if abs(dx) <= range && abs(dy) <= range && abs(dx) + abs(dy) >= 0.01 && m.after < gain * m.before
                && m.worse == 0 {
                m.applied = true
                let tmp = scratch
                if let label {
                    MotionEstimator.shift(label, planes: 5, stride: n, width: dw, height: dh, by: dx, dy, tmp: tmp)
                }
                let gw = dw * k, gh = dh * k
                if let grid { MotionEstimator.shift(grid, planes: 1, stride: gw * gh, width: gw, height: gh, by: dx * Float(k), dy * Float(k), tmp: tmp) }
                if let gridGuide { MotionEstimator.shift(gridGuide, planes: 3, stride: gw * gh, width: gw, height: gh, by: dx * Float(k), dy * Float(k), tmp: tmp) }
            }
        }
        previousLuma.update(from: cur, count: n)
    }
}
