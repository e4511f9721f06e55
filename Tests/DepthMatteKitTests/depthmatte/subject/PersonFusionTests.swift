// SPDX-License-Identifier: LGPL-2.1-or-later
import XCTest
@_spi(Bench) @testable import DepthMatteKit
import DMContract

/// A GRAY8 person probability in an owned buffer (255 = person).
final class TestProbability {
    let width: Int, height: Int
    var bytes: [UInt8]
    init(width: Int, height: Int) {
        self.width = width; self.height = height
        bytes = [UInt8](repeating: 0, count: width * height)
    }
    func fill(x0: Int, y0: Int, x1: Int, y1: Int, _ v: UInt8 = 255) {
        for y in y0..<y1 { for x in x0..<x1 { bytes[y * width + x] = v } }
    }
    func withView<R>(_ body: (Gray8View) -> R) -> R {
        bytes.withUnsafeMutableBufferPointer { b in
            body(Gray8View(base: b.baseAddress!, width: width, height: height, stride: width))
        }
    }
}

/// The person prior's rules (PersonFusion.swift), each on a 160x90 depth
/// grid with a probability at the same size (unless said), read back from
/// the decision as a depth picture (`PersonFusion.at`): a kept cell at the
/// depth the fusion keeps it at, an unknown cell 0, the rest far (65535).
final class PersonFusionTests: XCTestCase {
    static let W = 160, H = 90
    static let far: UInt16 = 65535

    /// A wall at 3 m, the person (head at 1 m, torso at 1.06 m) in front.
    static func scene() -> TestDepth {
        let d = TestDepth(width: W, height: H, fill: 3000)
        SubjectSegmentationTests.person(into: d, face: 1000)
        return d
    }

    /// The probability of the person of `scene` (head and torso).
    static func personProbability(dx: Int = 0) -> TestProbability {
        let p = TestProbability(width: W, height: H)
        p.fill(x0: 55 + dx, y0: 32, x1: 105 + dx, y1: 90)
        p.fill(x0: 70 + dx, y0: 10, x1: 90 + dx, y1: 32)
        return p
    }

    /// Seeds on the head (as the lock writes them for a face box).
    static func headSeeds() -> [UInt8] {
        var s = [UInt8](repeating: 0, count: W * H)
        for y in 15..<27 { for x in 75..<85 { s[y * W + x] = 1 } }
        return s
    }

    static func run(_ d: TestDepth, _ p: TestProbability, cutoff: Double = 1.25, seeds: [UInt8]? = headSeeds(),
                    fusion: inout PersonFusion) -> (guide: [UInt16], cutoff: Double) {
        let g = p.withView { fusion.apply(depth: d.view, scale: 0.001, person: $0, cutoff: cutoff, seeds: seeds) }
        var out = [UInt16](repeating: 0, count: W * H)
        for y in 0..<H { for x in 0..<W { out[y * W + x] = fusion.at(g, x, y) } }
        return (out, fusion.cutoff)
    }

    /// `run` on a fresh fusion.
    static func run(_ d: TestDepth, _ p: TestProbability, cutoff: Double = 1.25,
                    seeds: [UInt8]? = headSeeds()) -> (guide: [UInt16], cutoff: Double) {
        var fusion = PersonFusion()
        return run(d, p, cutoff: cutoff, seeds: seeds, fusion: &fusion)
    }

    static func kept(_ g: [UInt16], _ x: Int, _ y: Int) -> Bool { g[y * W + x] != far }

    /// The guide keeps each (x, y, what) of `kept` and writes far each of `out`.
    static func expect(_ g: [UInt16], kept: [(Int, Int, String)], out: [(Int, Int, String)],
                       file: StaticString = #filePath, line: UInt = #line) {
        for (x, y, what) in kept { XCTAssertTrue(Self.kept(g, x, y), "kept: \(what)", file: file, line: line) }
        for (x, y, what) in out { XCTAssertFalse(Self.kept(g, x, y), "out: \(what)", file: file, line: line) }
    }

