/// Depth registration for `depthalign`: depth seen from the depth camera →
/// depth seen from the colour camera (its size, its viewpoint, its z).
///
/// Each depth sample is back-projected with the depth intrinsics, moved by
/// the depth→colour extrinsics and projected with the colour intrinsics
/// (`DepthCalibration`). The samples form a mesh: the cell between four
/// neighbouring samples is drawn as two triangles into the colour picture
/// with a z-buffer (nearest wins), z interpolated inside. A cell whose
/// corner depths differ by more than `maxRelativeJump` is a depth
/// discontinuity and is not drawn (if three of its corners agree, their
/// triangle is), so the mesh fills the gaps that upsampling leaves but never
/// bridges foreground and background; colour pixels the depth camera cannot
/// see (occlusion shadows) stay 0. Triangles facing away from the colour
/// camera (surfaces folded over by the parallax) are culled.
///
/// Output values are distances along the colour camera's optical axis in the
/// same units as the input (`depthScale` metres), rounded; 0 = no reading.
///
/// Reuse one instance per stream: the per-pixel rays are computed once per
/// calibration and every buffer is kept, so frames after the first allocate
/// nothing.

public final class DepthRegistration {
    /// How samples become pixels.
    public enum Method: Equatable {
        /// Each sample goes to its nearest colour pixel (z-buffer), then one
        /// horizontal and one vertical pass fill a pixel that is empty, or
        /// farther than both its neighbours (background seen through the
        /// foreground's sampling gaps), by interpolating between the nearest
        /// valid neighbours on both sides (at most 2 pixels away) when they
        /// agree within `maxRelativeJump`. Fast (the default).
        case splat
        /// Each cell of four neighbouring samples is drawn as two triangles
        /// with z interpolated (exact coverage; several times slower).
        case mesh
    }

    /// The method; `.splat` unless told otherwise.
    public var method = Method.splat

    /// Largest relative difference between the depths of a cell's corners
    /// for the cell to be drawn: (max − min) / min. 0.05 keeps the noise of
    /// structured light at 3 m (σ ≈ 0.5 %) and surfaces up to about 85° from
    /// the view direction, and refuses real steps (a hand before a body).
    public var maxRelativeJump: Float = 0.05

    public init() {}

    deinit { freeBuffers() }

    /// What the last `register` did.
    public enum Status: Equatable {
        case ok
        /// The depth picture's size differs from `calibration.depth`.
        case depthSizeMismatch
        /// The output size differs from `calibration.color`.
        case outputSizeMismatch
    }

    /// Register one depth frame into `output` (GRAY16_LE, `width`×`height`,
    /// `stride` bytes per row), which must match `calibration.color`'s size;
    /// `depth` must match `calibration.depth`'s size. On a size mismatch the
    /// output is filled with 0 and the status says which side. `threads`: 1,
    /// 2, ... (0 = one per core).
    @discardableResult
    public func register(depth: Depth16View, calibration: DepthCalibration,
                         into output: UnsafeMutableRawPointer, width: Int, height: Int, stride: Int,
                         threads: Int = 1) -> Status {
        var status = Status.ok
        if depth.width != calibration.depth.width || depth.height != calibration.depth.height {
            status = .depthSizeMismatch
        } else if width != calibration.color.width || height != calibration.color.height {
            status = .outputSizeMismatch
        }
        if status != .ok {
            for y in 0..<max(0, height) { (output + y * stride).initializeMemory(as: UInt16.self, repeating: 0, count: max(0, width)) }
            return status
        }
        prepare(calibration)
        let n = WorkerPool.threadCount(threads)
        job.depth = depth
        job.out = output
        job.outStride = stride
        job.jump = 1 + max(0, maxRelativeJump.isNaN ? 0 : maxRelativeJump)
        job.jumpMilli = UInt32(min(1000, max(0, (maxRelativeJump.isNaN ? 0 : maxRelativeJump) * 1000)).rounded())
        job.bands = n
        if n > 1 && pool == nil { pool = WorkerPool() }
        if n * 5 * width > scratchCapacity {
            job.scratch?.deallocate()
            scratchCapacity = n * 5 * width
            job.scratch = .allocate(capacity: scratchCapacity)
        }
        let p = n > 1 ? pool : nil
        withUnsafeMutablePointer(to: &job) { ctx in
            let raw = UnsafeMutableRawPointer(ctx)
            switch method {
            case .splat:
                WorkerPool.run(p, bands: n, context: raw) { raw, b in
                    raw.assumingMemoryBound(to: RegistrationJob.self).pointee.projectSplat(band: b)
                }
                WorkerPool.run(p, bands: n, context: raw) { raw, b in
                    raw.assumingMemoryBound(to: RegistrationJob.self).pointee.splat(band: b)
                }
                WorkerPool.run(p, bands: n, context: raw) { raw, b in
                    raw.assumingMemoryBound(to: RegistrationJob.self).pointee.fill(band: b)
                }
            case .mesh:
                WorkerPool.run(p, bands: n, context: raw) { raw, b in
                    raw.assumingMemoryBound(to: RegistrationJob.self).pointee.project(band: b)
                }
                WorkerPool.run(p, bands: n, context: raw) { raw, b in
                    raw.assumingMemoryBound(to: RegistrationJob.self).pointee.raster(band: b)
                }
            }
        }
        return .ok
    }

