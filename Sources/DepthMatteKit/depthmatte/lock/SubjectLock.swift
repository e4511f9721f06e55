// SPDX-License-Identifier: LGPL-2.1-or-later
/// The subject lock: which depth the cutoff follows, frame after frame, on
/// real input (false faces, missed faces, no face detector at all).
///
/// Rules (docs/subject-lock.md has the reasoning and the numbers):
///
/// 1. **Face choice.** Every face box gets the median depth of its central
///    half and a size constant `k = box width / picture width × depth`
///    (metres; for one camera nearly the same for the same head at any
///    distance). A box is *plausible* when its depth lies in
///    `faceDepthRange` and `k` in `headSizeRange` (a human head for a 50-100°
///    camera). A plausible box is *consistent* when `k` is within
///    `sizeTolerance` of the head being tracked and its depth is within
///    `depthTolerance(d)` of the last face's depth (right after a face) or
///    else of where the tracker expects the subject. The consistent box
///    nearest the expected depth sets the lock at once.
///    Anything else is a *candidate*: it takes over only after being seen,
///    consistent with itself, on `takeoverFrames` frames, and never while the
///    tracked subject is in front of it (a face on the wall behind a person
///    never takes the lock, however often it is reported).
/// 2. **Tracking.** While no acceptable face is seen, the subject is followed
///    in depth: the surface (see `DepthComponents`) that overlaps most with
///    last frame's subject region is the subject, and its head band's depth,
///    corrected by the face-to-head difference measured while the face was
///    seen, is the subject depth. This lasts `SubjectRule.hold` seconds after
///    the last face; then (and before any face) the depth-only finder takes over.
/// 3. **Depth-only.** `NearestBodyFinder`: the nearest large body that is not
///    floor-like. `mode=nearest` uses only this (plus tracking between frames).
///    With a person prior (the `person` pad under `person-prior=fuse`), the
///    subject is a person: a surface the model sees as a person (at least
///    `seenShare` of its cells at probability >= 0.5) wins over one it does
///    not, after the bodies that moved; a tracked body the model has not seen
///    since the lock took it yields to one it sees, unless it moved and that
///    one did not (a man walking off whom the model loses, beside a seated
///    woman it sees). The room's own far surface (`RoomSurfaces`: a wall
///    behind the bodies, a corridor receding to its end) is no new subject
///    however much of it the model claims. A face, when there is one, still
///    picks which person.
/// 4. **Smoothing.** The cutoff moves towards `subject depth + offset` with
///    time constant `SubjectRule.smoothing` seconds (first-order); the first
///    lock, and a subject found after none (source `fixed`: an empty room,
///    then a person walking in), is taken at once. Handing back from tracking to a
///    returning face is thus without a jump, and so is any other change of
///    source. A subject walking away never lags more than half the offset
///    behind: the cutoff stays beyond them.
/// 5. With `LockStrategy.original`, none of this: the first face box's
///    centre depth pixel sets the cutoff, which is held when no face is seen.

/// Which lock strategy runs in `mode=face`.
@_spi(Bench) public enum LockStrategy: Int32, CaseIterable {
    /// Face choice, tracking, depth-only fallback and smoothing (the default).
    case robust = 0
    /// The original sample's: first face box, its centre pixel, held.
    case original = 1
}

/// Where the cutoff came from on one frame.
public enum LockSource: Int32 {
    case fixed = 0
    case face = 1
    case tracked = 2
    case nearest = 3

    @_spi(Bench) public var name: String {
        switch self {
        case .fixed: return "fixed"
        case .face: return "face"
        case .tracked: return "tracked"
        case .nearest: return "nearest"
        }
    }
}

/// Tuning of the lock that is no property of the element (the hold and the
/// smoothing, which are, come with each frame's plan: `SubjectRule`).
struct SubjectLockSettings: Equatable {
    /// Frames a new, inconsistent face must be seen before it takes the lock.
    var takeoverFrames = 10
    /// Metres: face depths considered at all.
    var faceDepthRange = 0.25...5.0
    /// Box width / picture width × depth (metres) of a plausible head.
    var headSizeRange = 0.04...0.70
    /// Relative tolerance of `k` against the tracked head.
    var sizeTolerance = 0.35
    /// Metres of depth change per frame above which tracking refuses a surface.
    var maxTrackStep = 0.3
    /// A new face must sit on a surface no wider, along the row through its
    /// centre, than this many box widths (a head, not a wall with a poster).
    var headShapeRatio = 3.0
    /// Share of a surface's cells at person probability >= 0.5 that makes
    /// the model see it as a person (a standing man seen whole: 0.5-0.9; a
    /// pillar the probability bleeds a few pixels onto: under 0.1).
    var seenShare = 0.25
    var finder = NearestBodyFinder()
    init() {}

