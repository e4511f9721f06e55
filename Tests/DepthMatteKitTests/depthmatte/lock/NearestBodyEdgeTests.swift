// SPDX-License-Identifier: LGPL-2.1-or-later
import XCTest
@_spi(Bench) @testable import DepthMatteKit

/// The depth-only finder's rules for what is no body (NearestBody.swift): floors do not
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

    func testDoorJambBesideARegisteredMapsBandIsStillAlongTheEdge() {
        // a registered depth map has a band of holes along one side where
        // the depth camera does not see (librealsense's align, depthalign):
        // the jamb beside it reaches the picture's edge as the depth sees it
        //; a body standing free of the band still is one
        let d = TestDepth(width: 160, height: 90, fill: 4000)
        Self.person(d)
        d.fill(x0: 6, y0: 0, x1: 18, y1: 90, 1500)
        d.fill(x0: 0, y0: 0, x1: 6, y1: 90, 0)
        let r = Self.find(d)
        XCTAssertNotNil(r.body)
        XCTAssertEqual(r.body!.headDepth, 2.0, accuracy: 0.02, "the person, not the jamb")
        // a band wider than a quarter of the picture is no band: what lies
        // beside it stands in the picture
        let wide = TestDepth(width: 160, height: 90, fill: 4000)
        wide.fill(x0: 0, y0: 0, x1: 44, y1: 90, 0)
        wide.fill(x0: 44, y0: 0, x1: 56, y1: 90, 1500)
        var c = DepthComponents()
        c.analyse(depth: wide.view, scale: 0.001)
        let jamb = Int(c.labels[45 / c.step + (40 / c.step) * c.width])
        XCTAssertEqual(c.sideTouch[jamb], 0)
        c.analyse(depth: d.view, scale: 0.001)
        let near = Int(c.labels[10 / c.step + (40 / c.step) * c.width])
        XCTAssertEqual(c.sideTouch[near], 1)
    }

    func testAFewCellsOfAFarFloorAreNoBody() {
        // an empty room seen by a far sensor: a piece of floor 4.2 m away,
        // 5 x 4 cells, cut off from the rest by holes (its area x depth², 0.025,
        // passes `minSize` by its depth alone); a person at 4.2 m is no smaller
        // than 0.5 % of the picture
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

    func testAFarSensorsEmptyRoomIsNoBody() {
        // the walk-out scene 2.5 and 3.5 times as far, after the subject has
        // left, with disparity quantisation and correlated noise: the floor's
        // cells failed the two-sample floor test in patches, the floor broke
        // into a mosaic of small surfaces, and one that did not reach the
        // bottom row was taken for the subject (least-squares
        // slope over 5 rows; a surface receding like a floor is no body)
        for scale in [2.5, 3.5] {
            var ss = SubjectSegmentationTests.farWalk(scale)
            for (t, seed) in [(9.0, 7), (9.3, 3), (9.6, 11), (9.9, 5)] as [(Double, UInt32)] {
                ss.seed = seed
                let scene = RGBDScene(settings: ss, time: t)
                let d = TestDepth(width: 640, height: 360)
                scene.renderDepth(base: d.bytes, width: 640, height: 360, stride: d.stride)
                var truth = [UInt8](repeating: 0, count: 640 * 360)
                truth.withUnsafeMutableBufferPointer { scene.renderTruth(Gray8View(base: $0.baseAddress!, width: 640, height: 360, stride: 640)) }
                XCTAssertEqual(truth.filter { $0 >= 128 }.count, 0, "the room is empty at \(t) s")
                var c = DepthComponents()
                c.analyse(depth: d.view, scale: 0.001)
                let body = NearestBodyFinder().find(c)
                XCTAssertNil(body, "\(scale)x, \(t) s: a piece of floor at \(body?.headDepth ?? 0) m")
            }
            // and the subject in the middle of the room is found at its depth
            let scene = RGBDScene(settings: ss, time: 5)
            let d = TestDepth(width: 640, height: 360)
            scene.renderDepth(base: d.bytes, width: 640, height: 360, stride: d.stride)
            var c = DepthComponents()
            c.analyse(depth: d.view, scale: 0.001)
            let body = NearestBodyFinder().find(c)
            XCTAssertEqual(body?.headDepth ?? 0, 1.2 * scale, accuracy: 0.15 * scale, "\(scale)x: the subject")
        }
    }

    func testAPieceOfFloorAwayFromTheBottomIsNoBody() {
        // 20 x 10 cells of a floor 4.4-4.9 m away, receding 5 cm per row
        // upwards (a 70° camera sees a floor at 35° to the picture plane lose
        // 2 cm per row at that depth), cut off from the rest of the floor and
        // from the bottom row by holes: no body; the same cells standing
        // upright (a person's head and shoulders, 3 cm of noise) are
        let d = TestDepth(width: 160, height: 90, fill: 0)
        for y in 60..<70 { for x in 40..<60 { d[x, y] = UInt16(4900 - 50 * (y - 60)) } }
        var c = DepthComponents()
        c.analyse(depth: d.view, scale: 0.001)
        XCTAssertEqual(c.count, 1)
        XCTAssertTrue(c.isFloorPiece(0))
        XCTAssertNil(NearestBodyFinder().find(c), "a piece of floor")
        for y in 60..<70 { for x in 40..<60 { d[x, y] = UInt16(4650 + 30 * ((x + y) % 2)) } }
        c.analyse(depth: d.view, scale: 0.001)
        XCTAssertFalse(c.isFloorPiece(0))
        XCTAssertEqual(NearestBodyFinder().find(c)?.headDepth ?? 0, 4.66, accuracy: 0.02, "upright")
    }

    func testASmoothedStepSplitsADoorJambFromThePerson() {
        // a filtered map: a door jamb along the left edge at 1.0 m (12
        // cells), the person at 1.28 m from column 17, and between them the
        // step smoothed into a ramp of 5.6 cm per cell (less than `jump`):
        // one surface with the jamb's top for its head band, so the finder
        // took 1.0 m (the ramp's middle does not join)
        let d = TestDepth(width: 160, height: 90, fill: 2800)
        d.fill(x0: 55, y0: 40, x1: 105, y1: 90, 1320)       // the person, as `person`, at 1.28 m
        d.fill(x0: 70, y0: 20, x1: 90, y1: 40, 1280)
        d.fill(x0: 12, y0: 40, x1: 55, y1: 90, 1320)        // the shoulder reaching the jamb
        d.fill(x0: 0, y0: 0, x1: 12, y1: 90, 1000)
        for y in 40..<90 { for x in 12..<17 { d[x, y] = UInt16(1000 + 56 * (x - 11)) } }
        let r = Self.find(d)
        XCTAssertEqual(r.body?.headDepth ?? 0, 1.28, accuracy: 0.02, "the person, not the jamb")
        // a wall seen at a grazing angle, receding 4 cm per cell all the way,
        // stays one surface
        let wall = TestDepth(width: 160, height: 90, fill: 0)
        for y in 0..<90 { for x in 0..<160 { wall[x, y] = UInt16(1000 + 40 * x) } }
        var c = DepthComponents()
        c.analyse(depth: wall.view, scale: 0.001)
        XCTAssertEqual(c.count, 1)
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
