// SPDX-License-Identifier: LGPL-2.1-or-later
/// The plain depth cut is the floor: after `SubjectSegmentation` has split
/// the near pixels into surfaces and kept the subject's, this puts back
/// every near piece it left out that is not *clearly* something else.
///
/// On real sensors a person is not one smooth surface: the chin steps to
/// the neck and the collar to the chest (in depth and in colour at once), a
/// head in profile steps to the shoulder, a hand is held apart from the body
/// in front of the face. A rule that cuts wherever depth and colour both
/// step keeps the head alone. Here the segmentation's result is a proposal,
/// and only these pieces stay out:
///
///  - **floor**: mostly pixels the segmentation's geometry test called floor
///    (a floor or desk top receding from the camera);
///  - **slabs along the picture's border**: a piece reaching the top of the
///    picture (a pillar, a door frame, a backdrop, branches hanging in), or
///    both its left and right sides (a desk edge, a bench) — as the depth
///    sees them, past a registered map's band of holes;
///  - **behind the subject**: a piece in contact with it whose mean depth is
///    more than `behind` farther than the kept depths it touches, or more
///    than `behindSeed` farther than the subject's seed (a chair back
///    rising behind the shoulders; a torso is level with the face or nearer);
///  - **apart from the subject**: a piece that touches nothing kept, unless
///    it lies in front of the seed, within arm's reach (`reach`), and
///    reaches no border (a raised hand, a held object in front of the face). Other people within the cutoff band
///    are the lock's movers (`RoomDepth`), seeds of their own.
///
/// Everything else that the cutoff keeps is the person's: pieces in contact
/// with what is kept (within `contact` in depth) come back, round after
/// round (head → neck → torso → arms → legs). At arm's length (`bodyWidth`)
/// the body under the seed, in contact with what is kept, comes back past
/// every rule but the top's: floor-like or not, in front of the seed or
/// behind it (a selfie's chest leaning back recedes upwards as steeply as a
/// floor, fills the bottom edge from side to side and is as near as the
/// face or nearer).
///
/// Passes, each its own function: `seedDepth`, `labelPieces`,
/// `measureContacts`, `decide`, `write`. Buffers are kept between frames.
struct SubjectRestore {
    /// Dropped neighbours join one piece when their depths differ by less.
    var pieceStep = DepthStep.surfaceJump
    /// A dropped pixel touches the kept subject when their depths differ by
    /// less (a chin to the neck, a collar to the chest: anatomy, not noise).
    var contact = DepthStep(base: 0.08, gain: 0.02)
    /// A piece whose mean depth lies this much behind the kept depths it
    /// touches is behind the subject.
    var behind = DepthStep(base: 0.05, gain: 0.02)
    /// ... or this much behind the seed (a chair back 16-20 cm behind the
    /// face; a head in profile sits 13 cm behind the near shoulder that
    /// seeds a depth-only lock).
    var behindSeed = DepthStep(base: 0.12, gain: 0.02)
    /// A piece is floor when at least this share of it is floor-marked.
    var floorShare: Float = 0.3
    /// Pixels a piece apart from the subject needs to come back (speckle stays out).
    var minApartArea: Int32 = 24
    /// Metres: how far in front of the seed a piece apart from the subject
    /// may lie (a hand held out at arm's length; not a chair or a desk
    /// between the camera and a subject standing metres behind it).
    var reach: Float = 0.8
    /// Metres: how far behind the seed a limb leaving the picture at the
    /// bottom beside the kept body may lie (the far arm of a person in
    /// profile hangs 15-25 cm behind the near shoulder or the face).
    var limbBehind = DepthStep(base: 0.25, gain: 0.02)
    /// Columns of holes a limb may be parted from the kept body by (the
    /// shadow band a depth camera leaves along a silhouette).
    var besideGap = 4
    /// Metres: a person's width, shoulders and arms. Where the picture is
    /// narrower than this at the seed's depth and at a piece's mean depth
    /// (with the focal length the floor test assumes, `camera`), the
    /// camera is at arm's length from both: the body fills the picture's
    /// width there and hides whatever lies behind it, so a piece under the
    /// seed (`isUnderSeed`) that touches what is kept is the subject's own
    /// body, not a floor, a desk or a chair back, and comes back without the
    /// other rules (a chest leaning back is floor-like; a phone held below
    /// the face sees the chest nearer than the face). The arm's-length
    /// TrueDepth selfie's chest lies 0.35 m away, where its 3:4 picture is
    /// 0.34 m wide (IoU against Apple's matte 0.99; 0.47 without the
    /// chest); a Kinect's 4:3
    /// picture is 0.64 m wide at its nearest reading (0.5 m): none of its
    /// pieces is at arm's length.
    var bodyWidth: Float = 0.6
    /// Rounds of restoring pieces next to what is kept.
    var rounds = 6
    /// Whether the pass runs at all (off: the segmentation's result stands).
    var enabled = true

