// SPDX-License-Identifier: LGPL-2.1-or-later
import XCTest
@_spi(Bench) @testable import DepthMatteKit
import DMContract

/// The subject lock's rules (SubjectLock.swift) and the depth-only finder
/// (NearestBody.swift) on synthetic 160x90 depth maps behind a 320x180 video.
final class SubjectLockTests: XCTestCase {
    static let VW = 320, VH = 180

    /// Wall at `wall` mm; a person: head [70, 90) x [10, 32) at `face` mm,
    /// torso [55, 105) x [32, 90) at face + 60 mm (reaching the bottom).
    static func person(face: Int, wall: UInt16 = 3000, dx: Int = 0) -> TestDepth {
        let d = TestDepth(width: 160, height: 90, fill: wall)
        d.fill(x0: 55 + dx, y0: 32, x1: 105 + dx, y1: 90, UInt16(face + 60))
        d.fill(x0: 70 + dx, y0: 10, x1: 90 + dx, y1: 32, UInt16(face))
        return d
    }
    /// The person's face box in the video (k = 40/320 x depth).
    static func face(dx: Int = 0) -> Box { Box(x: 140 + 2 * dx, y: 20, width: 40, height: 44) }
    /// A face on the wall with a head's size for the wall's depth
    /// (k = 13/320 x 3.0 m = 0.12: the same k as the person's).
    static let poster = Box(x: 250, y: 20, width: 13, height: 16)

    struct Step { var cutoff: Double; var result: MatteResult }

    /// One frame through `lock` at the element's defaults, but for the
    /// given mode, strategy, hold and smoothing (nil: the defaults).
    static func step(_ lock: SubjectLock, _ depth: TestDepth, _ faces: [Box], mode: KeyingMode = .face,
                     strategy: LockStrategy = .robust, hold: Double? = nil, smoothing: Double? = nil) -> Step {
        var s = DMDepthMatteSettings.defaults
        s.mode = mode.rawValue; s.lock_strategy = strategy.rawValue; s.cutoff = 1.0; s.cutoff_offset = 0.25; s.frame_duration = 1.0 / 30
        if let hold { s.lock_hold = hold }
        if let smoothing { s.lock_smoothing = smoothing }
        var r = MatteResult()
        let c = lock.update(MattePlan(s), depth: depth.view, faces: faces,
                            videoWidth: VW, videoHeight: VH, result: &r)
        return Step(cutoff: c, result: r)
    }

    // MARK: with a person prior

    /// One frame through `lock` with a person probability (`person`, at
    /// the depth grid's size, covering the whole frame).
    static func step(_ lock: SubjectLock, _ depth: TestDepth, _ faces: [Box], person: TestProbability?,
                     mode: KeyingMode) -> Step {
        var s = DMDepthMatteSettings.defaults
        s.mode = mode.rawValue; s.cutoff = 1.0; s.cutoff_offset = 0.25; s.frame_duration = 1.0 / 30
        var r = MatteResult()
        let c: Double
        if let person {
            c = person.withView { lock.update(MattePlan(s), depth: depth.view, faces: faces, person: $0,
                                              videoWidth: VW, videoHeight: VH, result: &r) }
        } else {
            c = lock.update(MattePlan(s), depth: depth.view, faces: faces, videoWidth: VW, videoHeight: VH, result: &r)
        }
        return Step(cutoff: c, result: r)
    }

    /// The probability of `person(face:dx:)`'s head and torso.
    static func probability(dx: Int = 0, into p: TestProbability = TestProbability(width: 160, height: 90))
        -> TestProbability {
        p.fill(x0: 55 + dx, y0: 32, x1: 105 + dx, y1: 90)
        p.fill(x0: 70 + dx, y0: 10, x1: 90 + dx, y1: 32)
        return p
    }

