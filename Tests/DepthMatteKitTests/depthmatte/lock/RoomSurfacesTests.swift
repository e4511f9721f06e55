// SPDX-License-Identifier: LGPL-2.1-or-later
import XCTest
@_spi(Bench) @testable import DepthMatteKit
import DMContract

/// With a person prior, the room's own far surface is no person
/// (RoomSurfaces.swift, `NearestBodyFinder.find`): a claim of the model on a
/// wall does not win the lock over a man in front of it, and an empty
/// corridor the model claims part of keys nothing. 160x90 depth in
/// millimetres behind a 320x180 video; the probability at the depth's size.
final class RoomSurfacesTests: XCTestCase {
    static let W = 160, H = 90, VW = 320, VH = 180

    /// A wall at 4.6 m (rows 8-61; above it no reading: a window band), the
    /// floor receding from 4.5 m below it to 3.15 m at the bottom row, and
    /// a man standing on the floor 3.5 m away: head columns 113-120, rows
    /// 22-31 at 3.48 m, body columns 108-125, rows 32-81 at 3.54 m.
    static func wallAndMan() -> TestDepth {
        let d = TestDepth(width: W, height: H, fill: 0)
        d.fill(x0: 0, y0: 8, x1: W, y1: 62, 4600)
        for y in 62..<H { for x in 0..<W { d[x, y] = UInt16(4500 - (y - 62) * 50) } }
        d.fill(x0: 108, y0: 32, x1: 126, y1: 82, 3540)
        d.fill(x0: 113, y0: 22, x1: 121, y1: 32, 3480)
        return d
    }

    /// The selfie model's claim (0.6) on flags and posters on the wall
    /// (columns 15-84, rows 10-49: a third of the wall's cells).
    static func wallClaim() -> TestProbability {
        let p = TestProbability(width: W, height: H)
        p.fill(x0: 15, y0: 10, x1: 85, y1: 50, 153)
        return p
    }

    /// The man's head and body as the model sees him near.
    static func manClaim() -> TestProbability {
        let p = TestProbability(width: W, height: H)
        p.fill(x0: 108, y0: 32, x1: 126, y1: 82)
        p.fill(x0: 113, y0: 22, x1: 121, y1: 32)
        return p
    }

    /// The man's face box in the video (k = 16/320 x 3.48 m = 0.17).
    static let manFace = Box(x: 226, y: 44, width: 16, height: 20)

    /// An empty corridor 2 m wide seen along its length from 1.3 m above
    /// the floor (a 70° camera: 114 cells of focal length): the side walls
    /// from 1.4 m at the picture's sides, the floor from 3.3 m at the bottom
    /// row, both receding to the end wall at 5.5 m; the dark ceiling gives
    /// no reading.
    static func corridor() -> TestDepth {
        let d = TestDepth(width: W, height: H, fill: 0)
        let f = 114.0
        for y in 0..<H {
            for x in 0..<W {
                let u = Double(x) + 0.5 - 80, v = Double(y) + 0.5 - 45
                var m = min(5.5, 1.0 * f / abs(u))
                if v > 0 { m = min(m, 1.3 * f / v) }
                if v < 0 && 1.2 * f / -v < m { continue }
                d[x, y] = UInt16(m * 1000)
            }
        }
        return d
    }

    /// Frames through a keyer at the element's defaults but for `mode`, a
    /// 0.2 s lock hold, matte output and no refinement; the share of the
    /// picture keyed on the last frame and the matte.
    static func key(_ d: TestDepth, _ frames: [(person: TestProbability, faces: [Box])], mode: KeyingMode,
                    cutoff: Double = 1.0) -> (keyed: Double, out: TestRGB, result: MatteResult) {
        var s = DMDepthMatteSettings.defaults
        s.output = ElementOutput.matte.rawValue
        s.n_threads = 1
        s.refine = MatteRefine.none.rawValue
        s.mode = mode.rawValue
        s.cutoff = cutoff
        s.lock_hold = 0.2
        s.frame_duration = 1.0 / 30
        let video = TestRGB(width: VW, height: VH, fill: RGBA(120, 120, 120))
        let out = TestRGB(width: VW, height: VH)
        let matter = DepthMatter()
        var r = MatteResult()
        for f in frames {
            r = f.person.withView { pv in
                withExtendedLifetime((d, video, out)) {
                    matter.process(plan: MattePlan(s), video: video.view, depth: d.view, person: pv,
                                   background: nil, output: out.view, faces: f.faces)
                }
            }
        }
        var keyed = 0
        for y in 0..<VH { for x in 0..<VW where out[x, y].r >= 128 { keyed += 1 } }
        return (Double(keyed) / Double(VW * VH), out, r)
    }

