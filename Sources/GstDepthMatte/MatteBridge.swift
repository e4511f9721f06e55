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
    /// Disparity and GRAY8 depth re-expressed as millimetres (DepthDecode.swift).
    let normalizer = DepthNormalizer()
    /// output=depth (DepthView.swift).
    let depthView = DepthViewRenderer()
    /// background-effect (BackgroundEffect.swift) and its blur weights.
    let effects = BackgroundEffects()
    var effectWeight = FloatPlane()
    var effectGrowth = FloatPlane()
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
    var depth: Depth16View? = f.has_depth != 0 && f.depth.data != nil ? Depth16View(f.depth) : nil
    var matteSettings = MatteSettings(settings.pointee)
    let c = settings.pointee
    if c.mode == DM_MODE_HIGHPASS.rawValue || c.mode == DM_MODE_BANDPASS.rawValue {
        // focus modes: the soft focus mask replaces the threshold; the lock reports focus as the cutoff
        matteSettings.mode = .fixed
        matteSettings.cutoff = c.focus
        matteSettings.focus = FocusSettings(kind: c.mode == DM_MODE_HIGHPASS.rawValue ? .highpass : .bandpass,
                                            focus: c.focus, slope: c.slope, halfWidth: c.focus_width)
    }
    let encoding = DepthEncoding(kind: DepthKind(rawValue: c.depth_kind) ?? .depth, eightBit: f.depth_eight_bit != 0,
                                 scale: c.depth_scale, near: c.depth_near, far: c.depth_far,
                                 bigEndian: f.depth_big_endian != 0)
    if let d = depth, !DepthNormalizer.isNative(encoding) {
        depth = s.normalizer.normalize(d.base, width: d.width, height: d.height, stride: d.stride, encoding: encoding)
        matteSettings.depthScale = DepthNormalizer.scale
    }
    var background: RGBImageView? = f.has_background != 0 && f.background.data != nil ? RGBImageView(f.background) : nil
    // Padding bytes of RGBx-style outputs are written as 255 (as videotestsrc
    // does): some converters carry them into alpha.
    var output = RGBImageView(f.output)
    if output.a < 0 && output.pixelStride == 4 { output.a = 6 - output.r - output.g - output.b }
    if c.output == DM_OUTPUT_DEPTH.rawValue {
        // the depth map as a picture at video size; no keying
        var vs = DepthViewSettings()
        vs.encoding = encoding
        vs.rangeMin = c.range_min; vs.rangeMax = c.range_max
        vs.colormap = DepthColormap(rawValue: c.depth_colormap) ?? .turbo
        vs.holeARGB = c.hole_argb
        if let d = f.has_depth != 0 && f.depth.data != nil ? Depth16View(f.depth) : nil {
            s.depthView.render(depth: d.base, width: d.width, height: d.height, stride: d.stride,
                               settings: vs, into: output)
        } else {
            // no depth yet: every pixel is a hole
            s.depthView.render(metres: FloatPlane(width: 1, height: 1, value: 0), settings: vs, into: output)
        }
        result.pointee = DMMatteResult(face_found: 0, face_depth: 0, cutoff: matteSettings.cutoff, coverage: 0,
                                       lock_source: 0, face_box: DMBox())
        return
    }
    if background == nil, let v = video, c.output == DM_OUTPUT_COMPOSITE.rawValue,
       let effect = BackgroundEffect(rawValue: c.background_effect), effect != .none {
        // the effected video stands in for the background picture: the matte
        // keeps the untouched video in front of it
        var weight: FloatPlane? = nil
        if effect == .blur, let d = depth {
            // blur weights from depth: 0 on the subject (so it leaves no halo), 1 behind;
            // the threshold modes use the previous frame's cutoff
            let cut = matteSettings.focus == nil ? (s.matter.lockedCutoff ?? matteSettings.cutoff) : 0
            s.effectWeight.resize(width: d.width, height: d.height)
            s.effectGrowth.resize(width: d.width, height: d.height)
            // blur grows over 1 m behind the subject (the cutoff, or the focus in focus modes)
            let ref = matteSettings.focus?.focus ?? cut
            for y in 0..<d.height {
                for x in 0..<d.width {
                    let raw = d.at(x, y)
                    let m = Double(raw) * matteSettings.depthScale
                    let w: Float
                    if raw == 0 { w = 1 }
                    else if let focus = matteSettings.focus { w = 1 - FocusMask.alpha(metres: m, focus) }
                    else { w = m > cut ? 1 : 0 }
                    s.effectWeight[x, y] = w
                    s.effectGrowth[x, y] = raw == 0 ? 1 : Float(max(0, min(1, m - ref)))
                }
            }
            weight = s.effectWeight
        }
        background = s.effects.apply(effect, video: v, radius: c.effect_radius, weight: weight,
                                     growth: weight == nil || c.effect_growth == 0 ? nil : s.effectGrowth)
    }
    let r = s.matter.process(settings: matteSettings, video: video, depth: depth,
                             background: background, output: output, faces: s.faces)
    let box = r.faceBox.map { DMBox(x: Int32($0.x), y: Int32($0.y), width: Int32($0.width), height: Int32($0.height)) }
    result.pointee = DMMatteResult(face_found: r.faceFound ? 1 : 0, face_depth: r.faceDepth,
                                   cutoff: r.cutoff, coverage: r.coverage, lock_source: r.lockSource.rawValue,
                                   face_box: box ?? DMBox())
}
