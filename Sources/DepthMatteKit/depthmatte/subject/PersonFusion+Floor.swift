// SPDX-License-Identifier: LGPL-2.1-or-later
/// PersonFusion's steps 5-7 (see the type's description): the floor, the
/// floor bleed and the legs, on the decision `apply` made; and the planes
/// the passes share.

extension PersonFusion {
    /// Steps 5-7 on the last decision (see the type's
    /// description): `depth` the map `apply` was given, `floor` the
    /// depth-only decision on it (the subject segmentation's, or the plain
    /// cut where depth alone keys everything nearer than the cutoff; cut at
    /// 0 m: it keeps nothing); `evidence`: a part of the floor the model
    /// claims nothing of is a person all the same (see `floorEvidence`).
    mutating func floor(depth: Depth16View, floor: SubjectDecision, scale: Double,
                        seeds: [UInt8]?, evidence: Bool) -> SubjectDecision {
        let w = floor.width, h = floor.height, n = w * h
        reuse.decision = nil
        let heldCells = planes.heldCells
        planes.heldCells = 0
        planes.heldStable = heldCells == 0
        guard n > 0, depth.width == w, depth.height == h, decided.count >= n, planes.blobParent.count >= n else {
            return decided.decision(width: w, height: h, cutoff: cutoff)
        }
        guard floor.cutoff > 0 else {
            // the lock found no subject: no depth surface is a quarter
            // claimed, so the model's blobs lie on no body (its weak claim
            // on a far wall or down an empty corridor): nothing is keyed
            decided.base.update(repeating: DepthLabel.background.rawValue, count: n)
            keptCount = 0
            maxKept = 0
            cutoff = 0
            return decided.decision(width: w, height: h, cutoff: 0)
        }
        let cells = FloorCells(labels: floor.labels, depth: depth,
                               limit: UInt16(clamping: DepthThreshold.limit(cutoff: floor.cutoff, scale: scale)))
        guard keepFloor(floor, seeds: seeds, evidence: evidence, held: heldCells == n, cells: cells) else {
            return decided.decision(width: w, height: h, cutoff: cutoff)
        }
        dropFloor(depth, scale: scale, floor: cells)
        addLegs(w, h, floor: cells)
        // the cutoff just behind the farthest reading kept now, and the
        // cells kept, for the next frame's floor. Holes the model does not
        // claim are unknown: the refiner decides them as in the depth-only
        // decision, from the kept readings around them and the colour (a
        // Kinect's holes along a body's edge), instead of the model's
        // silence dropping them
        let o = keptDepth.base, l = decided.base
        let subject = DepthLabel.subject.rawValue, unknown = DepthLabel.unknown.rawValue
        let held = planes.held.base
        let holes = keptCount > 0
        var maxKept: UInt16 = 0
        var heldChanged: UInt8 = heldCells == n ? 0 : 1
        for y in 0..<h {
            for x in 0..<w {
                let i = y * w + x
                let kept = l[i] == subject
                heldChanged |= held[i] ^ (kept ? 1 : 0)
                held[i] = kept ? 1 : 0
                if kept { maxKept = max(maxKept, o[i]) } else if holes && depth.at(x, y) == 0 { l[i] = unknown }
            }
        }
        planes.heldCells = n
        planes.heldStable = heldChanged == 0
        self.maxKept = maxKept
        cutoff = maxKept > 0 ? Double(maxKept) * scale + 0.01 : 0
        return decided.decision(width: w, height: h, cutoff: cutoff)
    }

    /// A frame keyed without the fusion: the next fused frame's floor reads
    /// no last decision (the one held is of an older frame).
    mutating func forgetHeld() {
        planes.heldCells = 0
        planes.heldStable = false
    }

    /// Whether a part of the floor the model claims nothing of is kept: the
    /// lock's subject is a person by other means than this frame's
    /// probability. `faceLock`: a face set or holds the lock; `subjectSeen`:
    /// the model saw the locked body on an earlier frame of its track;
    /// `setCutoff`: mode=fixed, where the cut itself is the decision. Also
    /// the subject moved into view (`movingSeeds`), or the model sees a
    /// person elsewhere in the frame. In an empty room none holds: a still
    /// body the lock takes (a jacket on a chair) stays out. `claimOnRoom`:
    /// the model claims the room's own surfaces only
    /// (`SubjectLock.claimsOnlyRoom`), so it sees no one and depth decides
    /// (a still man in front of a wall whose flags it claims).
    func floorEvidence(faceLock: Bool, subjectSeen: Bool, setCutoff: Bool, claimOnRoom: Bool = false) -> Bool {
        setCutoff || faceLock || subjectSeen || movingSeeds || keptArea > 0 || claimOnRoom
    }

