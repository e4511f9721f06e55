/// The depth keyer: face lock, mask, blur, gamma, upscale and blend, with
/// scratch buffers kept between frames (no allocation per frame once the
/// sizes are stable).

/// Where the matte's cutoff comes from: the keyer's cutoff modes plus the
/// focus modes of the depth-maps sample (the element's `mode` property).
public enum KeyingMode: Int32, CaseIterable, Sendable {
    /// Locked to the face: face depth + offset; held when no face is seen (see `SubjectLock`).
    case face = 0
    /// Always `MatteSettings.cutoff`.
    case fixed = 1
    /// From depth alone: the nearest large body (see `NearestBodyFinder`).
    case nearest = 2
    /// Soft focus mask: everything nearer than `focus`, ramping out behind.
    case highpass = 3
    /// Soft focus mask: `focus ± focusWidth`, ramping out on both sides.
    case bandpass = 4

    /// face and nearest: the cutoff follows a subject (`SubjectLock`); the
    /// others key at a cutoff that is set (the focus modes' is `focus`).
    public var followsSubject: Bool { self == .face || self == .nearest }
}

/// How the matte is made from the depth mask (docs/quality.md).
public enum MatteRefine: Int32 {
    /// Edge-aware: holes decided from neighbours and colour, a weighted guided
    /// filter on the colour luma, temporal smoothing (see `MatteRefiner`).
    case guided = 0
    /// The original sample's chain: threshold, blur, gamma, bicubic upscale.
    case original = 1
    /// The hard threshold mask, upscaled (debugging).
    case none = 2
}

/// The element's properties, copied once per frame.
public struct MatteSettings: Equatable {
    public var mode: KeyingMode = .face
    /// Metres: the fixed cutoff, and the cutoff before any face is seen.
    public var cutoff: Double = 1.0
    /// Metres added to the face depth.
    public var cutoffOffset: Double = 0.25
    /// Gaussian sigma in depth pixels.
    public var blurRadius: Double = 5.0
    public var gamma: Double = 0.5
    /// Metres per depth unit.
    public var depthScale: Double = 0.001
    public var backgroundARGB: UInt32 = 0xff00_0000
    public var output: MatteOutput = .composite
    /// Worker threads for the full-resolution pass: 0 = one per core.
    public var threads: Int = 0
    /// mode=face: the subject lock's rules, or the original sample's.
    public var lockStrategy: LockStrategy = .robust
    /// Seconds a lost face is trusted (tracked in depth) before the depth-only finder.
    public var lockHold: Double = 4.0
    /// Seconds: time constant with which the cutoff follows the subject.
    public var lockSmoothing: Double = 0.1
    /// Seconds since the previous frame (the lock's clock); 0 = unknown,
    /// which the lock (the one place that reads it) takes as 1/30 s, as it
    /// does a gap of 10 s or more.
    public var frameDuration: Double = 0
    /// Focus modes (FocusMask.swift): a soft mask replaces the threshold; nil = threshold.
    public var focus: FocusSettings? = nil
    /// How the matte is refined: guided (default), original, none.
    public var refine: MatteRefine = .guided
    /// refine=guided|none in mode=face|nearest: key only the depth surfaces
    /// of the locked subject (SubjectSegmentation.swift); false = every
    /// pixel nearer than the cutoff, as the original sample.
    public var subjectOnly = true
    public init() {}
}

/// What one frame did, for the bus message.
public struct MatteResult: Equatable {
    /// A face box with valid depth set the cutoff on this frame.
    public var faceFound = false
    /// Metres; 0 when no face depth was measured on this frame.
    public var faceDepth = 0.0
    /// Metres: the cutoff used.
    public var cutoff = 0.0
    /// Fraction of output pixels with matte > 0.5.
    public var coverage = 0.0
    /// Where the cutoff came from.
    public var lockSource: LockSource = .fixed
    /// The face box (video pixels) that set the cutoff on this frame, if any.
    public var faceBox: Box? = nil
    /// refine=guided: the camera's motion since the last frame as
    /// the picture's shift in video pixels (x right, y down), when one
    /// translation explained it and the temporal state followed it
    /// (`MatteRefiner.cameraMotion`); (0, 0) and false otherwise.
    public var cameraShiftX = 0.0, cameraShiftY = 0.0
    public var cameraMoving = false
    public init() {}
}

public final class DepthMatter {
    /// The locked cutoff (metres), nil before any lock.
    public var lockedCutoff: Double? { subjectLock.cutoff }
    /// Face choice, tracking, depth-only finder and smoothing.
    public let subjectLock = SubjectLock()

    private var mask = FloatPlane()
    /// The subject's surfaces among the near pixels.
    public var segmentation = SubjectSegmentation()
    /// refine=guided: its parameters are public for experiments (quality-bench).
    public var refiner = MatteRefiner()
    /// Depth maps wider than this are halved (repeatedly) before refine=guided.
    public static var guidedMaxDepthWidth = 400
    private let halfDepth = DepthBuffer()

