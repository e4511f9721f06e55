// SPDX-License-Identifier: LGPL-2.1-or-later
/// Depth registration for `depthalign`: depth seen from the depth camera →
/// depth seen from the colour camera (its size, its viewpoint, its z).
///
/// Each depth sample is back-projected with the depth intrinsics, moved by
/// the depth→colour extrinsics and projected with the colour intrinsics
/// (`DepthCalibration`), then drawn into the colour picture with a z-buffer
/// (nearest wins) by one of two methods (`Method`). Both fill the gaps that
/// upsampling leaves between samples whose depths agree within the
/// element's `max-jump` (`register`'s `maxRelativeJump`) and never bridge a step between foreground and
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
    enum Method: Equatable {
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
    var method = Method.splat

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
    /// `maxRelativeJump` (the element's `max-jump`, whose row says why its
    /// default is what it is): the largest relative difference between the
    /// depths of neighbouring samples (of a cell's corners, for `.mesh`) for
    /// them to be one surface, (max − min) / min.
    @discardableResult
    public func register(depth: Depth16View, calibration: DepthCalibration,
                         into output: UnsafeMutableRawPointer, width: Int, height: Int, stride: Int,
                         maxRelativeJump: Double, threads: Int = 1) -> Status {
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
        let jump = Float(maxRelativeJump)
        job.jump = 1 + max(0, jump.isNaN ? 0 : jump)
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
    private(set) var preparedCalibration: DepthCalibration?

    /// Compute the per-depth-pixel rays (undistorted, rotated into the colour
    /// frame) and size the buffers for `calibration`; a no-op when it equals
    /// the last one. `register` calls it; call it ahead to keep the first
    /// frame's time down.
    public func prepare(_ calibration: DepthCalibration) {
        if preparedCalibration == calibration { return }
        preparedCalibration = calibration
        let dw = calibration.depth.width, dh = calibration.depth.height
        let cw = calibration.color.width, ch = calibration.color.height
        reserve(depthWidth: dw, depthHeight: dh, colourPixels: cw * ch)
        prepareRays(calibration)
        prepareFootprints(calibration)
    }

    /// Sizes the job's buffers for a `depthWidth` x `depthHeight` depth
    /// picture and a colour picture of `colourPixels`, and clears the
    /// padding.
    private func reserve(depthWidth dw: Int, depthHeight dh: Int, colourPixels cn: Int) {
        let dn = dw * dh
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
    }

    /// The per-depth-pixel rays (undistorted, rotated into the colour
    /// frame) and the job's colour intrinsics, translation and limits.
    private func prepareRays(_ calibration: DepthCalibration) {
        let dw = calibration.depth.width, dh = calibration.depth.height
        let cw = calibration.color.width, ch = calibration.color.height
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

    /// The footprints' half sizes (`hx`, `hy`).
    private func prepareFootprints(_ calibration: DepthCalibration) {
        let dw = calibration.depth.width, dh = calibration.depth.height
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