    func testThePersonIsKeptAndTheWallIsNot() {
        let r = Self.run(Self.scene(), Self.personProbability())
        XCTAssertEqual(r.guide[20 * Self.W + 80], 1000, "head keeps its depth")
        XCTAssertEqual(r.guide[60 * Self.W + 80], 1060, "torso keeps its depth")
        XCTAssertFalse(Self.kept(r.guide, 10, 10), "wall")
        XCTAssertEqual(r.cutoff, 1.07, accuracy: 0.001, "just behind the farthest kept reading")
    }

    func testABodyPartTheModelMissedIsKeptWithItsPiece() {
        // the chest at the head's depth, nearer than the cutoff, but the
        // probability covers only the head and the upper chest: the chest
        // is one depth piece, mostly claimed
        let d = Self.scene()
        let p = TestProbability(width: Self.W, height: Self.H)
        p.fill(x0: 70, y0: 10, x1: 90, y1: 32)
        p.fill(x0: 55, y0: 32, x1: 105, y1: 75)
        let r = Self.run(d, p)
        Self.expect(r.guide, kept: [(80, 80, "the chest below the model's mask, within reach, same piece"),
                                    (56, 80, "its corner")],
                    out: [(80, 88, "13 cells below the mask: past the reach (4 % of 160)")])
    }

    func testAChairBackJoinedToTheShoulderInDepthIsNotTakenWithIt() {
        // a chair back at the right whose depth runs smoothly from the torso
        // (1.06 m) to 1.2 m: one depth piece with the body, behind it
        let d = Self.scene()
        for y in 40..<90 { for x in 105..<125 { d[x, y] = UInt16(1060 + (x - 104) * 7) } }
        let r = Self.run(d, Self.personProbability())
        Self.expect(r.guide, kept: [(100, 60, "torso")],
                    out: [(112, 60, "the chair back behind the shoulder, within reach")])
    }

    func testAHeldObjectInFrontOfTheBodyIsKept() {
        // a box held at 0.9 m joined in depth to the torso (a ramp at its
        // edge), which the model does not see
        let d = Self.scene()
        for y in 50..<70 { for x in 48..<58 { d[x, y] = UInt16(900 + max(0, x - 50) * 20) } }
        let r = Self.run(d, Self.personProbability())
        XCTAssertTrue(Self.kept(r.guide, 50, 60), "the held box, in front, same piece")
    }

    func testAPillarTheProbabilityBledOntoIsRejectedWhole() {
        // a pillar at the person's depth beside them, apart in depth from
        // the torso by the wall between; the probability bleeds 3 px onto it
        let d = Self.scene()
        d.fill(x0: 5, y0: 0, x1: 50, y1: 90, 1050)
        let p = Self.personProbability()
        p.fill(x0: 47, y0: 32, x1: 50, y1: 90)
        let r = Self.run(d, p)
        Self.expect(r.guide, kept: [(60, 60, "the person")],
                    out: [(48, 60, "the bled strip goes with its pillar"), (20, 60, "the pillar")])
    }

    func testAMixedPieceFollowsTheProbabilityPerPixel() {
        // the person leaning on a wall at their own depth: one depth piece
        // that is a third person; each reading follows the probability
        let d = TestDepth(width: Self.W, height: Self.H, fill: 1060)
        let p = Self.personProbability()
        p.fill(x0: 0, y0: 0, x1: 160, y1: 8)  // two thirds of the piece stay unclaimed
        let r = Self.run(d, p)
        Self.expect(r.guide, kept: [(80, 60, "the person part")],
                    out: [(20, 60, "the wall part")])
    }

