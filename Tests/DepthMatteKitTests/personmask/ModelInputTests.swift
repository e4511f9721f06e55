// SPDX-License-Identifier: LGPL-2.1-or-later
import XCTest
@_spi(Bench) @testable import DepthMatteKit

final class ModelInputTests: XCTestCase {
    static let layouts: [(String, (Int, Int, Int), Int)] = [
        ("RGB", (0, 1, 2), 3), ("BGR", (2, 1, 0), 3), ("RGBA", (0, 1, 2), 4), ("BGRA", (2, 1, 0), 4),
        ("ARGB", (1, 2, 3), 4), ("ABGR", (3, 2, 1), 4), ("RGBx", (0, 1, 2), 4), ("BGRx", (2, 1, 0), 4),
        ("xRGB", (1, 2, 3), 4), ("xBGR", (3, 2, 1), 4)]

    /// A w x h frame of `layout` from rgb(x, y), the spare byte 77, rows padded by 5 bytes.
    func frame(_ w: Int, _ h: Int, _ off: (Int, Int, Int), _ ps: Int, _ rgb: (Int, Int) -> (UInt8, UInt8, UInt8)) -> ([UInt8], Int) {
        let stride = w * ps + 5
        var d = [UInt8](repeating: 77, count: stride * h)
        for y in 0..<h { for x in 0..<w {
            let (r, g, b) = rgb(x, y), p = y * stride + x * ps
            d[p + off.0] = r; d[p + off.1] = g; d[p + off.2] = b
        } }
        return (d, stride)
    }

    func fill(_ d: [UInt8], _ w: Int, _ h: Int, _ stride: Int, _ off: (Int, Int, Int), _ ps: Int,
              _ tw: Int, _ th: Int, _ range: ClosedRange<Float>, _ fit: ModelInputSampler.Fit,
              _ s: ModelInputSampler = ModelInputSampler()) -> ([Float], Letterbox) {
        var t = [Float](repeating: .nan, count: tw * th * 3)
        let box = d.withUnsafeBufferPointer { buf in
            t.withUnsafeMutableBufferPointer {
                s.fill(PackedRGBFrame(base: buf.baseAddress!, width: w, height: h, stride: stride, red: off.0,
                                      green: off.1, blue: off.2, pixelSize: ps),
                       into: $0.baseAddress!, width: tw, height: th, range: range, fit: fit)
            }
        }
        return (t, box)
    }

    func testFlatColourExact() {
        let (d, st) = frame(512, 256, (0, 1, 2), 3) { _, _ in (255, 0, 51) }
        let (t, box) = fill(d, 512, 256, st, (0, 1, 2), 3, 256, 128, 0...1, .stretch)
        XCTAssertEqual(box, .none)
        for i in stride(from: 0, to: t.count, by: 3) {
            XCTAssertEqual(t[i], 1); XCTAssertEqual(t[i + 1], 0); XCTAssertEqual(t[i + 2], 51 * (1 / Float(255)))
        }
    }

    func testGradientIsAreaAverage() {
        // red = x: pairs of columns average to 2j + 0.5 exactly
        let (d, st) = frame(8, 2, (0, 1, 2), 3) { x, _ in (UInt8(x), 0, 0) }
        let (t, _) = fill(d, 8, 2, st, (0, 1, 2), 3, 4, 1, 0...255, .stretch)
        XCTAssertEqual((0..<4).map { t[3 * $0] }, [0.5, 2.5, 4.5, 6.5])
        // 6 columns into 3: each tensor column averages a pair, 0 and 30 in the first two
        let (d3, s3) = frame(6, 2, (0, 1, 2), 3) { x, _ in (UInt8(30 * (x / 2)), 0, 0) }
        let (t3, _) = fill(d3, 6, 2, s3, (0, 1, 2), 3, 3, 1, 0...255, .stretch)
        XCTAssertEqual(t3[0], 0, accuracy: 1e-4); XCTAssertEqual(t3[3], 30, accuracy: 1e-4)
    }

