// SPDX-License-Identifier: LGPL-2.1-or-later
/// The subject, not a slab of space: after the cutoff, keep only
/// the depth surfaces that belong to the locked subject.
///
/// Nearer than the cutoff is necessary, not sufficient: a chair back behind
/// the shoulders, an armrest, a desk edge, a floor sloping towards the camera
/// or a door frame at the picture's edge can all be nearer than the cutoff.
/// At depth resolution (the map the matte is made from):
///
///  1. **Near pixels**: 0 < d <= cutoff (as the threshold), on a copy of
///     the depth whose smoothed steps (a filtered map's ramps) are
///     sharpened back into steps (`rampSteps`); a ramp pixel whose nearer
///     side is a ramp too becomes a hole (`rampHoles`).
///  2. **Floor**: a near pixel is floor-like when its surface recedes upwards
///     steeply and smoothly: the depth's drop per row (least squares over
///     the 4s + 1 rows around it), times the focal length over the depth, is
///     at least `camera.floorSlope` (the surface turned more than ~35° away from
///     facing the camera, top away) and no step on the way is a depth edge.
///     Floor-like pixels connected (through floor-like pixels, or a near
///     pixel with floor-like ones 1-2 pixels either side along its row) to
///     the bottom row of the picture, in a region that
///     reaches a side of the picture or spans `floorSpan` of its width, are
///     the floor (or a desk top): a floor within the cutoff joins the feet
///     smoothly in depth, so it is cut by its geometry, not by a step.
///     A person's front, legs and face are near-vertical and never
///     floor-like; the top of the head or shoulders is, but does not reach
///     the bottom row. (A chest leaning back, seen at arm's length, is
///     floor-like and fills the bottom row: `SubjectRestore.bodyWidth`
///     puts it back.)
///  3. **Surfaces**: the near pixels that are not floor are split into
///     surfaces: 4-neighbours join when their depths differ by less than
///     `step` (1.5 cm + 1.5 % of the depth: a body is smooth at
///     depth resolution). Depth-edge pixels (a near neighbour a step away:
///     flying pixels between a shoulder and the chair behind it, the
///     outline of a self-occlusion) join nothing, so a chain of flying
///     pixels cannot bridge two surfaces. Two neighbours without a step
///     do not join either where the depth a few pixels either side differs
///     by a step and so does the colour (`colourCut`: a smoothed step).
///  4. **Seeds**: the pixels the subject lock says are the subject (the
///     accepted face box's central half; else the lock's tracked or nearest
///     surface where it is at the subject's depth, around the last face box
///     or in its top band, the head; see `SubjectLock.writeSeeds`). Every
///     surface containing a seed is the subject. Then, round after round, a surface (not a fragment) joins
///     the subject when at least half of its contact with it (directly or
///     across up to two depth-edge pixels) steps by less than
///     `bodyStep` (4 cm + 4 %, the subject lock's
///     surface jump: chin and neck, arm and chest), unless the colours
///     either side of that contact differ on average by more than
///     `joinColourStep` (a red chair back 8 cm behind a blue shirt).
///  5. **Kept with it** (without passing anything on): a surface touching
///     the subject (or the holes next to it) that is a fragment
///     (`fragmentArea`: flying pixels, speckle, edge pixels) or that lies in
///     front of it where they touch (or level with it across a hole) and
///     does not reach the picture's left or right edge (a held object, a
///     raised arm behind its own occlusion shadow, also when it reaches the
///     bottom; a desk edge spans the picture). The bottom edge does not
///     count: a close subject's forearm in front of the chest reaches it.
///     So do the readings amid the holes reached from the subject (at any
///     distance) that are in front of it or level: a dark part of it whose
///     infrared the sensor barely reads (`holeFragments`).
///     A thin part one depth pixel wide (a rod, a cable) is sampled in
///     pieces that touch corner to corner: a fragment touching a kept pixel
///     diagonally too, at its depth (within `bodyStep`), stays, piece after
///     piece along the part.
///  6. The decision (`SubjectDecision`): the kept pixels are the subject,
///     every other near pixel is left out (background to the matte); holes
///     stay unknown, so the refiner still decides those next to the subject
///     from their neighbours and colour.
///  7. Then `SubjectRestore` puts back what is not clearly something else,
///     `SubjectLegs` grows the subject's legs past the cutoff (a camera
///     looking down), and `SubjectHold` keeps still pixels out until kept
///     twice. While they run, a left-out pixel is labelled `leftOut` (a
///     background label the passes tell from a far reading); it is
///     background when the decision leaves.
///
/// Without seeds (mode=fixed, or no subject found) the decision is the plain
/// cut: the cutoff alone decides, as the original sample does.
///
/// Cost: a few passes over the depth-resolution map (about 320 x 180 for
/// refine=guided), arrays kept between frames: no allocation per frame
/// once the sizes are stable.
@_spi(Bench) public struct SubjectSegmentation {
    /// Neighbours on one surface differ by less than this at their depth.
    var step = DepthStep(base: 0.015, gain: 0.015)
    /// The camera the floor tests assume (`CameraGeometry`: the floor
    /// slope and the focal length; set per frame from the plan).
    var camera = CameraGeometry()
    /// Smoothed steps (step 1b): a filtered depth map (an
    /// iPhone's AVDepthData, a sensor SDK's spatial or hole-filling filter)
    /// turns the step between a shoulder and the chair back 7–20 cm behind
    /// it into a ramp, and fills the occlusion shadow that separated them, so
    /// 3. would join the two into one surface and 4.'s colour veto would never
    /// see the contact; the ramp's intermediate depths also chain the head to
    /// the chair through the outline. The segmentation works on a sharpened
    /// copy: a near pixel on a ramp whose depth changes by at least this
    /// many `step`s over ±s pixels (s = max(2, the floor test's span)) takes
    /// the depth of the side it is nearer to (`sharpenRamps`); kept pixels
    /// are written with their own depth. 0 turns it off. quality-bench with
    /// QB_DEPTHSMOOTH=1 / 2 (three box passes of radius 1 / 2 on the 640x360
    /// depth): chair IoU 0.995 / 0.993 (with `colourCut`; 0.870 / 0.739 off)
    /// (docs/quality.md, "Filtered depth maps").
    @_spi(Bench) public var rampSteps: Float = 1
    /// 1b: a ramp pixel whose nearer side is itself no surface
    /// (the depth there still changes by a `step` or more over the next 2s
    /// pixels: a second ramp, as where a shoulder, the chair back behind it
    /// and the wall meet at the chair's edge, or a ramp running diagonally
    /// beside the outline) is not sharpened to that side's in-between depth
    /// but made a hole: in-between depths taken from a ramp chain the
    /// surfaces together along the outline (a column of 1–2 cm steps from
    /// the chair's edge down to the shoulder). The refiner decides the hole
    /// by its neighbours and colour, as any other. quality-bench, chair with
    /// an iPhone-like filtered 4:3 map (colour 640x480, depth 640x480 /
    /// 320x240): worst frame IoU 0.991 / 0.985 (0.887 / 0.842 off)
    /// (docs/quality.md, "Ramps between ramps").
    @_spi(Bench) public var rampHoles = true
    /// 3.: on a noisy map two neighbours on one surface also
    /// join when they differ by less than this many times the map's own
    /// noise at their depth (the 90th percentile of the differences between
    /// row neighbours, as a gain on depth²: a structured-light sensor's
    /// quantisation and noise grow with the square of the distance). A
    /// Kinect-like sensor 3-3.5 m away steps by 4-5 cm from one reading to
    /// the next, which breaks the subject into fragments (`step` there is
    /// 6-7 cm) that the colour veto of 4. leaves out at the neck.
    /// quality-bench, the walk-in with the room 3 / 3.5 times as far: worst
    /// frame IoU 0.77 / 0.92 (0.15 off). 0 turns it off.
    @_spi(Bench) public var noiseSteps: Float = 2
    /// 5.: the sparse readings of a dark, IR-absorbing part of
    /// the subject (a black binder held in front, a dark jumper, black
    /// hair) amid its holes. The holes reached from the subject carry the
    /// depth of the subject pixel they were reached from at any distance
    /// (not only within `holeReach`), and the search goes on through
    /// fragments in front of that depth or less than `bodyStep` behind it,
    /// which stay (a wall of readings a few centimetres apart in a far
    /// sensor's noise walls off pockets of holes otherwise); a larger
    /// surface touching only such holes stays when it is in front or level
    /// on average and reaches neither picture side. Written far, each of
    /// those readings made its whole row of holes an occlusion shadow in the
    /// refiner (`MatteRefiner.Tuning.shadowFill`) and grew background into the
    /// rest. quality-bench carryBinder rows (docs/quality.md).
    @_spi(Bench) public var holeFragments = true
    /// A strip of holes along a side of the picture up to this share of its
    /// width counts as outside it: a registered depth map has
    /// one where the depth camera does not see what the colour camera does
    /// (librealsense's align leaves a band of zeros on the left, depthalign
    /// one on the side the depth camera is offset to). The floor's test
    /// "reaches a side of the picture" and a surface's for step 5 take the
    /// first and last reading of each row as the sides; without it a floor
    /// beside a 2-pixel strip no longer reached the side and was keyed in
    /// (quality-bench QB_EDGEHOLES=-2, the walk: fully-in-view IoU 0.9953
    /// -> 0.9200).
    @_spi(Bench) public var edgeStrip: Float = DepthComponents.edgeStrip
    /// Smoothed steps, by colour (step 3; see `rampSteps` for
    /// the filtered map): two neighbours with no step between them do not
    /// join where the depths `off` pixels either side of them are both near
    /// and differ by a `step`, the pair is at least as steep as the mean
    /// over that span (the ramp's middle, not a flat strip beside it), and
    /// the colours there differ by more than `joinColourStep`. The surfaces
    /// become two, in contact, and 4. decides (join when the contact steps
    /// less than `bodyStep`, unless the colours differ). A body's own colour
    /// edges (a collar, a sleeve) rarely cut: the rest of their outline joins
    /// without a step. Needed with `rampSteps` where a ramp is wider than the
    /// sharpening reaches (chair, filtered r = 2: 0.9452 with `rampSteps`
    /// alone, 0.9934 with both). The depths are those before 1b sharpened
    /// them (a ramp wider than the sharpening reaches becomes
    /// flat in-between plateaus, where no span shows a step).
    @_spi(Bench) public var colourCut = true
    /// A floor region touching the bottom row must reach a side of the
    /// picture or span this fraction of its width (a lap or a forearm does not).
    var floorSpan: Float = 0.25
    /// Surfaces of at most this fraction of the map (and 4 pixels) touching
    /// the subject are kept with it (fragments on its outline).
    @_spi(Bench) public var fragmentArea: Float = 0.0005
    /// A surface touching the subject joins it when at least half of the
    /// contact steps by less than this (the subject lock's surface jump).
    var bodyStep = DepthStep.surfaceJump
    /// Rounds of that joining (head → neck → torso → arm → hand).
    var maxJoinRounds = 6
    /// ... unless the colours either side of that contact differ by more
    /// than this on average (sum of |ΔR| + |ΔG| + |ΔB|, 0-765): the
    /// surfaces are different things (a red chair back behind a blue shirt).
    @_spi(Bench) public var joinColourStep: Float = 90

