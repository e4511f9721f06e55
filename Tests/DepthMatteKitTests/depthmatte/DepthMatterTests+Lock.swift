// SPDX-License-Identifier: LGPL-2.1-or-later
import XCTest
@_spi(Bench) @testable import DepthMatteKit
import DMContract

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `DepthMatter.process` with the subject lock: what nearest keys without a
/// subject, and the face lock (the cutoff following the face, held without
/// one, reset, the face box mapped to the depth map).
extension DepthMatterTests {
    // MARK: no subject found

    func testLockStrategyDoesNotChangeWhatNearestKeysWithoutASubject() {
        // lock-strategy is mode=face's (how it picks and keeps a face); in
        // mode=nearest, subject-only keys nothing on a frame in which the
        // lock finds no subject, with either strategy. An empty room: a wall
        // at 4.5 m, nearer than the 5 m cutoff setting (the fallback).
        let empty = TestDepth(width: 160, height: 90, fill: 4500)
        let video = Self.makeVideo(160, 90)
        var s = DMDepthMatteSettings.defaults
        s.mode = KeyingMode.nearest.rawValue
        s.refine = MatteRefine.none.rawValue
        s.cutoff = 5.0
        s.background_argb = 0xff00_ff00
        for strategy in [LockStrategy.robust, .original] {
            s.lock_strategy = strategy.rawValue
            XCTAssertEqual(MattePlan(s).cutoff.subject?.keysNothingWithoutSubject, true, "\(strategy)")
            let out = TestRGB(width: 160, height: 90)
            let r = run(DepthMatter(), s, video: video, depth: empty, output: out)
            XCTAssertEqual(r.lockSource, .fixed, "\(strategy): no subject found")
            for (x, y) in [(5, 5), (80, 45), (150, 80)] {
                assertPixel(out[x, y], Self.green, "\(strategy): (\(x), \(y)) keyed out")
            }
        }
        // mode=face with lock-strategy=original keeps the sample's fallback
        s.mode = KeyingMode.face.rawValue
        s.lock_strategy = LockStrategy.original.rawValue
        XCTAssertEqual(MattePlan(s).cutoff.subject?.keysNothingWithoutSubject, false)
    }

    // MARK: face lock

    /// Depth 16x12: wall 1.2 m; body [4, 12) x [6, 12) at 1.04 m; face
    /// [6, 10) x [1, 6) at 0.8 m. The face box is given in the 32x24 video.
    static func portrait(faceDepth: UInt16 = 800) -> TestDepth {
        let d = TestDepth(width: 16, height: 12, fill: 1200)
        d.fill(x0: 4, y0: 6, x1: 12, y1: 12, 1040)
        d.fill(x0: 6, y0: 1, x1: 10, y1: 6, faceDepth)
        return d
    }
    static let faceBox = Box(x: 12, y: 2, width: 8, height: 10)  // central part -> depth [7, 9) x [2, 5)

    static func faceSettings() -> DMDepthMatteSettings {
        var s = sharp()
        s.mode = KeyingMode.face.rawValue
        s.cutoff = 1.0
        s.cutoff_offset = 0.25
        // these tests pin the original sample's lock (first box, held);
        // SubjectLockTests cover the default rules
        s.lock_strategy = LockStrategy.original.rawValue
        return s
    }

    func testCutoffInForceIsTheSetCutoffAfterALiveChangeOfMode() {
        // the background blur keys on the cutoff in force before the lock
        // runs: the lock's while a subject is followed, the set one as soon
        // as the mode is fixed or a focus mode (no reset in between)
        let m = DepthMatter()
        var s = Self.faceSettings()
        XCTAssertEqual(m.cutoffInForce(MattePlan(s)), 1.0, accuracy: 1e-12, "before any lock: the preset")
        let video = Self.makeVideo(32, 24)
        _ = run(m, s, video: video, depth: Self.portrait(), output: TestRGB(width: 32, height: 24), faces: [Self.faceBox])
        XCTAssertEqual(m.cutoffInForce(MattePlan(s)), 1.05, accuracy: 1e-12, "locked to the face")
        s.mode = KeyingMode.fixed.rawValue
        s.cutoff = 2.5
        XCTAssertEqual(m.cutoffInForce(MattePlan(s)), 2.5, accuracy: 1e-12, "fixed")
        s.mode = KeyingMode.highpass.rawValue
        s.focus = 1.7
        XCTAssertEqual(m.cutoffInForce(MattePlan(s)), 1.7, accuracy: 1e-12, "focus")
        XCTAssertEqual(m.lockedCutoff ?? 0, 1.05, accuracy: 1e-12, "the lock itself is kept")
    }

