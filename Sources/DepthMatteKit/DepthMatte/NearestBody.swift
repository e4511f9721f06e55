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
public struct DepthStep: Equatable, Sendable {
    /// Metres.
    public var base: Float
    /// Metres per metre of depth.
    public var gain: Float
    public init(base: Float, gain: Float) { self.base = base; self.gain = gain }

    @inline(__always) public func at(_ d: Float) -> Float { base + gain * d }

    /// The jump that separates two surfaces (4 cm plus 4 %: 8 cm at 1 m): the
    /// nearest-body finder's and the subject lock's, and the step at which
    /// the subject segmentation joins a surface to the subject.
    public static var surfaceJump: DepthStep { DepthStep(base: 0.04, gain: 0.04) }
}

/// Connected surfaces of one depth frame.
public struct DepthComponents {
    /// Size of the reduced grid and the depth pixels per grid cell.
    public private(set) var width = 0
    public private(set) var height = 0
    public private(set) var step = 1
    /// Number of surfaces found.
    public private(set) var count = 0

    /// Metres per grid cell, 0 = no reading.
    public private(set) var depth: [Float] = []
    /// Surface index per grid cell, -1 = no reading.
    public private(set) var labels: [Int32] = []

    // per surface
    public private(set) var area: [Int32] = []
    public private(set) var minRow: [Int32] = []
    public private(set) var maxRow: [Int32] = []
    /// Per surface: bit 0 touches the left column, bit 1 the right column.
    public private(set) var sideTouch: [UInt8] = []
    /// Per surface: leftmost and rightmost column.
    public private(set) var minCol: [Int32] = [], maxCol: [Int32] = []
    /// Per surface: cells in the top row.
    public private(set) var topRowCells: [Int32] = []
    var depthSum: [Float] = []
    var topSum: [Float] = [], topCount: [Int32] = []
    var bottomSum: [Float] = [], bottomCount: [Int32] = []
    var midSum: [Float] = [], midCount: [Int32] = []
    var scratch: [Int32] = []
    var topEnd: [Int32] = [], bottomStart: [Int32] = []
    private var parent: [Int32] = []
    /// `label`'s scratch: one row of "joined its left neighbour" flags.
    private var leftLinks: [Bool] = []
    /// Per cell: 1 = floor-like (see `markFloorLike`).
    private var floorLike: [UInt8] = []
    /// tan of the angle between a surface and the image plane (top away)
    /// from which a cell is floor-like, for a 70° camera.
    public static let floorSlope: Float = 0.7

    /// The focal length (in cells or pixels) the floor tests assume for a
    /// `w` x `h` picture: `focalDiagonal` x its diagonal (a
    /// camera's field of view is close to constant along the diagonal, 70°
    /// across a 16:9 picture's width; a Kinect's 4:3 focal length is 0.82
    /// widths, a phone's upright 3:4 portrait about 1.05; 0.714 widths for
    /// every shape made an upright portrait's or a 4:3 floor's per-row slope
    /// look up to 30 % shallower than it is).
    @inline(__always) public static func focal(_ w: Int, _ h: Int, perDiagonal f: Float = focalDiagonal) -> Float {
        f * (Float(w * w + h * h)).squareRoot()
    }
    /// 0.714 / |(1, 9/16)|: 70° across a 16:9 picture's width.
    public static let focalDiagonal: Float = 0.6225

    /// Depth jump (metres) that separates two surfaces between neighbouring
    /// cells at depth `d` (`DepthStep.surfaceJump`).
    @inline(__always) public static func jump(_ d: Float) -> Float { DepthStep.surfaceJump.at(d) }

    /// Fraction of a surface's rows (from its top, and from its bottom) that
    /// makes its top band (the head of a person) and its bottom band.
    public static let bandFraction: Float = 0.2
    /// A strip of cells without a reading along a side of the grid, up to
    /// this share of its width, lies outside the picture for `sideTouch`
    /// (as `SubjectSegmentation.edgeStrip`): a registered depth
    /// map's band the depth camera does not see. Without it a door jamb
    /// beside a 6-pixel band on a 240-wide map no longer touched the side
    /// and was taken for the subject (IoU 0.99 -> 0.40 / 0.00 in mode face /
    /// nearest, quality-bench QB_EDGEHOLES=-6).
    public static let edgeStrip: Float = 0.25

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

    public init() {}

