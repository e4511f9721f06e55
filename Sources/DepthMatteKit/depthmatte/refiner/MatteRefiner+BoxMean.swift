// SPDX-License-Identifier: LGPL-2.1-or-later
import DMKernels

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

    /// Only the means of rows 0 ..< `rows`, columns 0 ..< `columns` are
    /// written: every sum still starts at row and column 0, so they are the
    /// values of the whole plane's.
    static func boxMean(_ S: UnsafePointer<Float>, into D: UnsafeMutablePointer<Float>, width w: Int, height h: Int,
                        radius r: Int, tmp T: UnsafeMutablePointer<Float>, sums C: UnsafeMutablePointer<Double>,
                        rows: Int = .max, columns: Int = .max) {
        let xe = min(columns, w), ye = min(rows, h)
        // horizontal: sliding sums per row (sums, not means). Each row's sum is
        // one chain of dependent additions, so four rows go side by side, each
        // in exactly the order of one row alone (the last block repeats the
        // last row, which writes the same values twice). The window edges are
        // separate loops instead of two tests per pixel.
        let head = min(r, w)
        let addEnd = max(0, w - r)      // x < addEnd: row[x + r] enters the window
        let subStart = min(r + 1, w)    // x >= subStart: row[x - r - 1] leaves it
        var y = 0
        while y < min(ye + r, h) {
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
            while x < min(addEnd, subStart, xe) { enter(x); store(x); x += 1 }
            if addEnd <= subStart {
                while x < min(subStart, xe) { store(x); x += 1 }
            } else {
                while x < min(addEnd, xe) { enter(x); leave(x); store(x); x += 1 }
            }
            while x < xe { leave(x); store(x); x += 1 }
            y += 4
        }
        // vertical: running column sums, divided by the clipped window area
        // (the row entering, the row leaving and the division in one pass)
        for x in 0..<xe { C[x] = 0 }
        for y in 0..<min(r, h) { for x in 0..<xe { C[x] += Double(T[y * w + x]) } }
        // Columns r ..< w − r have the full horizontal count 2r + 1: four at a
        // time (SIMD), scaled by the reciprocal of the window area; the
        // clipped columns at the sides divide.
        let inner = min(r, w)..<max(min(r, w), w - r)  // empty when w < 2r + 1
        for y in 0..<ye {
            let ny = min(y + r, h - 1) - max(y - r, 0) + 1
            let out = D + y * w
            let add: UnsafePointer<Float>? = y + r < h ? UnsafePointer(T + (y + r) * w) : nil
            let sub: UnsafePointer<Float>? = y - r - 1 >= 0 ? UnsafePointer(T + (y - r - 1) * w) : nil
            @inline(__always) func slide(_ x: Int) {
                if let add { C[x] += Double(add[x]) }
                if let sub { C[x] -= Double(sub[x]) }
            }
            for x in 0..<min(inner.lowerBound, xe) {
                slide(x)
                out[x] = Float(C[x] / Double((min(x + r, w - 1) - max(x - r, 0) + 1) * ny))
            }
            let scale = 1 / Double((2 * r + 1) * ny)
            var x = inner.lowerBound
            while x + 4 <= min(inner.upperBound, xe) {
                var c = UnsafeRawPointer(C + x).loadUnaligned(as: SIMD4<Double>.self)
                if let add { c += SIMD4<Double>(UnsafeRawPointer(add + x).loadUnaligned(as: SIMD4<Float>.self)) }
                if let sub { c -= SIMD4<Double>(UnsafeRawPointer(sub + x).loadUnaligned(as: SIMD4<Float>.self)) }
                UnsafeMutableRawPointer(C + x).storeBytes(of: c, as: SIMD4<Double>.self)
                UnsafeMutableRawPointer(out + x).storeBytes(of: SIMD4<Float>(c * scale), as: SIMD4<Float>.self)
                x += 4
            }
            while x < min(inner.upperBound, xe) { slide(x); out[x] = Float(C[x] * scale); x += 1 }
            for x in inner.upperBound..<max(inner.upperBound, xe) {
                slide(x)
                out[x] = Float(C[x] / Double((min(x + r, w - 1) - max(x - r, 0) + 1) * ny))
            }
        }
    }
}

