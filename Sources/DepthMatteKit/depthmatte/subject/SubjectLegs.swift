// SPDX-License-Identifier: LGPL-2.1-or-later
/// The subject's legs beyond the cutoff: a camera above head height looking
/// down at a standing or walking person (a Kinect on a shelf, a camera on a
/// monitor) sees the feet farther than the chest, 0.2-0.6 m behind the torso
/// on the real recordings, so the cutoff (the subject's depth plus its
/// offset) cuts the person at the waist or the knees.
///
/// After `SubjectSegmentation` and `SubjectRestore` have kept the subject,
/// this grows it past the cutoff along the depth, from every kept pixel
/// downwards (the legs hang below the body), and sideways from what it has
/// grown (a stride is wider than the hips), one reading at a time, while
///
///  - the depth is continuous: neighbours differ by less than `step`;
///  - the surface is not floor: its depth does not fall steeply downwards
///    (the least-squares slope over ±t rows, as `SubjectSegmentation`'s floor
///    test); a leg's depth grows downwards, the floor's falls, so the growth
///    stops where the feet stand;
///  - it stands out of what lies behind it (`standOut`): a leg has the
///    floor or the room behind it on both sides in its row; a sofa or a
///    filtered map's ramp beside the body does not;
///  - it stays within `behind` of the cutoff, below the top `startShare` of
///    the kept body and within `margin` of its columns (a stride is no wider
///    than the shoulders plus a quarter).
///
/// A grown reading is labelled the subject in the decision. A subject seen from the front at its own height gains nothing:
/// what lies below its kept body is the floor or a step away.
struct SubjectLegs {
    var enabled = true
    /// Neighbours on one leg differ by less than this.
    var step = DepthStep(base: 0.03, gain: 0.03)
    /// Metres past the cutoff the growth may reach.
    var behind: Float = 0.8
    /// The growth starts below this share of the kept body's height.
    var startShare: Float = 0.3
    /// Share of the kept body's width the growth may reach beyond it on either side.
    var margin: Float = 0.25
    /// A leg stands out of what is behind it: in its row, within
    /// `standOutReach` of the kept body's width, something lies this much
    /// deeper on either side (the floor behind a leg, left and right of it;
    /// a sofa or a wall beside the body has nothing behind it on one side at
    /// least).
    var standOut = DepthStep.surfaceJump
    /// Share of the kept body's width within which `standOut` looks on each
    /// side. A whole width: from the middle of the hips, where the legs
    /// start, half a width reached only the hands hanging beside them, and a
    /// man walking away 4 m from a Kinect on a shelf kept no leg at all
    /// (`Benchmarks/rgbd-bench`, piv_lab_walk_and_seated).
    var standOutReach: Float = 1

    /// Pixels grown on the last frame.
    private(set) var grownCount = 0
    private var queue: [Int32] = []
    private var grown: [UInt8] = []
    /// The original depth, row after row.
    private var depth: [UInt16] = []

    init() {}

