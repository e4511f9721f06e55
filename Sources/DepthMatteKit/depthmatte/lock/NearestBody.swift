// SPDX-License-Identifier: LGPL-2.1-or-later
import DMKernels
/// Finding bodies in a depth map alone: the depth is sampled down to at most
/// `maxWidth` columns, split into connected surfaces (4-neighbours whose
/// depths differ by less than a jump threshold that grows with distance),
/// and each surface is described by its size, its extent and the depth of
/// its top band (where a person's head is). The same analysis serves the
/// depth-only subject finder (`NearestBodyFinder`) and the tracker that
/// follows the subject while no face is seen (`SubjectLock`).
///
/// Everything works at the reduced size (about 160 x 90 for 16:9 depth), in
/// arrays kept between frames: no allocation once the sizes are stable.

/// A depth difference that grows with distance: `base + gain · d` metres at
/// depth `d` metres (sensor noise and sampling grow with distance).
struct DepthStep: Equatable, Sendable {
    /// Metres.
    var base: Float
    /// Metres per metre of depth.
    var gain: Float
    init(base: Float, gain: Float) { self.base = base; self.gain = gain }

    @inline(__always) func at(_ d: Float) -> Float { base + gain * d }

    /// The jump that separates two surfaces (4 cm plus 4 %: 8 cm at 1 m): the
    /// nearest-body finder's and the subject lock's, and the step at which
    /// the subject segmentation joins a surface to the subject.
    static var surfaceJump: DepthStep { DepthStep(base: 0.04, gain: 0.04) }
}

/// Connected surfaces of one depth frame.
@_spi(Bench) public struct DepthComponents {
    /// Size of the reduced grid and the depth pixels per grid cell.
    @_spi(Bench) public private(set) var width = 0
    @_spi(Bench) public private(set) var height = 0
    private(set) var step = 1
    /// Number of surfaces found.
    @_spi(Bench) public private(set) var count = 0

    /// Metres per grid cell, 0 = no reading.
    private(set) var depth: [Float] = []
    /// Surface index per grid cell, -1 = no reading.
    private(set) var labels: [Int32] = []

    // per surface
    private(set) var area: [Int32] = []
    @_spi(Bench) public private(set) var minRow: [Int32] = []
    @_spi(Bench) public private(set) var maxRow: [Int32] = []
    /// Per surface: bit 0 touches the left column, bit 1 the right column.
    private(set) var sideTouch: [UInt8] = []
    /// Per surface: leftmost and rightmost column.
    @_spi(Bench) public private(set) var minCol: [Int32] = [], maxCol: [Int32] = []
    /// Per surface: cells in the top row.
    private(set) var topRowCells: [Int32] = []
    var depthSum: [Float] = []
    var topSum: [Float] = [], topCount: [Int32] = []
    var bottomSum: [Float] = [], bottomCount: [Int32] = []
    var midSum: [Float] = [], midCount: [Int32] = []
    var scratch: [Int32] = []
    var topEnd: [Int32] = [], bottomStart: [Int32] = []
    private var parent: [Int32] = []
    /// `label`'s scratch: one row of "joined its left neighbour" flags.
    private var leftLinks: [Bool] = []
    /// One row's `joinable` tests (`rowJoins`): with the left neighbour, then with the one above.
    private var rowJoinBytes: [UInt8] = []
    /// Per cell: 1 = floor-like (see `markFloorLike`).
    private(set) var floorLike: [UInt8] = []
    /// `markFloorLike` runs `DMKernels`' AVX2 kernel where the CPU has AVX2
    /// (false: the Swift loop alone; the same bits).
    var avx2 = kernelsHaveAVX2
    /// The camera the floor tests assume (set by the lock from the plan).
    var camera = CameraGeometry()

    /// Depth jump (metres) that separates two surfaces between neighbouring
    /// cells at depth `d` (`DepthStep.surfaceJump`).
    @inline(__always) static func jump(_ d: Float) -> Float { DepthStep.surfaceJump.at(d) }

