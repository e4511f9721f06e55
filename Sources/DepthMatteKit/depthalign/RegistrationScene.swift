// SPDX-License-Identifier: LGPL-2.1-or-later
/// A ray-cast scene for depth registration: planes and boxes in the colour
/// camera's frame (metres; x right, y down, z forward). For any
/// `DepthCalibration` it renders what the depth camera measures (its z, in
/// depth units) and the true registered depth as seen from the colour camera
/// (colour-axis z in depth units; 0 where the depth camera cannot see the
/// surface: occluded from its viewpoint, or outside its picture).

@_spi(Bench) public struct RegistrationScene {
    enum Shape: Equatable {
        /// The plane through `point` with normal `normal` (any length).
        case plane(point: Point3, normal: Point3)
        /// A box with half sizes `half`, turned by `yaw` radians about the
        /// vertical axis through `center`.
        case box(center: Point3, half: Point3, yaw: Double)
    }

    var shapes: [Shape]

    init(shapes: [Shape]) { self.shapes = shapes }

    /// A wall 2.6 m away turned by 8°, a floor 0.7 m below the cameras, a
    /// box (about 1.3 m away, turned 25°) and a smaller box at 0.9 m on the right.
    @_spi(Bench) public static let boxAndWall = RegistrationScene(shapes: [
        .plane(point: Point3(0, 0, 2.6), normal: Point3(mathSin(8 * .pi / 180), 0, -mathCos(8 * .pi / 180))),
        .plane(point: Point3(0, 0.7, 0), normal: Point3(0, -1, 0)),
        .box(center: Point3(-0.15, 0.05, 1.35), half: Point3(0.28, 0.32, 0.2), yaw: 25 * .pi / 180),
        .box(center: Point3(0.42, -0.12, 0.9), half: Point3(0.08, 0.1, 0.06), yaw: -10 * .pi / 180),
    ])

    /// A depth camera beside a colour camera, like a RealSense D455: depth
    /// 848×480 (fx 430, no distortion), colour 1280×720 (fx 640, mild
    /// brown-conrady), depth camera `baseline` metres to the colour camera's
    /// left (so points move right by fx·b/z in colour) and turned `yawDegrees`
    /// about the vertical axis. Sizes scale with `depthSize` / `colorSize`.
    @_spi(Bench) public static func rig(depthSize: (w: Int, h: Int) = (848, 480), colorSize: (w: Int, h: Int) = (1280, 720),
                           baseline: Double = 0.05, yawDegrees: Double = 1, pitchDegrees: Double = 0,
                           colorDistortion: Bool = true, depthScale: Double = 0.001) -> DepthCalibration {
        let ds = Double(depthSize.w) / 848, cs = Double(colorSize.w) / 1280
        let depth = CameraIntrinsics(width: depthSize.w, height: depthSize.h, fx: 430 * ds, fy: 430 * ds,
                                     ppx: Double(depthSize.w) / 2 - 0.5 + 3.2 * ds,
                                     ppy: Double(depthSize.h) / 2 - 0.5 - 1.7 * ds)
        let color = CameraIntrinsics(width: colorSize.w, height: colorSize.h, fx: 640 * cs, fy: 639.2 * cs,
                                     ppx: Double(colorSize.w) / 2 - 0.5 - 4.1 * cs,
                                     ppy: Double(colorSize.h) / 2 - 0.5 + 2.6 * cs,
                                     model: colorDistortion ? .brownConrady : .none,
                                     coeffs: colorDistortion ? [-0.055, 0.065, 0.0008, -0.0006, -0.021] : [0, 0, 0, 0, 0])
        let e = Extrinsics.rotation(yaw: yawDegrees * .pi / 180, pitch: pitchDegrees * .pi / 180,
                                    translation: Point3(-baseline, 0.0004, 0.0012))
        return DepthCalibration(depth: depth, color: color, depthToColor: e, depthScale: depthScale)
    }

