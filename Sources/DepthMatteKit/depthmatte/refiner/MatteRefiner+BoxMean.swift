// SPDX-License-Identifier: LGPL-2.1-or-later
/// Box means: the mean of a plane over the (2r+1)² window around each
/// pixel, clipped to the picture (the guided filter's window sums, README
/// step 2, refine=guided, sub-steps 2.3 and 2.4).
extension MatteRefiner {
    /// Mean over the (2r+1)² window clipped to the picture. `sums` holds at
    /// least `src.width` doubles.
    static func boxMean(_ src: FloatPlane, radius r: Int, into dst: inout FloatPlane,
                               tmp: inout FloatPlane, sums: inout [Double]) {
        let w = src.width, h = src.height
        dst.resize(width: w, height: h)
        tmp.resize(width: w, height: h)
        if sums.count < w { sums = [Double](repeating: 0, count: w) }
        src.pixels.withUnsafeBufferPointer { S in
        tmp.pixels.withUnsafeMutableBufferPointer { T in
        dst.pixels.withUnsafeMutableBufferPointer { D in
        sums.withUnsafeMutableBufferPointer { C in
            boxMean(S.baseAddress!, into: D.baseAddress!, width: w, height: h, radius: r, tmp: T.baseAddress!, sums: C.baseAddress!)
        }}}}
    }

    static func boxMean(_ S: UnsafePointer<Float>, into D: UnsafeMutablePointer<Float>, width w: Int, height h: Int,
                        radius r: Int, tmp T: UnsafeMutablePointer<Float>, sums C: UnsafeMutablePointer<Double>) {
        // horizontal: sliding sums per row (sums, not means). Each row's sum is
        // one chain of dependent additions, so four rows go side by side, each
        // in exactly the order of one row alone (the last block repeats the
        // last row, which writes the same values twice). The window edges are
        // separate loops instead of two tests per pixel.
        let head = min(r, w)
        let addEnd = max(0, w - r)      // x < addEnd: row[x + r] enters the window
        let subStart = min(r + 1, w)    // x >= subStart: row[x - r - 1] leaves it
        var y = 0
        while y < h {
            let p0 = S + y * w, p1 = S + min(y + 1, h - 1) * w, p2 = S + min(y + 2, h - 1) * w, p3 = S + min(y + 3, h - 1) * w
            let q0 = T + y * w, q1 = T + min(y + 1, h - 1) * w, q2 = T + min(y + 2, h - 1) * w, q3 = T + min(y + 3, h - 1) * w
            var s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0
            for x in 0..<head { s0 += Double(p0[x]); s1 += Double(p1[x]); s2 += Double(p2[x]); s3 += Double(p3[x]) }
            @inline(__always) func enter(_ x: Int) {
                s0 += Double(p0[x + r]); s1 += Double(p1[x + r]); s2 += Double(p2[x + r]); s3 += Double(p3[x + r])
            }
            @inline(__always) func leave(_ x: Int) {
                let j = x - r - 1
                s0 -= Double(p0[j]); s1 -= Double(p1[j]); s2 -= Double(p2[j]); s3 -= Double(p3[j])
            }
            @inline(__always) func store(_ x: Int) { q0[x] = Float(s0); q1[x] = Float(s1); q2[x] = Float(s2); q3[x] = Float(s3) }
            var x = 0
            while x < min(addEnd, subStart) { enter(x); store(x); x += 1 }
            if addEnd <= subStart {
                while x < subStart { store(x); x += 1 }
            } else {
                while x < addEnd { enter(x); leave(x); store(x); x += 1 }
            }
            while x < w { leave(x); store(x); x += 1 }
            y += 4
        }
        // vertical: running column sums, divided by the clipped window area
        // (the row entering, the row leaving and the division in one pass)
        for x in 0..<w { C[x] = 0 }
        for y in 0..<min(r, h) { for x in 0..<w { C[x] += Double(T[y * w + x]) } }
        // Columns r ..< w − r have the full horizontal count 2r + 1: four at a
        // time (SIMD), scaled by the reciprocal of the window area; the
        // clipped columns at the sides divide.
        let inner = min(r, w)..<max(min(r, w), w - r)  // empty when w < 2r + 1
        for y in 0..<h {
            let ny = min(y + r, h - 1) - max(y - r, 0) + 1
            let out = D + y * w
            let add: UnsafePointer<Float>? = y + r < h ? UnsafePointer(T + (y + r) * w) : nil
            let sub: UnsafePointer<Float>? = y - r - 1 >= 0 ? UnsafePointer(T + (y - r - 1) * w) : nil
            @inline(__always) func slide(_ x: Int) {
                if let add { C[x] += Double(add[x]) }
                if let sub { C[x] -= Double(sub[x]) }
            }
            for x in 0..<inner.lowerBound {
                slide(x)
                out[x] = Float(C[x] / Double((min(x + r, w - 1) - max(x - r, 0) + 1) * ny))
            }
            let scale = 1 / Double((2 * r + 1) * ny)
            var x = inner.lowerBound
            while x + 4 <= inner.upperBound {
                var c = UnsafeRawPointer(C + x).loadUnaligned(as: SIMD4<Double>.self)
                if let add { c += SIMD4<Double>(UnsafeRawPointer(add + x).loadUnaligned(as: SIMD4<Float>.self)) }
                if let sub { c -= SIMD4<Double>(UnsafeRawPointer(sub + x).loadUnaligned(as: SIMD4<Float>.self)) }
                UnsafeMutableRawPointer(C + x).storeBytes(of: c, as: SIMD4<Double>.self)
                UnsafeMutableRawPointer(out + x).storeBytes(of: SIMD4<Float>(c * scale), as: SIMD4<Float>.self)
                x += 4
            }
            while x < inner.upperBound { slide(x); out[x] = Float(C[x] * scale); x += 1 }
            for x in inner.upperBound..<w {
                slide(x)
                out[x] = Float(C[x] / Double((min(x + r, w - 1) - max(x - r, 0) + 1) * ny))
            }
        }
    }
}