    /// Fraction of a surface's rows (from its top, and from its bottom) that
    /// makes its top band (the head of a person) and its bottom band.
    static let bandFraction: Float = 0.2
    /// A strip of cells without a reading along a side of the grid, up to
    /// this share of its width, lies outside the picture for `sideTouch`
    /// (as `SubjectSegmentation.edgeStrip`): a registered depth
    /// map's band the depth camera does not see. Read as picture, a door
    /// jamb beside a 6-pixel band on a 240-wide map does not touch the side
    /// and is taken for the subject (IoU 0.40 / 0.00 in mode face / nearest,
    /// 0.99 with the band outside; quality-bench QB_EDGEHOLES=-6).
    static let edgeStrip: Float = 0.25

    /// The first and the last column of a row `width` wide that holds a
    /// `reading`, when no more than `strip` columns of holes lie between it
    /// and its side of the picture; that side itself (0, width - 1) when more
    /// do: a picture's sides as the depth sees them (`edgeStrip`).
    @inline(__always) static func sideReadings(width w: Int, strip: Int, _ reading: (Int) -> Bool) -> (first: Int, last: Int) {
        var first = 0, last = w - 1
        while first < w - 1 && first < strip && !reading(first) { first += 1 }
        while last > 0 && last > w - 1 - strip && !reading(last) { last -= 1 }
        return (reading(first) ? first : 0, reading(last) ? last : w - 1)
    }

    @_spi(Bench) public init() {}

    /// Analyse one depth frame. `scale` is metres per depth unit.
    @_spi(Bench) public mutating func analyse(depth d: Depth16View, scale: Double, maxWidth: Int = 160) {
        guard d.width > 0, d.height > 0 else { width = 0; height = 0; count = 0; return }
        let s = max(1, (d.width + maxWidth - 1) / maxWidth)
        step = s
        let w = d.width / s, h = max(1, d.height / s)
        width = max(1, w); height = h
        let n = width * height
        if depth.count < n {
            depth = [Float](repeating: 0, count: n)
            labels = [Int32](repeating: -1, count: n)
            parent = [Int32](repeating: 0, count: n)
        }
        let fscale = Float(scale)
        // sample: the centre of each cell, or the first valid reading in it
        depth.withUnsafeMutableBufferPointer { dp in
            for y in 0..<height {
                let centre = d.base + min(y * s + s / 2, d.height - 1) * d.stride, out = dp.baseAddress! + y * width
                for x in 0..<width {
                    let cx = min(x &* s &+ s / 2, d.width - 1)
                    var v = UInt16(littleEndian: centre.loadUnaligned(fromByteOffset: 2 &* cx, as: UInt16.self))
                    if v == 0 && s > 1 {
                        search: for yy in (y * s)..<min(y * s + s, d.height) {
                            for xx in (x * s)..<min(x * s + s, d.width) {
                                let u = d.at(xx, yy)
                                if u != 0 { v = u; break search }
                            }
                        }
                    }
                    out[x] = Float(v) * fscale
                }
            }
        }
        label()
        stats()
    }