/// Four planes interleaved (four floats per pixel, `FitProduct` and
/// `Coefficient` groups): every lane is summed in exactly the order of
/// `boxMean` on its plane alone, so the means are the same to the bit. One
/// load and one SIMD add per pixel for the four planes instead of four scalar
/// chains: the horizontal pass is latency-bound on its chains, and two rows
/// side by side keep two of them in flight.
extension MatteRefiner {
    /// The means of the interleaved planes `S` (4·w·h floats) into the
    /// planar `D + lane·planeStride` for lanes 0 ..< `lanes`. `tmp` holds 4·w·h
    /// floats, `sums` 4·w doubles. `avx2`: by `DMKernels`' AVX2 kernel (the
    /// same values; false: this Swift, the fallback).
    /// `group` 1 ... 3: the planes are the fit's product group of that number
    /// (`RefinePass.products`), made from group 0's (R, G, B, p) at `S` as
    /// each pixel is read, with the same multiplies: (Rp, Gp, Bp, RR), (RG,
    /// RB, GG, GB), (BB, pp, -, -) (the products' groups 1 to 3 are never stored).
    /// Only rows 0 ..< `rows`, columns 0 ..< `columns` are written, as `boxMean`'s.
    static func boxMean4(_ S: UnsafePointer<Float>, into D: UnsafeMutablePointer<Float>, planeStride: Int, lanes: Int,
                         width w: Int, height h: Int, radius r: Int,
                         tmp T: UnsafeMutablePointer<Float>, sums C: UnsafeMutablePointer<Double>,
                         avx2: Bool = kernelsHaveAVX2, group: Int = 0, rows: Int = .max, columns: Int = .max) {
        let xe = min(columns, w), ye = min(rows, h)
        if avx2 {
            // (the same sums in 256-bit registers: 1.7x faster here, 1.8 -> 1.1 ms a
            // frame for the five groups at 320x180)
            dm_box_mean4_products_avx2(S, Int32(group), D, planeStride, Int32(lanes), Int32(w), Int32(h), Int32(r), T, C,
                                       Int32(ye), Int32(xe))
            return
        }
        typealias D4 = SIMD4<Double>
        @inline(__always) func ld(_ p: UnsafePointer<Float>, _ x: Int) -> D4 {
            D4(UnsafeRawPointer(p + 4 * x).loadUnaligned(as: SIMD4<Float>.self))
        }
        @inline(__always) func source(_ p: UnsafePointer<Float>, _ x: Int) -> D4 {
            let v = UnsafeRawPointer(p + 4 * x).loadUnaligned(as: SIMD4<Float>.self)
            switch group {
            case 1: return D4(SIMD4<Float>(v[0], v[1], v[2], v[0]) * SIMD4<Float>(v[3], v[3], v[3], v[0]))
            case 2: return D4(SIMD4<Float>(v[0], v[0], v[1], v[1]) * SIMD4<Float>(v[1], v[2], v[1], v[2]))
            case 3: return D4(SIMD4<Float>(v[2], v[3], v[2], v[3]) * SIMD4<Float>(v[2], v[3], v[2], v[3]))
            default: return D4(v)
            }
        }
        @inline(__always) func st(_ v: D4, _ p: UnsafeMutablePointer<Float>, _ x: Int) {
            UnsafeMutableRawPointer(p + 4 * x).storeBytes(of: SIMD4<Float>(v), as: SIMD4<Float>.self)
        }
        let head = min(r, w)
        let addEnd = max(0, w - r)
        let subStart = min(r + 1, w)
        var y = 0
        while y < min(ye + r, h) {
            // (the last pair repeats the last row, which writes the same values twice)
            let p0 = S + 4 * y * w, p1 = S + 4 * min(y + 1, h - 1) * w
            let q0 = T + 4 * y * w, q1 = T + 4 * min(y + 1, h - 1) * w
            var s0 = D4(repeating: 0), s1 = D4(repeating: 0)
            for x in 0..<head { s0 += source(p0, x); s1 += source(p1, x) }
            var x = 0
            while x < min(addEnd, subStart, xe) {
                s0 += source(p0, x + r); s1 += source(p1, x + r)
                st(s0, q0, x); st(s1, q1, x); x += 1
            }
            if addEnd <= subStart {
                while x < min(subStart, xe) { st(s0, q0, x); st(s1, q1, x); x += 1 }
            } else {
                while x < min(addEnd, xe) {
                    s0 += source(p0, x + r); s1 += source(p1, x + r)
                    s0 -= source(p0, x - r - 1); s1 -= source(p1, x - r - 1)
                    st(s0, q0, x); st(s1, q1, x); x += 1
                }
            }
            while x < xe {
                s0 -= source(p0, x - r - 1); s1 -= source(p1, x - r - 1)
                st(s0, q0, x); st(s1, q1, x); x += 1
            }
            y += 2
        }
        // vertical: as `boxMean`'s, four lanes per column
        for x in 0..<(4 * xe) { C[x] = 0 }
        for y in 0..<min(r, h) {
            let t = T + 4 * y * w
            for x in 0..<xe {
                let c = UnsafeRawPointer(C + 4 * x).loadUnaligned(as: D4.self) + ld(t, x)
                UnsafeMutableRawPointer(C + 4 * x).storeBytes(of: c, as: D4.self)
            }
        }
        let inner = min(r, w)..<max(min(r, w), w - r)
        let d0 = D, d1 = D + planeStride, d2 = D + 2 * planeStride, d3 = D + 3 * planeStride
        for y in 0..<ye {
            let ny = min(y + r, h - 1) - max(y - r, 0) + 1
            let add: UnsafePointer<Float>? = y + r < h ? UnsafePointer(T + 4 * (y + r) * w) : nil
            let sub: UnsafePointer<Float>? = y - r - 1 >= 0 ? UnsafePointer(T + 4 * (y - r - 1) * w) : nil
            let o = y * w
            let scale = 1 / Double((2 * r + 1) * ny)
            @inline(__always) func slide(_ x: Int) -> D4 {
                var c = UnsafeRawPointer(C + 4 * x).loadUnaligned(as: D4.self)
                if let add { c += ld(add, x) }
                if let sub { c -= ld(sub, x) }
                UnsafeMutableRawPointer(C + 4 * x).storeBytes(of: c, as: D4.self)
                return c
            }
            @inline(__always) func put(_ v: SIMD4<Float>, _ x: Int) {
                d0[o + x] = v[0]
                if lanes > 1 { d1[o + x] = v[1] }
                if lanes > 2 { d2[o + x] = v[2] }
                if lanes > 3 { d3[o + x] = v[3] }
            }
            @inline(__always) func clipped(_ x: Int) {
                let c = slide(x)
                put(SIMD4<Float>(c / D4(repeating: Double((min(x + r, w - 1) - max(x - r, 0) + 1) * ny))), x)
            }
            for x in 0..<min(inner.lowerBound, xe) { clipped(x) }
            var x = inner.lowerBound
            if lanes == 4 {
                // four columns at a time: the four results transposed back to
                // the planes (one store per plane)
                while x + 4 <= min(inner.upperBound, xe) {
                    let a = SIMD4<Float>(slide(x) * scale), b = SIMD4<Float>(slide(x + 1) * scale)
                    let c = SIMD4<Float>(slide(x + 2) * scale), d = SIMD4<Float>(slide(x + 3) * scale)
                    let (t0, t1, t2, t3) = transpose4(a, b, c, d)
                    storeF4(t0, d0 + o + x); storeF4(t1, d1 + o + x); storeF4(t2, d2 + o + x); storeF4(t3, d3 + o + x)
                    x += 4
                }
            }
            while x < min(inner.upperBound, xe) { put(SIMD4<Float>(slide(x) * scale), x); x += 1 }
            for x in inner.upperBound..<max(inner.upperBound, xe) { clipped(x) }
        }
    }
}

