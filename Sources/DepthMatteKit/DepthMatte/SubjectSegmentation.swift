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
///     at least `floorSlope` (the surface turned more than ~35° away from
///     facing the camera, top away) and no step on the way is a depth edge.
///     Floor-like pixels connected (through floor-like pixels, or a near
///     pixel with floor-like ones 1-2 pixels either side along its row) to
///     the bottom row of the picture, in a region that
///     reaches a side of the picture or spans `floorSpan` of its width, are
///     the floor (or a desk top): a floor within the cutoff joins the feet
///     smoothly in depth, so it is cut by its geometry, not by a step.
///     A person's front, legs and face are near-vertical and never
///     floor-like; the top of the head or shoulders is, but does not reach
///     the bottom row.
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
///  6. Every other near pixel is written as "far" (65535) into a copy of the
///     depth; holes (0) stay holes, so the refiner still decides those next to
///     the subject from their neighbours and colour, as before.
///
/// Without seeds (mode=fixed, or no subject found) nothing changes: the
/// cutoff alone decides, as the original sample does.
///
/// Cost: a few passes over the depth-resolution map (about 320 x 180 for
/// refine=guided), arrays kept between frames: no allocation per frame
/// once the sizes are stable.
public struct SubjectSegmentation {
    /// Neighbours on one surface differ by less than this at their depth.
    public var step = DepthStep(base: 0.015, gain: 0.015)
    /// tan of the angle between a surface and the image plane (top away)
    /// above which it is floor-like: 0.7 ≈ 35°.
    public var floorSlope: Float = 0.7
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
    /// depth): chair IoU 0.870 / 0.739 -> 0.995 / 0.993 (with `colourCut`);
    /// unfiltered depth: chair 0.9964 -> 0.9959, every other clip as before
    /// (docs/quality.md, "Filtered depth maps").
    public var rampSteps: Float = 1
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
    /// 320x240): IoU 0.9665 / 0.9634 -> 0.9947 / 0.9918, worst frame 0.887 /
    /// 0.842 -> 0.991 / 0.985; every 16:9 clip as good or better
    /// (docs/quality.md, "Ramps between ramps").
    public var rampHoles = true
    /// 3.: on a noisy map two neighbours on one surface also
    /// join when they differ by less than this many times the map's own
    /// noise at their depth (the 90th percentile of the differences between
    /// row neighbours, as a gain on depth²: a structured-light sensor's
    /// quantisation and noise grow with the square of the distance). A
    /// Kinect-like sensor 3-3.5 m away steps by 4-5 cm from one reading to
    /// the next and broke the subject into fragments (`step` there is 6-7
    /// cm), and the colour veto of 4. then left the body out at the neck.
    /// quality-bench, the walk-in with the room 3 / 3.5 times as far: IoU per
    /// frame 0.15-0.99 -> 0.77-0.998 / 0.92-0.998; every other clip
    /// unchanged. 0 turns it off.
    public var noiseSteps: Float = 2
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
    /// refiner (`MatteRefiner.shadowFill`) and grew background into the
    /// rest. quality-bench carryBinder rows (docs/quality.md).
    public var holeFragments = true
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
    public var edgeStrip: Float = DepthComponents.edgeStrip
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
    public var colourCut = true
    /// Focal length in picture diagonals (`DepthComponents.focalDiagonal`:
    /// 70° across a 16:9 picture's width; a 60–90° camera changes the slope
    /// test by at most ±40 %).
    public var focalDiagonal: Float = DepthComponents.focalDiagonal
    /// A floor region touching the bottom row must reach a side of the
    /// picture or span this fraction of its width (a lap or a forearm does not).
    public var floorSpan: Float = 0.25
    /// Surfaces of at most this fraction of the map (and 4 pixels) touching
    /// the subject are kept with it (fragments on its outline).
    public var fragmentArea: Float = 0.0005
    /// A surface touching the subject joins it when at least half of the
    /// contact steps by less than this (the subject lock's surface jump).
    public var bodyStep = DepthStep.surfaceJump
    /// Rounds of that joining (head → neck → torso → arm → hand).
    public var maxJoinRounds = 6
    /// ... unless the colours either side of that contact differ by more
    /// than this on average (sum of |ΔR| + |ΔG| + |ΔB|, 0-765): the
    /// surfaces are different things (a red chair back behind a blue shirt).
    public var joinColourStep: Float = 90

    /// The plain cut as the floor: near pieces left out that are not clearly
    /// something else come back (SubjectRestore.swift).
    public var restore = SubjectRestore()
    /// Still pixels keep their decision (`SubjectHold`).
    public var hold = SubjectHold()

    /// The bodies that moved into view (the lock's movers) seed the
    /// segmentation too, besides the subject's own seed.
    public var moverSeeds = true

    /// The segmented copy of the depth (valid until the next call).
    private let out = DepthBuffer()
    /// Per pixel: seed flags (written by the caller's seed function).
    public var seeds: [UInt8] = []
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
    public private(set) var nearCount = 0, keptCount = 0, floorCount = 0
    /// Whether the last call had seeds (and so changed anything).
    public private(set) var segmented = false

    public init() {}