    func testCutoffFollowsTheFace() {
        let m = DepthMatter()
        XCTAssertNil(m.lockedCutoff)
        let video = Self.makeVideo(32, 24)
        let out = TestRGB(width: 32, height: 24)
        let r = run(m, Self.faceSettings(), video: video, depth: Self.portrait(), output: out, faces: [Self.faceBox])
        XCTAssertTrue(r.faceFound)
        XCTAssertEqual(r.faceDepth, 0.8, accuracy: 1e-12)
        XCTAssertEqual(r.cutoff, 1.05, accuracy: 1e-12)
        XCTAssertEqual(m.lockedCutoff ?? 0, 1.05, accuracy: 1e-12)
        // the body at 1.04 m is within face + 0.25 m: kept (settings.cutoff 1.0 would drop it)
        assertPixel(out[15, 20], Self.videoColor(15, 20), "body")
        assertPixel(out[16, 6], Self.videoColor(16, 6), "face")
        assertPixel(out[2, 20], Self.green, "wall")
        // in fixed mode at 1.0 m the body is background
        let fixed = TestRGB(width: 32, height: 24)
        var s = Self.faceSettings(); s.mode = KeyingMode.fixed.rawValue
        run(DepthMatter(), s, video: video, depth: Self.portrait(), output: fixed, faces: [Self.faceBox])
        assertPixel(fixed[15, 20], Self.green, "body in fixed 1.0 m")
        assertPixel(fixed[16, 6], Self.videoColor(16, 6), "face in fixed 1.0 m")
    }

    func testOnlyTheFirstFaceCounts() {
        let m = DepthMatter()
        let other = Box(x: 0, y: 0, width: 6, height: 6)  // over the 1.2 m wall
        let r = run(m, Self.faceSettings(), video: Self.makeVideo(32, 24), depth: Self.portrait(),
                    output: TestRGB(width: 32, height: 24), faces: [Self.faceBox, other])
        XCTAssertEqual(r.cutoff, 1.05, accuracy: 1e-12)
        let r2 = run(m, Self.faceSettings(), video: Self.makeVideo(32, 24), depth: Self.portrait(),
                     output: TestRGB(width: 32, height: 24), faces: [other, Self.faceBox])
        XCTAssertEqual(r2.faceDepth, 1.2, accuracy: 1e-12)
        XCTAssertEqual(r2.cutoff, 1.45, accuracy: 1e-12)
    }

    func testCutoffIsHeldWhenNoFaceIsMeasured() {
        let m = DepthMatter()
        let s = Self.faceSettings()
        let video = Self.makeVideo(32, 24)
        func frame(_ depth: TestDepth?, _ faces: [Box]) -> MatteResult {
            run(m, s, video: video, depth: depth, output: TestRGB(width: 32, height: 24), faces: faces)
        }
        XCTAssertEqual(frame(Self.portrait(), [Self.faceBox]).cutoff, 1.05, accuracy: 1e-12)

        // no face: held, and the body is still kept
        let out = TestRGB(width: 32, height: 24)
        let r = run(m, s, video: video, depth: Self.portrait(), output: out, faces: [])
        XCTAssertFalse(r.faceFound)
        XCTAssertEqual(r.faceDepth, 0)
        XCTAssertEqual(r.cutoff, 1.05, accuracy: 1e-12)
        assertPixel(out[15, 20], Self.videoColor(15, 20))

        // face over holes only: held
        let holes = Self.portrait(faceDepth: 0)
        let h = frame(holes, [Self.faceBox])
        XCTAssertFalse(h.faceFound)
        XCTAssertEqual(h.cutoff, 1.05, accuracy: 1e-12)

        // face box outside the picture: held
        XCTAssertEqual(frame(Self.portrait(), [Box(x: 500, y: 500, width: 10, height: 10)]).cutoff, 1.05, accuracy: 1e-12)

        // no depth this frame: held
        let nd = frame(nil, [Self.faceBox])
        XCTAssertFalse(nd.faceFound)
        XCTAssertEqual(nd.cutoff, 1.05, accuracy: 1e-12)

        // the face moves back to 1.5 m: follows
        let far = frame(Self.portrait(faceDepth: 1500), [Self.faceBox])
        XCTAssertTrue(far.faceFound)
        XCTAssertEqual(far.faceDepth, 1.5, accuracy: 1e-12)
        XCTAssertEqual(far.cutoff, 1.75, accuracy: 1e-12)
        XCTAssertEqual(frame(Self.portrait(), []).cutoff, 1.75, accuracy: 1e-12)
    }