    func testHolesTheModelSeesAsPersonAreKeptAtTheKeptMedian() {
        // dark hair with no readings on top of the head
        let d = Self.scene()
        d.fill(x0: 70, y0: 10, x1: 90, y1: 16, 0)
        d.fill(x0: 20, y0: 10, x1: 30, y1: 16, 0)
        let r = Self.run(d, Self.personProbability())
        let hole = r.guide[12 * Self.W + 80]
        XCTAssertTrue((1000...1060).contains(hole), "a person hole takes a depth among the kept readings: \(hole)")
        XCTAssertFalse(Self.kept(r.guide, 25, 12), "a hole in the wall stays out")
    }

    func testTwoPeopleAtDifferentDepthsTheLockPicksOneAndDepthDecidesTheOther() {
        // the subject (head seeds) at 1 m; another person the model sees at
        // 1.1 m, and one at 2.5 m
        let d = Self.scene()
        d.fill(x0: 130, y0: 20, x1: 150, y1: 80, 2500)
        d.fill(x0: 10, y0: 20, x1: 30, y1: 80, 1100)
        let p = Self.personProbability()
        p.fill(x0: 130, y0: 20, x1: 150, y1: 80)
        p.fill(x0: 10, y0: 20, x1: 30, y1: 80)
        let r = Self.run(d, p)
        Self.expect(r.guide, kept: [(80, 20, "the seeded subject")],
                    out: [(20, 50, "another person that depth keeps nothing of and that never moved"),
                          (140, 50, "another person far behind")])
        // the near one moved into view (the lock's movers seed them, bit 1)
        var moved = Self.headSeeds()
        for y in 40..<60 { for x in 12..<28 { moved[y * Self.W + x] = 2 } }
        var g = PersonFusion()
        XCTAssertTrue(Self.kept(Self.run(d, p, seeds: moved, fusion: &g).guide, 20, 50), "a person that moved")
        // depth keeps part of the near one (the depth-only decision holds them)
        let floor = TestDepth(width: Self.W, height: Self.H, fill: 3000)
        floor.fill(x0: 10, y0: 20, x1: 30, y1: 80, 1100)
        var e = PersonFusion()
        let kept = p.withView {
            e.apply(depth: d.view, scale: 0.001, person: $0, cutoff: 1.25, seeds: Self.headSeeds(),
                    floor: floor.decision(cutoff: 1.25))
        }
        XCTAssertNotEqual(e.at(kept, 20, 50), Self.far, "a person depth keeps part of")
        XCTAssertEqual(e.at(kept, 140, 50), Self.far)
        // without seeds (the lock found nobody) every person the model sees stays
        var h = PersonFusion()
        let all = Self.run(d, p, seeds: nil, fusion: &h)
        XCTAssertTrue(Self.kept(all.guide, 140, 50))
        XCTAssertTrue(Self.kept(all.guide, 20, 50))
    }

    func testSpeckleBlobsAreDropped() {
        let d = Self.scene()
        d.fill(x0: 140, y0: 5, x1: 143, y1: 8, 1000)
        let p = Self.personProbability()
        p.fill(x0: 140, y0: 5, x1: 143, y1: 8)
        let r = Self.run(d, p, seeds: nil)
        Self.expect(r.guide, kept: [(80, 20, "the head")],
                    out: [(141, 6, "9 cells are under 0.1 % of the grid... of 14,400: kept only above 14")])
    }

    func testAnEmptyProbabilityKeepsNothing() {
        var f = PersonFusion()
        let r = Self.run(Self.scene(), TestProbability(width: Self.W, height: Self.H), seeds: nil, fusion: &f)
        XCTAssertEqual(f.keptCount, 0)
        XCTAssertEqual(r.cutoff, 0)
        XCTAssertFalse(r.guide.contains { $0 != Self.far })
    }

    func testTheProbabilityIsSampledAtTheGridFromAnySize() {
        // a 256x144 probability over the whole frame (the landscape model's
        // size) rising by one level per column: cell x's centre lies at
        // (x + 0.5) * 1.6 - 0.5 columns
        let p = TestProbability(width: 256, height: 144)
        for y in 0..<144 { for x in 0..<256 { p.bytes[y * 256 + x] = UInt8(x) } }
        var prob: [Float] = []
        p.withView { PersonFusion.sample($0, width: 160, height: 90, into: &prob) }
        for x in [0, 1, 37, 80, 158] {
            XCTAssertEqual(prob[45 * 160 + x], Float((Double(x) + 0.5) * 1.6 - 0.5) / 255, accuracy: 1e-5, "cell \(x)")
        }
    }