    /// Pixels put back in the last call.
    private(set) var restoredCount = 0

    /// Per pixel: piece index, -1 = not a dropped pixel.
    private var piece: [Int32] = []
    private var stack: [Int32] = []
    /// Per column: the first and the last row with a reading within a
    /// quarter of the height of the picture's top and bottom (those borders
    /// as the depth sees them).
    private var edgeRows: [Int32] = []
    private var pieces: [Piece] = []

    struct Piece {
        var area: Int32 = 0, floor: Int32 = 0, contacts: Int32 = 0
        /// Pixels with a kept pixel of any depth within `besideGap` columns in their row.
        var beside: Int32 = 0
        /// Pixels whose upper neighbour is a reading beyond the cutoff (the
        /// background shows above them).
        var openAbove: Int32 = 0
        /// Sums of the piece's depths and of the kept depths it touches.
        var depthSum: Float = 0, contactSum: Float = 0
        var left = false, right = false, top = false, bottom = false
        var minX = Int32.max, maxX = Int32.min, minY = Int32.max
        var restore = false
        var meanDepth: Float { area > 0 ? depthSum / Float(area) : 0 }
    }

    /// Border flags of a pixel, as the depth sees the picture's sides.
    struct Borders {
        let ends: UnsafePointer<Int32>, edges: UnsafePointer<Int32>, w: Int, h: Int
        @inline(__always) func left(_ x: Int, _ y: Int) -> Bool { x <= Int(ends[2 * y]) }
        @inline(__always) func right(_ x: Int, _ y: Int) -> Bool { x >= Int(ends[2 * y + 1]) }
        @inline(__always) func top(_ x: Int, _ y: Int) -> Bool { y <= Int(edges[2 * x]) }
        @inline(__always) func bottom(_ x: Int, _ y: Int) -> Bool { y >= Int(edges[2 * x + 1]) }
    }

    init() {}

    /// Restore what is not clearly something else into `labels` (the
    /// segmentation's decision: `DepthLabel`s, `SubjectSegmentation.leftOut`
    /// on the near pixels it left out) and `out` (its working copy of the
    /// depth: the kept pixels hold their own depth; a restored pixel gets
    /// its own). `original`: the depth as it came; `limit`: the cutoff in
    /// depth units; `floorMark`: bit 8 = floor; `ends`: per row the first
    /// and last column counted as the picture's sides; `camera`: the focal
    /// length (`bodyWidth`). Returns the pixels restored.
    @discardableResult
    mutating func apply(original: Depth16View, out: UnsafeMutablePointer<UInt16>, labels: UnsafeMutablePointer<UInt8>,
                        seeds: UnsafePointer<UInt8>,
                               floorMark: UnsafePointer<UInt8>, ends: UnsafePointer<Int32>,
                               limit: UInt32, scale: Float,
                               camera: CameraGeometry = CameraGeometry()) -> Int {
        restoredCount = 0
        let w = original.width, h = original.height, n = w * h
        guard enabled, n > 0, limit < 65535, var seed = Self.seed(original, seeds, limit) else { return 0 }
        seed.armsLength = bodyWidth / scale * camera.focal(w, h) / Float(w)
        if piece.count < n { piece = [Int32](repeating: -1, count: n); stack.reserveCapacity(n) }
        if edgeRows.count < 2 * w { edgeRows = [Int32](repeating: 0, count: 2 * w) }
        Self.edgeRows(original, &edgeRows, limit: h / 4)
        // the per-pixel planes leave `self` while the passes (mutating) run
        var pieceBuf = piece, edgeBuf = edgeRows
        piece = []; edgeRows = []
        defer { piece = pieceBuf; edgeRows = edgeBuf }
        return pieceBuf.withUnsafeMutableBufferPointer { pc in
            edgeBuf.withUnsafeBufferPointer { er in
                let borders = Borders(ends: ends, edges: er.baseAddress!, w: w, h: h)
                labelPieces(original, labels, pc.baseAddress!, floorMark, borders, limit: limit, scale: scale)
                var total = 0
                for _ in 0..<rounds {
                    measureContacts(original, out, labels, pc.baseAddress!, scale: scale)
                    let newly = decide(seed: seed, scale: scale)
                    if newly == 0 { break }
                    total += Self.write(original, out, labels, pc.baseAddress!, pieces)
                }
                restoredCount = total
                return total
            }
        }
    }