    func testWithAPersonPriorThePersonNotTheNearerPillarIsTheSubject() {
        // a pillar at 1.5 m, from the top of the picture to its bottom,
        // nearer than the man at 2.0 m; no face finder
        let d = Self.person(face: 2000, dx: 30)
        d.fill(x0: 20, y0: 0, x1: 40, y1: 90, 1500)
        for mode in [KeyingMode.face, .nearest] {
            let depthOnly = Self.step(SubjectLock(), d, [], person: nil, mode: mode)
            XCTAssertEqual(depthOnly.cutoff, 1.75, accuracy: 0.01, "\(mode): depth alone takes the nearest body")
            let lock = SubjectLock()
            let seen = Self.step(lock, d, [], person: Self.probability(dx: 30), mode: mode)
            XCTAssertEqual(seen.cutoff, 2.25, accuracy: 0.01, "\(mode): the body the model sees as a person")
            XCTAssertTrue(lock.subjectSeen)
        }
        // tracked onto the pillar before the prior came: the first frame
        // with it moves the lock to the person
        let lock = SubjectLock()
        _ = Self.step(lock, d, [], person: nil, mode: .nearest)
        _ = Self.step(lock, d, [], person: Self.probability(dx: 30), mode: .nearest)
        XCTAssertEqual(lock.subjectDepth ?? 0, 2.0, accuracy: 0.01, "the cutoff follows (smoothed)")
    }

    func testTwoPeopleAtDifferentDepthsThePriorTakesTheNearerAndAFacePicksTheOther() {
        // one person at 1.2 m (left), another at 2.0 m (right)
        let d = TestDepth(width: 160, height: 90, fill: 3500)
        d.fill(x0: 15, y0: 32, x1: 65, y1: 90, 1260); d.fill(x0: 30, y0: 10, x1: 50, y1: 32, 1200)
        d.fill(x0: 95, y0: 32, x1: 145, y1: 90, 2060); d.fill(x0: 110, y0: 10, x1: 130, y1: 32, 2000)
        let both = Self.probability(dx: -40, into: Self.probability(dx: 40))
        let lock = SubjectLock()
        XCTAssertEqual(Self.step(lock, d, [], person: both, mode: .face).cutoff, 1.45, accuracy: 0.01,
                       "no face: the nearer person the model sees")
        // the face of the farther one, reported frame after frame, takes over
        var last = Step(cutoff: 0, result: MatteResult())
        for _ in 0..<12 { last = Self.step(lock, d, [Self.face(dx: 40)], person: both, mode: .face) }
        XCTAssertEqual(last.result.lockSource, .face)
        XCTAssertEqual(last.result.faceDepth, 2.0, accuracy: 0.01)
    }

    func testABodyTheModelSawKeepsTheLockWhileTheModelLosesIt() {
        // a man at 2.0 m the model sees, then loses (back turned, far
        // off); a chair at 1.5 m, clearly nearer, that it never sees
        let d = Self.person(face: 2000, dx: 30)
        d.fill(x0: 20, y0: 40, x1: 40, y1: 90, 1500)
        let lock = SubjectLock()
        _ = Self.step(lock, d, [], person: Self.probability(dx: 30), mode: .nearest)
        let lost = Self.step(lock, d, [], person: TestProbability(width: 160, height: 90), mode: .nearest)
        XCTAssertEqual(lost.cutoff, 2.25, accuracy: 0.01)
        XCTAssertTrue(lock.subjectSeen, "seen on an earlier frame of the track")
        // a lock that never saw its body as a person
        let empty = SubjectLock()
        _ = Self.step(empty, d, [], person: TestProbability(width: 160, height: 90), mode: .nearest)
        XCTAssertFalse(empty.subjectSeen)
    }

