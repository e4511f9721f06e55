// SPDX-License-Identifier: LGPL-2.1-or-later
/// Per source row of the matte: the span of values that are not 0, and
/// (with several bands) how many values are strictly between 0 and 1: what
/// the runs and the band scheduling start from.
extension MatteCompositor {
    /// `rowSpan` and (bands > 1) `rowMixed` of every row of `matte`.
    func measureRows(_ matte: FloatPlane, bands: Int) {
        let sw = matte.width, sh = matte.height
        let span = scratch.rowSpan.base, mixed = scratch.rowMixed.base
        matte.pixels.withUnsafeBufferPointer { m in
            let zero = SIMD8<Float>(repeating: 0), one = SIMD8<Float>(repeating: 1)
            for r in 0..<sh {
                let row = m.baseAddress! + r * sw
                var lo = 0, hi = sw - 1
                while lo + 8 <= sw && all(UnsafeRawPointer(row + lo).loadUnaligned(as: SIMD8<Float>.self) .== zero) { lo += 8 }
                while lo < sw && row[lo] == 0 { lo += 1 }
                while hi - 8 >= lo && all(UnsafeRawPointer(row + hi - 7).loadUnaligned(as: SIMD8<Float>.self) .== zero) { hi -= 8 }
                while hi > lo && row[hi] == 0 { hi -= 1 }
                span[2 * r] = Int32(lo); span[2 * r + 1] = Int32(hi)
                if bands > 1 {
                    // values strictly between 0 and 1 in the span: the row's edge work
                    var count = SIMD8<Int32>(repeating: 0)
                    var x = lo
                    while x + 8 <= hi + 1 {
                        let v = UnsafeRawPointer(row + x).loadUnaligned(as: SIMD8<Float>.self)
                        count &-= unsafeBitCast((v .> zero) .& (v .< one), to: SIMD8<Int32>.self)  // true is -1
                        x += 8
                    }
                    var c = Int(count.wrappedSum())
                    while x <= hi { if row[x] > 0 && row[x] < 1 { c += 1 }; x += 1 }
                    mixed[r] = Int32(c)
                }
            }
        }
    }
}
