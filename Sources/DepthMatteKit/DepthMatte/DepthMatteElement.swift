// SPDX-License-Identifier: LGPL-2.1-or-later
/// The whole `depthmatte` element as kit types: every property (with the
/// element's defaults), resolved once per frame into a `MattePlan`
/// (MattePlan.swift), and the routing the keyer does not do (depth decoding,
/// `output=depth`, the background effects). The bridge only turns the shim's
/// C structs into these values.

/// What the src pad carries.
public enum ElementOutput: Int32, CaseIterable, Sendable {
    case composite = 0
    case matte = 1
    case alpha = 2
    /// The depth map as a picture at video size (`DepthViewRenderer`); no keying.
    case depth = 3
}

/// Where the matte's cutoff comes from: the keyer's cutoff modes plus the
/// focus modes of the depth-maps sample (the element's `mode` property).
/// `DepthMatteSettings.plan(depthScale:)` turns it into the frame's `CutoffSource`.
public enum KeyingMode: Int32, CaseIterable, Sendable {
    /// Locked to the face: face depth + offset; held when no face is seen (see `SubjectLock`).
    case face = 0
    /// Always `DepthMatteSettings.cutoff`.
    case fixed = 1
    /// From depth alone: the nearest large body (see `NearestBodyFinder`).
    case nearest = 2
    /// Soft focus mask: everything nearer than `focus`, ramping out behind.
    case highpass = 3
    /// Soft focus mask: `focus ± focusWidth`, ramping out on both sides.
    case bandpass = 4
}

/// Every property of the element, copied once per frame. Defaults are the
/// element's (a bridge test checks them against the shim's property table).
/// `plan(depthScale:)` (MattePlan.swift) resolves them into the frame's plan.
public struct DepthMatteSettings: Equatable {
    public var mode: KeyingMode = .face
    /// Metres: the fixed cutoff, and the cutoff before any subject is locked.
    public var cutoff: Double = 1.0
    /// Metres added to the subject's depth (mode=face|nearest).
    public var cutoffOffset: Double = 0.25
    /// Focus modes: metres.
    public var focus: Double = 1.0
    /// Focus modes: per metre (ramp 1/slope m wide).
    public var slope: Double = 4.0
    /// bandpass: metres either side of `focus` kept fully.
    public var focusWidth: Double = 0.05
    /// How the matte is refined in the threshold modes: guided (default), original, none.
    public var refine: MatteRefine = .guided
    /// refine=guided|none in mode=face|nearest: key only the depth surfaces
    /// of the locked subject (SubjectSegmentation.swift); false = every
    /// pixel nearer than the cutoff, as the original sample.
    public var subjectOnly = true
    /// refine=original and the focus modes: Gaussian sigma in depth pixels.
    public var blurRadius: Double = 5.0
    /// refine=original and the focus modes.
    public var gamma: Double = 0.5
    public var backgroundARGB: UInt32 = 0xff00_0000
    /// mode=face: the subject lock's rules, or the original sample's.
    public var lockStrategy: LockStrategy = .robust
    /// Seconds a lost face is trusted (tracked in depth) before the depth-only finder.
    public var lockHold: Double = 4.0
    /// Seconds: time constant with which the cutoff follows the subject.
    public var lockSmoothing: Double = 0.1
    /// Worker threads for the full-resolution pass: 0 = one per core.
    public var threads: Int = 0
    /// How a linked person pad's probability takes part (`PersonFusion`).
    public var personPrior: PersonPrior = .fuse
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
}

/// How the matte is made from the depth mask (docs/quality.md); the frame's
/// `MattePath` in the threshold modes.
public enum MatteRefine: Int32 {
    /// Edge-aware: holes decided from neighbours and colour, a weighted guided
    /// filter on the colour luma, temporal smoothing (see `MatteRefiner`).
    case guided = 0
    /// The original sample's chain: threshold, blur, gamma, bicubic upscale.
    case original = 1
    /// The hard threshold mask, upscaled (debugging).
    case none = 2
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
                        person: Gray8View? = nil, background: RGBImageView?, output: RGBImageView,
                        faces: [Box]) -> MatteResult {
        var output = output
        if output.a < 0 && output.pixelStride == 4 { output.a = 6 - output.r - output.g - output.b }
        // the keyer is given native depth as it comes and anything else
        // re-expressed in the normaliser's units
        let native = DepthNormalizer.isNative(settings.encoding)
        let plan = settings.plan(depthScale: native ? settings.encoding.scale : DepthNormalizer.scale)
        if let picture = plan.depthPicture {
            if let d = depth {
                depthView.render(depth: d.base, width: d.width, height: d.height, stride: d.stride,
                                 settings: picture, into: output)
            } else {
                // no depth yet: every pixel is a hole
                depthView.render(metres: FloatPlane(width: 1, height: 1, value: 0), settings: picture, into: output)
            }
            var r = MatteResult()
            r.cutoff = plan.cutoff.preset
            return r
        }
        var metricDepth = depth
        if let d = depth, !native {
            metricDepth = normalizer.normalize(d.base, width: d.width, height: d.height, stride: d.stride,
                                               encoding: settings.encoding)
        }
        var background = background
        if background == nil, let v = video, plan.effect.effect != .none {
            background = effected(v, depth: metricDepth, plan: plan)
        }
        return matter.process(plan: plan, video: video, depth: metricDepth, person: person,
                              background: background, output: output, faces: faces)
    }

    /// The video with the plan's background effect: it stands in for the
    /// background picture, the matte keeping the untouched video in front of
    /// it. The blur's weights key on the cutoff in force before this frame's
    /// lock runs (the focus modes: on their focus mask).
    private func effected(_ video: RGBImageView, depth: Depth16View?, plan: MattePlan) -> RGBImageView {
        var weight: FloatPlane? = nil
        if plan.effect.effect == .blur, let d = depth {
            BackgroundEffects.depthWeights(depth: d, scale: plan.depthScale, cutoff: matter.cutoffInForce(plan),
                                           focus: plan.cutoff.focusMask, weight: &effectWeight, growth: &effectGrowth)
            weight = effectWeight
        }
        return effects.apply(plan.effect.effect, video: video, radius: plan.effect.radius, weight: weight,
                             growth: weight == nil || !plan.effect.growth ? nil : effectGrowth)
    }
}