    /// Grow the kept subject of `labels` (the segmentation's decision on
    /// `original`: `DepthLabel`s and `SubjectSegmentation.leftOut`) past
    /// `limit` (the cutoff in depth units), each connected body of kept
    /// pixels from its own box (the subject and the people who moved into
    /// view with it: one box around them all put a walking man's legs
    /// above the growth's first row when a seated person's chair was kept
    /// at the bottom of the picture). Returns the pixels grown.
    @discardableResult
    mutating func apply(original: Depth16View, labels: UnsafeMutablePointer<UInt8>, limit: UInt32, scale: Float,
                               camera: CameraGeometry = CameraGeometry()) -> Int {
        grownCount = 0
        let w = original.width, h = original.height, n = w * h
        guard enabled, n > 0, limit > 0, limit < 65535, h > 8 else { return 0 }
        if grown.count < n {
            grown = [UInt8](repeating: 0, count: n); depth = [UInt16](repeating: 0, count: n)
            // a body, then its frontier and what grows from it: at most twice the picture
            queue.reserveCapacity(2 * n)
        }
        depth.withUnsafeMutableBufferPointer { dp in
            for y in 0..<h {
                let row = original.base + y * original.stride, o = dp.baseAddress! + y * w
                var x = 0
                while x &+ 8 <= w { UnsafeMutableRawPointer(o + x).storeBytes(of: original.eight(x, y), as: SIMD8<UInt16>.self); x &+= 8 }
                for x in x..<w { o[x] = UInt16(littleEndian: row.loadUnaligned(fromByteOffset: 2 * x, as: UInt16.self)) }
            }
        }
        let geometry = Geometry(w: w, h: h, limit: limit, scale: scale, camera: camera, legs: self)
        // a body smaller than this is a speck the hold or the restore kept, not a person
        let minBody = max(16, n / 500)
        var count = 0
        grown.withUnsafeMutableBufferPointer { gp in
        depth.withUnsafeBufferPointer { dp in
            let g = gp.baseAddress!, d = dp.baseAddress!
            g.update(repeating: 0, count: n)
            // g: 2 = kept, gathered into a body; 1 = grown
            // (most of the picture is not kept: eight labels at a time
            // are passed over when none is the subject)
            let raw = UnsafeRawPointer(labels)
            var start = 0
            while start < n {
                if start &+ 8 <= n && bytesEqual(raw.loadUnaligned(fromByteOffset: start, as: UInt64.self),
                                                 DepthLabel.subject.rawValue) == 0 {
                    start &+= 8; continue
                }
                defer { start &+= 1 }
                if g[start] != 0 || !Self.kept(labels[start]) { continue }
                let box = Self.gatherBody(from: start, into: &queue, labels: labels, g: g, geometry.rows, n: n)
                guard queue.count >= minBody else { continue }
                count += Self.grow(body: box, queue: &queue, d: d, labels: labels, g: g, geometry)
            }
        }}
        grownCount = count
        return count
    }

    /// Whether a label is the subject's.
    @inline(__always) static func kept(_ label: UInt8) -> Bool { label == DepthLabel.subject.rawValue }

    /// Whether a label is a reading that is not the subject's (background,
    /// or left out): what the growth may take.
    @inline(__always) static func notKept(_ label: UInt8) -> Bool {
        label != DepthLabel.subject.rawValue && label != DepthLabel.unknown.rawValue
    }

    /// What the growth of every body shares: the picture, the limits and the conditions' constants.
    private struct Geometry {
        let w: Int, h: Int, n: Int, limit: UInt32
        let rows: RowIndex
        let maxD: Float, s: Int, t: Int, slopeK: Float, margin: Float, startShare: Float, reach: Float
        let stepA: Float, stepB: Float, jumpA: Float, jumpB: Float
        init(w: Int, h: Int, limit: UInt32, scale: Float, camera: CameraGeometry, legs: SubjectLegs) {
            self.w = w; self.h = h; n = w * h; self.limit = limit
            rows = RowIndex(width: w)
            maxD = Float(limit) + legs.behind / scale
            margin = legs.margin; startShare = legs.startShare; reach = legs.standOutReach
            let floor = camera.floorTest(w, h)
            s = floor.s; t = floor.t; slopeK = floor.slopeK
            stepA = legs.step.base / scale; stepB = legs.step.gain
            jumpA = legs.standOut.base / scale; jumpB = legs.standOut.gain
        }
    }

    /// Gathers the kept pixels 4-connected to `start` into `queue` (marked 2
    /// in `g`) and returns their bounding box.
    private static func gatherBody(from start: Int, into queue: inout [Int32], labels: UnsafePointer<UInt8>,
                                   g: UnsafeMutablePointer<UInt8>, _ rows: RowIndex, n: Int) -> (x0: Int, x1: Int, y0: Int, y1: Int) {
        queue.removeAll(keepingCapacity: true)
        let w = rows.w
        queue.append(Int32(start)); g[start] = 2
        var x0 = w, x1 = -1, y0 = Int.max, y1 = -1
        var head = 0
        @inline(__always) func take(_ j: Int) {
            if g[j] == 0 && Self.kept(labels[j]) { g[j] = 2; queue.append(Int32(j)) }
        }
        while head < queue.count {
            let i = Int(queue[head]); head += 1
            let (y, x) = rows.split(i)
            x0 = min(x0, x); x1 = max(x1, x); y0 = min(y0, y); y1 = max(y1, y)
            if x > 0 { take(i - 1) }
            if x + 1 < w { take(i + 1) }
            if i >= w { take(i - w) }
            if i + w < n { take(i + w) }
        }
        return (x0, x1, y0, y1)
    }

