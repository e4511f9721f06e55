// SPDX-License-Identifier: LGPL-2.1-or-later
import XCTest
@_spi(Bench) @testable import DepthMatteKit

/// The restore pass (SubjectRestore.swift) on synthetic 160x90 depth maps in
/// millimetres, driven as `SubjectSegmentation` drives it: its decision labels
/// the kept pixels the subject and the near pixels left out `leftOut`, its
/// working copy holds the depth; the seeds mark the face. One test per rule, each on a piece that only
/// that rule keeps out (or brings back).
final class SubjectRestoreTests: XCTestCase {
    static let W = 160, H = 90

    /// One frame as the segmentation hands it over: `depth` as it came, the
    /// cutoff `limit` (mm), the working copy and the decision, seeds, floor
    /// marks and the picture's sides per row (the whole width: no band of holes).
    final class Frame {
        let depth: TestDepth
        let limit: UInt32
        var out: [UInt16]
        var labels: [UInt8]
        var seeds: [UInt8]
        var floor: [UInt8]
        var ends: [Int32]
        /// The decision before the pass ran.
        private(set) var before: [UInt8] = []

        /// Every near pixel for which `keep(x, y, depth)` is false is left out.
        init(_ depth: TestDepth, limit: UInt32 = 1250, keep: (Int, Int, UInt16) -> Bool) {
            self.depth = depth
            self.limit = limit
            let w = depth.width, h = depth.height
            out = [UInt16](repeating: 0, count: w * h)
            labels = [UInt8](repeating: 0, count: w * h)
            for y in 0..<h {
                for x in 0..<w {
                    let v = depth[x, y]
                    let near = v != 0 && UInt32(v) <= limit
                    out[y * w + x] = v
                    labels[y * w + x] = v == 0 ? DepthLabel.unknown.rawValue : !near ? DepthLabel.background.rawValue
                        : keep(x, y, v) ? DepthLabel.subject.rawValue : SubjectSegmentation.leftOut
                }
            }
            seeds = [UInt8](repeating: 0, count: w * h)
            floor = [UInt8](repeating: 0, count: w * h)
            ends = [Int32](repeating: 0, count: 2 * h)
            for y in 0..<h { ends[2 * y] = 0; ends[2 * y + 1] = Int32(w - 1) }
        }

        func seed(x0: Int, y0: Int, x1: Int, y1: Int) {
            for y in y0..<y1 { for x in x0..<x1 { seeds[y * depth.width + x] = 1 } }
        }

        /// Marks the pixels of `[x0, x1) x [y0, y1)` for which `on` holds as floor (bit 8).
        func markFloor(x0: Int, y0: Int, x1: Int, y1: Int, where on: (Int, Int) -> Bool = { _, _ in true }) {
            for y in y0..<y1 { for x in x0..<x1 where on(x, y) { floor[y * depth.width + x] |= 8 } }
        }

        /// Runs the pass; checks that it only ever writes a left-out pixel's
        /// own depth back, and that it reports what it wrote.
        @discardableResult
        func run(_ r: inout SubjectRestore, file: StaticString = #filePath, line: UInt = #line) -> Int {
            before = labels
            let depthBefore = out
            let n = depth.width * depth.height
            let count = out.withUnsafeMutableBufferPointer { op in
              labels.withUnsafeMutableBufferPointer { lp in
                seeds.withUnsafeBufferPointer { sp in
                    floor.withUnsafeBufferPointer { fp in
                        ends.withUnsafeBufferPointer { ep in
                            r.apply(original: depth.view, out: op.baseAddress!, labels: lp.baseAddress!,
                                    seeds: sp.baseAddress!, floorMark: fp.baseAddress!, ends: ep.baseAddress!,
                                    limit: limit, scale: 0.001)
                        }
                    }
                }
              }
            }
            var changed = 0
            for i in 0..<n where labels[i] != before[i] {
                changed += 1
                let x = i % depth.width, y = i / depth.width
                XCTAssertEqual(before[i], SubjectSegmentation.leftOut, "(\(x), \(y)) was not left out", file: file, line: line)
                XCTAssertEqual(labels[i], DepthLabel.subject.rawValue, "(\(x), \(y)) is not the subject", file: file, line: line)
                XCTAssertEqual(out[i], depth[x, y], "(\(x), \(y)) is not the original depth", file: file, line: line)
            }
            XCTAssertEqual(out, depthBefore, "the working copy keeps the depth", file: file, line: line)
            XCTAssertEqual(count, changed, "pixels reported", file: file, line: line)
            XCTAssertEqual(r.restoredCount, changed, "restoredCount", file: file, line: line)
            return count
        }

