// SPDX-License-Identifier: LGPL-2.1-or-later
/// The learned person prior fused with depth, region by region, over a
/// floor: the depth-only decision. The probability takes away what it sees
/// is no person and adds what depth missed of a person it sees; where it
/// sees no one, depth decides.
///
/// A person probability (the `person` pad: GRAY8, 255 = person, any size,
/// covering the whole frame) is sampled at the depth grid the matte is made
/// from (bilinear, at each cell's centre). The floor is the depth-only
/// matte's decision on the same grid (the subject segmentation's map, or the
/// depth itself where depth alone keys everything nearer than the cutoff),
/// made once per frame by the caller. Then:
///
///  1. **Person blobs**: 8-connected regions of probability >= `claim`,
///     smaller than `minBlob` of the grid dropped as speckle. With seeds
///     from the lock (the face box, or the tracked or nearest body, and the
///     bodies that moved into view up to `behind` past the cutoff), a blob
///     holding a seed stays, and another stays when at least `floorShare`
///     of it lies in the floor (a person depth keeps part of). A person the
///     model sees that depth keeps nothing of and that never moved is
///     another person, not the subject: the seated woman beside the man the
///     lock follows. Without seeds every blob stays.
///  2. **Depth pieces**: 4-neighbours with readings join when their depths
///     differ by less than `step` (3 cm + 1 cm per m², as a structured-light
///     sensor's noise grows with the square of the distance).
///  3. **Claims**: a piece with at least `pieceKeep` of its readings in a
///     kept blob is the person as a whole, also where the probability missed
///     part of it (a held object, a sleeve), within `reach` of a kept blob
///     and not behind the claimed part; a piece with less than `pieceReject`
///     of its readings in a kept blob, whose claimed readings are also under
///     `rejectShare` of the kept blobs' area, is not the person at all (a
///     pillar, branches or a chair back the probability bled onto); in
///     between, each reading follows the probability, up to `behind` past
///     the lock's cutoff (not the wall behind the subject its edge spills
///     onto).
///  4. **Holes** (no reading) follow the probability: hair and dark cloth the
///     depth camera does not see stay where the model sees a person.
///  5. **The floor** (`floor(...)`), per connected part of it: a part at
///     least `pieceReject` claimed is a person the model sees; its depth
///     pieces at least `pieceKeep` claimed join whole (the crown's hair, the
///     lower coat, past the reach), so do pieces holding a mover's seed
///     (another body that moved); the rest of it the model sees is no person
///     and stays out (the furniture depth joins to a portrait's subject).
///     A part claimed less is where the model sees no one: it joins whole
///     when it holds the lock's seeds and the subject is a person by other
///     evidence (`floorEvidence`: a face, a body the model saw earlier on
///     its track, a body that moved, a person seen elsewhere, or a set
///     cutoff): a man walking off with his back turned whom the model loses
///     stays; in an empty room a still body the lock takes stays out.
///  6. **Floor bleed**: a kept reading outside the floor whose surface
///     recedes upwards steeply and smoothly (the segmentation's floor test,
///     `floorSlope`) is the ground the probability bled onto beside the
///     feet: it is dropped.
///  7. **Legs**: a kept blob whose lowest cell lies above the picture's
///     bottom (by more than `openBottom` of its height) holds a whole body
///     in view; the selfie model, made for upper bodies, misses the legs of
///     one seen at full length or from above. In each of the blob's columns
///     the floor's readings below the blob's lowest cell join the guide,
///     where their connected part of the floor lies at least `legsShare` in
///     the guide.
///
/// The result is a depth map for the refiner: kept readings keep their depth,
/// kept holes take the kept readings' median, everything else is written
/// far (65535), and `cutoff` lies just behind the farthest kept reading.
///
/// Cost: a few passes over the grid (about 320 x 240); arrays kept between
/// frames, no allocation per frame once the sizes are stable.
struct PersonFusion {
    struct Tuning: Equatable {
        /// Probability at or above which a cell is the person's.
        var claim: Float = 0.5
        /// Blobs smaller than this share of the grid are speckle.
        var minBlob: Double = 0.001
        /// Metres past the lock's cutoff that movers seed another person
        /// blob and that a reading of a piece the probability claims in part
        /// is kept (a person's parts lie within it; the wall behind the
        /// subject lies farther).
        var behind: Double = 0.5
        /// Share of another person blob's cells in the floor (the depth-only
        /// decision) that keeps it wherever it lies.
        var floorShare: Double = 0.1
        /// Depth step within a piece: `stepBase` + `stepGain` · d² metres.
        var stepBase: Double = 0.03
        var stepGain: Double = 0.01
        /// Share of a piece's readings in kept blobs that claims it whole.
        var pieceKeep: Double = 0.5
        /// Below this share a piece is rejected whole (with `rejectShare`).
        var pieceReject: Double = 0.2
        /// A rejected piece's claimed readings are fewer than this share of
        /// the kept blobs' cells (a body merged with the wall behind it is
        /// never rejected: its readings are most of the blob).
        var rejectShare: Double = 0.15
        /// How far (share of the grid's width) a claimed piece reaches past
        /// its blob.
        var reach: Double = 0.04
        /// tan of the angle between a surface and the image plane (top
        /// away) past which a kept reading outside the depth subject is floor
        /// (`SubjectSegmentation.floorSlope`: 0.7, about 35°).
        var floorSlope: Float = 0.7
        /// A blob whose lowest cell lies more than this share of the grid's
        /// height above the bottom row ends in view (its legs may be missed).
        var openBottom: Double = 0.02
        /// Share of a connected part of the depth subject that must lie in
        /// the guide for its readings below an open blob to join it.
        var legsShare: Double = 0.25
        init() {}
    }