    /// A frame less than twice the stretched tensor along an axis is sampled
    /// bilinearly at pixel centres and rounded to 8 bits: 3 columns of red
    /// 0, 30, 60 into 2 sit at x 0.25 and 1.75: 7.5 and 52.5, rounded 8 and 53.
    func testSmallFramesAreSampledBilinearly() {
        let (d, st) = frame(3, 1, (0, 1, 2), 3) { x, _ in (UInt8(30 * x), 0, 0) }
        let (t, box) = fill(d, 3, 1, st, (0, 1, 2), 3, 2, 1, 0...255, .stretch)
        XCTAssertEqual(box, .none)
        XCTAssertEqual(t[0], 8); XCTAssertEqual(t[3], 53)
        // upscaled: the edges clamp to the first and last pixels
        let (u, _) = fill(d, 3, 1, st, (0, 1, 2), 3, 6, 2, 0...255, .stretch)
        XCTAssertEqual(u[0], 0); XCTAssertEqual(u[15], 60)
    }

    func testLetterboxBorderAndPlacement() {
        // 4x2 white into 4x4: the picture takes rows 1 and 2, the border is range's minimum
        let (d, st) = frame(4, 2, (0, 1, 2), 3) { _, _ in (255, 255, 255) }
        let (t, box) = fill(d, 4, 2, st, (0, 1, 2), 3, 4, 4, -1...1, .letterbox)
        XCTAssertEqual(box, Letterbox(left: 0, top: 0.25, right: 0, bottom: 0.25))
        for y in 0..<4 { for x in 0..<4 { XCTAssertEqual(t[(y * 4 + x) * 3], y == 0 || y == 3 ? -1 : 1, "\(x),\(y)") } }
        // 1920x1080 into 192: top 0.21875, as mediapipe's PadRoi gives
        XCTAssertEqual((1 - (Float(1080) / 1920)) / 2, 0.21875)
    }

    func testAllLayoutsGiveTheSameTensor() {
        let pic: (Int, Int) -> (UInt8, UInt8, UInt8) = { x, y in (UInt8((x * 37 + y) % 256), UInt8((y * 11) % 256), UInt8((x ^ y) % 256)) }
        var first: [Float]?
        for (name, off, ps) in Self.layouts {
            let (d, st) = frame(37, 23, off, ps, pic)
            let (t, _) = fill(d, 37, 23, st, off, ps, 16, 16, -1...1, .letterbox)
            if let f = first { XCTAssertEqual(t, f, name) } else { first = t }
        }
    }

    func testOddSizes() {
        let (d, st) = frame(1, 1, (0, 1, 2), 3) { _, _ in (10, 20, 30) }
        let (t, _) = fill(d, 1, 1, st, (0, 1, 2), 3, 256, 256, 0...255, .stretch)
        XCTAssertEqual(t[0], 10, accuracy: 1e-3); XCTAssertEqual(t[t.count - 1], 30, accuracy: 1e-3)
        let (big, bs) = frame(7680, 4320, (1, 2, 3), 4) { _, _ in (200, 100, 0) }
        let (tb, _) = fill(big, 7680, 4320, bs, (1, 2, 3), 4, 192, 192, 0...255, .letterbox)
        XCTAssertEqual(tb[96 * 192 * 3], 200)
        // 8K into 1x1: the step doubles to 128 columns and rows, the flat colour stays exact
        let (tiny, _) = fill(big, 7680, 4320, bs, (1, 2, 3), 4, 1, 1, 0...255, .stretch)
        XCTAssertEqual(tiny, [200, 100, 0])
        let (t256, _) = fill(big, 7680, 4320, bs, (1, 2, 3), 4, 256, 256, 0...255, .stretch)
        XCTAssertEqual(Set(t256), [200, 100, 0])
        // every pixel of a 1x1 frame upscaled reads it, exactly
        XCTAssertEqual(Set(t), [10, 20, 30])
    }