    /// The calibration the cached rays belong to.
    public private(set) var preparedCalibration: DepthCalibration?

    /// Compute the per-depth-pixel rays (undistorted, rotated into the colour
    /// frame) and size the buffers for `calibration`; a no-op when it equals
    /// the last one. `register` calls it; call it ahead to keep the first
    /// frame's time down.
    public func prepare(_ calibration: DepthCalibration) {
        if preparedCalibration == calibration { return }
        preparedCalibration = calibration
        let dw = calibration.depth.width, dh = calibration.depth.height
        let cw = calibration.color.width, ch = calibration.color.height
        let dn = dw * dh, cn = cw * ch
        if dn > depthCapacity {
            job.ax?.deallocate(); job.ay?.deallocate(); job.az?.deallocate()
            job.pu?.deallocate(); job.pv?.deallocate(); job.pz?.deallocate()
            job.ax = .allocate(capacity: dn); job.ay = .allocate(capacity: dn); job.az = .allocate(capacity: dn)
            job.pu = .allocate(capacity: dn); job.pv = .allocate(capacity: dn); job.pz = .allocate(capacity: dn)
            job.packed?.deallocate()
            job.packed = .allocate(capacity: dn)
            depthCapacity = dn
        }
        if dh > rowCapacity {
            job.rowMin?.deallocate(); job.rowMax?.deallocate()
            job.rowMin = .allocate(capacity: dh); job.rowMax = .allocate(capacity: dh)
            job.rowFirst?.deallocate(); job.rowLast?.deallocate()
            job.rowFirst = .allocate(capacity: dh); job.rowLast = .allocate(capacity: dh)
            rowCapacity = dh
        }
        if cn > colorCapacity {
            job.zbuf?.deallocate()
            job.zbuf = .allocate(capacity: cn)
            job.zb16?.deallocate()
            job.zb16 = .allocate(capacity: cn)
            colorCapacity = cn
        }
        let d = calibration.depth, e = calibration.depthToColor
        for y in 0..<dh {
            for x in 0..<dw {
                let r = d.ray(u: Double(x), v: Double(y))
                let a = e.rotate(Point3(r.x, r.y, 1))
                let i = y * dw + x
                job.ax![i] = Float(a.x); job.ay![i] = Float(a.y); job.az![i] = Float(a.z)
            }
        }
        let c = calibration.color
        // Points further off-axis than the colour picture's corners (with a
        // margin) are dropped before distortion: the polynomial folds back
        // far outside the calibrated field and would draw them inside.
        var r2max = 0.0
        for (u, v) in [(-0.5, -0.5), (Double(cw) - 0.5, -0.5), (-0.5, Double(ch) - 0.5),
                       (Double(cw) - 0.5, Double(ch) - 0.5), (Double(cw) / 2, -0.5), (Double(cw) / 2, Double(ch) - 0.5),
                       (-0.5, Double(ch) / 2), (Double(cw) - 0.5, Double(ch) / 2)] {
            let r = c.ray(u: u, v: v)
            r2max = max(r2max, r.x * r.x + r.y * r.y)
        }
        job.r2max = Float(r2max * 1.3 * 1.3)
        job.dw = dw; job.dh = dh; job.cw = cw; job.ch = ch
        let t = e.translation / calibration.depthScale
        job.tx = Float(t.x); job.ty = Float(t.y); job.tz = Float(t.z)
        job.fx = Float(c.fx); job.fy = Float(c.fy); job.ppx = Float(c.ppx); job.ppy = Float(c.ppy)
        job.k1 = Float(c.k1); job.k2 = Float(c.k2); job.p1 = Float(c.p1); job.p2 = Float(c.p2); job.k3 = Float(c.k3)
        job.model = c.model
        // nothing nearer than 1 cm to the colour camera
        job.zNear = Float(0.01 / calibration.depthScale)
    }

    private var job = RegistrationJob()
    private var pool: WorkerPool?
    private var depthCapacity = 0, rowCapacity = 0, colorCapacity = 0, scratchCapacity = 0

    private func freeBuffers() {
        job.ax?.deallocate(); job.ay?.deallocate(); job.az?.deallocate()
        job.pu?.deallocate(); job.pv?.deallocate(); job.pz?.deallocate()
        job.rowMin?.deallocate(); job.rowMax?.deallocate(); job.zbuf?.deallocate()
        job.packed?.deallocate(); job.rowFirst?.deallocate(); job.rowLast?.deallocate()
        job.zb16?.deallocate(); job.scratch?.deallocate()
    }
}