    /// The plain cut as the floor: near pieces left out that are not clearly
    /// something else come back (SubjectRestore.swift).
    var restore = SubjectRestore()
    /// The legs past the cutoff of a subject seen from above (`SubjectLegs`).
    var legs = SubjectLegs()
    /// Still pixels left out stay out until kept twice (`SubjectHold`).
    var hold = SubjectHold()

    /// The bodies that moved into view (the lock's movers) seed the
    /// segmentation too, besides the subject's own seed.
    var moverSeeds = true

    /// The working copy of the depth: sharpened (step 1b), kept pixels with
    /// their own depth.
    private let out = DepthBuffer()
    /// The decision's labels (`DepthLabel`, and `leftOut` while the passes
    /// of step 7 run); valid until the next call.
    private let decided = DecisionBuffer()
    /// A near pixel the segmentation left out: background to the matte.
    static let leftOut: UInt8 = 3
    /// Per pixel: seed flags (written by the caller's seed function).
    var seeds: [UInt8] = []
    private var labels: [Int32] = []
    private var parent: [Int32] = []
    private var floorMark: [UInt8] = []
    private var stack: [Int32] = []
    // per surface
    private var area: [Int32] = [], touchSide: [UInt8] = [], adjacent: [Int32] = []
    private var frontSum: [Float] = [], keep: [UInt8] = []
    /// Holes next to the subject: the subject depth they were reached from, and their distance (0 = not reached).
    private var holeDepthStore: [UInt16] = [], holeStepStore: [UInt16] = []
    /// Step 1b's copy of the depth.
    private var sharpTmp: [UInt16] = []
    /// `noiseSteps`' histogram of |Δ| / d² (depth units per m², one per bin).
    private var noiseBins = [Int32](repeating: 0, count: 256)
    /// Pixels on a surface's outline (see `apply`).
    private var boundary: [Int32] = []
    /// One row: a step between each pixel and the one below it.
    private var stepDown: [UInt8] = []
    /// Per row: the first and the last column with a reading, when within
    /// `edgeStrip` of the picture's side (else the side itself): see `edgeStrip`.
    private var rowEnds: [Int32] = []

