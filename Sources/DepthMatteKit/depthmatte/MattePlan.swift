// SPDX-License-Identifier: LGPL-2.1-or-later
/// The depthmatte element's settings resolved for one frame: where the
/// threshold comes from, how the matte is made, what the output is and which
/// background effect applies, how the depth pad's values read and at which
/// depth scale the keyer works.
///
/// `MattePlan.init(_:eightBit:bigEndian:)` is the one place that reads the
/// element's properties (the shim's `DMDepthMatteSettings`, one field per
/// row of depthmatte_properties.def, where every default is written); the
/// element, the keyer (`DepthMatter`) and the subject lock are handed the
/// plan on every frame, read it and keep no copy of it. Behaviour that
/// differs by keying mode switches over `CutoffSource` or `MattePath`
/// (directly or through their `subject`, `focusMask` and `preset`), so a new
/// mode does not compile until each of those places says what it does with it.
import DMContract

public struct MattePlan: Equatable {
    /// Where the threshold comes from.
    let cutoff: CutoffSource
    /// How the matte is made at depth resolution.
    let path: MattePath
    /// What the keyer writes (output=depth: `depthPicture` instead).
    let output: MatteOutput
    /// output=depth: the depth picture drawn instead of a keyed frame (its
    /// `encoding` the depth pad's); nil = keyed.
    let depthPicture: DepthViewSettings?
    /// The background effect: `.none` unless output=composite.
    let effect: EffectPlan
    /// How the depth pad's values read as metres (its format included).
    let encoding: DepthEncoding
    /// Metres per depth unit of the depth the keyer is given: the pad's own
    /// scale for GRAY16_LE distance, which the keyer reads as it comes, else
    /// `DepthNormalizer.scale` (the element re-expresses the rest in it).
    let depthScale: Double
    /// Seconds since the previous frame (the lock's clock); 0 = unknown,
    /// which the lock (the one place that reads it) takes as 1/30 s, as it
    /// does a gap of 10 s or more.
    let frameDuration: Double
    /// The colour behind the subject when there is no background picture.
    let backgroundARGB: UInt32
    /// Worker threads for the full-resolution pass: 0 = one per core.
    let threads: Int
    /// How a person probability, when the frame has one, takes part.
    let person: PersonPrior
    /// What the floor tests assume of the camera (`field-of-view`).
    let camera: CameraGeometry
}

/// How the person pad's probability takes part in the matte (the element's
/// `person-prior` property; `PersonFusion`).
enum PersonPrior: Int32, CaseIterable, Sendable {
    /// It decides which depth pieces are the person (refine=guided|none in
    /// the threshold modes).
    case fuse = 0
    /// The probability alone is the matte (no depth decision).
    case alone = 1
    /// Depth only, as without the pad.
    case ignore = 2
}

/// Where the matte's threshold comes from on a frame.
enum CutoffSource: Equatable {
    /// mode=face|nearest: the subject lock (`SubjectLock`).
    case subject(SubjectRule)
    /// mode=fixed: always this many metres.
    case fixed(Double)
    /// mode=highpass|bandpass: a soft focus mask replaces the threshold; its
    /// `focus` is reported as the cutoff.
    case focus(FocusSettings)

    /// The rule of a cutoff that follows a subject; nil for a set cutoff.
    var subject: SubjectRule? {
        switch self {
        case .subject(let rule): return rule
        case .fixed, .focus: return nil
        }
    }

    /// The focus mask of the focus modes; nil in the threshold modes.
    var focusMask: FocusSettings? {
        switch self {
        case .focus(let focus): return focus
        case .subject, .fixed: return nil
        }
    }

    /// Metres: the cutoff the settings name: the fixed cutoff, the focus
    /// distance, or, for a subject, the cutoff before its first lock.
    var preset: Double {
        switch self {
        case .subject(let rule): return rule.fallback
        case .fixed(let metres): return metres
        case .focus(let focus): return focus.focus
        }
    }
}

/// The subject a cutoff follows and the lock's rules for it.
struct SubjectRule: Equatable {
    enum Mode: Equatable {
        /// Locked to the face: face depth + offset; held when no face is seen.
        case face
        /// From depth alone: the nearest large body (`NearestBodyFinder`).
        case nearest
    }
    let mode: Mode
    /// mode=face: the subject lock's rules, or the original sample's
    /// (mode=nearest has only the lock's rules: it is not read there).
    let strategy: LockStrategy
    /// Metres added to the subject's depth.
    let offset: Double
    /// Metres: the cutoff before any subject is locked.
    let fallback: Double
    /// Seconds a lost face is trusted (tracked in depth) before the depth-only finder.
    let hold: Double
    /// Seconds: time constant with which the cutoff follows the subject.
    let smoothing: Double
    /// refine=guided|none: key only the depth surfaces of the locked subject
    /// (SubjectSegmentation.swift); false = every pixel nearer than the
    /// cutoff, as the original sample.
    let subjectOnly: Bool