    /// Analyse one depth frame. `scale` is metres per depth unit.
    public mutating func analyse(depth d: Depth16View, scale: Double, maxWidth: Int = 160) {
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
                for x in 0..<width {
                    var v = d.at(min(x * s + s / 2, d.width - 1), min(y * s + s / 2, d.height - 1))
                    if v == 0 && s > 1 {
                        search: for yy in (y * s)..<min(y * s + s, d.height) {
                            for xx in (x * s)..<min(x * s + s, d.width) {
                                let u = d.at(xx, yy)
                                if u != 0 { v = u; break search }
                            }
                        }
                    }
                    dp[y * width + x] = Float(v) * fscale
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
        let k = Self.floorSlope * 4 / Self.focal(w, h)
        let t = 3
        depth.withUnsafeBufferPointer { dp in
            floorLike.withUnsafeMutableBufferPointer { fp in
                let d = dp.baseAddress!, f = fp.baseAddress!
                for i in 0..<n { f[i] = 0 }
                if h < 2 * t + 1 { return }
                for y in t..<(h - t) {
                    for x in 0..<w {
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
    public func joins(_ i: Int, _ j: Int) -> Bool {
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

    /// Union-find over the grid (4-neighbours closer than `jump` in depth,
    /// both floor-like or both not, and not in the middle of a smoothed step:
    /// `rampMiddle`), then labels compacted to 0, 1, 2, ... in scan order.
    private mutating func label() {
        markFloorLike()
        let w = width, h = height, n = w * h
        if leftLinks.count < w { leftLinks = [Bool](repeating: false, count: w) }
        var c: Int32 = 0
        depth.withUnsafeBufferPointer { dp in
            parent.withUnsafeMutableBufferPointer { pp in
                labels.withUnsafeMutableBufferPointer { lp in
                leftLinks.withUnsafeMutableBufferPointer { lk in
                floorLike.withUnsafeBufferPointer { fp in
                    let d = dp.baseAddress!, p = pp.baseAddress!, lab = lp.baseAddress!, left = lk.baseAddress!
                    let fl = fp.baseAddress!
                    let sets = UnionFind(parent: p)
                    for i in 0..<n { p[i] = Int32(i) }
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
                        var prevUp = false  // up[x - 1] of this row
                        for x in 0..<w {
                            let i = y * w + x
                            let aboveLeft = left[x]  // of the row above, before this row overwrites it
                            var l = false, u = false
                            let v = d[i]
                            if v > 0 {
                                if x > 0 && Self.joinable(d, fl, i - 1, 1, rampRoom: Self.rampRoom(x - 1, y, 1, w, h)) {
                                    p[i] = sets.find(Int32(i - 1)); l = true
                                }
                                if y > 0 && Self.joinable(d, fl, i - w, w, rampRoom: Self.rampRoom(x, y - 1, w, w, h)) {
                                    u = true
                                    if !(l && prevUp && aboveLeft) { sets.union(Int32(i), Int32(i - w)) }
                                }
                            }
                            prevUp = u
                            left[x] = l
                        }
                    }
                    for i in 0..<n {
                        if d[i] <= 0 { lab[i] = -1; continue }
                        let r = sets.find(Int32(i))
                        if r == Int32(i) { lab[i] = c; c += 1 } else { lab[i] = lab[Int(r)] }
                    }
                }
                }
                }
            }
        }
        count = Int(c)
    }

    /// `body(label, row, metres)` for every grid cell on a surface, row by
    /// row (raw pointers: array subscripts on `self` inside the loop cost a
    /// uniqueness check each).
    @inline(__always)
    private static func forEachLabelled(_ labels: [Int32], _ depth: [Float], width w: Int, height h: Int,
                                        _ body: (_ label: Int, _ row: Int32, _ metres: Float) -> Void) {
        labels.withUnsafeBufferPointer { lp in
            depth.withUnsafeBufferPointer { dp in
                for y in 0..<h {
                    let yy = Int32(y)
                    for x in 0..<w {
                        let l = Int(lp[y * w + x])
                        if l >= 0 { body(l, yy, dp[y * w + x]) }
                    }
                }
            }
        }
    }

    private mutating func stats() {
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
        area.withUnsafeMutableBufferPointer { ar in
          depthSum.withUnsafeMutableBufferPointer { ds in
            minRow.withUnsafeMutableBufferPointer { r0 in
              maxRow.withUnsafeMutableBufferPointer { r1 in
                Self.forEachLabelled(labels, depth, width: w, height: h) { l, yy, v in
                    ar[l] += 1
                    ds[l] += v
                    if yy < r0[l] { r0[l] = yy }
                    if yy > r1[l] { r1[l] = yy }
                }
              }
            }
          }
        }
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
            Self.forEachLabelled(labels, depth, width: w, height: h) { l, yy, v in
                if yy < te[l] { ts[l] += v; tc[l] += 1 }
                if yy > bs[l] { bsum[l] += v; bc[l] += 1 }
                let rel = 5 * (yy - r0[l]), span = r1[l] - r0[l] + 1
                if rel >= 2 * span && rel <= 3 * span { ms[l] += v; mc[l] += 1 }
            }
            }}}}}}}}}}
    }

    /// Mean depth (metres) of a surface.
    public func meanDepth(_ k: Int) -> Double { area[k] > 0 ? Double(depthSum[k]) / Double(area[k]) : 0 }
    /// Mean depth of the top band of a surface: a person's head.
    public func headDepth(_ k: Int) -> Double { topCount[k] > 0 ? Double(topSum[k]) / Double(topCount[k]) : meanDepth(k) }
    /// Mean depth of the bottom band of a surface.
    public func bottomDepth(_ k: Int) -> Double {
        bottomCount[k] > 0 ? Double(bottomSum[k]) / Double(bottomCount[k]) : meanDepth(k)
    }
    /// Mean depth of the middle band (rows 40-60 % down the surface).
    public func middleDepth(_ k: Int) -> Double {
        midCount[k] > 0 ? Double(midSum[k]) / Double(midCount[k]) : meanDepth(k)
    }
    /// Fraction of the grid the surface covers.
    public func areaFraction(_ k: Int) -> Double { Double(area[k]) / Double(max(width * height, 1)) }
    /// Size that does not depend on distance: area fraction x depth², about
    /// proportional to the surface's area in square metres (for one camera).
    public func physicalSize(_ k: Int) -> Double { let d = meanDepth(k); return areaFraction(k) * d * d }
    /// Whether the surface reaches the bottom row.
    public func touchesBottom(_ k: Int) -> Bool { Int(maxRow[k]) == height - 1 }
    /// A narrow slab along the picture's edge (a door frame, a wall's end, a
    /// bookcase): it reaches the top and the bottom row and the left or right
    /// column and spans at most `edgeSlabWidth` of the width, so nothing of
    /// it shows a head. A person entering at the edge shows the
    /// top of the head below the top row; a person close up whose hair
    /// reaches the top and whose shoulders reach the sides is wide.
    public func isEdgeSlab(_ k: Int) -> Bool {
        minRow[k] == 0 && Int(maxRow[k]) == height - 1 && sideTouch[k] != 0
            && Double(maxCol[k] - minCol[k] + 1) <= Self.edgeSlabWidth * Double(width)
    }
    public static let edgeSlabWidth = 0.2
    /// A backdrop: a surface covering more than `backdropTop` of the top row
    /// (a wall, a wall's lower part seen as a person walks out of the
    /// picture); a person's head covers much less of it, even close up.
    public func isBackdrop(_ k: Int) -> Bool { Double(topRowCells[k]) > Self.backdropTop * Double(width) }
    public static let backdropTop = 0.75
    /// A floor or table top seen from above: it reaches the bottom of the
    /// picture and recedes upwards all the way: its top band is `rise` metres
    /// or more farther than its bottom band, with the middle band in between
    /// (at least a quarter of the rise from each). A person is about as far
    /// at the head as at the chest, also when a desk in front of them joins
    /// their surface at the bottom.
    public func isFloorLike(_ k: Int, rise: Double = 0.25) -> Bool {
        let top = headDepth(k), mid = middleDepth(k), bottom = bottomDepth(k)
        return touchesBottom(k) && top - bottom >= rise && top - mid >= rise / 4 && mid - bottom >= rise / 4
    }
    /// A piece of a floor: a surface that recedes upwards as
    /// steeply as a floor-like cell does (`floorSlope`, over the rows between
    /// its top and bottom bands, at its middle band's depth), with the
    /// middle band in between, wherever it lies. A far sensor's floor breaks
    /// into many such pieces (quantisation steps and correlated noise make
    /// the cells' two-sample floor test fail in patches), and one that does
    /// not reach the bottom row was taken for the subject in an empty room.
    /// A person standing, sitting or walking is about as far at the head as
    /// at the chest, or nearer when the camera looks down.
    public func isFloorPiece(_ k: Int) -> Bool {
        let top = headDepth(k), mid = middleDepth(k), bottom = bottomDepth(k)
        let rows = Double(maxRow[k] - minRow[k] + 1) * (1 - Double(Self.bandFraction))
        let rise = Double(Self.floorSlope / Self.focal(width, height)) * rows * mid
        return rows >= 2 && top - bottom >= rise && top - mid >= rise / 4 && mid - bottom >= rise / 4
    }

    /// Cells of surface `k` in a row run through the grid cell at normalized
    /// (u, v), bridging gaps of up to two cells without a reading; 0 when
    /// the cell is not on `k`.
    public func runWidth(_ k: Int, u: Double, v: Double) -> Int {
        guard width > 0, height > 0 else { return 0 }
        let x = min(max(Int(u * Double(width)), 0), width - 1), y = min(max(Int(v * Double(height)), 0), height - 1)
        let row = y * width, l = Int32(k)
        guard labels[row + x] == l else { return 0 }
        var x0 = x, x1 = x
        var gap = 0, i = x - 1
        while i >= 0 {
            let m = labels[row + i]
            if m == l { x0 = i; gap = 0 } else if m < 0 && gap < 2 { gap += 1 } else { break }
            i -= 1
        }
        gap = 0; i = x + 1
        while i < width {
            let m = labels[row + i]
            if m == l { x1 = i; gap = 0 } else if m < 0 && gap < 2 { gap += 1 } else { break }
            i += 1
        }
        return x1 - x0 + 1
    }

    /// The surface most cells of the normalized region `[u0, u1) x [v0, v1)`
    /// belong to, nil when the region has no reading.
    public mutating func component(inU u0: Double, _ u1: Double, v v0: Double, _ v1: Double) -> Int? {
        guard count > 0 else { return nil }
        guard let (x0, x1, y0, y1) = cells(inU: u0, u1, v: v0, v1) else { return nil }
        for k in 0..<count { scratch[k] = 0 }
        var best = -1, bestN: Int32 = 0
        for y in y0..<y1 {
            for x in x0..<x1 {
                let l = Int(labels[y * width + x])
                if l < 0 { continue }
                scratch[l] += 1
                if scratch[l] > bestN { bestN = scratch[l]; best = l }
            }
        }
        return best >= 0 ? best : nil
    }

    /// The grid cells `[x0, x1) x [y0, y1)` of the normalized region
    /// `[u0, u1) x [v0, v1)` (at least one cell), nil when it is empty.
    private func cells(inU u0: Double, _ u1: Double, v v0: Double, _ v1: Double) -> (Int, Int, Int, Int)? {
        let x0 = max(0, Int(u0 * Double(width))), x1 = min(width, max(x0 + 1, Int((u1 * Double(width)).rounded(.up))))
        let y0 = max(0, Int(v0 * Double(height))), y1 = min(height, max(y0 + 1, Int((v1 * Double(height)).rounded(.up))))
        guard x1 > x0, y1 > y0 else { return nil }
        return (x0, x1, y0, y1)
    }

    /// Mean depth (metres) of surface `k`'s cells in the normalized region
    /// `[u0, u1) x [v0, v1)` (at least one cell), nil when it has none there.
    public func meanDepth(_ k: Int, inU u0: Double, _ u1: Double, v v0: Double, _ v1: Double) -> Double? {
        guard k >= 0, k < count else { return nil }
        guard let (x0, x1, y0, y1) = cells(inU: u0, u1, v: v0, v1) else { return nil }
        let l = Int32(k)
        var sum: Float = 0, n = 0
        for y in y0..<y1 {
            for x in x0..<x1 where labels[y * width + x] == l { sum += depth[y * width + x]; n += 1 }
        }
        return n > 0 ? Double(sum) / Double(n) : nil
    }

    /// The surface that overlaps `mask` (one byte per grid cell, non-zero =
    /// inside, same grid size) the most, with the overlap in cells.
    public mutating func bestOverlap(_ mask: [UInt8]) -> (component: Int, cells: Int)? {
        guard count > 0, mask.count >= width * height else { return nil }
        for k in 0..<count { scratch[k] = 0 }
        var best = -1, bestN: Int32 = 0
        for i in 0..<(width * height) where mask[i] != 0 {
            let l = Int(labels[i])
            if l < 0 { continue }
            scratch[l] += 1
            if scratch[l] > bestN { bestN = scratch[l]; best = l }
        }
        return best >= 0 ? (best, Int(bestN)) : nil
    }

    /// Write the cells of surface `k` that are nearer than `limit` metres
    /// into `mask` (resized to the grid); returns the number of cells set.
    @discardableResult
    public func writeMask(_ k: Int, nearerThan limit: Double, into mask: inout [UInt8]) -> Int {
        let n = width * height
        if mask.count != n { mask = [UInt8](repeating: 0, count: n) }
        let l = Int32(k), lim = Float(limit)
        var set = 0
        for i in 0..<n {
            let on = labels[i] == l && depth[i] <= lim
            mask[i] = on ? 1 : 0
            if on { set += 1 }
        }
        return set
    }
}

