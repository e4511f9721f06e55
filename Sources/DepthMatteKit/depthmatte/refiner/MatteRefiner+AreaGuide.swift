// SPDX-License-Identifier: LGPL-2.1-or-later
import DMKernels

/// The area downsampler: the video averaged over each cell of a coarser
/// grid (the guide of docs/quality.md step 2, refine=guided, on the output grid).
extension MatteRefiner {
    /// The video columns and rows bounding each cell of a `width` × `height`
    /// grid (kept while the sizes stay).
    static func gridRanges(_ v: RGBImageView, width gw: Int, height gh: Int,
                           columns: inout [Int32], rows: inout [Int32], key: inout (Int, Int, Int, Int)) {
        if key != (v.width, v.height, gw, gh) {
            key = (v.width, v.height, gw, gh)
            columns = (0...gw).map { Int32($0 * v.width / gw) }
            rows = (0...gh).map { Int32($0 * v.height / gh) }
        }
    }

    /// `gridRanges` into `columns` (`gw + 1` values) and `rows` (`gh + 1`).
    static func gridRanges(_ v: RGBImageView, width gw: Int, height gh: Int,
                           columnPlane columns: UnsafeMutablePointer<Int32>, rowPlane rows: UnsafeMutablePointer<Int32>) {
        for x in 0...gw { columns[x] = Int32(x * v.width / gw) }
        for y in 0...gh { rows[y] = Int32(y * v.height / gh) }
    }

    /// R, G, B in [0, 1] (three planes of `gw` × `gh`, `planeStride` apart), averaged over the
    /// video pixels of each grid cell, for grid rows `gys`.
    static func areaRGB(_ v: RGBImageView, width gw: Int, height gh: Int, gridRows gys: Range<Int>,
                        columns cx: UnsafePointer<Int32>, rows ry: UnsafePointer<Int32>,
                        into O: UnsafeMutablePointer<Float>, planeStride gn: Int,
                        columnSums colSums: UnsafeMutablePointer<UInt32>? = nil, avx2: Bool = kernelsHaveAVX2) {
        let ps = v.pixelStride, cr = v.r, cg = v.g, cb = v.b
        // 4-byte pixels: first each video column over the cell's rows, eight
        // pixels at a time (a contiguous pass per row), bytes 0, 2 and 1, 3 in
        // the 16-bit lanes of two words (exact up to 257 rows per cell); then
        // the columns of each cell. Integer sums in any order: the same values
        // as byte by byte.
        if ps == 4, let colSums, v.height / max(gh, 1) + 2 <= 257 {
            let vw = v.width
            let even = colSums, odd = colSums + vw
            for gy in gys {
                let y0 = Int(ry[gy]), y1 = max(Int(ry[gy + 1]), y0 + 1)
                var gx4 = 0
                if avx2 {
                    // the same sums and means by `DMKernels`, eight columns and
                    // eight cells two or three columns wide a step (the
                    // first cell's width; whole-word sums while they fit)
                    let i = gy * gw, cw = gw > 0 ? Int(cx[1]) - Int(cx[0]) : 0
                    let cells = (cw == 2 || cw == 3) && (y1 - y0) * cw <= 257 ? cw : 0
                    gx4 = dm_area_row_avx2(v.row(y0), v.stride, Int32(y1 - y0), Int32(vw), even, odd, cx, Int32(gw),
                                           Int32(cells), 1 / Float(255 * (y1 - y0) * max(cells, 1)),
                                           Int32(cr), Int32(cg), Int32(cb), O + i, O + gn + i, O + 2 * gn + i)
                } else {
                    columnSums(v, y0, y1, even, odd)
                    if (y1 - y0) * 3 <= 257 {
                        gx4 = threeColumnCells(v, gy, y0, y1, gw, cx, even, odd, O, gn)
                    }
                }
                cellMeans(v, gy, y0, y1, from: gx4, gw, cx, even, odd, O, gn)
            }
            return
        }
        for gy in gys {
            let y0 = Int(ry[gy]), y1 = max(Int(ry[gy + 1]), y0 + 1)
            for gx in 0..<gw {
                let x0 = Int(cx[gx]), x1 = max(Int(cx[gx + 1]), x0 + 1)
                var sr: UInt32 = 0, sg: UInt32 = 0, sb: UInt32 = 0
                for y in y0..<y1 {
                    let row = v.row(y)
                    for x in x0..<x1 {
                        let p = row + x * ps
                        sr += UInt32(p[cr]); sg += UInt32(p[cg]); sb += UInt32(p[cb])
                    }
                }
                let inv = 1 / Float(255 * (y1 - y0) * (x1 - x0))
                let o = gy * gw + gx
                O[o] = Float(sr) * inv; O[gn + o] = Float(sg) * inv; O[2 * gn + o] = Float(sb) * inv
            }
        }
    }