    func testTheWallIsTheRoomTheManInFrontOfItIsABody() {
        let c = RoomDepthTests.analyse(Self.wallAndMan())
        var room = RoomSurfaces()
        room.measure(c)
        let wall = RoomDepthTests.surface(c, 40, 30), man = RoomDepthTests.surface(c, 116, 50)
        XCTAssertNotEqual(wall, man)
        XCTAssertTrue(room.isRoom(wall), "behind the man on every clear step")
        XCTAssertFalse(room.isRoom(man), "in front of the wall and the floor")
        // the corridor: no clear step, but its walls span 4 m of depth
        let corridor = RoomDepthTests.analyse(Self.corridor())
        room.measure(corridor)
        XCTAssertTrue(room.isRoom(RoomDepthTests.surface(corridor, 5, 45)), "a side wall")
        // a close-up whose background gives no reading: no step, one depth
        let portrait = TestDepth(width: Self.W, height: Self.H, fill: 0)
        portrait.fill(x0: 40, y0: 30, x1: 120, y1: 90, 600)
        portrait.fill(x0: 65, y0: 5, x1: 95, y1: 30, 550)
        let p = RoomDepthTests.analyse(portrait)
        room.measure(p)
        XCTAssertFalse(room.isRoom(RoomDepthTests.surface(p, 80, 60)))
        // a man seated behind a monitor (1.2 m) and a desk (1.1 m) that hide
        // his torso, a wall at 3 m behind him: his head and shoulders stand
        // in front of more than the monitor's edge hides, he is a body
        let desk = TestDepth(width: Self.W, height: Self.H, fill: 3000)
        desk.fill(x0: 55, y0: 30, x1: 105, y1: 90, 1660)
        desk.fill(x0: 70, y0: 10, x1: 90, y1: 30, 1600)
        desk.fill(x0: 50, y0: 45, x1: 110, y1: 75, 1200)
        desk.fill(x0: 0, y0: 75, x1: Self.W, y1: Self.H, 1100)
        let s = RoomDepthTests.analyse(desk)
        room.measure(s)
        XCTAssertFalse(room.isRoom(RoomDepthTests.surface(s, 80, 20)), "the seated man")
        XCTAssertTrue(room.isRoom(RoomDepthTests.surface(s, 10, 10)), "the wall behind him")
    }

    func testAClaimedWallDoesNotWinTheLockOverTheManInFrontOfIt() {
        // no face; the model claims a third of the wall and misses the man
        // 3.5 m away: the lock takes the man (cutoff 3.48 + 0.25 m), in
        // both subject modes
        for mode in [KeyingMode.face, .nearest] {
            let lock = SubjectLock()
            let s = SubjectLockTests.step(lock, Self.wallAndMan(), [], person: Self.wallClaim(), mode: mode)
            XCTAssertEqual(s.cutoff, 3.73, accuracy: 0.02, "\(mode): the man, not the wall")
            XCTAssertEqual(s.result.lockSource, .nearest)
        }
    }

    func testAManWhoseFaceWasSeenIsKeptAndTheClaimedWallIsNot() {
        // mode=face: his face and body are seen on three frames; then he
        // turns his back, the model loses him and claims the flags on the
        // wall behind him, past the lock's hold: the depth-only finder takes
        // over, and takes the man, whom the model saw on his track
        let d = Self.wallAndMan()
        let seen = (person: Self.manClaim(), faces: [Self.manFace])
        let lost = (person: Self.wallClaim(), faces: [Box]())
        let k = Self.key(d, Array(repeating: seen, count: 3) + Array(repeating: lost, count: 12), mode: .face)
        XCTAssertEqual(k.result.lockSource, .nearest, "past the hold")
        XCTAssertTrue(k.result.personUsed)
        XCTAssertEqual(k.out[232, 120].r, 255, "the man's body")
        XCTAssertEqual(k.out[232, 54].r, 255, "the man's head")
        XCTAssertEqual(k.out[100, 60].r, 0, "the flags the model claims")
        XCTAssertEqual(k.out[20, 120].r, 0, "the wall")
    }

