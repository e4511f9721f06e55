// SPDX-License-Identifier: LGPL-2.1-or-later
import XCTest
@_spi(Bench) @testable import DepthMatteKit
import DMContract

/// A model whose claim lies on the room's own surfaces only sees no one,
/// and there depth decides (`SubjectLock.claimsOnlyRoom`,
/// `PersonFusion.floorEvidence`): the still man in front of a wall whose
/// flags the model claims is keyed as depth alone keys him, the claimed
/// wall is not, and an empty room stays empty. The scenes of
/// `RoomSurfacesTests` (160x90 depth in millimetres, 320x180 video).
final class RoomClaimTests: XCTestCase {
    static let VW = RoomSurfacesTests.VW, VH = RoomSurfacesTests.VH

    /// Frames through a keyer at the element's defaults but for `mode`,
    /// `prior`, a 0.2 s lock hold, matte output and no refinement; per
    /// frame the matte (1 = keyed, per video pixel), and the last frame's
    /// result and lock.
    static func key(_ d: TestDepth, _ person: TestProbability, frames: Int, mode: KeyingMode,
                    prior: PersonPrior = .fuse) -> (mattes: [[UInt8]], result: MatteResult, lock: SubjectLock) {
        var s = DMDepthMatteSettings.defaults
        s.output = ElementOutput.matte.rawValue
        s.n_threads = 1
        s.refine = MatteRefine.none.rawValue
        s.mode = mode.rawValue
        s.person_prior = prior.rawValue
        s.lock_hold = 0.2
        s.frame_duration = 1.0 / 30
        let video = TestRGB(width: VW, height: VH, fill: RGBA(120, 120, 120))
        let out = TestRGB(width: VW, height: VH)
        let matter = DepthMatter()
        var r = MatteResult(), mattes: [[UInt8]] = []
        for _ in 0..<frames {
            r = person.withView { pv in
                withExtendedLifetime((d, video, out)) {
                    matter.process(plan: MattePlan(s), video: video.view, depth: d.view, person: pv,
                                   background: nil, output: out.view, faces: [])
                }
            }
            var m = [UInt8](repeating: 0, count: VW * VH)
            for y in 0..<VH { for x in 0..<VW where out[x, y].r >= 128 { m[y * VW + x] = 1 } }
            mattes.append(m)
        }
        return (mattes, r, matter.subjectLock)
    }

    static func share(_ m: [UInt8]) -> Double { Double(m.reduce(0) { $0 + Int($1) }) / Double(m.count) }

    static func iou(_ a: [UInt8], _ b: [UInt8]) -> Double {
        var both = 0, either = 0
        for i in 0..<a.count { both += Int(a[i] & b[i]); either += Int(a[i] | b[i]) }
        return either > 0 ? Double(both) / Double(either) : 1
    }

    static func at(_ m: [UInt8], _ x: Int, _ y: Int) -> UInt8 { m[y * VW + x] }

    /// The wall and the floor of `RoomSurfacesTests.wallAndMan` without the man.
    static func emptyWall() -> TestDepth {
        let d = RoomSurfacesTests.wallAndMan()
        d.fill(x0: 108, y0: 22, x1: 126, y1: 62, 4600)
        for y in 62..<82 { for x in 108..<126 { d[x, y] = UInt16(4500 - (y - 62) * 50) } }
        return d
    }

    func testAStillManTheModelMissesInFrontOfAClaimedWallIsKeyedByDepth() {
        // the model claims the flags on the wall on every frame and never
        // the man 3.5 m in front of it, who never moves; no face: he is
        // keyed as depth alone keys him, on every frame, and the wall is not
        let d = RoomSurfacesTests.wallAndMan()
        for mode in [KeyingMode.face, .nearest] {
            let fused = Self.key(d, RoomSurfacesTests.wallClaim(), frames: 8, mode: mode)
            let depth = Self.key(d, RoomSurfacesTests.wallClaim(), frames: 8, mode: mode, prior: .ignore)
            XCTAssertTrue(fused.result.personUsed, "\(mode)")
            XCTAssertTrue(fused.lock.claimsOnlyRoom, "\(mode)")
            for f in 0..<8 {
                let m = fused.mattes[f]
                XCTAssertEqual(Self.at(m, 232, 120), 1, "\(mode), frame \(f): the man's body")
                XCTAssertEqual(Self.at(m, 232, 54), 1, "\(mode), frame \(f): the man's head")
                XCTAssertEqual(Self.at(m, 100, 60), 0, "\(mode), frame \(f): the flags the model claims")
                XCTAssertEqual(Self.at(m, 20, 60), 0, "\(mode), frame \(f): the wall")
                XCTAssertGreaterThan(Self.share(depth.mattes[f]), 0.05, "\(mode), frame \(f): depth keys him")
                XCTAssertGreaterThanOrEqual(Self.iou(m, depth.mattes[f]), 0.98, "\(mode), frame \(f): as depth alone")
            }
        }
    }