    var tuning = Tuning()
    /// Cells kept on the last frame (readings and holes).
    private(set) var keptCount = 0
    /// Metres: the cutoff the refiner keys the last frame's guide at (0:
    /// nothing kept).
    private(set) var cutoff = 0.0
    /// The last frame had seeds of a body that moved (the lock's movers).
    private(set) var movingSeeds = false
    /// The farthest kept reading of the last frame (depth units).
    private var maxKept: UInt16 = 0
    /// Cells in kept blobs on the last frame.
    private var keptArea = 0

    private var prob: [Float] = []
    private var blobParent: [Int32] = []
    private var pieceParent: [Int32] = []
    private var blobArea: [Int32] = []
    private var blobKept: [UInt8] = []
    /// Per blob root: its cells in the floor (`apply`'s `floor`).
    private var blobFloor: [Int32] = []
    /// Readings of pieces the probability claims only in part are kept no
    /// farther than this (depth units): `behind` past the lock's cutoff.
    private var claimLimit: UInt16 = .max
    private var pieceCount: [Int32] = []
    private var pieceClaimed: [Int32] = []
    /// Per piece root: the sum of its claimed readings (depth units).
    private var pieceClaimedSum: [Double] = []
    private var claimed: [UInt8] = []
    private var near: [Int32] = []
    private var keptHist: [Int32] = []
    /// The floor's connected parts (root per cell, -1 outside) with their
    /// cells and their cells in the guide, at the root.
    private var partParent: [Int32] = []
    private var partCount: [Int32] = []
    private var partKept: [Int32] = []
    /// Bit 0 at a floor part's root: the part holds a seed of the lock
    /// (every part, without seeds); bit 1 at a depth piece's root: the
    /// piece holds a mover's seed.
    private var partSeeded: [UInt8] = []
    /// Blobs other than the subject's, and each root's slot among them (-1: none).
    private var rowAny: [Int32] = []
    private var prefix: [Int32] = []
    /// Per column: the lowest cell of an open blob (-1: none).
    private var lowest: [Int32] = []
    /// The depth packed row after row, for the floor test.
    private var packed: [UInt16] = []
    private let out = DepthBuffer()
    /// The last frame `fuse` made, for reuse (PersonFusion+Reuse.swift).
    var reuse = FusionReuse()

