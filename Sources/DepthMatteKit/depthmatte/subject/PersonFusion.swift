// SPDX-License-Identifier: LGPL-2.1-or-later
/// The learned person prior fused with depth, region by region, over a
/// floor: the depth-only decision. The probability takes away what it sees
/// is no person and adds what depth missed of a person it sees; where it
/// sees no one, depth decides.
///
/// A person probability (the `person` pad: GRAY8, 255 = person, any size,
/// covering the whole frame) is sampled at the depth grid the matte is made
/// from (bilinear, at each cell's centre). The floor is the depth-only
/// decision on the same grid (`SubjectDecision`: the subject segmentation's,
/// or the plain cut where depth alone keys everything nearer than the
/// cutoff), made once per frame by the caller. Then:
///
///  1. **Person blobs**: 8-connected regions of probability >= `claim`,
///     smaller than `minBlob` of the grid dropped as speckle. With seeds
///     from the lock (the face box, or the tracked or nearest body, and the
///     bodies that moved into view up to `behind` past the cutoff), a blob
///     holding a seed stays, and another stays when at least `floorShare`
///     of it lies in the floor (a person depth keeps part of). A person the
///     model sees that depth keeps nothing of and that never moved is
///     another person, not the subject: the seated woman beside the man the
///     lock follows. Without seeds (`mode=fixed`: the cut is the floor) a
///     blob stays when at least `floorShare` of it lies in what the cut
///     keeps: the model adds what the cut missed of a person it keeps part
///     of, not a claim wholly beyond the cut (a weak claim on a corridor's
///     wall 2-5 m away behind a 1 m cut); without a floor every blob stays.
///     Where the lock finds no subject in a subject mode (`floor(...)`
///     keyed at 0 m), the blobs lie on no body (a weak claim on a far
///     wall, down an empty corridor) and nothing is keyed.
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
///  4. **Holes** (no reading) the probability claims are kept: hair and dark
///     cloth the depth camera does not see stay where the model sees a
///     person; the others stay holes for the refiner (see below).
///  5. **The floor** (`floor(...)`), per connected part of it: a part at
///     least `pieceReject` claimed is a person the model sees; its depth
///     pieces at least `pieceKeep` claimed join whole (the crown's hair, the
///     lower coat, past the reach), so do pieces holding a mover's seed
///     (another body that moved) and pieces that continue one claimed whole
///     down to the picture's bottom (touching it more from below than from
///     any other side, not nearer than it: the shoulders of a man seen from
///     above below the head the model sees); the rest of it the model sees
///     is no person and stays out (the furniture depth joins to a
///     portrait's subject, a desk beside a person, a table in front).
///     A part claimed less is where the model sees no one: it joins whole
///     when it holds the lock's seeds and the subject is a person by other
///     evidence (`floorEvidence`: a face, a body the model saw earlier on
///     its track, a body that moved, a person seen elsewhere, a set
///     cutoff, or a model whose claim lies on the room's own surfaces only
///     and so sees no one): a man walking off with his back turned whom the
///     model loses stays, and so does a still man in front of a wall whose
///     flags it claims; in an empty room a still body the lock takes stays
///     out.
///     With that evidence, a part the last frame's decision held at least
///     `holdShare` of joins too: a body the fused matte follows is not
///     dropped when the lock and the model lose it (a walker leaving at
///     the bottom edge, seen from above).
///  6. **Floor bleed**: a kept reading outside the floor whose surface
///     recedes upwards steeply and smoothly (the segmentation's floor test,
///     `CameraGeometry.floorSlope`) is the ground the probability bled onto beside the
///     feet: it is dropped.
///  7. **Legs**: a kept blob whose lowest cell lies above the picture's
///     bottom (by more than `openBottom` of its height) holds a whole body
///     in view; the selfie model, made for upper bodies, misses the legs of
///     one seen at full length or from above. In each of the blob's columns
///     the floor's readings below the blob's lowest cell join the decision,
///     where their connected part of the floor lies at least `legsShare` in
///     the decision. The legs past the cutoff are grown once, in the floor
///     (`SubjectLegs`); this step admits them.
///
/// The result is a decision (`SubjectDecision`): the kept cells are the
/// subject, the rest background, and `cutoff` lies just behind the
/// farthest kept reading (each kept cell's depth in `keptDepth`: its
/// reading, the kept readings' median for a kept hole). After the floor
/// (`floor(...)`), holes not kept are unknown, for the refiner to decide,
/// as in the depth-only decision.
///
/// Cost: a few passes over the grid (about 320 x 180), through plain
/// pointers into planes kept between frames (`FusionPlanes`), no allocation
/// per frame once the sizes are stable; a frame whose inputs equal the last
/// one's reuses its decision (`fuse`, PersonFusion+Reuse.swift). Steps 5-7 live
/// in PersonFusion+Floor.swift.
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
        var stepBase = 0.03, stepGain = 0.01
        /// Shares of a piece's readings in kept blobs: from `pieceKeep` on
        /// it is claimed whole, below `pieceReject` it is rejected whole
        /// (with `rejectShare`).
        var pieceKeep = 0.5, pieceReject = 0.2
        /// A rejected piece's claimed readings are fewer than this share of
        /// the kept blobs' cells (a body merged with the wall behind it is
        /// never rejected: its readings are most of the blob).
        var rejectShare: Double = 0.15
        /// How far (share of the grid's width) a claimed piece reaches past
        /// its blob.
        var reach: Double = 0.04
        /// Share of a part of the floor the model sees no one in that lies
        /// in the last frame's decision, for it to join without the lock's
        /// seeds: at 30 fps a walking body overlaps its last frame by far
        /// more (the walker the lock loses as he leaves the picture).
        var holdShare: Double = 0.5
        /// A blob whose lowest cell lies more than this share of the grid's
        /// height above the bottom row ends in view (its legs may be missed).
        var openBottom: Double = 0.02
        /// Share of a connected part of the depth subject that must lie in
        /// the decision for its readings below an open blob to join it.
        var legsShare: Double = 0.25
        init() {}
    }

    var tuning = Tuning()
    /// The camera the floor test assumes (set per frame from the plan).
    var camera = CameraGeometry()
    /// Cells kept on the last frame (readings and holes).
    var keptCount = 0
    /// Metres: the cutoff the last frame's decision is cut at (0: nothing
    /// kept).
    var cutoff = 0.0
    /// The last frame had seeds of a body that moved (the lock's movers).
    var movingSeeds = false
    /// The farthest kept reading of the last frame (depth units).
    var maxKept: UInt16 = 0
    /// Cells in kept blobs on the last frame.
    var keptArea = 0
    /// Readings of pieces the probability claims only in part are kept no
    /// farther than this (depth units): `behind` past the lock's cutoff.
    private var claimLimit: UInt16 = .max
    /// The per-cell planes of the passes (shared by copies, as `decided` is).
    let planes = FusionPlanes()
    /// The decision's labels: the kept cells are the subject.
    let decided = DecisionBuffer()
    /// Per kept cell, the depth it is kept at (its reading, the kept
    /// readings' median for a kept hole, the floor's depth for a cell the
    /// floor adds): the cutoff's; the other cells' values are not read.
    let keptDepth = DepthBuffer()
    /// The last frame `fuse` made, for reuse (PersonFusion+Reuse.swift).
    var reuse = FusionReuse()

    /// Depth histogram bins: 5 cm up to 12.8 m.
    private static let binWidth = 0.05
    private static let bins = 256

    init() {}

    /// The probability sampled at a `w` x `h` grid into `into` (0...1).
    static func sample(_ p: Gray8View, width w: Int, height h: Int, into prob: inout [Float]) {
        if prob.count < w * h { prob = [Float](repeating: 0, count: w * h) }
        let columns = FusionPlanes()
        prob.withUnsafeMutableBufferPointer { o in
            if let o = o.baseAddress { sample(p, width: w, height: h, into: o, columns: columns) }
        }
    }

    /// The same into `o` (w x h), with `columns`' scratch for the per-column taps.
    static func sample(_ p: Gray8View, width w: Int, height h: Int, into o: UnsafeMutablePointer<Float>,
                       columns: FusionPlanes) {
        guard p.width > 0, p.height > 0 else {
            o.update(repeating: 0, count: w * h)
            return
        }
        let sx = Double(p.width) / Double(w), sy = Double(p.height) / Double(h)
        // each column's taps, the same on every row
        columns.columnX.reserve(2 * w)
        columns.columnWeight.reserve(w)
        let cx = columns.columnX.base, cw = columns.columnWeight.base
        for x in 0..<w {
            let fx = max(0, min(Double(p.width - 1), (Double(x) + 0.5) * sx - 0.5))
            let x0 = Int(fx)
            cx[2 * x] = Int32(x0)
            cx[2 * x + 1] = Int32(min(x0 + 1, p.width - 1))
            cw[x] = Float(fx - Double(x0))
        }
        for y in 0..<h {
            let fy = max(0, min(Double(p.height - 1), (Double(y) + 0.5) * sy - 0.5))
            let y0 = Int(fy), y1 = min(y0 + 1, p.height - 1)
            let wy = Float(fy - Double(y0))
            let r0 = p.row(y0), r1 = p.row(y1)
            let orow = o + y * w
            for x in 0..<w {
                let x0 = Int(cx[2 * x]), x1 = Int(cx[2 * x + 1]), wx = cw[x]
                let top = Float(r0[x0]) * (1 - wx) + Float(r0[x1]) * wx
                let bottom = Float(r1[x0]) * (1 - wx) + Float(r1[x1]) * wx
                orow[x] = (top * (1 - wy) + bottom * wy) / 255
            }
        }
    }

    /// Steps 1-4's decision (see the type's description); `seeds`
    /// (w x h, nonzero = the subject) nil when the lock has none.
    /// `floor`: the depth-only decision on `depth`, as `floor(...)` takes
    /// it; a person the model sees besides the subject stays when depth
    /// keeps part of them.
    mutating func apply(depth: Depth16View, scale: Double, person: Gray8View, cutoff lockCutoff: Double,
                        seeds: [UInt8]?, floor: SubjectDecision? = nil) -> SubjectDecision {
        let w = depth.width, h = depth.height, n = w * h
        reuse.decision = nil
        keptCount = 0
        cutoff = 0
        movingSeeds = false
        keptArea = 0
        maxKept = 0
        guard n > 0, scale > 0 else { return decided.cut(depth, scale: scale, cutoff: 0) }
        planes.reserve(n)
        decided.reserve(n)
        keptDepth.reserve(n)
        PersonFusion.sample(person, width: w, height: h, into: planes.prob.base, columns: planes)
        let t = tuning
        labelBlobs(w, h, claim: t.claim)
        let seeded = seeds.map { s in s.prefix(n).contains { $0 != 0 } } ?? false
        keepBlobs(depth, scale: scale, seeds: seeded ? seeds : nil, lockCutoff: lockCutoff, n: n,
                  floor: floor.flatMap { $0.width == w && $0.height == h && $0.cutoff > 0 ? $0 : nil })
        claimLimit = seeded ? UInt16(clamping: Int((lockCutoff + t.behind) / scale)) : .max
        keptArea = markClaimed(n)
        labelPieces(depth, scale: scale)
        dilateClaimed(w, h, radius: max(1, Int((t.reach * Double(w)).rounded())))
        return writeDecision(depth, scale: scale, keptArea: keptArea)
    }

    /// 1a: 8-connected blobs of cells >= claim (`blobParent`: the root, or -1).
    private func labelBlobs(_ w: Int, _ h: Int, claim: Float) {
        let pr = planes.prob.base, par = planes.blobParent.base
        let uf = UnionFind(parent: par)
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

    /// The bin holding the median of the histogram `hist[0 ..< bins]`; nil
    /// when it is empty.
    private static func medianBin(_ hist: UnsafePointer<Int32>) -> Int? {
        var total: Int32 = 0
        for b in 0..<bins { total += hist[b] }
        guard total > 0 else { return nil }
        var acc: Int32 = 0, b = 0
        while b < bins { acc += hist[b]; if 2 * acc >= total { break }; b += 1 }
        return b
    }

    /// 1b: which blobs stay (`blobKept` indexed by root).
    private mutating func keepBlobs(_ depth: Depth16View, scale: Double, seeds: [UInt8]?,
                                    lockCutoff: Double, n: Int, floor: SubjectDecision?) {
        let par = planes.blobParent.base, area = planes.blobArea.base
        let kept = planes.blobKept.base, inFloor = planes.blobFloor.base
        // per root: area, holding the subject's seeds (bit 1), cells in the floor
        area.update(repeating: 0, count: n)
        kept.update(repeating: 0, count: n)
        inFloor.update(repeating: 0, count: n)
        for i in 0..<n where par[i] >= 0 { area[Int(par[i])] += 1 }
        let minArea = Int32(max(1.0, tuning.minBlob * Double(n)))
        if let seeds {
            seeds.withUnsafeBufferPointer { s in
                for i in 0..<min(n, s.count) where s[i] != 0 {
                    if s[i] & 2 != 0 { movingSeeds = true }
                    let r = par[i]
                    if r >= 0 { kept[Int(r)] |= 2 }
                }
            }
        }
        if let floor {
            let l = floor.labels, subject = DepthLabel.subject.rawValue
            for i in 0..<n where par[i] >= 0 && l[i] == subject { inFloor[Int(par[i])] += 1 }
        }
        for i in 0..<n where par[i] == Int32(i) && area[i] >= minArea {
            if seeds == nil && floor == nil || kept[i] & 2 != 0
                || Double(inFloor[i]) >= tuning.floorShare * Double(area[i]) {
                kept[i] |= 1
            }
        }
    }

    /// `claimed`: cells in kept blobs; returns their number.
    private func markClaimed(_ n: Int) -> Int {
        let par = planes.blobParent.base, kept = planes.blobKept.base, claimed = planes.claimed.base
        var area = 0
        for i in 0..<n {
            let r = par[i]
            let c: UInt8 = r >= 0 && kept[Int(r)] & 1 != 0 ? 1 : 0
            claimed[i] = c
            area += Int(c)
        }
        return area
    }

    /// 2: depth pieces (`pieceParent`: root, -1 for holes) with their
    /// reading and claimed counts at the root.
    private func labelPieces(_ depth: Depth16View, scale: Double) {
        let w = depth.width, h = depth.height, n = w * h
        let limit = planes.stepLimits(scale: scale, base: tuning.stepBase, gain: tuning.stepGain)
        let par = planes.pieceParent.base
        let uf = UnionFind(parent: par)
        for y in 0..<h {
            for x in 0..<w {
                let i = y * w + x
                let v = depth.at(x, y)
                guard v != 0 else { par[i] = -1; continue }
                par[i] = Int32(i)
                let step = limit[Int(v)]
                if x > 0 && par[i - 1] >= 0 && abs(Int32(depth.at(x - 1, y)) - Int32(v)) < step {
                    uf.union(Int32(i), Int32(i - 1))
                }
                if y > 0 && par[i - w] >= 0 && abs(Int32(depth.at(x, y - 1)) - Int32(v)) < step {
                    uf.union(Int32(i), Int32(i - w))
                }
            }
        }
        let count = planes.pieceCount.base, claimedCount = planes.pieceClaimed.base
        let sum = planes.pieceClaimedSum.base, claimed = planes.claimed.base
        count.update(repeating: 0, count: n)
        claimedCount.update(repeating: 0, count: n)
        sum.update(repeating: 0, count: n)
        for y in 0..<h {
            for x in 0..<w {
                let i = y * w + x
                guard par[i] >= 0 else { continue }
                let r = Int(uf.find(Int32(i)))
                par[i] = Int32(r)
                count[r] += 1
                if claimed[i] != 0 {
                    claimedCount[r] += 1
                    sum[r] += Double(depth.at(x, y))
                }
            }
        }
    }

    /// `near`: nonzero where a claimed cell lies within `radius` (a square).
    private func dilateClaimed(_ w: Int, _ h: Int, radius r: Int) {
        // rows by prefix sums, then columns
        planes.prefix.reserve(w + 1)
        let claimed = planes.claimed.base, rowAny = planes.rowAny.base
        let near = planes.near.base, prefix = planes.prefix.base
        for y in 0..<h {
            let c = claimed + y * w, o = rowAny + y * w
            prefix[0] = 0
            for x in 0..<w { prefix[x + 1] = prefix[x] + Int32(c[x]) }
            for x in 0..<w { o[x] = prefix[min(w, x + r + 1)] - prefix[max(0, x - r)] }
        }
        // columns: a window of rows sliding down, per column the rows in it
        // with a claimed cell within r along the row
        let rows = planes.prefix.base
        rows.update(repeating: 0, count: w)
        func add(_ y: Int, _ d: Int32) {
            let a = rowAny + y * w
            for x in 0..<w { rows[x] += a[x] > 0 ? d : 0 }
        }
        for y in 0..<min(h, r) { add(y, 1) }
        for y in 0..<h {
            if y + r < h { add(y + r, 1) }
            if y - r - 1 >= 0 { add(y - r - 1, -1) }
            (near + y * w).update(from: rows, count: w)
        }
    }

    /// 3-4 and the decision.
    private mutating func writeDecision(_ depth: Depth16View, scale: Double, keptArea: Int) -> SubjectDecision {
        let w = depth.width, h = depth.height
        let t = tuning
        let o = keptDepth.base, l = decided.base
        let subject = DepthLabel.subject.rawValue, background = DepthLabel.background.rawValue
        let claimed = planes.claimed.base, par = planes.pieceParent.base, near = planes.near.base
        let count = planes.pieceCount.base, claimedCount = planes.pieceClaimed.base
        let sum = planes.pieceClaimedSum.base
        let rejectBelow = Int32(t.rejectShare * Double(keptArea))
        var kept = 0
        var maxKept: UInt16 = 0
        planes.keptHist.reserve(PersonFusion.bins)
        let hist = planes.keptHist.base
        hist.update(repeating: 0, count: PersonFusion.bins)
        let perBin = 1 / (PersonFusion.binWidth / scale)
        for y in 0..<h {
            for x in 0..<w {
                let i = y * w + x
                let v = depth.at(x, y)
                var keep = claimed[i] != 0
                if v != 0 {
                    let r = Int(par[i])
                    let pieceCount = Double(count[r]), share = Double(claimedCount[r]) / max(pieceCount, 1)
                    if share >= t.pieceKeep {
                        // what the probability missed of a claimed piece:
                        // near its blob and not behind the claimed part
                        // (a held object or a forearm is in front of the
                        // body; a chair back joined to a shoulder is behind)
                        keep = keep || (near[i] > 0 && Double(v) * Double(claimedCount[r]) <= sum[r])
                    } else if share < t.pieceReject && claimedCount[r] < rejectBelow {
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
                        hist[min(PersonFusion.bins - 1, Int(Double(v) * perBin))] += 1
                    }
                    o[i] = v   // holes (0) are filled below
                    l[i] = subject
                } else {
                    l[i] = background
                }
            }
        }
        keptCount = kept
        guard kept > 0 else { cutoff = 0; return decided.decision(width: w, height: h, cutoff: 0) }
        // kept holes: the kept readings' median (a person without any
        // reading: the lock's cutoff)
        var fill: UInt16
        if let b = PersonFusion.medianBin(hist) {
            fill = UInt16(clamping: Int((Double(b) + 0.5) * PersonFusion.binWidth / scale))
            fill = min(max(fill, 1), maxKept)
        } else {
            fill = UInt16(clamping: max(1, Int(1.0 / scale)))
            maxKept = fill
        }
        for i in 0..<(w * h) where l[i] == subject && o[i] == 0 { o[i] = fill }
        cutoff = Double(maxKept) * scale + 0.01
        self.maxKept = maxKept
        return decided.decision(width: w, height: h, cutoff: cutoff)
    }
}