    /// f×f blocks (f the smallest power of two that brings the width to at
    /// most guidedMaxDepthWidth; odd factors measured worse) → one sample: the one at the block's centre
    /// ((f − 1) / 2, so top-left for 2×2), or the first valid one of the block
    /// in row order when it is a hole (so a hole needs
    /// the whole block empty). 640 px → 320, 848 → 212, 1280 → 320, and depth
    /// registered to a 1080p colour camera (1920 px wide) → 240. The
    /// refiner's radii are in depth pixels and were chosen at 320 px: keeping
    /// 480 px measured worse (IoU 0.985 against 0.989 for 1920 px depth) and
    /// twice as slow.
    fileprivate func reduceDepth(_ d: Depth16View) -> Depth16View {
        var f = 1
        while d.width / f > DepthMatter.guidedMaxDepthWidth && d.height / (2 * f) > 0 { f *= 2 }
        if f == 1 { return d }
        let w = d.width / f, h = d.height / f, c = (f - 1) / 2
        halfDepth.reserve(w * h)
        do {
            let out = halfDepth.base
            for y in 0..<h {
                for x in 0..<w {
                    var v = d.at(f * x + c, f * y + c)
                    var j = 0
                    while v == 0 && j < f {
                        var i = 0
                        while v == 0 && i < f { v = d.at(f * x + i, f * y + j); i += 1 }
                        j += 1
                    }
                    out[y * w + x] = UInt16(littleEndian: v)
                }
            }
        }
        return halfDepth.view(width: w, height: h)
    }
    private var blur = GaussianBlur()
    private var gammaCurve = GammaCurve()
    private var compositor = MatteCompositor()
    private let pool = WorkerPool()
    private var onePlane = FloatPlane(width: 1, height: 1, value: 1)

    public init() {}

    /// Forget the face lock (flush, restart).
    public func reset() { subjectLock.reset(); refiner.reset() }

    /// The cutoff for this frame, from the subject lock (see SubjectLock.swift).
    public func updateCutoff(settings: MatteSettings, depth: Depth16View?, faces: [Box],
                             videoWidth: Int, videoHeight: Int, result: inout MatteResult) -> Double {
        subjectLock.settings.holdTime = settings.lockHold
        subjectLock.settings.smoothing = settings.lockSmoothing
        return subjectLock.update(mode: settings.mode, strategy: settings.lockStrategy, cutoffSetting: settings.cutoff,
                                  offset: settings.cutoffOffset, depthScale: settings.depthScale,
                                  frameDuration: settings.frameDuration, depth: depth, faces: faces,
                                  videoWidth: videoWidth, videoHeight: videoHeight, result: &result)
    }

    /// The depth with every near pixel that is not the locked subject's
    /// pushed behind the cutoff (SubjectSegmentation.swift); `depth` itself
    /// when `subjectOnly` is off, in mode=fixed, or when the lock has no seed.
    /// The cutoff the subject-only matte keys at: with subject-only in a mode
    /// that follows the subject, a frame in which the lock found no subject
    /// at all (no face, no body: the fixed fallback) keys nothing (except with
    /// lock-strategy=original, the sample's own fallback). An empty
    /// room stays empty instead of keying the floor or wall nearer than the
    /// fallback cutoff.
    private func subjectCutoff(_ cutoff: Double, _ settings: MatteSettings, _ result: MatteResult) -> Double {
        settings.subjectOnly && settings.mode.followsSubject && settings.lockStrategy != .original
            && result.lockSource == .fixed ? 0 : cutoff
    }

    private func keepSubject(_ depth: Depth16View, _ settings: MatteSettings, cutoff: Double,
                             video: RGBImageView?) -> Depth16View {
        guard settings.subjectOnly, settings.mode.followsSubject else { return depth }
        let lock = subjectLock, movers = segmentation.moverSeeds
        return segmentation.apply(depth: depth, scale: settings.depthScale, cutoff: cutoff, video: video) { seeds, w, h in
            lock.writeSeeds(into: &seeds, width: w, height: h, movers: movers)
        }
    }

    /// The original chain's steps 2b and 2c on `mask` (also the focus modes'):
    /// blur, then gamma with the snap to exact 0 and 1.
    /// The blur applies the gamma to the values it sums as it makes them (the
    /// rest are 0 and 1, which the curve keeps): no pass of its own.
    private func blurAndGamma(_ settings: MatteSettings, threads: Int) {
        let blurred = gammaCurve.withMap(gamma: settings.gamma, snap: true) { map in
            blur.apply(to: &mask, sigma: settings.blurRadius, pool: pool, threads: threads, then: map)
        }
        if !blurred { gammaCurve.apply(to: &mask, gamma: settings.gamma, snap: true, pool: pool, threads: threads) }
    }