    /// Depth histogram bins: 5 cm up to 12.8 m.
    private static let binWidth = 0.05
    private static let bins = 256

    init() {}

    /// The probability sampled at a `w` x `h` grid into `into` (0...1).
    static func sample(_ p: Gray8View, width w: Int, height h: Int, into prob: inout [Float]) {
        if prob.count < w * h { prob = [Float](repeating: 0, count: w * h) }
        guard p.width > 0, p.height > 0 else {
            for i in 0..<(w * h) { prob[i] = 0 }
            return
        }
        let sx = Double(p.width) / Double(w), sy = Double(p.height) / Double(h)
        prob.withUnsafeMutableBufferPointer { o in
            for y in 0..<h {
                let fy = max(0, min(Double(p.height - 1), (Double(y) + 0.5) * sy - 0.5))
                let y0 = Int(fy), y1 = min(y0 + 1, p.height - 1)
                let wy = Float(fy - Double(y0))
                let r0 = p.row(y0), r1 = p.row(y1)
                for x in 0..<w {
                    let fx = max(0, min(Double(p.width - 1), (Double(x) + 0.5) * sx - 0.5))
                    let x0 = Int(fx), x1 = min(x0 + 1, p.width - 1)
                    let wx = Float(fx - Double(x0))
                    let top = Float(r0[x0]) * (1 - wx) + Float(r0[x1]) * wx
                    let bottom = Float(r1[x0]) * (1 - wx) + Float(r1[x1]) * wx
                    o[y * w + x] = (top * (1 - wy) + bottom * wy) / 255
                }
            }
        }
    }

    /// The guide depth for the refiner (see the type's description); `seeds`
    /// (w x h, nonzero = the subject) nil when the lock has none.
    /// `floor` (with `floorCutoff` metres): the depth-only decision on
    /// `depth`, as `floor(...)` takes it; a person the model sees besides
    /// the subject stays when depth keeps part of them.
    mutating func apply(depth: Depth16View, scale: Double, person: Gray8View, cutoff lockCutoff: Double,
                        seeds: [UInt8]?, floor: Depth16View? = nil, floorCutoff: Double = 0) -> Depth16View {
        let w = depth.width, h = depth.height, n = w * h
        reuse.guide = nil
        keptCount = 0
        cutoff = 0
        movingSeeds = false
        keptArea = 0
        maxKept = 0
        guard n > 0, scale > 0 else { return depth }
        reserve(n)
        PersonFusion.sample(person, width: w, height: h, into: &prob)
        let t = tuning
        labelBlobs(w, h, claim: t.claim)
        let seeded = seeds.map { s in s.prefix(n).contains { $0 != 0 } } ?? false
        keepBlobs(depth, scale: scale, seeds: seeded ? seeds : nil, lockCutoff: lockCutoff, n: n,
                  floor: floor.flatMap { $0.width == w && $0.height == h && floorCutoff > 0 ? $0 : nil },
                  floorLimit: floorCutoff / scale)
        claimLimit = seeded ? UInt16(clamping: Int((lockCutoff + t.behind) / scale)) : .max
        keptArea = markClaimed(n)
        labelPieces(depth, scale: scale)
        dilateClaimed(w, h, radius: max(1, Int((t.reach * Double(w)).rounded())))
        return writeGuide(depth, scale: scale, keptArea: keptArea)
    }

    private mutating func reserve(_ n: Int) {
        if blobParent.count < n {
            blobParent = [Int32](repeating: 0, count: n)
            pieceParent = [Int32](repeating: 0, count: n)
            blobArea = [Int32](repeating: 0, count: n)
            pieceCount = [Int32](repeating: 0, count: n)
            pieceClaimed = [Int32](repeating: 0, count: n)
            pieceClaimedSum = [Double](repeating: 0, count: n)
            claimed = [UInt8](repeating: 0, count: n)
            near = [Int32](repeating: 0, count: n)
        }
        out.reserve(n)
    }