    func testWhatTheModelSawOfABodyHoldsAcrossAStepTheTrackRefuses() {
        // the model sees a man at 2.0 m, then loses him as he steps 0.35 m
        // back between two frames (more than a track step): the finder takes
        // the same body again, and the model's sight of it still holds
        let lock = SubjectLock()
        _ = Self.step(lock, Self.person(face: 2000, dx: 30), [], person: Self.probability(dx: 30), mode: .nearest)
        XCTAssertTrue(lock.subjectSeen)
        let s = Self.step(lock, Self.person(face: 2350, dx: 30), [], person: TestProbability(width: 160, height: 90),
                          mode: .nearest)
        XCTAssertEqual(lock.subjectDepth ?? 0, 2.35, accuracy: 0.01, "the finder's body")
        XCTAssertEqual(s.result.lockSource, .nearest)
        XCTAssertTrue(lock.subjectSeen, "the same body: what the model saw of it holds")
        // another body taken after the model's own stays unseen
        let d = Self.person(face: 2000, dx: 30)
        let other = TestDepth(width: 160, height: 90, fill: 3000)
        other.fill(x0: 10, y0: 32, x1: 40, y1: 90, 1560); other.fill(x0: 15, y0: 10, x1: 35, y1: 32, 1500)
        let moved = SubjectLock()
        _ = Self.step(moved, d, [], person: Self.probability(dx: 30), mode: .nearest)
        _ = Self.step(moved, other, [], person: TestProbability(width: 160, height: 90), mode: .nearest)
        XCTAssertEqual(moved.subjectDepth ?? 0, 1.5, accuracy: 0.01)
        XCTAssertFalse(moved.subjectSeen, "a body elsewhere in the picture")
    }

    // MARK: face choice

    func testFalseFaceFirstInMetaOrderIsRejected() {
        let lock = SubjectLock()
        let d = Self.person(face: 1000)
        for _ in 0..<30 {
            let s = Self.step(lock, d, [Self.poster, Self.face()])
            XCTAssertEqual(s.result.lockSource, .face)
            XCTAssertEqual(s.result.faceDepth, 1.0, accuracy: 0.01)
            XCTAssertEqual(s.cutoff, 1.25, accuracy: 0.01)
        }
        // the real face is covered for 2 s: only the poster is reported; it never takes the lock
        for _ in 0..<60 {
            let s = Self.step(lock, d, [Self.poster])
            XCTAssertEqual(s.result.lockSource, .tracked)
            XCTAssertFalse(s.result.faceFound)
            XCTAssertEqual(s.cutoff, 1.25, accuracy: 0.02)
        }
        // the original strategy takes the first box: the wall
        let orig = Self.step(SubjectLock(), d, [Self.poster, Self.face()], strategy: .original)
        XCTAssertEqual(orig.cutoff, 3.25, accuracy: 1e-9)
    }

    func testWrongSizedBoxAtTheSubjectsDepthDoesNotMoveTheLock() {
        let lock = SubjectLock()
        let d = Self.person(face: 1000)
        for _ in 0..<5 { _ = Self.step(lock, d, [Self.face()]) }
        // a tiny box (k = 0.03) on the torso: not a head
        let tiny = Box(x: 150, y: 120, width: 10, height: 10)
        let s = Self.step(lock, d, [tiny])
        XCTAssertFalse(s.result.faceFound)
        XCTAssertEqual(s.result.lockSource, .tracked)
    }

    func testConsistentNewFaceTakesOverAfterTakeoverFrames() {
        let lock = SubjectLock()
        let n = lock.settings.takeoverFrames
        let a = Self.person(face: 1200)
        for _ in 0..<10 { _ = Self.step(lock, a, [Self.face()]) }
        XCTAssertEqual(lock.cutoff ?? 0, 1.45, accuracy: 0.01)
        // a second person, nearer (0.7 m) and with a bigger box (another
        // head size: inconsistent with the tracked one), on the left
        let both = Self.person(face: 1200)
        both.fill(x0: 5, y0: 30, x1: 45, y1: 90, 760)
        both.fill(x0: 15, y0: 5, x1: 35, y1: 30, 700)
        let b = Box(x: 30, y: 10, width: 44, height: 50)   // k = 44/320 x 0.7 = 0.096 vs 0.15
        for i in 1..<n {
            let s = Self.step(lock, both, [b])
            XCTAssertFalse(s.result.faceFound, "frame \(i)")
            XCTAssertEqual(s.cutoff, 1.45, accuracy: 0.02)
        }
        let s = Self.step(lock, both, [b])
        XCTAssertTrue(s.result.faceFound)
        XCTAssertEqual(s.result.faceDepth, 0.7, accuracy: 0.01)
        // and from then on the new head is the tracked one
        for _ in 0..<20 { _ = Self.step(lock, both, [b, Self.face()]) }
        XCTAssertEqual(lock.cutoff ?? 0, 0.95, accuracy: 0.01)
    }