    /// 1920x1080 into each model's tensor (every 2nd row read, pixel pairs): a flat colour
    /// is exact, the letterbox border is exactly range's minimum (42 rows of 192, 32 of 128).
    func testFlatColourExactOnTheDecimatedPaths() {
        let (d, st) = frame(1920, 1080, (0, 1, 2), 4) { _, _ in (255, 0, 51) }
        let (t, _) = fill(d, 1920, 1080, st, (0, 1, 2), 4, 256, 256, 0...1, .stretch)
        for i in stride(from: 0, to: t.count, by: 3) {
            XCTAssertEqual(t[i], 1); XCTAssertEqual(t[i + 1], 0); XCTAssertEqual(t[i + 2], 51 * (1 / Float(255)))
        }
        for (side, border) in [(192, 42), (128, 28)] {
            let (f, box) = fill(d, 1920, 1080, st, (0, 1, 2), 4, side, side, -1...1, .letterbox)
            XCTAssertEqual(box.top, 0.21875)
            for y in 0..<side { for x in 0..<side {
                let p = (y * side + x) * 3
                if y < border || y >= side - border {
                    XCTAssertEqual([f[p], f[p + 1], f[p + 2]], [-1, -1, -1], "\(side) \(x),\(y)")
                } else {
                    XCTAssertEqual([f[p], f[p + 1], f[p + 2]], [1, -1, 51 * (2 / Float(255)) - 1], "\(side) \(x),\(y)")
                }
            } }
        }
    }

    /// The decimated path's rule, exactly: along a row a sample is a pair of pixels (both
    /// read), down a column a sample is the first row of its pair (the second is never read).
    func testDecimatedSamplesArePairsAlongRowsAndFirstRowsDownColumns() {
        // red = x, 16 into 2 (8 pixels a tensor pixel): every pixel counts, 3.5 and 11.5
        let (d, st) = frame(16, 8, (0, 1, 2), 4) { x, y in (UInt8(x), UInt8(y), 0) }
        let (t, _) = fill(d, 16, 8, st, (0, 1, 2), 4, 2, 2, 0...255, .stretch)
        XCTAssertEqual([t[0], t[3], t[6], t[9]], [3.5, 11.5, 3.5, 11.5])
        // green = y, 8 rows into 2: rows 0 and 2, then 4 and 6
        XCTAssertEqual([t[1], t[4], t[7], t[10]], [1, 1, 5, 5])
        let s = ModelInputSampler(); s.maxStep = 1
        let (full, _) = fill(d, 16, 8, st, (0, 1, 2), 4, 2, 2, 0...255, .stretch, s)
        XCTAssertEqual([full[1], full[7]], [1.5, 5.5])
        // so rows that alternate black and white read as black once a footprint spans 4 rows
        let (stripes, ss) = frame(64, 64, (0, 1, 2), 3) { _, y in y % 2 == 0 ? (0, 0, 0) : (255, 255, 255) }
        XCTAssertEqual(Set(fill(stripes, 64, 64, ss, (0, 1, 2), 3, 16, 16, 0...255, .stretch).0), [0])
        XCTAssertEqual(Set(fill(stripes, 64, 64, ss, (0, 1, 2), 3, 16, 16, 0...255, .stretch, s).0), [127.5])
    }