    /// 1a: 8-connected blobs of cells >= claim (`blobParent`: the root, or -1).
    private mutating func labelBlobs(_ w: Int, _ h: Int, claim: Float) {
        prob.withUnsafeBufferPointer { pr in
            blobParent.withUnsafeMutableBufferPointer { par in
                let uf = UnionFind(parent: par.baseAddress!)
                for y in 0..<h {
                    for x in 0..<w {
                        let i = y * w + x
                        guard pr[i] >= claim else { par[i] = -1; continue }
                        par[i] = Int32(i)
                        if x > 0 && par[i - 1] >= 0 { uf.union(Int32(i), Int32(i - 1)) }
                        if y > 0 {
                            let up = i - w
                            if par[up] >= 0 { uf.union(Int32(i), Int32(up)) }
                            if x > 0 && par[up - 1] >= 0 { uf.union(Int32(i), Int32(up - 1)) }
                            if x + 1 < w && par[up + 1] >= 0 { uf.union(Int32(i), Int32(up + 1)) }
                        }
                    }
                }
                for i in 0..<(w * h) where par[i] >= 0 { par[i] = uf.find(Int32(i)) }
            }
        }
    }

    /// The bin holding the median of the histogram `hist[from ..< from +
    /// bins]`; nil when it is empty.
    private static func medianBin(_ hist: [Int32], from: Int) -> Int? {
        var total: Int32 = 0
        for b in 0..<bins { total += hist[from + b] }
        guard total > 0 else { return nil }
        var acc: Int32 = 0, b = 0
        while b < bins { acc += hist[from + b]; if 2 * acc >= total { break }; b += 1 }
        return b
    }

    /// 1b: which blobs stay (`blobKept` indexed by root).
    private mutating func keepBlobs(_ depth: Depth16View, scale: Double, seeds: [UInt8]?,
                                    lockCutoff: Double, n: Int, floor: Depth16View?, floorLimit: Double) {
        let w = depth.width, h = depth.height
        if blobKept.count < n {
            blobKept = [UInt8](repeating: 0, count: n)
            blobFloor = [Int32](repeating: 0, count: n)
        }
        // per root: area, holding the subject's seeds (bit 1), cells in the
        // floor, and a depth histogram for the largest blobs only (a slot
        // per root, up to 16)
        for i in 0..<n { blobArea[i] = 0; blobKept[i] = 0; blobFloor[i] = 0 }
        for i in 0..<n where blobParent[i] >= 0 { blobArea[Int(blobParent[i])] += 1 }
        let minArea = Int32(max(1.0, tuning.minBlob * Double(n)))
        if let seeds {
            for i in 0..<min(n, seeds.count) where seeds[i] != 0 {
                if seeds[i] & 2 != 0 { movingSeeds = true }
                let r = blobParent[i]
                if r >= 0 { blobKept[Int(r)] |= 2 }
            }
        }
        if let floor {
            for y in 0..<h {
                for x in 0..<w {
                    let r = blobParent[y * w + x], v = floor.at(x, y)
                    if r >= 0 && v != 0 && Double(v) <= floorLimit { blobFloor[Int(r)] += 1 }
                }
            }
        }
        for i in 0..<n where blobParent[i] == Int32(i) && blobArea[i] >= minArea {
            if seeds == nil || blobKept[i] & 2 != 0
                || Double(blobFloor[i]) >= tuning.floorShare * Double(blobArea[i]) {
                blobKept[i] |= 1
            }
        }
    }

