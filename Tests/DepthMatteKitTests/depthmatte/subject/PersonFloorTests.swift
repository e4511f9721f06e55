// SPDX-License-Identifier: LGPL-2.1-or-later
import XCTest
@_spi(Bench) @testable import DepthMatteKit

/// The person prior's floor (PersonFusion+Floor.swift): the fused guide
/// never drops what the depth-only decision keeps where the model sees no
/// one, and never takes what the model sees is no person. 160x90 grids in
/// millimetres, as `PersonFusionTests`; each test names the rule it holds.
final class PersonFloorTests: XCTestCase {
    static let W = PersonFusionTests.W, H = PersonFusionTests.H
    static let far = PersonFusionTests.far

    /// The depth-only decision: every reading of `d` nearer than `cutoff`
    /// millimetres, the rest far.
    static func floor(_ d: TestDepth, cutoff: Int) -> TestDepth {
        let f = TestDepth(width: W, height: H, fill: far)
        for y in 0..<H { for x in 0..<W where d[x, y] <= cutoff { f[x, y] = d[x, y] } }
        return f
    }

    static func seeds(_ boxes: [(x0: Int, y0: Int, x1: Int, y1: Int, bits: UInt8)]) -> [UInt8] {
        var s = [UInt8](repeating: 0, count: W * H)
        for b in boxes { for y in b.y0..<b.y1 { for x in b.x0..<b.x1 { s[y * W + x] = b.bits } } }
        return s
    }

    /// `apply` then `floor` with the depth-only decision keyed at `cutoff` metres.
    static func fuse(_ d: TestDepth, _ p: TestProbability, floor: TestDepth, cutoff: Double, seeds: [UInt8]?,
                     evidence: Bool, fusion f: inout PersonFusion) -> [UInt16] {
        let g = p.withView { pv -> SubjectDecision in
            _ = f.apply(depth: d.view, scale: 0.001, person: pv, cutoff: cutoff, seeds: seeds,
                        floor: floor.decision(cutoff: cutoff))
            return f.floor(depth: d.view, floor: floor.decision(cutoff: cutoff), scale: 0.001, seeds: seeds,
                           evidence: evidence)
        }
        return (0..<(W * H)).map { f.at(g, $0 % W, $0 / W) }
    }

    static func at(_ g: [UInt16], _ x: Int, _ y: Int) -> UInt16 { g[y * W + x] }

    /// `fuse` as the keyer calls it, without a face: the depth-only
    /// decision keyed at `cutoff` metres (0: the lock has no subject and
    /// depth keeps nothing).
    static func key(_ d: TestDepth, _ p: TestProbability, cutoff: Double, seeds: [UInt8]?, subjectSeen: Bool,
                    fusion f: inout PersonFusion) -> [UInt16] {
        let floor = Self.floor(d, cutoff: Int(cutoff * 1000))
        let g = p.withView {
            f.fuse(depth: d.view, scale: 0.001, person: $0, cutoff: cutoff, seeds: seeds, floor: floor.decision(cutoff: cutoff),
                   faceLock: false, subjectSeen: subjectSeen, setCutoff: false)
        }
        return (0..<(W * H)).map { f.at(g, $0 % W, $0 / W) }
    }

    /// Seen from above, a man walks out at the bottom edge: head and
    /// shoulders (columns 60-99, rows 40-64) from 1.0 m growing 8 mm a row,
    /// legs (columns 66-77 and 82-93, rows 65-89) from 1.5 m, a depth step
    /// below the shoulders, reaching the bottom row; a wall at 4 m.
    static func walkerLeaving() -> TestDepth {
        let d = TestDepth(width: W, height: H, fill: 4000)
        for y in 40..<65 { for x in 60..<100 { d[x, y] = UInt16(1000 + (y - 40) * 8) } }
        for y in 65..<90 {
            for x in 0..<W where x >= 66 && x < 78 || x >= 82 && x < 94 { d[x, y] = UInt16(1500 + (y - 65) * 10) }
        }
        return d
    }