    /// Keep the subject's surfaces of `depth` (units of `scale` metres,
    /// cutoff in metres). `writeSeeds(&seeds, width, height)` marks seed
    /// pixels (non-zero) in a zeroed mask of the depth's size and returns
    /// whether it marked any. `video` (registered to the depth, any size)
    /// lets colour veto a join across a small depth step. Returns a view of the segmented copy, or
    /// `depth` itself when there are no seeds.
    public mutating func apply(depth: Depth16View, scale: Double, cutoff: Double, video: RGBImageView? = nil,
                               writeSeeds: (inout [UInt8], Int, Int) -> Bool) -> Depth16View {
        let w = depth.width, h = depth.height, n = w * h
        segmented = false
        nearCount = 0; keptCount = 0; floorCount = 0
        guard n > 0 else { return depth }
        if seeds.count < n { seeds = [UInt8](repeating: 0, count: n) }
        seeds.withUnsafeMutableBufferPointer { s in s.baseAddress!.update(repeating: 0, count: n) }
        guard writeSeeds(&seeds, w, h) else { hold.reset(); return depth }
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
        // integer cutoff as DepthThreshold
        let q = cutoff / scale
        let limitD = (q + abs(q) * 1e-9).rounded(.down)
        let limit: UInt32 = !(limitD >= 0) ? 0 : (limitD > 65535 ? 65535 : UInt32(limitD))
        let fscale = Float(scale)
        // step in depth units: a + b · v
        let stepA = step.base / fscale, stepB = step.gain
        let bodyA = bodyStep.base / fscale, bodyB = bodyStep.gain
        // two depths closer than a step `base + gain · depth` (depth units)
        @inline(__always) func within(_ a: UInt16, _ b: UInt16, _ base: Float, _ gain: Float) -> Bool {
            abs(Float(a) - Float(b)) < base + gain * Float(min(a, b))
        }
        let s = max(1, w / 160)     // rows either side for the floor slope
        let slopeK = floorSlope * 2 * Float(s) / DepthComponents.focal(w, h, perDiagonal: focalDiagonal)   // diff over 2s rows >= slopeK · d
        // the floor's slope is fitted over ±t rows (t = 2s)
        let t = 2 * s
        var count: Int32 = 0
        // colour of a depth pixel: the video pixel at its centre
        let vw = video?.width ?? 0, vh = video?.height ?? 0
        let sxv = Double(vw) / Double(w), syv = Double(vh) / Double(h)
        @inline(__always) func colour(_ x: Int, _ y: Int) -> SIMD4<Float> {
            let cx = min(max(x, 0), w - 1), cy = min(max(y, 0), h - 1)
            let vx = min(Int((Double(cx) + 0.5) * sxv), vw - 1), vy = min(Int((Double(cy) + 0.5) * syv), vh - 1)
            let p = video!.row(vy) + vx * video!.pixelStride
            return SIMD4(Float(p[video!.r]), Float(p[video!.g]), Float(p[video!.b]), 0)
        }
        // colours either side of a contact are sampled this many pixels away
        // from it (past a 1-2 px misregistration)
        let off = max(2, w / 160)

        out.withSamples { op in
        labels.withUnsafeMutableBufferPointer { lp in
        parent.withUnsafeMutableBufferPointer { pp in
        floorMark.withUnsafeMutableBufferPointer { fp in
        seeds.withUnsafeBufferPointer { sp in
        stepDown.withUnsafeMutableBufferPointer { sdp in
        sharpTmp.withUnsafeMutableBufferPointer { sharp in
        rowEnds.withUnsafeMutableBufferPointer { rep in
            let stepDownRow = sdp.baseAddress!, ends = rep.baseAddress!
            let o = op.baseAddress!, lab = lp.baseAddress!, p = pp.baseAddress!, fl = fp.baseAddress!
            let seed = sp.baseAddress!
            // 1. copy, near pixels (out = d; lab = 0 near, -1 not), union-find roots
            var near = 0
            for y in 0..<h {
                let row = depth.base + y * depth.stride
                for x in 0..<w {
                    let v = UInt16(littleEndian: row.loadUnaligned(fromByteOffset: 2 * x, as: UInt16.self))
                    let i = y * w + x
                    o[i] = v
                    p[i] = Int32(i)
                    let isNear = v != 0 && UInt32(v) <= limit
                    lab[i] = isNear ? 0 : -1
                    if isNear { near += 1 }
                }
                // the picture's sides as the depth sees them: past a strip of
                // holes along a side (`edgeStrip`)
                let r = o + y * w
                let (first, last) = DepthComponents.sideReadings(width: w, strip: Int(edgeStrip * Float(w))) { r[$0] != 0 }
                ends[2 * y] = Int32(first); ends[2 * y + 1] = Int32(last)
            }
            @inline(__always) func atSide(_ x: Int, _ y: Int) -> Bool { Self.atSide(ends, x, y) }
            // 1b. smoothed steps (`rampSteps`): sharpen them back into steps
            if rampSteps > 0 {
                near = Self.sharpenRamps(o, lab, sharp.baseAddress!, w, h, max(2, s), limit, stepA, stepB, rampSteps, holes: rampHoles)
            }
            nearCount = near
            // 2. the floor: floor-like pixels (tested on demand) reached from
            // the bottom row. fl bits: 1 tested, 2 floor-like, 4 flooded,
            // 8 floor, 16 depth edge
            fl.update(repeating: 0, count: n)
            @inline(__always) func floorLike(_ i: Int) -> Bool {
                let f = fl[i]
                if f & 1 != 0 { return f & 2 != 0 }
                var r = false
                if lab[i] >= 0 && h > 2 * t {
                    // the bottom rows the slope test cannot see take the test of the row above
                    let c = min(i / w, h - t - 1) * w + i % w
                    if c >= t * w && lab[c] >= 0 {
                        // the least-squares slope over rows c ± t (a far
                        // sensor's quantised, noisy floor steps by a few
                        // centimetres every few rows: two samples alone
                        // miss it), over the readings there (holes are
                        // skipped: a speckle hole would fail every row whose
                        // window holds it, a streak that splits the floor);
                        // smooth: no depth edge from reading to reading
                        var n: Float = 0, sk: Float = 0, skk: Float = 0, sd: Float = 0, skd: Float = 0
                        r = true
                        var prev: UInt16 = 0
                        for k in -t...t {
                            let a = o[c + k * w]
                            if a == 0 { continue }
                            if prev != 0 && !within(a, prev, bodyA, bodyB) { r = false; break }
                            prev = a
                            let fk = Float(k), fa = Float(a)
                            n += 1; sk += fk; skk += fk * fk; sd += fa; skd += fk * fa
                        }
                        // (the fitted depth lost per row downwards: −slope)
                        let den = n * skk - sk * sk
                        r = r && n > Float(t) && den > 0 && Float(2 * s) * (sk * sd - n * skd) >= slopeK * Float(o[c]) * den
                    }
                }
                fl[i] = f | (r ? 3 : 1)
                return r
            }
            // The flood also crosses a near pixel whose row has floor-like
            // pixels 1-2 pixels either side, on its surface: on a
            // far sensor's floor the fit fails in thin streaks (correlated
            // noise flattens it where the floor is barely steep enough) that
            // split the floor into strips none of which is wide enough.
            @inline(__always) func bridged(_ j: Int) -> Bool {
                guard lab[j] >= 0 else { return false }
                let x = j % w, v = o[j]
                @inline(__always) func side(_ dx: Int) -> Bool {
                    for k in 1...2 {
                        let xx = x + dx * k
                        if xx < 0 || xx >= w { return false }
                        let q = j + dx * k
                        if lab[q] >= 0 && within(o[q], v, stepA, stepB) && floorLike(q) { return true }
                    }
                    return false
                }
                return side(-1) && side(1)
            }
            var floorPixels = 0
            stack.removeAll(keepingCapacity: true)
            for x0 in 0..<w {
                let start = (h - 1) * w + x0
                if fl[start] & 4 != 0 || !floorLike(start) { continue }
                // flood one region (4-neighbours) of floor-like pixels
                let first = stack.count
                stack.append(Int32(start)); fl[start] |= 4
                var head = first
                var minX = x0, maxX = x0, side = false
                while head < stack.count {
                    let i = Int(stack[head]); head += 1
                    let x = i % w
                    if x < minX { minX = x }
                    if x > maxX { maxX = x }
                    if !side && atSide(x, i / w) { side = true }
                    @inline(__always) func visit(_ j: Int) {
                        if fl[j] & 4 == 0 && (floorLike(j) || bridged(j)) { fl[j] |= 4; stack.append(Int32(j)) }
                    }
                    if x > 0 { visit(i - 1) }
                    if x < w - 1 { visit(i + 1) }
                    if i >= w { visit(i - w) }
                    if i + w < n { visit(i + w) }
                }
                if side || Float(maxX - minX + 1) >= floorSpan * Float(w) {
                    // the floor is no surface of the subject's
                    for k in first..<stack.count { let j = Int(stack[k]); fl[j] |= 8; lab[j] = -1 }
                    floorPixels += stack.count - first
                }
            }
            floorCount = floorPixels
            // 3. surfaces: union-find over near, non-floor pixels
            let sets = UnionFind(parent: p)
            // (`noiseSteps`: the map's own noise, as a gain on depth², from the
            // 90th percentile of |Δ| / d² between row neighbours, real edges
            // (4 steps or more) left out)
            let noiseK: Float = noiseSteps <= 0 ? 0 : noiseBins.withUnsafeMutableBufferPointer { hist in
                let bins = hist.count
                hist.update(repeating: 0)
                var total = 0
                let m2 = Float(scale) * Float(scale)
                for y in 0..<h {
                    let row = y * w
                    for x in 0..<(w - 1) where lab[row + x] >= 0 && lab[row + x + 1] >= 0 {
                        let a = Float(o[row + x]), b = Float(o[row + x + 1]), m = min(a, b)
                        let dd = abs(a - b)
                        if dd >= 4 * (stepA + stepB * m) { continue }
                        hist[min(bins - 1, Int(dd / max(m * m * m2, 1e-6)))] += 1
                        total += 1
                    }
                }
                guard total > 0 else { return 0 }
                var acc = 0
                for k in 0..<bins {
                    acc += Int(hist[k])
                    if 10 * acc >= 9 * total { return noiseSteps * (Float(k) + 0.5) * m2 }
                }
                return noiseSteps * Float(bins) * m2
            }
            @inline(__always) func joins(_ a: UInt16, _ b: UInt16) -> Bool {
                let m = Float(min(a, b))
                return within(a, b, stepA, stepB) || abs(Float(a) - Float(b)) < noiseK * m * m
            }
            // Depth-edge pixels (a near 4-neighbour a step away: flying pixels
            // between two near surfaces, the outline of a self-occlusion)
            // join nothing: a chain of flying pixels would otherwise bridge a
            // shoulder to the chair behind it. Every other near pixel joins its
            // near left and upper neighbours that are no edge (no step between
            // them, or it would be an edge). Each step test is made once:
            // `stepLeft` and `sd[x]` carry it to the right and the next row.
            // A contact with no step is still cut (no union, no edge) where
            // the depth changes by a `step` over the `off` pixels either side
            // and the colours there differ by more than `joinColourStep`
            // (`colourCut`): a smoothed step (see `colourCut`). `cutLeft` and
            // bit 2 of `sd[x]` carry it like the step tests.
            let cutOn = colourCut && vw > 0
            // the cut judges the depth before 1b sharpened it (a
            // ramp wider than the sharpening reaches is sharpened to flat
            // in-between plateaus, where no span shows a step; a map smoothed
            // twice as much as rgbdtestsrc's, chair 3:4 480x640: IoU 0.9721
            // -> 0.9866, chair pixels 7,779 -> 1,785)
            let unsharpened = UnsafePointer(rampSteps > 0 ? sharp.baseAddress! : o)
            @inline(__always) func cut(_ x: Int, _ y: Int, _ dx: Int, _ dy: Int) -> Bool {
                let xa = x - off * dx, ya = y - off * dy, xb = x + dx * (off + 1), yb = y + dy * (off + 1)
                guard xa >= 0 && ya >= 0 && xb < w && yb < h else { return false }
                let ia = ya * w + xa, ib = yb * w + xb
                let a = unsharpened[ia], b = unsharpened[ib]
                // both sides near, a step between them, and this pair at least
                // as steep as the mean over the span (not a flat strip beside
                // the ramp)
                guard lab[ia] >= 0 && lab[ib] >= 0 && a != 0 && b != 0 && !joins(a, b) else { return false }
                let i = y * w + x, j = i + dx + dy * w
                guard Float(2 * off + 2) * abs(Float(unsharpened[j]) - Float(unsharpened[i])) >= abs(Float(b) - Float(a)) else { return false }
                let d = colour(xa, ya) - colour(xb, yb)
                return abs(d[0]) + abs(d[1]) + abs(d[2]) > joinColourStep
            }
            let sd = stepDownRow
            for x in 0..<w { sd[x] = 0 }
            for y in 0..<h {
                var stepLeft = false, cutLeft = false
                for x in 0..<w {
                    let i = y * w + x
                    if lab[i] < 0 { stepLeft = false; cutLeft = false; sd[x] = 0; continue }
                    let v = o[i]
                    let sr = x < w - 1 && lab[i + 1] >= 0 && !joins(v, o[i + 1])
                    let sdn = y < h - 1 && lab[i + w] >= 0 && !joins(v, o[i + w])
                    let edge = stepLeft || sr || sd[x] & 1 != 0 || sdn
                    let cutUp = sd[x] & 2 != 0, cutL = cutLeft
                    let cr = cutOn && !sr && x < w - 1 && lab[i + 1] >= 0 && cut(x, y, 1, 0)
                    let cdn = cutOn && !sdn && y < h - 1 && lab[i + w] >= 0 && cut(x, y, 0, 1)
                    stepLeft = sr; cutLeft = cr
                    sd[x] = (sdn ? 1 : 0) | (cdn ? 2 : 0)
                    if edge { fl[i] |= 16; continue }
                    if x > 0 && !cutL && lab[i - 1] >= 0 && fl[i - 1] & 16 == 0 { p[i] = sets.find(Int32(i - 1)) }
                    if y > 0 && !cutUp && lab[i - w] >= 0 && fl[i - w] & 16 == 0 {
                        sets.union(Int32(i - w), Int32(i))
                    }
                }
            }
            for i in 0..<n where lab[i] >= 0 {
                let r = sets.find(Int32(i))
                if r == Int32(i) { lab[i] = count; count += 1 } else { lab[i] = lab[Int(r)] }
            }
            _ = seed
        }}}}}}}}

        // 4-5. which surfaces are kept
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
        let holeDepth = hdp.baseAddress!, hs = hsp.baseAddress!
        labels.withUnsafeBufferPointer { lp in
        seeds.withUnsafeBufferPointer { sp in
        out.withSamples { op in
        area.withUnsafeMutableBufferPointer { ap in
        adjacent.withUnsafeMutableBufferPointer { adp in
        touchSide.withUnsafeMutableBufferPointer { tp in
        keep.withUnsafeMutableBufferPointer { kp in
        frontSum.withUnsafeMutableBufferPointer { fsp in
        floorMark.withUnsafeBufferPointer { flp in
        sharpTmp.withUnsafeBufferPointer { orig in
        rowEnds.withUnsafeBufferPointer { rep in
            let fl = flp.baseAddress!, original = orig.baseAddress!, sharpened = rampSteps > 0, ends = rep.baseAddress!
            let lab = lp.baseAddress!, seed = sp.baseAddress!, o = op.baseAddress!
            let ar = ap.baseAddress!, adj = adp.baseAddress!, side = tp.baseAddress!, kk = kp.baseAddress!, front = fsp.baseAddress!
            for k in 0..<c { ar[k] = 0; adj[k] = 0; side[k] = 0; kk[k] = 0; front[k] = 0 }
            var subjectArea: Int32 = 0
            // per surface: area, picture edges, seeds; and the pixels on an
            // outline (a 4-neighbour that is a hole, a depth edge or another
            // surface, or a depth edge itself): every later step that looks at
            // contacts between surfaces or with holes needs only these
            boundary.removeAll(keepingCapacity: true)
            for y in 0..<h {
                for x in 0..<w {
                    let i = y * w + x
                    let l = lab[i]
                    if l < 0 { continue }
                    let li = Int(l)
                    ar[li] += 1
                    if Self.atSide(ends, x, y) { side[li] = 1 }
                    if seed[i] != 0 { kk[li] = 1 }
                    @inline(__always) func other(_ j: Int) -> Bool {
                        let m = lab[j]
                        return m >= 0 ? (m != l || fl[j] & 16 != 0) : o[j] == 0
                    }
                    if fl[i] & 16 != 0 || (x > 0 && other(i - 1)) || (x < w - 1 && other(i + 1))
                        || (y > 0 && other(i - w)) || (y < h - 1 && other(i + w)) {
                        boundary.append(Int32(i))
                    }
                }
            }
            for k in 0..<c where kk[k] == 1 { any = true }
            if !any { return }
            // the subject pixel met going from (x, y) by (dx, dy), through at
            // most two depth-edge pixels; -1 if none
            @inline(__always) func reach(_ x: Int, _ y: Int, _ dx: Int, _ dy: Int) -> Int {
                var cx = x, cy = y
                for _ in 0..<3 {
                    cx += dx; cy += dy
                    if cx < 0 || cx >= w || cy < 0 || cy >= h { return -1 }
                    let j = cy * w + cx
                    let m = Int(lab[j])
                    if m < 0 { return -1 }
                    if kk[m] == 1 { return j }
                    if fl[j] & 16 == 0 { return -1 }
                }
                return -1
            }
            // surfaces whose contact with the subject is mostly a small step
            // (< bodyStep: a head on its neck, a torso behind the chin) join it,
            // round after round; a single bridge of flying pixels does not
            // (a chair back 10 cm behind the shoulders touches them with a step all along)
            let fragment = Int32(max(4, Int(fragmentArea * Float(n))))
            let colourDiff = front + cap, colourN = front + 2 * cap
            // the colour `off` depth pixels from (x, y), clamped to the picture
            for _ in 0..<maxJoinRounds {
                for k in 0..<c { adj[k] = 0; front[k] = 0; colourDiff[k] = 0; colourN[k] = 0 }
                for b in boundary {
                    let i = Int(b), x = i % w, y = i / w
                    do {
                        let l = Int(lab[i])
                        if kk[l] == 1 || ar[l] <= fragment { continue }
                        let v = o[i]
                        @inline(__always) func look(_ dx: Int, _ dy: Int) {
                            let j = reach(x, y, dx, dy)
                            if j < 0 { return }
                            adj[l] += 1
                            let u = o[j]
                            if within(v, u, bodyA, bodyB) {
                                front[l] += 1
                                if vw > 0 {
                                    // colours either side of the contact, `off` pixels
                                    // away from it (past a 1-2 px misregistration)
                                    let a = colour(x - off * dx, y - off * dy)
                                    let b = colour(j % w + off * dx, j / w + off * dy)
                                    let d = a - b
                                    colourDiff[l] += abs(d[0]) + abs(d[1]) + abs(d[2])
                                    colourN[l] += 1
                                }
                            }
                        }
                        // (dx, dy): from this pixel towards the subject
                        look(-1, 0); look(1, 0); look(0, -1); look(0, 1)
                    }
                }
                var joined = false
                // fragments (flying pixels on an outline) never join here: they
                // would bridge the subject to whatever lies behind them; they are
                // kept at the end without passing anything on
                for k in 0..<c where kk[k] == 0 && ar[k] > fragment && adj[k] > 0 && front[k] >= 3 && 2 * front[k] >= Float(adj[k]) {
                    // a step of a few centimetres is a body's own (chin and
                    // neck, arm and chest) unless the colour changes across it
                    // too: a chair back or a sofa touching the shoulders
                    if colourN[k] > 0 && colourDiff[k] / colourN[k] > joinColourStep { continue }
                    kk[k] = 1; joined = true
                }
                if !joined { break }
            }
            // per surface, its contacts with holes beyond `holeReach`: how
            // many, the depth differences to what they carry, and its depths
            // (the colour sums' planes are free again)
            let farN = front + 3 * cap, farDiff = colourDiff, farDepth = colourN
            for k in 0..<c { adj[k] = 0; front[k] = 0; farDiff[k] = 0; farDepth[k] = 0; farN[k] = 0 }
            for k in 0..<c where kk[k] == 1 { subjectArea += ar[k] }
            // holes next to the subject carry the depth of the subject pixel
            // they were reached from, and how far (hs: 1 next to it); up to
            // `holeReach` pixels from it they count as the subject's for the
            // surfaces that touch them (an occlusion shadow between an arm
            // and the body is no separation); further in, only for fragments
            // at the subject's depth (`holeFragments`)
            let holeReach = UInt16(max(2, w / 64))
            let hd = holeDepth
            hs.update(repeating: 0, count: n)
            stack.removeAll(keepingCapacity: true)
            for b in boundary {
                let i = Int(b), x = i % w, y = i / w
                if kk[Int(lab[i])] != 1 { continue }
                @inline(__always) func seedHole(_ j: Int) {
                    if o[j] == 0 && hs[j] == 0 { hs[j] = 1; hd[j] = o[i]; stack.append(Int32(j)) }
                }
                if x > 0 { seedHole(i - 1) }
                if x < w - 1 { seedHole(i + 1) }
                if y > 0 { seedHole(i - w) }
                if y < h - 1 { seedHole(i + w) }
            }
            var head = 0
            while head < stack.count {
                let i = Int(stack[head]); head += 1
                if !holeFragments && hs[i] >= holeReach { continue }
                let x = i % w
                let carried = Float(hd[i])
                @inline(__always) func grow(_ j: Int) {
                    if hs[j] != 0 { return }
                    if o[j] != 0 {
                        // (`holeFragments`: on through a fragment in front of
                        // the carried depth or less than `bodyStep` behind)
                        let m = lab[j]
                        if !holeFragments || m < 0 || kk[Int(m)] != 0 || ar[Int(m)] > fragment
                            || Float(o[j]) >= carried + bodyA + bodyB * carried { return }
                    }
                    hs[j] = hs[i] < 65534 ? hs[i] + 1 : 65534; hd[j] = hd[i]; stack.append(Int32(j))
                }
                if x > 0 { grow(i - 1) }
                if x < w - 1 { grow(i + 1) }
                if i >= w { grow(i - w) }
                if i + w < n { grow(i + w) }
            }
            if holeFragments {
                // the fragments the holes led to are the subject's
                for e in stack { let j = Int(e); if o[j] != 0 { kk[Int(lab[j])] = 2 } }
            }
            // surfaces touching the subject (or its holes): how often, and how
            // much nearer (negative = in front)
            for b in boundary {
                let i = Int(b), x = i % w, y = i / w
                let l = Int(lab[i])
                if kk[l] == 1 { continue }
                @inline(__always) func look(_ dx: Int, _ dy: Int) {
                    let j = reach(x, y, dx, dy)
                    if j >= 0 { adj[l] += 1; front[l] += Float(o[i]) - Float(o[j]); return }
                    let nx = x + dx, ny = y + dy
                    if nx < 0 || nx >= w || ny < 0 || ny >= h { return }
                    let q = ny * w + nx
                    if o[q] != 0 || hs[q] == 0 { return }
                    if hs[q] <= holeReach { adj[l] += 1; front[l] += Float(o[i]) - Float(hd[q]); return }
                    farN[l] += 1; farDiff[l] += Float(o[i]) - Float(hd[q]); farDepth[l] += Float(o[i])
                }
                look(-1, 0); look(1, 0); look(0, -1); look(0, 1)
            }
            for k in 0..<c where kk[k] == 0 && adj[k] > 0 {
                // in front of the subject where they touch, or level with it across a hole
                let meanDiff = front[k] / Float(adj[k])
                if ar[k] <= fragment || (meanDiff < stepA && side[k] == 0 && ar[k] < subjectArea) { kk[k] = 2 }
            }
            if holeFragments {
                // the readings a dark, IR-absorbing part of the subject still
                // gives (a black binder held in front, a dark jumper, black
                // hair): a surface that touches only holes reached from the
                // subject, further in than `holeReach`, in front of the depth
                // they carry or level with it (less than `bodyStep` behind:
                // a held object is in front; the wall seen past the
                // subject is far behind) and with neither picture side, is
                // the subject's. (Written far, each such reading made
                // its whole row of holes an occlusion shadow in the refiner's
                // fill, and grew background into the rest.)
                // (within arm's reach in front: not a chair or a desk between
                // the camera and a subject walking metres behind it, across a
                // Kinect's holes of monitors and windows)
                let reachUnits = restore.reach / fscale
                for k in 0..<c where kk[k] == 0 && adj[k] == 0 && farN[k] > 0 && side[k] == 0 && ar[k] < subjectArea {
                    let diff = farDiff[k] / farN[k], d = farDepth[k] / farN[k]
                    if diff < bodyA + bodyB * d && diff > -reachUnits { kk[k] = 2 }
                }
            }
            // fragments between two kept surfaces (flying pixels between a
            // forearm and the upper arm held in front) stay with them: two
            // passes reach across a 2-pixel band
            for _ in 0..<2 {
                for b in boundary {
                    let i = Int(b), x = i % w, y = i / w
                    let l = Int(lab[i])
                    if kk[l] != 0 || ar[l] > fragment { continue }
                    @inline(__always) func keptAt(_ j: Int) -> Bool { let m = lab[j]; return m >= 0 && kk[Int(m)] != 0 }
                    if (x > 0 && keptAt(i - 1)) || (x < w - 1 && keptAt(i + 1)) || (y > 0 && keptAt(i - w)) || (y < h - 1 && keptAt(i + w)) {
                        kk[l] = 2
                    }
                }
            }
            // a thin part broken into pieces (a rod or a cable one depth
            // pixel wide, sampled with gaps along a diagonal: pieces that
            // touch only corner to corner): a fragment touching a kept pixel,
            // also diagonally, at that pixel's depth (within `bodyStep`)
            // stays with it, piece after piece along the part. (Such pieces
            // have no 4-neighbour on another surface: not on `boundary`.)
            stack.removeAll(keepingCapacity: true)
            for i in 0..<n {
                let l = lab[i]
                if l >= 0 && kk[Int(l)] == 0 && ar[Int(l)] <= fragment { stack.append(Int32(i)) }
            }
            if !stack.isEmpty {
                for _ in 0..<64 {
                    var grew = false
                    for s in stack {
                        let i = Int(s), x = i % w, y = i / w
                        let l = Int(lab[i])
                        if kk[l] != 0 { continue }
                        let v = Float(o[i])
                        var near = false
                        for dy in -1...1 where y + dy >= 0 && y + dy < h {
                            for dx in -1...1 where (dx != 0 || dy != 0) && x + dx >= 0 && x + dx < w {
                                let j = i + dy * w + dx, m = lab[j]
                                if m >= 0 && Int(m) != l && kk[Int(m)] != 0 {
                                    let u = Float(o[j])
                                    if abs(v - u) < bodyA + bodyB * min(u, v) { near = true }
                                }
                            }
                        }
                        if near { kk[l] = 2; grew = true }
                    }
                    if !grew { break }
                }
            }
            // 6. everything near that is not kept: far; what is kept keeps
            // its own depth (not the sharpened one)
            for i in 0..<n {
                let v = o[i]
                if v == 0 || UInt32(v) > limit { continue }
                let l = Int(lab[i])
                if l >= 0 && kk[l] != 0 {
                    kept += 1
                    if sharpened { o[i] = original[i] }
                } else { o[i] = 65535 }
            }
        }}}}}}}}}}}}}
        guard any else { hold.reset(); return depth }
        segmented = true
        keptCount = kept
        let restored = out.withSamples { op in
            seeds.withUnsafeBufferPointer { sp in
            floorMark.withUnsafeBufferPointer { fp in
            rowEnds.withUnsafeBufferPointer { rep in
                restore.apply(original: depth, out: op.baseAddress!, seeds: sp.baseAddress!, floorMark: fp.baseAddress!,
                              ends: rep.baseAddress!, limit: limit, scale: fscale)
            }}}
        }
        keptCount += restored
        out.withSamples { op in _ = hold.apply(original: depth, out: op.baseAddress!, limit: limit, scale: fscale) }
        keptCount -= hold.heldCount
        return out.view(width: w, height: h)
    }

    /// Whether pixel (x, y) lies on a side of the picture as the depth sees
    /// it (`rowEnds`: past a band of holes along the side, `edgeStrip`).
    @inline(__always) private static func atSide(_ ends: UnsafePointer<Int32>, _ x: Int, _ y: Int) -> Bool {
        x <= Int(ends[2 * y]) || x >= Int(ends[2 * y + 1])
    }

    /// Step 1b: every near pixel on a smoothed step takes the depth of the
    /// side it is nearer to (a shock filter, one pass). Along a row or a
    /// column, a pixel is on one when the depths a = d(−s) and b = d(+s)
    /// differ by D ≥ `rampSteps` `step`s at min(a, b); the depth changes at
    /// the pixel itself too (its central difference is at least half the
    /// mean slope D / 2s: not a flat strip of a third surface between two
    /// real steps); and the surface beyond a or beyond b is flat by
    /// comparison (it changes by less than D / 2 over the next 2s pixels: a
    /// surface that stays steep on both sides, an arm pointing at the camera
    /// or a floor, is no step; the foot of a wide ramp is).
    /// A real, unsmoothed step passes too, mostly harmlessly: its pixels
    /// already hold one side's depth (a flying pixel between them moves to
    /// the nearer side). Of the two axes the larger D wins; where neither
    /// finds a ramp, the two diagonals are tried the same way (a ramp beside
    /// a sloping edge is too wide along either axis). With `holes`
    /// (`rampHoles`), a pixel whose nearer side still changes by a step over
    /// the next 2s pixels (no surface: a ramp between two others) becomes a
    /// hole instead.
    /// On return `o` holds the sharpened depth and `t` the original; `lab`
    /// is updated (near or not) and the near count returned.
    private static func sharpenRamps(_ o: UnsafeMutablePointer<UInt16>, _ lab: UnsafeMutablePointer<Int32>,
                                     _ t: UnsafeMutablePointer<UInt16>, _ w: Int, _ h: Int, _ s: Int, _ limit: UInt32,
                                     _ stepA: Float, _ stepB: Float, _ rampSteps: Float, holes: Bool) -> Int {
        let n = w * h
        // t: the original (read); o: the sharpened depth (written)
        t.update(from: o, count: n)
        let k0 = rampSteps * stepA, k1 = rampSteps * stepB
        // the step along k at i, or 0 (the cheapest test first: most pixels
        // lie on no step at all)
        // (D, the depth taken (0: a hole, `holes`)), or D = 0: no ramp
        @inline(__always) func rampAt(_ i: Int, _ k: Int) -> (Float, UInt16) {
            let a = t[i - s * k], b = t[i + s * k]
            guard Float(a > b ? a - b : b - a) >= k0 else { return (0, 0) }
            let fa = Float(a), fb = Float(b)
            let d0 = abs(fb - fa)
            guard d0 >= k0 + k1 * min(fa, fb), a != 0, b != 0 else { return (0, 0) }
            // on the ramp itself: the depth changes here too (at least half
            // the mean slope), not a flat strip between two steps
            guard Float(2 * s) * abs(Float(t[i + k]) - Float(t[i - k])) >= d0 else { return (0, 0) }
            let a3 = t[i - 3 * s * k], b3 = t[i + 3 * s * k]
            let da = abs(fa - Float(a3)), db = abs(Float(b3) - fb)
            guard a3 != 0 && b3 != 0, 2 * min(da, db) < d0 else { return (0, 0) }
            let v = Float(t[i])
            let toA = abs(v - fa) <= abs(fb - v)
            // (`rampHoles`: the side taken still changes by a step over the
            // next 2s pixels, no surface but a ramp itself, and the pixel is
            // a step from it: it would take an in-between depth)
            if holes && (toA ? da >= k0 + k1 * fa && abs(v - fa) >= k0 + k1 * fa
                             : db >= k0 + k1 * fb && abs(fb - v) >= k0 + k1 * fb) { return (d0, 0) }
            return (d0, toA ? a : b)
        }
        // only near pixels can change anything: one sharpened to a far side
        // leaves the subject's surfaces; a far one sharpened to a near side
        // would be written back with its own (far) depth if kept
        var near = 0
        for y in 0..<h {
            let rowOK = y >= 3 * s && y < h - 3 * s
            for x in 0..<w {
                let i = y * w + x
                if lab[i] < 0 { continue }
                var best: (Float, UInt16) = (0, 0)
                if x >= 3 * s && x < w - 3 * s { best = rampAt(i, 1) }
                if rowOK { let r = rampAt(i, w); if r.0 > best.0 { best = r } }
                // the diagonals only where neither axis finds a ramp (a ramp
                // beside a sloping edge: along an axis it is wider than the test)
                if best.0 == 0 && rowOK && x >= 3 * s && x < w - 3 * s {
                    var r = rampAt(i, w + 1); if r.0 > best.0 { best = r }
                    r = rampAt(i, w - 1); if r.0 > best.0 { best = r }
                }
                if best.0 > 0 {
                    let v = best.1
                    o[i] = v
                    lab[i] = v != 0 && UInt32(v) <= limit ? 0 : -1
                }
                if lab[i] >= 0 { near += 1 }
            }
        }
        return near
    }

    /// Mark the pixels of the normalized box [u0, u1) x [v0, v1) as seeds.
    /// Returns whether any pixel was marked.
    @discardableResult
    public static func markBox(_ seeds: inout [UInt8], width w: Int, height h: Int,
                               u0: Double, v0: Double, u1: Double, v1: Double) -> Bool {
        let x0 = max(0, Int(u0 * Double(w))), x1 = min(w, Int((u1 * Double(w)).rounded(.up)))
        let y0 = max(0, Int(v0 * Double(h))), y1 = min(h, Int((v1 * Double(h)).rounded(.up)))
        guard x1 > x0, y1 > y0 else { return false }
        for y in y0..<y1 { for x in x0..<x1 { seeds[y * w + x] = 1 } }
        return true
    }
}

