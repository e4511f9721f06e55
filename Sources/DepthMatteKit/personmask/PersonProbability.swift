// SPDX-License-Identifier: LGPL-2.1-or-later
/// The selfie segmentation model's probability to the personmask element's GRAY8 mask,
/// the bytes the Python element made with cv2.convertScaleAbs and cv2.resize(INTER_LINEAR).

public enum PersonProbability {
    /// Model output probability (HxW float 0...1) to GRAY8 at outWidth x outHeight (row stride outStride):
    /// value = saturate(round(p*255)) (what cv2.convertScaleAbs does), and a bilinear resize matching
    /// cv2.INTER_LINEAR (half-pixel centres) when the sizes differ.
    ///
    /// Bytes: |p * 255| rounded half to even, saturated to 0...255 (NaN gives 0).
    /// Resize: OpenCV's 8-bit fixed-point bilinear. Source position (d + 0.5) * src/dst - 0.5, clamped to
    /// the edge pixels; weights (1 - f, f) as integers of 2048ths; a row is first blended across
    /// (sums in 2048ths), then two rows are blended down as its SIMD path does:
    /// ((h0 >> 4) * b0 >> 16) + ((h1 >> 4) * b1 >> 16), plus 2, >> 2 (e.g. 100 and 200 halfway: 150).
    public static func write(_ prob: UnsafePointer<Float>, width: Int, height: Int,
                             to out: UnsafeMutablePointer<UInt8>, outWidth: Int, outHeight: Int, outStride: Int) {
        precondition(width >= 1 && height >= 1 && outWidth >= 1 && outHeight >= 1 && outStride >= outWidth)
        if width == outWidth && height == outHeight {
            for y in 0..<height {
                let src = prob + y * width, dst = out + y * outStride
                for x in 0..<width { dst[x] = byte(src[x]) }
            }
            return
        }
        withUnsafeTemporaryAllocation(of: Int32.self, capacity: 4 * outWidth + 2 * outHeight) { scratch in
            let base = scratch.baseAddress!
            let xofs = base, xa0 = base + outWidth, xa1 = base + 2 * outWidth
            let yofs = base + 3 * outWidth, yb0 = yofs + outHeight
            coefficients(source: width, target: outWidth, offsets: xofs, w0: xa0, w1: xa1)
            coefficients(source: height, target: outHeight, offsets: yofs, w0: yb0, w1: nil)
            withUnsafeTemporaryAllocation(of: Int32.self, capacity: 2 * outWidth) { rows in
                var row0 = rows.baseAddress!, row1 = row0 + outWidth
                var have0 = -1, have1 = -1  // the source rows row0 and row1 hold
                func blendAcross(_ y: Int, into h: UnsafeMutablePointer<Int32>) {
                    let src = prob + y * width
                    for d in 0..<outWidth {
                        let sx = Int(xofs[d])
                        let a = Int32(byte(src[sx])), b = sx + 1 < width ? Int32(byte(src[sx + 1])) : 0
                        h[d] = a * xa0[d] + b * xa1[d]
                    }
                }
                for d in 0..<outHeight {
                    let sy = Int(yofs[d]), sy1 = min(sy + 1, height - 1)
                    if have0 != sy {
                        if have1 == sy { swap(&row0, &row1); swap(&have0, &have1) } else { blendAcross(sy, into: row0); have0 = sy }
                    }
                    if have1 != sy1 { blendAcross(sy1, into: row1); have1 = sy1 }
                    let b0 = yb0[d], b1 = 2048 - b0
                    let dst = out + d * outStride
                    for x in 0..<outWidth {
                        let t0 = min(row0[x] >> 4, 32767), t1 = min(row1[x] >> 4, 32767)
                        let v = ((t0 * b0) >> 16) + ((t1 * b1) >> 16)
                        dst[x] = UInt8(clamping: (v + 2) >> 2)
                    }
                }
            }
        }
    }

    /// The share of the plane at 0.5 or more below which the selfie model sees no one: a
    /// person standing 4 m from a Kinect v1 fills about 4 % of its frame, so under 1 % is at most
    /// a quarter of such a person (on the dev clips an empty room gives 0 %, the office's
    /// seated people at the edge at most 0.06 %, the smallest walker seen 1.9 %).
    public static let seenShare: Float = 0.01

    /// Whether the selfie model sees someone in its probability plane: at least `seenShare` of
    /// the values are 0.5 or more.
    public static func seesSomeone(_ prob: UnsafeBufferPointer<Float>) -> Bool {
        var count = 0
        for p in prob where p >= 0.5 { count += 1 }
        return Float(count) >= seenShare * Float(prob.count) && count > 0
    }

    /// cv2.convertScaleAbs(p, alpha=255): |p * 255| rounded half to even, saturated.
    @inline(__always) static func byte(_ p: Float) -> UInt8 {
        let v = abs(p * 255)
        if !(v >= 0) { return 0 }
        return v >= 255 ? 255 : UInt8(roundHalfEven(v))
    }

    /// `v.rounded(.toNearestOrEven)` for 0 <= v < 2^23 without a libm call
    /// per pixel: v + 2^23 lands where floats are whole numbers, so the
    /// addition rounds v half to even, and the subtraction is exact.
    @inline(__always) static func roundHalfEven(_ v: Float) -> Float {
        (v + 8_388_608) - 8_388_608
    }

    /// OpenCV's linear resize coefficients for one axis: source index and the two weights in 2048ths.
    static func coefficients(source: Int, target: Int, offsets: UnsafeMutablePointer<Int32>,
                             w0: UnsafeMutablePointer<Int32>, w1: UnsafeMutablePointer<Int32>?) {
        let scale = 1 / (Double(target) / Double(source))
        for d in 0..<target {
            var f = Float((Double(d) + 0.5) * scale - 0.5)
            var s = Int(f.rounded(.down))
            f -= Float(s)
            if s < 0 { f = 0; s = 0 }
            if s >= source - 1 { f = 0; s = source - 1 }
            offsets[d] = Int32(s)
            w0[d] = Int32(((1 - f) * 2048).rounded(.toNearestOrEven))
            w1?[d] = Int32((f * 2048).rounded(.toNearestOrEven))
        }
    }
}