    /// Cells on a surface that recedes upwards steeply and smoothly (a floor,
    /// a table top, the top of a head): the least-squares depth slope over
    /// the rows y ± 3 (cells without a reading skipped, at least four
    /// readings) loses at least `floorSlope` / focal length (`focal`) x d
    /// per row downwards, and no two successive readings there differ by
    /// `jump` (the two samples y ± 1 alone failed in patches on
    /// a far sensor's quantised, noisy floor, which then broke into a mosaic
    /// of surfaces, one of which the finder took for a person in an empty
    /// room; over y ± 2 a 4:3 Kinect-like view 3.5 m away still did). Rows
    /// the window cannot centre on take the test of the nearest row it can;
    /// the top row is never floor-like. A floor-like cell never joins a cell
    /// that is not: a floor meeting the feet, or a torso's sides
    /// at the bottom of a portrait, in depth stays a surface of its own (and
    /// is then floor-like as a whole).
    private mutating func markFloorLike() {
        let w = width, h = height, n = w * h
        if floorLike.count < n { floorLike = [UInt8](repeating: 0, count: n) }
        // per row downwards, over 4 rows; tan 35° with a 70° camera
        let k = camera.floorDrop(overRows: 4, w, h)
        let t = 3
        depth.withUnsafeBufferPointer { dp in
            floorLike.withUnsafeMutableBufferPointer { fp in
                let d = dp.baseAddress!, f = fp.baseAddress!
                for i in 0..<n { f[i] = 0 }
                if h < 2 * t + 1 { return }
                // (DMKernels: eight cells at a time, the same bits; the
                // loop below does the rest of each row)
                let done = avx2 ? w & ~7 : 0
                if done > 0 {
                    dm_floor_like_avx2(d, f, Int32(w), Int32(h), Int32(t), k,
                                       DepthStep.surfaceJump.base, DepthStep.surfaceJump.gain)
                }
                for y in t..<(h - t) {
                    for x in done..<w {
                        let c = y * w + x
                        let v = d[c]
                        if v <= 0 { continue }
                        var m: Float = 0, sk: Float = 0, skk: Float = 0, sd: Float = 0, skd: Float = 0
                        var prev: Float = 0, smooth = true
                        for j in -t...t {
                            let a = d[c + j * w]
                            if a <= 0 { continue }
                            if prev > 0 && abs(a - prev) >= Self.jump(min(a, prev)) { smooth = false; break }
                            prev = a
                            let fj = Float(j)
                            m += 1; sk += fj; skk += fj * fj; sd += a; skd += fj * a
                        }
                        let den = m * skk - sk * sk
                        // depth lost per row downwards, x 4 rows: 4 (sk sd − m skd) / den
                        if smooth && m > Float(t) && den > 0 && 4 * (sk * sd - m * skd) >= k * v * den { f[c] = 1 }
                    }
                }
                for y in 1..<t { for x in 0..<w where d[y * w + x] > 0 { f[y * w + x] = f[t * w + x] } }
                for y in (h - t)..<h { for x in 0..<w where d[y * w + x] > 0 { f[y * w + x] = f[(h - t - 1) * w + x] } }
            }
        }
    }

    /// Whether the neighbours p and p + k lie in the middle of a smoothed
    /// step: a filtered map (an iPhone's, an SDK's hole filling)
    /// spreads the step between a door jamb and the shoulder beside it over
    /// a few cells, none of them a `jump` from the next, and the jamb, whose
    /// top is the top row, became the subject's surface (its head band the
    /// jamb's). The depth changes by a `jump` or more over p - k ... p + 2k,
    /// the pair is at least as steep as that span's mean, and beyond at
    /// least one end of the span the depth is flatter (changes by less than
    /// half as much over the next two cells: not a surface that keeps
    /// receding, as a floor or a wall seen at a grazing angle). The caller
    /// makes sure the cells p - 3k ... p + 4k exist; one without a reading
    /// makes it false.
    @inline(__always)
    static func rampMiddle(_ d: UnsafePointer<Float>, _ p: Int, _ k: Int) -> Bool {
        let a = d[p - k], b = d[p + 2 * k]
        guard a > 0, b > 0 else { return false }
        let span = abs(b - a)
        guard span >= jump(min(a, b)), 3 * abs(d[p + k] - d[p]) >= span else { return false }
        let a2 = d[p - 3 * k], b2 = d[p + 4 * k]
        guard a2 > 0, b2 > 0 else { return false }
        return 2 * min(abs(a - a2), abs(b2 - b)) < span
    }

    /// Whether the grid has room for `rampMiddle` around cell (px, py) and
    /// its neighbour along k (1: right, else below): the cells p - 3k ...
    /// p + 4k exist.
    @inline(__always)
    static func rampRoom(_ px: Int, _ py: Int, _ k: Int, _ w: Int, _ h: Int) -> Bool {
        k == 1 ? px >= 3 && px + 4 < w : py >= 3 && py + 4 < h
    }

