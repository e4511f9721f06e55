// SPDX-License-Identifier: LGPL-2.1-or-later
import XCTest
@_spi(Bench) @testable import DepthMatteKit

/// `SubjectLegs`: the legs of a subject seen from above, beyond the cutoff.
final class SubjectLegsTests: XCTestCase {
    /// 160 x 120, millimetres, cutoff 2.25 m. A wall at 4 m; a body (columns
    /// 50-99) whose depth grows downwards from 2.0 m; two legs (columns
    /// 64-75 and 84-95) continuing it past the cutoff down to 2.55 m at row
    /// 89; a floor from row 90 receding upwards (2.6 m at the feet, 2.3 m at
    /// the bottom); a sofa below the body's left part reaching the picture's
    /// left side (columns 0-55, rows 56-75) at the body's depth.
    static func scene() -> (depth: TestDepth, out: [UInt8], kept: (Int, Int) -> Bool) {
        let w = 160, h = 120
        let d = TestDepth(width: w, height: h)
        func body(_ x: Int, _ y: Int) -> Bool { x >= 50 && x < 100 && y >= 20 && y < 56 }
        func leg(_ x: Int, _ y: Int) -> Bool { (x >= 64 && x < 76 || x >= 84 && x < 96) && y >= 56 && y < 90 }
        func sofa(_ x: Int, _ y: Int) -> Bool { x < 56 && y >= 56 && y < 76 }
        for y in 0..<h {
            for x in 0..<w {
                var v = 4000
                if y >= 90 { v = 2600 - (y - 90) * 10 }
                if sofa(x, y) { v = 2260 + (y - 56) * 2 }
                if body(x, y) { v = 2000 + (y - 20) * 6 }
                if leg(x, y) { v = 2220 + (y - 56) * 10 }
                d[x, y] = UInt16(v)
            }
        }
        // the segmentation's decision: the body and the legs' near part
        // kept, every other near pixel left out
        var out = [UInt8](repeating: 0, count: w * h)
        for y in 0..<h { for x in 0..<w {
            let v = d[x, y]
            out[y * w + x] = v > 2250 ? DepthLabel.background.rawValue
                : body(x, y) || leg(x, y) ? DepthLabel.subject.rawValue : SubjectSegmentation.leftOut
        } }
        return (d, out, { x, y in body(x, y) || leg(x, y) })
    }

    func testLegsPastTheCutoffComeBackDownToTheFloorAndNothingElse() {
        let (d, before, _) = Self.scene()
        var out = before
        var legs = SubjectLegs()
        let grown = out.withUnsafeMutableBufferPointer {
            legs.apply(original: d.view, labels: $0.baseAddress!, limit: 2250, scale: 0.001)
        }
        let w = 160
        // both legs, from past the cutoff down to the feet
        for (x, y) in [(70, 60), (70, 89), (65, 75), (90, 70), (95, 89)] {
            XCTAssertEqual(out[y * w + x], DepthLabel.subject.rawValue, "leg (\(x), \(y))")
        }
        // the wall between and beside them, the floor they stand on, the sofa
        for (x, y) in [(80, 70), (58, 70), (110, 80), (70, 95), (90, 110), (20, 119), (52, 60), (20, 65), (55, 75)] {
            XCTAssertEqual(out[y * w + x], before[y * w + x], "(\(x), \(y)) is not the subject's")
        }
        XCTAssertEqual(grown, 2 * 12 * (90 - 60), "the legs' rows past the cutoff (from row 60: 2.26 m), nothing more")
        XCTAssertEqual(legs.grownCount, grown)
        // off: nothing changes
        var same = before
        legs.enabled = false
        XCTAssertEqual(same.withUnsafeMutableBufferPointer {
            legs.apply(original: d.view, labels: $0.baseAddress!, limit: 2250, scale: 0.001)
        }, 0)
        XCTAssertEqual(same, before)
    }

    /// 160 x 120, millimetres, cutoff 2.25 m, a wall at 4 m: a torso
    /// (columns 50-99, rows 20-45) nearer than the cutoff, kept; hips as wide
    /// (rows 46-55) and two legs (columns 64-75 and 84-95, rows 56-89) past
    /// it, the depth growing downwards to 2.56 m; a floor from row 90
    /// receding upwards; and a chair seat kept at the bottom right (columns
    /// 130-150, rows 100-115, 2.1 m): a second body, as a seated person's
    /// chair kept with a walking subject.
    static func hipsScene() -> (depth: TestDepth, out: [UInt8]) {
        let w = 160, h = 120
        let d = TestDepth(width: w, height: h)
        var out = [UInt8](repeating: 0, count: w * h)
        for y in 0..<h {
            for x in 0..<w {
                var v = 4000
                if y >= 90 { v = 2600 - (y - 90) * 10 }
                if x >= 50 && x < 100 && y >= 20 && y < 46 { v = 2000 + (y - 20) * 9 }
                if x >= 50 && x < 100 && y >= 46 && y < 56 { v = 2260 + (y - 46) * 4 }
                if (x >= 64 && x < 76 || x >= 84 && x < 96) && y >= 56 && y < 90 { v = 2300 + (y - 56) * 8 }
                if x >= 130 && x <= 150 && y >= 100 && y <= 115 { v = 2100 }
                d[x, y] = UInt16(v)
                out[y * w + x] = v <= 2250 ? DepthLabel.subject.rawValue : DepthLabel.background.rawValue
            }
        }
        return (d, out)
    }

    func testEachKeptBodyGrowsFromItsOwnBoxAndTheHipsFromTheirMiddle() {
        let (d, before) = Self.hipsScene()
        let w = 160
        var out = before
        var legs = SubjectLegs()
        let grown = out.withUnsafeMutableBufferPointer {
            legs.apply(original: d.view, labels: $0.baseAddress!, limit: 2250, scale: 0.001)
        }
        // the hips, across their whole width, and both legs down to the feet
        for (x, y) in [(75, 46), (52, 50), (97, 55), (70, 70), (90, 89)] {
            XCTAssertEqual(out[y * w + x], DepthLabel.subject.rawValue, "(\(x), \(y)) is the subject's")
        }
        // the wall between the legs, the floor, the chair and what is below it
        for (x, y) in [(80, 70), (58, 70), (70, 95), (140, 105), (140, 118), (20, 119)] {
            XCTAssertEqual(out[y * w + x], before[y * w + x], "(\(x), \(y)) is not the subject's")
        }
        XCTAssertEqual(grown, 50 * 10 + 2 * 12 * 34, "the hips and the legs, nothing more")
        // looking for the room beside the hips within half their width only,
        // the middle of the hips has the hips on both sides: nothing grows
        var half = before
        legs.standOutReach = 0.5
        XCTAssertEqual(half.withUnsafeMutableBufferPointer {
            legs.apply(original: d.view, labels: $0.baseAddress!, limit: 2250, scale: 0.001)
        }, 0)
    }
}