    /// A wall at 4.2 m with an open door (columns 100-127, rows 12-84) onto
    /// a room 5.5 m away, the floor below; a man in the doorway (head
    /// columns 109-116, rows 22-31; body columns 104-121, rows 32-81) at
    /// `man` metres.
    static func door(man: Double) -> TestDepth {
        let d = TestDepth(width: W, height: H, fill: 4200)
        d.fill(x0: 100, y0: 12, x1: 128, y1: 85, 5500)
        for y in 85..<H { for x in 0..<W { d[x, y] = UInt16(4100 - (y - 85) * 60) } }
        let mm = Int(man * 1000)
        d.fill(x0: 104, y0: 32, x1: 122, y1: 82, UInt16(mm + 60))
        d.fill(x0: 109, y0: 22, x1: 117, y1: 32, UInt16(mm))
        return d
    }

    func testAManWalkingOffToADoorIsKeptAsTheModelLosesHim() {
        // mode=face: his face and body are seen 2 m away; he turns his back
        // and walks to the door, 8 cm a frame to 3.6 m, the model seeing
        // him on the first five steps and then no more; the lock's hold
        // ends on the way. Depth alone keeps him, and so does the fused
        // matte: the model saw him on his track
        let p = TestProbability(width: Self.W, height: Self.H)
        p.fill(x0: 104, y0: 32, x1: 122, y1: 82)
        p.fill(x0: 109, y0: 22, x1: 117, y1: 32)
        let silent = TestProbability(width: Self.W, height: Self.H)
        let face = Box(x: 218, y: 44, width: 16, height: 20)
        var s = DMDepthMatteSettings.defaults
        s.output = ElementOutput.matte.rawValue
        s.n_threads = 1
        s.refine = MatteRefine.none.rawValue
        s.lock_hold = 0.2
        s.frame_duration = 1.0 / 30
        let video = TestRGB(width: Self.VW, height: Self.VH, fill: RGBA(120, 120, 120))
        let out = TestRGB(width: Self.VW, height: Self.VH)
        let matter = DepthMatter()
        for step in 0..<26 {
            let man = step < 5 ? 2.0 : 2.0 + Double(step - 5) * 0.08
            let person = step < 10 ? p : silent
            let d = Self.door(man: man)
            let r = person.withView { pv in
                withExtendedLifetime((d, video, out)) {
                    matter.process(plan: MattePlan(s), video: video.view, depth: d.view, person: pv,
                                   background: nil, output: out.view, faces: step < 5 ? [face] : [])
                }
            }
            XCTAssertEqual(out[224, 120].r, 255, "step \(step), \(man) m: his body")
            XCTAssertEqual(out[40, 60].r, 0, "step \(step): the wall")
            if step == 25 { XCTAssertEqual(r.lockSource, .nearest, "past the hold") }
        }
    }

    func testAnEmptyCorridorTheModelClaimsPartOfKeysNothing() {
        // a weak claim (0.6) on the near part of the left wall, frame after
        // frame; no face finder (face, nearest), a face finder reporting a
        // poster on that wall (face), and the set cut (fixed)
        let d = Self.corridor()
        let p = TestProbability(width: Self.W, height: Self.H)
        p.fill(x0: 10, y0: 20, x1: 50, y1: 70, 153)
        let poster = Box(x: 40, y: 70, width: 20, height: 24)
        for (mode, faces) in [(KeyingMode.face, [Box]()), (.nearest, []), (.face, [poster])] {
            let k = Self.key(d, Array(repeating: (p, faces), count: 6), mode: mode)
            XCTAssertLessThanOrEqual(k.keyed, 0.01, "\(mode), \(faces.count) faces: the corridor")
            XCTAssertEqual(k.out[60, 90].r, 0, "\(mode): the claimed wall")
        }
        // mode=fixed: the 1 m cut keeps nothing of the corridor (its walls
        // begin 1.4 m away), and the claim wholly beyond it is not added
        let fixed = Self.key(d, Array(repeating: (p, [Box]()), count: 6), mode: .fixed)
        XCTAssertLessThanOrEqual(fixed.keyed, 0.01, "fixed: the corridor")
        XCTAssertEqual(fixed.out[60, 90].r, 0, "fixed: the claimed wall")
    }
}