    /// `claimed`: cells in kept blobs; returns their number.
    private mutating func markClaimed(_ n: Int) -> Int {
        var area = 0
        for i in 0..<n {
            let r = blobParent[i]
            let c: UInt8 = r >= 0 && blobKept[Int(r)] & 1 != 0 ? 1 : 0
            claimed[i] = c
            area += Int(c)
        }
        return area
    }

    /// 2: depth pieces (`pieceParent`: root, -1 for holes) with their
    /// reading and claimed counts at the root.
    private mutating func labelPieces(_ depth: Depth16View, scale: Double) {
        let w = depth.width, h = depth.height
        let base = tuning.stepBase, gain = tuning.stepGain
        pieceParent.withUnsafeMutableBufferPointer { par in
            let uf = UnionFind(parent: par.baseAddress!)
            for y in 0..<h {
                for x in 0..<w {
                    let i = y * w + x
                    let v = depth.at(x, y)
                    guard v != 0 else { par[i] = -1; continue }
                    par[i] = Int32(i)
                    let d = Double(v) * scale
                    let step = (base + gain * d * d) / scale
                    if x > 0 && par[i - 1] >= 0 && abs(Double(depth.at(x - 1, y)) - Double(v)) < step {
                        uf.union(Int32(i), Int32(i - 1))
                    }
                    if y > 0 && par[i - w] >= 0 && abs(Double(depth.at(x, y - 1)) - Double(v)) < step {
                        uf.union(Int32(i), Int32(i - w))
                    }
                }
            }
            for i in 0..<(w * h) {
                pieceCount[i] = 0
                pieceClaimed[i] = 0
                pieceClaimedSum[i] = 0
            }
            for i in 0..<(w * h) where par[i] >= 0 {
                let r = Int(uf.find(Int32(i)))
                par[i] = Int32(r)
                pieceCount[r] += 1
                if claimed[i] != 0 {
                    pieceClaimed[r] += 1
                    pieceClaimedSum[r] += Double(depth.at(i % w, i / w))
                }
            }
        }
    }

    /// `near`: nonzero where a claimed cell lies within `radius` (a square).
    private mutating func dilateClaimed(_ w: Int, _ h: Int, radius r: Int) {
        // rows by prefix sums, then columns
        if rowAny.count < w * h { rowAny = [Int32](repeating: 0, count: w * h) }
        if prefix.count < max(w, h) + 1 { prefix = [Int32](repeating: 0, count: max(w, h) + 1) }
        for y in 0..<h {
            prefix[0] = 0
            for x in 0..<w { prefix[x + 1] = prefix[x] + Int32(claimed[y * w + x]) }
            for x in 0..<w { rowAny[y * w + x] = prefix[min(w, x + r + 1)] - prefix[max(0, x - r)] }
        }
        for x in 0..<w {
            prefix[0] = 0
            for y in 0..<h { prefix[y + 1] = prefix[y] + (rowAny[y * w + x] > 0 ? 1 : 0) }
            for y in 0..<h { near[y * w + x] = prefix[min(h, y + r + 1)] - prefix[max(0, y - r)] }
        }
    }

