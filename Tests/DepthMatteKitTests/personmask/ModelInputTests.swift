// SPDX-License-Identifier: LGPL-2.1-or-later
import XCTest
@testable import DepthMatteKit

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
        // 3 columns into 2: the middle column splits in halves: (0 + 0.5) / 1.5, (0.5 + 2) / 1.5 of 3x
        let (d3, s3) = frame(3, 1, (0, 1, 2), 3) { x, _ in (UInt8(30 * x), 0, 0) }
        let (t3, _) = fill(d3, 3, 1, s3, (0, 1, 2), 3, 2, 1, 0...255, .stretch)
        XCTAssertEqual(t3[0], 10, accuracy: 1e-4); XCTAssertEqual(t3[3], 50, accuracy: 1e-4)
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
        XCTAssertEqual(tb[96 * 192 * 3], 200, accuracy: 1e-2)
        let (tiny, _) = fill(big, 7680, 4320, bs, (1, 2, 3), 4, 1, 1, 0...255, .stretch)
        XCTAssertEqual(tiny[1], 100, accuracy: 1e-2)
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