    /// Pixels of the last frame: near, kept as the subject, floor.
    @_spi(Bench) public private(set) var nearCount = 0, keptCount = 0, floorCount = 0
    /// Whether the last call had seeds (and so changed anything).
    private(set) var segmented = false

    @_spi(Bench) public init() {}

    /// The decision on `depth` (units of `scale` metres, cutoff in metres):
    /// the subject's surfaces. `writeSeeds(&seeds, width, height)` marks
    /// seed pixels (non-zero) in a zeroed mask of the depth's size and
    /// returns whether it marked any. `video` (registered to the depth, any
    /// size) lets colour veto a join across a small depth step. Without
    /// seeds, or when no surface holds one, the plain cut at `cutoff`.
    @_spi(Bench) public mutating func apply(depth: Depth16View, scale: Double, cutoff: Double, video: RGBImageView? = nil,
                        writeSeeds: (inout [UInt8], Int, Int) -> Bool) -> SubjectDecision {
        let w = depth.width, h = depth.height, n = w * h
        segmented = false
        nearCount = 0; keptCount = 0; floorCount = 0
        guard n > 0 else { return decided.cut(depth, scale: scale, cutoff: cutoff) }
        if seeds.count < n { seeds = [UInt8](repeating: 0, count: n) }
        seeds.withUnsafeMutableBufferPointer { s in s.baseAddress!.update(repeating: 0, count: n) }
        guard writeSeeds(&seeds, w, h) else { hold.reset(); return decided.cut(depth, scale: scale, cutoff: cutoff) }
        reserve(width: w, height: h)
        let f = Frame(self, depth: depth, scale: scale, cutoff: cutoff, video: video)
        // 1-3: near pixels, the floor, surfaces
        let count = findSurfaces(depth, f)
        // 4-6: which surfaces are kept; the rest left out
        guard let kept = keepSubject(f, surfaces: count) else {
            hold.reset()
            return decided.cut(depth, scale: scale, cutoff: cutoff)
        }
        segmented = true
        keptCount = kept
        let labels = decided.base
        let restored = out.withSamples { op in
            seeds.withUnsafeBufferPointer { sp in
            floorMark.withUnsafeBufferPointer { fp in
            rowEnds.withUnsafeBufferPointer { rep in
                restore.apply(original: depth, out: op.baseAddress!, labels: labels, seeds: sp.baseAddress!,
                              floorMark: fp.baseAddress!, ends: rep.baseAddress!, limit: f.limit, scale: f.fscale,
                              camera: camera)
            }}}
        }
        keptCount += restored
        keptCount += legs.apply(original: depth, labels: labels, limit: f.limit, scale: f.fscale, camera: camera)
        hold.apply(original: depth, labels: labels, limit: f.limit, scale: f.fscale)
        keptCount -= hold.heldCount
        Self.leaveOut(labels, n)
        return decided.decision(width: w, height: h, cutoff: cutoff)
    }

