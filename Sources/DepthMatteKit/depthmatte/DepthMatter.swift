// SPDX-License-Identifier: LGPL-2.1-or-later
/// The depth keyer: face lock, mask, blur, gamma, upscale and blend, as a
/// frame's `MattePlan` says, with scratch buffers kept between frames (no
/// allocation per frame once the sizes are stable).

/// What one frame did, for the bus message.
public struct MatteResult: Equatable {
    /// A face box with valid depth set the cutoff on this frame.
    public var faceFound = false
    /// Metres; 0 when no face depth was measured on this frame.
    public var faceDepth = 0.0
    /// Metres: the lock's cutoff (the property's in mode=fixed).
    public var cutoff = 0.0
    /// Metres: the depth the matte was cut at: 0 when subject-only found no
    /// subject, under a person prior the farthest depth the fusion kept,
    /// else `cutoff` (0 without a depth cut: the focus modes,
    /// person-prior=alone, no depth).
    public var keyedCutoff = 0.0
    /// Fraction of output pixels with matte > 0.5.
    public var coverage = 0.0
    /// Where the cutoff came from.
    public var lockSource: LockSource = .fixed
    /// The face box (video pixels) that set the cutoff on this frame, if any.
    public var faceBox: Box? = nil
    /// refine=guided: the camera's motion since the last frame as
    /// the picture's shift in video pixels (x right, y down), when one
    /// translation explained it and the temporal state followed it
    /// (`MatteRefiner.Tuning.cameraMotion`); (0, 0) and false otherwise.
    public var cameraShiftX = 0.0, cameraShiftY = 0.0
    public var cameraMoving = false
    /// The person probability took part in this frame's matte.
    public var personUsed = false
    @_spi(Bench) public init() {}
}

@_spi(Bench) public final class DepthMatter {
    /// The locked cutoff (metres), nil before any lock.
    var lockedCutoff: Double? { subjectLock.cutoff }
    /// Face choice, tracking, depth-only finder and smoothing.
    let subjectLock = SubjectLock()