    /// 3-4 and the guide.
    private mutating func writeGuide(_ depth: Depth16View, scale: Double, keptArea: Int) -> Depth16View {
        let w = depth.width, h = depth.height
        let t = tuning
        let o = out.base
        let rejectBelow = Int32(t.rejectShare * Double(keptArea))
        var kept = 0
        var maxKept: UInt16 = 0
        if keptHist.count < PersonFusion.bins { keptHist = [Int32](repeating: 0, count: PersonFusion.bins) }
        for b in 0..<PersonFusion.bins { keptHist[b] = 0 }
        let perBin = 1 / (PersonFusion.binWidth / scale)
        for y in 0..<h {
            for x in 0..<w {
                let i = y * w + x
                let v = depth.at(x, y)
                var keep = claimed[i] != 0
                if v != 0 {
                    let r = Int(pieceParent[i])
                    let count = Double(pieceCount[r]), share = Double(pieceClaimed[r]) / max(count, 1)
                    if share >= t.pieceKeep {
                        // what the probability missed of a claimed piece:
                        // near its blob and not behind the claimed part
                        // (a held object or a forearm is in front of the
                        // body; a chair back joined to a shoulder is behind)
                        keep = keep || (near[i] > 0
                            && Double(v) * Double(pieceClaimed[r]) <= pieceClaimedSum[r])
                    } else if share < t.pieceReject && pieceClaimed[r] < rejectBelow {
                        keep = false
                    } else if v > claimLimit {
                        // a wall far behind the subject that the
                        // probability's edge spills onto
                        keep = false
                    }
                }
                if keep {
                    kept += 1
                    if v != 0 {
                        maxKept = max(maxKept, v)
                        keptHist[min(PersonFusion.bins - 1, Int(Double(v) * perBin))] += 1
                    }
                    o[i] = v.littleEndian   // holes (0) are filled below
                } else {
                    o[i] = UInt16(65535).littleEndian
                }
            }
        }
        keptCount = kept
        guard kept > 0 else { cutoff = 0; return out.view(width: w, height: h) }
        // kept holes: the kept readings' median (a person without any
        // reading: the lock's cutoff)
        var fill: UInt16
        if let b = PersonFusion.medianBin(keptHist, from: 0) {
            fill = UInt16(clamping: Int((Double(b) + 0.5) * PersonFusion.binWidth / scale))
            fill = min(max(fill, 1), maxKept)
        } else {
            fill = UInt16(clamping: max(1, Int(1.0 / scale)))
            maxKept = fill
        }
        for i in 0..<(w * h) where o[i] == 0 { o[i] = fill }
        cutoff = Double(maxKept) * scale + 0.01
        self.maxKept = maxKept
        return out.view(width: w, height: h)
    }

    /// Steps 5-7 on the last guide (see the type's
    /// description): `depth` the map `apply` was given, `floor` the
    /// depth-only decision on it (the subject segmentation's map, or the
    /// depth itself where depth alone keys everything nearer than the
    /// cutoff) keyed at `floorCutoff` metres (0: it keeps nothing);
    /// `evidence`: a part of the floor the model claims nothing of is a
    /// person all the same (see `floorEvidence`).
    mutating func floor(depth: Depth16View, floor: Depth16View, scale: Double, floorCutoff: Double,
                        seeds: [UInt8]?, evidence: Bool) -> Depth16View {
        let w = floor.width, h = floor.height, n = w * h
        reuse.guide = nil
        guard n > 0, depth.width == w, depth.height == h, out.count >= n, blobParent.count >= n,
              floorCutoff > 0 else { return out.view(width: w, height: h) }
        let limit = UInt16(clamping: Int(floorCutoff / scale))
        @inline(__always) func inFloor(_ x: Int, _ y: Int) -> Bool {
            let v = floor.at(x, y)
            return v != 0 && v <= limit
        }
        guard keepFloor(floor, seeds: seeds, evidence: evidence, inFloor: inFloor) else { return out.view(width: w, height: h) }
        dropFloor(depth, scale: scale, inSubject: inFloor)
        addLegs(floor, inSubject: inFloor)
        // the cutoff just behind the farthest reading kept now
        let o = out.base, far = UInt16(65535).littleEndian
        var maxKept: UInt16 = 0
        for i in 0..<n where o[i] != far { maxKept = max(maxKept, UInt16(littleEndian: o[i])) }
        self.maxKept = maxKept
        cutoff = maxKept > 0 ? Double(maxKept) * scale + 0.01 : 0
        return out.view(width: w, height: h)
    }

