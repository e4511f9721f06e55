// SPDX-License-Identifier: LGPL-2.1-or-later
import XCTest
@_spi(Bench) @testable import DepthMatteKit

/// The lane packers give each lane's low byte (or half) in lane order, and
/// `bytesEqual` marks exactly the bytes equal to the one asked for.
final class LaneBytesTests: XCTestCase {
    private var seed: UInt64 = 0x9e37_79b9_7f4a_7c15
    private func next() -> UInt64 { seed = seed &* 6364136223846793005 &+ 1442695040888963407; return seed >> 11 }

    /// Byte k of `word` is lane k's low byte.
    private func assertLowBytes(_ word: UInt64, _ lane: (Int) -> UInt64) {
        for k in 0..<8 { XCTAssertEqual((word >> UInt64(8 * k)) & 0xff, lane(k) & 0xff, "lane \(k)") }
    }

    func testLowBytesOfSixteenAndThirtyTwoBitLanes() {
        for _ in 0..<2000 {
            var h = SIMD8<UInt16>(), s = SIMD8<Int32>()
            for k in 0..<8 { h[k] = UInt16(truncatingIfNeeded: next()); s[k] = Int32(truncatingIfNeeded: next()) }
            assertLowBytes(h.lowBytes) { UInt64(h[$0]) }
            assertLowBytes(s.lowBytes) { UInt64(UInt32(bitPattern: s[$0])) }
        }
        XCTAssertEqual(SIMD8<UInt16>(0x101, 2, 0xff03, 4, 5, 6, 7, 0x1ff).lowBytes, 0xff07_0605_0403_0201)
        XCTAssertEqual(SIMD8<Int32>(-1, 1, 0, 2, 0x1_0003, -256, 0, 1).lowBytes, 0x0100_0003_0200_01ff)
    }

    func testLowHalvesOfThirtyTwoBitLanes() {
        for _ in 0..<2000 {
            var v = SIMD8<UInt32>()
            for k in 0..<8 { v[k] = UInt32(truncatingIfNeeded: next()) }
            let (first, second) = v.lowHalves
            for k in 0..<4 {
                XCTAssertEqual(UInt16(truncatingIfNeeded: first >> UInt64(16 * k)), UInt16(truncatingIfNeeded: v[k]))
                XCTAssertEqual(UInt16(truncatingIfNeeded: second >> UInt64(16 * k)), UInt16(truncatingIfNeeded: v[k + 4]))
            }
        }
    }

    func testBytesEqualMarksExactlyTheEqualBytes() {
        for _ in 0..<2000 {
            // bytes drawn from a few values, so that equal ones are common
            var word: UInt64 = 0
            for k in 0..<8 { word |= [0, 1, 2, 0x80, 0x81, 0xff][Int(next() % 6)] << UInt64(8 * k) }
            for byte: UInt8 in [0, 1, 0x80, 0xff] {
                let marks = bytesEqual(word, byte)
                for k in 0..<8 {
                    let equal = UInt8(truncatingIfNeeded: word >> UInt64(8 * k)) == byte
                    XCTAssertEqual(UInt8(truncatingIfNeeded: marks >> UInt64(8 * k)), equal ? 0x80 : 0, "word \(word) byte \(byte)")
                }
            }
        }
    }
}