    func testSeveralConsistentFacesPickTheOneNearestTheTrackedDepth() {
        let lock = SubjectLock()
        let d = Self.person(face: 1000)
        for _ in 0..<5 { _ = Self.step(lock, d, [Self.face()]) }
        // a second box on the torso, same size: its depth (1.06) is farther from the track than the face's
        let s = Self.step(lock, d, [Box(x: 130, y: 120, width: 40, height: 44), Self.face()])
        XCTAssertEqual(s.result.faceDepth, 1.0, accuracy: 0.005)
    }

    func testPosterFaceNeverLocksWhileTheRealFaceIsCoveredFromTheStart() {
        let lock = SubjectLock()
        let d = Self.person(face: 1000)
        for i in 0..<60 {
            let s = Self.step(lock, d, [Self.poster])
            XCTAssertFalse(s.result.faceFound, "frame \(i)")
            XCTAssertEqual(s.result.lockSource, .nearest)
            XCTAssertEqual(s.cutoff, 1.25, accuracy: 0.02)
        }
        // when the real face shows, it confirms the nearest body at once
        let s = Self.step(lock, d, [Self.poster, Self.face()])
        XCTAssertTrue(s.result.faceFound)
        XCTAssertEqual(s.result.faceDepth, 1.0, accuracy: 0.01)
    }

    func testRealFaceBehindANearerObjectTakesOverAfterTakeoverFrames() {
        // a big chair back at 0.6 m on the left, the person at 1.2 m
        let d = Self.person(face: 1200)
        d.fill(x0: 0, y0: 20, x1: 40, y1: 80, 600)
        let lock = SubjectLock()
        let first = Self.step(lock, d, [])
        XCTAssertEqual(first.cutoff, 0.85, accuracy: 0.02)       // depth alone picks the chair
        let n = lock.settings.takeoverFrames
        var s = first
        for _ in 0..<n { s = Self.step(lock, d, [Self.face()]) }
        XCTAssertTrue(s.result.faceFound)
        XCTAssertEqual(s.result.faceDepth, 1.2, accuracy: 0.01)
    }

    // MARK: tracking

    func testCutoffFollowsSubjectMovingInDepthWithoutFace() {
        let lock = SubjectLock()
        for _ in 0..<10 { _ = Self.step(lock, Self.person(face: 1000), [Self.face()]) }
        var last = Step(cutoff: 0, result: MatteResult())
        for i in 0...30 {
            let face = 1000 + i * 500 / 30           // 1.0 m -> 1.5 m in 1 s
            last = Self.step(lock, Self.person(face: face, dx: i / 6), [])
            XCTAssertEqual(last.result.lockSource, .tracked, "frame \(i)")
            // the torso (face + 6 cm) stays inside the cutoff
            XCTAssertGreaterThan(last.cutoff, Double(face) / 1000 + 0.1, "frame \(i)")
        }
        for _ in 0..<15 { last = Self.step(lock, Self.person(face: 1500, dx: 5), []) }
        XCTAssertEqual(last.cutoff, 1.75, accuracy: 0.02)
        // the original strategy holds 1.25 m: the subject is lost
        let orig = SubjectLock()
        _ = Self.step(orig, Self.person(face: 1000), [Self.face()], strategy: .original)
        XCTAssertEqual(Self.step(orig, Self.person(face: 1500), [], strategy: .original).cutoff, 1.25, accuracy: 1e-9)
    }

    func testFaceReturnsWithoutAJump() {
        let lock = SubjectLock()
        for _ in 0..<10 { _ = Self.step(lock, Self.person(face: 1000), [Self.face()]) }
        for i in 0...20 { _ = Self.step(lock, Self.person(face: 1000 + i * 10), []) }
        for _ in 0..<15 { _ = Self.step(lock, Self.person(face: 1200), []) }
        let before = lock.cutoff ?? 0
        let s = Self.step(lock, Self.person(face: 1200), [Self.face()])
        XCTAssertEqual(s.result.lockSource, .face)
        XCTAssertLessThan(abs(s.cutoff - before), 0.02)
        XCTAssertEqual(s.cutoff, 1.45, accuracy: 0.03)
    }