    /// Where the lock's seed is: its near pixels' mean depth (units), its
    /// columns and its middle row; and the depth (units) nearer than which
    /// the picture is narrower than `bodyWidth` (arm's length).
    struct Seed {
        var depth: Float, minX: Int32, maxX: Int32, midY: Int32
        var armsLength: Float = 0
    }

    /// The subject's seed (bit 0 of the seed flags; other people's mover
    /// seeds are bit 1), nil without near seed pixels.
    static func seed(_ d: Depth16View, _ seeds: UnsafePointer<UInt8>, _ limit: UInt32) -> Seed? {
        var sum: Float = 0, count = 0
        var minX = Int32.max, maxX = Int32.min, minY = Int32.max, maxY = Int32.min
        for y in 0..<d.height {
            let row = seeds + y * d.width
            var next = 0
            while next < d.width {
                // (eight pixels at a time passed over when none is a seed)
                if next &+ 8 <= d.width && UnsafeRawPointer(row + next).loadUnaligned(as: UInt64.self) & 0x0101_0101_0101_0101 == 0 {
                    next &+= 8; continue
                }
                let x = next
                next &+= 1
                guard row[x] & 1 != 0 else { continue }
                let v = d.at(x, y)
                guard v != 0 && UInt32(v) <= limit else { continue }
                sum += Float(v); count += 1
                minX = min(minX, Int32(x)); maxX = max(maxX, Int32(x))
                minY = min(minY, Int32(y)); maxY = max(maxY, Int32(y))
            }
        }
        return count > 0 ? Seed(depth: sum / Float(count), minX: minX, maxX: maxX, midY: (minY + maxY) / 2) : nil
    }

    /// Per column x, `edges[2x]`: the first row with a reading when no
    /// more than `limit` rows of holes lie above it (else row 0), and
    /// `edges[2x + 1]`: the last row with a reading when no more than
    /// `limit` rows of holes lie below it (else the last row): a registered
    /// map's bands of holes along the top and the bottom.
    static func edgeRows(_ d: Depth16View, _ edges: inout [Int32], limit: Int) {
        let last = d.height - 1
        for x in 0..<d.width {
            var y = 0
            while y < limit && y < last && d.at(x, y) == 0 { y += 1 }
            edges[2 * x] = d.at(x, y) != 0 ? Int32(y) : 0
            y = last
            while last - y < limit && y > 0 && d.at(x, y) == 0 { y -= 1 }
            edges[2 * x + 1] = d.at(x, y) != 0 ? Int32(y) : Int32(last)
        }
    }