    /// Metres: how far a face may be from the expected subject depth.
    @inline(__always) func depthTolerance(_ d: Double) -> Double { max(0.25, 0.2 * d) }
}

@_spi(Bench) public final class SubjectLock {
    var settings = SubjectLockSettings()

    /// The smoothed cutoff (metres), nil before any lock.
    private(set) var cutoff: Double?
    /// The subject depth (metres of the face) the cutoff follows, nil before any lock.
    private(set) var subjectDepth: Double?
    private(set) var source: LockSource = .fixed
    /// Seconds since the lock started (sum of frame durations).
    private(set) var clock = 0.0
    /// Clock of the last accepted face (nil: none yet).
    private(set) var lastFaceTime: Double?
    /// The tracked head's size constant k (metres).
    private(set) var headSize: Double?

    /// Face depth minus head-band depth of its surface, learned while the face is seen.
    private var headBias = 0.0
    private var candidate: (k: Double, d: Double, u: Double, v: Double, frames: Int)?
    private var subjectMask: [UInt8] = []
    private var hasMask = false
    /// Whether last frame's subject cells are known (for `writeSeeds`).
    var hasSeedMask: Bool { hasMask }
    func seedMaskCell(_ g: Int) -> Bool { hasMask && g < subjectMask.count && subjectMask[g] != 0 }
    private(set) var components = DepthComponents()
    /// The room as the depth-only finder knows it (farthest readings).
    private(set) var room = RoomDepth()
    /// This frame's surfaces that moved into view and could be a subject
    /// (`RoomDepth`, `NearestBodyFinder.acceptsMover`): seeds besides the subject.
    private(set) var movers: [Int] = []
    /// This frame's seeds for `SubjectSegmentation` (see `writeSeeds`): the
    /// surface the lock took the subject from, the accepted face box (video
    /// pixels) and the picture sizes they refer to. nil/empty in mode=fixed.
    private(set) var seedComponent: Int?
    private(set) var seedFace: Box?
    /// The central half of the last accepted face box (normalized picture
    /// coordinates): while the lock holds a face that is missed (`tracked`),
    /// `writeSeeds` seeds only the part of the tracked surface there.
    private(set) var lastFaceCentre: FaceCentre?
    private(set) var seedVideoSize = (0, 0)
    private(set) var seedDepthSize = (0, 0)
    private var sampler = FaceDepthSampler()
    /// Per surface of this frame: its share of cells the person prior claims
    /// (empty on a frame without a prior).
    private(set) var seenShares: [Double] = []
    private var seenCounts: [Int32] = []
    /// This frame's room surfaces (measured on frames with a prior only).
    private(set) var roomSurfaces = RoomSurfaces()
    /// The model has seen the locked body as a person on some frame since
    /// the lock took it (false without a prior, and after the lock let go).
    private(set) var subjectSeen = false
    /// The surface that overlaps last frame's subject most on this frame,
    /// tracked or not (for `subjectSeen`).
    private var trackedComponent: Int?

    /// Whether surface `k` of this frame is seen as a person by the prior.
    func seen(_ k: Int) -> Bool { k >= 0 && k < seenShares.count && seenShares[k] >= settings.seenShare }
    private var faceMeasures: [(d: Double, k: Double, u: Double, v: Double, box: Box)] = []

    @_spi(Bench) public init() { faceMeasures.reserveCapacity(32) }

    func reset() {
        cutoff = nil; subjectDepth = nil; source = .fixed; clock = 0; lastFaceTime = nil
        headSize = nil; headBias = 0; candidate = nil; hasMask = false; lastFaceCentre = nil
        subjectSeen = false
        room.reset()
    }