/// One frame's work and the buffers it uses; the bands of the two passes
/// (projection by depth rows, drawing by colour rows) run on the pool.
struct RegistrationJob {
    // per calibration
    var dw = 0, dh = 0, cw = 0, ch = 0
    var ax: UnsafeMutablePointer<Float>?, ay: UnsafeMutablePointer<Float>?, az: UnsafeMutablePointer<Float>?
    var tx: Float = 0, ty: Float = 0, tz: Float = 0
    var fx: Float = 1, fy: Float = 1, ppx: Float = 0, ppy: Float = 0
    var k1: Float = 0, k2: Float = 0, p1: Float = 0, p2: Float = 0, k3: Float = 0
    var model = DistortionModel.none
    var r2max: Float = 0
    var zNear: Float = 0
    // per frame
    var depth = Depth16View(base: UnsafeRawPointer(bitPattern: 1)!, width: 0, height: 0, stride: 0)
    var out: UnsafeMutableRawPointer?
    var outStride = 0
    var jump: Float = 1.05
    var bands = 1
    // scratch
    var pu: UnsafeMutablePointer<Float>?, pv: UnsafeMutablePointer<Float>?, pz: UnsafeMutablePointer<Float>?
    var rowMin: UnsafeMutablePointer<Float>?, rowMax: UnsafeMutablePointer<Float>?
    var zbuf: UnsafeMutablePointer<Float>?
    // splat scratch: per depth pixel the colour pixel index (low 32 bits,
    // -1: none) and its z (high 32 bits); per depth row the smallest and largest index; the colour z-buffer
    // (0xFFFF = empty); five rows per band for the fill
    var packed: UnsafeMutablePointer<UInt64>?
    var rowFirst: UnsafeMutablePointer<Int32>?, rowLast: UnsafeMutablePointer<Int32>?
    var zb16: UnsafeMutablePointer<UInt16>?
    var scratch: UnsafeMutablePointer<UInt16>?
    var jumpMilli: UInt32 = 50

    // MARK: projection

    func project(band: Int) {
        let y0 = dh * band / bands, y1 = dh * (band + 1) / bands
        for y in y0..<y1 {
            switch model {
            case .none: projectRow(y, distortion: 0)
            case .brownConrady: projectRow(y, distortion: 1)
            case .inverseBrownConrady: projectRow(y, distortion: 2)
            }
        }
    }

    @inline(__always)
    func projectRow(_ y: Int, distortion: Int) {
        let ax = self.ax!, ay = self.ay!, az = self.az!, pu = self.pu!, pv = self.pv!, pz = self.pz!
        let src = (depth.base + y * depth.stride).assumingMemoryBound(to: UInt16.self)
        let tx = self.tx, ty = self.ty, tz = self.tz, fx = self.fx, fy = self.fy, ppx = self.ppx, ppy = self.ppy
        let k1 = self.k1, k2 = self.k2, p1 = self.p1, p2 = self.p2, k3 = self.k3
        let r2max = self.r2max, zNear = self.zNear
        let base = y * dw
        var vmin = Float.infinity, vmax = -Float.infinity
        for x in 0..<dw {
            let i = base + x
            let d = Float(UInt16(littleEndian: src[x]))
            let qx = d * ax[i] + tx, qy = d * ay[i] + ty, qz = d * az[i] + tz
            let valid0 = d > 0 && qz > zNear
            let inv = valid0 ? 1 / qz : 0
            var xn = qx * inv, yn = qy * inv
            let r2 = xn * xn + yn * yn
            let valid1 = valid0 && r2 < r2max
            if distortion == 1 {
                let f = 1 + r2 * (k1 + r2 * (k2 + r2 * k3))
                let dx = xn * f + 2 * p1 * xn * yn + p2 * (r2 + 2 * xn * xn)
                let dy = yn * f + 2 * p2 * xn * yn + p1 * (r2 + 2 * yn * yn)
                xn = dx; yn = dy
            } else if distortion == 2 {
                let f = 1 + r2 * (k1 + r2 * (k2 + r2 * k3))
                let xf = xn * f, yf = yn * f
                xn = xf + 2 * p1 * xf * yf + p2 * (r2 + 2 * xf * xf)
                yn = yf + 2 * p2 * xf * yf + p1 * (r2 + 2 * yf * yf)
            }
            let u = xn * fx + ppx, v = yn * fy + ppy
            // (the bound also refuses NaN from absurd coefficients)
            let valid = valid1 && abs(u) < 1e6 && abs(v) < 1e6
            pu[i] = valid ? u : 0
            pv[i] = valid ? v : 0
            pz[i] = valid ? qz : 0
            vmin = min(vmin, valid ? v : .infinity)
            vmax = max(vmax, valid ? v : -.infinity)
        }
        rowMin![y] = vmin
        rowMax![y] = vmax
    }

    // MARK: drawing

    func raster(band: Int) {
        let r0 = ch * band / bands, r1 = ch * (band + 1) / bands
        if r0 >= r1 { return }
        let zbuf = self.zbuf!
        (zbuf + r0 * cw).initialize(repeating: .infinity, count: (r1 - r0) * cw)
        let rowMin = self.rowMin!, rowMax = self.rowMax!
        let lo = Float(r0) - 1, hi = Float(r1)
        for y in 0..<(dh - 1) {
            let a = min(rowMin[y], rowMin[y + 1]), b = max(rowMax[y], rowMax[y + 1])
            if b < lo || a > hi { continue }
            drawCellRow(y, r0: r0, r1: r1)
        }
        // to GRAY16
        let out = self.out!
        for r in r0..<r1 {
            let z = zbuf + r * cw
            let o = (out + r * outStride).assumingMemoryBound(to: UInt16.self)
            for c in 0..<cw {
                let v = z[c]
                let q = v < 65535 ? v + 0.5 : (v == .infinity ? 0 : 65535)
                o[c] = UInt16(littleEndian: UInt16(q))
            }
        }
    }