    /// `leftOut` labels become background: the decision as it leaves.
    static func leaveOut(_ labels: UnsafeMutablePointer<UInt8>, _ n: Int) {
        // (eight labels at a time: `leftOut` is the one label with both low bits set)
        let ones: UInt64 = 0x0101_0101_0101_0101
        var i = 0
        while i &+ 8 <= n {
            let raw = UnsafeMutableRawPointer(labels + i)
            let v = raw.loadUnaligned(as: UInt64.self)
            let both = v & (v >> 1) & ones
            if both != 0 { raw.storeBytes(of: v & ~(both &* 3), as: UInt64.self) }
            i &+= 8
        }
        while i < n { if labels[i] == leftOut { labels[i] = DepthLabel.background.rawValue }; i &+= 1 }
    }

    /// Sizes the per-pixel arrays for a `width` x `height` map (they only
    /// grow, so a stable size allocates nothing).
    private mutating func reserve(width w: Int, height h: Int) {
        let n = w * h
        decided.reserve(n)
        if out.count < n {
            out.reserve(n)
            labels = [Int32](repeating: -1, count: n)
            parent = [Int32](repeating: 0, count: n)
            floorMark = [UInt8](repeating: 0, count: n)
            stack = []
            stack.reserveCapacity(n)
            boundary = []
            boundary.reserveCapacity(n)
        }
        if sharpTmp.count < n { sharpTmp = [UInt16](repeating: 0, count: n) }
        if stepDown.count < w { stepDown = [UInt8](repeating: 0, count: w) }
        if rowEnds.count < 2 * h { rowEnds = [Int32](repeating: 0, count: 2 * h) }
    }