/// The central half of a face box in normalized picture coordinates (the
/// face seeds: eyes, nose and cheeks, never the hair's edge or the wall).
struct FaceCentre {
    let u0: Double, u1: Double, v0: Double, v1: Double
    /// nil for an empty picture.
    init?(_ f: Box, videoWidth: Int, videoHeight: Int) {
        guard videoWidth > 0, videoHeight > 0 else { return nil }
        let vw = Double(videoWidth), vh = Double(videoHeight)
        u0 = (Double(f.x) + 0.25 * Double(f.width)) / vw; u1 = (Double(f.x) + 0.75 * Double(f.width)) / vw
        v0 = (Double(f.y) + 0.25 * Double(f.height)) / vh; v1 = (Double(f.y) + 0.75 * Double(f.height)) / vh
    }
}

extension SubjectLock {
    /// Mark this frame's subject seeds in a `width` x `height` mask over the
    /// same view as the depth the lock measured (any resolution): the
    /// central half of the accepted face box when a face set the lock;
    /// otherwise the cells of the surface the lock tracks (or took as the
    /// nearest body) within `seedDepthTolerance(d)` of the subject's depth
    /// that lie in the central half of the last face box while a missed face
    /// is held (`tracked`), or else in the surface's top band (the head: not
    /// a chair back merged with the chest at the lock's coarser grid);
    /// otherwise, while a lost subject is held, last frame's subject cells
    /// (in that box, if any). Returns false when there is no seed
    /// (mode=fixed, nothing found). With a subject, the bodies that moved
    /// into view (`movers`) are seeds too, where nearer than the cutoff:
    /// other people within the cutoff band, a person entering at a side.
    public func writeSeeds(into seeds: inout [UInt8], width w: Int, height h: Int, movers withMovers: Bool = true) -> Bool {
        guard writeSubjectSeeds(into: &seeds, width: w, height: h) else { return false }
        if withMovers { writeMoverSeeds(into: &seeds, width: w, height: h) }
        return true
    }