    /// Whether cell p and its neighbour p + k (k = 1: right, k = width:
    /// below) join one surface: both have readings closer than `jump`, both
    /// are floor-like or neither, and (when the grid has room for the test,
    /// `rampRoom`) they are not in the middle of a smoothed step.
    @inline(__always)
    static func joinable(_ d: UnsafePointer<Float>, _ fl: UnsafePointer<UInt8>, _ p: Int, _ k: Int, rampRoom: Bool) -> Bool {
        let a = d[p], b = d[p + k]
        return a > 0 && b > 0 && abs(a - b) < jump(min(a, b)) && fl[p] == fl[p + k] && !(rampRoom && rampMiddle(d, p, k))
    }

    /// Whether 4-neighbouring cells i and j join one surface (`label`'s
    /// rule, for tests and tools).
    func joins(_ i: Int, _ j: Int) -> Bool {
        let n = width * height
        guard i >= 0, j >= 0, i < n, j < n, i != j else { return false }
        let p = min(i, j), q = max(i, j), k = q - p
        let x = p % width, y = p / width
        guard k == width || (k == 1 && x + 1 < width) else { return false }
        let room = Self.rampRoom(x, y, k, width, height)
        return depth.withUnsafeBufferPointer { dp in
            floorLike.withUnsafeBufferPointer { fp in
                Self.joinable(dp.baseAddress!, fp.baseAddress!, p, k, rampRoom: room)
            }
        }
    }

    /// Row y's `joinable` tests as bytes (1 joins): `into[x]` cell x with
    /// its left neighbour, `into[w + x]` with the one above (0 where there
    /// is none). Eight cells at a time where every one has the same ramp
    /// room: the tests up to `rampMiddle`'s first (the same float
    /// operations lane by lane), and `rampMiddle` itself only for a lane
    /// that passes them all.
    private static func rowJoins(_ d: UnsafePointer<Float>, _ fl: UnsafePointer<UInt8>, y: Int, width w: Int, height h: Int,
                                 into joins: UnsafeMutablePointer<UInt8>) {
        let i0 = y * w
        @inline(__always) func one(_ x: Int, _ k: Int) -> UInt8 {
            let i = i0 + x
            if k == 1 { return x > 0 && joinable(d, fl, i - 1, 1, rampRoom: rampRoom(x - 1, y, 1, w, h)) ? 1 : 0 }
            return y > 0 && joinable(d, fl, i - w, w, rampRoom: rampRoom(x, y - 1, w, w, h)) ? 1 : 0
        }
        let base = SIMD8<Float>(repeating: DepthStep.surfaceJump.base), gain = SIMD8<Float>(repeating: DepthStep.surfaceJump.gain)
        let zero = SIMD8<Float>(repeating: 0), ones = SIMD8<Int32>(repeating: 1), none = SIMD8<Int32>(repeating: 0)
        @inline(__always) func load(_ q: Int) -> SIMD8<Float> { UnsafeRawPointer(d + q).loadUnaligned(as: SIMD8<Float>.self) }
        @inline(__always) func magnitude(_ v: SIMD8<Float>) -> SIMD8<Float> {
            unsafeBitCast(unsafeBitCast(v, to: SIMD8<UInt32>.self) & 0x7fff_ffff, to: SIMD8<Float>.self)
        }
        @inline(__always) func lesser(_ a: SIMD8<Float>, _ b: SIMD8<Float>) -> SIMD8<Float> { a.replacing(with: b, where: b .< a) }
        /// `joinable` for the pairs (p, p + k), p = p0 ..< p0 + 8, as bytes.
        @inline(__always) func eight(_ p0: Int, _ k: Int, room: Bool) -> UInt64 {
            let a = load(p0), b = load(p0 + k)
            let close = (a .> zero) .& (b .> zero) .& (magnitude(a - b) .< base + gain * lesser(a, b))
            let flA = UInt64(littleEndian: UnsafeRawPointer(fl + p0).loadUnaligned(as: UInt64.self))
            let flB = UInt64(littleEndian: UnsafeRawPointer(fl + p0 + k).loadUnaligned(as: UInt64.self))
            let cheap = none.replacing(with: ones, where: close).lowBytes & (bytesEqual(flA ^ flB, 0) &>> 7)
            guard room else { return cheap }
            let a1 = load(p0 - k), b2 = load(p0 + 2 * k), span = magnitude(b2 - a1)
            let first = (a1 .> zero) .& (b2 .> zero) .& (span .>= base + gain * lesser(a1, b2)) .& (3 * magnitude(b - a) .>= span)
            let maybe = cheap & none.replacing(with: ones, where: first).lowBytes
            if maybe == 0 { return cheap }
            var bytes = cheap
            for lane in 0..<8 where (maybe &>> UInt64(8 * lane)) & 1 != 0 && rampMiddle(d, p0 + lane, k) {
                bytes &= ~(UInt64(1) &<< UInt64(8 * lane))
            }
            return bytes
        }
        // with the left neighbour: p = i - 1 has room when 3 <= x - 1 and x + 3 < w
        var x = 0
        while x < w {
            if x >= 4 && x + 10 < w {
                UnsafeMutableRawPointer(joins + x).storeBytes(of: UInt64(littleEndian: eight(i0 + x - 1, 1, room: true)), as: UInt64.self)
                x += 8
            } else {
                joins[x] = one(x, 1); x += 1
            }
        }
        // with the one above: room when 3 <= y - 1 and y + 3 < h, the same for the whole row
        let up = joins + w
        x = 0
        if y > 0 {
            let room = y - 1 >= 3 && y + 3 < h
            while x + 8 <= w {
                UnsafeMutableRawPointer(up + x).storeBytes(of: UInt64(littleEndian: eight(i0 + x - w, w, room: room)), as: UInt64.self)
                x += 8
            }
        }
        while x < w { up[x] = one(x, w); x += 1 }
    }