    /// Grows one body (its pixels in `queue`, its box `box`) past the
    /// limit; returns the pixels grown.
    private static func grow(body box: (x0: Int, x1: Int, y0: Int, y1: Int), queue: inout [Int32], d: UnsafePointer<UInt16>,
                               labels: UnsafeMutablePointer<UInt8>, g: UnsafeMutablePointer<UInt8>, _ c: Geometry) -> Int {
        let w = c.w, n = c.n, limit = c.limit
        let bw = box.x1 - box.x0 + 1
        let x0 = max(0, box.x0 - Int(c.margin * Float(bw))), x1 = min(w - 1, box.x1 + Int(c.margin * Float(bw)))
        let y0 = box.y0 + Int(c.startShare * Float(box.y1 - box.y0 + 1))
        let reach = max(2, Int(c.reach * Float(bw)))
        // the frontier: the body's pixels in the growth's rows
        let bodyEnd = queue.count
        let firstGrown = Int32(clamping: y0 * w)   // (a pixel's row is >= y0 from this index on)
        for q in 0..<bodyEnd where queue[q] >= firstGrown { queue.append(queue[q]) }
        var head = bodyEnd, count = 0
        while head < queue.count {
            let i = Int(queue[head]); head += 1
            let di = Float(d[i])
            @inline(__always) func visit(_ j: Int) {
                let dj = d[j]
                guard g[j] == 0, UInt32(dj) > limit, Float(dj) <= c.maxD, Self.notKept(labels[j]),
                      abs(Float(dj) - di) < c.stepA + c.stepB * min(Float(dj), di),
                      Self.standsOut(d, j, c.rows, reach: reach, by: c.jumpA + c.jumpB * Float(dj)),
                      !Self.floorLike(d, j, c.rows, c.h, t: c.t, s: c.s, slopeK: c.slopeK, stepA: c.stepA, stepB: c.stepB)
                else { return }
                g[j] = 1
                labels[j] = DepthLabel.subject.rawValue
                count += 1
                queue.append(Int32(j))
            }
            if i + w < n { visit(i + w) }
            // (sideways only within the legs: a body's side touches
            // the sofa or the wall it stands beside)
            if g[i] == 1 {
                let x = c.rows.column(i)
                if x > x0 { visit(i - 1) }
                if x < x1 { visit(i + 1) }
            }
        }
        return count
    }

    /// Whether a reading `jump` deeper than the one at `i` lies within
    /// `reach` columns on its left and one on its right (holes skipped).
    @inline(__always)
    static func standsOut(_ d: UnsafePointer<UInt16>, _ i: Int, _ rows: RowIndex, reach: Int, by jump: Float) -> Bool {
        let w = rows.w, x = rows.column(i), row = d + (i - x), v = Float(d[i]) + jump
        var left = false, right = false
        for k in 1...reach {
            if !left && x - k >= 0 && Float(row[x - k]) >= v { left = true }
            if !right && x + k < w && Float(row[x + k]) >= v { right = true }
            if left && right { return true }
        }
        return false
    }

    /// Whether the reading at `i` lies on a surface that recedes upwards
    /// steeply and smoothly: its depth, fitted over rows ±t, falls by at
    /// least `slopeK` · d over 2s rows downwards (`SubjectSegmentation`'s
    /// floor test, on the original depth).
    @inline(__always)
    static func floorLike(_ d: UnsafePointer<UInt16>, _ i: Int, _ rows: RowIndex, _ h: Int, t: Int, s: Int, slopeK: Float,
                          stepA: Float, stepB: Float) -> Bool {
        let w = rows.w, (y, x) = rows.split(i)
        let c = min(max(y, t), h - t - 1) * w + x
        return SubjectSegmentation.recedesUpwards(d, c, w, t: t, s: s, slopeK: slopeK) { a, b in
            abs(Float(a) - Float(b)) < 2 * (stepA + stepB * Float(min(a, b)))
        }
    }
}
