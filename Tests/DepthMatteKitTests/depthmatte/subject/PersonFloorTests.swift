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
        let g = p.withView { pv -> Depth16View in
            _ = f.apply(depth: d.view, scale: 0.001, person: pv, cutoff: cutoff, seeds: seeds,
                        floor: floor.view, floorCutoff: cutoff)
            return f.floor(depth: d.view, floor: floor.view, scale: 0.001, floorCutoff: cutoff, seeds: seeds,
                           evidence: evidence)
        }
        return (0..<(W * H)).map { g.at($0 % W, $0 / W) }
    }

    static func at(_ g: [UInt16], _ x: Int, _ y: Int) -> UInt16 { g[y * W + x] }

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
        // rule: step 7, the floor below an open blob (the model sees the
        // head and shoulders only: its blob ends above the bottom)
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
        let silent = TestProbability(width: Self.W, height: Self.H)
        let floor = Self.floor(d, cutoff: 4000)
        var f = PersonFusion()
        let g = silent.withView {
            f.fuse(depth: d.view, scale: 0.001, person: $0, cutoff: 4.0, seeds: Self.seeds([(72, 32, 80, 40, 1)]),
                   floor: floor.view, floorCutoff: 4.0, faceLock: false, subjectSeen: true, setCutoff: false)
        }
        XCTAssertEqual(g.at(75, 50), 3500, "the man the model no longer sees")
        XCTAssertEqual(g.at(75, 74), 3500)
        XCTAssertEqual(g.at(20, 50), Self.far, "the wall")
        XCTAssertEqual(f.cutoff, 3.51, accuracy: 0.001)
    }

    func testAnEmptyRoomKeysNothing() {
        // rule: without evidence that the lock's body is a person (no face,
        // never seen, nothing moved, nobody seen elsewhere) the depth-only
        // decision is not taken: a jacket on a chair the lock takes as the
        // nearest body stays out, frame after frame
        let d = TestDepth(width: Self.W, height: Self.H, fill: 3000)
        d.fill(x0: 100, y0: 50, x1: 130, y1: 80, 1500)
        let silent = TestProbability(width: Self.W, height: Self.H)
        let floor = Self.floor(d, cutoff: 2000)
        var f = PersonFusion()
        for frame in 0..<3 {
            let g = silent.withView {
                f.fuse(depth: d.view, scale: 0.001, person: $0, cutoff: 2.0,
                       seeds: Self.seeds([(105, 55, 125, 75, 1)]), floor: floor.view, floorCutoff: 2.0,
                       faceLock: false, subjectSeen: false, setCutoff: false)
            }
            XCTAssertEqual(f.keptCount, 0, "frame \(frame)")
            XCTAssertEqual(f.cutoff, 0, "frame \(frame)")
            XCTAssertEqual(g.at(115, 65), Self.far, "frame \(frame): the jacket")
        }
    }
}