    /// The cutoff for one frame.
    /// - plan: its `cutoff` says what is followed (a set cutoff, fixed or
    ///   focus, is returned as it is), at its `depthScale`; its
    ///   `frameDuration` (seconds since the previous frame) moves the clock;
    ///   its `SubjectRule` holds the hold time and the smoothing.
    /// - person: the person probability (covering the whole frame) when the
    ///   plan fuses one: the subject is then a body it sees (rule 3).
    /// - result: `faceFound` / `faceDepth` / `lockSource` are filled in.
    @_spi(Bench) public func update(_ plan: MattePlan, depth: Depth16View?, faces: [Box], person: Gray8View? = nil,
                       videoWidth: Int, videoHeight: Int, result: inout MatteResult) -> Double {
        let frameDuration = plan.frameDuration, depthScale = plan.depthScale
        components.camera = plan.camera
        let dt = frameDuration > 0 && frameDuration < 10 ? frameDuration : 1.0 / 30
        clock += dt
        seedComponent = nil; seedFace = nil
        guard let rule = plan.cutoff.subject else {
            result.lockSource = .fixed
            return plan.cutoff.preset
        }
        let mode = rule.mode, strategy = rule.strategy, cutoffSetting = rule.fallback, offset = rule.offset
        if mode == .face && strategy == .original {
            return original(cutoffSetting: cutoffSetting, offset: offset, scale: depthScale, depth: depth,
                            faces: faces, videoWidth: videoWidth, videoHeight: videoHeight, result: &result)
        }
        guard let depth, depth.width > 0, depth.height > 0 else {
            // no depth: nothing to measure; keep what there is
            result.lockSource = cutoff == nil ? .fixed : source
            return cutoff ?? cutoffSetting
        }
        analyse(depth, scale: depthScale, videoWidth: videoWidth, videoHeight: videoHeight)
        measureSeen(person)

        // 1. where the tracker expects the subject
        trackedComponent = nil
        let tracked = trackedSubject(rule)
        let prior = !seenShares.isEmpty
        let nearest = settings.finder.find(components, room: room, seen: prior ? { self.seen($0) } : nil,
                                           roomSurface: prior ? { self.roomSurfaces.isRoom($0) } : nil)
        let nearestDepth = nearest.map { $0.headDepth + headBias }
        let strong = source == .face || source == .tracked
        // expected subject depth for judging faces: right after a face, that
        // face's own depth (the tracked surface's head band is
        // that of whatever it has merged with, a door jamb joined to the
        // shoulder by a filtered map's ramp, and the face 26 cm behind the
        // jamb's top was refused, the lock then following the jamb); else
        // where the tracker finds the subject
        let expected: Double? = (source == .face ? subjectDepth : nil) ?? tracked?.depth
            ?? (strong ? subjectDepth : nil) ?? nearestDepth

        // 2. face choice (mode=face only)
        var face: (d: Double, k: Double, u: Double, v: Double, box: Box)? = nil
        if mode == .face {
            face = chooseFace(faces, depth: depth, scale: depthScale, expected: expected, strong: strong,
                              videoWidth: videoWidth, videoHeight: videoHeight)
        }

        // 3. the target and where it came from
        let (target, newSource, maskComponent) = chooseTarget(
            rule, face: face, tracked: tracked, nearest: nearest, prior: prior, cutoffSetting: cutoffSetting, offset: offset,
            videoWidth: videoWidth, videoHeight: videoHeight, result: &result)

        // 4. smoothing
        smooth(to: target, source: newSource, offset: offset, smoothing: rule.smoothing, dt: dt,
               maskComponent: maskComponent)
        result.lockSource = newSource
        return cutoff!
    }

    /// This frame's surfaces, the room, the movers among the surfaces, and
    /// the sizes the seeds refer to.
    private func analyse(_ depth: Depth16View, scale depthScale: Double, videoWidth: Int, videoHeight: Int) {
        components.analyse(depth: depth, scale: depthScale)
        room.measure(components)
        movers.removeAll(keepingCapacity: true)
        for k in 0..<components.count where room.moved(k) && settings.finder.acceptsMover(components, k) {
            movers.append(k)
        }
        seedDepthSize = (depth.width, depth.height); seedVideoSize = (videoWidth, videoHeight)
    }

