// SPDX-License-Identifier: LGPL-2.1-or-later
/// The Swift side of rgbdtestsrc.h: turns the plain C settings and
/// picture descriptions into DepthMatteKit values and renders the scene. No
/// GStreamer calls here; the shim owns buffers, timestamps and metas.
import DepthMatteKit
import DMContract

extension SceneSettings {
    init(_ c: DMRGBDTestSrcSettings) {
        self.init()
        seed = c.seed
        depthScale = c.depth_scale
        noise = c.noise != 0
        holes = c.holes != 0
        flyingPixels = c.flying_pixels != 0
        misregistration = Int(c.misregistration)
        motion = c.motion != 0
        falseFace = c.false_face != 0
        faceCover = c.face_cover != 0
        faceMeta = c.face_meta != 0
        scene = SceneKind(rawValue: c.scene) ?? .portrait
        quantization = c.quantization != 0
        correlatedNoise = c.correlated_noise != 0
        pan = c.pan != 0
        filtered = c.filtered != 0
        squarePixels = c.square_pixels != 0
    }
}

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