    /// The connected parts (4-neighbours) of the floor's cells,
    /// into `par` (each cell's parent towards its part's root, -1 outside);
    /// whether there is any.
    private func labelParts(_ w: Int, _ h: Int, into par: UnsafeMutablePointer<Int32>,
                            inside: FloorCells) -> Bool {
        let uf = UnionFind(parent: par)
        var any = false
        for y in 0..<h {
            for x in 0..<w {
                let i = y * w + x
                guard inside.contains(i) else { par[i] = -1; continue }
                par[i] = Int32(i)
                any = true
                if x > 0 && par[i - 1] >= 0 { uf.union(Int32(i), Int32(i - 1)) }
                if y > 0 && par[i - w] >= 0 { uf.union(Int32(i), Int32(i - w)) }
            }
        }
        return any
    }

    /// The floor's rule on the decision: each connected part (4-neighbours)
    /// of the floor the model claims at least `pieceReject` of is a person
    /// it sees: its cells join where their depth piece is at least
    /// `pieceKeep` claimed (the person's own surface, past the reach) or
    /// continue such a piece down to the picture's bottom (mostly below
    /// it, not nearer), and the rest stays out (a desk, a chair, a floor
    /// slab it sees is no person; the legs come back by step 7). A part
    /// claimed less is where the model sees no one: with `evidence` all of
    /// it joins when it holds the lock's seeds or lies at least
    /// `holdShare` in the last frame's decision (`held`: the walker the lock
    /// lost as he leaves at the bottom edge). Returns false when the floor
    /// is empty. `cells`: the floor's cells and their depths.
    private mutating func keepFloor(_ floor: SubjectDecision, seeds: [UInt8]?, evidence: Bool, held: Bool,
                                    cells: FloorCells) -> Bool {
        let w = floor.width, h = floor.height, n = w * h
        let o = keptDepth.base, l = decided.base, subject = DepthLabel.subject.rawValue
        planes.reserveParts(n)
        let par = planes.partParent.base, partCount = planes.partCount.base, partKept = planes.partKept.base
        let seeded = planes.partSeeded.base, piece = planes.pieceParent.base
        let pieceCount = planes.pieceCount.base, pieceClaimed = planes.pieceClaimed.base
        let partHeld = planes.partHeld.base, lastKept = planes.held.base
        let below = planes.pieceBelow.base, beside = planes.pieceBeside.base
        let any = labelParts(w, h, into: par, inside: cells)
        let uf = UnionFind(parent: par)
        let t = tuning
        partCount.update(repeating: 0, count: n)
        partKept.update(repeating: 0, count: n)
        partHeld.update(repeating: 0, count: n)
        below.update(repeating: 0, count: n)
        beside.update(repeating: 0, count: n)
        seeded.update(repeating: seeds == nil ? 1 : 0, count: n)
        // the picture's bottom: the lowest row the floor has a cell of
        // (a registered depth map's last rows may hold no reading)
        let labels = floor.labels, unknown = DepthLabel.unknown.rawValue
        var bottom = h - 1
        while bottom > 0 && !(0..<w).contains(where: { labels[bottom * w + $0] != unknown }) { bottom -= 1 }
        let atBottom = Int(Double(bottom) - t.openBottom * Double(h))
        @inline(__always) func whole(_ q: Int32) -> Bool {
            q >= 0 && Double(pieceClaimed[Int(q)]) >= t.pieceKeep * Double(pieceCount[Int(q)])
        }
        let rows = RowIndex(width: w)
        func tally(_ seeds: UnsafeBufferPointer<UInt8>?) {
            for i in 0..<n where par[i] >= 0 {
                let r = Int(uf.find(Int32(i)))
                par[i] = Int32(r)
                partCount[r] += 1
                if l[i] == subject { partKept[r] += 1 }
                if held && lastKept[i] != 0 { partHeld[r] += 1 }
                // a piece's contacts with pieces claimed whole: from below
                // and not nearer (a continuation), or from any other side;
                // bit 30 of `below`: it reaches the picture's bottom
                let p = piece[i]
                if p >= 0 && !whole(p) {
                    let (y, x) = rows.split(i)
                    if y > 0 && par[i - w] >= 0 && piece[i - w] != p && whole(piece[i - w]) {
                        if cells.at(x, y) >= cells.at(x, y - 1) { below[Int(p)] += 1 } else { beside[Int(p)] += 1 }
                    }
                    @inline(__always) func side(_ j: Int) {
                        if par[j] >= 0 && piece[j] != p && whole(piece[j]) { beside[Int(p)] += 1 }
                    }
                    if x > 0 { side(i - 1) }
                    if x + 1 < w { side(i + 1) }
                    if y + 1 < h { side(i + w) }
                    if y >= atBottom { below[Int(p)] |= 1 << 30 }
                }
                if let seeds, i < seeds.count, seeds[i] != 0 {
                    seeded[r] |= 1
                    if piece[i] >= 0 && seeds[i] & 2 != 0 { seeded[Int(piece[i])] |= 2 }
                }
            }
        }
        if let seeds { seeds.withUnsafeBufferPointer { tally($0) } } else { tally(nil) }
        guard any else { return false }
        var added = 0, maxKept = self.maxKept
        for y in 0..<h {
            for x in 0..<w {
                let i = y * w + x
                let r = Int(par[i])
                guard r >= 0, l[i] != subject else { continue }
                let seen = Double(partKept[r]) >= t.pieceReject * Double(partCount[r])
                if seen {
                    let p = Int(piece[i])
                    guard p >= 0 else { continue }
                    let continues = below[p] & (1 << 30) != 0 && below[p] & ~(1 << 30) > beside[p]
                    guard seeded[p] & 2 != 0 || whole(Int32(p)) || continues else { continue }
                } else if !evidence
                            || seeded[r] == 0 && Double(partHeld[r]) < t.holdShare * Double(partCount[r]) {
                    continue
                }
                let v = cells.at(x, y)
                o[i] = v
                l[i] = subject
                maxKept = max(maxKept, v)
                added += 1
            }
        }
        keptCount += added
        self.maxKept = maxKept
        return true
    }

