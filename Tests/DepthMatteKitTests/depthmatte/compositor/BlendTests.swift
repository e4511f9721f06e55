// SPDX-License-Identifier: LGPL-2.1-or-later
import XCTest
@_spi(Bench) @testable import DepthMatteKit

final class BlendTests: XCTestCase {
    // dyadic values, so Float and Double products agree exactly (ties included)
    private let matte: [Float] = [0, 1, 0.5, 0.25, 0.75, 0.125, 0.875, 0.5009765625]
    private let video: [RGBA] = [
        RGBA(10, 20, 30, 40), RGBA(200, 100, 50, 7), RGBA(255, 0, 128, 0), RGBA(10, 250, 3, 99),
        RGBA(1, 2, 3, 4), RGBA(90, 180, 45, 200), RGBA(255, 255, 255, 1), RGBA(0, 0, 0, 0),
    ]
    private let backgroundPixels: [RGBA] = [
        RGBA(5, 6, 7), RGBA(8, 9, 10), RGBA(0, 255, 0), RGBA(200, 100, 1),
        RGBA(44, 55, 66), RGBA(255, 255, 255), RGBA(3, 200, 30), RGBA(255, 0, 255),
    ]

    /// Blend one row of `matte.count` pixels. The output starts filled with
    /// 0x5A bytes and has 5 padding bytes.
    private func blend(mode: MatteOutput, layout: Layout, videoLayout: Layout? = nil, matte: [Float],
                       video: [RGBA]?, background: [RGBA]?, color: UInt32 = 0xff00_0000)
        -> (out: TestRGB, covered: Int) {
        let n = matte.count
        let out = TestRGB(width: n, height: 1, layout: layout, padding: 5, paddingByte: 0x5A)
        let vimg = TestRGB(width: n, height: 1, layout: videoLayout ?? layout)
        if let video { for x in 0..<n { vimg[x, 0] = video[x] } }
        let bimg = TestRGB(width: n, height: 1, layout: layout)
        if let background { for x in 0..<n { bimg[x, 0] = background[x] } }
        let covered = matte.withUnsafeBufferPointer { m in
            RowBlender.blend(width: n, matte: m.baseAddress!,
                             video: video == nil ? nil : UnsafePointer(vimg.bytes), videoLayout: vimg.view,
                             background: background == nil ? nil : UnsafePointer(bimg.bytes),
                             color: ARGBColor(argb: color),
                             output: out.bytes, outputLayout: out.view, mode: mode)
        }
        return (out, covered)
    }

    func testColorParsing() {
        let c = ARGBColor(argb: 0x8012_3456)
        XCTAssertEqual(c.r, 0x12); XCTAssertEqual(c.g, 0x34); XCTAssertEqual(c.b, 0x56)
    }

    func testCompositeWithColourForEveryLayout() {
        let color: UInt32 = 0x7f11_c8f0  // alpha ignored; (17, 200, 240)
        for layout in Layout.allCases {
            let (out, covered) = blend(mode: .composite, layout: layout, matte: matte, video: video,
                                       background: nil, color: color)
            for x in 0..<matte.count {
                let m = Double(matte[x]), v = video[x]
                let want = RGBA(Reference.mix(v.r, 17, m), Reference.mix(v.g, 200, m), Reference.mix(v.b, 240, m), 255)
                assertPixel(out[x, 0], want, "\(layout) x=\(x) m=\(m)")
            }
            XCTAssertTrue(out.paddingIntact, "\(layout)")
            XCTAssertEqual(covered, 4, "\(layout)")  // 1, 0.75, 0.875, 0.5+1/1024 are > 0.5
        }
    }

    func testCompositeWithBackgroundRowForEveryLayout() {
        for layout in Layout.allCases {
            let (out, _) = blend(mode: .composite, layout: layout, matte: matte, video: video,
                                 background: backgroundPixels)
            for x in 0..<matte.count {
                let m = Double(matte[x]), v = video[x], b = backgroundPixels[x]
                let want = RGBA(Reference.mix(v.r, b.r, m), Reference.mix(v.g, b.g, m), Reference.mix(v.b, b.b, m), 255)
                assertPixel(out[x, 0], want, "\(layout) x=\(x)")
            }
            XCTAssertTrue(out.paddingIntact)
        }
    }

