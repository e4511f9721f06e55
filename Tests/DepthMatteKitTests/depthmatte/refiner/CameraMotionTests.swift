// SPDX-License-Identifier: LGPL-2.1-or-later
import XCTest
@_spi(Bench) @testable import DepthMatteKit

/// docs/quality.md step 2.6, camera motion (`MatteRefiner.Tuning.cameraMotion`):
/// one translation of the picture since the last frame is estimated from the
/// guide at depth resolution and, when it explains the change everywhere,
/// the temporal state moves with it before the hold compares the new frame.
final class CameraMotionTests: XCTestCase {
    /// A smooth texture (periods of 7–23 px, no single direction).
    static func texture(_ x: Double, _ y: Double) -> Double {
        0.5 + 0.18 * sin(x / 3.1 + 0.7 * sin(y / 5.3)) + 0.12 * cos(y / 2.3 - x / 7.9) + 0.08 * sin((x + y) / 3.7)
    }

    static func plane(_ w: Int, _ h: Int, _ f: (Double, Double) -> Double) -> [Float] {
        var p = [Float](repeating: 0, count: w * h)
        for y in 0..<h { for x in 0..<w { p[y * w + x] = Float(f(Double(x), Double(y))) } }
        return p
    }

    func testShiftOfTheWholePictureIsEstimatedToHundredthsOfAPixel() {
        let w = 120, h = 80
        let before = Self.plane(w, h) { Self.texture($0, $1) }
        // the content moved by (+0.37, −0.21): now at x it shows what was at x − 0.37
        let after = Self.plane(w, h) { Self.texture($0 - 0.37, $1 + 0.21) }
        var m = MotionEstimator()
        m.estimate(previous: before, current: after, width: w, height: h, outlier: 0.05)
        XCTAssertEqual(m.dx, 0.37, accuracy: 0.02)
        XCTAssertEqual(m.dy, -0.21, accuracy: 0.02)
        XCTAssertEqual(m.worse, 0)
        XCTAssertLessThan(m.after, 0.1 * m.before)
    }

    func testStillPictureGivesNoShift() {
        let w = 120, h = 80
        let p = Self.plane(w, h) { Self.texture($0, $1) }
        var m = MotionEstimator()
        m.estimate(previous: p, current: p, width: w, height: h, outlier: 0.05)
        XCTAssertEqual(m.dx, 0, accuracy: 1e-4)
        XCTAssertEqual(m.dy, 0, accuracy: 1e-4)
    }

    /// A person moving over a still room: the estimate may lean towards
    /// the person's motion, but the room around gets worse with it.
    func testMovingSubjectOverAStillRoomIsNotCameraMotion() {
        let w = 120, h = 80
        func frame(_ s: Double) -> [Float] {
            Self.plane(w, h) { x, y in
                let inside = x >= 30 + s && x < 80 + s && y >= 15 && y < 70
                return inside ? 0.3 + 0.6 * Self.texture(1.7 * (x - s), 1.3 * y) - 0.3 : Self.texture(x, y)
            }
        }
        var m = MotionEstimator()
        m.estimate(previous: frame(0), current: frame(0.6), width: w, height: h, outlier: 0.05)
        XCTAssertGreaterThan(m.worse, 0, "shift (\(m.dx), \(m.dy))")
        XCTAssertFalse(MatteRefiner.cameraMotionUsable(m, gain: MatteRefiner.Tuning().motionGain, range: MatteRefiner.Tuning().motionRange))
    }

    /// The same over a plain wall with sensor noise: nothing in the room
    /// says it stayed, so the person's motion is taken, and that is what the
    /// temporal state may follow there (a plain wall looks the same shifted;
    /// a textured or edged part of the room that stayed gets worse and
    /// refuses it, as in the test above).
    func testMovingSubjectOverAPlainNoisyWallIsFollowed() {
        let w = 120, h = 80
        var seed: UInt64 = 99
        func frame(_ s: Double) -> [Float] {
            Self.plane(w, h) { x, y in
                seed = seed &* 6364136223846793005 &+ 1442695040888963407
                let noise = (Double(seed >> 40) / Double(1 << 24) - 0.5) * 0.02   // ±1 % (a camera's 2-3 levels)
                let inside = x >= 30 + s && x < 80 + s && y >= 15 && y < 70
                return (inside ? 0.6 * Self.texture(1.7 * (x - s), 1.3 * y) : 0.55) + noise
            }
        }
        var m = MotionEstimator()
        let a = frame(0), b = frame(0.6)
        m.estimate(previous: a, current: b, width: w, height: h, outlier: 0.05)
        XCTAssertEqual(m.dx, 0.6, accuracy: 0.05)
        XCTAssertEqual(m.dy, 0, accuracy: 0.05)
        XCTAssertTrue(MatteRefiner.cameraMotionUsable(m, gain: MatteRefiner.Tuning().motionGain, range: MatteRefiner.Tuning().motionRange))
    }

