import XCTest
import DepthMatteKit

/// The depth-only finder's issue-20 rules (NearestBody.swift): floors do not
/// merge with the feet, door jambs along an edge and backdrops are no body,
/// but a subject that fills half the picture still is.
final class NearestBodyEdgeTests: XCTestCase {
    static func find(_ d: TestDepth) -> (c: DepthComponents, body: (component: Int, headDepth: Double)?) {
        var c = DepthComponents()
        c.analyse(depth: d.view, scale: 0.001)
        return (c, NearestBodyFinder().find(c))
    }
    /// head [70, 90) x [20, 40), body [55, 105) x [40, 90) at `face` (+40 mm)
    static func person(_ d: TestDepth, face: Int = 2000) {
        d.fill(x0: 55, y0: 40, x1: 105, y1: 90, UInt16(face + 40))
        d.fill(x0: 70, y0: 20, x1: 90, y1: 40, UInt16(face))
    }

    func testDoorJambAlongTheEdgeIsNoBodyButThePersonIs() {
        let d = TestDepth(width: 160, height: 90, fill: 4000)
        Self.person(d)
        d.fill(x0: 0, y0: 0, x1: 12, y1: 90, 1500)          // nearer than the person
        let r = Self.find(d)
        XCTAssertNotNil(r.body)
        XCTAssertEqual(r.body!.headDepth, 2.0, accuracy: 0.02)
    }

    func testAFewCellsOfAFarFloorAreNoBody() {
        // an empty room seen by a far sensor: a piece of floor 4.2 m away,
        // 5 x 4 cells, cut off from the rest by holes (its area x depth², 0.025,
        // passes `minSize` by its depth alone); a person at 4.2 m is no smaller
        // than 0.5 % of the picture (session 12)
        let d = TestDepth(width: 160, height: 90, fill: 0)
        d.fill(x0: 100, y0: 50, x1: 105, y1: 54, 4200)
        var c = DepthComponents()
        c.analyse(depth: d.view, scale: 0.001)
        XCTAssertGreaterThanOrEqual(c.physicalSize(0), NearestBodyFinder().minSize)
        XCTAssertNil(NearestBodyFinder().find(c), "a fragment of floor")
        var any = NearestBodyFinder()
        any.minArea = 0
        XCTAssertNotNil(any.find(c), "by size alone it passes")
        // the head and shoulders of a person at 4.2 m: 12 x 14 cells
        d.fill(x0: 20, y0: 30, x1: 32, y1: 44, 4200)
        c.analyse(depth: d.view, scale: 0.001)
        XCTAssertNotNil(NearestBodyFinder().find(c), "a person far away")
    }

    func testBackdropAcrossTheTopIsNoBody() {
        // the person has left: a lower wall at 2.2 m across the top of the picture
        let d = TestDepth(width: 160, height: 90, fill: 2200)
        for y in 60..<90 { for x in 0..<160 { d[x, y] = 0 } }
        XCTAssertNil(Self.find(d).body)
    }

    func testSubjectFillingHalfThePictureIsStillABody() {
        let d = TestDepth(width: 160, height: 90, fill: 2000)
        d.fill(x0: 0, y0: 0, x1: 80, y1: 90, 800)
        let r = Self.find(d)
        XCTAssertEqual(r.body?.headDepth ?? 0, 0.8, accuracy: 0.01)
    }

    func testFloorMeetingTheFeetDoesNotMergeWithThePerson() {
        // a standing person whose body reaches the bottom row at 2.04 m; a
        // floor from 2.05 m at the bottom row, 4 cm farther per row up
        let d = TestDepth(width: 160, height: 90, fill: 4000)
        for y in 30..<90 { for x in 0..<160 { d[x, y] = UInt16(min(4000, 2050 + 40 * (89 - y))) } }
        Self.person(d)
        let r = Self.find(d)
        XCTAssertNotNil(r.body, "the person is found")
        XCTAssertEqual(r.body!.headDepth, 2.0, accuracy: 0.02)
        // and the floor is a surface of its own, floor-like
        var c = r.c
        let floor = c.component(inU: 0.05, 0.1, v: 0.95, 1.0)!
        XCTAssertNotEqual(floor, r.body!.component)
        XCTAssertTrue(c.isFloorLike(floor))
    }
}