    /// The depth-only decision on `scene`: the person's readings, the rest
    /// of the picture far (as the segmentation writes what it drops).
    static func personFloor(_ d: TestDepth) -> TestDepth {
        let f = TestDepth(width: W, height: H, fill: far)
        for y in 0..<H { for x in 0..<W where d[x, y] <= 1250 { f[x, y] = d[x, y] } }
        return f
    }

    /// `apply` then `floor` at the lock's cutoff 1.25 m.
    static func fuse(_ d: TestDepth, _ p: TestProbability, floor: TestDepth, seeds: [UInt8]? = headSeeds(),
                     evidence: Bool, fusion f: inout PersonFusion) -> [UInt16] {
        let g = p.withView { pv -> SubjectDecision in
            _ = f.apply(depth: d.view, scale: 0.001, person: pv, cutoff: 1.25, seeds: seeds,
                        floor: floor.decision(cutoff: 1.25))
            return f.floor(depth: d.view, floor: floor.decision(cutoff: 1.25), scale: 0.001, seeds: seeds,
                           evidence: evidence)
        }
        var out = [UInt16](repeating: 0, count: W * H)
        for y in 0..<H { for x in 0..<W { out[y * W + x] = f.at(g, x, y) } }
        return out
    }

    func testFuseReusesTheDecisionOnlyWhenEveryInputIsTheSame() {
        let d = Self.scene(), floor = Self.personFloor(d), p = Self.personProbability()
        var f = PersonFusion(), reference = PersonFusion()
        func fused(_ d: TestDepth, _ p: TestProbability, cutoff: Double = 1.25) -> [UInt16] {
            let g = p.withView {
                f.fuse(depth: d.view, scale: 0.001, person: $0, cutoff: cutoff, seeds: Self.headSeeds(),
                       floor: floor.decision(cutoff: 1.25), faceLock: true, subjectSeen: false, setCutoff: false)
            }
            return (0..<(Self.W * Self.H)).map { f.at(g, $0 % Self.W, $0 / Self.W) }
        }
        // the same inputs again and again: what the passes would give on
        // each frame (the floor reads the last frame's guide: the guide is
        // reused once that no longer changes it)
        for frame in 0..<4 {
            XCTAssertEqual(fused(d, p), Self.fuse(d, p, floor: floor, evidence: true, fusion: &reference), "frame \(frame)")
            XCTAssertEqual(f.cutoff, reference.cutoff)
        }
        // a moved probability, then one changed reading: made anew, as from scratch
        let moved = Self.personProbability(dx: 6)
        XCTAssertEqual(fused(d, moved), Self.fuse(d, moved, floor: floor, evidence: true, fusion: &reference))
        let nearer = Self.scene()
        nearer[80, 60] = 1050
        XCTAssertEqual(fused(nearer, moved), Self.fuse(nearer, moved, floor: floor, evidence: true, fusion: &reference))
        XCTAssertEqual(f.cutoff, reference.cutoff)
    }