    /// Each surface's share of cells the person probability claims
    /// (>= 0.5, sampled at the cell's centre), and the room surfaces
    /// (`RoomSurfaces`); none without a probability.
    private func measureSeen(_ person: Gray8View?) {
        seenShares.removeAll(keepingCapacity: true)
        let c = components
        guard let p = person, p.width > 0, p.height > 0, c.width > 0, c.height > 0,
              seedDepthSize.0 > 0, seedDepthSize.1 > 0 else { return }
        seenCounts.removeAll(keepingCapacity: true)
        seenCounts.append(contentsOf: repeatElement(0, count: c.count))
        seenShares.append(contentsOf: repeatElement(0, count: c.count))
        let s = c.step
        let fx = Double(p.width) / Double(seedDepthSize.0), fy = Double(p.height) / Double(seedDepthSize.1)
        // (raw pointers: an array of this class's subscripted in the loop
        // costs an exclusivity check per cell)
        seenShares.withUnsafeMutableBufferPointer { shares in
        seenCounts.withUnsafeMutableBufferPointer { counts in
        c.labels.withUnsafeBufferPointer { labels in
            for gy in 0..<c.height {
                let py = min(p.height - 1, Int((Double(gy * s + s / 2) + 0.5) * fy))
                let row = p.row(py)
                for gx in 0..<c.width {
                    let k = Int(labels[gy * c.width + gx])
                    guard k >= 0 else { continue }
                    shares[k] += 1
                    let px = min(p.width - 1, Int((Double(gx * s + s / 2) + 0.5) * fx))
                    if row[px] >= 128 { counts[k] += 1 }
                }
            }
        }}}
        for k in 0..<c.count where seenShares[k] > 0 { seenShares[k] = Double(seenCounts[k]) / seenShares[k] }
        roomSurfaces.measure(c)
    }

    /// Update step 1: last frame's subject surface as it overlaps this
    /// frame's, at its (head) depth, while it stays within a track step and
    /// acceptable; nil otherwise.
    private func trackedSubject(_ rule: SubjectRule) -> (component: Int, depth: Double)? {
        var tracked: (component: Int, depth: Double)? = nil
        if hasMask, let last = subjectDepth, let o = components.bestOverlap(subjectMask) {
            trackedComponent = o.component
            var d = components.headDepth(o.component) + headBias
            // while a missed face is held: the surface's depth where the face
            // was (its head band is that of whatever it has
            // merged with, a door jamb joined to the shoulder by a filtered
            // map's ramp)
            if rule.mode == .face, let t = lastFaceTime, clock - t <= rule.hold, let fc = lastFaceCentre,
               let r = components.meanDepth(o.component, inU: fc.u0, fc.u1, v: fc.v0, fc.v1) {
                d = r
            }
            if abs(d - last) <= settings.maxTrackStep && settings.finder.accepts(components, o.component) {
                tracked = (o.component, d)
            }
        }
        return tracked
    }