    func testAfterTheHoldTheNearestBodyTakesOver() {
        let lock = SubjectLock()
        for _ in 0..<5 { _ = Self.step(lock, Self.person(face: 1000), [Self.face()], hold: 0.5) }
        var s = Self.step(lock, Self.person(face: 1000), [], hold: 0.5)
        XCTAssertEqual(s.result.lockSource, .tracked)
        for _ in 0..<20 { s = Self.step(lock, Self.person(face: 1000), [], hold: 0.5) }
        XCTAssertEqual(s.result.lockSource, .nearest)
        XCTAssertEqual(s.cutoff, 1.25, accuracy: 0.02)
    }

    func testSmoothingFollowsAtTheSetSpeed() {
        let lock = SubjectLock()
        _ = Self.step(lock, Self.person(face: 1000), [Self.face()], smoothing: 0.5)
        XCTAssertEqual(lock.cutoff ?? 0, 1.25, accuracy: 1e-6)    // the first lock is immediate
        // a step to 1.1 m (the face box shrinks to match: k = 36/320 x 1.1 = 0.124)
        let far = Box(x: 142, y: 22, width: 36, height: 40)
        let s = Self.step(lock, Self.person(face: 1100), [far], smoothing: 0.5)
        XCTAssertTrue(s.result.faceFound)
        // one frame of 1/30 s with tau 0.5 s moves 1/16 of the way
        XCTAssertEqual(s.cutoff, 1.25 + 0.1 / 16, accuracy: 0.003)
        XCTAssertEqual(Self.step(lock, Self.person(face: 1100), [far], smoothing: 0).cutoff, 1.35, accuracy: 0.003)
    }

    func testASubjectWalkingAwayStaysNearerThanTheSmoothedCutoff() {
        // a person stepping back 0.3 m a frame (a walk filmed at 10 frames/s)
        // with a long time constant, found from depth alone: the smoothed
        // cutoff would lag by metres; it stays at least half the offset
        // (0.125 m) beyond the head
        let lock = SubjectLock()
        var cutoffs: [Double] = []
        for i in 0..<6 {
            let d = 1000 + 300 * i
            let s = Self.step(lock, Self.person(face: d, wall: 6000), [], mode: .nearest, smoothing: 0.5)
            XCTAssertEqual(s.result.lockSource, .nearest, "frame \(i)")
            XCTAssertGreaterThanOrEqual(s.cutoff, Double(d) / 1000 + 0.125 - 0.01, "frame \(i): the head beyond the cutoff")
            cutoffs.append(s.cutoff)
        }
        // still smoothed: below the goal (head + 0.25) while it moves
        XCTAssertLessThan(cutoffs.last!, 2.5 + 0.25 - 0.05)
        // and coming back nearer, it follows at the set speed again
        let s = Self.step(lock, Self.person(face: 2200, wall: 6000), [], mode: .nearest, smoothing: 0.5)
        XCTAssertEqual(s.cutoff, cutoffs.last! + (2.45 - cutoffs.last!) / 16, accuracy: 0.01)
    }

    func testASubjectFoundAfterNoneIsTakenAtOnce() {
        // an empty room (the wall alone: no body, the lock falls back to the
        // cutoff setting), then a person walks in: the cutoff does not creep
        // from the setting to the person over `smoothing` (a
        // person walking in 4.5 m away stayed beyond the creeping cutoff for
        // two frames, keyed out)
        let lock = SubjectLock()
        let empty = TestDepth(width: 160, height: 90, fill: 4500)
        for _ in 0..<3 {
            let s = Self.step(lock, empty, [], mode: .nearest, smoothing: 0.5)
            XCTAssertEqual(s.result.lockSource, .fixed)
            XCTAssertEqual(s.cutoff, 1.0, accuracy: 1e-6)
        }
        let s = Self.step(lock, Self.person(face: 4000, wall: 6000), [], mode: .nearest, smoothing: 0.5)
        XCTAssertEqual(s.result.lockSource, .nearest)
        XCTAssertEqual(s.cutoff, 4.25, accuracy: 0.05)
        // and from then on it moves at the set speed
        let t = Self.step(lock, Self.person(face: 4100, wall: 6000), [], mode: .nearest, smoothing: 0.5)
        XCTAssertEqual(t.cutoff, s.cutoff + (4.35 - s.cutoff) / 16, accuracy: 0.01)
    }

