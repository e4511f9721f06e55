// SPDX-License-Identifier: LGPL-2.1-or-later
import XCTest
@_spi(Bench) @testable import DepthMatteKit
import DMContract

/// What the depth-only lock knows of the room (RoomDepth.swift), and how the
/// depth-only finder uses it (NearestBody.swift), on synthetic 160x90 depth
/// maps in millimetres (one grid cell per depth pixel).
final class RoomDepthTests: XCTestCase {
    static let W = 160, H = 90

    static func wall(_ mm: UInt16 = 3000) -> TestDepth { TestDepth(width: W, height: H, fill: mm) }

    /// A person: head [70, 90) x [10, 32) at `face` mm, torso [55, 105) x
    /// [32, 90) at face + 60 mm reaching the bottom, shifted by dx.
    static func person(into d: TestDepth, face: Int, dx: Int = 0) {
        d.fill(x0: 55 + dx, y0: 32, x1: 105 + dx, y1: 90, UInt16(face + 60))
        d.fill(x0: 70 + dx, y0: 10, x1: 90 + dx, y1: 32, UInt16(face))
    }

    static func analyse(_ d: TestDepth) -> DepthComponents {
        var c = DepthComponents()
        c.analyse(depth: d.view, scale: 0.001)
        XCTAssertEqual(c.width, W)
        XCTAssertEqual(c.height, H)
        return c
    }

    /// The surface at grid cell (x, y).
    static func surface(_ c: DepthComponents, _ x: Int, _ y: Int) -> Int { Int(c.labels[y * c.width + x]) }

    /// Cells of surface `k`, and how many of them `room` marks as moved.
    static func cells(_ c: DepthComponents, _ k: Int, _ room: RoomDepth) -> (all: Int, moved: Int) {
        var all = 0, moved = 0
        for i in 0..<(c.width * c.height) where Int(c.labels[i]) == k {
            all += 1
            if room.movedCell(i) { moved += 1 }
        }
        return (all, moved)
    }

    // MARK: RoomDepth

    func testOnTheFirstFrameNothingHasMoved() {
        let d = Self.wall()
        Self.person(into: d, face: 1000)
        let c = Self.analyse(d)
        XCTAssertGreaterThanOrEqual(c.count, 2)
        var room = RoomDepth()
        room.measure(c)
        XCTAssertEqual(room.movedShare.count, c.count)
        for k in 0..<c.count {
            XCTAssertFalse(room.moved(k), "surface \(k)")
            XCTAssertEqual(room.movedShare[k], 0, "surface \(k)")
        }
        XCTAssertEqual((0..<(c.width * c.height)).filter { room.movedCell($0) }.count, 0)
    }

    func testBodyAppearingInFrontOfTheWallIsAMover() {
        var room = RoomDepth()
        room.measure(Self.analyse(Self.wall()))
        let d = Self.wall()
        Self.person(into: d, face: 1000)
        let c = Self.analyse(d)
        room.measure(c)
        let body = Self.surface(c, 80, 20), wall = Self.surface(c, 10, 10)
        XCTAssertEqual(Self.surface(c, 80, 60), body, "head and torso are one surface")
        XCTAssertNotEqual(body, wall)
        XCTAssertTrue(room.moved(body))
        XCTAssertEqual(room.movedShare[body], 1)
        let b = Self.cells(c, body, room)
        XCTAssertEqual(b.all, 20 * 22 + 50 * 58)
        XCTAssertEqual(b.moved, b.all, "every cell of the body")
        XCTAssertFalse(room.moved(wall))
        let w = Self.cells(c, wall, room)
        XCTAssertEqual(w.all, Self.W * Self.H - b.all)
        XCTAssertEqual(w.moved, 0, "no cell of the wall")
    }

    func testBodyStandingStillSinceTheFirstFrameIsNoMover() {
        // a person (or a cupboard) in view from the start, never moving,
        // while a second person walks in beside them
        let still = Self.wall()
        Self.person(into: still, face: 1200, dx: -40)
        var room = RoomDepth()
        for _ in 0..<5 {
            let c = Self.analyse(still)
            room.measure(c)
            XCTAssertFalse(room.moved(Self.surface(c, 40, 20)))
        }
        let both = Self.wall()
        Self.person(into: both, face: 1200, dx: -40)
        Self.person(into: both, face: 1500, dx: 40)
        let c = Self.analyse(both)
        room.measure(c)
        let first = Self.surface(c, 40, 20), second = Self.surface(c, 120, 20)
        XCTAssertNotEqual(first, second)
        XCTAssertFalse(room.moved(first), "in view since the first frame")
        XCTAssertEqual(Self.cells(c, first, room).moved, 0)
        XCTAssertTrue(room.moved(second), "walked in")
    }