    /// Dropped pixels (near in `original`, left out in `labels`) into
    /// pieces: 8-neighbours within `pieceStep`; each piece's area, depth,
    /// floor pixels and the borders it reaches.
    mutating func labelPieces(_ d: Depth16View, _ labels: UnsafePointer<UInt8>, _ pc: UnsafeMutablePointer<Int32>,
                              _ floorMark: UnsafePointer<UInt8>, _ b: Borders, limit: UInt32, scale: Float) {
        let w = d.width, h = d.height
        let a = pieceStep.base / scale, g = pieceStep.gain
        pieces.removeAll(keepingCapacity: true)
        let n = w * h, rows = RowIndex(width: w)
        pc.update(repeating: -1, count: n)
        // (eight pixels at a time passed over when none is left out:
        // `leftOut` is the one label with both low bits set)
        let leftOut = SubjectSegmentation.leftOut, ones: UInt64 = 0x0101_0101_0101_0101
        var next = 0
        while next < n {
            if next &+ 8 <= n {
                let v = UnsafeRawPointer(labels + next).loadUnaligned(as: UInt64.self)
                if v & (v >> 1) & ones == 0 { next &+= 8; continue }
            }
            let start = next
            next &+= 1
            guard pc[start] < 0 && labels[start] == leftOut else { continue }
            let (sy, sx) = rows.split(start)
            let sv = d.at(sx, sy)
            guard sv != 0 && UInt32(sv) <= limit else { continue }
            let id = Int32(pieces.count)
            var p = Piece()
            pc[start] = id
            stack.removeAll(keepingCapacity: true)
            stack.append(Int32(start))
            while let top = stack.popLast() {
                let i = Int(top), (y, x) = rows.split(i), v = Float(d.at(x, y))
                p.area += 1; p.depthSum += v
                if floorMark[i] & 8 != 0 { p.floor += 1 }
                if y > 0 && UInt32(d.at(x, y - 1)) > limit { p.openAbove += 1 }
                p.left = p.left || b.left(x, y); p.right = p.right || b.right(x, y)
                p.top = p.top || b.top(x, y); p.bottom = p.bottom || b.bottom(x, y)
                p.minX = min(p.minX, Int32(x)); p.maxX = max(p.maxX, Int32(x)); p.minY = min(p.minY, Int32(y))
                for dy in -1...1 where y + dy >= 0 && y + dy < h {
                    for dx in -1...1 where x + dx >= 0 && x + dx < w && (dx != 0 || dy != 0) {
                        let j = (y + dy) * w + x + dx
                        guard pc[j] < 0, labels[j] == leftOut else { continue }
                        let u = Float(d.at(x + dx, y + dy))
                        guard u != 0, u <= Float(limit), abs(u - v) < a + g * min(u, v) else { continue }
                        pc[j] = id
                        stack.append(Int32(j))
                    }
                }
            }
            pieces.append(p)
        }
    }

    /// Per piece: its pixels' 8-neighbours that are kept (the subject in
    /// `labels`, at their depth in `out`) within `contact` of their depth.
    mutating func measureContacts(_ d: Depth16View, _ out: UnsafePointer<UInt16>, _ labels: UnsafePointer<UInt8>,
                                  _ pc: UnsafeMutablePointer<Int32>, scale: Float) {
        let w = d.width, h = d.height
        let a = contact.base / scale, g = contact.gain, subject = DepthLabel.subject.rawValue
        for k in pieces.indices { pieces[k].contacts = 0; pieces[k].contactSum = 0; pieces[k].beside = 0 }
        for y in 0..<h {
            // (pixels of no piece passed over: `nextNear` finds the next id >= 0)
            var next = SubjectSegmentation.nextNear(pc + y * w, 0, w)
            while next < w {
                let x = next
                next = SubjectSegmentation.nextNear(pc + y * w, x + 1, w)
                let id = Int(pc[y * w + x])
                guard id >= 0, !pieces[id].restore else { continue }
                let v = Float(d.at(x, y))
                if Self.keptBeside(labels, row: y * w, x: x, w: w, gap: besideGap) { pieces[id].beside += 1 }
                var touching: Float = 0
                for dy in -1...1 where y + dy >= 0 && y + dy < h && touching == 0 {
                    for dx in -1...1 where x + dx >= 0 && x + dx < w {
                        let j = (y + dy) * w + x + dx, u = out[j]
                        if labels[j] == subject && abs(Float(u) - v) < a + g * min(Float(u), v) {
                            touching = Float(u)
                            break
                        }
                    }
                }
                if touching > 0 { pieces[id].contacts += 1; pieces[id].contactSum += touching }
            }
        }
    }

    /// Whether a kept pixel (the subject in `labels`) lies within `gap`
    /// columns left or right of (x, row) in that row.
    @inline(__always)
    static func keptBeside(_ labels: UnsafePointer<UInt8>, row: Int, x: Int, w: Int, gap: Int) -> Bool {
        for i in max(x - gap, 0)...min(x + gap, w - 1) where i != x && labels[row + i] == DepthLabel.subject.rawValue {
            return true
        }
        return false
    }

    /// Marks the pieces to put back this round; returns how many.
    mutating func decide(seed: Seed, scale: Float) -> Int {
        var newly = 0
        for k in pieces.indices where !pieces[k].restore && Self.isPersons(pieces[k], seed, self, scale) {
            pieces[k].restore = true
            newly += 1
        }
        return newly
    }