    /// A textured disc (the subject, 1 m) in front of a textured wall (2 m),
    /// the camera panning `step` video px per frame; depth at a quarter of
    /// the resolution, sampled (edges quantised by the grid), with fresh
    /// noise and edge flips every frame. Returns the mean over frame pairs
    /// of Σ |Δα − Δα_truth| on the output grid (the truth is the disc's
    /// coverage averaged over each grid cell), and the last estimate.
    static func panError(cameraMotion: Bool, step: Double = 0.8, frames: Int = 16,
                         configure: (inout MatteRefiner) -> Void = { _ in }) -> (error: Double, off: Double, motion: MotionEstimator) {
        let vw = 320, vh = 180, dw = 80, dh = 45
        let v = TestRGB(width: vw, height: vh), d = TestDepth(width: dw, height: dh)
        var r = MatteRefiner()
        r.tuning.cameraMotion = cameraMotion
        // (the temporal state alone: 2.8's edge contrast, which acts after
        // it, scales every change it lets through by up to its contrast, and
        // on this disc, whose colour edge is the truth's, the followed pan's
        // summed error then reads above the unfollowed one (6 % at a contrast
        // of 1.3) while it still pops 2.5 times fewer pixels; on real depth
        // following the pan stays far better with it, docs/steady-edges.md)
        r.tuning.edgeContrast = 0
        configure(&r)
        var m = FloatPlane()
        var prev: [Float] = [], prevTruth: [Double] = []
        var error = 0.0, off = 0.0
        var h: UInt64 = 0x1234_5678
        func disc(_ x: Double, _ y: Double) -> Bool { (x - 150) * (x - 150) + (y - 95) * (y - 95) < 55 * 55 }
        for f in 0..<frames {
            let s = step * Double(f)
            // the scene at (x + s, y): the picture moves left as the camera pans right
            for y in 0..<vh {
                for x in 0..<vw {
                    // 2 x 2 samples per pixel: an antialiased outline
                    var c = (0.0, 0.0, 0.0)
                    for (ox, oy) in [(0.25, 0.25), (0.75, 0.25), (0.25, 0.75), (0.75, 0.75)] {
                        let X = Double(x) + ox + s, Y = Double(y) + oy
                        let t = texture(X, Y)
                        c = disc(X, Y) ? (c.0 + 0.75 * t, c.1 + 0.35 * t, c.2 + 0.25) : (c.0 + 0.3 * t, c.1 + 0.55 * t, c.2 + 0.5 * t)
                    }
                    v[x, y] = RGBA(UInt8(63.75 * c.0), UInt8(63.75 * c.1), UInt8(63.75 * c.2), 255)
                }
            }
            for y in 0..<dh {
                for x in 0..<dw {
                    h = h &* 6364136223846793005 &+ 1442695040888963407
                    let noise = Int(h >> 59) - 16
                    h = h &* 6364136223846793005 &+ 1442695040888963407
                    var near = disc(Double(x) * 4 + 2 + s, Double(y) * 4 + 2)
                    // a matcher's edge flips: a depth pixel next to the outline reads the other side
                    let edge = near != disc(Double(x) * 4 + 6 + s, Double(y) * 4 + 2) || near != disc(Double(x) * 4 - 2 + s, Double(y) * 4 + 2)
                    if edge && h >> 62 == 0 { near.toggle() }
                    d[x, y] = UInt16((near ? 1000 : 2000) + noise)
                }
            }
            r.refine(depth: d.view, scale: 0.001, cutoff: 1.5, video: v.view, into: &m)
            let gw = m.width, gh = m.height, cell = vw / gw
            var truth = [Double](repeating: 0, count: gw * gh)
            for gy in 0..<gh {
                for gx in 0..<gw {
                    var n = 0
                    for j in 0..<(4 * cell) { for i in 0..<(4 * cell) {
                        if disc(Double(gx * cell) + (Double(i) + 0.5) / 4 + s, Double(gy * cell) + (Double(j) + 0.5) / 4) { n += 1 }
                    } }
                    truth[gy * gw + gx] = Double(n) / Double(16 * cell * cell)
                }
            }
            let cur = Array(m.pixels.prefix(gw * gh))
            if !prev.isEmpty {
                for i in 0..<cur.count {
                    let e = abs(Double(cur[i] - prev[i]) - (truth[i] - prevTruth[i]))
                    error += e
                    if e > 0.2 { off += 1 }
                }
            }
            prev = cur; prevTruth = truth
        }
        return (error / Double(frames - 1), off / Double(frames - 1), r.motion)
    }