    func testAMoverStaysAMoverWhileItStandsStill() {
        // a person walks in and then stands still: the wall behind them was
        // seen before, so they stay in front of the room
        var room = RoomDepth()
        room.measure(Self.analyse(Self.wall()))
        let d = Self.wall()
        Self.person(into: d, face: 1200)
        for frame in 0..<5 {
            let c = Self.analyse(d)
            room.measure(c)
            let body = Self.surface(c, 80, 20)
            XCTAssertTrue(room.moved(body), "frame \(frame)")
            XCTAssertEqual(Self.cells(c, body, room).moved, 20 * 22 + 50 * 58, "frame \(frame)")
        }
    }

    func testBodyReturningWhereItStoodAtTheStartIsAMover() {
        // a person in view from the start (no mover) leaves; once the wall
        // behind them has been read, the same person coming back is one
        let d = Self.wall()
        Self.person(into: d, face: 1200)
        var room = RoomDepth()
        let first = Self.analyse(d)
        room.measure(first)
        XCTAssertFalse(room.moved(Self.surface(first, 80, 20)))
        room.measure(Self.analyse(Self.wall()))
        let back = Self.analyse(d)
        room.measure(back)
        XCTAssertTrue(room.moved(Self.surface(back, 80, 20)))
    }

    func testResetForgetsTheRoom() {
        let d = Self.wall()
        Self.person(into: d, face: 1000)
        var kept = RoomDepth(), reset = RoomDepth()
        kept.measure(Self.analyse(Self.wall()))
        reset.measure(Self.analyse(Self.wall()))
        reset.reset()
        let c = Self.analyse(d)
        kept.measure(c)
        reset.measure(c)
        let body = Self.surface(c, 80, 20)
        XCTAssertTrue(kept.moved(body), "the wall seen before")
        XCTAssertFalse(reset.moved(body), "after reset: a first frame again")
        XCTAssertEqual((0..<(c.width * c.height)).filter { reset.movedCell($0) }.count, 0)
    }

    func testSurfaceLessThanTheMarginInFrontIsTheRoom() {
        // a poster 20 cm in front of a wall 3 m away (margin there: 15 cm
        // + 4 % = 27 cm) is the room; a board 40 cm in front has moved in
        let margin = RoomDepth().margin.at(3.0)
        for (mm, moves) in [(UInt16(2800), false), (UInt16(2600), true)] {
            XCTAssertEqual(Double(3000 - Int(mm)) / 1000 > Double(margin), moves)
            var room = RoomDepth()
            room.measure(Self.analyse(Self.wall()))
            let d = Self.wall()
            d.fill(x0: 60, y0: 20, x1: 100, y1: 60, mm)
            let c = Self.analyse(d)
            room.measure(c)
            let k = Self.surface(c, 80, 40)
            XCTAssertNotEqual(k, Self.surface(c, 10, 10), "a surface of its own at \(mm) mm")
            XCTAssertEqual(room.moved(k), moves, "\(mm) mm")
            XCTAssertEqual(Self.cells(c, k, room).moved, moves ? 40 * 40 : 0, "\(mm) mm")
        }
    }

    func testMoverNeedsMoverShareOfItsCellsInFrontOfTheRoom() {
        // a cupboard at 1.5 m from the start; then a surface at 1.45 m over
        // it that also reaches past its sides over the wall: only the cells
        // over the wall moved, and the surface moved as a whole when they
        // are `moverShare` of it
        let share = RoomDepth().moverShare
        for (extra, moves) in [(8, false), (20, true)] {
            var room = RoomDepth()
            let cupboard = Self.wall()
            cupboard.fill(x0: 40, y0: 20, x1: 120, y1: 90, 1500)
            room.measure(Self.analyse(cupboard))
            let d = Self.wall()
            d.fill(x0: 40 - extra, y0: 20, x1: 120 + extra, y1: 90, 1450)
            let c = Self.analyse(d)
            room.measure(c)
            let k = Self.surface(c, 80, 50)
            let cells = Self.cells(c, k, room)
            XCTAssertEqual(cells.all, (80 + 2 * extra) * 70)
            XCTAssertEqual(cells.moved, 2 * extra * 70, "the cells over the wall")
            XCTAssertEqual(room.movedShare[k], Double(cells.moved) / Double(cells.all), accuracy: 1e-12)
            XCTAssertEqual(room.movedShare[k] >= share, moves)
            XCTAssertEqual(room.moved(k), moves, "\(extra) columns over the wall each side")
        }
    }

    // MARK: the finder with the room

