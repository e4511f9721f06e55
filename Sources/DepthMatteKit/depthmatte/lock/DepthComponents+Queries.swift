// SPDX-License-Identifier: LGPL-2.1-or-later
// The questions the lock and the segmentation ask of the surfaces found
// by `DepthComponents.analyse`: their depths, sizes, shapes, and the
// surface in a box or under a mask.
extension DepthComponents {
    /// Mean depth (metres) of a surface.
    func meanDepth(_ k: Int) -> Double { area[k] > 0 ? Double(depthSum[k]) / Double(area[k]) : 0 }
    /// Mean depth of the top band of a surface: a person's head.
    @_spi(Bench) public func headDepth(_ k: Int) -> Double { topCount[k] > 0 ? Double(topSum[k]) / Double(topCount[k]) : meanDepth(k) }
    /// Mean depth of the bottom band of a surface.
    @_spi(Bench) public func bottomDepth(_ k: Int) -> Double {
        bottomCount[k] > 0 ? Double(bottomSum[k]) / Double(bottomCount[k]) : meanDepth(k)
    }
    /// Mean depth of the middle band (rows 40-60 % down the surface).
    @_spi(Bench) public func middleDepth(_ k: Int) -> Double {
        midCount[k] > 0 ? Double(midSum[k]) / Double(midCount[k]) : meanDepth(k)
    }
    /// Fraction of the grid the surface covers.
    @_spi(Bench) public func areaFraction(_ k: Int) -> Double { Double(area[k]) / Double(max(width * height, 1)) }
    /// Size that does not depend on distance: area fraction x depth², about
    /// proportional to the surface's area in square metres (for one camera).
    func physicalSize(_ k: Int) -> Double { let d = meanDepth(k); return areaFraction(k) * d * d }
    /// Whether the surface reaches the bottom row.
    func touchesBottom(_ k: Int) -> Bool { Int(maxRow[k]) == height - 1 }
    /// A narrow slab along the picture's edge (a door frame, a wall's end, a
    /// bookcase): it reaches the top and the bottom row and the left or right
    /// column and spans at most `edgeSlabWidth` of the width, so nothing of
    /// it shows a head. A person entering at the edge shows the
    /// top of the head below the top row; a person close up whose hair
    /// reaches the top and whose shoulders reach the sides is wide.
    func isEdgeSlab(_ k: Int) -> Bool {
        minRow[k] == 0 && Int(maxRow[k]) == height - 1 && sideTouch[k] != 0
            && Double(maxCol[k] - minCol[k] + 1) <= Self.edgeSlabWidth * Double(width)
    }
    static let edgeSlabWidth = 0.2
    /// A backdrop: a surface covering more than `backdropTop` of the top row
    /// (a wall, a wall's lower part seen as a person walks out of the
    /// picture); a person's head covers much less of it, even close up.
    func isBackdrop(_ k: Int) -> Bool { Double(topRowCells[k]) > Self.backdropTop * Double(width) }
    static let backdropTop = 0.75
    /// A floor or table top seen from above: it reaches the bottom of the
    /// picture and recedes upwards all the way: its top band is `rise` metres
    /// or more farther than its bottom band, with the middle band in between
    /// (at least a quarter of the rise from each). A person is about as far
    /// at the head as at the chest, also when a desk in front of them joins
    /// their surface at the bottom.
    func isFloorLike(_ k: Int, rise: Double = 0.25) -> Bool {
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
    func isFloorPiece(_ k: Int) -> Bool {
        let top = headDepth(k), mid = middleDepth(k), bottom = bottomDepth(k)
        let rows = Double(maxRow[k] - minRow[k] + 1) * (1 - Double(Self.bandFraction))
        let rise = Double(camera.floorDrop(overRows: 1, width, height)) * rows * mid
        return rows >= 2 && top - bottom >= rise && top - mid >= rise / 4 && mid - bottom >= rise / 4
    }

    /// Cells of surface `k` in a row run through the grid cell at normalized
    /// (u, v), bridging gaps of up to two cells without a reading; 0 when
    /// the cell is not on `k`.
    func runWidth(_ k: Int, u: Double, v: Double) -> Int {
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
    mutating func component(inU u0: Double, _ u1: Double, v v0: Double, _ v1: Double) -> Int? {
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
    func meanDepth(_ k: Int, inU u0: Double, _ u1: Double, v v0: Double, _ v1: Double) -> Double? {
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
    mutating func bestOverlap(_ mask: [UInt8]) -> (component: Int, cells: Int)? {
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
    func writeMask(_ k: Int, nearerThan limit: Double, into mask: inout [UInt8]) -> Int {
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