    func testCompositeEndpointsAndRounding() {
        let (out, _) = blend(mode: .composite, layout: .rgba, matte: [0, 1, 0.5, 0.25, 0.5],
                             video: [RGBA(9, 9, 9), RGBA(201, 102, 3), RGBA(255, 0, 1), RGBA(10, 10, 10), RGBA(100, 101, 0)],
                             background: [RGBA(50, 60, 70), RGBA(1, 1, 1), RGBA(0, 255, 0), RGBA(200, 200, 200), RGBA(0, 0, 1)])
        assertPixel(out[0, 0], RGBA(50, 60, 70))                 // m = 0: background exactly
        assertPixel(out[1, 0], RGBA(201, 102, 3))                // m = 1: video exactly
        assertPixel(out[2, 0], RGBA(128, 128, 1))                // 127.5 rounds up; 0.5 rounds up
        assertPixel(out[3, 0], RGBA(153, 153, 153))              // 200 - 47.5 = 152.5 -> 153
        assertPixel(out[4, 0], RGBA(50, 51, 1))                  // 50, 50.5 -> 51, 0.5 -> 1
    }

    func testCompositeSetsAlphaTo255() {
        for layout in Layout.allCases where layout.hasAlpha {
            let (out, _) = blend(mode: .composite, layout: layout, matte: matte, video: video, background: backgroundPixels)
            for x in 0..<matte.count { XCTAssertEqual(out[x, 0].a, 255, "\(layout) x=\(x)") }
        }
    }

    func testMatteModeIsOpaqueGrey() {
        for layout in Layout.allCases {
            let (out, covered) = blend(mode: .matte, layout: layout, matte: matte, video: video, background: backgroundPixels)
            let grey: [UInt8] = [0, 255, 128, 64, 191, 32, 223, 128]  // round(255 m), halves up
            for x in 0..<matte.count {
                assertPixel(out[x, 0], RGBA(grey[x], grey[x], grey[x], 255), "\(layout) x=\(x)")
            }
            XCTAssertEqual(covered, 4)
            XCTAssertTrue(out.paddingIntact)
        }
    }

    func testAlphaModeKeepsVideoAndPutsMatteInAlpha() {
        for layout in Layout.allCases {
            let (out, _) = blend(mode: .alpha, layout: layout, matte: matte, video: video, background: backgroundPixels)
            let alpha: [UInt8] = [0, 255, 128, 64, 191, 32, 223, 128]
            for x in 0..<matte.count {
                let v = video[x]
                assertPixel(out[x, 0], RGBA(v.r, v.g, v.b, alpha[x]), checkAlpha: layout.hasAlpha, "\(layout) x=\(x)")
            }
            XCTAssertTrue(out.paddingIntact)
        }
    }

    func testVideoInAnotherLayoutIsReadByItsOwnOffsets() {
        let (out, _) = blend(mode: .composite, layout: .rgba, videoLayout: .bgrx, matte: [1, 1, 0.5],
                             video: [RGBA(1, 2, 3), RGBA(200, 100, 50), RGBA(255, 255, 255)], background: nil,
                             color: 0xff00_0000)
        assertPixel(out[0, 0], RGBA(1, 2, 3))
        assertPixel(out[1, 0], RGBA(200, 100, 50))
        assertPixel(out[2, 0], RGBA(128, 128, 128))
        let (rgb, _) = blend(mode: .alpha, layout: .argb, videoLayout: .rgb, matte: [0.2],
                             video: [RGBA(7, 8, 9)], background: nil)
        assertPixel(rgb[0, 0], RGBA(7, 8, 9, 51))
    }

    func testNoVideoIsBlack() {
        let (out, _) = blend(mode: .composite, layout: .bgra, matte: [1, 0, 0.5], video: nil, background: nil,
                             color: 0xff64_c8fa)  // (100, 200, 250)
        assertPixel(out[0, 0], RGBA(0, 0, 0))
        assertPixel(out[1, 0], RGBA(100, 200, 250))
        assertPixel(out[2, 0], RGBA(50, 100, 125))
        let (a, _) = blend(mode: .alpha, layout: .rgba, matte: [0.5], video: nil, background: nil)
        assertPixel(a[0, 0], RGBA(0, 0, 0, 128))
    }

    func testCoverageCountsStrictlyAboveHalf() {
        let (_, c) = blend(mode: .composite, layout: .rgb, matte: [0.5, 0.5000001, 0.49, 1, 0, 0.99],
                           video: nil, background: nil)
        XCTAssertEqual(c, 3)
        let (_, none) = blend(mode: .matte, layout: .rgb, matte: [0, 0, 0.5], video: nil, background: nil)
        XCTAssertEqual(none, 0)
    }