    /// The cells between depth rows y and y + 1, drawn into colour rows r0..<r1.
    @inline(__always)
    func drawCellRow(_ y: Int, r0: Int, r1: Int) {
        let pu = self.pu!, pv = self.pv!, pz = self.pz!, zbuf = self.zbuf!
        let cw = self.cw, jump = self.jump
        let top = y * dw, bottom = top + dw
        let fr0 = Float(r0), fr1 = Float(r1 - 2)   // a 2x2 block at row r fits when r0 <= r <= r1 - 2
        let fcMax = Float(cw - 2)
        for x in 0..<(dw - 1) {
            let z00 = pz[top + x], z10 = pz[top + x + 1], z01 = pz[bottom + x], z11 = pz[bottom + x + 1]
            let zlo = min(min(z00, z10), min(z01, z11)), zhi = max(max(z00, z10), max(z01, z11))
            if zhi == 0 { continue }
            let u00 = pu[top + x], u10 = pu[top + x + 1], u01 = pu[bottom + x], u11 = pu[bottom + x + 1]
            let v00 = pv[top + x], v10 = pv[top + x + 1], v01 = pv[bottom + x], v11 = pv[bottom + x + 1]
            let c00 = Corner(u00, v00, z00), c10 = Corner(u10, v10, z10)
            let c01 = Corner(u01, v01, z01), c11 = Corner(u11, v11, z11)
            guard zlo > 0 && zhi <= zlo * jump else {
                partialCell(c00, c10, c01, c11, zlo: zlo, zhi: zhi, r0: r0, r1: r1)
                continue
            }
            let umin = min(min(u00, u10), min(u01, u11)), umax = max(max(u00, u10), max(u01, u11))
            let vmin = min(min(v00, v10), min(v01, v11)), vmax = max(max(v00, v10), max(v01, v11))
            // first pixel centre at or right of / below the cell's box
            let cl = ceilF(umin), rt = ceilF(vmin)
            if cl > umax || rt > vmax { continue }   // no pixel centre inside
            let e1x = u10 - u00, e1y = v10 - v00
            let e2x = u11 - u00, e2y = v11 - v00
            let e3x = u01 - u00, e3y = v01 - v00
            let cA = e1x * e2y - e1y * e2x
            let cB = e2x * e3y - e2y * e3x
            if umax < cl + 2 && vmax < rt + 2 && cl >= 0 && cl <= fcMax && rt >= fr0 && rt <= fr1
                && cA > 1e-6 && cB > 1e-6 {
                // the cell's pixel centres are among a 2x2 block: one SIMD step
                let px = SIMD4<Float>(cl, cl + 1, cl, cl + 1), py = SIMD4<Float>(rt, rt, rt + 1, rt + 1)
                let qx = px - u00, qy = py - v00
                let k2 = qx * e2y - qy * e2x            // cross(q, e2)
                let ia = 1 / cA, ib = 1 / cB
                let alpha = k2 * ia                     // weight of c10 in A
                let beta = (qy * e1x - qx * e1y) * ia   // cross(e1, q): weight of c11 in A
                let gamma = (qx * e3y - qy * e3x) * ib  // cross(q, e3): weight of c11 in B
                let delta = -k2 * ib                    // cross(e2, q): weight of c01 in B
                let one = SIMD4<Float>(repeating: 1)
                let mA = lanesMin(lanesMin(alpha, beta), one - alpha - beta)
                let mB = lanesMin(lanesMin(gamma, delta), one - gamma - delta)
                let zA = z00 + alpha * (z10 - z00) + beta * (z11 - z00)
                let zB = z00 + gamma * (z11 - z00) + delta * (z01 - z00)
                let eps = SIMD4<Float>(repeating: -1e-4), inf = SIMD4<Float>(repeating: .infinity)
                let z = select(mA .>= eps, zA, select(mB .>= eps, zB, inf))
                let o = UnsafeMutableRawPointer(zbuf + Int(rt) * cw + Int(cl))
                let a = o.loadUnaligned(as: SIMD2<Float>.self)
                o.storeBytes(of: lanesMin(a, z.lowHalf), as: SIMD2<Float>.self)
                let o2 = o + 4 * cw
                let b = o2.loadUnaligned(as: SIMD2<Float>.self)
                o2.storeBytes(of: lanesMin(b, z.highHalf), as: SIMD2<Float>.self)
            } else {
                triangle(c00, c10, c11, r0: r0, r1: r1)
                triangle(c00, c11, c01, r0: r0, r1: r1)
            }
        }
    }