    func testAPersonTheProbabilityDoesNotShowIsKeptWhereDepthKeepsThem() {
        // the model is silent (a man far off with his back turned): depth
        // decides, when the lock's subject is a person by other evidence
        let d = Self.scene()
        let silent = TestProbability(width: Self.W, height: Self.H)
        var f = PersonFusion()
        let g = Self.fuse(d, silent, floor: Self.personFloor(d), evidence: true, fusion: &f)
        XCTAssertEqual(g[20 * Self.W + 80], 1000, "the head, as depth alone keeps it")
        XCTAssertEqual(g[80 * Self.W + 60], 1060, "the torso")
        XCTAssertFalse(Self.kept(g, 10, 10), "the wall")
        XCTAssertEqual(f.cutoff, 1.07, accuracy: 0.001)
        // an empty room: nobody seen, nothing moved, no face: a still body
        // the lock takes (a jacket on a chair) stays out
        var e = PersonFusion()
        let empty = Self.fuse(d, silent, floor: Self.personFloor(d), evidence: false, fusion: &e)
        XCTAssertFalse(empty.contains { $0 != Self.far })
        XCTAssertFalse(e.floorEvidence(faceLock: false, subjectSeen: false, setCutoff: false))
        XCTAssertTrue(e.floorEvidence(faceLock: false, subjectSeen: true, setCutoff: false), "seen earlier on its track")
        XCTAssertTrue(e.floorEvidence(faceLock: true, subjectSeen: false, setCutoff: false))
        // a part of the floor without the lock's seeds is not the subject
        let box = Self.scene()
        box.fill(x0: 130, y0: 60, x1: 150, y1: 80, 1200)
        var b = PersonFusion()
        let withBox = Self.fuse(box, silent, floor: Self.personFloor(box), evidence: true, fusion: &b)
        XCTAssertTrue(Self.kept(withBox, 80, 20))
        XCTAssertFalse(Self.kept(withBox, 140, 70), "a box depth keeps beside the subject, without seeds")
        // the model sees a person elsewhere: the silent subject stays too
        let elsewhere = TestProbability(width: Self.W, height: Self.H)
        elsewhere.fill(x0: 5, y0: 20, x1: 25, y1: 80)
        var s = PersonFusion()
        _ = elsewhere.withView { s.apply(depth: d.view, scale: 0.001, person: $0, cutoff: 1.25, seeds: nil) }
        XCTAssertTrue(s.floorEvidence(faceLock: false, subjectSeen: false, setCutoff: false))
    }

    func testWithinAPersonTheModelSeesItTakesAwayWhatItSeesIsNoPersonAndKeepsTheirOwnSurface() {
        // the depth-only decision holds the person and a desk at 1.2 m
        // joined to the torso's side; the model sees the person but for the
        // last 14 rows of the torso (a dark coat), past the reach
        let d = Self.scene()
        d.fill(x0: 105, y0: 60, x1: 140, y1: 90, 1200)
        let p = Self.personProbability()
        p.fill(x0: 55, y0: 76, x1: 105, y1: 90, 0)
        let floor = Self.personFloor(d)
        var f = PersonFusion()
        let g = Self.fuse(d, p, floor: floor, evidence: true, fusion: &f)
        XCTAssertEqual(g[88 * Self.W + 80], 1060, "the lower coat: the torso's own piece, past the reach")
        XCTAssertFalse(Self.kept(g, 125, 75), "the desk depth joins to the person: the model sees no person there")
        XCTAssertEqual(g[20 * Self.W + 80], 1000)
        // the same desk moved into view (a mover's seeds): another body, kept
        var seeds = Self.headSeeds()
        for y in 65..<85 { for x in 110..<135 { seeds[y * Self.W + x] = 2 } }
        var m = PersonFusion()
        let moved = Self.fuse(d, p, floor: floor, seeds: seeds, evidence: true, fusion: &m)
        XCTAssertEqual(moved[75 * Self.W + 125], 1200)
    }

