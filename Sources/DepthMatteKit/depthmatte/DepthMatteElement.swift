// SPDX-License-Identifier: LGPL-2.1-or-later
/// The whole `depthmatte` element as kit types: its properties, read once
/// per frame into a `MattePlan` (MattePlan.swift), and the routing the keyer
/// does not do (depth decoding, `output=depth`, the background effects). The
/// bridge only turns the shim's C structs into these values.

/// What the src pad carries (the element's `output`).
@_spi(Bench) public enum ElementOutput: Int32, CaseIterable, Sendable {
    case composite = 0
    case matte = 1
    case alpha = 2
    /// The depth map as a picture at video size (`DepthViewRenderer`); no keying.
    case depth = 3
}

/// Where the matte's cutoff comes from: the keyer's cutoff modes plus the
/// focus modes of the depth-maps sample (the element's `mode` property).
/// `MattePlan.init` turns it into the frame's `CutoffSource`.
@_spi(Bench) public enum KeyingMode: Int32, CaseIterable, Sendable {
    /// Locked to the face: face depth + offset; held when no face is seen (see `SubjectLock`).
    case face = 0
    /// Always the element's `cutoff`.
    case fixed = 1
    /// From depth alone: the nearest large body (see `NearestBodyFinder`).
    case nearest = 2
    /// Soft focus mask: everything nearer than `focus`, ramping out behind.
    case highpass = 3
    /// Soft focus mask: `focus ± focusWidth`, ramping out on both sides.
    case bandpass = 4
}

/// How the matte is made from the depth mask (docs/quality.md); the frame's
/// `MattePath` in the threshold modes.
@_spi(Bench) public enum MatteRefine: Int32, CaseIterable {
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
    let matter = DepthMatter()
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
    /// in `plan.encoding`); `background` is already at the output's
    /// format. Padding bytes of RGBx-style outputs are written as 255.
    public func process(plan: MattePlan, video: RGBImageView?, depth: Depth16View?,
                        person: Gray8View? = nil, background: RGBImageView?, output: RGBImageView,
                        faces: [Box]) -> MatteResult {
        var output = output
        if output.a < 0 && output.pixelStride == 4 { output.a = 6 - output.r - output.g - output.b }
        // the keyer is given native depth as it comes and anything else
        // re-expressed in the normaliser's units (`plan.depthScale`)
        let native = DepthNormalizer.isNative(plan.encoding)
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
                                               encoding: plan.encoding)
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