    /// A cell that is not four valid, agreeing corners: if exactly three
    /// corners are valid and agree (the fourth missing, or alone on the other
    /// side of a step), draw their triangle.
    @inline(never)
    func partialCell(_ c00: Corner, _ c10: Corner, _ c01: Corner, _ c11: Corner, zlo: Float, zhi: Float,
                     r0: Int, r1: Int) {
        // which corner to leave out: the invalid one, else the farthest, else the nearest
        let zs = SIMD4<Float>(c00.z, c10.z, c01.z, c11.z)
        let valid = (zs .> 0)
        var count = 0
        for k in 0..<4 where valid[k] { count += 1 }
        if count < 3 { return }
        var drop = -1
        if count == 3 {
            for k in 0..<4 where !valid[k] { drop = k }
        } else {
            for pass in 0..<2 {
                let cand = pass == 0 ? zhi : zlo
                var k = 0
                while zs[k] != cand { k += 1 }
                var lo = Float.infinity, hi: Float = 0
                for j in 0..<4 where j != k { lo = min(lo, zs[j]); hi = max(hi, zs[j]) }
                if hi <= lo * jump { drop = k; break }
            }
            if drop < 0 { return }
        }
        var lo = Float.infinity, hi: Float = 0
        for j in 0..<4 where j != drop { lo = min(lo, zs[j]); hi = max(hi, zs[j]) }
        if hi > lo * jump { return }
        // counter-clockwise (in the picture, y down: clockwise on screen) as the quad's two halves
        switch drop {
        case 0: triangle(c10, c11, c01, r0: r0, r1: r1)
        case 1: triangle(c00, c11, c01, r0: r0, r1: r1)
        case 2: triangle(c00, c10, c11, r0: r0, r1: r1)
        default: triangle(c00, c10, c01, r0: r0, r1: r1)
        }
    }

    /// Draw a triangle (a, b, c in the quad's winding; back-facing ones are
    /// culled) into colour rows r0..<r1 with the z-buffer.
    @inline(never)
    func triangle(_ a: Corner, _ b: Corner, _ c: Corner, r0: Int, r1: Int) {
        let e1x = b.u - a.u, e1y = b.v - a.v, e2x = c.u - a.u, e2y = c.v - a.v
        let area = e1x * e2y - e1y * e2x
        if !(area > 1e-6) { return }
        let ia = 1 / area
        let umin = min(a.u, min(b.u, c.u)), umax = max(a.u, max(b.u, c.u))
        let vmin = min(a.v, min(b.v, c.v)), vmax = max(a.v, max(b.v, c.v))
        let cl = max(0, Int(ceilF(umin))), cr = min(cw - 1, Int(floorF(umax)))
        let rt = max(r0, Int(ceilF(vmin))), rb = min(r1 - 1, Int(floorF(vmax)))
        if cl > cr || rt > rb { return }
        let zbuf = self.zbuf!
        let eps: Float = -1e-4, one: Float = 1 + 1e-4
        let dz1 = b.z - a.z, dz2 = c.z - a.z
        for r in rt...rb {
            let qy = Float(r) - a.v
            let row = zbuf + r * cw
            for col in cl...cr {
                let qx = Float(col) - a.u
                let s = (qx * e2y - qy * e2x) * ia
                let t = (qy * e1x - qx * e1y) * ia
                if s >= eps && t >= eps && s + t <= one {
                    let z = a.z + s * dz1 + t * dz2
                    if z < row[col] { row[col] = z }
                }
            }
        }
    }
}

/// A projected depth sample: colour pixel (u, v) and colour-axis depth z (0 = none).
struct Corner {
    var u: Float, v: Float, z: Float
    @inline(__always) init(_ u: Float, _ v: Float, _ z: Float) { self.u = u; self.v = v; self.z = z }
}

/// floor and ceil for |x| < 2^22 without a libm call (baseline x86-64 has no
/// rounding instruction).
@inline(__always) func floorF(_ x: Float) -> Float {
    let i = Float(Int32(x))
    return i > x ? i - 1 : i
}
@inline(__always) func ceilF(_ x: Float) -> Float {
    let i = Float(Int32(x))
    return i < x ? i + 1 : i
}

/// m ? a : b, lane by lane, with bit operations (no per-lane branches).
@inline(__always) func select(_ m: SIMDMask<SIMD4<Int32>>, _ a: SIMD4<Float>, _ b: SIMD4<Float>) -> SIMD4<Float> {
    let mi = unsafeBitCast(m, to: SIMD4<UInt32>.self)
    let ai = unsafeBitCast(a, to: SIMD4<UInt32>.self), bi = unsafeBitCast(b, to: SIMD4<UInt32>.self)
    return unsafeBitCast((ai & mi) | (bi & ~mi), to: SIMD4<Float>.self)
}
@inline(__always) func select(_ m: SIMDMask<SIMD8<Int32>>, _ a: SIMD8<Float>, _ b: SIMD8<Float>) -> SIMD8<Float> {
    let mi = unsafeBitCast(m, to: SIMD8<UInt32>.self)
    let ai = unsafeBitCast(a, to: SIMD8<UInt32>.self), bi = unsafeBitCast(b, to: SIMD8<UInt32>.self)
    return unsafeBitCast((ai & mi) | (bi & ~mi), to: SIMD8<Float>.self)
}
@inline(__always) func lanesMin(_ a: SIMD4<Float>, _ b: SIMD4<Float>) -> SIMD4<Float> { select(a .< b, a, b) }
@inline(__always) func lanesMin(_ a: SIMD2<Float>, _ b: SIMD2<Float>) -> SIMD2<Float> {
    SIMD2(a.x < b.x ? a.x : b.x, a.y < b.y ? a.y : b.y)
}
@inline(__always) func lanesMin(_ a: SIMD8<Float>, _ b: SIMD8<Float>) -> SIMD8<Float> { select(a .< b, a, b) }
@inline(__always) func lanesMax(_ a: SIMD8<Float>, _ b: SIMD8<Float>) -> SIMD8<Float> { select(a .> b, a, b) }