    /// A smooth frame (slopes of at most 1 level a pixel) read every 2nd row stays within
    /// 1 level of the average of every pixel, in each model's tensor from 1920x1080.
    func testDecimatedPathIsBoundedAgainstTheFullAverage() {
        func tri(_ v: Int) -> UInt8 { UInt8(abs(v % 510 - 255)) }
        let (d, st) = frame(1920, 1080, (2, 1, 0), 4) { x, y in (tri(x / 2 + y / 2), tri(y), tri(x + 100)) }
        let full = ModelInputSampler(); full.maxStep = 1
        var worst: Float = 0
        for (w, h, fit) in [(256, 256, ModelInputSampler.Fit.stretch), (192, 192, .letterbox), (128, 128, .letterbox)] {
            let (a, _) = fill(d, 1920, 1080, st, (2, 1, 0), 4, w, h, 0...255, fit)
            let (b, _) = fill(d, 1920, 1080, st, (2, 1, 0), 4, w, h, 0...255, fit, full)
            for i in a.indices { worst = max(worst, abs(a[i] - b[i])) }
        }
        XCTAssertLessThanOrEqual(worst, 1)
        XCTAssertGreaterThan(worst, 0.1)  // the two paths do differ
    }

    /// The decimated path (160x90 into 32x32 and 40x16: 5 and 4 pixels a tensor pixel, odd
    /// widths end on their last pair) gives one tensor for all 10 layouts.
    func testAllLayoutsGiveTheSameTensorOnTheDecimatedPath() {
        let pic: (Int, Int) -> (UInt8, UInt8, UInt8) = { x, y in (UInt8((x * 37 + y) % 256), UInt8((y * 11) % 256), UInt8((x ^ y) % 256)) }
        for (w, h, tw, th, fit) in [(160, 90, 32, 32, ModelInputSampler.Fit.letterbox), (161, 91, 40, 16, .stretch)] {
            var first: [Float]?
            for (name, off, ps) in Self.layouts {
                let (d, st) = frame(w, h, off, ps, pic)
                let (t, _) = fill(d, w, h, st, off, ps, tw, th, -1...1, fit)
                XCTAssertFalse(t.contains { $0.isNaN }, name)
                if let f = first { XCTAssertEqual(t, f, name) } else { first = t }
            }
        }
    }

    /// An odd width's last pair is its last two pixels: 9 columns of red = 10 x into 2
    /// (2.25 pairs a tensor pixel, weights in 1/16 of a pair) weighs pairs (0,1) (2,3) (4,5)
    /// 16, 16, 4, then (4,5) (6,7) (7,8) 12, 16, 8 (the last pair is half outside the frame).
    func testOddWidthEndsOnItsLastPair() {
        let (d, st) = frame(9, 2, (0, 1, 2), 3) { x, _ in (UInt8(10 * x), 0, 0) }
        let (t, _) = fill(d, 9, 2, st, (0, 1, 2), 3, 2, 1, 0...255, .stretch)
        XCTAssertEqual(t[0], Float(16 * 10 + 16 * 50 + 4 * 90) / (36 * 2))
        XCTAssertEqual(t[3], Float(12 * 90 + 16 * 130 + 8 * 150) / (36 * 2))
    }

    func testFingerprint() {
        let pic: (Int, Int) -> (UInt8, UInt8, UInt8) = { x, y in (UInt8(x % 256), UInt8(y % 256), 9) }
        let (a, st) = frame(640, 360, (0, 1, 2), 3, pic)
        var b = a
        func fp(_ d: [UInt8], _ off: (Int, Int, Int) = (0, 1, 2), _ ps: Int = 3, _ s: Int? = nil) -> FrameFingerprint {
            d.withUnsafeBufferPointer { FrameFingerprint(PackedRGBFrame(base: $0.baseAddress!, width: 640, height: 360,
                                                                        stride: s ?? st, red: off.0, green: off.1, blue: off.2, pixelSize: ps)) }
        }
        XCTAssertEqual(fp(a), fp(b))
        // a sampled pixel changes: (2*0+1)*640/128 = 5, (2*0+1)*360/72 = 5
        b[5 * st + 5 * 3] ^= 1
        XCTAssertNotEqual(fp(a), fp(b))
        let (c, cs) = frame(640, 360, (2, 1, 0), 4, pic)
        XCTAssertEqual(fp(a), fp(c, (2, 1, 0), 4, cs))
    }
}