    func testOnlyTheGivenWidthIsWritten() {
        // blend 3 of 5 pixels: pixels 3 and 4 keep their bytes
        let out = TestRGB(width: 5, height: 1, layout: .rgba, paddingByte: 0x5A)
        let m: [Float] = [1, 1, 1]
        let v = TestRGB(width: 5, height: 1, layout: .rgba, fill: RGBA(1, 2, 3))
        _ = m.withUnsafeBufferPointer {
            RowBlender.blend(width: 3, matte: $0.baseAddress!, video: UnsafePointer(v.bytes), videoLayout: v.view,
                             background: nil, color: ARGBColor(argb: 0), output: out.bytes, outputLayout: out.view,
                             mode: .composite)
        }
        assertPixel(out[2, 0], RGBA(1, 2, 3))
        assertPixel(out[3, 0], RGBA(0x5A, 0x5A, 0x5A, 0x5A))
        assertPixel(out[4, 0], RGBA(0x5A, 0x5A, 0x5A, 0x5A))
    }
}

/// The SIMD edge blend of the fused upscale (four 32-bit pixels per step)
/// against the per-pixel word formula it replaced, for every alpha value,
/// the rounding boundaries between them, out-of-range mattes, both alpha
/// byte positions, a colour and a background row, and a tail that is not a
/// multiple of four.
final class EdgeBlendTests: XCTestCase {
    private func scalarAlpha(_ m: Float) -> UInt32 { UInt32(min(max(m, 0), 1) * 255 + 0.5) }

    private func scalar(_ m: Float, video v: UInt32, background g: UInt32, alphaShift: UInt32, mode: MatteOutput) -> UInt32 {
        let a = scalarAlpha(m), mask = UInt32(0xff) << alphaShift
        switch mode {
        case .composite:
            var r: UInt32 = 0
            for c in stride(from: UInt32(0), to: 32, by: 8) where c != alphaShift {
                let x = ((v >> c) & 0xff) * a + ((g >> c) & 0xff) * (255 - a)
                r |= UInt32((Double(x) / 255).rounded()) << c
            }
            return r | mask
        case .matte:
            return a * 0x0101_0101 | mask
        case .alpha:
            return (v & ~mask) | (a << alphaShift)
        }
    }

    func testEqualsThePerPixelFormula() {
        var matte: [Float] = [-0.5, -1e-7, 0, 1, 1 + 1e-7, 2]
        for k in 0...255 {
            let m = Float(k) / 255
            matte += [m, (Float(k) + 0.5) / 255, ((Float(k) + 0.5) / 255).nextDown, ((Float(k) + 0.5) / 255).nextUp]
        }
        matte.append(0.3)  // 1031 values: a tail of 3
        let n = matte.count
        var rng: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next() -> UInt32 { rng = rng &* 6364136223846793005 &+ 1442695040888963407; return UInt32(truncatingIfNeeded: rng >> 32) }
        let video = (0..<n).map { _ in next() }, background = (0..<n).map { _ in next() }
        let color: UInt32 = 0x00c8_11f0
        for alphaShift in [UInt32(24), 0] {
            let mask = UInt32(0xff) << alphaShift
            for mode in [MatteOutput.composite, .matte, .alpha] {
                for withBackground in [true, false] where mode == .composite || withBackground {
                    var out = [UInt32](repeating: 0x5a5a_5a5a, count: n + 2)
                    let covered = matte.withUnsafeBufferPointer { mp in
                        video.withUnsafeBufferPointer { vp in
                            background.withUnsafeBufferPointer { bp in
                                out.withUnsafeMutableBufferPointer { op in
                                    EdgeBlend.run(matte: mp.baseAddress!, range: 1..<n, video: vp.baseAddress!,
                                                  background: withBackground ? bp.baseAddress! : nil,
                                                  color: color | mask, alphaMask: mask, alphaShift: alphaShift,
                                                  output: op.baseAddress!, mode: mode)
                                }
                            }
                        }
                    }
                    XCTAssertEqual(out[0], 0x5a5a_5a5a, "before the range")
                    XCTAssertEqual(out[n], 0x5a5a_5a5a, "after the range")
                    var bad = 0
                    for x in 1..<n {
                        let want = scalar(matte[x], video: video[x], background: withBackground ? background[x] : color | mask,
                                          alphaShift: alphaShift, mode: mode)
                        if out[x] != want {
                            if bad == 0 { XCTFail("\(mode) shift \(alphaShift) bg \(withBackground) m=\(matte[x]): got \(out[x]) want \(want)") }
                            bad += 1
                        }
                    }
                    XCTAssertEqual(bad, 0)
                    XCTAssertEqual(covered, matte[1...].filter { $0 > 0.5 }.count)
                }
            }
        }
    }
}