    /// 160 x 120, millimetres, the lock's cutoff 2.25 m: a camera above head
    /// height looking down at a man walking 2-2.5 m away (as
    /// `SubjectLegsTests`). A wall at 4 m; the body (columns 50-99, rows
    /// 20-55) its depth growing downwards from 2.0 m; two legs (columns
    /// 64-75 and 84-95, rows 56-89) continuing it to 2.55 m; the floor from
    /// row 90, receding upwards steeply (2.6 m at the feet, 25 mm nearer
    /// per row down). `subject` is the depth-only subject as the
    /// segmentation leaves it: the body, the legs grown past the cutoff
    /// written at it, every other reading nearer than the cutoff far.
    static func walkerScene() -> (depth: TestDepth, subject: TestDepth) {
        let w = 160, h = 120
        let d = TestDepth(width: w, height: h), s = TestDepth(width: w, height: h)
        for y in 0..<h {
            for x in 0..<w {
                let body = x >= 50 && x < 100 && y >= 20 && y < 56
                let leg = (x >= 64 && x < 76 || x >= 84 && x < 96) && y >= 56 && y < 90
                var v = 4000
                if y >= 90 { v = 2600 - (y - 90) * 25 }
                if body { v = 2000 + (y - 20) * 6 }
                if leg { v = 2220 + (y - 56) * 10 }
                d[x, y] = UInt16(v)
                s[x, y] = body || leg ? UInt16(min(v, 2250)) : v <= 2250 ? 65535 : UInt16(v)
            }
        }
        return (d, s)
    }

    func testTheLegsOfABodyInViewComeFromTheDepthSubjectAndTheFloorBeyondItDoesNot() {
        let (d, subject) = Self.walkerScene()
        let w = 160, h = 120
        // the model sees the upper body only (a selfie model on a man
        // seen from above), and a blot on the floor beside his feet
        let p = TestProbability(width: w, height: h)
        p.fill(x0: 50, y0: 20, x1: 100, y1: 56)
        p.fill(x0: 100, y0: 92, x1: 130, y1: 110)
        var f = PersonFusion()
        var guide = [UInt16](repeating: 0, count: w * h)
        func read(_ g: SubjectDecision) { for y in 0..<h { for x in 0..<w { guide[y * w + x] = f.at(g, x, y) } } }
        // (without the lock's seeds: every blob the model sees stays, the
        // blot too)
        read(p.withView { f.apply(depth: d.view, scale: 0.001, person: $0, cutoff: 2.25, seeds: nil) })
        func kept(_ x: Int, _ y: Int) -> Bool { guide[y * w + x] != Self.far }
        // the probability alone: the legs share a depth piece with the
        // floor, mostly unclaimed, so they follow the probability
        XCTAssertTrue(kept(75, 40), "the body")
        XCTAssertFalse(kept(70, 75), "apply alone: the leg is missed")
        XCTAssertTrue(kept(115, 100), "apply alone: the blot on the floor is kept")
        read(f.floor(depth: d.view, floor: subject.decision(cutoff: 2.25), scale: 0.001, seeds: nil, evidence: true))
        XCTAssertTrue(kept(75, 40), "the body")
        for (x, y) in [(70, 60), (70, 89), (65, 75), (90, 70), (95, 89)] {
            XCTAssertEqual(guide[y * w + x], 2250, "leg (\(x), \(y)), as the depth subject has it")
        }
        for (x, y) in [(80, 70), (58, 70), (70, 95), (90, 110)] {
            XCTAssertFalse(kept(x, y), "(\(x), \(y)): the wall between the legs, the floor below them")
        }
        for (x, y) in [(100, 93), (115, 100), (129, 109)] {
            XCTAssertFalse(kept(x, y), "(\(x), \(y)): the floor the probability bled onto")
        }
        XCTAssertEqual(f.cutoff, 2.26, accuracy: 0.001, "just behind the legs: the floor's 2.55 m is gone")
        XCTAssertEqual(f.keptCount, 50 * 36 + 2 * 12 * 34)
    }