    /// Whether a part of the floor the model claims nothing of is kept: the
    /// lock's subject is a person by other means than this frame's
    /// probability. `faceLock`: a face set or holds the lock; `subjectSeen`:
    /// the model saw the locked body on an earlier frame of its track;
    /// `setCutoff`: mode=fixed, where the cut itself is the decision. Also
    /// the subject moved into view (`movingSeeds`), or the model sees a
    /// person elsewhere in the frame. In an empty room none holds: a still
    /// body the lock takes (a jacket on a chair) stays out.
    func floorEvidence(faceLock: Bool, subjectSeen: Bool, setCutoff: Bool) -> Bool {
        setCutoff || faceLock || subjectSeen || movingSeeds || keptArea > 0
    }

    /// The floor's rule on the guide: each connected part (4-neighbours)
    /// of the floor the model claims at least `pieceReject` of is a person
    /// it sees: its cells join where their depth piece is at least
    /// `pieceKeep` claimed (the person's own surface, past the reach) and
    /// the rest stays out (a desk, a chair, a floor slab it sees is no
    /// person; the legs come back by step 7). A part claimed less is where
    /// the model sees no one: with `evidence` all of it joins. Returns
    /// false when the floor is empty.
    private mutating func keepFloor(_ floor: Depth16View, seeds: [UInt8]?, evidence: Bool,
                                    inFloor: (Int, Int) -> Bool) -> Bool {
        let w = floor.width, h = floor.height, n = w * h
        let o = out.base, far = UInt16(65535).littleEndian
        if partParent.count < n {
            partParent = [Int32](repeating: 0, count: n)
            partCount = [Int32](repeating: 0, count: n)
            partKept = [Int32](repeating: 0, count: n)
            partSeeded = [UInt8](repeating: 0, count: n)
        }
        var any = false
        partParent.withUnsafeMutableBufferPointer { par in
            let uf = UnionFind(parent: par.baseAddress!)
            for y in 0..<h {
                for x in 0..<w {
                    let i = y * w + x
                    guard inFloor(x, y) else { par[i] = -1; continue }
                    par[i] = Int32(i)
                    any = true
                    if x > 0 && par[i - 1] >= 0 { uf.union(Int32(i), Int32(i - 1)) }
                    if y > 0 && par[i - w] >= 0 { uf.union(Int32(i), Int32(i - w)) }
                }
            }
            for i in 0..<n { partCount[i] = 0; partKept[i] = 0; partSeeded[i] = seeds == nil ? 1 : 0 }
            for i in 0..<n where par[i] >= 0 {
                let r = Int(uf.find(Int32(i)))
                par[i] = Int32(r)
                partCount[r] += 1
                if o[i] != far { partKept[r] += 1 }
                if let seeds, i < seeds.count, seeds[i] != 0 {
                    partSeeded[r] |= 1
                    if pieceParent[i] >= 0 && seeds[i] & 2 != 0 { partSeeded[Int(pieceParent[i])] |= 2 }
                }
            }
        }
        guard any else { return false }
        let t = tuning
        var added = 0, maxKept = self.maxKept
        for y in 0..<h {
            for x in 0..<w {
                let i = y * w + x
                let r = Int(partParent[i])
                guard r >= 0, o[i] == far else { continue }
                let seen = Double(partKept[r]) >= t.pieceReject * Double(partCount[r])
                if seen {
                    let p = Int(pieceParent[i])
                    guard p >= 0, partSeeded[p] & 2 != 0
                            || Double(pieceClaimed[p]) >= t.pieceKeep * Double(pieceCount[p]) else { continue }
                } else if !evidence || partSeeded[r] == 0 {
                    continue
                }
                let v = floor.at(x, y)
                o[i] = v.littleEndian
                maxKept = max(maxKept, v)
                added += 1
            }
        }
        keptCount += added
        self.maxKept = maxKept
        return true
    }

