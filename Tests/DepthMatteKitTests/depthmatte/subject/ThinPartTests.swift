// SPDX-License-Identifier: LGPL-2.1-or-later
import XCTest
@_spi(Bench) @testable import DepthMatteKit

/// docs/quality.md step 2.3, thin parts (`MatteRefiner.Tuning.thinParts`): a rod
/// one or two depth pixels wide is all within the untrusted band; where
/// depth says it is there, its colour places it; where only colour says so,
/// nothing is invented.
final class ThinPartTests: XCTestCase {
    /// A dark vertical rod `rodWidth` video px wide at video x = 80 on a light
    /// striped wall (no other subject in reach); depth 4x coarser, the rod's
    /// readings `shift` depth px to the right of its colour (misregistration)
    /// or none at all (`inDepth` false).
    static func frame(inDepth: Bool, shift: Int, video v: TestRGB, depth d: TestDepth) {
        for y in 0..<v.height {
            for x in 0..<v.width {
                let rod = x >= 80 && x < 80 + 8
                let stripe = (x / 24) % 2 == 0
                v[x, y] = rod ? RGBA(40, 40, 44) : (stripe ? RGBA(225, 214, 182) : RGBA(150, 178, 160))
            }
        }
        for y in 0..<d.height {
            for x in 0..<d.width {
                let rod = inDepth && x - shift >= 20 && x - shift < 22
                d[x, y] = rod ? 1200 : 2600
            }
        }
    }

    static func keyed(thinParts: Bool, inDepth: Bool, shift: Int) -> (rod: Int, wall: Int) {
        let v = TestRGB(width: 240, height: 64), d = TestDepth(width: 60, height: 16)
        frame(inDepth: inDepth, shift: shift, video: v, depth: d)
        var r = MatteRefiner()
        r.tuning.thinParts = thinParts
        var m = FloatPlane()
        r.refine(depth: d.view, scale: 0.001, cutoff: 1.5, video: v.view, temporal: false, into: &m)
        // output grid: 2x the depth (120 x 32): the rod is grid x 40..<44
        var rod = 0, wall = 0
        for y in 4..<(m.height - 4) {
            for x in 0..<m.width where m[x, y] >= 0.5 {
                if x >= 40 && x < 44 { rod += 1 } else { wall += 1 }
            }
        }
        return (rod, wall)
    }

    func testMisregisteredRodIsKeyedWhereItsColourIs() {
        let rows = 32 - 8, full = 4 * rows
        let without = Self.keyed(thinParts: false, inDepth: true, shift: 1)
        let with = Self.keyed(thinParts: true, inDepth: true, shift: 1)
        XCTAssertLessThan(without.rod, full * 3 / 4, "without the rule the misregistered rod loses part of itself: \(without)")
        XCTAssertGreaterThanOrEqual(with.rod, full * 9 / 10, "the rod where its colour is: \(with) of \(full)")
        XCTAssertLessThanOrEqual(with.wall, 2 * rows, "and not the wall beside it: \(with)")
    }

    func testColourAloneInventsNoThinPart() {
        let none = Self.keyed(thinParts: true, inDepth: false, shift: 0)
        XCTAssertEqual(none.rod + none.wall, 0, "no reading nearer than the cutoff: nothing keyed \(none)")
    }
}