    /// Subject-only keying on a frame in which the lock found no subject at
    /// all (no face, no body: the fallback) keys nothing, so an empty room
    /// stays empty instead of keying the floor or wall nearer than the
    /// fallback cutoff; mode=face with lock-strategy=original keeps the
    /// sample's own fallback and keys at it (mode=nearest has no sample's
    /// lock to keep: the strategy changes nothing there).
    var keysNothingWithoutSubject: Bool { subjectOnly && !(mode == .face && strategy == .original) }
}

/// How the matte is made at depth resolution (docs/quality.md).
enum MattePath: Equatable {
    /// Focus modes: the soft focus mask, then the original chain's blur and gamma.
    case focusMask(FocusSettings, BlurGamma)
    /// refine=original: the sample's chain: threshold, blur, gamma (bicubic upscale).
    case original(BlurGamma)
    /// refine=none: the hard threshold mask, upscaled (debugging).
    case hardThreshold
    /// refine=guided: edge-aware (`MatteRefiner`) on the depth reduced to at
    /// most `DepthMatter.guidedMaxDepthWidth`.
    case guided
}

/// The original chain's softening of a mask.
struct BlurGamma: Equatable {
    /// Gaussian sigma in depth pixels.
    let radius: Double
    let gamma: Double
}

/// The background effect the element applies to the video behind the subject.
struct EffectPlan: Equatable {
    let effect: BackgroundEffect
    /// blur: radius in video pixels.
    let radius: Double
    /// blur: grows from radius/3 behind the subject to radius at 1 m.
    let growth: Bool
}

extension MattePlan {
    /// This frame's plan from the element's properties; `eightBit` /
    /// `bigEndian`: the depth pad's format on this frame (GRAY8, GRAY16_BE;
    /// both false: GRAY16_LE).
    public init(_ s: DMDepthMatteSettings, eightBit: Bool = false, bigEndian: Bool = false) {
        let source = Self.cutoffSource(s)
        let soften = BlurGamma(radius: s.blur_radius, gamma: s.gamma)
        let path: MattePath
        switch source {
        case .focus(let focus): path = .focusMask(focus, soften)
        case .subject, .fixed:
            switch MatteRefine(property: s.refine) {
            case .guided: path = .guided
            case .original: path = .original(soften)
            case .none: path = .hardThreshold
            }
        }
        let encoding = DepthEncoding(s, eightBit: eightBit, bigEndian: bigEndian)
        let output = ElementOutput(property: s.output)
        let keyed: MatteOutput
        var picture: DepthViewSettings? = nil
        switch output {
        case .composite: keyed = .composite
        case .matte: keyed = .matte
        case .alpha: keyed = .alpha
        case .depth:
            keyed = .composite
            picture = DepthViewSettings(display: s, encoding: encoding)
        }
        let effect = output == .composite ? BackgroundEffect(property: s.background_effect) : .none
        self.init(cutoff: source, path: path, output: keyed, depthPicture: picture,
                  effect: EffectPlan(effect: effect, radius: s.effect_radius, growth: s.effect_growth != 0),
                  encoding: encoding,
                  depthScale: DepthNormalizer.isNative(encoding) ? encoding.scale : DepthNormalizer.scale,
                  frameDuration: s.frame_duration, backgroundARGB: s.background_argb, threads: Int(s.n_threads),
                  person: PersonPrior(property: s.person_prior),
                  camera: CameraGeometry(diagonalFieldOfView: s.field_of_view))
    }

    /// Where the threshold comes from in the element's `mode`.
    private static func cutoffSource(_ s: DMDepthMatteSettings) -> CutoffSource {
        switch KeyingMode(property: s.mode) {
        case .face: return .subject(subjectRule(.face, s))
        case .nearest: return .subject(subjectRule(.nearest, s))
        case .fixed: return .fixed(s.cutoff)
        case .highpass:
            return .focus(FocusSettings(kind: .highpass, focus: s.focus, slope: s.slope, halfWidth: s.focus_width))
        case .bandpass:
            return .focus(FocusSettings(kind: .bandpass, focus: s.focus, slope: s.slope, halfWidth: s.focus_width))
        }
    }

    private static func subjectRule(_ mode: SubjectRule.Mode, _ s: DMDepthMatteSettings) -> SubjectRule {
        SubjectRule(mode: mode, strategy: LockStrategy(property: s.lock_strategy), offset: s.cutoff_offset,
                    fallback: s.cutoff, hold: s.lock_hold, smoothing: s.lock_smoothing,
                    subjectOnly: s.subject_only != 0)
    }
}