    func testFinderPrefersABodyThatMovedOverANearerOneThatNeverDid() {
        // a chair back 0.8 m from the camera from the start; a person walks
        // in 2 m away
        let chair = Self.wall()
        chair.fill(x0: 10, y0: 30, x1: 50, y1: 90, 800)
        var room = RoomDepth()
        let first = Self.analyse(chair)
        room.measure(first)
        let finder = NearestBodyFinder()
        // nothing has moved yet: the nearest body wins as without a room
        XCTAssertEqual(finder.find(first, room: room)?.component, Self.surface(first, 30, 60))
        let d = Self.wall()
        d.fill(x0: 10, y0: 30, x1: 50, y1: 90, 800)
        Self.person(into: d, face: 2000, dx: 40)
        let c = Self.analyse(d)
        room.measure(c)
        let chairK = Self.surface(c, 30, 60), body = Self.surface(c, 120, 20)
        XCTAssertTrue(finder.accepts(c, chairK) && finder.accepts(c, body), "both are bodies")
        XCTAssertFalse(room.moved(chairK))
        XCTAssertTrue(room.moved(body))
        let plain = finder.find(c)
        XCTAssertEqual(plain?.component, chairK, "without the room: the nearest")
        XCTAssertEqual(plain?.headDepth ?? 0, 0.8, accuracy: 0.005)
        let withRoom = finder.find(c, room: room)
        XCTAssertEqual(withRoom?.component, body, "with the room: the one that moved")
        XCTAssertEqual(withRoom?.headDepth ?? 0, 2.0, accuracy: 0.005)
    }

    func testAcceptsMoverTakesASmallBodyLeavingAtTheBottom() {
        // a head leaving at the bottom of the picture, 1.5 m away, after the
        // empty room was seen: smaller than `minSize`, at least a quarter
        // of it; and a smaller one 1 m away, under a quarter
        let finder = NearestBodyFinder()
        var room = RoomDepth()
        room.measure(Self.analyse(Self.wall()))
        let d = Self.wall()
        d.fill(x0: 74, y0: 80, x1: 86, y1: 90, 1500)        // leaving head
        d.fill(x0: 20, y0: 82, x1: 26, y1: 90, 1000)        // a fist
        let c = Self.analyse(d)
        room.measure(c)
        let head = Self.surface(c, 80, 85), fist = Self.surface(c, 22, 85)
        XCTAssertTrue(c.touchesBottom(head))
        XCTAssertGreaterThanOrEqual(c.physicalSize(head), finder.minSize / 4)
        XCTAssertLessThan(c.physicalSize(head), finder.minSize)
        XCTAssertGreaterThanOrEqual(c.areaFraction(fist), finder.minArea)
        XCTAssertLessThan(c.physicalSize(fist), finder.minSize / 4)
        XCTAssertTrue(room.moved(head) && room.moved(fist))
        XCTAssertTrue(finder.acceptsMover(c, head), "a mover a quarter of minSize")
        XCTAssertFalse(finder.accepts(c, head, moved: true), "not a subject")
        XCTAssertFalse(finder.accepts(c, head))
        XCTAssertFalse(finder.acceptsMover(c, fist), "under a quarter of minSize")
        XCTAssertNil(finder.find(c, room: room), "neither is the subject")
    }

    // MARK: a fragment at the picture's side

    /// The room seen empty, then: an arm and a chair's edge at the right
    /// side of the picture, 1.6 m away, which moved into view (someone seated
    /// mostly outside the picture), and, where `person`, a person walking
    /// through the room 2 m away.
    static func sideFragmentScene(person: Bool) -> (DepthComponents, RoomDepth, fragment: Int, body: Int?) {
        var room = RoomDepth()
        room.measure(analyse(wall()))
        let d = wall()
        d.fill(x0: 140, y0: 50, x1: 160, y1: 75, 1600)
        if person { Self.person(into: d, face: 2000, dx: -30) }
        let c = analyse(d)
        room.measure(c)
        return (c, room, surface(c, 150, 60), person ? surface(c, 50, 60) : nil)
    }

