/// The Swift side of dmshim.h for depthmatte: converts the plain C structs the
/// shim hands over into DepthMatteKit views and runs the keyer. No GStreamer
/// calls here; the shim owns buffers, locking and messages.
import DepthMatteKit
import GstShim

extension RGBImageView {
    init(_ c: DMRGBImage) {
        self.init(base: c.data, width: Int(c.width), height: Int(c.height), stride: Int(c.stride),
                  pixelStride: Int(c.pixel_stride), r: Int(c.r), g: Int(c.g), b: Int(c.b), a: Int(c.a))
    }
}

extension Depth16View {
    init(_ c: DMGrayImage) {
        self.init(base: UnsafeRawPointer(c.data), width: Int(c.width), height: Int(c.height), stride: Int(c.stride))
    }
}

extension Gray8View {
    init(_ c: DMGrayImage) {
        self.init(base: c.data, width: Int(c.width), height: Int(c.height), stride: Int(c.stride))
    }
}

extension MatteSettings {
    init(_ c: DMMatteSettings) {
        self.init()
        mode = CutoffMode(rawValue: c.mode) ?? .face
        cutoff = c.cutoff
        cutoffOffset = c.cutoff_offset
        blurRadius = c.blur_radius
        gamma = c.gamma
        depthScale = c.depth_scale
        backgroundARGB = c.background_argb
        output = MatteOutput(rawValue: c.output) ?? .composite
        lockStrategy = LockStrategy(rawValue: c.lock_strategy) ?? .robust
        lockHold = c.lock_hold
        lockSmoothing = c.lock_smoothing
        threads = Int(c.n_threads)
        refine = MatteRefine(rawValue: c.refine) ?? .guided
        if c.frame_duration > 0 { frameDuration = c.frame_duration }
    }
}

/// The per-element state behind the opaque pointer: the keyer plus a reusable
/// face array (so collecting faces does not allocate per frame).
final class MatteState {
    let matter = DepthMatter()
    var faces: [Box] = []
    init() { faces.reserveCapacity(32) }
}

@_cdecl("dm_matte_new")
public func dm_matte_new() -> UnsafeMutableRawPointer? {
    Unmanaged.passRetained(MatteState()).toOpaque()
}

@_cdecl("dm_matte_free")
public func dm_matte_free(_ state: UnsafeMutableRawPointer?) {
    guard let state else { return }
    Unmanaged<MatteState>.fromOpaque(state).release()
}

@_cdecl("dm_matte_reset")
public func dm_matte_reset(_ state: UnsafeMutableRawPointer?) {
    guard let state else { return }
    Unmanaged<MatteState>.fromOpaque(state).takeUnretainedValue().matter.reset()
}

@_cdecl("dm_matte_process")
public func dm_matte_process(_ state: UnsafeMutableRawPointer?, _ settings: UnsafePointer<DMMatteSettings>?,
                             _ frame: UnsafePointer<DMMatteFrame>?, _ result: UnsafeMutablePointer<DMMatteResult>?) {
    guard let state, let settings, let frame, let result else { return }
    let s = Unmanaged<MatteState>.fromOpaque(state).takeUnretainedValue()
    let f = frame.pointee
    s.faces.removeAll(keepingCapacity: true)
    if let boxes = f.faces {
        for i in 0..<Int(max(f.n_faces, 0)) {
            let b = boxes[i]
            s.faces.append(Box(x: Int(b.x), y: Int(b.y), width: Int(b.width), height: Int(b.height)))
        }
    }
    let video: RGBImageView? = f.video.data != nil ? RGBImageView(f.video) : nil
    let depth: Depth16View? = f.has_depth != 0 && f.depth.data != nil ? Depth16View(f.depth) : nil
    let background: RGBImageView? = f.has_background != 0 && f.background.data != nil ? RGBImageView(f.background) : nil
    // Padding bytes of RGBx-style outputs are written as 255 (as videotestsrc
    // does): some converters carry them into alpha.
    var output = RGBImageView(f.output)
    if output.a < 0 && output.pixelStride == 4 { output.a = 6 - output.r - output.g - output.b }
    let r = s.matter.process(settings: MatteSettings(settings.pointee), video: video, depth: depth,
                             background: background, output: output, faces: s.faces)
    result.pointee = DMMatteResult(face_found: r.faceFound ? 1 : 0, face_depth: r.faceDepth,
                                   cutoff: r.cutoff, coverage: r.coverage, lock_source: r.lockSource.rawValue)
}