    func testAWalkerLeavingAtTheBottomEdgeKeepsTheLegsTheModelMisses() {
        // rules: step 7, the floor below an open blob (the model sees the
        // head and shoulders only: its blob ends above the bottom), and the
        // legs continue the shoulders down to the bottom edge: either keeps
        // them, and without both they are lost
        let d = Self.walkerLeaving()
        let p = TestProbability(width: Self.W, height: Self.H)
        p.fill(x0: 60, y0: 40, x1: 100, y1: 65)
        var f = PersonFusion()
        let g = Self.fuse(d, p, floor: Self.floor(d, cutoff: 2000), cutoff: 2.0,
                          seeds: Self.seeds([(75, 42, 85, 50, 1)]), evidence: true, fusion: &f)
        XCTAssertEqual(Self.at(g, 80, 50), 1080, "the shoulders the model sees")
        XCTAssertEqual(Self.at(g, 70, 66), 1510, "the left leg below the shoulders")
        XCTAssertEqual(Self.at(g, 70, 89), 1740, "the left leg at the bottom edge")
        XCTAssertEqual(Self.at(g, 90, 80), 1650, "the right leg")
        XCTAssertEqual(Self.at(g, 80, 80), Self.far, "the wall between the legs")
        XCTAssertEqual(f.cutoff, 1.75, accuracy: 0.001, "just behind the legs' farthest reading")
    }

    /// A man at the bottom edge seen from above: his head (columns 60-99,
    /// rows 40-64, 1.0 m), below it his shoulders (columns 50-99, rows
    /// 65-89, `shoulders` mm: a depth piece of their own) reaching the
    /// bottom row, and a desk at 1.3 m beside both (columns 100-129, rows
    /// 45-89); a wall at 3 m. The model sees the head only.
    static func headAndShoulders(shoulders: Int) -> (TestDepth, TestProbability) {
        let d = TestDepth(width: W, height: H, fill: 3000)
        d.fill(x0: 60, y0: 40, x1: 100, y1: 65, 1000)
        d.fill(x0: 50, y0: 65, x1: 100, y1: 90, UInt16(shoulders))
        d.fill(x0: 100, y0: 45, x1: 130, y1: 90, 1300)
        let p = TestProbability(width: W, height: H)
        p.fill(x0: 60, y0: 40, x1: 100, y1: 65)
        return (d, p)
    }

    func testWhatContinuesAClaimedPieceDownToTheBottomEdgeJoinsAndADeskBesideItDoesNot() {
        // rule: in a part the model sees a person in, a piece it does not
        // claim joins when it touches a piece claimed whole mostly from
        // below, not nearer than it, and reaches the picture's bottom
        let (d, p) = Self.headAndShoulders(shoulders: 1150)
        let seeds = Self.seeds([(70, 45, 90, 55, 1)])
        var f = PersonFusion()
        let g = Self.fuse(d, p, floor: Self.floor(d, cutoff: 1500), cutoff: 1.5, seeds: seeds, evidence: true,
                          fusion: &f)
        XCTAssertEqual(Self.at(g, 80, 50), 1000, "the head")
        XCTAssertEqual(Self.at(g, 52, 80), 1150, "the shoulder, outside the head's columns")
        XCTAssertEqual(Self.at(g, 52, 89), 1150, "the shoulder at the bottom edge")
        XCTAssertEqual(Self.at(g, 115, 70), Self.far, "the desk beside the head and the shoulders")
        // the same piece nearer than the head (a table in front of him)
        let (near, q) = Self.headAndShoulders(shoulders: 900)
        var e = PersonFusion()
        let h = Self.fuse(near, q, floor: Self.floor(near, cutoff: 1500), cutoff: 1.5, seeds: seeds, evidence: true,
                          fusion: &e)
        XCTAssertEqual(Self.at(h, 80, 50), 1000)
        XCTAssertEqual(Self.at(h, 52, 80), Self.far, "a table in front of him")
        XCTAssertEqual(Self.at(h, 115, 70), Self.far)
    }

    func testADeskBesideAClaimedPersonStaysOutFrameAfterFrame() {
        // rule: within a part of the depth-only decision the model sees a
        // person in, a depth piece it claims none of stays out. The desk
        // (columns 105-139, rows 55-89, 1.2 m) touches the torso and reaches
        // the bottom edge as the torso does; the model sees the whole person
        let d = PersonFusionTests.scene()
        d.fill(x0: 105, y0: 55, x1: 140, y1: 90, 1200)
        let p = PersonFusionTests.personProbability()
        let floor = Self.floor(d, cutoff: 1250)
        var f = PersonFusion()
        for frame in 0..<3 {
            let g = Self.fuse(d, p, floor: floor, cutoff: 1.25, seeds: PersonFusionTests.headSeeds(),
                              evidence: true, fusion: &f)
            XCTAssertEqual(Self.at(g, 80, 85), 1060, "frame \(frame): the torso at the bottom edge")
            XCTAssertEqual(Self.at(g, 125, 85), Self.far, "frame \(frame): the desk at the bottom edge")
            XCTAssertEqual(Self.at(g, 106, 60), Self.far, "frame \(frame): the desk where it touches the torso")
        }
    }

