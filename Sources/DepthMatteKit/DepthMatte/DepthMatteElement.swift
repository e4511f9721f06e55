/// The whole `depthmatte` element as kit types: every property (with the
/// element's defaults), what the keyer does not know about (the focus
/// masks' parameters, `output=depth`, the background effects) and the
/// routing between them. The bridge only turns the shim's C structs into these values.

/// What the src pad carries.
public enum ElementOutput: Int32, CaseIterable, Sendable {
    case composite = 0
    case matte = 1
    case alpha = 2
    /// The depth map as a picture at video size (`DepthViewRenderer`); no keying.
    case depth = 3
}

/// Every property of the element, copied once per frame. Defaults are the
/// element's (a bridge test checks them against the shim's property table).
///
/// The properties the keyer has too (cutoff, cutoffOffset, refine,
/// subjectOnly, blurRadius, gamma, backgroundARGB, lockStrategy, lockHold,
/// lockSmoothing, threads) are kept once, in `keyer`, and read and written as
/// this type's own (`settings.cutoff`). The keyer's mode, focus, depthScale,
/// output and frameDuration come from the element's per frame
/// (`keyerSettings(depthScale:)`).
@dynamicMemberLookup
public struct DepthMatteSettings: Equatable {
    public var mode: KeyingMode = .face
    /// Focus modes: metres.
    public var focus: Double = 1.0
    /// Focus modes: per metre (ramp 1/slope m wide).
    public var slope: Double = 4.0
    /// bandpass: metres either side of `focus` kept fully.
    public var focusWidth: Double = 0.05
    /// The keyer's own properties (see above).
    public var keyer = MatteSettings()
    /// How depth-pad values become metres (the frame's format fills in
    /// `eightBit` and `bigEndian`).
    public var encoding = DepthEncoding()
    public var output: ElementOutput = .composite
    public var backgroundEffect: BackgroundEffect = .none
    /// background-effect=blur: radius in video pixels.
    public var effectRadius: Double = 24
    /// background-effect=blur: grows from radius/3 behind the subject to radius at 1 m.
    public var effectGrowth: Bool = true
    /// output=depth: colour map, range and hole colour (its `encoding` is ignored).
    public var display = DepthViewSettings()
    /// Seconds since the previous frame (the lock's clock); 0 = unknown.
    public var frameDuration: Double = 0
    public init() {}

    /// The keyer's properties as the element's own: `settings.cutoff`.
    public subscript<T>(dynamicMember key: WritableKeyPath<MatteSettings, T>) -> T {
        get { keyer[keyPath: key] }
        set { keyer[keyPath: key] = newValue }
    }

    /// The focus mask of the focus modes; nil in the threshold modes.
    public var focusSettings: FocusSettings? {
        switch mode {
        case .highpass: return FocusSettings(kind: .highpass, focus: focus, slope: slope, halfWidth: focusWidth)
        case .bandpass: return FocusSettings(kind: .bandpass, focus: focus, slope: slope, halfWidth: focusWidth)
        default: return nil
        }
    }

    /// The keyer's settings. The focus modes key with a soft focus mask on a
    /// fixed "cutoff" at `focus` (what the lock reports); metres are per
    /// `depthScale` of the depth the keyer is given.
    public func keyerSettings(depthScale: Double) -> MatteSettings {
        var m = keyer
        m.mode = mode
        m.cutoff = focusSettings == nil ? keyer.cutoff : focus
        m.focus = focusSettings
        m.depthScale = depthScale
        m.output = output == .alpha ? .alpha : output == .matte ? .matte : .composite
        m.frameDuration = frameDuration
        return m
    }
}

/// The element's per-stream state: the keyer, the depth decoder, the depth
/// picture and the background effects.
public final class DepthMatteElement {
    public let matter = DepthMatter()
    /// Disparity and GRAY8 / big-endian depth re-expressed as millimetres.
    private let normalizer = DepthNormalizer()
    private let depthView = DepthViewRenderer()
    private let effects = BackgroundEffects()
    private var effectWeight = FloatPlane()
    private var effectGrowth = FloatPlane()

    public init() {}

    /// Forget the lock and the matte's history (flush, restart).
    public func reset() { matter.reset() }

    /// One output frame. `depth` is the raw depth pad's plane (its encoding
    /// in `settings.encoding`); `background` is already at the output's
    /// format. Padding bytes of RGBx-style outputs are written as 255.
    public func process(settings: DepthMatteSettings, video: RGBImageView?, depth: Depth16View?,
                        background: RGBImageView?, output: RGBImageView, faces: [Box]) -> MatteResult {
        var output = output
        if output.a < 0 && output.pixelStride == 4 { output.a = 6 - output.r - output.g - output.b }
        if settings.output == .depth {
            var vs = settings.display
            vs.encoding = settings.encoding
            if let d = depth {
                depthView.render(depth: d.base, width: d.width, height: d.height, stride: d.stride,
                                 settings: vs, into: output)
            } else {
                // no depth yet: every pixel is a hole
                depthView.render(metres: FloatPlane(width: 1, height: 1, value: 0), settings: vs, into: output)
            }
            var r = MatteResult()
            r.cutoff = settings.focusSettings == nil ? settings.keyer.cutoff : settings.focus
            return r
        }
        var metricDepth = depth
        var depthScale = settings.encoding.scale
        if let d = depth, !DepthNormalizer.isNative(settings.encoding) {
            metricDepth = normalizer.normalize(d.base, width: d.width, height: d.height, stride: d.stride,
                                               encoding: settings.encoding)
            depthScale = DepthNormalizer.scale
        }
        let keyer = settings.keyerSettings(depthScale: depthScale)
        var background = background
        if background == nil, let v = video, settings.output == .composite, settings.backgroundEffect != .none {
            // the effected video stands in for the background picture: the
            // matte keeps the untouched video in front of it
            var weight: FloatPlane? = nil
            if settings.backgroundEffect == .blur, let d = metricDepth {
                // the threshold modes use the previous frame's cutoff
                let cut = keyer.focus == nil ? (matter.lockedCutoff ?? keyer.cutoff) : 0
                BackgroundEffects.depthWeights(depth: d, scale: depthScale, cutoff: cut, focus: keyer.focus,
                                               weight: &effectWeight, growth: &effectGrowth)
                weight = effectWeight
            }
            background = effects.apply(settings.backgroundEffect, video: v, radius: settings.effectRadius,
                                       weight: weight,
                                       growth: weight == nil || !settings.effectGrowth ? nil : effectGrowth)
        }
        return matter.process(settings: keyer, video: video, depth: metricDepth,
                              background: background, output: output, faces: faces)
    }
}