    /// Marks the cells of every mover that moved (a chair merged with a
    /// walking subject at the lock's coarse grid did not) and lie nearer
    /// than the cutoff, with bit 1 (the subject's own seeds are bit 0: the
    /// restore pass measures the subject from those alone).
    func writeMoverSeeds(into seeds: inout [UInt8], width w: Int, height h: Int) {
        let c = components
        guard !movers.isEmpty, let cut = cutoff, c.width > 0, c.height > 0,
              seedDepthSize.0 > 0, seedDepthSize.1 > 0 else { return }
        let sx = Double(seedDepthSize.0) / Double(c.step) / Double(w)
        let sy = Double(seedDepthSize.1) / Double(c.step) / Double(h)
        for y in 0..<h {
            let gy = min(Int((Double(y) + 0.5) * sy), c.height - 1)
            for x in 0..<w {
                let g = gy * c.width + min(Int((Double(x) + 0.5) * sx), c.width - 1)
                let k = Int(c.labels[g])
                if k >= 0 && c.depth[g] <= Float(cut) && room.movedCell(g) && movers.contains(k) { seeds[y * w + x] |= 2 }
            }
        }
    }

    private func writeSubjectSeeds(into seeds: inout [UInt8], width w: Int, height h: Int) -> Bool {
        guard w > 0, h > 0 else { return false }
        if let f = seedFace, let b = FaceCentre(f, videoWidth: seedVideoSize.0, videoHeight: seedVideoSize.1) {
            return SubjectSegmentation.markBox(&seeds, width: w, height: h, u0: b.u0, v0: b.v0, u1: b.u1, v1: b.v1)
        }
        let c = components
        let gw = c.width, gh = c.height
        guard gw > 0, gh > 0, seedDepthSize.0 > 0, seedDepthSize.1 > 0, let d = subjectDepth else { return false }
        let k = seedComponent
        if k == nil && !(source == .tracked && hasSeedMask) { return false }
        let tol = Float(SubjectLock.seedDepthTolerance(d))
        let dd = Float(d)
        let sx = Double(seedDepthSize.0) / Double(c.step) / Double(w)
        let sy = Double(seedDepthSize.1) / Double(c.step) / Double(h)
        // The surface the lock tracks (its grid is coarser) may have merged a
        // chair back with the chest, within the depth tolerance of the face
        //: a face missed this frame while the lock holds it
        // (`tracked`) seeds only the cells in the central half of the last
        // face box, if any (in the upper half of the surface); otherwise the
        // surface's top band (its top fifth of rows: the head) is the seed.
        var rowEnd = gh, boxRowEnd = gh
        if let k {
            rowEnd = Int(c.topEnd[k])
            boxRowEnd = Int(c.minRow[k]) + (Int(c.maxRow[k]) - Int(c.minRow[k])) / 2 + 1
        }
        let near = source == .tracked ? lastFaceCentre : nil
        var any = false
        for pass in 0..<2 {
            if pass == 1 && (any || near == nil) { break }
            let box = pass == 0 ? near : nil
            let end = box == nil ? rowEnd : boxRowEnd
            for y in 0..<h {
                let gy = min(Int((Double(y) + 0.5) * sy), gh - 1)
                if gy >= end { break }
                let v = (Double(y) + 0.5) / Double(h)
                if let box, v < box.v0 || v > box.v1 { continue }
                for x in 0..<w {
                    if let box {
                        let u = (Double(x) + 0.5) / Double(w)
                        if u < box.u0 || u > box.u1 { continue }
                    }
                    let gx = min(Int((Double(x) + 0.5) * sx), gw - 1)
                    let g = gy * gw + gx
                    let on: Bool
                    if let k {
                        on = c.labels[g] == Int32(k) && abs(c.depth[g] - dd) <= tol
                    } else {
                        on = seedMaskCell(g)
                    }
                    if on { seeds[y * w + x] = 1; any = true }
                }
            }
        }
        return any
    }

    /// Metres either side of the subject's depth that seed cells may lie:
    /// a head and the chest below it, not a chair back 15 cm behind.
    public static func seedDepthTolerance(_ d: Double) -> Double { 0.08 + 0.04 * d }
}