// MARK: - splat and fill

extension RegistrationJob {
    /// Project depth rows of this band: per sample the nearest colour pixel's
    /// index (-1 when invalid or outside) and the colour-axis z, rounded.
    func projectSplat(band: Int) {
        let y0 = dh * band / bands, y1 = dh * (band + 1) / bands
        for y in y0..<y1 {
            switch model {
            case .none: projectSplatRow(y, distortion: 0)
            case .brownConrady: projectSplatRow(y, distortion: 1)
            case .inverseBrownConrady: projectSplatRow(y, distortion: 2)
            }
        }
    }

    @inline(__always)
    func projectSplatRow(_ y: Int, distortion: Int) {
        let ax = self.ax!, ay = self.ay!, az = self.az!, packed = self.packed!
        let src = (depth.base + y * depth.stride).assumingMemoryBound(to: UInt16.self)
        let tx = self.tx, ty = self.ty, tz = self.tz, fx = self.fx, fy = self.fy, ppx = self.ppx, ppy = self.ppy
        let k1 = self.k1, k2 = self.k2, p1 = self.p1, p2 = self.p2, k3 = self.k3
        let r2max = self.r2max, zNear = self.zNear
        let uLimit = Float(cw) - 0.5, vLimit = Float(ch) - 0.5
        let cw32 = Int32(cw)
        let base = y * dw
        var first = Int32.max, last: Int32 = -1
        // eight samples at a time; validity as sign bits (no SIMD masks:
        // Swift lowers mask conversions lane by lane)
        var x = 0
        if distortion != 2 {
            typealias F = SIMD8<Float>
            typealias I = SIMD8<Int32>
            let bc: Float = distortion == 1 ? 1 : 0
            let magic = F(repeating: 12582912)
            var firstV = I(repeating: .max), lastV = I(repeating: -1)
            let rawSrc = UnsafeRawPointer(src)
            while x + 8 <= dw {
                let i = base + x
                let d16 = rawSrc.loadUnaligned(fromByteOffset: 2 * x, as: SIMD8<UInt16>.self)
                let d = F(I(truncatingIfNeeded: d16))
                let qx = d * UnsafeRawPointer(ax + i).loadUnaligned(as: F.self) + tx
                let qy = d * UnsafeRawPointer(ay + i).loadUnaligned(as: F.self) + ty
                let qz = d * UnsafeRawPointer(az + i).loadUnaligned(as: F.self) + tz
                // qz > zNear keeps the division finite for the lanes that count
                let qzSafe = unsafeBitCast(unsafeBitCast(qz, to: I.self) | (unsafeBitCast(qz - zNear, to: I.self) &>> 31 & unsafeBitCast(F(repeating: 1), to: I.self)), to: F.self)
                let inv = 1 / qzSafe
                let xn0 = qx * inv, yn0 = qy * inv
                let r2 = xn0 * xn0 + yn0 * yn0
                let f = 1 + bc * r2 * (k1 + r2 * (k2 + r2 * k3))
                let xn = xn0 * f + bc * (2 * p1 * xn0 * yn0 + p2 * (r2 + 2 * xn0 * xn0))
                let yn = yn0 * f + bc * (2 * p2 * xn0 * yn0 + p1 * (r2 + 2 * yn0 * yn0))
                let u = xn * fx + ppx, v = yn * fy + ppy
                // each term is negative exactly when its condition holds
                var ok = unsafeBitCast(0.5 - d, to: I.self)
                ok &= unsafeBitCast(zNear - qz, to: I.self)
                ok &= unsafeBitCast(r2 - r2max, to: I.self)
                ok &= unsafeBitCast(-0.5 - u, to: I.self)
                ok &= unsafeBitCast(u - uLimit, to: I.self)
                ok &= unsafeBitCast(-0.5 - v, to: I.self)
                ok &= unsafeBitCast(v - vLimit, to: I.self)
                let valid = ok &>> 31   // all ones where valid
                let ci = unsafeBitCast(u + magic, to: I.self) &- 0x4B40_0000
                let ri = unsafeBitCast(v + magic, to: I.self) &- 0x4B40_0000
                let kk = ri &* Int32(cw) &+ ci
                let k = (kk & valid) | ~valid     // -1 where invalid
                let over = unsafeBitCast(65534 - qz, to: I.self) &>> 31   // ones where z > 65534
                let zi0 = unsafeBitCast(qz + magic, to: I.self) &- 0x4B40_0000
                let zi = ((zi0 & ~over) | (65534 & over)) & valid
                let out = UnsafeMutableRawPointer(packed + i)
                for j in 0..<8 {
                    out.storeBytes(of: UInt64(UInt32(bitPattern: k[j])) | UInt64(UInt32(bitPattern: zi[j])) << 32,
                                   toByteOffset: 8 * j, as: UInt64.self)
                }
                let kmin = (k & valid) | (I(repeating: .max) & ~valid)
                firstV = firstV &+ ((kmin &- firstV) & ((kmin &- firstV) &>> 31))   // min
                lastV = lastV &- ((lastV &- k) & ((lastV &- k) &>> 31))          // max
                x += 8
            }
            for j in 0..<8 { first = min(first, firstV[j]); last = max(last, lastV[j]) }
        }
        for x in x..<dw {
            let i = base + x
            let d = Float(UInt16(littleEndian: src[x]))
            let qx = d * ax[i] + tx, qy = d * ay[i] + ty, qz = d * az[i] + tz
            let valid0 = d > 0 && qz > zNear
            let inv = 1 / (valid0 ? qz : 1)
            var xn = qx * inv, yn = qy * inv
            let r2 = xn * xn + yn * yn
            if distortion == 1 {
                let f = 1 + r2 * (k1 + r2 * (k2 + r2 * k3))
                let dx = xn * f + 2 * p1 * xn * yn + p2 * (r2 + 2 * xn * xn)
                let dy = yn * f + 2 * p2 * xn * yn + p1 * (r2 + 2 * yn * yn)
                xn = dx; yn = dy
            } else if distortion == 2 {
                let f = 1 + r2 * (k1 + r2 * (k2 + r2 * k3))
                let xf = xn * f, yf = yn * f
                xn = xf + 2 * p1 * xf * yf + p2 * (r2 + 2 * xf * xf)
                yn = yf + 2 * p2 * xf * yf + p1 * (r2 + 2 * yf * yf)
            }
            let u = xn * fx + ppx, v = yn * fy + ppy
            let valid = valid0 && r2 < r2max && u >= -0.5 && u < uLimit && v >= -0.5 && v < vLimit
            // round to nearest with the 1.5·2^23 trick (no libm, no trapping conversion)
            let ci = Int32(bitPattern: ((valid ? u : 0) + 12582912).bitPattern) &- 0x4B40_0000
            let ri = Int32(bitPattern: ((valid ? v : 0) + 12582912).bitPattern) &- 0x4B40_0000
            let k = valid ? ri &* cw32 &+ ci : -1
            let zc = valid ? (qz < 65534 ? qz : 65534) : 0
            let zi = Int32(bitPattern: (zc + 12582912).bitPattern) &- 0x4B40_0000
            // one store per sample (fewer pointers for the vectoriser's alias checks)
            packed[i] = UInt64(UInt32(bitPattern: k)) | UInt64(UInt32(bitPattern: zi)) << 32
            first = min(first, valid ? k : .max)
            last = max(last, k)
        }
        rowFirst![y] = first
        rowLast![y] = last
    }