    /// The packed column sums of video rows y0 ..< y1 (4-byte pixels): per
    /// column, bytes 0 and 2 in the 16-bit lanes of `even`, bytes 1 and 3
    /// in those of `odd`; the rows summed in registers, eight columns at a
    /// time.
    @inline(__always)
    private static func columnSums(_ v: RGBImageView, _ y0: Int, _ y1: Int,
                                   _ even: UnsafeMutablePointer<UInt32>, _ odd: UnsafeMutablePointer<UInt32>) {
        let vw = v.width
        let mask = SIMD8<UInt32>(repeating: 0x00FF_00FF)
        let vw8 = vw & ~7
        // the cell's rows summed in registers, eight columns at a time
        let first = UnsafeRawPointer(v.row(y0)), stride = v.stride
        var x = 0
        while x < vw8 {
            var e = SIMD8<UInt32>(repeating: 0), o = e
            var row = first + 4 * x
            for _ in y0..<y1 {
                let q = row.loadUnaligned(as: SIMD8<UInt32>.self)
                e &+= q & mask; o &+= (q &>> 8) & mask
                row += stride
            }
            UnsafeMutableRawPointer(even + x).storeBytes(of: e, as: SIMD8<UInt32>.self)
            UnsafeMutableRawPointer(odd + x).storeBytes(of: o, as: SIMD8<UInt32>.self)
            x += 8
        }
        while x < vw {
            var e: UInt32 = 0, o: UInt32 = 0
            for y in y0..<y1 {
                let q = UnsafeRawPointer(v.row(y)).loadUnaligned(fromByteOffset: 4 * x, as: UInt32.self)
                e &+= q & 0x00FF_00FF; o &+= (q >> 8) & 0x00FF_00FF
            }
            even[x] = e; odd[x] = o
            x += 1
        }
    }

