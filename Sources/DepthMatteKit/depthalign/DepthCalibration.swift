// SPDX-License-Identifier: LGPL-2.1-or-later
/// Camera models for `depthalign`: intrinsics with librealsense's distortion
/// models, the rigid depth→colour transform and the whole calibration.
///
/// Conventions follow librealsense (`rsutil.h`): pixel (0, 0) is the centre of
/// the top-left pixel, x right, y down, z forward, lengths in metres. Only the
/// JSON and `Extrinsics(rotationRowMajor:)` take row-major rotations;
/// librealsense's own `rs2_extrinsics.rotation` is column-major.

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A point or direction in a camera frame (metres).
typealias Point3 = SIMD3<Double>

/// How a camera's pixels depart from the pinhole model (librealsense's
/// `rs2_distortion` subset). Coefficients are `[k1, k2, p1, p2, k3]`.
public enum DistortionModel: String, Equatable, CaseIterable {
    /// Rectilinear: no distortion.
    case none
    /// OpenCV's forward model (`RS2_DISTORTION_BROWN_CONRADY`): projecting
    /// applies it directly, deprojecting inverts it by 10 fixed-point steps.
    case brownConrady = "brown-conrady"
    /// `RS2_DISTORTION_INVERSE_BROWN_CONRADY`: projecting applies the radial
    /// factor, then the tangential terms to the radially scaled point (with the
    /// undistorted r²); deprojecting inverts that by 10 fixed-point steps.
    case inverseBrownConrady = "inverse-brown-conrady"
}

/// One camera's intrinsics, in pixels as librealsense's `rs2_intrinsics`.
public struct CameraIntrinsics: Equatable {
    @_spi(Bench) public var width: Int
    @_spi(Bench) public var height: Int
    /// Focal lengths in pixels.
    var fx: Double, fy: Double
    /// Principal point in pixels (pixel centres at integers).
    var ppx: Double, ppy: Double
    var model: DistortionModel
    /// Distortion coefficients; ignored when `model == .none`.
    var k1: Double, k2: Double, p1: Double, p2: Double, k3: Double

    public init(width: Int, height: Int, fx: Double, fy: Double, ppx: Double, ppy: Double,
                model: DistortionModel = .none, coeffs: [Double] = [0, 0, 0, 0, 0]) {
        self.width = width; self.height = height
        self.fx = fx; self.fy = fy; self.ppx = ppx; self.ppy = ppy
        self.model = model
        let c = coeffs + [Double](repeating: 0, count: max(0, 5 - coeffs.count))
        k1 = c[0]; k2 = c[1]; p1 = c[2]; p2 = c[3]; k3 = c[4]
    }

    /// `[k1, k2, p1, p2, k3]`.
    var coeffs: [Double] { [k1, k2, p1, p2, k3] }

    /// Normalised image coordinates (x/z, y/z) → distorted normalised
    /// coordinates, as `rs2_project_point_to_pixel` does before the focal length.
    func distort(_ x: Double, _ y: Double) -> (x: Double, y: Double) {
        switch model {
        case .none:
            return (x, y)
        case .brownConrady:
            let r2 = x * x + y * y
            let f = 1 + k1 * r2 + k2 * r2 * r2 + k3 * r2 * r2 * r2
            return (x * f + 2 * p1 * x * y + p2 * (r2 + 2 * x * x),
                    y * f + 2 * p2 * x * y + p1 * (r2 + 2 * y * y))
        case .inverseBrownConrady:
            let r2 = x * x + y * y
            let f = 1 + k1 * r2 + k2 * r2 * r2 + k3 * r2 * r2 * r2
            let xf = x * f, yf = y * f
            return (xf + 2 * p1 * xf * yf + p2 * (r2 + 2 * xf * xf),
                    yf + 2 * p2 * xf * yf + p1 * (r2 + 2 * yf * yf))
        }
    }

    /// The inverse of `distort`, by librealsense's 10 fixed-point iterations.
    func undistort(_ xd: Double, _ yd: Double) -> (x: Double, y: Double) {
        var x = xd, y = yd
        switch model {
        case .none:
            break
        case .brownConrady:
            for _ in 0..<10 {
                let r2 = x * x + y * y
                let icdist = 1 / (1 + ((k3 * r2 + k2) * r2 + k1) * r2)
                let dx = 2 * p1 * x * y + p2 * (r2 + 2 * x * x)
                let dy = 2 * p2 * x * y + p1 * (r2 + 2 * y * y)
                x = (xd - dx) * icdist
                y = (yd - dy) * icdist
            }
        case .inverseBrownConrady:
            for _ in 0..<10 {
                let r2 = x * x + y * y
                let icdist = 1 / (1 + ((k3 * r2 + k2) * r2 + k1) * r2)
                let xq = x / icdist, yq = y / icdist
                let dx = 2 * p1 * xq * yq + p2 * (r2 + 2 * xq * xq)
                let dy = 2 * p2 * xq * yq + p1 * (r2 + 2 * yq * yq)
                x = (xd - dx) * icdist
                y = (yd - dy) * icdist
            }
        }
        return (x, y)
    }