    // MARK: depth-only finder

    func testNearestBodyIgnoresSmallNearObjects() {
        let d = Self.person(face: 1200)
        d.fill(x0: 20, y0: 40, x1: 28, y1: 48, 600)     // a cup on a shelf, nearer than anything
        d.fill(x0: 60, y0: 45, x1: 66, y1: 53, 650)     // a raised cup in front of the torso
        var c = DepthComponents()
        c.analyse(depth: d.view, scale: 0.001)
        let f = NearestBodyFinder().find(c)
        XCTAssertNotNil(f)
        XCTAssertEqual(f?.headDepth ?? 0, 1.2, accuracy: 0.01)
        // through DepthMatter: mode=nearest, cutoff = head + offset
        let lock = SubjectLock()
        let s = Self.step(lock, d, [], mode: .nearest)
        XCTAssertEqual(s.result.lockSource, .nearest)
        XCTAssertEqual(s.cutoff, 1.45, accuracy: 0.01)
    }

    func testNearestBodyIgnoresTheFloor() {
        // floor over the bottom 30 rows: 2.6 m at row 60 to 0.9 m at row 89;
        // a person at 2.0 m standing above it; wall 3.0 m
        let d = TestDepth(width: 160, height: 90, fill: 3000)
        for y in 60..<90 {
            let v = 2600 - (y - 60) * 1700 / 29
            d.fill(x0: 0, y0: y, x1: 160, y1: y + 1, UInt16(v))
        }
        d.fill(x0: 60, y0: 25, x1: 100, y1: 60, 2060)
        d.fill(x0: 72, y0: 8, x1: 88, y1: 25, 2000)
        var c = DepthComponents()
        c.analyse(depth: d.view, scale: 0.001)
        let f = NearestBodyFinder().find(c)
        XCTAssertEqual(f?.headDepth ?? 0, 2.0, accuracy: 0.02)
        // the floor is a surface of its own, and floor-like
        let floor = c.labels[89 * c.width + 5]
        XCTAssertGreaterThanOrEqual(floor, 0)
        XCTAssertTrue(c.isFloorLike(Int(floor)))
    }

    func testPersonJoinedByADeskIsNotAFloor() {
        // a desk top in front of the person reaching the bottom: 0.6 m at the
        // bottom row to 0.9 m where it meets the torso (joined: small steps)
        let d = Self.person(face: 1000)
        for y in 70..<90 {
            d.fill(x0: 30, y0: y, x1: 130, y1: y + 1, UInt16(1000 - (y - 70) * 20))
        }
        var c = DepthComponents()
        c.analyse(depth: d.view, scale: 0.001)
        let f = NearestBodyFinder().find(c)
        XCTAssertEqual(f?.headDepth ?? 0, 1.0, accuracy: 0.02)
        XCTAssertFalse(c.isFloorLike(f?.component ?? 0))
    }

    func testFaceModeBeforeAnyFaceUsesTheNearestBody() {
        let lock = SubjectLock()
        let s = Self.step(lock, Self.person(face: 900), [])
        XCTAssertEqual(s.result.lockSource, .nearest)
        XCTAssertEqual(s.cutoff, 1.15, accuracy: 0.01)
        // with no body at all (a flat wall): the cutoff property
        let wall = TestDepth(width: 160, height: 90, fill: 0)
        wall.fill(x0: 0, y0: 0, x1: 4, y1: 4, 3000)
        let w = Self.step(SubjectLock(), wall, [])
        XCTAssertEqual(w.result.lockSource, .fixed)
        XCTAssertEqual(w.cutoff, 1.0, accuracy: 1e-9)
    }