    /// Key one frame into `output` (same size as the video).
    /// - video: nil when there is no colour for this output time (background only).
    /// - depth: nil when there is no depth (the video passes through, matte = 1).
    /// - background: a picture in the output's format, any size, placed by aspect fill;
    ///   nil = `settings.backgroundARGB`.
    public func process(settings: MatteSettings, video: RGBImageView?, depth: Depth16View?,
                        background: RGBImageView?, output: RGBImageView, faces: [Box]) -> MatteResult {
        var result = MatteResult()
        let W = output.width, H = output.height
        let keyed = video != nil && depth.map { $0.width > 0 && $0.height > 0 } ?? false
        let threads = WorkerPool.threadCount(settings.threads)
        let guided = keyed && settings.focus == nil && settings.refine == .guided
        var reduced: Depth16View? = nil
        let cutoff: Double
        if guided && threads > 1, let depth {
            // the lock and the depth reduction for the guided filter read the
            // same depth map and nothing of each other: side by side
            var job = LockAndReduce(matter: Unmanaged.passUnretained(self), settings: settings, depth: depth,
                                    faces: faces, videoWidth: video?.width ?? W, videoHeight: video?.height ?? H)
            withUnsafeMutablePointer(to: &job) { ctx in
                pool.run(bands: 2, context: UnsafeMutableRawPointer(ctx)) { raw, b in
                    raw.assumingMemoryBound(to: LockAndReduce.self).pointee.run(band: b)
                }
            }
            cutoff = job.cutoff
            result = job.result
            reduced = job.reduced
        } else {
            cutoff = updateCutoff(settings: settings, depth: depth, faces: faces,
                                  videoWidth: video?.width ?? W, videoHeight: video?.height ?? H, result: &result)
        }
        result.cutoff = cutoff

        // matte at depth resolution
        if keyed, let depth {
            if let focus = settings.focus {
                // focus modes: their soft mask through the original chain's blur and gamma
                refiner.reset()
                FocusMask.mask(depth: depth, scale: settings.depthScale, settings: focus, into: &mask)
                blurAndGamma(settings, threads: threads)
            } else {
                switch settings.refine {
                case .original:
                    refiner.reset()
                    DepthThreshold.mask(depth: depth, scale: settings.depthScale, cutoff: cutoff, into: &mask)
                    blurAndGamma(settings, threads: threads)
                case .none:
                    refiner.reset()
                    let subject = keepSubject(depth, settings, cutoff: cutoff, video: video)
                    DepthThreshold.mask(depth: subject, scale: settings.depthScale, cutoff: subjectCutoff(cutoff, settings, result),
                                        into: &mask)
                case .guided:
                    // The guided filter's cost grows with the depth resolution while
                    // its result hardly improves past ~360 px: larger depth maps are
                    // reduced first (measured with quality-bench; see docs/quality.md).
                    let guide = keepSubject(reduced ?? reduceDepth(depth), settings, cutoff: cutoff, video: video)
                    refiner.refine(depth: guide, scale: settings.depthScale, cutoff: subjectCutoff(cutoff, settings, result),
                                   video: video!,
                                   pool: pool, threads: threads, into: &mask)
                    if refiner.motion.applied && guide.width > 0 && guide.height > 0 {
                        result.cameraMoving = true
                        result.cameraShiftX = Double(refiner.motion.dx) * Double(video!.width) / Double(guide.width)
                        result.cameraShiftY = Double(refiner.motion.dy) * Double(video!.height) / Double(guide.height)
                    }
                }
            }
        } else {
            // no depth: matte 1 everywhere (unkeyed pass-through); no colour: matte 0
            onePlane[0, 0] = video == nil ? 0 : 1
        }
        let prepared = keyed ? mask : onePlane

        let color = ARGBColor(argb: settings.backgroundARGB)
        // step 3's colour detail: only where this frame's matte is the guided filter's
        let detailed = keyed && depth != nil && settings.focus == nil && settings.refine == .guided && refiner.colourDetail
        let covered = compositor.run(matte: prepared, detail: detailed ? refiner.detail : nil,
                                     video: video, background: background, color: color,
                                     output: output, mode: settings.output, pool: pool, threads: threads)
        result.coverage = W * H > 0 ? Double(covered) / Double(W * H) : 0
        return result
    }
}

/// The subject lock (band 0) and the guided filter's depth reduction (band 1)
/// of one frame, run side by side on the pool.
private struct LockAndReduce {
    let matter: Unmanaged<DepthMatter>
    let settings: MatteSettings
    let depth: Depth16View
    let faces: [Box]
    let videoWidth: Int, videoHeight: Int
    var result = MatteResult()
    var cutoff = 0.0
    var reduced: Depth16View? = nil

    init(matter: Unmanaged<DepthMatter>, settings: MatteSettings, depth: Depth16View, faces: [Box],
         videoWidth: Int, videoHeight: Int) {
        self.matter = matter; self.settings = settings; self.depth = depth; self.faces = faces
        self.videoWidth = videoWidth; self.videoHeight = videoHeight
    }

    mutating func run(band: Int) {
        let m = matter.takeUnretainedValue()
        if band == 0 {
            cutoff = m.updateCutoff(settings: settings, depth: depth, faces: faces,
                                    videoWidth: videoWidth, videoHeight: videoHeight, result: &result)
        } else {
            reduced = m.reduceDepth(depth)
        }
    }
}