    /// `rs2_project_point_to_pixel`: a point in this camera's frame (z > 0) → pixel.
    func project(_ p: Point3) -> (u: Double, v: Double) {
        let d = distort(p.x / p.z, p.y / p.z)
        return (d.x * fx + ppx, d.y * fy + ppy)
    }

    /// `rs2_deproject_pixel_to_point`: pixel and depth (z, metres) → point.
    func deproject(u: Double, v: Double, depth: Double) -> Point3 {
        let r = ray(u: u, v: v)
        return Point3(r.x * depth, r.y * depth, depth)
    }

    /// The undistorted ray through a pixel as (x/z, y/z).
    func ray(u: Double, v: Double) -> (x: Double, y: Double) {
        undistort((u - ppx) / fx, (v - ppy) / fy)
    }

    /// These intrinsics for the same camera delivering `width`×`height`
    /// (scaled sensor readout, as librealsense scales its profiles).
    func scaled(toWidth w: Int, height h: Int) -> CameraIntrinsics {
        var s = self
        let sx = Double(w) / Double(width), sy = Double(h) / Double(height)
        s.width = w; s.height = h
        s.fx = fx * sx; s.fy = fy * sy
        s.ppx = (ppx + 0.5) * sx - 0.5; s.ppy = (ppy + 0.5) * sy - 0.5
        return s
    }
}

/// A rigid transform from one camera's frame to another's: `p' = R p + t`.
public struct Extrinsics: Equatable {
    /// Rows of R.
    var r0: Point3, r1: Point3, r2: Point3
    /// t in metres.
    var translation: Point3

    init(r0: Point3, r1: Point3, r2: Point3, translation: Point3) {
        self.r0 = r0; self.r1 = r1; self.r2 = r2; self.translation = translation
    }

    /// `rotation`: 9 numbers, row-major (missing entries are taken as the identity's).
    public init(rotationRowMajor m: [Double], translation t: [Double]) {
        let id: [Double] = [1, 0, 0, 0, 1, 0, 0, 0, 1]
        let m = m.count >= 9 ? Array(m.prefix(9)) : id
        let t = t.count >= 3 ? Array(t.prefix(3)) : [0, 0, 0]
        self.init(r0: Point3(m[0], m[1], m[2]), r1: Point3(m[3], m[4], m[5]), r2: Point3(m[6], m[7], m[8]),
                  translation: Point3(t[0], t[1], t[2]))
    }

    static let identity = Extrinsics(r0: Point3(1, 0, 0), r1: Point3(0, 1, 0), r2: Point3(0, 0, 1),
                                            translation: Point3(0, 0, 0))

    /// A rotation by `yaw` about y, then `pitch` about x, then `roll` about z
    /// (radians; R = Rz·Rx·Ry), followed by the translation.
    static func rotation(yaw: Double, pitch: Double = 0, roll: Double = 0,
                                translation: Point3 = Point3(0, 0, 0)) -> Extrinsics {
        let cy = mathCos(yaw), sy = mathSin(yaw), cp = mathCos(pitch), sp = mathSin(pitch)
        let cr = mathCos(roll), sr = mathSin(roll)
        // Ry
        let ry = [cy, 0, sy, 0, 1, 0, -sy, 0, cy]
        let rx = [1, 0, 0, 0, cp, -sp, 0, sp, cp]
        let rz = [cr, -sr, 0, sr, cr, 0, 0, 0, 1]
        func mul(_ a: [Double], _ b: [Double]) -> [Double] {
            var c = [Double](repeating: 0, count: 9)
            for i in 0..<3 { for j in 0..<3 { for k in 0..<3 { c[3 * i + j] += a[3 * i + k] * b[3 * k + j] } } }
            return c
        }
        let m = mul(rz, mul(rx, ry))
        return Extrinsics(rotationRowMajor: m, translation: [translation.x, translation.y, translation.z])
    }