    func testAMoverAtTheSideDoesNotWinOverAWholeBodyThatMoved() {
        let finder = NearestBodyFinder()
        let (c, room, fragment, body) = Self.sideFragmentScene(person: true)
        let b = body!
        XCTAssertNotEqual(fragment, b)
        XCTAssertTrue(room.moved(fragment) && room.moved(b))
        XCTAssertTrue(finder.accepts(c, fragment) && finder.accepts(c, b), "both are bodies")
        XCTAssertLessThan(c.headDepth(fragment), c.headDepth(b) - 0.3, "the fragment is nearer")
        XCTAssertTrue(finder.isSideFragment(c, fragment, beside: b))
        XCTAssertFalse(finder.isSideFragment(c, b, beside: fragment))
        XCTAssertEqual(finder.find(c, room: room)?.component, b, "the whole body, not the nearer fragment")
        var nearestFirst = finder
        nearestFirst.fragmentShare = 0
        XCTAssertEqual(nearestFirst.find(c, room: room)?.component, fragment, "nearest first: the fragment")
        XCTAssertEqual(finder.find(c, room: room)?.headDepth ?? 0, 2.0, accuracy: 0.005)
        // the same small body away from the picture's sides is no fragment:
        // the nearest wins as before
        var room2 = RoomDepth()
        room2.measure(Self.analyse(Self.wall()))
        let d = Self.wall()
        d.fill(x0: 120, y0: 50, x1: 140, y1: 75, 1600)
        Self.person(into: d, face: 2000, dx: -30)
        let c2 = Self.analyse(d)
        room2.measure(c2)
        XCTAssertEqual(finder.find(c2, room: room2)?.component, Self.surface(c2, 130, 60))
    }

    func testAHeadCloseUpAtTheSideIsNoFragmentBesideABodyFarAway() {
        // a head close up (1 m) at the right side, and a body 5 m away that
        // its distance makes physically larger: the body is more than
        // `fragmentReach` times as far, so the head stays the nearest
        let finder = NearestBodyFinder()
        var room = RoomDepth()
        room.measure(Self.analyse(Self.wall(6000)))
        let d = Self.wall(6000)
        d.fill(x0: 140, y0: 60, x1: 160, y1: 90, 1000)
        d.fill(x0: 40, y0: 20, x1: 60, y1: 50, 5000)
        let c = Self.analyse(d)
        room.measure(c)
        let head = Self.surface(c, 150, 70), far = Self.surface(c, 50, 30)
        XCTAssertTrue(room.moved(head) && room.moved(far))
        XCTAssertTrue(finder.accepts(c, head) && finder.accepts(c, far))
        XCTAssertLessThan(c.physicalSize(head), finder.fragmentShare * c.physicalSize(far), "physically smaller")
        XCTAssertFalse(finder.isSideFragment(c, head, beside: far))
        XCTAssertEqual(finder.find(c, room: room)?.component, head)
        var reachless = finder
        reachless.fragmentReach = 10
        XCTAssertEqual(reachless.find(c, room: room)?.component, far, "without the reach the far body would win")
    }

    func testAFragmentAtTheSideIsTheSubjectWhileNoWholeBodyMoved() {
        let finder = NearestBodyFinder()
        let (c, room, fragment, _) = Self.sideFragmentScene(person: false)
        XCTAssertEqual(finder.find(c, room: room)?.component, fragment)
        XCTAssertEqual(finder.find(c, room: room)?.headDepth ?? 0, 1.6, accuracy: 0.005)
    }

    func testTheLockLeavesAFragmentAtTheSideForAWholeBodyThatMovedIn() {
        // the lock follows the fragment while it is all that moved; a man
        // walks in farther away (2 m, then 2.3 m): the lock takes him
        let lock = SubjectLock()
        var s = DMDepthMatteSettings.defaults
        s.mode = KeyingMode.nearest.rawValue; s.cutoff_offset = 0.25; s.frame_duration = 1.0 / 10
        func step(_ d: TestDepth) -> (Double, MatteResult) {
            var r = MatteResult()
            let cut = lock.update(MattePlan(s), depth: d.view, faces: [],
                                  videoWidth: 320, videoHeight: 180, result: &r)
            return (cut, r)
        }
        _ = step(Self.wall())
        let fragmentOnly = Self.wall()
        fragmentOnly.fill(x0: 140, y0: 50, x1: 160, y1: 75, 1600)
        for _ in 0..<5 { _ = step(fragmentOnly) }
        XCTAssertEqual(lock.subjectDepth ?? 0, 1.6, accuracy: 0.01, "the fragment while nothing else moved")
        for face in [2000, 2300] {
            let d = Self.wall()
            d.fill(x0: 140, y0: 50, x1: 160, y1: 75, 1600)
            Self.person(into: d, face: face, dx: -30)
            let (cut, r) = step(d)
            XCTAssertEqual(r.lockSource, .nearest)
            XCTAssertEqual(lock.subjectDepth ?? 0, Double(face) / 1000, accuracy: 0.01, "face at \(face) mm")
            XCTAssertGreaterThan(cut, Double(face) / 1000 + 0.1, "the man is nearer than the cutoff")
        }
    }
}