    /// 6: kept readings outside the floor on a floor-like surface
    /// dropped (background).
    private mutating func dropFloor(_ depth: Depth16View, scale: Double, floor cells: FloorCells) {
        let w = depth.width, h = depth.height, n = w * h
        // the segmentation's floor test: the least-squares slope over ±t rows
        let test = camera.floorTest(w, h), s = test.s, t = test.t
        guard h > 2 * t else { return }
        planes.packed.reserve(n)
        let d = planes.packed.base
        for y in 0..<h { for x in 0..<w { d[y * w + x] = depth.at(x, y) } }
        let slopeK = test.slopeK
        let jump = DepthStep.surfaceJump
        let jumpBase = jump.base / Float(scale), jumpGain = jump.gain
        let l = decided.base, subject = DepthLabel.subject.rawValue
        var dropped = 0
        for y in t..<(h - t) {
            for x in 0..<w {
                let i = y * w + x
                guard l[i] == subject, d[i] != 0, !cells.contains(i) else { continue }
                let floor = SubjectSegmentation.recedesUpwards(UnsafePointer(d), i, w, t: t, s: s, slopeK: slopeK) { a, b in
                    abs(Float(a) - Float(b)) < jumpBase + jumpGain * Float(min(a, b))
                }
                if floor { l[i] = DepthLabel.background.rawValue; dropped += 1 }
            }
        }
        keptCount -= dropped
    }