    /// R as 9 numbers, row-major.
    var rotationRowMajor: [Double] { [r0.x, r0.y, r0.z, r1.x, r1.y, r1.z, r2.x, r2.y, r2.z] }
    /// R as 9 numbers, column-major (librealsense's `rs2_extrinsics.rotation`).
    var rotationColumnMajor: [Double] { [r0.x, r1.x, r2.x, r0.y, r1.y, r2.y, r0.z, r1.z, r2.z] }

    /// R p + t.
    func transform(_ p: Point3) -> Point3 { rotate(p) + translation }
    /// R p.
    func rotate(_ p: Point3) -> Point3 {
        Point3((r0 * p).sum(), (r1 * p).sum(), (r2 * p).sum())
    }

    /// The inverse transform: p = Rᵀ (p' − t).
    var inverse: Extrinsics {
        let c0 = Point3(r0.x, r1.x, r2.x), c1 = Point3(r0.y, r1.y, r2.y), c2 = Point3(r0.z, r1.z, r2.z)
        let t = -Point3((c0 * translation).sum(), (c1 * translation).sum(), (c2 * translation).sum())
        return Extrinsics(r0: c0, r1: c1, r2: c2, translation: t)
    }

    /// The largest |(R Rᵀ − I)ᵢⱼ| and |det R − 1|: 0 for an exact rotation.
    var orthonormalityError: Double {
        let rows = [r0, r1, r2]
        var e = 0.0
        for i in 0..<3 { for j in 0..<3 {
            let d = (rows[i] * rows[j]).sum() - (i == j ? 1 : 0)
            e = max(e, abs(d))
        } }
        let det = r0.x * (r1.y * r2.z - r1.z * r2.y) - r0.y * (r1.x * r2.z - r1.z * r2.x)
            + r0.z * (r1.x * r2.y - r1.y * r2.x)
        return e.isNaN ? .infinity : max(e, abs(det - 1))
    }
}

/// Everything `depthalign` needs: both cameras, the depth→colour transform
/// and the size of one depth unit.
public struct DepthCalibration: Equatable {
    @_spi(Bench) public var depth: CameraIntrinsics
    @_spi(Bench) public var color: CameraIntrinsics
    /// Maps points in the depth camera's frame to the colour camera's.
    var depthToColor: Extrinsics
    /// Metres per depth unit (0.001: millimetres).
    var depthScale: Double

    public init(depth: CameraIntrinsics, color: CameraIntrinsics, depthToColor: Extrinsics, depthScale: Double = 0.001) {
        self.depth = depth; self.color = color; self.depthToColor = depthToColor; self.depthScale = depthScale
    }

    /// A depth pixel with depth `z` metres → the colour pixel it lands on and
    /// its distance along the colour camera's axis (nil behind the colour camera).
    func depthToColorPixel(u: Double, v: Double, z: Double) -> (u: Double, v: Double, z: Double)? {
        let p = depthToColor.transform(depth.deproject(u: u, v: v, depth: z))
        guard p.z > 0 else { return nil }
        let px = color.project(p)
        return (px.u, px.v, p.z)
    }
}

extension DepthCalibration {
    /// The calibration as a calibration file (the schema of README
    /// "depthalign", which the elements read with json-glib), numbers printed
    /// so that they read back exactly.
    @_spi(Bench) public var json: String {
        func cam(_ c: CameraIntrinsics) -> String {
            "{\"width\": \(c.width), \"height\": \(c.height), \"fx\": \(c.fx), \"fy\": \(c.fy), "
                + "\"ppx\": \(c.ppx), \"ppy\": \(c.ppy), \"model\": \"\(c.model.rawValue)\", "
                + "\"coeffs\": [\(c.coeffs.map { "\($0)" }.joined(separator: ", "))]}"
        }
        let r = depthToColor.rotationRowMajor.map { "\($0)" }.joined(separator: ", ")
        let t = depthToColor.translation
        return "{\n  \"depth\": \(cam(depth)),\n  \"color\": \(cam(color)),\n"
            + "  \"depth_to_color\": {\"rotation\": [\(r)], \"translation\": [\(t.x), \(t.y), \(t.z)]},\n"
            + "  \"depth_scale\": \(depthScale)\n}\n"
    }
}

@inline(__always) func mathCos(_ x: Double) -> Double { cos(x) }
@inline(__always) func mathSin(_ x: Double) -> Double { sin(x) }
@inline(__always) func mathLog(_ x: Double) -> Double { log(x) }