    /// Steps 1-3 on the arrays kept between frames: the copy and its near
    /// pixels, the ramps sharpened, the floor, then the surfaces (labels
    /// 0..<count in `labels`). Returns the surface count.
    private mutating func findSurfaces(_ depth: Depth16View, _ f: Frame) -> Int32 {
        var count: Int32 = 0
        out.withSamples { op in
        labels.withUnsafeMutableBufferPointer { lp in
        parent.withUnsafeMutableBufferPointer { pp in
        floorMark.withUnsafeMutableBufferPointer { fp in
        stepDown.withUnsafeMutableBufferPointer { sdp in
        sharpTmp.withUnsafeMutableBufferPointer { sharp in
        rowEnds.withUnsafeMutableBufferPointer { rep in
            let maps = PixelMaps(o: op.baseAddress!, lab: lp.baseAddress!, p: pp.baseAddress!, fl: fp.baseAddress!,
                                 sd: sdp.baseAddress!, sharp: sharp.baseAddress!, ends: rep.baseAddress!)
            // 1. copy, near pixels (out = d; lab = 0 near, -1 not), union-find roots
            var near = f.copyNear(depth, maps)
            // 1b. smoothed steps (`rampSteps`): sharpen them back into steps
            if rampSteps > 0 {
                near = Self.sharpenRamps(maps.o, maps.lab, maps.sharp, f.w, f.h, max(2, f.s), f.limit, f.stepA, f.stepB,
                                         rampSteps, holes: rampHoles)
            }
            nearCount = near
            // 2. the floor
            floorCount = f.markFloor(maps, stack: &stack)
            // 3. surfaces: union-find over near, non-floor pixels
            let noiseK: Float = noiseSteps <= 0 ? 0 : noiseBins.withUnsafeMutableBufferPointer { f.noiseGain(maps, $0) }
            count = f.joinSurfaces(maps, noiseK: noiseK)
        }}}}}}}
        return count
    }

    /// Steps 4-6: the surfaces holding a seed are the subject; those that
    /// join it, or are kept with it, are added; every other near pixel is
    /// left out. Returns the kept pixel count, or nil when no surface holds
    /// a seed.
    private mutating func keepSubject(_ f: Frame, surfaces count: Int32) -> Int? {
        let n = f.n
        let c = Int(count)
        if area.count < c {
            let m = max(c, 256) * 2
            area = [Int32](repeating: 0, count: m); adjacent = area
            touchSide = [UInt8](repeating: 0, count: m); keep = touchSide
            frontSum = [Float](repeating: 0, count: 4 * m)
        }
        let cap = area.count
        var any = false
        var kept = 0
        if holeDepthStore.count < n { holeDepthStore = [UInt16](repeating: 0, count: n); holeStepStore = holeDepthStore }
        holeDepthStore.withUnsafeMutableBufferPointer { hdp in
        holeStepStore.withUnsafeMutableBufferPointer { hsp in
        labels.withUnsafeBufferPointer { lp in
        seeds.withUnsafeBufferPointer { sp in
        out.withSamples { op in
            let decision = decided.base
        area.withUnsafeMutableBufferPointer { ap in
        adjacent.withUnsafeMutableBufferPointer { adp in
        touchSide.withUnsafeMutableBufferPointer { tp in
        keep.withUnsafeMutableBufferPointer { kp in
        frontSum.withUnsafeMutableBufferPointer { fsp in
        floorMark.withUnsafeBufferPointer { flp in
        sharpTmp.withUnsafeBufferPointer { orig in
        rowEnds.withUnsafeBufferPointer { rep in
            let maps = SurfaceMaps(lab: lp.baseAddress!, seed: sp.baseAddress!, o: op.baseAddress!, decision: decision,
                                   fl: flp.baseAddress!, original: orig.baseAddress!, ends: rep.baseAddress!,
                                   hd: hdp.baseAddress!, hs: hsp.baseAddress!,
                                   ar: ap.baseAddress!, adj: adp.baseAddress!, side: tp.baseAddress!, kk: kp.baseAddress!,
                                   front: fsp.baseAddress!, c: c, cap: cap)
            // 4. the surfaces holding a seed, and the outline pixels
            any = f.measureSurfaces(maps, boundary: &boundary)
            if !any { return }
            // ... and the surfaces that join them
            f.joinRounds(maps, boundary)
            // 5. kept with the subject: what its holes lead to, what touches it
            // in front, fragments between kept surfaces, a thin part's pieces
            let subjectArea = f.clearContacts(maps)
            f.growHoles(maps, boundary, stack: &stack)
            f.keepTouching(maps, boundary, subjectArea: subjectArea)
            f.keepFragments(maps, boundary, stack: &stack)
            // 6. the decision: the kept pixels, the rest of the near ones left out
            kept = f.writeDecision(maps)
        }}}}}}}}}}}}}
        return any ? kept : nil
    }

