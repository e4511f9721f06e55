/// Depth registration for `depthalign`: depth seen from the depth camera →
/// depth seen from the colour camera (its size, its viewpoint, its z).
///
/// Each depth sample is back-projected with the depth intrinsics, moved by
/// the depth→colour extrinsics and projected with the colour intrinsics
/// (`DepthCalibration`), then drawn into the colour picture with a z-buffer
/// (nearest wins) by one of two methods (`Method`). Both fill the gaps that
/// upsampling leaves between samples whose depths agree within
/// `maxRelativeJump` and never bridge a step between foreground and
/// background; colour pixels the depth camera cannot see (occlusion
/// shadows) stay 0.
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
        /// Each sample fills its footprint, the colour pixels it covers: on
        /// each side halfway to the neighbouring sample (in the row, or the
        /// row above or below) when the two agree within `maxRelativeJump`,
        /// so a surface's footprints tile the picture however the parallax
        /// stretches it; else (a step, the picture's edge) under half a
        /// colour pixel, so a step is never bridged and an occlusion shadow
        /// stays empty. Inside the footprint z leans towards the agreeing
        /// neighbour on each pixel's side (a plane through the three
        /// samples), which also averages the sensor's noise. No fill passes;
        /// the output is the z-buffer. Fast (the default).
        case splat
        /// Each cell of four neighbouring samples is drawn as two triangles
        /// with z interpolated (a cell with a step is not drawn, a triangle
        /// of three agreeing corners is; triangles facing away from the
        /// colour camera are culled). Exact coverage; several times slower.
        case mesh
    }

    /// The method; `.splat` unless told otherwise.
    public var method = Method.splat

    /// Largest relative difference between the depths of neighbouring
    /// samples (of a cell's corners, for `.mesh`) for them to be one surface:
    /// (max − min) / min. 0.05 keeps the noise of
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
        job.bands = n
        if n > 1 && pool == nil { pool = WorkerPool() }
        let lineNeed = n * (calibration.depth.width + 8)
        if lineNeed > scratchCapacity {
            job.footScratch?.deallocate(); job.boundScratch?.deallocate()
            scratchCapacity = lineNeed
            job.footScratch = .allocate(capacity: footRows * lineNeed)
            job.boundScratch = .allocate(capacity: boundRows * lineNeed)
        }
        let p = n > 1 ? pool : nil
        withUnsafeMutablePointer(to: &job) { ctx in
            let raw = UnsafeMutableRawPointer(ctx)
            switch method {
            case .splat:
                WorkerPool.run(p, bands: n, context: raw) { raw, b in
                    raw.assumingMemoryBound(to: RegistrationJob.self).pointee.projectFootprints(band: b)
                }
                WorkerPool.run(p, bands: n, context: raw) { raw, b in
                    raw.assumingMemoryBound(to: RegistrationJob.self).pointee.rasterFootprints(band: b)
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
        // the splat's planes: a row of padding (z = 0) around the picture,
        // and 16 more so the last row's SIMD steps may load past its end
        let ps = dw + 2, pn = (dh + 2) * ps + 16
        if dn > depthCapacity || pn > paddedCapacity {
            job.ax?.deallocate(); job.ay?.deallocate(); job.az?.deallocate()
            job.pu?.deallocate(); job.pv?.deallocate(); job.pz?.deallocate()
            job.su?.deallocate(); job.sv?.deallocate(); job.sz?.deallocate()
            // (rays padded by 8 for the same reason)
            job.ax = .allocate(capacity: dn + 8); job.ay = .allocate(capacity: dn + 8); job.az = .allocate(capacity: dn + 8)
            job.pu = .allocate(capacity: dn); job.pv = .allocate(capacity: dn); job.pz = .allocate(capacity: dn)
            job.su = .allocate(capacity: pn); job.sv = .allocate(capacity: pn); job.sz = .allocate(capacity: pn)
            depthCapacity = dn
            paddedCapacity = pn
        }
        job.ps = ps
        job.su!.initialize(repeating: 0, count: pn); job.sv!.initialize(repeating: 0, count: pn)
        job.sz!.initialize(repeating: 0, count: pn)
        (job.ax! + dn).initialize(repeating: 0, count: 8); (job.ay! + dn).initialize(repeating: 0, count: 8)
        (job.az! + dn).initialize(repeating: 0, count: 8)
        if dh > rowCapacity {
            job.rowMin?.deallocate(); job.rowMax?.deallocate()
            job.rowMin = .allocate(capacity: dh); job.rowMax = .allocate(capacity: dh)
            rowCapacity = dh
        }
        if cn > colorCapacity {
            job.zbuf?.deallocate()
            job.zbuf = .allocate(capacity: cn)
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
        // A footprint's half size towards a neighbour it does not agree with
        // (a step, the picture's edge): half the largest step between
        // neighbouring samples' projections (at 2 m, on a grid over the depth
        // picture), at most 0.47 colour pixel (a little under the nearest
        // pixel's half, so a step never gains a pixel). Where the edge lies within
        // the depth pixel is unknown; a colour pixel across it is left 0
        // (unknown, for depthmatte to decide by colour) rather than invented.
        var sx = 0.0, sy = 0.0
        let z2 = 2.0
        for y in Swift.stride(from: 0, to: max(1, dh - 1), by: max(1, dh / 24)) {
            for x in Swift.stride(from: 0, to: max(1, dw - 1), by: max(1, dw / 32)) {
                guard let p = calibration.depthToColorPixel(u: Double(x), v: Double(y), z: z2),
                      let q = calibration.depthToColorPixel(u: Double(x + 1), v: Double(y), z: z2),
                      let r = calibration.depthToColorPixel(u: Double(x), v: Double(y + 1), z: z2) else { continue }
                sx = max(sx, abs(q.u - p.u), abs(r.u - p.u))
                sy = max(sy, abs(r.v - p.v), abs(q.v - p.v))
            }
        }
        job.hx = Float(min(0.47, 0.5 * sx))
        job.hy = Float(min(0.47, 0.5 * sy))
    }

    private var job = RegistrationJob()
    private var pool: WorkerPool?
    private var depthCapacity = 0, paddedCapacity = 0, rowCapacity = 0, colorCapacity = 0, scratchCapacity = 0

    private func freeBuffers() {
        job.ax?.deallocate(); job.ay?.deallocate(); job.az?.deallocate()
        job.pu?.deallocate(); job.pv?.deallocate(); job.pz?.deallocate()
        job.rowMin?.deallocate(); job.rowMax?.deallocate(); job.zbuf?.deallocate()
        job.su?.deallocate(); job.sv?.deallocate(); job.sz?.deallocate()
        job.footScratch?.deallocate(); job.boundScratch?.deallocate()
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
    // splat: per sample its colour pixel and z (0 = invalid), in planes with
    // a row of padding all round (row y at (y + 1) · ps + 1); per band five
    // rows of footprints (columns, rows, z); the footprints' half sizes
    var ps = 0
    var su: UnsafeMutablePointer<Float>?, sv: UnsafeMutablePointer<Float>?, sz: UnsafeMutablePointer<Float>?
    var footScratch: UnsafeMutablePointer<Int32>?
    var boundScratch: UnsafeMutablePointer<Float>?
    var hx: Float = 0.47, hy: Float = 0.47
    // how far footprints grow beyond the boundaries: none along a row (the
    // halfway boundaries tile it exactly); a little between rows, whose
    // boundaries bend with the distortion and differ from column to column
    var footEpsX: Float = 0, footEpsY: Float = 0.05

    // MARK: projection

    /// `row(y, distortion)` for each depth row of `band`, the lens model as
    /// a literal (0 none, 1 Brown-Conrady, 2 inverse Brown-Conrady) so that
    /// each model gets its own inlined row loop.
    @inline(__always)
    func forEachRow(band: Int, _ row: (_ y: Int, _ distortion: Int) -> Void) {
        let y0 = dh * band / bands, y1 = dh * (band + 1) / bands
        for y in y0..<y1 {
            switch model {
            case .none: row(y, 0)
            case .brownConrady: row(y, 1)
            case .inverseBrownConrady: row(y, 2)
            }
        }
    }

    func project(band: Int) {
        forEachRow(band: band) { projectRow($0, distortion: $1) }
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

/// One depth row's footprints in the band's scratch: colour columns
/// cl..<cr, rows rt..<rb, z at (cl, rt) | (cr − 1, rt) << 16 and at
/// (cl, rb − 1) | (cr − 1, rb − 1) << 16.
struct Footprints {
    var cl, cr, rt, rb, zTop, zBottom: UnsafeMutablePointer<Int32>
}

/// Rows of `Footprints` per band.
let footRows = 6

/// One line of boundaries between neighbouring samples (`boundaries`).
struct Boundaries {
    var end, start, slope: UnsafeMutablePointer<Float>
}

/// Rows of `Boundaries` per band: along the row, and two between rows.
let boundRows = 9

typealias R4 = SIMD4<Float>
typealias RI4 = SIMD4<Int32>
@inline(__always) func rbits(_ f: R4) -> RI4 { unsafeBitCast(f, to: RI4.self) }
@inline(__always) func rfloat(_ i: RI4) -> R4 { unsafeBitCast(i, to: R4.self) }
/// m ? a : b lane by lane, m all ones or all zeros per lane (bit operations)
@inline(__always) func rpick(_ m: RI4, _ a: R4, _ b: R4) -> R4 { rfloat((rbits(a) & m) | (rbits(b) & ~m)) }
@inline(__always) func rload(_ p: UnsafeMutablePointer<Float>) -> R4 { UnsafeRawPointer(p).loadUnaligned(as: R4.self) }
@inline(__always) func rstore(_ v: R4, _ p: UnsafeMutablePointer<Float>) { UnsafeMutableRawPointer(p).storeBytes(of: v, as: R4.self) }
@inline(__always) func rstore(_ v: RI4, _ p: UnsafeMutablePointer<Int32>) { UnsafeMutableRawPointer(p).storeBytes(of: v, as: RI4.self) }

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
@inline(__always) func lanesMin(_ a: SIMD4<Float>, _ b: SIMD4<Float>) -> SIMD4<Float> { select(a .< b, a, b) }
@inline(__always) func lanesMin(_ a: SIMD2<Float>, _ b: SIMD2<Float>) -> SIMD2<Float> {
    SIMD2(a.x < b.x ? a.x : b.x, a.y < b.y ? a.y : b.y)
}

// MARK: - splat: each sample's footprint

extension RegistrationJob {
    /// Project this band's depth rows into the padded SoA planes `su`, `sv`,
    /// `sz` (colour pixel and colour-axis z; z = 0 where invalid) and note
    /// each row's smallest and largest v.
    func projectFootprints(band: Int) {
        forEachRow(band: band) { projectFootprintRow($0, distortion: $1) }
    }

    @inline(__always)
    func projectFootprintRow(_ y: Int, distortion: Int) {
        // SIMD4 (one SSE register) with validity as sign bits: Swift lowers
        // SIMD masks and SIMD8 on baseline x86-64 to lane shuffles, and its
        // plain loops here to scalar code.
        typealias F = SIMD4<Float>
        typealias I = SIMD4<Int32>
        @inline(__always) func rbits(_ f: F) -> I { unsafeBitCast(f, to: I.self) }
        @inline(__always) func rfloat(_ i: I) -> F { unsafeBitCast(i, to: F.self) }
        let base = y * dw
        let ax = self.ax! + base, ay = self.ay! + base, az = self.az! + base
        let o = (y + 1) * ps + 1
        let U = su! + o, V = sv! + o, Z = sz! + o
        let src = UnsafeRawPointer(depth.base + y * depth.stride)
        let tx = F(repeating: self.tx), ty = F(repeating: self.ty), tz = F(repeating: self.tz)
        let fx = F(repeating: self.fx), fy = F(repeating: self.fy), ppx = F(repeating: self.ppx), ppy = F(repeating: self.ppy)
        let k1 = F(repeating: self.k1), k2 = F(repeating: self.k2), k3 = F(repeating: self.k3)
        let p1 = F(repeating: self.p1), p2 = F(repeating: self.p2)
        let r2max = F(repeating: self.r2max), zNear = F(repeating: self.zNear)
        let one = F(repeating: 1), two = F(repeating: 2), half = F(repeating: 0.5)
        let limit = I(repeating: Int32(bitPattern: Float(1e6).bitPattern)), absMask = I(repeating: 0x7FFF_FFFF)
        let inf = rbits(F(repeating: .infinity)), ninf = rbits(F(repeating: -.infinity))
        var vmin = F(repeating: .infinity), vmax = F(repeating: -.infinity)
        var x = 0
        while x < dw {
            let s: SIMD4<UInt16>
            if x + 4 <= dw {
                s = src.loadUnaligned(fromByteOffset: 2 * x, as: SIMD4<UInt16>.self)   // x86-64: little-endian
            } else {
                var t = SIMD4<UInt16>(repeating: 0)
                for j in 0..<(dw - x) { t[j] = src.loadUnaligned(fromByteOffset: 2 * (x + j), as: UInt16.self) }
                s = t
            }
            let d = F(I(truncatingIfNeeded: s))
            // (the ray planes are padded so the last row's tail may load past dw)
            let qx = d * UnsafeRawPointer(ax + x).loadUnaligned(as: F.self) + tx
            let qy = d * UnsafeRawPointer(ay + x).loadUnaligned(as: F.self) + ty
            let qz = d * UnsafeRawPointer(az + x).loadUnaligned(as: F.self) + tz
            // each term is negative exactly when its condition holds
            var ok = rbits(half - d) & rbits(zNear - qz)
            let m0 = ok &>> 31
            // (qz > zNear keeps the division finite for the lanes that count)
            let inv = one / rfloat((rbits(qz) & m0) | (rbits(one) & ~m0))
            var xn = qx * inv, yn = qy * inv
            let r2 = xn * xn + yn * yn
            ok &= rbits(r2 - r2max)
            if distortion != 0 {
                let f = one + r2 * (k1 + r2 * (k2 + r2 * k3))
                let xb = distortion == 2 ? xn * f : xn, yb = distortion == 2 ? yn * f : yn
                let xy2 = two * xb * yb
                let dx = p1 * xy2 + p2 * (r2 + two * xb * xb)
                let dy = p2 * xy2 + p1 * (r2 + two * yb * yb)
                xn = (distortion == 2 ? xb : xn * f) + dx
                yn = (distortion == 2 ? yb : yn * f) + dy
            }
            let u = xn * fx + ppx, v = yn * fy + ppy
            // |u|, |v| < 1e6 compared as integers (also refuses NaN)
            ok &= (rbits(u) & absMask) &- limit
            ok &= (rbits(v) & absMask) &- limit
            let valid = ok &>> 31
            let uo = rfloat(rbits(u) & valid), vo = rfloat(rbits(v) & valid), zo = rfloat(rbits(qz) & valid)
            if x + 4 <= dw {
                UnsafeMutableRawPointer(U + x).storeBytes(of: uo, as: F.self)
                UnsafeMutableRawPointer(V + x).storeBytes(of: vo, as: F.self)
                UnsafeMutableRawPointer(Z + x).storeBytes(of: zo, as: F.self)
            } else {
                for j in 0..<(dw - x) { U[x + j] = uo[j]; V[x + j] = vo[j]; Z[x + j] = zo[j] }
            }
            let vlo = rfloat(rbits(vo) | (inf & ~valid)), vhi = rfloat(rbits(vo) | (ninf & ~valid))
            let a = rbits(vlo - vmin) &>> 31
            vmin = rfloat((rbits(vlo) & a) | (rbits(vmin) & ~a))
            let b = rbits(vmax - vhi) &>> 31
            vmax = rfloat((rbits(vhi) & b) | (rbits(vmax) & ~b))
            x += 4
        }
        rowMin![y] = min(min(vmin[0], vmin[1]), min(vmin[2], vmin[3]))
        rowMax![y] = max(max(vmax[0], vmax[1]), max(vmax[2], vmax[3]))
    }

    /// Draw the footprints of the samples that reach this band's colour rows
    /// into the output with a z-buffer (nearest wins).
    ///
    /// A sample's footprint reaches, on each side, halfway to the neighbour
    /// on that side when the two agree within the jump (so the footprints of
    /// a surface tile the picture without gaps however the parallax stretches
    /// it), else `hx`/`hy` (under half a colour pixel: a step is never
    /// bridged, an occlusion shadow stays empty).
    /// Footprints grow by `footEpsY` between rows so the seams, which bend
    /// with the distortion, leave no pixel centre out.
    ///
    /// The output is the z-buffer: 0 (empty) compares as the largest value
    /// by comparing z − 1 wrapped, so no conversion pass is needed.
    func rasterFootprints(band: Int) {
        let r0 = ch * band / bands, r1 = ch * (band + 1) / bands
        if r0 >= r1 { return }
        let out = self.out!, stride = outStride, cw = self.cw
        for r in r0..<r1 { (out + r * stride).initializeMemory(as: UInt16.self, repeating: 0, count: cw) }
        let rowMin = self.rowMin!, rowMax = self.rowMax!
        // A footprint reaches at most halfway to the next row's sample, or
        // the step default beyond its own: rows whose neighbourhood misses
        // the band are skipped (the same rows in every band, so the bands'
        // results do not depend on the split).
        let margin = hy + footEpsY + 1
        let lo = Float(r0) - margin, hi = Float(r1) + margin
        let n = dw + 8
        let foot = footScratch! + band * footRows * n
        let f = Footprints(cl: foot, cr: foot + n, rt: foot + 2 * n, rb: foot + 3 * n, zTop: foot + 4 * n, zBottom: foot + 5 * n)
        let b = boundScratch! + band * boundRows * n
        let across = Boundaries(end: b, start: b + n, slope: b + 2 * n)
        let down = [Boundaries(end: b + 3 * n, start: b + 4 * n, slope: b + 5 * n),
                    Boundaries(end: b + 6 * n, start: b + 7 * n, slope: b + 8 * n)]
        var last = -2   // the latest boundary below a row computed into down[(y + 1) & 1]
        for y in 0..<dh {
            let y0 = max(y - 1, 0), y1 = min(y + 1, dh - 1)
            if max(rowMax[y0], max(rowMax[y], rowMax[y1])) < lo || min(rowMin[y0], min(rowMin[y], rowMin[y1])) > hi { continue }
            if last != y - 1 { verticalBoundaries(below: y - 1, into: down[y & 1]) }
            verticalBoundaries(below: y, into: down[(y + 1) & 1])
            last = y
            horizontalBoundaries(y, into: across)
            footprintRow(y, r0: r0, r1: r1, across: across, above: down[y & 1], below: down[(y + 1) & 1], f)
            drawFootprints(f)
        }
    }

    /// Draw one depth row's footprints (from `footprintRow`) into the output.
    @inline(__always)
    func drawFootprints(_ f: Footprints) {
        let out = self.out!, stride = outStride
        // z-buffer: 0 (empty) is the largest as z − 1 wrapped; branch-free
        @inline(__always) func put(_ p: UnsafeMutableRawPointer, _ z: UInt16) {
            let o = p.load(as: UInt16.self)
            p.storeBytes(of: o &- 1 > z &- 1 ? UInt16(littleEndian: z) : o, as: UInt16.self)
        }
        for x in 0..<dw {
            let r0 = Int(f.rt[x]), c0 = Int(f.cl[x])
            let nr = Int(f.rb[x]) &- r0, nc = Int(f.cr[x]) &- c0
            let top = UInt32(bitPattern: f.zTop[x]), bottom = UInt32(bitPattern: f.zBottom[x])
            let z00 = UInt16(truncatingIfNeeded: top), z10 = UInt16(truncatingIfNeeded: top >> 16)
            let z01 = UInt16(truncatingIfNeeded: bottom), z11 = UInt16(truncatingIfNeeded: bottom >> 16)
            let p = out + (r0 &* stride &+ 2 &* c0)
            if UInt(bitPattern: nr &- 1) < 2 && UInt(bitPattern: nc &- 1) < 2 {
                // up to 2x2 pixels (upsampling by less than 2); branches, not
                // repeated writes: those would chain through memory
                put(p, z00)
                if nc == 2 { put(p + 2, z10) }
                if nr == 2 {
                    put(p + stride, z01)
                    if nc == 2 { put(p + stride + 2, z11) }
                }
            } else if nr > 0 && nc > 0 {
                // larger (upsampling by 2 or more, or a stretched surface):
                // bilinear between the four corners' values
                let a = Float(z00), b = Float(z10), c = Float(z01), d = Float(z11)
                let sc = nc > 1 ? 1 / Float(nc - 1) : 0, sr = nr > 1 ? 1 / Float(nr - 1) : 0
                for r in 0..<nr {
                    let t = Float(r) * sr
                    let left = a + (c - a) * t, right = b + (d - b) * t
                    for col in 0..<nc {
                        let z = left + (right - left) * (Float(col) * sc)
                        put(p + r * stride + 2 * col, UInt16(z + 0.5))
                    }
                }
            }
        }
    }

    /// Between each sample and the next along u (in row y) or v (between
    /// rows y and y + 1): where the first one's footprint ends and the
    /// second one's starts (both halfway when the two agree within the jump,
    /// else each the step default away from its own sample), and the slope
    /// of z (0 when they do not agree). Padding samples (z = 0) agree with none.
    @inline(__always)
    func boundaries(_ za: R4, _ zb: R4, _ pa: R4, _ pb: R4, _ h: R4) -> (end: R4, start: R4, slope: R4) {
        let k = R4(repeating: jump), minDist = R4(repeating: 1.0 / 64)
        let dist = pb - pa
        // (dist > 1/64 also keeps the division finite where it counts)
        let d1: R4 = zb * k - za, d2: R4 = za * k - zb, d3: R4 = dist - minDist
        let agree: RI4 = ~((rbits(d1) | rbits(d2) | rbits(d3)) &>> 31)
        let mid: R4 = 0.5 * (pa + pb)
        let slope = (zb - za) / rpick(agree, dist, R4(repeating: 1))
        return (rpick(agree, mid, pa + h), rpick(agree, mid, pb - h), rfloat(rbits(slope) & agree))
    }

    /// Boundaries along row y: entry x is between samples x − 1 and x (x = 0…dw).
    @inline(__always)
    func horizontalBoundaries(_ y: Int, into b: Boundaries) {
        let o = (y + 1) * ps   // the padding sample left of the row
        let U = su! + o, Z = sz! + o
        let h = R4(repeating: hx)
        var x = 0
        while x <= dw {
            // (the padded planes hold 16 more values, so the last steps may load past the row)
            let r = boundaries(rload(Z + x), rload(Z + x + 1), rload(U + x), rload(U + x + 1), h)
            rstore(r.end, b.end + x); rstore(r.start, b.start + x); rstore(r.slope, b.slope + x)
            x += 4
        }
    }

    /// Boundaries between rows y and y + 1 (y = −1…dh − 1; padding beyond).
    @inline(__always)
    func verticalBoundaries(below y: Int, into b: Boundaries) {
        let o = (y + 1) * ps + 1
        let V = sv! + o, Z = sz! + o
        let h = R4(repeating: hy)
        var x = 0
        while x < dw {
            let r = boundaries(rload(Z + x), rload(Z + x + ps), rload(V + x), rload(V + x + ps), h)
            rstore(r.end, b.end + x); rstore(r.start, b.start + x); rstore(r.slope, b.slope + x)
            x += 4
        }
    }

    /// Depth row y's footprints: half-open colour column and row ranges
    /// (clipped to the picture and to rows r0..<r1; empty for invalid
    /// samples) and z at the corners of the range, each corner's z
    /// interpolated towards the horizontal and the vertical neighbour on its
    /// side when they agree (a plane through the three samples), so the
    /// colour pixels between samples get values between theirs.
    @inline(__always)
    func footprintRow(_ y: Int, r0: Int, r1: Int, across: Boundaries, above: Boundaries, below: Boundaries, _ f: Footprints) {
        let o = (y + 1) * ps + 1
        let U = su! + o, V = sv! + o, Z = sz! + o
        // ceil(x) as round-to-nearest(x + 0.49975) with the 1.5·2^23 trick
        // (a pixel centre within 2.5e-4 of an edge may go to either side;
        // both sides of a shared edge still agree), the eps folded in
        let magic = R4(repeating: 12582912), zMax = R4(repeating: 65535), zero = R4(repeating: 0)
        let kL = R4(repeating: 0.49975 - footEpsX), kR = R4(repeating: 0.49975 + footEpsX)
        let kT = R4(repeating: 0.49975 - footEpsY), kB = R4(repeating: 0.49975 + footEpsY)
        let cwF = R4(repeating: Float(self.cw)), r0F = R4(repeating: Float(r0)), r1F = R4(repeating: Float(r1))
        let oneF = R4(repeating: 1)
        @inline(__always) func fmin(_ a: R4, _ b: R4) -> R4 { rpick(rbits(a - b) &>> 31, a, b) }
        @inline(__always) func fmax(_ a: R4, _ b: R4) -> R4 { rpick(rbits(b - a) &>> 31, a, b) }
        @inline(__always) func int(_ m: R4) -> RI4 { rbits(m) &- 0x4B40_0000 }
        /// offset · the slope on the offset's side
        @inline(__always) func lean(_ offset: R4, _ before: R4, _ after: R4) -> R4 {
            offset * rpick(rbits(offset) &>> 31, before, after)
        }
        @inline(__always) func round(_ a: R4) -> RI4 { int(fmin(a, zMax) + magic) }
        var x = 0
        while x < dw {
            let u = rload(U + x), v = rload(V + x), z = rload(Z + x)
            let valid = rbits(zero - z) &>> 31                   // all ones where z > 0
            // first and one-past-last column and row, clipped (as floats + magic)
            let mc0 = fmax(rload(across.start + x) + kL, zero) + magic
            let mc1 = fmin(rload(across.end + x + 1) + kR, cwF) + magic
            let mr0 = fmax(rload(above.start + x) + kT, r0F) + magic
            let mr1 = fmin(rload(below.end + x) + kB, r1F) + magic
            rstore(int(mc0), f.cl + x); rstore(int(mc1), f.cr + x)
            rstore(int(mr0), f.rt + x); rstore(int(mr1) & valid, f.rb + x)   // (rows empty where invalid)
            // z at the first and last column and row of the footprint
            let sL = rload(across.slope + x), sR = rload(across.slope + x + 1)
            let sT = rload(above.slope + x), sB = rload(below.slope + x)
            let h0 = lean((mc0 - magic) - u, sL, sR), h1 = lean((mc1 - magic) - oneF - u, sL, sR)
            let v0 = lean((mr0 - magic) - v, sT, sB), v1 = lean((mr1 - magic) - oneF - v, sT, sB)
            let zt = z + v0, zb = z + v1
            rstore(round(zt + h0) | (round(zt + h1) &<< 16), f.zTop + x)
            rstore(round(zb + h0) | (round(zb + h1) &<< 16), f.zBottom + x)
            x += 4
        }
    }
}