    func testABodyReachingTheBottomTakesNothingBelowItsArm() {
        // a portrait: the torso reaches the picture's bottom; the model's
        // torso ends at row 78 in columns 55-64 (an arm's end above a sofa
        // at 1.15 m, rows 78-89, columns 40-64), which the depth-only
        // subject holds with the body
        // (every reading nearer than the cutoff: the subject map is the depth)
        let d = Self.scene()
        d.fill(x0: 40, y0: 78, x1: 65, y1: 90, 1150)
        let subject = d
        let p = Self.personProbability()
        p.fill(x0: 55, y0: 78, x1: 65, y1: 90, 0)
        var f = PersonFusion()
        _ = Self.run(d, p, fusion: &f)
        let g = f.floor(depth: d.view, floor: subject.decision(cutoff: 1.25), scale: 0.001, seeds: Self.headSeeds(),
                        evidence: true)
        XCTAssertEqual(f.at(g, 80, 85), 1060, "the torso")
        XCTAssertEqual(f.at(g, 60, 85), Self.far, "the sofa below the arm")
        XCTAssertEqual(f.at(g, 45, 85), Self.far, "the sofa beside the body")
        // the same arm's end with the body ending above the bottom (the
        // torso's last rows unclaimed): the sofa below the arm joins
        p.fill(x0: 65, y0: 86, x1: 105, y1: 90, 0)
        var e = PersonFusion()
        _ = Self.run(d, p, fusion: &e)
        let open = e.floor(depth: d.view, floor: subject.decision(cutoff: 1.25), scale: 0.001,
                           seeds: Self.headSeeds(), evidence: true)
        XCTAssertEqual(e.at(open, 60, 85), 1150, "an open blob takes the depth subject below it")
        XCTAssertEqual(e.at(open, 80, 88), 1060, "the torso's unclaimed last rows too")
        XCTAssertEqual(e.at(open, 45, 85), Self.far, "not beside it")
    }

    /// The element's path: a close selfie whose chest reaches the bottom
    /// edge nearer than the face, with the probability of the whole person:
    /// the fused matte keeps the chest, and output `person` says so.
    func testTheKeyerFusesAPersonPlaneAndReportsIt() {
        let VW = 320, VH = 180
        let d = TestDepth(width: Self.W, height: Self.H, fill: 1700)
        d.fill(x0: 70, y0: 5, x1: 90, y1: 40, 330)     // head
        d.fill(x0: 30, y0: 40, x1: 130, y1: 90, 300)   // chest, nearer, bottom edge
        let p = TestProbability(width: 64, height: 36)
        p.fill(x0: 28, y0: 2, x1: 36, y1: 16)
        p.fill(x0: 12, y0: 16, x1: 52, y1: 36)
        var s = DMDepthMatteSettings.defaults
        s.output = ElementOutput.matte.rawValue
        s.n_threads = 1
        s.refine = MatteRefine.none.rawValue
        let video = TestRGB(width: VW, height: VH, fill: RGBA(120, 120, 120))
        let out = TestRGB(width: VW, height: VH)
        let matter = DepthMatter()
        var r = MatteResult()
        for _ in 0..<3 {
            r = p.withView { pv in
                matter.process(plan: MattePlan(s), video: video.view, depth: d.view, person: pv,
                               background: nil, output: out.view, faces: [Box(x: 145, y: 15, width: 30, height: 40)])
            }
        }
        XCTAssertTrue(r.personUsed)
        XCTAssertEqual(out[160, 170].r, 255, "chest at the bottom edge")
        XCTAssertEqual(out[160, 40].r, 255, "head")
        XCTAssertEqual(out[10, 10].r, 0, "wall")
        // person-prior=ignore: the depth-only path, the flag off
        s.person_prior = PersonPrior.ignore.rawValue
        r = p.withView { pv in
            matter.process(plan: MattePlan(s), video: video.view, depth: d.view, person: pv,
                           background: nil, output: out.view, faces: [Box(x: 145, y: 15, width: 30, height: 40)])
        }
        XCTAssertFalse(r.personUsed)
        // person-prior=alone: the probability itself, the depth unused
        s.person_prior = PersonPrior.alone.rawValue
        r = p.withView { pv in
            matter.process(plan: MattePlan(s), video: video.view, depth: d.view, person: pv,
                           background: nil, output: out.view, faces: [])
        }
        XCTAssertTrue(r.personUsed)
        XCTAssertEqual(out[10, 10].r, 0)
        XCTAssertEqual(out[160, 150].r, 255)
        XCTAssertEqual(out[20, 150].r, 0, "left of the probability's torso (x < 60 of 320)")
    }