    /// Union-find over the grid (4-neighbours closer than `jump` in depth,
    /// both floor-like or both not, and not in the middle of a smoothed step:
    /// `rampMiddle`), then labels compacted to 0, 1, 2, ... in scan order.
    private mutating func label() {
        markFloorLike()
        let w = width, h = height, n = w * h
        if leftLinks.count < w { leftLinks = [Bool](repeating: false, count: w) }
        if rowJoinBytes.count < 2 * w + 8 { rowJoinBytes = [UInt8](repeating: 0, count: 2 * w + 8) }
        var c: Int32 = 0
        depth.withUnsafeBufferPointer { dp in
            parent.withUnsafeMutableBufferPointer { pp in
                labels.withUnsafeMutableBufferPointer { lp in
                leftLinks.withUnsafeMutableBufferPointer { lk in
                floorLike.withUnsafeBufferPointer { fp in
                rowJoinBytes.withUnsafeMutableBufferPointer { jp in
                    let d = dp.baseAddress!, p = pp.baseAddress!, lab = lp.baseAddress!, left = lk.baseAddress!
                    let fl = fp.baseAddress!, joins = jp.baseAddress!
                    let sets = UnionFind(parent: p)
                    for i in 0..<n { p[i] = Int32(truncatingIfNeeded: i) }
                    // left[x]: pixel x of the row above joined its left
                    // neighbour (overwritten as this row goes). Two shortcuts, which leave
                    // the same sets (and every root is still its set's
                    // smallest index, so the labels are the same):
                    // - pixel i is untouched until its turn, so joining it to
                    //   its left neighbour is p[i] = root of i - 1;
                    // - if i joined i - 1, i - 1 joined the pixel above it and
                    //   the pixel above i joined its left neighbour, i and the
                    //   pixel above are already one set.
                    for x in 0..<w { left[x] = false }
                    for y in 0..<h {
                        Self.rowJoins(d, fl, y: y, width: w, height: h, into: joins)
                        var prevUp = false  // up[x - 1] of this row
                        for x in 0..<w {
                            let i = y * w + x
                            let aboveLeft = left[x]  // of the row above, before this row overwrites it
                            var l = false, u = false
                            let v = d[i]
                            if v > 0 {
                                if joins[x] != 0 {
                                    p[i] = sets.find(Int32(truncatingIfNeeded: i - 1)); l = true
                                }
                                if joins[w + x] != 0 {
                                    u = true
                                    if !(l && prevUp && aboveLeft) { sets.union(Int32(truncatingIfNeeded: i), Int32(truncatingIfNeeded: i - w)) }
                                }
                            }
                            prevUp = u
                            left[x] = l
                        }
                    }
                    for i in 0..<n {
                        if d[i] <= 0 { lab[i] = -1; continue }
                        let i32 = Int32(truncatingIfNeeded: i)
                        let r = sets.find(i32)
                        if r == i32 { lab[i] = c; c &+= 1 } else { lab[i] = lab[Int(r)] }
                    }
                }
                }
                }
                }
            }
        }
        count = Int(c)
    }