    func testPanningPictureIsFollowedAndTheHoldStillWorksWhileItMoves() {
        let on = Self.panError(cameraMotion: true), off = Self.panError(cameraMotion: false)
        XCTAssertTrue(on.motion.applied)
        // 0.8 video px per frame = 0.2 depth px, the picture moving left
        XCTAssertEqual(on.motion.dx, -0.2, accuracy: 0.03)
        XCTAssertEqual(on.motion.dy, 0, accuracy: 0.03)
        print("pan: Σ|Δα − Δα_truth| per frame pair \(on.error) with camera motion, \(off.error) without; off by > 0.2: \(on.off), \(off.off)")
        // pixels whose change is off the truth's by more than 0.2 (popping:
        // the depth's noise and its grid's steps): the hold acts while panning
        XCTAssertGreaterThan(off.off, 5, "the noise pops pixels without it (the test means something)")
        XCTAssertLessThan(on.off, 0.75 * off.off)
        // and on the whole about the same (the held state is resampled: the
        // summed change error moves by under 2 %)
        XCTAssertLessThan(on.error, 1.02 * off.error)
    }

    func testColourSlackActsOnlyWhereAPanWasFollowed() {
        // the slack widens 2.6's "nothing moved" by the guide's slope, for
        // the residual of a followed pan; a still camera follows nothing, so
        // the slack changes nothing there, while on the pan it does
        let none: (inout MatteRefiner) -> Void = { $0.tuning.colourSlack = 0 }
        let still = Self.panError(cameraMotion: true, step: 0) { $0.tuning.colourSlack = 1 }
        let stillOff = Self.panError(cameraMotion: true, step: 0, configure: none)
        XCTAssertFalse(still.motion.applied)
        XCTAssertEqual(still.error, stillOff.error, accuracy: 1e-12)
        XCTAssertEqual(still.off, stillOff.off)
        // nor does it without camera motion (nothing is followed)
        let unfollowed = Self.panError(cameraMotion: false) { $0.tuning.colourSlack = 1 }
        let unfollowedOff = Self.panError(cameraMotion: false, configure: none)
        XCTAssertEqual(unfollowed.error, unfollowedOff.error, accuracy: 1e-12)
        // on the followed pan the default slack holds what only the
        // residual of the shift changed: half as many pixels pop as without
        // it, and the summed change error grows by under 5 % (a held edge
        // lags the picture by what the motion estimate misses: 17.98 to
        // 18.61 here)
        let pan = Self.panError(cameraMotion: true), panOff = Self.panError(cameraMotion: true, configure: none)
        XCTAssertTrue(pan.motion.applied)
        XCTAssertGreaterThan(MatteRefiner().tuning.colourSlack, 0)
        print("pan, slack \(MatteRefiner().tuning.colourSlack) and 0: Σ|Δα − Δα_truth| \(pan.error), \(panOff.error); off by > 0.2: \(pan.off), \(panOff.off)")
        XCTAssertLessThan(pan.off, 0.6 * panOff.off)
        XCTAssertLessThan(pan.error, 1.05 * panOff.error)
    }

    func testOneRegionWorseStillLetsAPanBeFollowedTwoDoNot() {
        // a real pan's noise makes one region of the 4 x 4 grid read worse
        // now and then; a person moving in a room makes several worse
        var m = MotionEstimator()
        m.dx = -0.2; m.before = 1; m.after = 0.6
        let gain = MatteRefiner().tuning.motionGain, range = MatteRefiner().tuning.motionRange
        m.worse = 1
        XCTAssertTrue(MatteRefiner.cameraMotionUsable(m, gain: gain, range: range))
        m.worse = 2
        XCTAssertFalse(MatteRefiner.cameraMotionUsable(m, gain: gain, range: range))
    }
}