    /// The floor in every mode, with and without faces, through the keyer:
    /// a person at 1 m the probability plane does not show (a man with his
    /// back turned), keyed by depth alone on a first frame without any
    /// evidence of a person but the one each mode has.
    func testInEveryModeAPersonThePlaneDoesNotShowIsKeyedAsDepthAloneKeysThem() {
        let VW = 320, VH = 180
        let d = Self.scene()
        let silent = TestProbability(width: 64, height: 36)
        let shown = TestProbability(width: 64, height: 36)
        shown.fill(x0: 22, y0: 13, x1: 42, y1: 36)
        shown.fill(x0: 28, y0: 4, x1: 36, y1: 13)
        let video = TestRGB(width: VW, height: VH, fill: RGBA(120, 120, 120))
        let out = TestRGB(width: VW, height: VH)
        func key(_ mode: KeyingMode, faces: [Box], planes: [TestProbability]) -> MatteResult {
            var s = DMDepthMatteSettings.defaults
            s.output = ElementOutput.matte.rawValue
            s.n_threads = 1
            s.refine = MatteRefine.none.rawValue
            s.mode = mode.rawValue
            s.cutoff = 1.25
            let matter = DepthMatter()
            var r = MatteResult()
            for p in planes {
                r = p.withView { pv in
                    matter.process(plan: MattePlan(s), video: video.view, depth: d.view, person: pv,
                                   background: nil, output: out.view, faces: faces)
                }
            }
            return r
        }
        let face = [Box(x: 145, y: 15, width: 30, height: 40)]
        // mode=fixed: the cut decides where the model sees no one
        XCTAssertTrue(key(.fixed, faces: [], planes: [silent]).personUsed)
        XCTAssertEqual(out[160, 40].r, 255, "fixed: head")
        XCTAssertEqual(out[160, 150].r, 255, "fixed: torso")
        XCTAssertEqual(out[10, 10].r, 0, "fixed: wall")
        // mode=face with a face: the face is the evidence
        XCTAssertEqual(key(.face, faces: face, planes: [silent, silent, silent]).lockSource, .face)
        XCTAssertEqual(out[160, 40].r, 255, "face: head")
        XCTAssertEqual(out[160, 150].r, 255, "face: torso")
        XCTAssertEqual(out[10, 10].r, 0, "face: wall")
        // mode=nearest, no face: seen on the first frames, then lost
        _ = key(.nearest, faces: [], planes: [shown, shown, silent, silent])
        XCTAssertEqual(out[160, 40].r, 255, "nearest, seen before: head")
        XCTAssertEqual(out[160, 150].r, 255, "nearest, seen before: torso")
        // never seen, never moved, no face: an empty room's jacket on a chair
        for mode in [KeyingMode.nearest, .face] {
            _ = key(mode, faces: [], planes: [silent, silent, silent])
            XCTAssertEqual(out[160, 150].r, 0, "\(mode): a still body nobody sees as a person")
        }
    }
}

extension TestDepth {
    /// The plain cut of this map at `cutoff` metres (millimetres): a
    /// depth-only decision as the fusion takes it for its floor.
    func decision(cutoff: Double) -> SubjectDecision {
        DecisionBuffer().cut(view, scale: 0.001, cutoff: cutoff)
    }
}

extension PersonFusion {
    /// Cell (x, y) of `decision` (this fusion's last) as a depth picture:
    /// a kept cell at the depth it is kept at, an unknown cell 0, the rest
    /// `PersonFusionTests.far`.
    func at(_ decision: SubjectDecision, _ x: Int, _ y: Int) -> UInt16 {
        switch decision.at(x, y) {
        case .subject: return keptDepth.base[y * decision.width + x]
        case .unknown: return 0
        case .background: return PersonFusionTests.far
        }
    }
}