    private var mask = FloatPlane()
    /// The subject's surfaces among the near pixels.
    @_spi(Bench) public var segmentation = SubjectSegmentation()
    /// refine=guided: its parameters are Bench SPI for experiments (quality-bench).
    @_spi(Bench) public var refiner = MatteRefiner()
    /// Depth maps wider than this are halved (repeatedly) before refine=guided.
    static let guidedMaxDepthWidth = 400
    private let halfDepth = DepthBuffer()
    /// The person prior's fusion with depth (`PersonFusion`).
    var fusion = PersonFusion()
    private var fusionSeeds: [UInt8] = []
    /// The labels of the depth-only decision where the segmentation does
    /// not make it (`SubjectDecision`).
    private let depthDecided = DecisionBuffer()
    private var alonePlane = FloatPlane()

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
        let out = halfDepth.base
        if f == 2 {
            // 2x2 blocks: the top-left sample, else the first valid one of
            // (1, 0), (0, 1), (1, 1); branch-free selects on row pointers
            for y in 0..<h {
                let r0 = d.base + 2 * y * d.stride, r1 = r0 + d.stride
                let o = out + y * w
                var x = 0
                #if _endian(little)
                // (eight blocks at a time, the same selects on 32-bit lanes)
                let none = SIMD8<UInt32>(repeating: 0)
                while x &+ 8 <= w {
                    let p0 = r0.loadUnaligned(fromByteOffset: 4 &* x, as: SIMD8<UInt32>.self)
                    let p1 = r1.loadUnaligned(fromByteOffset: 4 &* x, as: SIMD8<UInt32>.self)
                    let a = p0 & 0xffff, b = p0 &>> 16, e = p1 & 0xffff, g = p1 &>> 16
                    let lower = g.replacing(with: e, where: e .!= none)
                    let upper = lower.replacing(with: b, where: b .!= none)
                    let (first, second) = upper.replacing(with: a, where: a .!= none).lowHalves
                    UnsafeMutableRawPointer(o + x).storeBytes(of: first, as: UInt64.self)
                    UnsafeMutableRawPointer(o + x + 4).storeBytes(of: second, as: UInt64.self)
                    x &+= 8
                }
                #endif
                for x in x..<w {
                    let p0 = r0.loadUnaligned(fromByteOffset: 4 * x, as: UInt32.self)
                    let p1 = r1.loadUnaligned(fromByteOffset: 4 * x, as: UInt32.self)
                    let a = UInt16(truncatingIfNeeded: UInt32(littleEndian: p0))
                    let b = UInt16(truncatingIfNeeded: UInt32(littleEndian: p0) >> 16)
                    let e = UInt16(truncatingIfNeeded: UInt32(littleEndian: p1))
                    let g = UInt16(truncatingIfNeeded: UInt32(littleEndian: p1) >> 16)
                    let lower = e != 0 ? e : g
                    let upper = b != 0 ? b : lower
                    o[x] = a != 0 ? a : upper
                }
            }
            return halfDepth.view(width: w, height: h)
        }
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
        return halfDepth.view(width: w, height: h)
    }
    private var blur = GaussianBlur()
    private var gammaCurve = GammaCurve()
    private var compositor = MatteCompositor()
    private let pool = WorkerPool()
    private(set) var threadBudget = ThreadBudget()
    private var onePlane = FloatPlane(width: 1, height: 1, value: 1)

    @_spi(Bench) public init() {}

    /// Forget the face lock (flush, restart).
    func reset() { subjectLock.reset(); refiner.reset() }

    /// The cutoff in force before this frame's lock runs (what the
    /// element's background blur keys on, made before the keying): for a
    /// subject, the lock's last cutoff while it holds one, else the preset;
    /// a set cutoff (fixed, focus) is the plan's own, also right after a
    /// live change of mode.
    func cutoffInForce(_ plan: MattePlan) -> Double {
        if plan.cutoff.subject != nil, let locked = subjectLock.cutoff { return locked }
        return plan.cutoff.preset
    }

    /// The cutoff for this frame, from the subject lock (see SubjectLock.swift).
    /// `person`: the person probability when the plan fuses one (the
    /// subject is then a body the model sees as a person).
    @_spi(Bench) public func updateCutoff(plan: MattePlan, depth: Depth16View?, faces: [Box], person: Gray8View? = nil,
                             videoWidth: Int, videoHeight: Int, result: inout MatteResult) -> Double {
        subjectLock.update(plan, depth: depth, faces: faces, person: person, videoWidth: videoWidth,
                           videoHeight: videoHeight, result: &result)
    }

    /// The cutoff the subject-only matte keys at: 0 on a frame in which the
    /// lock found no subject at all, when the rule says so
    /// (`SubjectRule.keysNothingWithoutSubject`).
    private func subjectCutoff(_ cutoff: Double, _ plan: MattePlan, _ result: MatteResult) -> Double {
        guard let rule = plan.cutoff.subject, rule.keysNothingWithoutSubject, result.lockSource == .fixed else {
            return cutoff
        }
        return 0
    }

    /// The decision at `cutoff` that keeps only the locked subject's
    /// surfaces (SubjectSegmentation.swift); the plain cut without
    /// subject-only, for a set cutoff, or when the lock has no seed.
    private func keepSubject(_ depth: Depth16View, _ plan: MattePlan, cutoff: Double,
                             video: RGBImageView?) -> SubjectDecision {
        guard let rule = plan.cutoff.subject, rule.subjectOnly else {
            return depthDecided.cut(depth, scale: plan.depthScale, cutoff: cutoff)
        }
        let lock = subjectLock, movers = segmentation.moverSeeds
        segmentation.camera = plan.camera
        return segmentation.apply(depth: depth, scale: plan.depthScale, cutoff: cutoff, video: video) { seeds, w, h in
            lock.writeSeeds(into: &seeds, width: w, height: h, movers: movers)
        }
    }

    /// The original chain's steps 2b and 2c on `mask` (also the focus modes'):
    /// blur, then gamma with the snap to exact 0 and 1.
    /// The blur applies the gamma to the values it sums as it makes them (the
    /// rest are 0 and 1, which the curve keeps): no pass of its own.
    private func blurAndGamma(_ soften: BlurGamma, threads: Int) {
        let blurred = gammaCurve.withMap(gamma: soften.gamma, snap: true) { map in
            blur.apply(to: &mask, sigma: soften.radius, pool: pool, threads: threads, then: map)
        }
        if !blurred { gammaCurve.apply(to: &mask, gamma: soften.gamma, snap: true, pool: pool, threads: threads) }
    }

    /// This frame's cutoff (filling in `result`'s lock fields) and, when
    /// `reduce` and more than one thread, the guided filter's reduced depth
    /// made alongside the lock.
    private func lock(_ plan: MattePlan, depth: Depth16View?, faces: [Box], person: Gray8View?,
                      videoWidth: Int, videoHeight: Int,
                      reduce: Bool, threads: Int) -> (cutoff: Double, result: MatteResult, reduced: Depth16View?) {
        var result = MatteResult()
        guard reduce && threads > 1, let depth else {
            let cutoff = updateCutoff(plan: plan, depth: depth, faces: faces, person: person,
                                      videoWidth: videoWidth, videoHeight: videoHeight, result: &result)
            return (cutoff, result, nil)
        }
        // the lock and the depth reduction for the guided filter read the
        // same depth map and nothing of each other: side by side
        var locked = (cutoff: 0.0, result: result), reduced: Depth16View? = nil
        withUnsafeMutablePointer(to: &locked) { lockOut in
            withUnsafeMutablePointer(to: &reduced) { reducedOut in
                var job = LockAndReduce(matter: Unmanaged.passUnretained(self), plan: plan, depth: depth,
                                        faces: faces, person: person, videoWidth: videoWidth,
                                        videoHeight: videoHeight, lockOut: lockOut, reducedOut: reducedOut)
                withUnsafeMutablePointer(to: &job) { ctx in
                    pool.run(bands: 2, context: UnsafeMutableRawPointer(ctx)) { raw, b in
                        raw.assumingMemoryBound(to: LockAndReduce.self).pointee.run(band: b)
                    }
                }
            }
        }
        return (locked.cutoff, locked.result, reduced)
    }

    /// Whether this frame fuses a person probability (`PersonFusion`).
    private func fuses(_ plan: MattePlan, _ person: Gray8View?) -> Bool {
        person != nil && plan.person == .fuse && plan.cutoff.focusMask == nil
    }

    /// The depth-only decision: the subject's surfaces (`keepSubject`) at
    /// the lock's cutoff, none of them on a frame keyed at 0 m
    /// (`subjectCutoff`).
    private func depthOnly(_ plan: MattePlan, depth: Depth16View, cutoff: Double, video: RGBImageView,
                           result: MatteResult) -> SubjectDecision {
        let subject = keepSubject(depth, plan, cutoff: cutoff, video: video)
        let keyed = subjectCutoff(cutoff, plan, result)
        return keyed == cutoff ? subject : depthDecided.nothing(like: subject)
    }

    /// The decision the person prior makes, or nil when the frame has none
    /// or the plan does not fuse. The depth-only decision (`depthOnly`) is
    /// made once, as the floor: the probability takes away what it sees is
    /// no person and adds what depth missed of one it sees; where it sees
    /// no one, depth decides (`PersonFusion.floor`).
    private func fused(_ plan: MattePlan, depth: Depth16View, person: Gray8View?, cutoff: Double,
                       video: RGBImageView, result: MatteResult) -> SubjectDecision? {
        guard let person, fuses(plan, person) else {
            fusion.forgetHeld()
            return nil
        }
        let w = depth.width, h = depth.height
        var haveSeeds = false
        if plan.cutoff.subject != nil {
            if fusionSeeds.count < w * h { fusionSeeds = [UInt8](repeating: 0, count: w * h) }
            fusionSeeds.withUnsafeMutableBufferPointer { s in for i in 0..<(w * h) { s[i] = 0 } }
            haveSeeds = subjectLock.writeSeeds(into: &fusionSeeds, width: w, height: h, movers: true,
                                               moverReach: fusion.tuning.behind)
        }
        let floor = depthOnly(plan, depth: depth, cutoff: cutoff, video: video, result: result)
        fusion.camera = plan.camera
        return fusion.fuse(depth: depth, scale: plan.depthScale, person: person, cutoff: cutoff,
                           seeds: haveSeeds ? fusionSeeds : nil, floor: floor,
                           faceLock: result.lockSource == .face || result.lockSource == .tracked,
                           subjectSeen: subjectLock.subjectSeen, setCutoff: plan.cutoff.subject == nil,
                           claimOnRoom: subjectLock.claimsOnlyRoom)
    }

    /// This frame's decision on `depth` (the grid the matte is made from):
    /// the fused one when the frame fuses a person probability, else the
    /// depth-only one (`depthOnly`). Sets `result`'s `keyedCutoff` and
    /// `personUsed`.
    private func decide(_ plan: MattePlan, depth: Depth16View, person: Gray8View?, cutoff: Double,
                        video: RGBImageView, result: inout MatteResult) -> SubjectDecision {
        let decision: SubjectDecision
        if let f = fused(plan, depth: depth, person: person, cutoff: cutoff, video: video, result: result) {
            result.personUsed = true
            decision = f
        } else {
            decision = depthOnly(plan, depth: depth, cutoff: cutoff, video: video, result: result)
        }
        result.keyedCutoff = decision.cutoff
        return decision
    }

    /// The person probability alone as the matte (person-prior=alone, or a
    /// person pad without depth), at its own size.
    private func personAlone(_ person: Gray8View) {
        alonePlane.resize(width: person.width, height: person.height)
        for y in 0..<person.height {
            let row = person.row(y)
            for x in 0..<person.width { alonePlane[x, y] = Float(row[x]) / 255 }
        }
        alonePlane.snapToEnds()
    }

    /// The matte at depth resolution into `mask`, by the plan's path.
    private func makeMatte(_ plan: MattePlan, depth: Depth16View, person: Gray8View?, video: RGBImageView,
                           cutoff: Double, reduced: Depth16View?, threads: Int, result: inout MatteResult) {
        switch plan.path {
        case .focusMask(let focus, let soften):
            // focus modes: their soft mask through the original chain's blur and gamma
            refiner.reset()
            FocusMask.mask(depth: depth, scale: plan.depthScale, settings: focus, into: &mask)
            blurAndGamma(soften, threads: threads)
        case .original(let soften):
            refiner.reset()
            result.keyedCutoff = cutoff
            DepthThreshold.mask(depth: depth, scale: plan.depthScale, cutoff: cutoff, into: &mask)
            blurAndGamma(soften, threads: threads)
        case .hardThreshold:
            refiner.reset()
            decide(plan, depth: depth, person: person, cutoff: cutoff, video: video, result: &result).mask(into: &mask)
        case .guided:
            // The guided filter's cost grows with the depth resolution while
            // its result hardly improves past ~360 px: larger depth maps are
            // reduced first (measured with quality-bench; see docs/quality.md).
            let small = reduced ?? reduceDepth(depth)
            let decision = decide(plan, depth: small, person: person, cutoff: cutoff, video: video, result: &result)
            refiner.refine(decision: decision, video: video, pool: pool, threads: threads, into: &mask)
            if refiner.motion.applied && decision.width > 0 && decision.height > 0 {
                result.cameraMoving = true
                result.cameraShiftX = Double(refiner.motion.dx) * Double(video.width) / Double(decision.width)
                result.cameraShiftY = Double(refiner.motion.dy) * Double(video.height) / Double(decision.height)
            }
        }
    }

    /// Key one frame into `output` (same size as the video).
    /// - video: nil when there is no colour for this output time (background only).
    /// - depth: nil when there is no depth (the video passes through, matte = 1).
    /// - background: a picture in the output's format, any size, placed by aspect fill;
    ///   nil = `plan.backgroundARGB`.
    @_spi(Bench) public func process(plan: MattePlan, video: RGBImageView?, depth: Depth16View?, person: Gray8View? = nil,
                        background: RGBImageView?, output: RGBImageView, faces: [Box]) -> MatteResult {
        let W = output.width, H = output.height
        let keyed = video != nil && depth.map { $0.width > 0 && $0.height > 0 } ?? false
        let (threads, timed) = threadBudget.threads(requested: plan.threads)
        let started = timed ? ThreadBudget.threadCPUSeconds() : 0
        defer {
            if timed {
                threadBudget.record(cpuSeconds: ThreadBudget.threadCPUSeconds() - started, frameDuration: plan.frameDuration)
            }
        }
        // the guided filter makes this frame's matte (and its colour detail)
        let guided = keyed && plan.path == .guided
        let locked = lock(plan, depth: depth, faces: faces, person: fuses(plan, person) ? person : nil,
                          videoWidth: video?.width ?? W,
                          videoHeight: video?.height ?? H, reduce: guided, threads: threads)
        var result = locked.result
        result.cutoff = locked.cutoff

        // the person probability alone: person-prior=alone, or a person pad
        // without depth (a colour camera and the model)
        let alone = video != nil && person != nil && plan.person != .ignore
            && plan.cutoff.focusMask == nil && (plan.person == .alone || !keyed)
        if alone, let person {
            refiner.reset()
            personAlone(person)
            result.personUsed = true
        } else if keyed, let depth, let video {
            makeMatte(plan, depth: depth, person: person, video: video, cutoff: locked.cutoff,
                      reduced: locked.reduced, threads: threads, result: &result)
        } else {
            // no depth: matte 1 everywhere (unkeyed pass-through); no colour: matte 0
            onePlane[0, 0] = video == nil ? 0 : 1
        }
        let prepared = alone ? alonePlane : keyed ? mask : onePlane

        let color = ARGBColor(argb: plan.backgroundARGB)
        // step 3's colour detail: only where this frame's matte is the guided filter's
        let detailed = guided && !alone && refiner.tuning.colourDetail
        compositor.avx2 = refiner.tuning.kernels && kernelsHaveAVX2
        let covered = compositor.run(matte: prepared, detail: detailed ? refiner.detail : nil,
                                     video: video, background: background, color: color,
                                     output: output, mode: plan.output, pool: pool, threads: threads)
        result.coverage = W * H > 0 ? Double(covered) / Double(W * H) : 0
        return result
    }
}

/// The subject lock (band 0) and the guided filter's depth reduction (band 1)
/// of one frame, run side by side on the pool. Both bands only read the job;
/// each writes its own output variable through its pointer, so the two
/// threads never access the same variable (a field of one shared struct
/// would be: Swift counts an access to a stored property of a struct as an
/// access to the whole struct).
private struct LockAndReduce {
    let matter: Unmanaged<DepthMatter>
    let plan: MattePlan
    let depth: Depth16View
    let faces: [Box]
    let person: Gray8View?
    let videoWidth: Int, videoHeight: Int
    let lockOut: UnsafeMutablePointer<(cutoff: Double, result: MatteResult)>
    let reducedOut: UnsafeMutablePointer<Depth16View?>

    func run(band: Int) {
        let m = matter.takeUnretainedValue()
        if band == 0 {
            let cutoff = m.updateCutoff(plan: plan, depth: depth, faces: faces, person: person,
                                        videoWidth: videoWidth, videoHeight: videoHeight,
                                        result: &lockOut.pointee.result)
            lockOut.pointee.cutoff = cutoff
        } else {
            reducedOut.pointee = m.reduceDepth(depth)
        }
    }
}

