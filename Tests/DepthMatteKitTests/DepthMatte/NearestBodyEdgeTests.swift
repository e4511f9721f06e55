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