    /// Samples landing in this band's colour rows, nearest kept.
    func splat(band: Int) {
        let r0 = ch * band / bands, r1 = ch * (band + 1) / bands
        if r0 >= r1 { return }
        let zb = zb16!, packed = self.packed!, rowFirst = self.rowFirst!, rowLast = self.rowLast!
        (zb + r0 * cw).initialize(repeating: 0xFFFF, count: (r1 - r0) * cw)
        let lo = Int32(r0 * cw), span = UInt32((r1 - r0) * cw)
        let hi = lo + Int32(span)
        for y in 0..<dh {
            if rowLast[y] < lo || rowFirst[y] >= hi { continue }
            let row = packed + y * dw
            for x in 0..<dw {
                let s = row[x]
                let k = Int32(truncatingIfNeeded: s)
                if UInt32(bitPattern: k &- lo) < span {
                    let v = UInt16(truncatingIfNeeded: s >> 32)
                    if v < zb[Int(k)] { zb[Int(k)] = v }
                }
            }
        }
    }

    /// `p`, or the value interpolated between its neighbours on both sides
    /// when those agree within the jump and `p` is empty (0xFFFF) or farther
    /// than both by more than the jump (background seen through the
    /// foreground's sampling gaps). A side's neighbour is the adjacent pixel
    /// (`a1`, `b1`), or the one after it (`a2`, `b2`) when the adjacent one is
    /// empty: gaps up to two pixels wide are filled.
    @inline(__always)
    func mend(_ p: UInt16, _ a1: UInt16, _ b1: UInt16, _ a2: UInt16, _ b2: UInt16) -> UInt16 {
        let P = UInt32(p)
        let aNear = a1 != 0xFFFF, bNear = b1 != 0xFFFF
        let A = UInt32(aNear ? a1 : a2), B = UInt32(bNear ? b1 : b2)
        let wa: UInt32 = aNear ? 1 : 2, wb: UInt32 = bNear ? 1 : 2
        let lo = min(A, B), hi = max(A, B)
        let k = 1000 + jumpMilli
        let agree = hi != 0xFFFF && hi &* 1000 <= lo &* k
        let replace = agree && (P == 0xFFFF || P &* 1000 > hi &* k)
        if !replace { return p }
        if aNear && bNear { return UInt16(truncatingIfNeeded: (A &+ B &+ 1) >> 1) }
        // a two-pixel gap (rare): interpolate at 1/3 or 2/3
        let w = wa &+ wb
        return UInt16(truncatingIfNeeded: (A &* wb &+ B &* wa &+ (w >> 1)) / w)
    }

