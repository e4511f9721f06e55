// SPDX-License-Identifier: LGPL-2.1-or-later
/// The Swift side of depthmatte.h: hands the shim's settings to the kit's
/// plan (`MattePlan`, the one reader of depthmatte's properties), wraps the
/// pictures as kit views and runs the element (DepthMatteKit/depthmatte). No
/// GStreamer calls and no keying logic here.
import DepthMatteKit
import DMContract

/// The element's state plus a reusable face array (no allocation per frame).
final class DepthMatteState: ResettableState {
    let element = DepthMatteElement()
    var faces: [Box] = []
    init() { faces.reserveCapacity(32) }
    func reset() { element.reset() }
}

@_cdecl("dm_depthmatte_new")
public func dm_depthmatte_new() -> UnsafeMutableRawPointer? {
    ElementState.retain(DepthMatteState())
}

@_cdecl("dm_depthmatte_process")
public func dm_depthmatte_process(_ state: UnsafeMutableRawPointer?, _ settings: UnsafePointer<DMDepthMatteSettings>?,
                                  _ frame: UnsafePointer<DMDepthMatteFrame>?,
                                  _ result: UnsafeMutablePointer<DMDepthMatteResult>?) {
    guard let s = ElementState.get(state, as: DepthMatteState.self), let settings, let frame, let result else { return }
    let f = frame.pointee
    s.faces.removeAll(keepingCapacity: true)
    if let boxes = f.faces {
        for i in 0..<Int(max(f.n_faces, 0)) {
            let b = boxes[i]
            s.faces.append(Box(x: Int(b.x), y: Int(b.y), width: Int(b.width), height: Int(b.height)))
        }
    }
    let r = s.element.process(
        plan: MattePlan(settings.pointee, eightBit: f.depth_eight_bit != 0, bigEndian: f.depth_big_endian != 0),
        video: f.video.data != nil ? RGBImageView(f.video) : nil,
        depth: f.has_depth != 0 && f.depth.data != nil ? Depth16View(f.depth) : nil,
        person: f.has_person != 0 && f.person.data != nil ? Gray8View(f.person) : nil,
        background: f.has_background != 0 && f.background.data != nil ? RGBImageView(f.background) : nil,
        output: RGBImageView(f.output), faces: s.faces)
    let box = r.faceBox.map { DMBox(x: Int32($0.x), y: Int32($0.y), width: Int32($0.width), height: Int32($0.height)) }
    result.pointee = DMDepthMatteResult(face_found: r.faceFound ? 1 : 0, face_depth: r.faceDepth,
                                        cutoff: r.cutoff, keyed_cutoff: r.keyedCutoff, coverage: r.coverage, lock_source: r.lockSource.rawValue,
                                        face_box: box ?? DMBox(), camera_moving: r.cameraMoving ? 1 : 0,
                                        camera_shift_x: r.cameraShiftX, camera_shift_y: r.cameraShiftY,
                                        person_used: r.personUsed ? 1 : 0,
                                        depth_median: f.has_depth != 0 && f.depth_eight_bit == 0
                                            ? medianReading(f.depth, bigEndian: f.depth_big_endian != 0,
                                                            scale: settings.pointee.depth_scale) : 0)
}

/// Metres: the median of the non-zero 16-bit readings on a grid of about 32 x 32
/// points of `depth` (0 when there are none), for the shim's units check.
func medianReading(_ depth: DMGrayImage, bigEndian: Bool, scale: Double) -> Double {
    guard let data = depth.data, depth.width > 0, depth.height > 0 else { return 0 }
    let w = Int(depth.width), h = Int(depth.height), stride = Int(depth.stride)
    let stepX = max(1, w / 32), stepY = max(1, h / 32)
    var values: [UInt16] = []
    values.reserveCapacity(1089)
    for y in Swift.stride(from: 0, to: h, by: stepY) {
        for x in Swift.stride(from: 0, to: w, by: stepX) {
            let p = data + y * stride + 2 * x
            let v = bigEndian ? UInt16(p[0]) << 8 | UInt16(p[1]) : UInt16(p[1]) << 8 | UInt16(p[0])
            if v != 0 { values.append(v) }
        }
    }
    guard !values.isEmpty else { return 0 }
    values.sort()
    return Double(values[values.count / 2]) * scale
}
