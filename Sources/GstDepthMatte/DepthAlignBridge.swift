// SPDX-License-Identifier: LGPL-2.1-or-later
/// The Swift side of depthalign.h: the calibration text to a kit calibration,
/// and frames through the kit's registration (DepthMatteKit/DepthAlign).
import DepthMatteKit
import DMContract
import GstShim

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

/// Copy `text` into a fixed-size C char array (NUL-terminated, truncated).
private func copy<T>(_ text: String, into tuple: inout T) {
    withUnsafeMutableBytes(of: &tuple) { raw in
        let bytes = Array(text.utf8.prefix(raw.count - 1))
        raw.copyBytes(from: bytes)
        raw[bytes.count] = 0
    }
}

@_cdecl("dm_depthalign_new")
public func dm_depthalign_new() -> UnsafeMutableRawPointer? {
    ElementState.retain(DepthAlignState())
}

/// Parse a calibration for the shim: its sizes, or why it was refused.
@discardableResult
private func describe(_ json: UnsafePointer<CChar>, _ info: UnsafeMutablePointer<DMCalibrationInfo>)
    -> DepthCalibration? {
    do {
        let c = try DepthCalibration(json: String(cString: json))
        info.pointee.depth_width = Int32(c.depth.width)
        info.pointee.depth_height = Int32(c.depth.height)
        info.pointee.color_width = Int32(c.color.width)
        info.pointee.color_height = Int32(c.color.height)
        info.pointee.depth_scale = c.depthScale
        return c
    } catch let e as CalibrationError {
        copy(e.field, into: &info.pointee.field)
        copy(e.message, into: &info.pointee.message)
    } catch {
        copy("", into: &info.pointee.field)
        copy("\(error)", into: &info.pointee.message)
    }
    return nil
}

/// A calibration parsed once, for the streaming thread (`dm_calibration_parse`).
final class ParsedCalibration {
    let calibration: DepthCalibration
    init(_ c: DepthCalibration) { calibration = c }
}

@_cdecl("dm_calibration_parse")
public func dm_calibration_parse(_ json: UnsafePointer<CChar>?,
                                 _ info: UnsafeMutablePointer<DMCalibrationInfo>?) -> UnsafeMutableRawPointer? {
    guard let json, let info, let c = describe(json, info) else { return nil }
    return Unmanaged.passRetained(ParsedCalibration(c)).toOpaque()
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
