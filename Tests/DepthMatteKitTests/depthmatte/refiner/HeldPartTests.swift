// SPDX-License-Identifier: LGPL-2.1-or-later
import XCTest
@_spi(Bench) @testable import DepthMatteKit

/// A dark part the subject carries with no reading at all (
/// `MatteRefiner.Tuning.heldParts`): taken as the subject when its edge to the room
/// moves with it, left to the colour when it stays (a pocket of holes behind
/// the subject) or when the whole room moves (a pan).
final class HeldPartTests: XCTestCase {
    static let shirt = RGBA(40, 70, 170), binder = RGBA(22, 22, 26), wallDark = RGBA(50, 44, 40), wallLight = RGBA(70, 62, 56)

    /// Depth 60x40 (wall at 3 m) behind video 120x80: the subject (1 m)
    /// covers depth columns 10 + dx ..< 30 + dx, rows 5...; the part, holes
    /// in the depth and dark in the colour, columns 24 + dx ..< 33 + dx, rows
    /// 20 ..< 30: it sticks out 3 columns past the subject. The wall is
    /// striped in columns two depth pixels wide, shifted by `wallShift`.
    static func frame(dx: Int, wallShift: Int = 0) -> (TestDepth, TestRGB) {
        let d = TestDepth(width: 60, height: 40, fill: 3000)
        d.fill(x0: 10 + dx, y0: 5, x1: 30 + dx, y1: 40, 1000)
        d.fill(x0: 24 + dx, y0: 20, x1: 33 + dx, y1: 30, 0)
        let v = TestRGB(width: 120, height: 80)
        for y in 0..<80 {
            for x in 0..<120 {
                let (px, py) = (x / 2, y / 2)
                if px >= 24 + dx && px < 33 + dx && py >= 20 && py < 30 {
                    v[x, y] = binder
                } else if px >= 10 + dx && px < 30 + dx && py >= 5 {
                    v[x, y] = shirt
                } else {
                    v[x, y] = ((px + wallShift) / 2) % 2 == 0 ? wallDark : wallLight
                }
            }
        }
        return (d, v)
    }

    /// The matte (0-1) over the part's outer columns (depth 30 + dx ..< 33 + dx,
    /// rows 21 ..< 29) after keying `frames` (the subject's shift, the
    /// wall's shift) in turn.
    static func outerPart(_ frames: [(Int, Int)], held: Bool = true) -> Float {
        var r = MatteRefiner(), m = FloatPlane()
        r.tuning.heldParts = held
        // (the occlusion shadows fall on the left, as `.auto` finds for a
        // Kinect or a D400 after a few frames: the part's rows of holes on
        // the right are no shadow)
        r.tuning.shadowSide = .left
        for (dx, ws) in frames {
            let (d, v) = frame(dx: dx, wallShift: ws)
            r.refine(depth: d.view, scale: 0.001, cutoff: 1.5, video: v.view, into: &m)
        }
        let dx = frames.last!.0
        var sum: Float = 0, count = 0
        for y in (2 * 21)..<(2 * 29) { for x in (2 * (30 + dx))..<(2 * (33 + dx)) { sum += m[x, y]; count += 1 } }
        return sum / Float(count)
    }

    func testAPartThatMovesWithTheSubjectIsKept() {
        let walk = [(0, 0), (2, 0), (4, 0)]
        XCTAssertGreaterThan(Self.outerPart(walk), 0.9, "the carried part past the subject")
        XCTAssertLessThan(Self.outerPart(walk, held: false), 0.1, "without the rule the colour gives it to the dark wall")
    }

    func testAPocketThatStaysIsLeftToTheColour() {
        XCTAssertLessThan(Self.outerPart([(0, 0), (0, 0), (0, 0)]), 0.1)
    }

    func testAPanDoesNotCountAsTheSubjectsMotion() {
        // the camera pans: subject, part and the striped wall all shift
        XCTAssertLessThan(Self.outerPart([(0, 0), (2, 2), (4, 4)]), 0.1)
    }

    func testTheSubjectStoppingKeepsThePart() {
        XCTAssertGreaterThan(Self.outerPart([(0, 0), (2, 0), (4, 0), (4, 0), (4, 0), (4, 0)]), 0.9)
    }

    func testAResetForgetsThePart() {
        var r = MatteRefiner(), m = FloatPlane()
        r.tuning.shadowSide = .left
        for dx in [0, 2, 4] {
            let (d, v) = Self.frame(dx: dx)
            r.refine(depth: d.view, scale: 0.001, cutoff: 1.5, video: v.view, into: &m)
        }
        r.reset()
        let (d, v) = Self.frame(dx: 4)
        r.refine(depth: d.view, scale: 0.001, cutoff: 1.5, video: v.view, into: &m)
        XCTAssertLessThan(m[2 * 31, 2 * 25], 0.1, "after a flush nothing says the holes moved")
    }
}