        /// Pixels of `[x0, x1) x [y0, y1)` at depth `v` that the pass put back.
        func restored(x0: Int, y0: Int, x1: Int, y1: Int, depth v: UInt16) -> Int {
            var n = 0
            for y in y0..<y1 {
                for x in x0..<x1 where depth[x, y] == v && before[y * depth.width + x] == SubjectSegmentation.leftOut
                    && labels[y * depth.width + x] == DepthLabel.subject.rawValue {
                    n += 1
                }
            }
            return n
        }

        /// Pixels of `[x0, x1) x [y0, y1)` at depth `v` still left out.
        func leftOut(x0: Int, y0: Int, x1: Int, y1: Int, depth v: UInt16) -> Int {
            var n = 0
            for y in y0..<y1 {
                for x in x0..<x1 where depth[x, y] == v && labels[y * depth.width + x] == SubjectSegmentation.leftOut { n += 1 }
            }
            return n
        }

        /// Pixels of `[x0, x1) x [y0, y1)` at depth `v`.
        func count(x0: Int, y0: Int, x1: Int, y1: Int, depth v: UInt16) -> Int {
            var n = 0
            for y in y0..<y1 { for x in x0..<x1 where depth[x, y] == v { n += 1 } }
            return n
        }
    }

    /// A wall at `wall` mm; a head [70, 90) x [10, 32) at `face` mm and a
    /// torso [55, 105) x [32, 90) at `torso` mm reaching the bottom.
    static func person(face: UInt16 = 1000, torso: UInt16 = 1060, wall: UInt16 = 3000) -> TestDepth {
        let d = TestDepth(width: W, height: H, fill: wall)
        d.fill(x0: 55, y0: 32, x1: 105, y1: 90, torso)
        d.fill(x0: 70, y0: 10, x1: 90, y1: 32, face)
        return d
    }
    static func inHead(_ x: Int, _ y: Int) -> Bool { x >= 70 && x < 90 && y >= 10 && y < 32 }
    static func inTorso(_ x: Int, _ y: Int) -> Bool { x >= 55 && x < 105 && y >= 32 && y < 90 }
    /// The face seeds: the central part of the head (seed columns 74-85, middle row 20).
    static func seedFace(_ f: Frame) { f.seed(x0: 74, y0: 14, x1: 86, y1: 28) }

    /// The near pixels of the person the segmentation kept: head and torso.
    static func headAndTorso(_ x: Int, _ y: Int, _ v: UInt16) -> Bool { inHead(x, y) || inTorso(x, y) }

    /// `d` as the segmentation hands a person over: the near pixels for
    /// which `keep` holds kept (by default the head and torso), the face seeded.
    static func personFrame(_ d: TestDepth, limit: UInt32 = 1250,
                            keep: (Int, Int, UInt16) -> Bool = headAndTorso) -> Frame {
        let f = Frame(d, limit: limit, keep: keep)
        seedFace(f)
        return f
    }