    /// The walker's head at the bottom edge (columns 40-79, rows `top`-89,
    /// 0.8 m), a seated man at the right (columns 120-149, rows 40-89,
    /// 1.0 m), a box on a shelf (columns 10-29, rows 10-19, 1.1 m); a wall
    /// at 3 m.
    static func walkerAndSeated(top: Int) -> TestDepth {
        let d = TestDepth(width: W, height: H, fill: 3000)
        d.fill(x0: 40, y0: top, x1: 80, y1: 90, 800)
        d.fill(x0: 120, y0: 40, x1: 150, y1: 90, 1000)
        d.fill(x0: 10, y0: 10, x1: 30, y1: 20, 1100)
        return d
    }

    func testABodyTheFusedMatteHeldStaysWhenTheLockAndTheModelLoseIt() {
        // rule: a part of the floor the model sees no one in joins when the
        // last frame's guide held most of it. The model sees the seated man
        // only; on the first frame the walker's head holds a mover's seeds,
        // on the next the lock has lost him (seeds on the seated man only)
        let p = TestProbability(width: Self.W, height: Self.H)
        p.fill(x0: 120, y0: 40, x1: 150, y1: 90)
        let seated = (x0: 125, y0: 45, x1: 145, y1: 60, bits: UInt8(1))
        let first = Self.walkerAndSeated(top: 70), next = Self.walkerAndSeated(top: 73)
        var f = PersonFusion()
        let g0 = Self.fuse(first, p, floor: Self.floor(first, cutoff: 1250), cutoff: 1.25,
                           seeds: Self.seeds([seated, (45, 75, 75, 89, 2)]), evidence: true, fusion: &f)
        XCTAssertEqual(Self.at(g0, 60, 80), 800, "the walker's head, a mover")
        XCTAssertEqual(Self.at(g0, 20, 15), Self.far, "the box: no seeds, never held")
        let g1 = Self.fuse(next, p, floor: Self.floor(next, cutoff: 1250), cutoff: 1.25,
                           seeds: Self.seeds([seated]), evidence: true, fusion: &f)
        XCTAssertEqual(Self.at(g1, 60, 85), 800, "the head the last frame held")
        XCTAssertEqual(Self.at(g1, 130, 80), 1000, "the seated man")
        XCTAssertEqual(Self.at(g1, 20, 15), Self.far, "the box")
        // the same frame without the last one: nothing holds the head
        var fresh = PersonFusion()
        let alone = Self.fuse(next, p, floor: Self.floor(next, cutoff: 1250), cutoff: 1.25,
                              seeds: Self.seeds([seated]), evidence: true, fusion: &fresh)
        XCTAssertEqual(Self.at(alone, 60, 85), Self.far)
        // nor after frames keyed without the fusion: the guide held is old
        var gap = PersonFusion()
        _ = Self.fuse(first, p, floor: Self.floor(first, cutoff: 1250), cutoff: 1.25,
                      seeds: Self.seeds([seated, (45, 75, 75, 89, 2)]), evidence: true, fusion: &gap)
        gap.forgetHeld()
        let resumed = Self.fuse(next, p, floor: Self.floor(next, cutoff: 1250), cutoff: 1.25,
                                seeds: Self.seeds([seated]), evidence: true, fusion: &gap)
        XCTAssertEqual(resumed, alone)
        // and without evidence (nobody seen, nothing moved) the held part stays out
        let empty = TestProbability(width: Self.W, height: Self.H)
        var still = PersonFusion()
        _ = Self.fuse(first, empty, floor: Self.floor(first, cutoff: 1250), cutoff: 1.25,
                      seeds: Self.seeds([(45, 75, 75, 89, 1)]), evidence: true, fusion: &still)
        let quiet = Self.fuse(next, empty, floor: Self.floor(next, cutoff: 1250), cutoff: 1.25,
                              seeds: Self.seeds([seated]), evidence: false, fusion: &still)
        XCTAssertFalse(quiet.contains { $0 != Self.far })
    }