    /// Update step 3: the subject's depth this frame, where it came from,
    /// and the surface that is the subject (for the mask and the seeds).
    /// A face found fills in `result`'s face fields.
    private func chooseTarget(_ rule: SubjectRule, face: (d: Double, k: Double, u: Double, v: Double, box: Box)?,
                              tracked: (component: Int, depth: Double)?,
                              nearest: (component: Int, headDepth: Double)?, prior: Bool,
                              cutoffSetting: Double, offset: Double, videoWidth: Int, videoHeight: Int,
                              result: inout MatteResult) -> (Double, LockSource, Int?) {
        let mode = rule.mode
        var target: Double
        var newSource: LockSource
        var maskComponent: Int? = nil
        if let f = face {
            target = f.d
            newSource = .face
            lastFaceTime = clock
            headSize = headSize.map { $0 + 0.2 * (f.k - $0) } ?? f.k
            let hw = 0.25 * Double(f.box.width) / Double(max(videoWidth, 1))
            let hh = 0.25 * Double(f.box.height) / Double(max(videoHeight, 1))
            if let c = components.component(inU: f.u - hw, f.u + hw, v: f.v - hh, f.v + hh) {
                let bias = f.d - components.headDepth(c)
                headBias = source == .face ? headBias + 0.2 * (bias - headBias) : bias
                maskComponent = c
            }
            result.faceFound = true
            result.faceDepth = f.d
            result.faceBox = f.box
            seedFace = f.box
            lastFaceCentre = FaceCentre(f.box, videoWidth: videoWidth, videoHeight: videoHeight)
        } else if mode == .face, let t = lastFaceTime, clock - t <= rule.hold, let last = subjectDepth {
            newSource = .tracked
            if let tr = tracked {
                target = tr.depth
                maskComponent = tr.component
            } else {
                target = last       // the subject is not found this frame: hold
            }
        } else if let tr = tracked, source == .nearest || mode == .nearest {
            // depth-only, continued from the last frame's body while it stays acceptable
            target = tr.depth
            newSource = .nearest
            maskComponent = tr.component
            // (with a prior, a nearer body the model does not see never
            // takes the lock from one it saw: a man walking off whom it
            // loses, beside a chair nearer than him)
            let keepSeen = prior && subjectSeen && !seen(nearest?.component ?? -1)
            if let n = nearest, n.component != tr.component,
               !keepSeen && n.headDepth + headBias < tr.depth - settings.depthTolerance(tr.depth)
                || room.moved(n.component) && (!room.moved(tr.component)
                    || settings.finder.isSideFragment(components, tr.component, beside: n.component))
                || seen(n.component) && !subjectSeen && !seen(tr.component)
                    && !(room.moved(tr.component) && !room.moved(n.component)) {
                // a clearly nearer body appeared, a body moved while the
                // tracked one never did, the tracked one is a fragment at
                // the picture's side beside a whole body that moved, or the
                // model sees a person in the finder's choice and never saw
                // one in the tracked body: the finder's choice wins
                target = n.headDepth + headBias
                maskComponent = n.component
            }
        } else if let n = nearest {
            target = n.headDepth + headBias
            newSource = .nearest
            maskComponent = n.component
        } else {
            target = cutoffSetting - offset
            newSource = .fixed
        }
        return (target, newSource, maskComponent)
    }

    /// Update step 4: the cutoff moves towards the target plus `offset`
    /// (smoothed with time constant `smoothing` seconds); the subject, its
    /// source, its seeds and its mask become this frame's.
    private func smooth(to target: Double, source newSource: LockSource, offset: Double, smoothing: Double, dt: Double,
                        maskComponent: Int?) {
        let goal = target + offset
        // (a subject found after none: at once; creeping from
        // the cutoff setting, a person walking in 4.5 m away stayed beyond
        // the cutoff, keyed out, for two frames)
        if let c = cutoff, smoothing > 0, !(source == .fixed && newSource != .fixed) {
            cutoff = c + (goal - c) * dt / (smoothing + dt)
            // a subject walking away is never left behind the smoothed
            // cutoff: it lags the goal by at most half the offset (a Kinect
            // walk at 10 frames/s moves 0.27 m a frame, which a 0.1 s time
            // constant lagged by as much, the whole body beyond the cutoff)
            if offset > 0 { cutoff = max(cutoff!, goal - offset / 2) }
        } else {
            cutoff = goal
        }
        subjectDepth = target
        // seen since the lock took the body: carried while the lock
        // follows the same body, anew when it takes another. The same body
        // is the surface that overlaps last frame's subject most, also when
        // the track refused it for a step (its head band more than
        // `maxTrackStep` off: a walker between two frames a depth camera
        // dropped) and the finder takes it again
        if let k = maskComponent {
            subjectSeen = seen(k) || (k == trackedComponent && subjectSeen)
        } else if newSource == .fixed {
            subjectSeen = false
        }
        source = newSource
        seedComponent = maskComponent
        if let k = maskComponent {
            hasMask = components.writeMask(k, nearerThan: cutoff!, into: &subjectMask) > 0
        } else if newSource == .fixed || newSource == .nearest {
            hasMask = false
        }
    }

    /// The original sample's lock: first box, centre pixel, hold.
    private func original(cutoffSetting: Double, offset: Double, scale: Double, depth: Depth16View?, faces: [Box],
                          videoWidth: Int, videoHeight: Int, result: inout MatteResult) -> Double {
        if let depth, depth.width > 0, let f = faces.first, videoWidth > 0, videoHeight > 0 {
            let x = Int(f.centerX * Double(depth.width) / Double(videoWidth))
            let y = Int(f.centerY * Double(depth.height) / Double(videoHeight))
            if x >= 0, y >= 0, x < depth.width, y < depth.height {
                let v = depth.at(x, y)
                if v != 0 {
                    let d = Double(v) * scale
                    result.faceFound = true
                    result.faceDepth = d
                    result.faceBox = f
                    subjectDepth = d
                    cutoff = d + offset
                    source = .face
                }
            }
        }
        result.lockSource = cutoff == nil ? .fixed : .face
        return cutoff ?? cutoffSetting
    }