    /// Whether a piece is the body under the seed: its columns cover the
    /// seed's, and it starts below the seed's middle.
    static func isUnderSeed(_ p: Piece, _ seed: Seed) -> Bool {
        p.minX <= seed.minX && p.maxX >= seed.maxX && p.minY >= seed.midY
    }

    /// Whether a piece is the body under the seed at arm's length
    /// (`bodyWidth`): it touches what is kept, and it and the seed lie
    /// where the picture is narrower than a body.
    static func isBodyAtArmsLength(_ p: Piece, _ seed: Seed) -> Bool {
        p.contacts > 0 && p.meanDepth < seed.armsLength && seed.depth < seed.armsLength && isUnderSeed(p, seed)
    }

    /// Whether a piece is not clearly something else (see the type's rules).
    /// A piece reaching the left or right side comes back only when it is
    /// the body under the seed (`isUnderSeed`: a close subject's shoulders
    /// and chest cut by both sides; not a pillar, a branch or a sofa reaching
    /// in from a side).
    static func isPersons(_ p: Piece, _ seed: Seed, _ s: SubjectRestore, _ scale: Float) -> Bool {
        if p.top { return false }
        if isBodyAtArmsLength(p, seed) { return true }
        if Float(p.floor) >= s.floorShare * Float(p.area) { return false }
        if isLimb(p, seed, s, scale) { return true }
        if p.contacts == 0 {
            // apart in the picture: a hand or an object held in front of the
            // subject (other people are the lock's movers, seeds already)
            return !(p.left || p.right || p.bottom) && p.area >= s.minApartArea && p.meanDepth < seed.depth
                && p.meanDepth >= seed.depth - s.reach / scale
        }
        // behind what it touches (a chair back behind the shoulders; a torso
        // under the chin, a head in profile above the near shoulder are not)
        let at = p.contactSum / Float(p.contacts)
        if p.meanDepth > at + s.behind.base / scale + s.behind.gain * at { return false }
        // or behind the seed itself (what it touches may be a kept piece of it)
        if p.meanDepth > seed.depth + s.behindSeed.base / scale + s.behindSeed.gain * seed.depth { return false }
        if p.left || p.right {
            // the body under the seed, and not in front of the seed (a desk
            // edge across the picture in front of the subject is; a torso
            // under the chin is not)
            return isUnderSeed(p, seed) && p.meanDepth >= seed.depth - s.behind.base / scale
        }
        return true
    }

    /// A limb leaving the picture at the bottom beside the kept body: it
    /// reaches the bottom and neither side; it hangs from something, not
    /// from the background (at most half its width has a reading beyond
    /// the cutoff straight above it: a chair back's top edge has the wall
    /// above it); a tenth of its pixels lie beside kept ones in their rows
    /// (across the silhouette's shadow band, at any depth step); and it lies
    /// between arm's reach in front of the seed and `limbBehind` behind it.
    /// The far arm of a person in profile steps 10-20 cm back from the
    /// torso's edge and would otherwise read as behind the subject.
    static func isLimb(_ p: Piece, _ seed: Seed, _ s: SubjectRestore, _ scale: Float) -> Bool {
        guard p.bottom, !(p.left || p.right), p.area >= s.minApartArea, 10 * p.beside >= p.area,
              2 * p.openAbove <= p.maxX - p.minX + 1 else { return false }
        let behind = s.limbBehind.base / scale + s.limbBehind.gain * seed.depth
        return p.meanDepth <= seed.depth + behind && p.meanDepth >= seed.depth - s.reach / scale
    }

    /// Every restored piece is the subject in `labels`, with its original
    /// depth in `out`.
    static func write(_ d: Depth16View, _ out: UnsafeMutablePointer<UInt16>, _ labels: UnsafeMutablePointer<UInt8>,
                      _ pc: UnsafePointer<Int32>, _ pieces: [Piece]) -> Int {
        var count = 0
        let w = d.width
        for i in 0..<(w * d.height) {
            let id = Int(pc[i])
            if id >= 0 && pieces[id].restore && labels[i] == SubjectSegmentation.leftOut {
                out[i] = d.at(i % w, i / w)
                labels[i] = DepthLabel.subject.rawValue
                count += 1
            }
        }
        return count
    }
}