    func testSettingsCutoffBeforeAnyFace() {
        let m = DepthMatter()
        var s = Self.faceSettings()
        s.cutoff = 0.9
        let video = Self.makeVideo(32, 24)
        let out = TestRGB(width: 32, height: 24)
        let r = run(m, s, video: video, depth: Self.portrait(), output: out, faces: [])
        XCTAssertEqual(r.cutoff, 0.9)
        XCTAssertFalse(r.faceFound)
        XCTAssertNil(m.lockedCutoff)
        // 0.9 m keeps the 0.8 m face, drops the 1.04 m body
        assertPixel(out[16, 6], Self.videoColor(16, 6))
        assertPixel(out[15, 20], Self.green)
        // a face over holes does not lock either; the setting is followed
        s.cutoff = 1.1
        let h = run(m, s, video: video, depth: Self.portrait(faceDepth: 0), output: out, faces: [Self.faceBox])
        XCTAssertEqual(h.cutoff, 1.1)
        XCTAssertNil(m.lockedCutoff)
    }

    func testResetForgetsTheLock() {
        let m = DepthMatter()
        let s = Self.faceSettings()
        let video = Self.makeVideo(32, 24)
        run(m, s, video: video, depth: Self.portrait(), output: TestRGB(width: 32, height: 24), faces: [Self.faceBox])
        XCTAssertNotNil(m.lockedCutoff)
        m.reset()
        XCTAssertNil(m.lockedCutoff)
        let r = run(m, s, video: video, depth: Self.portrait(), output: TestRGB(width: 32, height: 24), faces: [])
        XCTAssertEqual(r.cutoff, s.cutoff)
        // and locks again on the next face
        let again = run(m, s, video: video, depth: Self.portrait(faceDepth: 1000), output: TestRGB(width: 32, height: 24),
                        faces: [Self.faceBox])
        XCTAssertEqual(again.cutoff, 1.25, accuracy: 1e-12)
    }

    func testFixedModeIgnoresFaces() {
        let m = DepthMatter()
        var s = Self.faceSettings()
        s.mode = KeyingMode.fixed.rawValue
        s.cutoff = 1.3
        let r = run(m, s, video: Self.makeVideo(32, 24), depth: Self.portrait(), output: TestRGB(width: 32, height: 24),
                    faces: [Self.faceBox])
        XCTAssertEqual(r.cutoff, 1.3)
        XCTAssertFalse(r.faceFound)
        XCTAssertEqual(r.faceDepth, 0)
        XCTAssertNil(m.lockedCutoff)
        // a lock taken in face mode is not used in fixed mode
        s.mode = KeyingMode.face.rawValue
        run(m, s, video: Self.makeVideo(32, 24), depth: Self.portrait(), output: TestRGB(width: 32, height: 24),
            faces: [Self.faceBox])
        s.mode = KeyingMode.fixed.rawValue
        let f = run(m, s, video: Self.makeVideo(32, 24), depth: Self.portrait(), output: TestRGB(width: 32, height: 24),
                    faces: [Self.faceBox])
        XCTAssertEqual(f.cutoff, 1.3)
    }

    func testFaceBoxIsMappedFromVideoToDepthWhenSizesDiffer() {
        // the same portrait behind a 64x48 video: the box scales with the video
        let m = DepthMatter()
        let box = Box(x: 24, y: 4, width: 16, height: 20)
        let r = run(m, Self.faceSettings(), video: Self.makeVideo(64, 48), depth: Self.portrait(),
                    output: TestRGB(width: 64, height: 48), faces: [box])
        XCTAssertEqual(r.faceDepth, 0.8, accuracy: 1e-12)
        // the 32x24 box in a 64x48 video lands on the wall corner instead
        let w = run(DepthMatter(), Self.faceSettings(), video: Self.makeVideo(64, 48), depth: Self.portrait(),
                    output: TestRGB(width: 64, height: 48), faces: [Self.faceBox])
        XCTAssertEqual(w.faceDepth, 1.2, accuracy: 1e-12)
    }
}