    func testTheEmptyRoomWithTheClaimedWallStaysEmpty() {
        // the wall meets the floor without a clear step and spans 0.1 m of
        // depth, but covers 14 m²: no body does, it is the room
        let d = Self.emptyWall()
        let c = RoomDepthTests.analyse(d)
        var room = RoomSurfaces()
        room.measure(c)
        XCTAssertTrue(room.isRoom(RoomDepthTests.surface(c, 40, 30)), "the wall")
        for mode in [KeyingMode.face, .nearest] {
            let k = Self.key(d, RoomSurfacesTests.wallClaim(), frames: 6, mode: mode)
            XCTAssertFalse(k.lock.claimsOnlyRoom, "\(mode): the lock has no subject")
            for (f, m) in k.mattes.enumerated() {
                XCTAssertLessThanOrEqual(Self.share(m), 0.01, "\(mode), frame \(f)")
            }
        }
    }

    func testTheEmptyCorridorWithAWeakClaimOnItsWallStaysEmpty() {
        let d = RoomSurfacesTests.corridor()
        let p = TestProbability(width: RoomSurfacesTests.W, height: RoomSurfacesTests.H)
        p.fill(x0: 10, y0: 20, x1: 50, y1: 70, 153)
        for mode in [KeyingMode.face, .nearest] {
            let k = Self.key(d, p, frames: 8, mode: mode)
            for (f, m) in k.mattes.enumerated() {
                XCTAssertLessThanOrEqual(Self.share(m), 0.01, "\(mode), frame \(f)")
                XCTAssertEqual(Self.at(m, 60, 90), 0, "\(mode), frame \(f): the claimed wall")
            }
        }
    }

    func testAPersonTheModelClaimsBesideAClaimedWallIsDecidedByTheClaim() {
        // the model claims the man and the flags: it sees a person, so the
        // rule does not apply, and the output is the claim's
        let d = RoomSurfacesTests.wallAndMan()
        let both = RoomSurfacesTests.wallClaim()
        both.fill(x0: 108, y0: 32, x1: 126, y1: 82)
        both.fill(x0: 113, y0: 22, x1: 121, y1: 32)
        let k = Self.key(d, both, frames: 6, mode: .nearest)
        XCTAssertFalse(k.lock.claimsOnlyRoom)
        let m = k.mattes[5]
        XCTAssertEqual(Self.at(m, 232, 120), 1, "the man's body")
        XCTAssertEqual(Self.at(m, 100, 60), 0, "the flags")
        // and in the fusion the rule changes nothing where the model
        // claims a person: the same guide with and without it
        let p = PersonFusionTests.personProbability(), s = PersonFusionTests.scene()
        let floor = PersonFloorTests.floor(s, cutoff: 1250)
        var guides: [[UInt16]] = []
        for rule in [false, true] {
            var f = PersonFusion()
            let g = p.withView {
                f.fuse(depth: s.view, scale: 0.001, person: $0, cutoff: 1.25, seeds: PersonFusionTests.headSeeds(),
                       floor: floor.decision(cutoff: 1.25), faceLock: false, subjectSeen: false, setCutoff: false,
                       claimOnRoom: rule)
            }
            guides.append((0..<(s.width * s.height)).map { f.at(g, $0 % s.width, $0 / s.width) })
        }
        XCTAssertEqual(guides[0], guides[1])
        XCTAssertTrue(guides[0].contains { $0 != PersonFloorTests.far })
    }
}
