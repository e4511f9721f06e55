// SPDX-License-Identifier: LGPL-2.1-or-later
/// Step 1 of the original chain, made robust: the face's depth is the median
/// of the valid (non-zero) depth samples in the central part of the face box,
/// instead of the single depth pixel at its centre (which fails on a hole).

/// A box in pixels of the picture it belongs to.
public struct Box: Equatable {
    public var x: Int, y: Int, width: Int, height: Int
    public init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x; self.y = y; self.width = width; self.height = height
    }
    var centerX: Double { Double(x) + Double(width) / 2 }
    var centerY: Double { Double(y) + Double(height) / 2 }
}

struct FaceDepthSampler {
    /// Fraction of the box (per side, centred) that is sampled: 0.5 = the
    /// central half of the width and of the height.
    var centralFraction: Double = 0.5
    private var samples: [UInt16] = []

    init() { samples.reserveCapacity(4096) }

    /// The central part of `box` (video pixels) mapped onto depth pixels of a
    /// depth map registered to a `videoWidth` x `videoHeight` picture. Always at
    /// least one pixel, clipped to the depth map; nil when fully outside.
    func region(of box: Box, videoWidth: Int, videoHeight: Int, depthWidth: Int, depthHeight: Int) -> (x0: Int, y0: Int, x1: Int, y1: Int)? {
        let sx = Double(depthWidth) / Double(videoWidth), sy = Double(depthHeight) / Double(videoHeight)
        let hw = Double(box.width) * centralFraction / 2, hh = Double(box.height) * centralFraction / 2
        let cx = box.centerX * sx, cy = box.centerY * sy
        var x0 = Int(((box.centerX - hw) * sx).rounded(.down)), x1 = Int(((box.centerX + hw) * sx).rounded(.up))
        var y0 = Int(((box.centerY - hh) * sy).rounded(.down)), y1 = Int(((box.centerY + hh) * sy).rounded(.up))
        if x1 <= x0 { x0 = Int(cx.rounded(.down)); x1 = x0 + 1 }
        if y1 <= y0 { y0 = Int(cy.rounded(.down)); y1 = y0 + 1 }
        x0 = max(x0, 0); y0 = max(y0, 0); x1 = min(x1, depthWidth); y1 = min(y1, depthHeight)
        if x1 <= x0 || y1 <= y0 { return nil }
        return (x0, y0, x1, y1)
    }

    /// Median depth (sensor units) of the non-zero samples in the box's central
    /// part; nil when the region has no valid sample. An even count gives the
    /// mean of the two middle samples.
    mutating func medianDepth(_ depth: Depth16View, box: Box, videoWidth: Int, videoHeight: Int) -> Double? {
        guard let r = region(of: box, videoWidth: videoWidth, videoHeight: videoHeight,
                             depthWidth: depth.width, depthHeight: depth.height) else { return nil }
        samples.removeAll(keepingCapacity: true)
        for y in r.y0..<r.y1 {
            for x in r.x0..<r.x1 {
                let d = depth.at(x, y)
                if d != 0 { samples.append(d) }
            }
        }
        if samples.isEmpty { return nil }
        // in-place selection (Array.sort allocates a merge buffer)
        let n = samples.count
        return samples.withUnsafeMutableBufferPointer { p -> Double in
            let upper = FaceDepthSampler.select(p, n / 2)
            if n % 2 == 1 { return Double(upper) }
            var lower: UInt16 = 0
            for i in 0..<(n / 2) { lower = max(lower, p[i]) }  // everything before n/2 is <= upper
            return (Double(lower) + Double(upper)) / 2
        }
    }

    /// The `k`-th smallest value (0-based) of `p`, reordering `p` so that
    /// `p[0..<k] <= p[k] <= p[k+1...]` (Hoare quickselect, median-of-three pivot).
    static func select(_ p: UnsafeMutableBufferPointer<UInt16>, _ k: Int) -> UInt16 {
        var lo = 0, hi = p.count - 1
        while lo < hi {
            let mid = lo + (hi - lo) / 2
            if p[mid] < p[lo] { p.swapAt(mid, lo) }
            if p[hi] < p[lo] { p.swapAt(hi, lo) }
            if p[hi] < p[mid] { p.swapAt(hi, mid) }
            let pivot = p[mid]
            var i = lo, j = hi
            while i <= j {
                while p[i] < pivot { i += 1 }
                while p[j] > pivot { j -= 1 }
                if i <= j { p.swapAt(i, j); i += 1; j -= 1 }
            }
            if k <= j { hi = j } else if k >= i { lo = i } else { return p[k] }
        }
        return p[k]
    }
}
