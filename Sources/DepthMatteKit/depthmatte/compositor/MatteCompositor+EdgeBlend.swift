// SPDX-License-Identifier: LGPL-2.1-or-later
/// The blend of an edge run in 32-bit pixels (any byte order; the alpha byte
/// at `alphaShift`), four pixels per step. The colour bytes are multiplied in
/// 16-bit lanes (two per pixel word: bytes 0 and 2, then 1 and 3), which SSE2
/// does in one instruction, and divided by 255 with exact rounding:
/// `(x + 128 + ((x + 128) >> 8)) >> 8`. Alpha is `round(255 m)`, m clamped to
/// [0, 1]; the results equal the per-pixel formula's (tested).
enum EdgeBlend {
    typealias U4 = SIMD4<UInt32>
    typealias H8 = SIMD8<UInt16>

    @inline(__always) static func alpha(_ m: SIMD4<Float>) -> U4 {
        // floor(255 c + 0.5) without the generic (slow) float-to-integer
        // conversion: adding 2^23 leaves the value rounded to an integer in
        // the low significand bits (ties to even); one compare makes it floor
        let c = m.replacing(with: 0, where: m .< 0).replacing(with: 1, where: m .> 1)
        let y = c * 255 + 0.5
        let big = y + 8_388_608
        let down = (big - 8_388_608) .> y
        return (unsafeBitCast(big, to: U4.self) & 0x1ff) &- (unsafeBitCast(down, to: U4.self) & 1)
    }

    /// v·a + g·(255 − a), rounded /255, per colour byte; `aa` is a in both 16-bit halves.
    @inline(__always) static func mix(_ v: U4, _ g: U4, _ aa: U4) -> U4 {
        let ia = U4(repeating: 0x00ff_00ff) &- aa
        let lo = unsafeBitCast(v & 0x00ff_00ff, to: H8.self) &* unsafeBitCast(aa, to: H8.self)
            &+ unsafeBitCast(g & 0x00ff_00ff, to: H8.self) &* unsafeBitCast(ia, to: H8.self) &+ 0x80
        let hi = unsafeBitCast((v &>> 8) & 0x00ff_00ff, to: H8.self) &* unsafeBitCast(aa, to: H8.self)
            &+ unsafeBitCast((g &>> 8) & 0x00ff_00ff, to: H8.self) &* unsafeBitCast(ia, to: H8.self) &+ 0x80
        let rlo = unsafeBitCast((lo &+ (lo &>> 8)) &>> 8, to: U4.self)
        let rhi = unsafeBitCast((hi &+ (hi &>> 8)) &>> 8, to: U4.self)
        return rlo | (rhi &<< 8)
    }

    /// Returns the number of pixels with m > 0.5.
    static func run(matte mp: UnsafePointer<Float>, range: Range<Int>, video: UnsafePointer<UInt32>,
                    background: UnsafePointer<UInt32>?, color: UInt32, alphaMask: UInt32, alphaShift: UInt32,
                    output out: UnsafeMutablePointer<UInt32>, mode: MatteOutput) -> Int {
        var covered = SIMD4<Int32>(repeating: 0)
        var x = range.lowerBound
        let end = range.upperBound
        let mask = U4(repeating: alphaMask)
        let half = SIMD4<Float>(repeating: 0.5)
        @inline(__always) func load(_ p: UnsafePointer<UInt32>, _ x: Int) -> U4 {
            UnsafeRawPointer(p + x).loadUnaligned(as: U4.self)
        }
        while x + 4 <= end {
            let m = UnsafeRawPointer(mp + x).loadUnaligned(as: SIMD4<Float>.self)
            covered &-= unsafeBitCast(m .> half, to: SIMD4<Int32>.self)  // true is -1
            let a = alpha(m)
            let r: U4
            switch mode {
            case .composite:
                let g = background.map { load($0, x) } ?? U4(repeating: color)
                r = mix(load(video, x), g, a | (a &<< 16)) | mask
            case .matte:
                r = (a &* 0x0101_0101) | mask
            case .alpha:
                r = (load(video, x) & ~mask) | (a &<< alphaShift)
            }
            UnsafeMutableRawPointer(out + x).storeBytes(of: r, as: U4.self)
            x += 4
        }
        var n = Int(covered.wrappedSum())
        while x < end {
            let m = mp[x]
            if m > 0.5 { n += 1 }
            let a = alpha(SIMD4(repeating: m))
            let r: U4
            switch mode {
            case .composite:
                r = mix(U4(repeating: video[x]), U4(repeating: background?[x] ?? color), a | (a &<< 16)) | mask
            case .matte:
                r = (a &* 0x0101_0101) | mask
            case .alpha:
                r = (U4(repeating: video[x]) & ~mask) | (a &<< alphaShift)
            }
            out[x] = r[0]
            x += 1
        }
        return n
    }
}