/// The 4×4 transpose of rows a, b, c, d: (a0 b0 c0 d0), (a1 b1 c1 d1), ...
@inline(__always) func transpose4(_ a: SIMD4<Float>, _ b: SIMD4<Float>, _ c: SIMD4<Float>, _ d: SIMD4<Float>)
    -> (SIMD4<Float>, SIMD4<Float>, SIMD4<Float>, SIMD4<Float>) {
    let ab = SIMD8<Float>(lowHalf: a, highHalf: b), cd = SIMD8<Float>(lowHalf: c, highHalf: d)
    // (a0 a2 b0 b2), (a1 a3 b1 b3), (c0 c2 d0 d2), (c1 c3 d1 d3)
    let e = SIMD8<Float>(lowHalf: ab.evenHalf, highHalf: cd.evenHalf)
    let o = SIMD8<Float>(lowHalf: ab.oddHalf, highHalf: cd.oddHalf)
    return (e.evenHalf, o.evenHalf, e.oddHalf, o.oddHalf)
}

/// The CPU runs `DMKernels`' AVX2 kernels (checked once).
let kernelsHaveAVX2 = dm_kernels_have_avx2() != 0

/// The label's box means (phase `labelMeans`): the filled label holds small
/// integers, so every sum of it is exact whatever the order, and `boxMean`'s
/// double sums are the counts themselves. One summed-area table of the
/// counts serves every radius; each mean is then the count scaled exactly
/// as `boxMean` scales its sum (to the bit).
extension RefinePass {
    /// The summed-area table of `fill` (integers) over rows `rows` at `S`
    /// (raw memory for (dw + 1)·(rows.count + 1) Int32): entry (y + 1 − rows.lowerBound, x + 1)
    /// is the sum over rows rows.lowerBound...y, columns 0...x. A band's means
    /// need only the rows within the largest radius of its own (a count is a
    /// difference of two entries: the same integer from any first row).
    func labelTable(_ S: UnsafeMutableRawPointer, rows: Range<Int>) {
        let w = dw, sw = w + 1
        @inline(__always) func put(_ i: Int, _ v: Int32) { S.storeBytes(of: v, toByteOffset: 4 * i, as: Int32.self) }
        for x in 0..<sw { put(x, 0) }
        for y in rows {
            let row = fill + y * w, above = (y - rows.lowerBound) * sw, out = above + sw
            put(out, 0)
            if avx2 {
                let T = S.assumingMemoryBound(to: Int32.self)
                dm_label_table_row_avx2(row, T + above + 1, T + out + 1, w)
                continue
            }
            var run: Int32 = 0
            for x in 0..<w {
                run &+= Int32(row[x])
                put(out + x + 1, S.load(fromByteOffset: 4 * (above + x + 1), as: Int32.self) &+ run)
            }
        }
    }