    /// `body(label, row, metres)` for every run of grid cells of one
    /// surface along a row, row by row (`metres`: the run's depths in scan
    /// order). A body sums a run in a register, in the cells' order: the
    /// same sums as cell by cell, without a store and a load per cell on
    /// the surface's entry (raw pointers: array subscripts on `self`
    /// inside the loop cost a uniqueness check each).
    @inline(__always)
    private static func forEachRun(_ labels: [Int32], _ depth: [Float], width w: Int, height h: Int,
                                   _ body: (_ label: Int, _ row: Int32, _ metres: UnsafeBufferPointer<Float>) -> Void) {
        labels.withUnsafeBufferPointer { lp in
            depth.withUnsafeBufferPointer { dp in
                for y in 0..<h {
                    let yy = Int32(y), row = lp.baseAddress! + y * w, d = dp.baseAddress! + y * w
                    var x = 0
                    while x < w {
                        let l = row[x]
                        var e = x + 1
                        while e < w && row[e] == l { e += 1 }
                        if l >= 0 { body(Int(l), yy, UnsafeBufferPointer(start: d + x, count: e - x)) }
                        x = e
                    }
                }
            }
        }
    }

    /// The sum of `total` and the run's values, added in order.
    @inline(__always) private static func add(_ total: Float, _ run: UnsafeBufferPointer<Float>) -> Float {
        var s = total
        for v in run { s += v }
        return s
    }

    /// Per surface: area, extent, the picture sides it reaches, cells in
    /// the top row, mean depth, and the depth sums of its top, bottom and
    /// middle bands.
    private mutating func stats() {
        resetStats()
        sidesAndColumns()
        areasAndRows()
        bandSums()
    }

    /// Sizes the per-surface arrays for `count` surfaces and zeroes them.
    private mutating func resetStats() {
        let c = count
        if area.count < c {
            let m = max(c, 64) * 2
            area = [Int32](repeating: 0, count: m); minRow = area; maxRow = area
            sideTouch = [UInt8](repeating: 0, count: m)
            minCol = [Int32](repeating: 0, count: m); maxCol = minCol; topRowCells = minCol
            topCount = area; bottomCount = area; midCount = area; scratch = area; topEnd = area; bottomStart = area
            depthSum = [Float](repeating: 0, count: m); topSum = depthSum; bottomSum = depthSum; midSum = depthSum
        }
        for k in 0..<c {
            area[k] = 0; minRow[k] = Int32.max; maxRow[k] = -1; depthSum[k] = 0; sideTouch[k] = 0
            minCol[k] = Int32.max; maxCol[k] = -1; topRowCells[k] = 0
            topSum[k] = 0; topCount[k] = 0; bottomSum[k] = 0; bottomCount[k] = 0; midSum[k] = 0; midCount[k] = 0
        }
    }