    /// The nearest hit along origin + t·direction with t > `tMin` (nil: none).
    func hit(origin o: Point3, direction d: Point3, tMin: Double = 1e-9) -> Double? {
        var best = Double.infinity
        for s in shapes {
            switch s {
            case let .plane(p, n):
                let den = (n * d).sum()
                if den == 0 { continue }
                let t = (n * (p - o)).sum() / den
                if t > tMin && t < best { best = t }
            case let .box(c, h, yaw):
                // into the box's frame (rotation about y by -yaw)
                let cy = mathCos(yaw), sy = mathSin(yaw)
                let rel = o - c
                let lo = Point3(cy * rel.x - sy * rel.z, rel.y, sy * rel.x + cy * rel.z)
                let ld = Point3(cy * d.x - sy * d.z, d.y, sy * d.x + cy * d.z)
                var tn = -Double.infinity, tf = Double.infinity
                var miss = false
                for k in 0..<3 {
                    if ld[k] == 0 {
                        if abs(lo[k]) > h[k] { miss = true }
                        continue
                    }
                    let t1 = (-h[k] - lo[k]) / ld[k], t2 = (h[k] - lo[k]) / ld[k]
                    tn = max(tn, min(t1, t2)); tf = min(tf, max(t1, t2))
                }
                if miss || tn > tf { continue }
                let t = tn > tMin ? tn : tf
                if t > tMin && t < best { best = t }
            }
        }
        return best.isFinite ? best : nil
    }

    /// The depth camera's picture (`calibration.depth` size, row-major, depth
    /// units; 0 where a ray meets nothing or the value does not fit 16 bits).
    /// `noise`: σ = noise · z² metres of Gaussian noise (structured light:
    /// 0.0015 gives 1.5 mm at 1 m, 6 mm at 2 m), seeded by `seed`.
    @_spi(Bench) public func renderDepth(_ calibration: DepthCalibration, noise: Double = 0, seed: UInt64 = 1) -> [UInt16] {
        let d = calibration.depth, e = calibration.depthToColor
        var rng = SplitMix64(seed: seed)
        var out = [UInt16](repeating: 0, count: d.width * d.height)
        for y in 0..<d.height {
            for x in 0..<d.width {
                let r = d.ray(u: Double(x), v: Double(y))
                // the ray's depth-frame z is 1, so t is the depth camera's z
                guard let t = hit(origin: e.translation, direction: e.rotate(Point3(r.x, r.y, 1))) else { continue }
                var z = t
                if noise > 0 { z += rng.gaussian() * noise * z * z }
                let q = (z / calibration.depthScale).rounded()
                if q >= 1 && q <= 65535 { out[y * d.width + x] = UInt16(q) }
            }
        }
        return out
    }

    /// The registered depth the colour camera should get (`calibration.color`
    /// size, depth units): the colour-axis z of the surface at each pixel
    /// centre, or 0 where the depth camera cannot see that surface point.
    @_spi(Bench) public func renderTruth(_ calibration: DepthCalibration) -> [UInt16] {
        let c = calibration.color, d = calibration.depth
        let toDepth = calibration.depthToColor.inverse
        let origin = calibration.depthToColor.translation
        var out = [UInt16](repeating: 0, count: c.width * c.height)
        for y in 0..<c.height {
            for x in 0..<c.width {
                let r = c.ray(u: Double(x), v: Double(y))
                let dir = Point3(r.x, r.y, 1)
                guard let t = hit(origin: Point3(0, 0, 0), direction: dir) else { continue }
                let s = dir * t
                // inside the depth camera's picture?
                let pd = toDepth.transform(s)
                guard pd.z > 0 else { continue }
                let px = d.project(pd)
                guard px.u >= -0.5 && px.u <= Double(d.width) - 0.5 && px.v >= -0.5 && px.v <= Double(d.height) - 0.5
                else { continue }
                // nothing between the depth camera and the point?
                if let s2 = hit(origin: origin, direction: s - origin), s2 < 1 - 1e-7 { continue }
                let q = (t / calibration.depthScale).rounded()
                if q >= 1 && q <= 65535 { out[y * c.width + x] = UInt16(q) }
            }
        }
        return out
    }
}

extension SplitMix64 {
    /// A standard normal sample (Box–Muller).
    mutating func gaussian() -> Double {
        let u1 = max(unit(), 1e-300), u2 = unit()
        return (-2 * mathLog(u1)).squareRoot() * mathCos(2 * .pi * u2)
    }
}