    /// `mend` on eight pixels at once, with sign-bit arithmetic instead of
    /// SIMD masks (which Swift lowers lane by lane); output 0xFFFF-free when
    /// `toOutput` (empty → 0).
    @inline(__always)
    func mend8(_ p: UnsafeRawPointer, _ a1: UnsafeRawPointer, _ b1: UnsafeRawPointer,
               _ a2: UnsafeRawPointer, _ b2: UnsafeRawPointer, into dst: UnsafeMutableRawPointer, toOutput: Bool) {
        typealias I = SIMD8<Int32>
        @inline(__always) func load(_ q: UnsafeRawPointer) -> I { I(truncatingIfNeeded: q.loadUnaligned(as: SIMD8<UInt16>.self)) }
        let E = I(repeating: 0xFFFF)
        let P = load(p), A1 = load(a1), B1 = load(b1), A2 = load(a2), B2 = load(b2)
        let aNear = (A1 &- E) &>> 31, bNear = (B1 &- E) &>> 31      // all ones when the adjacent one is valid
        let A = (A1 & aNear) | (A2 & ~aNear), B = (B1 & bNear) | (B2 & ~bNear)
        let d = B &- A, dn = d & (d &>> 31)
        let lo = A &+ dn, hi = B &- dn
        let k = I(repeating: Int32(1000 + jumpMilli))
        let hiValid = (hi &- E) &>> 31
        let agree = ~((lo &* k &- hi &* 1000) &>> 31)
        let pEmpty = ~((P &- E) &>> 31)
        let pFarther = (hi &* k &- P &* 1000) &>> 31
        let replace = hiValid & agree & (pEmpty | pFarther)
        let wa = 2 &+ aNear, wb = 2 &+ bNear                         // 1 near, 2 one further
        let num = SIMD8<Float>(A &* wb &+ B &* wa), den = SIMD8<Float>(wa &+ wb)
        let v = unsafeBitCast(num / den + 12582912, to: I.self) &- 0x4B40_0000
        var r = (v & replace) | (P & ~replace)
        if toOutput { r = r & ((r &- E) &>> 31) }
        dst.storeBytes(of: SIMD8<UInt16>(truncatingIfNeeded: r), as: SIMD8<UInt16>.self)
    }

    /// The horizontal pass over colour row r.
    @inline(__always)
    func mendRow(_ r: Int, into dst: UnsafeMutablePointer<UInt16>) {
        let src = zb16! + r * cw
        let empty: UInt16 = 0xFFFF
        for c in 0..<min(cw, 2) { dst[c] = src[c] }
        for c in max(2, cw - 2)..<cw { dst[c] = src[c] }
        if cw < 5 { return }
        dst[1] = mend(src[1], src[0], src[2], empty, src[3])
        dst[cw - 2] = mend(src[cw - 2], src[cw - 3], src[cw - 1], src[cw - 4], empty)
        var c = 2
        while c + 8 <= cw - 2 {
            let q = UnsafeRawPointer(src + c)
            mend8(q, q - 2, q + 2, q - 4, q + 4, into: UnsafeMutableRawPointer(dst + c), toOutput: false)
            c += 8
        }
        while c < cw - 2 { dst[c] = mend(src[c], src[c - 1], src[c + 1], src[c - 2], src[c + 2]); c += 1 }
    }

    /// Horizontal then vertical mending of this band's rows, into the output.
    func fill(band: Int) {
        let r0 = ch * band / bands, r1 = ch * (band + 1) / bands
        if r0 >= r1 { return }
        let ring = scratch! + band * 5 * cw
        @inline(__always) func slot(_ r: Int) -> UnsafeMutablePointer<UInt16> { ring + ((r + 5) % 5) * cw }
        for r in max(0, r0 - 2)..<min(ch, r0 + 2) { mendRow(r, into: slot(r)) }
        let out = self.out!
        for r in r0..<r1 {
            if r + 2 < ch { mendRow(r + 2, into: slot(r + 2)) }
            let o = (out + r * outStride).assumingMemoryBound(to: UInt16.self)
            let mid = slot(r)
            if r == 0 || r == ch - 1 {
                for c in 0..<cw { let v = mid[c]; o[c] = UInt16(littleEndian: v == 0xFFFF ? 0 : v) }
            } else if r == 1 || r == ch - 2 {
                let up = slot(r - 1), down = slot(r + 1)
                for c in 0..<cw {
                    let v = mend(mid[c], up[c], down[c], 0xFFFF, 0xFFFF)
                    o[c] = UInt16(littleEndian: v == 0xFFFF ? 0 : v)
                }
            } else {
                let up = slot(r - 1), down = slot(r + 1), up2 = slot(r - 2), down2 = slot(r + 2)
                var c = 0
                while c + 8 <= cw {
                    mend8(mid + c, up + c, down + c, up2 + c, down2 + c, into: UnsafeMutableRawPointer(o + c), toOutput: true)
                    c += 8
                }
                for c in c..<cw {
                    let v = mend(mid[c], up[c], down[c], up2[c], down2[c])
                    o[c] = UInt16(littleEndian: v == 0xFFFF ? 0 : v)
                }
            }
        }
    }
}
