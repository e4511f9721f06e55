// SPDX-License-Identifier: LGPL-2.1-or-later
/// The Swift side of depthalign.h and calibration.h: the shim's checked
/// calibration numbers to a kit calibration, and frames through the kit's
/// registration (DepthMatteKit/depthalign).
import DepthMatteKit
import DMContract

final class DepthAlignState {
    let registration = DepthRegistration()
    var calibration: DepthCalibration?
    /// GRAY16_BE input in little-endian order (reused).
    let swapped = DepthBuffer()

    /// The depth picture as little-endian samples.
    func littleEndian(_ d: DMGrayImage, bigEndian: Bool) -> Depth16View {
        guard bigEndian, let data = d.data else { return Depth16View(d) }
        let w = Int(d.width), h = Int(d.height)
        swapped.reserve(w * h)
        do {
            let out = swapped.base
            for y in 0..<h {
                let row = UnsafeRawPointer(data + y * Int(d.stride))
                for x in 0..<w { out[y * w + x] = UInt16(littleEndian: UInt16(row.load(fromByteOffset: 2 * x, as: UInt16.self).byteSwapped)) }
            }
        }
        return swapped.view(width: w, height: h)
    }
}

@_cdecl("dm_depthalign_new")
public func dm_depthalign_new() -> UnsafeMutableRawPointer? {
    ElementState.retain(DepthAlignState())
}

/// The elements of a fixed-size C array of doubles (a tuple in Swift).
private func doubles<T>(_ tuple: T) -> [Double] {
    withUnsafeBytes(of: tuple) { Array($0.bindMemory(to: Double.self)) }
}

extension CameraIntrinsics {
    /// One camera of a calibration the shim has read and checked (calibration.h).
    init(_ c: DMCameraIntrinsics) {
        let model: DistortionModel
        switch c.model {
        case DM_DISTORTION_BROWN_CONRADY: model = .brownConrady
        case DM_DISTORTION_INVERSE_BROWN_CONRADY: model = .inverseBrownConrady
        default: model = .none
        }
        self.init(width: Int(c.width), height: Int(c.height), fx: c.fx, fy: c.fy, ppx: c.ppx, ppy: c.ppy,
                  model: model, coeffs: doubles(c.coeffs))
    }
}

extension DepthCalibration {
    /// A calibration the shim has read and checked (calibration.h).
    init(_ c: DMCalibration) {
        self.init(depth: CameraIntrinsics(c.depth), color: CameraIntrinsics(c.color),
                  depthToColor: Extrinsics(rotationRowMajor: doubles(c.rotation), translation: doubles(c.translation)),
                  depthScale: c.depth_scale)
    }
}

/// A calibration read once, for the streaming thread (`dm_calibration_new`).
final class ParsedCalibration {
    let calibration: DepthCalibration
    init(_ c: DepthCalibration) { calibration = c }
}

@_cdecl("dm_calibration_new")
public func dm_calibration_new(_ c: UnsafePointer<DMCalibration>?) -> UnsafeMutableRawPointer? {
    guard let c else { return nil }
    return Unmanaged.passRetained(ParsedCalibration(DepthCalibration(c.pointee))).toOpaque()
}

@_cdecl("dm_calibration_release")
public func dm_calibration_release(_ parsed: UnsafeMutableRawPointer?) {
    if let parsed { Unmanaged<ParsedCalibration>.fromOpaque(parsed).release() }
}

@_cdecl("dm_depthalign_load")
public func dm_depthalign_load(_ state: UnsafeMutableRawPointer?, _ parsed: UnsafeMutableRawPointer?) -> Int32 {
    guard let s = ElementState.get(state, as: DepthAlignState.self), let parsed else { return 0 }
    let c = Unmanaged<ParsedCalibration>.fromOpaque(parsed).takeUnretainedValue().calibration
    s.calibration = c
    s.registration.prepare(c)
    return 1
}

@_cdecl("dm_depthalign_process")
public func dm_depthalign_process(_ state: UnsafeMutableRawPointer?, _ settings: UnsafePointer<DMDepthAlignSettings>?,
                                  _ depth: UnsafePointer<DMGrayImage>?, _ out: UnsafePointer<DMGrayImage>?) -> Int32 {
    guard let s = ElementState.get(state, as: DepthAlignState.self), let c = s.calibration, let settings,
          let depth, let out, depth.pointee.data != nil, let outData = out.pointee.data else { return 0 }
    let o = out.pointee
    let input = s.littleEndian(depth.pointee, bigEndian: settings.pointee.big_endian != 0)
    let status = s.registration.register(depth: input, calibration: c, into: outData,
                                         width: Int(o.width), height: Int(o.height), stride: Int(o.stride),
                                         maxRelativeJump: settings.pointee.max_jump,
                                         threads: Int(settings.pointee.n_threads))
    return status == .ok ? 1 : 0
}