    /// Rule 1: the face that sets the lock this frame, or nil.
    /// Whether a face's surface looks like a head: it is there, and along the
    /// row through the face centre it is at most `headShapeRatio` box widths wide.
    private func headShaped(_ f: (d: Double, k: Double, u: Double, v: Double, box: Box), videoWidth: Int) -> Bool {
        let bw = Double(f.box.width) / Double(videoWidth)
        let r = 0.25 * bw
        guard let c = components.component(inU: f.u - r, f.u + r, v: f.v - 0.01, f.v + 0.01) else { return false }
        let run = Double(components.runWidth(c, u: f.u, v: f.v)) / Double(max(components.width, 1))
        return run > 0 && run <= settings.headShapeRatio * bw
    }

    private func chooseFace(_ faces: [Box], depth: Depth16View, scale: Double, expected: Double?, strong: Bool,
                            videoWidth: Int, videoHeight: Int) -> (d: Double, k: Double, u: Double, v: Double, box: Box)? {
        guard videoWidth > 0, videoHeight > 0 else { return nil }
        faceMeasures.removeAll(keepingCapacity: true)
        let s = settings
        for b in faces {
            guard let raw = sampler.medianDepth(depth, box: b, videoWidth: videoWidth, videoHeight: videoHeight) else { continue }
            let d = raw * scale
            let k = Double(b.width) / Double(videoWidth) * d
            guard s.faceDepthRange.contains(d), s.headSizeRange.contains(k) else { continue }
            faceMeasures.append((d, k, b.centerX / Double(videoWidth), b.centerY / Double(videoHeight), b))
        }
        if faceMeasures.isEmpty { return nil }

        func sizeOK(_ k: Double, _ ref: Double?) -> Bool {
            guard let ref else { return true }
            return abs(k / ref - 1) <= s.sizeTolerance
        }
        // consistent with the tracked subject: taken at once
        var best: (d: Double, k: Double, u: Double, v: Double, box: Box)? = nil
        var bestErr = Double.infinity
        for f in faceMeasures {
            // a weak lock (the nearest body, fixed) is confirmed only by a head-shaped face
            guard sizeOK(f.k, headSize), strong || headShaped(f, videoWidth: videoWidth) else { continue }
            if let e = expected {
                let err = abs(f.d - e)
                if err <= s.depthTolerance(e) && err < bestErr { best = f; bestErr = err }
            } else if best == nil || f.d < best!.d {
                best = f       // nothing to compare with: the nearest plausible face
            }
        }
        if let b = best, expected != nil || headSize != nil {
            candidate = nil
            return b
        }
        // candidates: the nearest plausible, head-shaped face
        var cand: (d: Double, k: Double, u: Double, v: Double, box: Box)? = nil
        for f in faceMeasures where (cand == nil || f.d < cand!.d) && headShaped(f, videoWidth: videoWidth) { cand = f }
        guard let c = cand else { candidate = nil; return nil }
        if strong, let e = expected, c.d > e + s.depthTolerance(e) {
            // behind the subject the tracker follows: never takes the lock
            candidate = nil
            return nil
        }
        if let p = candidate, abs(c.k / p.k - 1) <= s.sizeTolerance, abs(c.d - p.d) <= s.depthTolerance(p.d),
           abs(c.u - p.u) < 0.15, abs(c.v - p.v) < 0.2 {
            candidate = (c.k, c.d, c.u, c.v, p.frames + 1)
        } else {
            candidate = (c.k, c.d, c.u, c.v, 1)
        }
        let needed = expected == nil && headSize == nil ? min(3, s.takeoverFrames) : s.takeoverFrames
        if candidate!.frames >= needed {
            candidate = nil
            headSize = c.k      // a new head: its own size from now on
            return c
        }
        return nil
    }
}