    /// 7: the floor's readings below an open blob joined to the
    /// decision. `blobParent` and `claimed` still hold `apply`'s blobs;
    /// `pieceParent`, `pieceCount` and `pieceClaimed` are reused for the
    /// depth subject's connected parts (`floor`).
    private mutating func addLegs(_ w: Int, _ h: Int, floor: FloorCells) {
        let n = w * h
        let o = keptDepth.base, l = decided.base, subject = DepthLabel.subject.rawValue
        let claimed = planes.claimed.base, blob = planes.blobParent.base
        let par = planes.pieceParent.base, count = planes.pieceCount.base, inGuide = planes.pieceClaimed.base
        // each blob's lowest row (at its root), then per column the lowest
        // cell of a blob that ends above the bottom
        count.update(repeating: -1, count: n)
        for i in 0..<n where claimed[i] != 0 {
            let r = Int(blob[i])
            count[r] = max(count[r], Int32(i / w))
        }
        let openBelow = Int32(Double(h - 1) - tuning.openBottom * Double(h))
        planes.lowest.reserve(w)
        let lowest = planes.lowest.base
        var any = false
        lowest.update(repeating: -1, count: w)
        for y in 0..<h {
            for x in 0..<w where claimed[y * w + x] != 0 && count[Int(blob[y * w + x])] < openBelow {
                lowest[x] = Int32(y)
                any = true
            }
        }
        guard any else { return }
        // the depth subject's connected parts (4-neighbours) and their
        // cells in the decision
        _ = labelParts(w, h, into: par, inside: floor)
        let uf = UnionFind(parent: par)
        count.update(repeating: 0, count: n)
        inGuide.update(repeating: 0, count: n)
        for i in 0..<n where par[i] >= 0 {
            let r = Int(uf.find(Int32(i)))
            par[i] = Int32(r)
            count[r] += 1
            if l[i] == subject { inGuide[r] += 1 }
        }
        var added = 0
        for x in 0..<w where lowest[x] >= 0 {
            for y in (Int(lowest[x]) + 1)..<h {
                let i = y * w + x
                let r = Int(par[i])
                guard l[i] != subject, r >= 0,
                      Double(inGuide[r]) >= tuning.legsShare * Double(count[r]) else { continue }
                o[i] = floor.at(x, y)
                l[i] = subject
                added += 1
            }
        }
        keptCount += added
    }
}

/// The floor as its rules read it (`PersonFusion.floor`): the depth-only
/// decision's subject cells, each at its reading, or at the floor's cutoff
/// where the decision kept it past the cutoff (its legs).
struct FloorCells {
    let labels: UnsafePointer<UInt8>
    let depth: Depth16View
    /// The floor's cutoff in depth units.
    let limit: UInt16

    /// Whether cell `i` (row after row) is the floor's.
    @inline(__always) func contains(_ i: Int) -> Bool { labels[i] == DepthLabel.subject.rawValue }

    /// The depth of floor cell (x, y).
    @inline(__always) func at(_ x: Int, _ y: Int) -> UInt16 { min(depth.at(x, y), limit) }
}