/// The depth-only subject finder: the nearest large connected body.
///
/// A surface is a candidate when its distance-independent size
/// (`DepthComponents.physicalSize`: area fraction x depth²) reaches
/// `minSize` (a raised cup, a hand alone or a stray reading does not), when
/// it is not floor-like (reaching the bottom of the picture and receding
/// upwards), and when its top band lies within `depthRange`. Among the
/// candidates the one whose top band (a person's head) is nearest wins.
public struct NearestBodyFinder: Equatable {
    /// Area fraction x depth² (m²·fraction): 0.02 is about a head and
    /// shoulders at any distance for a 60-90° camera; a 8 cm cup at 0.6 m is
    /// about 0.005.
    public var minSize = 0.02
    /// Fraction of the picture a candidate covers at least: a
    /// head and shoulders at the far end of `depthRange` still cover about
    /// 0.5 %; pieces of a floor 4-5 m away that holes and a far sensor's
    /// quantisation steps cut apart (a few grid cells) reach `minSize` by
    /// their depth alone and were taken for the subject in an empty room
    /// (quality-bench "leaveRight, 2.5 m": the floor keyed after the subject left).
    public var minArea = 0.002
    /// Metres: bodies nearer or farther than this are ignored.
    public var depthRange = 0.25...6.0
    /// Metres of upward recession that makes a surface touching the bottom a floor.
    public var floorRise = 0.25