    /// The picture sides each surface reaches, its cells in the top row,
    /// and its first and last column.
    private mutating func sidesAndColumns() {
        let w = width, h = height
        if w > 0 {
            // the sides as the depth sees them: past a strip of cells
            // without a reading along a side, up to `edgeStrip` of the width
            // (a registered map's band the depth camera does not see)
            let strip = Int(Self.edgeStrip * Float(w))
            for y in 0..<h {
                let (first, last) = Self.sideReadings(width: w, strip: strip) { depth[y * w + $0] > 0 }
                let a = labels[y * w + first], b = labels[y * w + last]
                if a >= 0 { sideTouch[Int(a)] |= 1 }
                if b >= 0 { sideTouch[Int(b)] |= 2 }
            }
            for x in 0..<w { let l = labels[x]; if l >= 0 { topRowCells[Int(l)] += 1 } }
            labels.withUnsafeBufferPointer { lp in
                minCol.withUnsafeMutableBufferPointer { c0 in
                    maxCol.withUnsafeMutableBufferPointer { c1 in
                        for y in 0..<h {
                            for x in 0..<w {
                                let l = Int(lp[y * w + x])
                                if l < 0 { continue }
                                let xx = Int32(x)
                                if xx < c0[l] { c0[l] = xx }
                                if xx > c1[l] { c1[l] = xx }
                            }
                        }
                    }
                }
            }
        }
    }

    /// Each surface's area, depth sum and first and last row.
    private mutating func areasAndRows() {
        let w = width, h = height
        area.withUnsafeMutableBufferPointer { ar in
          depthSum.withUnsafeMutableBufferPointer { ds in
            minRow.withUnsafeMutableBufferPointer { r0 in
              maxRow.withUnsafeMutableBufferPointer { r1 in
                Self.forEachRun(labels, depth, width: w, height: h) { l, yy, run in
                    ar[l] += Int32(run.count)
                    ds[l] = Self.add(ds[l], run)
                    if yy < r0[l] { r0[l] = yy }
                    if yy > r1[l] { r1[l] = yy }
                }
              }
            }
          }
        }
    }

    /// Each surface's bands (top, bottom, middle) and their depth sums.
    private mutating func bandSums() {
        let c = count
        let w = width, h = height
        // band limits per surface: top rows < topEnd, bottom rows > bottomStart,
        // middle rows with 5 (y - minRow) in [2 span, 3 span]
        for k in 0..<c {
            let band = max(Int32(1), Int32((Float(maxRow[k] - minRow[k] + 1) * Self.bandFraction).rounded()))
            topEnd[k] = minRow[k] + band
            bottomStart[k] = maxRow[k] - band
        }
        topEnd.withUnsafeBufferPointer { te in
            bottomStart.withUnsafeBufferPointer { bs in
            minRow.withUnsafeBufferPointer { r0 in
            maxRow.withUnsafeBufferPointer { r1 in
            topSum.withUnsafeMutableBufferPointer { ts in
            topCount.withUnsafeMutableBufferPointer { tc in
            bottomSum.withUnsafeMutableBufferPointer { bsum in
            bottomCount.withUnsafeMutableBufferPointer { bc in
            midSum.withUnsafeMutableBufferPointer { ms in
            midCount.withUnsafeMutableBufferPointer { mc in
            Self.forEachRun(labels, depth, width: w, height: h) { l, yy, run in
                let n = Int32(run.count)
                if yy < te[l] { ts[l] = Self.add(ts[l], run); tc[l] += n }
                if yy > bs[l] { bsum[l] = Self.add(bsum[l], run); bc[l] += n }
                let rel = 5 * (yy - r0[l]), span = r1[l] - r0[l] + 1
                if rel >= 2 * span && rel <= 3 * span { ms[l] = Self.add(ms[l], run); mc[l] += n }
            }
            }}}}}}}}}}
    }
}