    /// Cells three video columns wide (1080p onto the 640-wide
    /// grid), grid row gy: four cells per step, each lane the scalar loop's
    /// integer sums; the integers (< 2^16) become floats
    /// exactly through the 2^23 bit pattern. Returns the first cell left
    /// for `cellMeans` (the run of three-wide cells from 0 ends there).
    @inline(__always)
    private static func threeColumnCells(_ v: RGBImageView, _ gy: Int, _ y0: Int, _ y1: Int, _ gw: Int,
                                         _ cx: UnsafePointer<Int32>,
                                         _ even: UnsafeMutablePointer<UInt32>, _ odd: UnsafeMutablePointer<UInt32>,
                                         _ O: UnsafeMutablePointer<Float>, _ gn: Int) -> Int {
        let vw = v.width, cr = v.r, cg = v.g, cb = v.b
        var gx4 = 0
        typealias U4 = SIMD4<UInt32>
        let inv3 = 1 / Float(255 * (y1 - y0) * 3)
        @inline(__always) func ld(_ p: UnsafeMutablePointer<UInt32>, _ x: Int) -> U4 {
            UnsafeRawPointer(p + x).loadUnaligned(as: U4.self)
        }
        @inline(__always) func cells(_ p: UnsafeMutablePointer<UInt32>, _ x: Int) -> U4 {
            let a = ld(p, x), b = ld(p, x + 4), c = ld(p, x + 8)
            return U4(a[0], a[3], b[2], c[1]) &+ U4(a[1], b[0], b[3], c[2]) &+ U4(a[2], b[1], c[0], c[3])
        }
        @inline(__always) func channel(_ e: U4, _ o: U4, _ c: Int) -> SIMD4<Float> {
            let w = c & 1 == 0 ? e : o
            let v = c >= 2 ? w &>> 16 : w & 0xFFFF
            return unsafeBitCast(v | 0x4B00_0000, to: SIMD4<Float>.self) - 8_388_608
        }
        @inline(__always) func storeMean(_ v: SIMD4<Float>, _ p: UnsafeMutablePointer<Float>) { storeF4(v * inv3, p) }
        while gx4 + 4 <= gw {
            let x0 = Int(cx[gx4])
            guard Int(cx[gx4 + 1]) == x0 + 3, Int(cx[gx4 + 2]) == x0 + 6, Int(cx[gx4 + 3]) == x0 + 9,
                  Int(cx[gx4 + 4]) == x0 + 12, x0 + 12 <= vw else { break }
            let e = cells(even, x0), o = cells(odd, x0)
            let i = gy * gw + gx4
            storeMean(channel(e, o, cr), O + i); storeMean(channel(e, o, cg), O + gn + i)
            storeMean(channel(e, o, cb), O + 2 * gn + i)
            gx4 += 4
        }
        return gx4
    }

    /// The means of grid row gy's cells from `gx4` on, from the packed
    /// column sums (whole words while a cell's sums fit the 16-bit lanes).
    @inline(__always)
    private static func cellMeans(_ v: RGBImageView, _ gy: Int, _ y0: Int, _ y1: Int, from gx4: Int, _ gw: Int,
                                  _ cx: UnsafePointer<Int32>,
                                  _ even: UnsafeMutablePointer<UInt32>, _ odd: UnsafeMutablePointer<UInt32>,
                                  _ O: UnsafeMutablePointer<Float>, _ gn: Int) {
        let cr = v.r, cg = v.g, cb = v.b
        var lastWidth = 0
        var inv: Float = 0
        for gx in gx4..<gw {
            let x0 = Int(cx[gx]), x1 = max(Int(cx[gx + 1]), x0 + 1)
            var s0: UInt32 = 0, s1: UInt32 = 0, s2: UInt32 = 0, s3: UInt32 = 0
            if (y1 - y0) * (x1 - x0) <= 257 {
                // the cell's sums still fit the 16-bit lanes: add whole words
                var e: UInt32 = 0, o: UInt32 = 0
                for x in x0..<x1 { e &+= even[x]; o &+= odd[x] }
                s0 = e & 0xFFFF; s2 = e >> 16; s1 = o & 0xFFFF; s3 = o >> 16
            } else {
                for x in x0..<x1 {
                    let e = even[x], o = odd[x]
                    s0 &+= e & 0xFFFF; s2 &+= e >> 16; s1 &+= o & 0xFFFF; s3 &+= o >> 16
                }
            }
            @inline(__always) func byte(_ c: Int) -> UInt32 { c == 0 ? s0 : (c == 1 ? s1 : (c == 2 ? s2 : s3)) }
            let sr = byte(cr), sg = byte(cg), sb = byte(cb)
            if x1 - x0 != lastWidth { lastWidth = x1 - x0; inv = 1 / Float(255 * (y1 - y0) * lastWidth) }
            let i = gy * gw + gx
            O[i] = Float(sr) * inv; O[gn + i] = Float(sg) * inv; O[2 * gn + i] = Float(sb) * inv
        }
    }
}