    func testAPersonTheProbabilityDoesNotShowIsKeptByDepth() {
        // rule: where the model sees no one, depth decides, when the lock's
        // subject is a person by other evidence (here: the model saw him
        // earlier on his track, as a man walking off to a door 3.5 m away
        // with his back turned)
        let d = TestDepth(width: Self.W, height: Self.H, fill: 6000)
        d.fill(x0: 70, y0: 30, x1: 82, y1: 75, 3500)
        var f = PersonFusion()
        let g = Self.key(d, TestProbability(width: Self.W, height: Self.H), cutoff: 4.0,
                         seeds: Self.seeds([(72, 32, 80, 40, 1)]), subjectSeen: true, fusion: &f)
        XCTAssertEqual(Self.at(g, 75, 50), 3500, "the man the model no longer sees")
        XCTAssertEqual(Self.at(g, 75, 74), 3500)
        XCTAssertEqual(Self.at(g, 20, 50), Self.far, "the wall")
        XCTAssertEqual(f.cutoff, 3.51, accuracy: 0.001)
    }

    func testAWeakClaimOnAFarWallIsNotKeyedWhenTheLockFindsNobody() {
        // rule: in a subject mode, a frame whose lock finds no subject
        // (depth keeps nothing) keys nothing. An empty corridor: its end
        // wall at 5 m, the floor receding below it, and the selfie model's
        // weak claim (0.6) on a patch of the wall that covers no depth
        // surface a quarter over, so that the lock takes no one
        let d = TestDepth(width: Self.W, height: Self.H, fill: 5000)
        for y in 60..<Self.H { for x in 0..<Self.W { d[x, y] = UInt16(4800 - (y - 60) * 40) } }
        let p = TestProbability(width: Self.W, height: Self.H)
        p.fill(x0: 60, y0: 10, x1: 100, y1: 55, 153)
        var f = PersonFusion()
        let g = Self.key(d, p, cutoff: 0, seeds: nil, subjectSeen: false, fusion: &f)
        XCTAssertEqual(Self.at(g, 80, 30), Self.far, "the wall the model claims")
        XCTAssertEqual(f.keptCount, 0)
        XCTAssertEqual(f.cutoff, 0)
    }

    func testHolesTheModelDoesNotClaimAreLeftToTheRefiner() {
        // rule: after the floor, a hole the probability does not claim
        // stays a hole (0), as on the depth-only guide; a claimed hole takes
        // the kept median; with nothing kept every cell is far
        let d = PersonFusionTests.scene()
        d.fill(x0: 70, y0: 10, x1: 90, y1: 16, 0)     // hair, claimed
        d.fill(x0: 100, y0: 60, x1: 110, y1: 70, 0)   // beside the torso's edge, unclaimed
        d.fill(x0: 20, y0: 10, x1: 30, y1: 16, 0)     // on the wall, unclaimed
        var f = PersonFusion()
        let g = Self.fuse(d, PersonFusionTests.personProbability(), floor: Self.floor(d, cutoff: 1250),
                          cutoff: 1.25, seeds: PersonFusionTests.headSeeds(), evidence: true, fusion: &f)
        XCTAssertTrue((1000...1060).contains(Self.at(g, 80, 12)), "the hair takes a depth among the kept readings")
        XCTAssertEqual(Self.at(g, 107, 65), 0, "a hole beside the torso")
        XCTAssertEqual(Self.at(g, 25, 12), 0, "a hole on the wall")
        XCTAssertEqual(Self.at(g, 10, 50), Self.far, "the wall's readings")
        let empty = TestProbability(width: Self.W, height: Self.H)
        var e = PersonFusion()
        let none = Self.fuse(d, empty, floor: Self.floor(d, cutoff: 1250), cutoff: 1.25,
                             seeds: PersonFusionTests.headSeeds(), evidence: false, fusion: &e)
        XCTAssertFalse(none.contains { $0 != Self.far }, "nothing kept: no hole either")
    }

    func testAnEmptyRoomKeysNothing() {
        // rule: without evidence that the lock's body is a person (no face,
        // never seen, nothing moved, nobody seen elsewhere) the depth-only
        // decision is not taken: a jacket on a chair the lock takes as the
        // nearest body stays out, frame after frame
        let d = TestDepth(width: Self.W, height: Self.H, fill: 3000)
        d.fill(x0: 100, y0: 50, x1: 130, y1: 80, 1500)
        let silent = TestProbability(width: Self.W, height: Self.H)
        var f = PersonFusion()
        for frame in 0..<3 {
            let g = Self.key(d, silent, cutoff: 2.0, seeds: Self.seeds([(105, 55, 125, 75, 1)]), subjectSeen: false,
                             fusion: &f)
            XCTAssertEqual(f.keptCount, 0, "frame \(frame)")
            XCTAssertEqual(f.cutoff, 0, "frame \(frame)")
            XCTAssertEqual(Self.at(g, 115, 65), Self.far, "frame \(frame): the jacket")
        }
    }
}