    /// The floor's slope test at pixel `c` of a depth map `w` wide: the
    /// depth fitted by least squares over rows c ± t (holes skipped) falls
    /// downwards by at least `slopeK` · d over 2s rows, and every reading
    /// on the way is `smooth` to the one before it (no depth edge).
    @inline(__always)
    static func recedesUpwards(_ d: UnsafePointer<UInt16>, _ c: Int, _ w: Int, t: Int, s: Int, slopeK: Float,
                               smooth: (UInt16, UInt16) -> Bool) -> Bool {
        var n: Float = 0, sk: Float = 0, skk: Float = 0, sd: Float = 0, skd: Float = 0
        var prev: UInt16 = 0
        for k in -t...t {
            let a = d[c + k * w]
            if a == 0 { continue }
            if prev != 0 && !smooth(a, prev) { return false }
            prev = a
            let fk = Float(k), fa = Float(a)
            n += 1; sk += fk; skk += fk * fk; sd += fa; skd += fk * fa
        }
        // (the fitted depth lost per row downwards: −slope)
        let den = n * skk - sk * sk
        return n > Float(t) && den > 0 && Float(2 * s) * (sk * sd - n * skd) >= slopeK * Float(d[c]) * den
    }

    /// The first index from `from` up to `end` whose label is near (>= 0),
    /// or `end`: a run of pixels that are not near skipped eight at a time
    /// (the sign bits of eight labels ANDed; most of a picture is not near).
    @inline(__always) static func nextNear(_ lab: UnsafePointer<Int32>, _ from: Int, _ end: Int) -> Int {
        let raw = UnsafeRawPointer(lab), signs: UInt64 = 0x8000_0000_8000_0000
        var k = from
        while k &+ 8 <= end {
            let b = 4 &* k
            let a = raw.loadUnaligned(fromByteOffset: b, as: UInt64.self) & raw.loadUnaligned(fromByteOffset: b &+ 8, as: UInt64.self)
                & raw.loadUnaligned(fromByteOffset: b &+ 16, as: UInt64.self) & raw.loadUnaligned(fromByteOffset: b &+ 24, as: UInt64.self)
            if a & signs != signs { break }
            k &+= 8
        }
        while k < end && lab[k] < 0 { k &+= 1 }
        return k
    }

    /// Whether pixel (x, y) lies on a side of the picture as the depth sees
    /// it (`rowEnds`: past a band of holes along the side, `edgeStrip`).
    @inline(__always) static func atSide(_ ends: UnsafePointer<Int32>, _ x: Int, _ y: Int) -> Bool {
        x <= Int(ends[2 * y]) || x >= Int(ends[2 * y + 1])
    }

    /// Mark the pixels of the normalized box [u0, u1) x [v0, v1) as seeds.
    /// Returns whether any pixel was marked.
    @discardableResult
    @_spi(Bench) public static func markBox(_ seeds: inout [UInt8], width w: Int, height h: Int,
                               u0: Double, v0: Double, u1: Double, v1: Double) -> Bool {
        let x0 = max(0, Int(u0 * Double(w))), x1 = min(w, Int((u1 * Double(w)).rounded(.up)))
        let y0 = max(0, Int(v0 * Double(h))), y1 = min(h, Int((v1 * Double(h)).rounded(.up)))
        guard x1 > x0, y1 > y0 else { return false }
        for y in y0..<y1 { for x in x0..<x1 { seeds[y * w + x] = 1 } }
        return true
    }
}