    /// 6: kept readings outside the floor on a floor-like surface
    /// written far.
    private mutating func dropFloor(_ depth: Depth16View, scale: Double, inSubject: (Int, Int) -> Bool) {
        let w = depth.width, h = depth.height, n = w * h
        // the segmentation's floor test: the least-squares slope over ±t rows
        let s = max(1, w / 160), t = 2 * s
        guard h > 2 * t else { return }
        if packed.count < n { packed = [UInt16](repeating: 0, count: n) }
        for y in 0..<h { for x in 0..<w { packed[y * w + x] = depth.at(x, y) } }
        let slopeK = tuning.floorSlope * 2 * Float(s) / DepthComponents.focal(w, h)
        let jump = DepthStep.surfaceJump
        let jumpBase = jump.base / Float(scale), jumpGain = jump.gain
        let o = out.base, far = UInt16(65535).littleEndian
        var dropped = 0
        packed.withUnsafeBufferPointer { pp in
            let d = pp.baseAddress!
            for y in t..<(h - t) {
                for x in 0..<w {
                    let i = y * w + x
                    guard o[i] != far, d[i] != 0, !inSubject(x, y) else { continue }
                    let floor = SubjectSegmentation.recedesUpwards(d, i, w, t: t, s: s, slopeK: slopeK) { a, b in
                        abs(Float(a) - Float(b)) < jumpBase + jumpGain * Float(min(a, b))
                    }
                    if floor { o[i] = far; dropped += 1 }
                }
            }
        }
        keptCount -= dropped
    }

    /// 7: the floor's readings below an open blob joined to the
    /// guide. `blobParent` and `claimed` still hold `apply`'s blobs;
    /// `pieceParent`, `pieceCount` and `pieceClaimed` are reused for the
    /// depth subject's connected parts.
    private mutating func addLegs(_ subject: Depth16View, inSubject: (Int, Int) -> Bool) {
        let w = subject.width, h = subject.height, n = w * h
        let o = out.base, far = UInt16(65535).littleEndian
        // each blob's lowest row (at its root), then per column the lowest
        // cell of a blob that ends above the bottom
        for i in 0..<n { pieceCount[i] = -1 }
        for i in 0..<n where claimed[i] != 0 {
            let r = Int(blobParent[i])
            pieceCount[r] = max(pieceCount[r], Int32(i / w))
        }
        let openBelow = Int32(Double(h - 1) - tuning.openBottom * Double(h))
        if lowest.count < w { lowest = [Int32](repeating: -1, count: w) }
        var any = false
        for x in 0..<w { lowest[x] = -1 }
        for y in 0..<h {
            for x in 0..<w where claimed[y * w + x] != 0 && pieceCount[Int(blobParent[y * w + x])] < openBelow {
                lowest[x] = Int32(y)
                any = true
            }
        }
        guard any else { return }
        // the depth subject's connected parts (4-neighbours) and their
        // cells in the guide
        pieceParent.withUnsafeMutableBufferPointer { par in
            let uf = UnionFind(parent: par.baseAddress!)
            for y in 0..<h {
                for x in 0..<w {
                    let i = y * w + x
                    guard inSubject(x, y) else { par[i] = -1; continue }
                    par[i] = Int32(i)
                    if x > 0 && par[i - 1] >= 0 { uf.union(Int32(i), Int32(i - 1)) }
                    if y > 0 && par[i - w] >= 0 { uf.union(Int32(i), Int32(i - w)) }
                }
            }
            for i in 0..<n { pieceCount[i] = 0; pieceClaimed[i] = 0 }
            for i in 0..<n where par[i] >= 0 {
                let r = Int(uf.find(Int32(i)))
                par[i] = Int32(r)
                pieceCount[r] += 1
                if o[i] != far { pieceClaimed[r] += 1 }
            }
        }
        var added = 0
        for x in 0..<w where lowest[x] >= 0 {
            for y in (Int(lowest[x]) + 1)..<h {
                let i = y * w + x
                let r = Int(pieceParent[i])
                guard o[i] == far, r >= 0,
                      Double(pieceClaimed[r]) >= tuning.legsShare * Double(pieceCount[r]) else { continue }
                let v = subject.at(x, y)
                o[i] = v.littleEndian
                added += 1
            }
        }
        keptCount += added
    }
}
