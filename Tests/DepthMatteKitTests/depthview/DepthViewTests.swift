// SPDX-License-Identifier: LGPL-2.1-or-later
import XCTest
@_spi(Bench) @testable import DepthMatteKit

final class DepthViewTests: XCTestCase {
    func testDecodeTables() {
        var d = DepthDecoder()
        d.update(DepthEncoding(kind: .depth, eightBit: false, scale: 0.001, near: 0.5, far: 5, bigEndian: false))
        XCTAssertEqual(d.table[0], 0)
        XCTAssertEqual(d.table[1500], 1.5, accuracy: 1e-6)
        d.update(DepthEncoding(kind: .disparity, eightBit: false, scale: 0.001, near: 0.5, far: 5, bigEndian: false))
        XCTAssertEqual(d.table[0], 0)
        XCTAssertEqual(d.table[500], 2.0, accuracy: 1e-6)   // 0.5 1/m
        d.update(DepthEncoding(kind: .depth, eightBit: true, scale: 0.001, near: 1, far: 3, bigEndian: false))
        XCTAssertEqual(d.table.count, 256)
        XCTAssertEqual(d.table[0], 1, accuracy: 1e-6)
        XCTAssertEqual(d.table[255], 3, accuracy: 1e-6)
        d.update(DepthEncoding(kind: .disparity, eightBit: true, scale: 0.001, near: 1, far: 3, bigEndian: false))
        XCTAssertEqual(d.table[255], 1, accuracy: 1e-6)
        XCTAssertEqual(d.table[0], 3, accuracy: 1e-5)
        // linear in 1/m: the middle value is the harmonic mean
        XCTAssertEqual(1 / d.table[51], Float(1.0 / 3 + (1 - 1.0 / 3) * 0.2), accuracy: 1e-5)
    }

    func testGreyColoursAndHoleExact() {
        var s = DepthViewSettings(.defaults)
        s.colormap = .grey; s.rangeMin = 1; s.rangeMax = 3; s.holeARGB = 0x7f10_2030
        func c(_ m: Float) -> (UInt8, UInt8, UInt8, UInt8) { DepthViewRenderer.color(m, lo: 1, hi: 3, s) }
        XCTAssertTrue(c(1) == (255, 255, 255, 255))
        XCTAssertTrue(c(2) == (128, 128, 128, 255))
        XCTAssertTrue(c(3) == (0, 0, 0, 255))
        XCTAssertTrue(c(0.2) == (255, 255, 255, 255))
        XCTAssertTrue(c(9) == (0, 0, 0, 255))
        XCTAssertTrue(c(0) == (0x10, 0x20, 0x30, 0x7f))
        XCTAssertTrue(c(.nan) == (0x10, 0x20, 0x30, 0x7f))
    }

    func testTurboEnds() {
        let t = Turbo.table
        XCTAssertEqual(t.count, 256)
        XCTAssertGreaterThan(t[255].0, 100); XCTAssertLessThan(t[255].2, 20)   // dark red
        XCTAssertGreaterThan(t[32].2, 200)                                     // blue
        XCTAssertGreaterThan(t[128].1, 200)                                    // green
    }

    func testRenderScalesAndAutoRange() {
        // 2x1 depth, 1 m and 2 m, into a 4x2 RGBx picture
        var raw: [UInt16] = [1000, 2000]
        var out = [UInt8](repeating: 0, count: 4 * 4 * 2)
        var s = DepthViewSettings(.defaults); s.colormap = .grey
        let r = DepthViewRenderer()
        raw.withUnsafeMutableBytes { d in
            out.withUnsafeMutableBufferPointer { o in
                r.render(depth: UnsafeRawPointer(d.baseAddress!), width: 2, height: 1, stride: 4, settings: s,
                         into: RGBImageView(base: o.baseAddress!, width: 4, height: 2, stride: 16, pixelStride: 4,
                                            r: 0, g: 1, b: 2, a: -1))
            }
        }
        XCTAssertEqual(Array(out[0..<8]), [255, 255, 255, 255, 255, 255, 255, 255])
        XCTAssertEqual(Array(out[8..<16]), [0, 0, 0, 255, 0, 0, 0, 255])
        XCTAssertEqual(Array(out[16..<32]), Array(out[0..<16]))
    }
}

final class DepthNormalizerTests: XCTestCase {
    func testDisparityAndGray8BecomeMillimetres() {
        let n = DepthNormalizer()
        var disp: [UInt16] = [1000, 250, 0, 2000]     // 1/m * 1000
        let v = disp.withUnsafeMutableBytes { p in
            n.normalize(UnsafeRawPointer(p.baseAddress!), width: 4, height: 1, stride: 8,
                        encoding: DepthEncoding(kind: .disparity, eightBit: false, scale: 0.001, near: 0.5, far: 5, bigEndian: false))
        }
        XCTAssertEqual((0..<4).map { v.at($0, 0) }, [1000, 4000, 0, 500])
        var g8: [UInt8] = [0, 255, 51, 0]
        let w = g8.withUnsafeMutableBytes { p in
            n.normalize(UnsafeRawPointer(p.baseAddress!), width: 3, height: 1, stride: 4,
                        encoding: DepthEncoding(kind: .depth, eightBit: true, scale: 0.001, near: 1, far: 3, bigEndian: false))
        }
        XCTAssertEqual((0..<3).map { w.at($0, 0) }, [1000, 3000, 1400])
        // depthview's (and depthmatte's) default reading is GRAY16_LE distance: native
        var e = DepthViewSettings(.defaults).encoding
        XCTAssertTrue(DepthNormalizer.isNative(e))
        e.kind = .disparity
        XCTAssertFalse(DepthNormalizer.isNative(e))
        e.kind = .depth; e.bigEndian = true
        XCTAssertFalse(DepthNormalizer.isNative(e))
    }
}
