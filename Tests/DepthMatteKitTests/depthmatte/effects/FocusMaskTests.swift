// SPDX-License-Identifier: LGPL-2.1-or-later
import XCTest
@_spi(Bench) @testable import DepthMatteKit

final class FocusMaskTests: XCTestCase {
    func testHighpassBreakPointsExact() {
        let s = FocusSettings(kind: .highpass, focus: 1.0, slope: 4)
        XCTAssertEqual(FocusMask.alpha(metres: 0.3, s), 1)
        XCTAssertEqual(FocusMask.alpha(metres: 1.0, s), 1)        // ramp starts at focus
        XCTAssertEqual(FocusMask.alpha(metres: 1.125, s), 0.5)    // middle of the 0.25 m ramp
        XCTAssertEqual(FocusMask.alpha(metres: 1.0625, s), 0.75)
        XCTAssertEqual(FocusMask.alpha(metres: 1.25, s), 0)       // ends at focus + 1/slope
        XCTAssertEqual(FocusMask.alpha(metres: 3, s), 0)
        XCTAssertEqual(FocusMask.alpha(metres: 0, s), 0)          // hole
        let sharp = FocusSettings(kind: .highpass, focus: 2.0, slope: 10)
        XCTAssertEqual(FocusMask.alpha(metres: 2.0, sharp), 1)
        XCTAssertEqual(FocusMask.alpha(metres: 2.1, sharp), 0)
        XCTAssertEqual(FocusMask.alpha(metres: 2.05, sharp), 0.5, accuracy: 1e-6)
    }

    func testBandpassBreakPointsExact() {
        // the tutorial's numbers in metres: full inside +-0.05, zero at +-0.30
        let s = FocusSettings(kind: .bandpass, focus: 2.0, slope: 4, halfWidth: 0.05)
        for m in [1.95, 1.98, 2.0, 2.03, 2.05] { XCTAssertEqual(FocusMask.alpha(metres: m, s), 1, "\(m)") }
        for m in [1.70, 2.30, 1.5, 2.5, 9] { XCTAssertEqual(FocusMask.alpha(metres: m, s), 0, "\(m)") }
        XCTAssertEqual(FocusMask.alpha(metres: 2.175, s), 0.5, accuracy: 1e-6)
        XCTAssertEqual(FocusMask.alpha(metres: 1.825, s), 0.5, accuracy: 1e-6)
        // dyadic variant: exactly 0.5 in the middle of the ramp
        let d = FocusSettings(kind: .bandpass, focus: 2.0, slope: 4, halfWidth: 0.125)
        XCTAssertEqual(FocusMask.alpha(metres: 2.25, d), 0.5)
        XCTAssertEqual(FocusMask.alpha(metres: 1.75, d), 0.5)
        XCTAssertEqual(FocusMask.alpha(metres: 2.375, d), 0)
        XCTAssertEqual(FocusMask.alpha(metres: 2.125, d), 1)
    }

    func testDisparityAndDepthGiveTheSameMask() {
        // the same scene as millimetres and as disparity (1/m per 1/1000), normalised then masked
        let metres: [Double] = [0.5, 1.0, 1.25, 2.0, 4.0, 0]
        var mm = metres.map { UInt16(($0 * 1000).rounded()) }
        var disp = metres.map { $0 > 0 ? UInt16((1 / $0 * 1000).rounded()) : 0 }
        let s = FocusSettings(kind: .highpass, focus: 1.0, slope: 4)
        var a = FloatPlane(), b = FloatPlane()
        let n = DepthNormalizer()
        mm.withUnsafeMutableBytes { p in
            FocusMask.mask(depth: Depth16View(base: UnsafeRawPointer(p.baseAddress!), width: 6, height: 1, stride: 12),
                           scale: 0.001, settings: s, into: &a)
        }
        disp.withUnsafeMutableBytes { p in
            let v = n.normalize(UnsafeRawPointer(p.baseAddress!), width: 6, height: 1, stride: 12,
                                encoding: DepthEncoding(kind: .disparity, eightBit: false, scale: 0.001, near: 0.5, far: 5, bigEndian: false))
            FocusMask.mask(depth: v, scale: DepthNormalizer.scale, settings: s, into: &b)
        }
        XCTAssertEqual(Array(a.pixels[0..<6]), Array(b.pixels[0..<6]))
        XCTAssertEqual(Array(a.pixels[0..<6]), [1, 1, 0, 0, 0, 0])
    }
}
