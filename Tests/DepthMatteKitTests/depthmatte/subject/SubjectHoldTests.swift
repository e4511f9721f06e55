// SPDX-License-Identifier: LGPL-2.1-or-later
import XCTest
@_spi(Bench) @testable import DepthMatteKit

/// The hold (SubjectHold.swift) on a small synthetic map in millimetres,
/// driven as `SubjectSegmentation` drives it: its decision labels the kept
/// near pixels the subject and the near pixels left out `leftOut`.
final class SubjectHoldTests: XCTestCase {
    static let limit: UInt32 = 2500

    /// A 16x8 room at 3 m with a "table" at `table` mm over columns 4..<8
    /// (rows 2..<8) and a "person" at 1.5 m over columns 10..<14.
    func room(table: UInt16 = 2000) -> TestDepth {
        let d = TestDepth(width: 16, height: 8, fill: 3000)
        d.fill(x0: 4, y0: 2, x1: 8, y1: 8, table)
        d.fill(x0: 10, y0: 1, x1: 14, y1: 8, 1500)
        return d
    }

    static let subject = DepthLabel.subject.rawValue, background = DepthLabel.background.rawValue

    /// The segmentation's decision on `d` with the table kept or left out (the person always kept).
    func segmented(_ d: TestDepth, tableKept: Bool) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: d.width * d.height)
        for y in 0..<d.height {
            for x in 0..<d.width {
                let v = d[x, y]
                let near = v != 0 && UInt32(v) <= Self.limit
                out[y * d.width + x] = !near ? Self.background
                    : x >= 4 && x < 8 && !tableKept ? SubjectSegmentation.leftOut : Self.subject
            }
        }
        return out
    }

    @discardableResult
    func run(_ h: inout SubjectHold, _ d: TestDepth, _ out: inout [UInt8], limit: UInt32 = limit) -> Int {
        out.withUnsafeMutableBufferPointer { op in
            h.apply(original: d.view, labels: op.baseAddress!, limit: limit, scale: 0.001)
        }
    }

    /// true: every table pixel kept; false: every one left out.
    func table(_ out: [UInt8], _ d: TestDepth) -> Bool? {
        var kept = 0, leftOut = 0
        for y in 2..<8 { for x in 4..<8 {
            if out[y * 16 + x] == SubjectSegmentation.leftOut { leftOut += 1 } else if out[y * 16 + x] == Self.subject { kept += 1 }
        } }
        return kept == 24 ? true : leftOut == 24 ? false : nil
    }

    /// Every person pixel kept.
    func personKept(_ out: [UInt8]) -> Bool {
        (1..<8).allSatisfy { y in (10..<14).allSatisfy { x in out[y * 16 + x] == Self.subject } }
    }

    func testAStillPieceKeptForOneFrameStaysOut() {
        var h = SubjectHold()
        let d = room()
        // left out, kept for one frame at a time: left out throughout
        for (i, k) in [false, true, false, true, false].enumerated() {
            var out = segmented(d, tableKept: k)
            XCTAssertEqual(run(&h, d, &out), k ? 24 : 0, "frame \(i)")
            XCTAssertEqual(h.heldCount, k ? 24 : 0, "frame \(i)")
            XCTAssertEqual(table(out, d), false, "frame \(i)")
            XCTAssertTrue(personKept(out), "frame \(i)")
        }
    }

    /// The still room through frames whose table the rules keep or leave
    /// out as `kept` says: the last frame's table (true kept, false left
    /// out) and the pixels held out in it.
    func last(_ kept: [Bool]) -> (table: Bool?, held: Int) {
        var h = SubjectHold()
        let d = room()
        var out: [UInt8] = [], held = 0
        for k in kept {
            out = segmented(d, tableKept: k)
            held = run(&h, d, &out)
        }
        return (table(out, d), held)
    }

    func testKeptTwoFramesInARowIsTaken() {
        XCTAssertEqual(last([false, true]).table, false, "the first frame kept is held out")
        let second = last([false, true, true])
        XCTAssertEqual(second.table, true, "the second is taken")
        XCTAssertEqual(second.held, 0)
    }

    func testLeavingOutIsTakenAtOnce() {
        let r = last([true, true, false])
        XCTAssertEqual(r.table, false)
        XCTAssertEqual(r.held, 0)
    }

    func testAPieceThatMovedIsKeptAtOnce() {
        // 10 cm nearer: not still (2 cm + 2 % of 1.9 m = 5.8 cm)
        XCTAssertEqual(keptAfterLeftOut(tableMovedTo: 1900), 0)
        // 3 cm nearer is still: held out
        XCTAssertEqual(keptAfterLeftOut(tableMovedTo: 1970), 24)
    }

    /// The table left out, then at `depth` mm and kept by the rules: the
    /// pixels held out (the table is then left out if all 24 are, kept if none).
    func keptAfterLeftOut(tableMovedTo depth: UInt16, file: StaticString = #filePath, line: UInt = #line) -> Int {
        var h = SubjectHold()
        var out = segmented(room(), tableKept: false)
        run(&h, room(), &out)
        let moved = room(table: depth)
        out = segmented(moved, tableKept: true)
        let held = run(&h, moved, &out)
        XCTAssertEqual(table(out, moved), held == 0, file: file, line: line)
        return held
    }

    func testAPixelThatWasNotNearHasNoDecisionToHold() {
        var h = SubjectHold()
        let d = room()
        // the cutoff first lies in front of the table, then behind it
        var out = segmented(d, tableKept: false)
        run(&h, d, &out, limit: 1800)
        out = segmented(d, tableKept: true)
        XCTAssertEqual(run(&h, d, &out), 0)
        XCTAssertEqual(table(out, d), true)
    }

    func testResetDisabledAndOneFrameHoldNothing() {
        let d = room()
        for configure in [{ (h: inout SubjectHold) in h.enabled = false }, { $0.frames = 1 }, { $0.reset() }] {
            var h = SubjectHold()
            var out = segmented(d, tableKept: false)
            run(&h, d, &out)
            configure(&h)
            out = segmented(d, tableKept: true)
            XCTAssertEqual(run(&h, d, &out), 0)
            XCTAssertEqual(table(out, d), true)
        }
    }

    func testANewMapSizeStartsAfresh() {
        var h = SubjectHold()
        let d = room()
        var out = segmented(d, tableKept: false)
        run(&h, d, &out)
        let small = TestDepth(width: 8, height: 4, fill: 2000)
        var o2 = [UInt8](repeating: Self.subject, count: 32)
        XCTAssertEqual(run(&h, small, &o2), 0)
        XCTAssertTrue(o2.allSatisfy { $0 == Self.subject })
    }
}