/// PersonFusion's planes, one value per grid cell (or per root, at the
/// root's cell), allocated by hand so that the passes read and write through
/// plain pointers; they only grow. A class: copies of a PersonFusion share
/// them, as they share its decision.
final class FusionPlanes {
    var prob = GrowingBuffer<Float>(filling: 0)
    /// Root per cell (-1: none): the probability's blobs, the depth pieces,
    /// the floor's connected parts.
    var blobParent = GrowingBuffer<Int32>(filling: 0)
    var pieceParent = GrowingBuffer<Int32>(filling: 0)
    var partParent = GrowingBuffer<Int32>(filling: 0)
    var blobArea = GrowingBuffer<Int32>(filling: 0)
    /// Per blob root: bit 0 kept, bit 1 holds a seed of the subject.
    var blobKept = GrowingBuffer<UInt8>(filling: 0)
    /// Per blob root: its cells in the floor (`apply`'s `floor`).
    var blobFloor = GrowingBuffer<Int32>(filling: 0)
    var pieceCount = GrowingBuffer<Int32>(filling: 0)
    var pieceClaimed = GrowingBuffer<Int32>(filling: 0)
    /// Per piece root: the sum of its claimed readings (depth units).
    var pieceClaimedSum = GrowingBuffer<Double>(filling: 0)
    var claimed = GrowingBuffer<UInt8>(filling: 0)
    var near = GrowingBuffer<Int32>(filling: 0)
    var rowAny = GrowingBuffer<Int32>(filling: 0)
    var prefix = GrowingBuffer<Int32>(filling: 0)
    var keptHist = GrowingBuffer<Int32>(filling: 0)
    /// Per floor part root: its cells and its cells in the decision.
    var partCount = GrowingBuffer<Int32>(filling: 0)
    var partKept = GrowingBuffer<Int32>(filling: 0)
    /// Per floor part root: its cells kept on the last frame (`held`).
    var partHeld = GrowingBuffer<Int32>(filling: 0)
    /// Per depth piece root: its cells touching a piece claimed whole from
    /// below and not nearer (bit 30: the piece reaches the picture's
    /// bottom), and its other such contacts.
    var pieceBelow = GrowingBuffer<Int32>(filling: 0)
    var pieceBeside = GrowingBuffer<Int32>(filling: 0)
    /// The cells the last frame's decision kept (1), valid when `heldCells`
    /// is the grid's size (0: the last frame kept no floor).
    var held = GrowingBuffer<UInt8>(filling: 0)
    var heldCells = 0
    /// The last `floor` left `held` as it found it: the same inputs give
    /// the same decision again, so the decision may be reused.
    var heldStable = false
    /// Bit 0 at a floor part's root: the part holds a seed of the lock
    /// (every part, without seeds); bit 1 at a depth piece's root: the
    /// piece holds a mover's seed.
    var partSeeded = GrowingBuffer<UInt8>(filling: 0)
    /// Per column: the lowest cell of an open blob (-1: none).
    var lowest = GrowingBuffer<Int32>(filling: -1)
    /// The depth packed row after row, for the floor test.
    var packed = GrowingBuffer<UInt16>(filling: 0)
    /// The probability's sampling: per grid column its two source columns and the weight of the second.
    var columnX = GrowingBuffer<Int32>(filling: 0)
    var columnWeight = GrowingBuffer<Float>(filling: 0)

    /// Per depth value v: the depth step within a piece, `stepBase` +
    /// `stepGain` · d² metres at v, in depth units rounded up; two readings
    /// v and u join when |u − v| is below it (the same test in integers).
    private var stepLimit = GrowingBuffer<Int32>(filling: 0)
    private var stepKey = (scale: 0.0, base: 0.0, gain: 0.0)

    /// The step limits for every depth value (`stepLimit`), made when the
    /// scale or the tuning changes.
    func stepLimits(scale: Double, base: Double, gain: Double) -> UnsafePointer<Int32> {
        if stepLimit.count < 65536 || stepKey != (scale, base, gain) {
            stepLimit.reserve(65536)
            stepKey = (scale, base, gain)
            let o = stepLimit.base
            for v in 0..<65536 {
                let d = Double(v) * scale
                let step = ((base + gain * d * d) / scale).rounded(.up)
                o[v] = step >= Double(Int32.max) ? Int32.max : step > 0 ? Int32(step) : 0
            }
        }
        return UnsafePointer(stepLimit.base)
    }

    /// Steps 1-4's planes for `n` cells.
    func reserve(_ n: Int) {
        prob.reserve(n); blobParent.reserve(n); pieceParent.reserve(n); blobArea.reserve(n)
        blobKept.reserve(n); blobFloor.reserve(n); pieceCount.reserve(n); pieceClaimed.reserve(n)
        pieceClaimedSum.reserve(n); claimed.reserve(n); near.reserve(n); rowAny.reserve(n)
    }

    /// Step 5's planes for `n` cells.
    func reserveParts(_ n: Int) {
        partParent.reserve(n); partCount.reserve(n); partKept.reserve(n); partSeeded.reserve(n)
        partHeld.reserve(n); held.reserve(n); pieceBelow.reserve(n); pieceBeside.reserve(n)
    }

    deinit {
        prob.free(); blobParent.free(); pieceParent.free(); partParent.free(); blobArea.free()
        blobKept.free(); blobFloor.free(); pieceCount.free(); pieceClaimed.free(); pieceClaimedSum.free()
        claimed.free(); near.free(); rowAny.free(); prefix.free(); keptHist.free(); partCount.free()
        partKept.free(); partHeld.free(); held.free(); pieceBelow.free(); pieceBeside.free(); partSeeded.free()
        lowest.free(); packed.free(); columnX.free(); columnWeight.free()
        stepLimit.free()
    }
}