    /// The mean of `fill` over radius r into `D`, rows `ys`, from the table `S`
    /// (`labelTable` from row `first`, covering every row within r of `ys`).
    func labelMean(_ ys: Range<Int>, radius r: Int, into D: UnsafeMutablePointer<Float>, table S: UnsafeMutableRawPointer,
                   first: Int) {
        let w = dw, h = dh, sw = w + 1
        let inner = min(r, w)..<max(min(r, w), w - r)
        for y in ys {
            let y1 = max(y - r, 0), y2 = min(y + r, h - 1)
            let ny = y2 - y1 + 1
            let A = S + 4 * (y1 - first) * sw, B = S + 4 * (y2 + 1 - first) * sw
            let out = D + y * w
            @inline(__always) func at(_ p: UnsafeMutableRawPointer, _ i: Int) -> Int32 {
                p.load(fromByteOffset: 4 * i, as: Int32.self)
            }
            @inline(__always) func count(_ x: Int) -> Int32 {
                let x1 = max(x - r, 0), x2 = min(x + r, w - 1)
                return at(B, x2 + 1) &- at(B, x1) &- at(A, x2 + 1) &+ at(A, x1)
            }
            // (the clipped columns divide by their area, the others scale: as `boxMean`)
            for x in 0..<inner.lowerBound {
                out[x] = Float(Double(count(x)) / Double((min(x + r, w - 1) - max(x - r, 0) + 1) * ny))
            }
            let scale = 1 / Double((2 * r + 1) * ny)
            @inline(__always) func at2(_ p: UnsafeMutableRawPointer, _ i: Int) -> SIMD2<Int32> {
                p.loadUnaligned(fromByteOffset: 4 * i, as: SIMD2<Int32>.self)
            }
            var x = inner.lowerBound
            if avx2 {
                // (eight at a time, the same conversions: `DMKernels`)
                x = dm_label_mean_row_avx2(A.assumingMemoryBound(to: Int32.self), B.assumingMemoryBound(to: Int32.self),
                                           out, x, inner.upperBound, Int32(r), scale)
            }
            while x + 2 <= inner.upperBound {
                // (two at a time: SSE2 converts two integers to doubles at once)
                let c = at2(B, x + r + 1) &- at2(B, x - r) &- at2(A, x + r + 1) &+ at2(A, x - r)
                let v = SIMD2<Double>(Double(c[0]), Double(c[1])) * scale
                out[x] = Float(v[0]); out[x + 1] = Float(v[1])
                x += 2
            }
            while x < inner.upperBound { out[x] = Float(Double(count(x)) * scale); x += 1 }
            for x in inner.upperBound..<w {
                out[x] = Float(Double(count(x)) / Double((min(x + r, w - 1) - max(x - r, 0) + 1) * ny))
            }
        }
    }
}
