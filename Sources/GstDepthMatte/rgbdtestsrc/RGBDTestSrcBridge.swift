// SPDX-License-Identifier: LGPL-2.1-or-later
/// The Swift side of rgbdtestsrc.h: hands the plain C settings to the kit's
/// reader (`SceneSettings`), wraps the pictures as kit views and renders the
/// scene. No
/// GStreamer calls here; the shim owns buffers, timestamps and metas.
import DepthMatteKit
import DMContract

@_cdecl("dm_rgbdtestsrc_faces")
public func dm_rgbdtestsrc_faces(_ s: UnsafePointer<DMRGBDTestSrcSettings>?, _ t: Double, _ width: Int32, _ height: Int32,
                           _ out: UnsafeMutablePointer<DMBox>?, _ max: Int32) -> Int32 {
    guard let s, let out, max > 0 else { return 0 }
    let boxes = RGBDScene(settings: SceneSettings(s.pointee), time: t).detectedFaces(width: Int(width), height: Int(height))
    let n = min(boxes.count, Int(max))
    for i in 0..<n {
        let b = boxes[i]
        out[i] = DMBox(x: Int32(b.x), y: Int32(b.y), width: Int32(b.width), height: Int32(b.height))
    }
    return Int32(n)
}

@_cdecl("dm_rgbdtestsrc_render_video")
public func dm_rgbdtestsrc_render_video(_ s: UnsafePointer<DMRGBDTestSrcSettings>?, _ t: Double,
                                  _ out: UnsafePointer<DMRGBImage>?, _ face: UnsafeMutablePointer<DMBox>?) -> Int32 {
    guard let s, let out, out.pointee.data != nil else { return 0 }
    let scene = RGBDScene(settings: SceneSettings(s.pointee), time: t)
    guard let box = scene.renderVideo(RGBImageView(out.pointee)) else {
        face?.pointee = DMBox(x: 0, y: 0, width: 0, height: 0)
        return 0
    }
    face?.pointee = DMBox(x: Int32(box.x), y: Int32(box.y), width: Int32(box.width), height: Int32(box.height))
    return 1
}

@_cdecl("dm_rgbdtestsrc_render_depth")
public func dm_rgbdtestsrc_render_depth(_ s: UnsafePointer<DMRGBDTestSrcSettings>?, _ t: Double,
                                        _ calibration: UnsafeRawPointer?, _ out: UnsafePointer<DMGrayImage>?) {
    guard let s, let out, let data = out.pointee.data else { return }
    let o = out.pointee
    let scene = RGBDScene(settings: SceneSettings(s.pointee), time: t)
    if let calibration {
        let cal = Unmanaged<ParsedCalibration>.fromOpaque(calibration).takeUnretainedValue().calibration
        scene.renderDepth(seenBy: cal, base: UnsafeMutableRawPointer(data), width: Int(o.width),
                          height: Int(o.height), stride: Int(o.stride))
    } else {
        scene.renderDepth(base: UnsafeMutableRawPointer(data), width: Int(o.width), height: Int(o.height),
                          stride: Int(o.stride))
    }
}

@_cdecl("dm_rgbdtestsrc_render_truth")
public func dm_rgbdtestsrc_render_truth(_ s: UnsafePointer<DMRGBDTestSrcSettings>?, _ t: Double, _ out: UnsafePointer<DMGrayImage>?) {
    guard let s, let out, out.pointee.data != nil else { return }
    RGBDScene(settings: SceneSettings(s.pointee), time: t).renderTruth(Gray8View(out.pointee))
}
