// SPDX-License-Identifier: LGPL-2.1-or-later
import XCTest
@_spi(Bench) @testable import DepthMatteKit

final class ThresholdTests: XCTestCase {
    private func mask(_ depth: TestDepth, scale: Double = 0.001, cutoff: Double) -> FloatPlane {
        var m = FloatPlane()
        DepthThreshold.mask(depth: depth.view, scale: scale, cutoff: cutoff, into: &m)
        return m
    }

    func testZeroMeansNoReadingEvenWithHugeCutoff() {
        let d = TestDepth(rows: [[0, 1, 0], [65535, 0, 500]])
        let m = mask(d, cutoff: 1000)  // 1000 m: every reading is nearer
        XCTAssertEqual(m.width, 3); XCTAssertEqual(m.height, 2)
        XCTAssertEqual(m.rows, [[0, 1, 0], [1, 0, 1]])
    }

    func testNearerOrEqualIsSubjectFartherIsNot() {
        // cutoff 1.0 m in millimetres: 999 and 1000 are in, 1001 is out.
        let d = TestDepth(rows: [[1, 500, 999, 1000, 1001, 1002, 3000, 65535]])
        let m = mask(d, cutoff: 1.0)
        XCTAssertEqual(m.rows, [[1, 1, 1, 1, 0, 0, 0, 0]])
    }

    func testBoundaryExactlyAtCutoff() {
        // A depth equal to the cutoff is the subject ("at or nearer").
        for (cutoff, units) in [(0.7, 700), (1.05, 1050), (1.0, 1000), (0.3, 300), (2.5, 2500)] {
            let d = TestDepth(rows: [[UInt16(units - 1), UInt16(units), UInt16(units + 1)]])
            XCTAssertEqual(mask(d, cutoff: cutoff).rows, [[1, 1, 0]], "cutoff \(cutoff) m")
        }
    }

    /// Every whole-millimetre cutoff up to 5 m must include the depth equal to
    /// it and exclude the next millimetre. (cutoff / scale in binary floating
    /// point is often a hair below the integer, e.g. 0.7 / 0.001 =
    /// 699.9999999999999.)
    func testBoundaryForEveryMillimetreCutoff() {
        var wrong: [Int] = []
        var m = FloatPlane()
        for n in 1...5000 {
            let d = TestDepth(rows: [[UInt16(n), UInt16(n + 1)]])
            DepthThreshold.mask(depth: d.view, scale: 0.001, cutoff: Double(n) / 1000, into: &m)
            if m[0, 0] != 1 || m[1, 0] != 0 { wrong.append(n) }
        }
        XCTAssertTrue(wrong.isEmpty, "\(wrong.count) cutoffs misclassify their boundary, e.g. \(wrong.prefix(8)) mm")
    }

    /// The face path computes cutoff = depth * scale + offset; the body at
    /// exactly face + offset must still be the subject.
    func testBoundaryForFacePlusOffsetCutoffs() {
        var wrong: [Int] = []
        var m = FloatPlane()
        for face in stride(from: 300, through: 3000, by: 1) {
            let cutoff = Double(face) * 0.001 + 0.25
            let d = TestDepth(rows: [[UInt16(face + 250), UInt16(face + 251)]])
            DepthThreshold.mask(depth: d.view, scale: 0.001, cutoff: cutoff, into: &m)
            if m[0, 0] != 1 || m[1, 0] != 0 { wrong.append(face) }
        }
        XCTAssertTrue(wrong.isEmpty, "\(wrong.count) face depths misclassify face+0.25 m, e.g. \(wrong.prefix(8)) mm")
    }

    func testScaleIsApplied() {
        let d = TestDepth(rows: [[2000, 2001, 10000, 10001]])
        // quarter-millimetre units: 0.5 m = 2000 units
        XCTAssertEqual(mask(d, scale: 0.00025, cutoff: 0.5).rows, [[1, 0, 0, 0]])
        // tenth-millimetre units: 1 m = 10000 units
        XCTAssertEqual(mask(d, scale: 0.0001, cutoff: 1.0).rows, [[1, 1, 1, 0]])
        // metre units: 2000 m is in at a 2000 m cutoff, 2001 m is not
        XCTAssertEqual(mask(d, scale: 1.0, cutoff: 2000).rows, [[1, 0, 0, 0]])
        // same readings in mm with a 1 m cutoff: all farther
        XCTAssertEqual(mask(d, scale: 0.001, cutoff: 1.0).rows, [[0, 0, 0, 0]])
    }

    func testNonIntegerCutoffInUnitsRoundsDown() {
        // 1.0005 m = 1000.5 mm: 1000 in, 1001 out
        let d = TestDepth(rows: [[1000, 1001]])
        XCTAssertEqual(mask(d, cutoff: 1.0005).rows, [[1, 0]])
    }

    func testNegativeAndZeroCutoffGiveEmptyMask() {
        let d = TestDepth(rows: [[1, 2, 1000]])
        XCTAssertEqual(mask(d, cutoff: 0).rows, [[0, 0, 0]])
        XCTAssertEqual(mask(d, cutoff: -1).rows, [[0, 0, 0]])
    }

    func testCutoffBeyondRangeIncludesMaxReading() {
        let d = TestDepth(rows: [[65535, 0]])
        XCTAssertEqual(mask(d, cutoff: 100).rows, [[1, 0]])      // 100 m > 65.535 m
        XCTAssertEqual(mask(d, cutoff: 65.534).rows, [[0, 0]])
        XCTAssertEqual(mask(d, cutoff: 65.535).rows, [[1, 0]])
    }

    func testOddStrideAndWidthReadEveryRowCorrectly() {
        // width 5, stride 13 bytes (3 padding bytes: every other row starts unaligned).
        // The padding holds 0x01 0x01 = 257, a "valid" near reading if it were read.
        var rng = TestRandom(seed: 7)
        let d = TestDepth(width: 5, height: 4, padding: 3, paddingByte: 0x01)
        XCTAssertEqual(d.stride, 13)
        for y in 0..<4 { for x in 0..<5 { d[x, y] = UInt16(rng.int(0...2000)) } }
        d[0, 1] = 0; d[4, 2] = 1000; d[3, 3] = 1001
        let m = mask(d, cutoff: 1.0)
        XCTAssertEqual(m.width, 5); XCTAssertEqual(m.height, 4)
        XCTAssertEqual(m.rows, Reference.mask(d, cutoffUnits: 1000))
        XCTAssertEqual(m[0, 1], 0); XCTAssertEqual(m[4, 2], 1); XCTAssertEqual(m[3, 3], 0)
    }

    func testReusedPlaneIsResized() {
        var m = FloatPlane()
        DepthThreshold.mask(depth: TestDepth(width: 6, height: 5, fill: 100).view, scale: 0.001, cutoff: 1, into: &m)
        XCTAssertEqual(m.width, 6); XCTAssertEqual(m.height, 5)
        let small = TestDepth(rows: [[100, 5000], [5000, 100]])
        DepthThreshold.mask(depth: small.view, scale: 0.001, cutoff: 1, into: &m)
        XCTAssertEqual(m.width, 2); XCTAssertEqual(m.height, 2)
        XCTAssertEqual(m.rows, [[1, 0], [0, 1]])
    }
}