    public init() {}

    /// Whether surface `k` can be the subject. A surface that `moved` into
    /// view is no door jamb, however it touches a side: a person entering
    /// at the picture's edge.
    public func accepts(_ c: DepthComponents, _ k: Int, moved: Bool = false) -> Bool {
        accepts(c, k, moved: moved, minSize: minSize)
    }

    private func accepts(_ c: DepthComponents, _ k: Int, moved: Bool, minSize: Double) -> Bool {
        c.physicalSize(k) >= minSize && c.areaFraction(k) >= minArea && depthRange.contains(c.headDepth(k))
            && !c.isFloorLike(k, rise: floorRise) && !c.isFloorPiece(k)
            && (moved || !c.isEdgeSlab(k)) && !c.isBackdrop(k)
    }

    /// Whether surface `k`, which moved into view, is another person or a
    /// part of one: as `accepts`, but a quarter of `minSize` is enough (a
    /// head and shoulders leaving at the bottom of the picture, most of the
    /// body already out of view).
    public func acceptsMover(_ c: DepthComponents, _ k: Int) -> Bool {
        accepts(c, k, moved: true, minSize: minSize / 4)
    }

    /// The subject surface and its head depth (metres), nil when no surface
    /// qualifies. With `room`, a surface that moved into view (`RoomDepth`)
    /// wins over any that did not, the nearest among each.
    public func find(_ c: DepthComponents, room: RoomDepth? = nil) -> (component: Int, headDepth: Double)? {
        var best: (k: Int, d: Double, moved: Bool)? = nil
        for k in 0..<c.count {
            let m = room?.moved(k) ?? false
            guard accepts(c, k, moved: m) else { continue }
            let d = c.headDepth(k)
            if let b = best, (b.moved && !m) || (b.moved == m && b.d <= d) { continue }
            best = (k, d, m)
        }
        return best.map { (component: $0.k, headDepth: $0.d) }
    }
}