    func testLargeDepthIsAnalysedOnASmallGrid() {
        // 640x360 depth is analysed on a 160x90 grid
        let d = TestDepth(width: 640, height: 360, fill: 2500)
        d.fill(x0: 220, y0: 128, x1: 420, y1: 360, 1060)
        d.fill(x0: 280, y0: 40, x1: 360, y1: 128, 1000)
        var c = DepthComponents()
        c.analyse(depth: d.view, scale: 0.001)
        XCTAssertEqual(c.width, 160); XCTAssertEqual(c.height, 90); XCTAssertEqual(c.step, 4)
        XCTAssertEqual(NearestBodyFinder().find(c)?.headDepth ?? 0, 1.0, accuracy: 0.01)
    }
    /// The surfaces against a flood fill with the same rule (4-neighbours,
    /// both valid, depth step under `jump`), numbered in scan order: random
    /// blobs at a few depths with jitter and holes, U shapes whose arms meet
    /// only further down, and one-pixel gaps.
    func testSurfacesMatchAFloodFillNumberedInScanOrder() {
        var rng = TestRandom(seed: 77)
        for trial in 0..<13 {
            let w = trial == 12 ? 5 : 37 + trial, h = trial == 12 ? 4 : 29
            let d = TestDepth(width: w, height: h, fill: 3000)
            if trial == 12 {
                // a ramp: (1, 1) is too far from (0, 1) to join it, yet (1, 2)
                // joins both (0, 2) and (1, 1), and (0, 2) joins (0, 1): the
                // column x = 1 above row 2 is one surface with the rest only
                // through (1, 2)'s link upwards
                d[0, 0] = 1000; d[0, 1] = 1000; d[1, 0] = 1090; d[1, 1] = 1090
                d[0, 2] = 1020; d[1, 2] = 1070
            }
            for _ in 0..<(trial == 12 ? 0 : 4 + trial % 5) {
                let x0 = rng.int(0...(w - 4)), y0 = rng.int(0...(h - 4))
                d.fill(x0: x0, y0: y0, x1: min(w, x0 + rng.int(2...15)), y1: min(h, y0 + rng.int(2...12)),
                       UInt16(800 + 400 * rng.int(0...4)))
            }
            if trial == 12 {
                var c = DepthComponents()
                c.analyse(depth: d.view, scale: 0.001)
                XCTAssertEqual(c.labels[1], c.labels[2 * w + 1], "the ramp's column is one surface")
            }
            // U shapes: two arms joined only at the bottom
            let ux = trial == 12 ? -1 : rng.int(0...(w - 9))
            if ux >= 0 {
                d.fill(x0: ux, y0: 2, x1: ux + 2, y1: 14, 1100)
                d.fill(x0: ux + 6, y0: 2, x1: ux + 8, y1: 14, 1100)
                d.fill(x0: ux, y0: 14, x1: ux + 8, y1: 16, 1100)
            }
            for y in 0..<h where trial < 12 {
                for x in 0..<w {
                    if rng.int(0...15) == 0 { d[x, y] = 0 }  // holes
                    else if rng.int(0...7) == 0 { d[x, y] = UInt16(Int(d[x, y]) + rng.int(-30...30)) }  // jitter
                }
            }
            var c = DepthComponents()
            c.analyse(depth: d.view, scale: 0.001)
            XCTAssertEqual(c.width, w); XCTAssertEqual(c.height, h)
            // reference: flood fill in scan order on the same sampled depths,
            // with the same rule for two neighbours (`joins`: the check is on
            // the union-find's shortcuts)
            let v = c.depth
            var want = [Int32](repeating: -1, count: w * h)
            var next: Int32 = 0
            for start in 0..<(w * h) where v[start] > 0 && want[start] < 0 {
                want[start] = next
                var stack = [start]
                while let i = stack.popLast() {
                    let x = i % w, y = i / w
                    for (dx, dy) in [(-1, 0), (1, 0), (0, -1), (0, 1)] {
                        let nx = x + dx, ny = y + dy
                        guard nx >= 0, nx < w, ny >= 0, ny < h else { continue }
                        let j = ny * w + nx
                        if v[j] > 0 && want[j] < 0 && c.joins(i, j) {
                            want[j] = next
                            stack.append(j)
                        }
                    }
                }
                next += 1
            }
            XCTAssertEqual(c.count, Int(next), "trial \(trial)")
            XCTAssertEqual(Array(c.labels.prefix(w * h)), want, "trial \(trial)")
        }
    }
}