    /// The pass run on `personFrame(d, limit:, keep:)`, set up by `configure`
    /// first (its defaults otherwise); with the count it reported.
    static func restorePerson(_ d: TestDepth, limit: UInt32 = 1250,
                              keep: (Int, Int, UInt16) -> Bool = headAndTorso,
                              configure: (inout SubjectRestore) -> Void = { _ in },
                              file: StaticString = #filePath, line: UInt = #line)
        -> (frame: Frame, restore: SubjectRestore, count: Int) {
        let f = personFrame(d, limit: limit, keep: keep)
        var r = SubjectRestore()
        configure(&r)
        let n = f.run(&r, file: file, line: line)
        return (f, r, n)
    }

    /// The pass on the person with one piece [x0, x1) x [y0, y1) at `v` mm
    /// added: how many of the piece's pixels it put back and how many it
    /// left out, and how many pixels it put back in all.
    static func passWithPiece(x0: Int, y0: Int, x1: Int, y1: Int, depth v: UInt16,
                              keep: (Int, Int, UInt16) -> Bool = headAndTorso,
                              file: StaticString = #filePath, line: UInt = #line)
        -> (restored: Int, leftOut: Int, restoredCount: Int) {
        let d = person()
        d.fill(x0: x0, y0: y0, x1: x1, y1: y1, v)
        let (f, r, _) = restorePerson(d, keep: keep, file: file, line: line)
        return (f.restored(x0: x0, y0: y0, x1: x1, y1: y1, depth: v),
                f.leftOut(x0: x0, y0: y0, x1: x1, y1: y1, depth: v), r.restoredCount)
    }

    // MARK: in contact with the kept subject

    func testTorsoLeftOutBelowTheKeptHeadComesBack() {
        // the segmentation kept the head alone (the chin-to-chest step, in
        // depth and colour); the torso 6 cm behind the face touches it
        let (f, _, n) = Self.restorePerson(Self.person(), keep: { x, y, _ in Self.inHead(x, y) })
        XCTAssertEqual(f.restored(x0: 55, y0: 32, x1: 105, y1: 90, depth: 1060), 50 * 58, "torso")
        XCTAssertEqual(n, 50 * 58, "nothing but the torso")
        XCTAssertEqual(f.labels[20 * Self.W + 80], DepthLabel.subject.rawValue, "head")
        XCTAssertEqual(f.labels[60 * Self.W + 20], DepthLabel.background.rawValue, "wall beyond the cutoff")
    }

    func testPiecesComeBackRoundAfterRound() {
        // head (kept) -> neck 6 cm behind it -> chest 9 cm in front of the
        // neck: the chest touches only the neck, so it comes back in the
        // second round, once the neck is back
        let d = TestDepth(width: Self.W, height: Self.H, fill: 3000)
        d.fill(x0: 55, y0: 38, x1: 105, y1: 90, 970)        // chest
        d.fill(x0: 74, y0: 32, x1: 86, y1: 38, 1060)        // neck
        d.fill(x0: 70, y0: 10, x1: 90, y1: 32, 1000)        // head
        func pass(rounds: Int) -> Frame {
            Self.restorePerson(d, keep: { x, y, _ in Self.inHead(x, y) }, configure: { $0.rounds = rounds }).frame
        }
        let one = pass(rounds: 1)
        XCTAssertEqual(one.restored(x0: 74, y0: 32, x1: 86, y1: 38, depth: 1060), 12 * 6, "neck, first round")
        XCTAssertEqual(one.leftOut(x0: 55, y0: 38, x1: 105, y1: 90, depth: 970), 50 * 52, "chest, not yet")
        let all = pass(rounds: SubjectRestore().rounds)
        XCTAssertEqual(all.restored(x0: 74, y0: 32, x1: 86, y1: 38, depth: 1060), 12 * 6, "neck")
        XCTAssertEqual(all.restored(x0: 55, y0: 38, x1: 105, y1: 90, depth: 970), 50 * 52, "chest")
    }

    // MARK: floor

    func testFloorPieceBesideTheFeetStaysOut() {
        // a patch of floor beside the (kept) body at the body's depth,
        // touching it; marked floor by the segmentation's geometry test
        let d = Self.person()
        d.fill(x0: 20, y0: 70, x1: 55, y1: 90, 1070)
        func pass(floorRows: Int) -> Frame {
            let f = Self.personFrame(d)
            f.markFloor(x0: 20, y0: 90 - floorRows, x1: 55, y1: 90)
            var r = SubjectRestore()
            f.run(&r)
            return f
        }
        let area = 35 * 20
        let floor = pass(floorRows: 20)
        XCTAssertEqual(floor.leftOut(x0: 20, y0: 70, x1: 55, y1: 90, depth: 1070), area, "all floor")
        // just over and just under `floorShare` of its rows marked floor
        let share = SubjectRestore().floorShare
        let over = pass(floorRows: Int((share * 20).rounded(.up)) + 1)
        XCTAssertEqual(over.leftOut(x0: 20, y0: 70, x1: 55, y1: 90, depth: 1070), area, "mostly floor")
        let under = pass(floorRows: Int((share * 20).rounded(.down)) - 1)
        XCTAssertEqual(under.restored(x0: 20, y0: 70, x1: 55, y1: 90, depth: 1070), area, "a few floor pixels")
    }

    // MARK: the top of the picture

    func testPieceReachingTheTopOfThePictureStaysOut() {
        // a pillar from the top of the picture to the bottom, beside the
        // kept torso at its depth, touching it
        let pillar = Self.passWithPiece(x0: 105, y0: 0, x1: 113, y1: 90, depth: 1050)
        XCTAssertEqual(pillar.leftOut, 8 * 90, "pillar")
    }

    func testTopIsWhereTheDepthStartsBelowABandOfHoles() {
        // a registered map without readings in its top 5 rows: a door frame
        // starting at row 5 reaches the top as the depth sees it; an arm
        // raised from the shoulder to row 2 under wall readings does not
        let frame = Self.person()
        frame.fill(x0: 105, y0: 5, x1: 113, y1: 90, 1050)   // door frame
        frame.fill(x0: 0, y0: 0, x1: Self.W, y1: 5, 0)      // band of holes
        let f = Self.restorePerson(frame).frame
        XCTAssertEqual(f.leftOut(x0: 105, y0: 5, x1: 113, y1: 90, depth: 1050), 8 * 85, "door frame below the band")

        // an arm raised over the shoulder
        let arm = Self.passWithPiece(x0: 56, y0: 2, x1: 62, y1: 32, depth: 1040)
        XCTAssertEqual(arm.restored, 6 * 30, "raised arm")
    }

    // MARK: behind the subject

    func testChairBackBehindWhatItTouchesStaysOut() {
        // a chair back 7.5 cm behind the kept torso it touches (within
        // `contact`, beyond `behind`) and less than `behindSeed` behind the
        // face: only "behind what it touches" keeps it out
        chairBackStaysOut(chair: 1135, torso: 1060)
    }

    func testChairBackBehindTheSeedStaysOut() {
        // the face seeds at 1.0 m; the segmentation kept a torso at 1.1 m;
        // a chair back 6.5 cm behind the torso (not `behind` it) but 16.5 cm
        // behind the face, more than `behindSeed`
        chairBackStaysOut(chair: 1165, torso: 1100)
    }

    func testFarArmEmergingFromBehindTheTorsoToTheBottomComesBack() {
        // a person in profile: the torso narrows below row 60, and the far
        // arm shows there, 18 cm behind the face (beyond `behindSeed`) and
        // 12 cm behind the torso (beyond `contact`), parted from it by one
        // column of holes, down to a registered map's band of holes along
        // the bottom: a limb hanging from the body, not a chair back
        let d = Self.person()
        d.fill(x0: 100, y0: 60, x1: 105, y1: 90, 3000)      // the waist narrows
        d.fill(x0: 101, y0: 60, x1: 109, y1: 90, 1180)      // far arm
        d.fill(x0: 100, y0: 60, x1: 101, y1: 90, 0)         // shadow band
        d.fill(x0: 0, y0: 87, x1: Self.W, y1: 90, 0)        // no readings at the bottom
        let keep: (Int, Int, UInt16) -> Bool = { x, y, v in Self.headAndTorso(x, y, v) && v != 1180 }
        let (f, r, _) = Self.restorePerson(d, keep: keep)
        XCTAssertEqual(f.restored(x0: 101, y0: 60, x1: 109, y1: 87, depth: 1180), 8 * 27, "far arm")
        XCTAssertEqual(r.restoredCount, 8 * 27)

        // the same piece without the body above it (the background straight
        // above its whole width: the side of a chair back) stays out
        let strip = Self.person()
        strip.fill(x0: 100, y0: 32, x1: 105, y1: 90, 3000)
        strip.fill(x0: 101, y0: 60, x1: 109, y1: 90, 1180)
        strip.fill(x0: 100, y0: 60, x1: 101, y1: 90, 0)
        strip.fill(x0: 0, y0: 87, x1: Self.W, y1: 90, 0)
        let g = Self.restorePerson(strip, keep: keep).frame
        XCTAssertEqual(g.leftOut(x0: 101, y0: 60, x1: 109, y1: 87, depth: 1180), 8 * 27, "strip under the background")

        // and a piece that far behind the seed, not beside the kept body
        // (a chair leg at the bottom, 20 columns away), stays out too
        let leg = Self.passWithPiece(x0: 125, y0: 60, x1: 133, y1: 90, depth: 1180)
        XCTAssertEqual(leg.leftOut, 8 * 30, "apart from the body")
    }

    /// A chair back at `chair` mm around a kept torso at `torso` mm under a
    /// face seeded at 1.0 m: every chair pixel stays left out.
    func chairBackStaysOut(chair depth: UInt16, torso: UInt16, file: StaticString = #filePath, line: UInt = #line) {
        let d = TestDepth(width: Self.W, height: Self.H, fill: 3000)
        d.fill(x0: 35, y0: 25, x1: 125, y1: 90, depth)
        d.fill(x0: 55, y0: 32, x1: 105, y1: 90, torso)
        d.fill(x0: 70, y0: 10, x1: 90, y1: 32, 1000)
        let (f, r, _) = Self.restorePerson(d)
        let chair = f.count(x0: 35, y0: 25, x1: 125, y1: 90, depth: depth)
        XCTAssertEqual(chair, 90 * 65 - 50 * 58 - 20 * 7, "the chair around the person", file: file, line: line)
        XCTAssertEqual(f.leftOut(x0: 35, y0: 25, x1: 125, y1: 90, depth: depth), chair, "chair back", file: file, line: line)
        XCTAssertEqual(r.restoredCount, 0, file: file, line: line)
    }

    // MARK: apart from the subject

    func testHandApartInFrontOfTheFaceComesBack() {
        // a raised hand 15 cm in front of the face, beside the head, touching
        // nothing kept and no border of the picture
        let hand = Self.passWithPiece(x0: 40, y0: 12, x1: 52, y1: 22, depth: 850)
        XCTAssertEqual(hand.restored, 12 * 10, "hand")
    }

    func testPieceApartMoreThanReachInFrontStaysOut() {
        // a subject 3 m away (cutoff 3.25 m, wall at 5 m); a chair 1.5 m in
        // front of the face stays out, a box held 0.7 m in front (within
        // `reach`) comes back; neither touches the subject or a border
        let d = Self.person(face: 3000, torso: 3060, wall: 5000)
        d.fill(x0: 10, y0: 40, x1: 40, y1: 70, 1500)        // chair
        d.fill(x0: 120, y0: 40, x1: 135, y1: 55, 2300)      // held box
        let f = Self.restorePerson(d, limit: 3250, configure: { XCTAssertEqual($0.reach, 0.8) }).frame
        XCTAssertEqual(f.leftOut(x0: 10, y0: 40, x1: 40, y1: 70, depth: 1500), 30 * 30, "chair 1.5 m in front")
        XCTAssertEqual(f.restored(x0: 120, y0: 40, x1: 135, y1: 55, depth: 2300), 15 * 15, "box 0.7 m in front")
    }

    func testPiecesApartThatAreNoHandStayOut() {
        // touching nothing kept: a surface behind the face, a speck smaller
        // than `minApartArea`, and a piece in front of the face reaching the
        // bottom of the picture (another body walking past)
        let d = Self.person()
        d.fill(x0: 20, y0: 10, x1: 32, y1: 20, 1050)        // behind the face
        d.fill(x0: 120, y0: 15, x1: 124, y1: 20, 900)       // speck, 20 pixels
        d.fill(x0: 125, y0: 50, x1: 140, y1: 90, 900)       // at the bottom
        let (f, r, _) = Self.restorePerson(d, configure: { XCTAssertGreaterThan($0.minApartArea, 20) })
        XCTAssertEqual(f.leftOut(x0: 20, y0: 10, x1: 32, y1: 20, depth: 1050), 12 * 10, "behind the face")
        XCTAssertEqual(f.leftOut(x0: 120, y0: 15, x1: 124, y1: 20, depth: 900), 4 * 5, "speck")
        XCTAssertEqual(f.leftOut(x0: 125, y0: 50, x1: 140, y1: 90, depth: 900), 15 * 40, "at the bottom")
        XCTAssertEqual(r.restoredCount, 0)
    }

    // MARK: the left and right sides

    func testDeskEdgeAcrossThePictureInFrontStaysOut() {
        // head and torso level at 1.0 m (kept); a desk edge 7 cm in front of
        // them across the whole picture, touching the torso's bottom
        let d = Self.person(face: 1000, torso: 1000)
        d.fill(x0: 0, y0: 80, x1: Self.W, y1: 90, 930)
        let (f, r, _) = Self.restorePerson(d, keep: { x, y, v in Self.headAndTorso(x, y, v) && v == 1000 })
        XCTAssertEqual(f.leftOut(x0: 0, y0: 80, x1: Self.W, y1: 90, depth: 930), Self.W * 10, "desk edge")
        XCTAssertEqual(r.restoredCount, 0)
    }

    func testShouldersCutByBothSidesComeBack() {
        // a close subject: head at 0.6 m kept, shoulders and chest 5 cm
        // behind it across the whole width, below the face
        let d = TestDepth(width: Self.W, height: Self.H, fill: 3000)
        d.fill(x0: 0, y0: 50, x1: Self.W, y1: 90, 650)
        d.fill(x0: 62, y0: 8, x1: 98, y1: 50, 600)
        let f = Frame(d) { _, _, v in v == 600 }
        f.seed(x0: 68, y0: 15, x1: 92, y1: 45)
        var r = SubjectRestore()
        f.run(&r)
        XCTAssertEqual(f.restored(x0: 0, y0: 50, x1: Self.W, y1: 90, depth: 650), Self.W * 40, "shoulders")
    }

    func testPieceFromOneSideBesideTheBodyStaysOut() {
        // a sofa arm reaching in from the right at the torso's depth,
        // touching it, but not under the face's columns
        let sofa = Self.passWithPiece(x0: 105, y0: 50, x1: Self.W, y1: 70, depth: 1060)
        XCTAssertEqual(sofa.leftOut, 55 * 20, "sofa arm")
        XCTAssertEqual(sofa.restoredCount, 0)
    }

    func testBarAcrossThePictureAtFaceHeightStaysOut() {
        // a rail across the whole picture at eye height, 1 cm behind the
        // face and touching it: it spans the face's columns but starts above
        // the seed's middle row, so it is not the body under the face
        let rail = Self.passWithPiece(x0: 0, y0: 14, x1: Self.W, y1: 18, depth: 1010,
                                      keep: { x, y, v in Self.headAndTorso(x, y, v) && v != 1010 })
        XCTAssertEqual(rail.leftOut, Self.W * 4, "rail")
        XCTAssertEqual(rail.restoredCount, 0)
    }

    // MARK: at arm's length

    /// A selfie's depth in millimetres: a wall, the head [62, 98) x [8, 50)
    /// at `head` (kept and seeded), the chest [0, 160) x [50, 90) across the
    /// whole width at `chest` (left out; marked floor when `floorMarked`,
    /// as the segmentation marks a chest leaning back). The cutoff is
    /// `head` + 240.
    static func selfieFrame(head: UInt16, chest: UInt16, floorMarked: Bool) -> Frame {
        let d = TestDepth(width: W, height: H, fill: 5000)
        d.fill(x0: 0, y0: 50, x1: W, y1: H, chest)
        d.fill(x0: 62, y0: 8, x1: 98, y1: 50, head)
        let f = Frame(d, limit: UInt32(head) + 240) { _, y, _ in y < 50 }
        f.seed(x0: 68, y0: 15, x1: 92, y1: 45)
        if floorMarked { f.markFloor(x0: 0, y0: 50, x1: W, y1: H) }
        return f
    }

    /// The chest's pixels put back by the pass on `selfieFrame(...)`.
    static func chestRestored(head: UInt16, chest: UInt16, floorMarked: Bool,
                              configure: (inout SubjectRestore) -> Void = { _ in }) -> Int {
        let f = selfieFrame(head: head, chest: chest, floorMarked: floorMarked)
        var r = SubjectRestore()
        configure(&r)
        f.run(&r)
        return f.restored(x0: 0, y0: 50, x1: W, y1: H, depth: chest)
    }

    func testFloorLikeChestAtArmsLengthComesBack() {
        // the head at 0.36 m, the chest 3 cm nearer and floor-like: where the
        // picture is narrower than a body (`bodyWidth`: nearer than 0.43 m
        // at this size's focal length) it is the body, not a floor
        XCTAssertEqual(Self.chestRestored(head: 360, chest: 330, floorMarked: true), Self.W * 40, "chest")
        // the same at 1.08 m: a floor
        XCTAssertEqual(Self.chestRestored(head: 1080, chest: 1050, floorMarked: true), 0, "floor at 1 m")
        // with no width nothing is at arm's length
        XCTAssertEqual(Self.chestRestored(head: 360, chest: 330, floorMarked: true) { $0.bodyWidth = 0 }, 0, "bodyWidth 0")
    }

    func testChestNearerThanTheFaceAtArmsLengthComesBack() {
        // a phone held below the face: the chest 7 cm nearer than the head
        XCTAssertEqual(Self.chestRestored(head: 360, chest: 290, floorMarked: false), Self.W * 40, "chest")
        // the same at 1.08 m: a desk edge across the picture in front
        XCTAssertEqual(Self.chestRestored(head: 1080, chest: 1010, floorMarked: false), 0, "desk edge at 1 m")
    }

    func testPieceAtArmsLengthNotUnderTheSeedKeepsTheRules() {
        // floor-like and at arm's length, but reaching in from the right
        // beside the head, not under its columns: the floor rule holds
        let d = TestDepth(width: Self.W, height: Self.H, fill: 1700)
        d.fill(x0: 62, y0: 8, x1: 98, y1: 90, 360)
        d.fill(x0: 98, y0: 40, x1: Self.W, y1: Self.H, 350)
        let f = Frame(d, limit: 600) { x, _, _ in x < 98 }
        f.seed(x0: 68, y0: 15, x1: 92, y1: 45)
        f.markFloor(x0: 98, y0: 40, x1: Self.W, y1: Self.H)
        var r = SubjectRestore()
        f.run(&r)
        XCTAssertEqual(f.leftOut(x0: 98, y0: 40, x1: Self.W, y1: Self.H, depth: 350), 62 * 50)
    }

    // MARK: switched off

    func testDisabledLeavesTheSegmentedCopyUntouched() {
        let d = Self.person()
        let f = Self.personFrame(d) { x, y, _ in Self.inHead(x, y) }
        let segmented = f.labels
        var r = SubjectRestore()
        XCTAssertEqual(f.run(&r), 50 * 58, "on: the torso comes back")
        XCTAssertEqual(r.restoredCount, 50 * 58)
        f.labels = segmented
        r.enabled = false
        XCTAssertEqual(f.run(&r), 0)
        XCTAssertEqual(r.restoredCount, 0)
        XCTAssertEqual(f.labels, segmented, "off: the segmentation's decision stands")
    }

    func testDisabledThroughTheSegmentation() {
        // the segmentation cuts the torso from the head where depth (6 cm)
        // and colour (skin to a blue shirt) step at once; the restore pass
        // puts it back, and switched off it leaves the cut as it is
        let d = Self.person()
        let video = TestRGB(width: 2 * Self.W, height: 2 * Self.H, fill: RGBA(200, 200, 200))
        for y in 64..<180 { for x in 110..<210 { video[x, y] = RGBA(40, 80, 170) } }
        for y in 20..<64 { for x in 140..<180 { video[x, y] = RGBA(225, 180, 150) } }
        func segment(enabled: Bool) -> (out: [DepthLabel], restored: Int, kept: Int) {
            var s = SubjectSegmentation()
            s.restore.enabled = enabled
            let v = s.apply(depth: d.view, scale: 0.001, cutoff: 1.25, video: video.view) { seeds, w, h in
                SubjectSegmentation.markBox(&seeds, width: w, height: h, u0: 74.0 / 160, v0: 14.0 / 90, u1: 86.0 / 160, v1: 28.0 / 90)
            }
            XCTAssertTrue(s.segmented)
            var out = [DepthLabel](repeating: .unknown, count: Self.W * Self.H)
            for y in 0..<Self.H { for x in 0..<Self.W { out[y * Self.W + x] = v.at(x, y) } }
            return (out, s.restore.restoredCount, s.keptCount)
        }
        let on = segment(enabled: true), off = segment(enabled: false)
        var torsoOff = 0, torsoOn = 0, otherDiffs = 0
        for y in 0..<Self.H {
            for x in 0..<Self.W {
                let i = y * Self.W + x
                if Self.inTorso(x, y) {
                    if off.out[i] == .background { torsoOff += 1 }
                    if on.out[i] == .subject { torsoOn += 1 }
                }
                if on.out[i] != off.out[i] {
                    if off.out[i] != .background || on.out[i] != .subject { otherDiffs += 1 }
                }
            }
        }
        XCTAssertGreaterThan(torsoOff, 2000, "off: the torso stays cut")
        XCTAssertEqual(off.restored, 0)
        XCTAssertEqual(torsoOn, 50 * 58, "on: the whole torso is back")
        XCTAssertEqual(on.restored, torsoOff)
        XCTAssertEqual(on.kept, off.kept + on.restored)
        XCTAssertEqual(otherDiffs, 0, "the pass only writes left-out pixels' depths back")
    }
}

final class SubjectRestoreMoverSeedTests: XCTestCase {
    func testMoverSeedsDoNotMoveTheSubjectsSeed() {
        // the face seeds a subject at 1.0 m whose torso the segmentation cut;
        // another person who walked in at 0.6 m is seeded too (value 2)
        let d = TestDepth(width: 160, height: 90, fill: 3000)
        d.fill(x0: 55, y0: 32, x1: 105, y1: 90, 1060)
        d.fill(x0: 70, y0: 10, x1: 90, y1: 32, 1000)
        d.fill(x0: 5, y0: 20, x1: 40, y1: 90, 600)
        let w = 160, h = 90
        var out = [UInt16](repeating: 0, count: w * h), seeds = [UInt8](repeating: 0, count: w * h)
        var labels = [UInt8](repeating: 0, count: w * h)
        for y in 0..<h { for x in 0..<w {
            let v = d[x, y], head = x >= 70 && x < 90 && y >= 10 && y < 32, mover = v == 600
            out[y * w + x] = v
            labels[y * w + x] = v > 1250 ? DepthLabel.background.rawValue
                : !head && !mover ? SubjectSegmentation.leftOut : DepthLabel.subject.rawValue
            if x >= 74 && x < 86 && y >= 14 && y < 28 { seeds[y * w + x] = 1 }
            if mover { seeds[y * w + x] = 2 }
        } }
        let floor = [UInt8](repeating: 0, count: w * h)
        var ends = [Int32](repeating: 0, count: 2 * h)
        for y in 0..<h { ends[2 * y + 1] = Int32(w - 1) }
        var r = SubjectRestore()
        let n = r.apply(original: d.view, out: &out, labels: &labels, seeds: seeds, floorMark: floor, ends: ends, limit: 1250, scale: 0.001)
        XCTAssertEqual(n, 50 * 58, "the torso under the face comes back")
    }
}
