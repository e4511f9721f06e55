// SPDX-License-Identifier: LGPL-2.1-or-later
import XCTest
@_spi(Bench) @testable import DepthMatteKit

/// refine=guided (MatteRefiner): hole decision, edge placement from colour,
/// temporal smoothing.
final class RefineTests: XCTestCase {
    static let fgColor = RGBA(200, 40, 40), bgColor = RGBA(60, 160, 90)

    func testUnknownPixelsTakeTheNearestValidLabelForegroundWinningTies() {
        // one row: fg fg ? ? ? bg bg -> the middle hole pixel is equidistant: fg
        var filled: [UInt8] = [], spare: [UInt8] = []
        MatteRefiner.fillUnknown(label: [1, 1, 2, 2, 2, 0, 0], filled: &filled, spare: &spare, width: 7, height: 1, passes: 16)
        XCTAssertEqual(Array(filled.prefix(7)), [1, 1, 1, 1, 0, 0, 0])
        // a hole inside the foreground is foreground
        let label: [UInt8] = [1, 1, 1, 1, 2, 1, 1, 1, 1]
        MatteRefiner.fillUnknown(label: label, filled: &filled, spare: &spare, width: 3, height: 3, passes: 16)
        XCTAssertEqual(filled[4], 1)
        // unknown beyond the pass limit counts as background
        MatteRefiner.fillUnknown(label: [1, 2, 2, 2, 2], filled: &filled, spare: &spare, width: 5, height: 1, passes: 2)
        XCTAssertEqual(Array(filled.prefix(5)), [1, 1, 1, 0, 0])
        // all unknown: background
        MatteRefiner.fillUnknown(label: [2, 2, 2], filled: &filled, spare: &spare, width: 3, height: 1, passes: 16)
        XCTAssertEqual(Array(filled.prefix(3)), [0, 0, 0])
    }

    func testShadowRunsBecomeBackgroundReadingsBeyondTheMargin() {
        // fg ? ? ? ? ? ? bg: a shadow run; the margin (2) next to the subject
        // stays unknown in the label (the fill, then the colour, decides it),
        // the rest is a background reading
        var label: [UInt8] = [1, 2, 2, 2, 2, 2, 2, 0, 1, 2, 2, 1]
        var filled = [UInt8](repeating: 0, count: 12), spare = filled
        label.withUnsafeMutableBufferPointer { l in
        filled.withUnsafeMutableBufferPointer { f in
        spare.withUnsafeMutableBufferPointer { s in
            MatteRefiner.fillUnknown(labelPlane: l.baseAddress!, filledPlane: f.baseAddress!, sparePlane: s.baseAddress!,
                                     width: 12, height: 1, passes: 16, shadows: true, shadowMargin: 2)
            MatteRefiner.shadowsAsReadings(labelPlane: l.baseAddress!, width: 12, height: 1, shadowMargin: 2)
        }}}
        XCTAssertEqual(filled, [1, 1, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1])
        // (a run between two subject readings stays a hole)
        XCTAssertEqual(label, [1, 2, 2, 0, 0, 0, 0, 0, 1, 2, 2, 1])
    }

    func testShadowsOnOneSideOnlyLeaveTheOtherSidesHolesToTheFill() {
        // per row: background, 5 holes, subject (a shadow on its left), 5
        // holes, background (holes right of it: a dark part of the subject)
        let row: [UInt8] = [0, 2, 2, 2, 2, 2, 1, 1, 2, 2, 2, 2, 2, 0]
        let label = Array(repeating: row, count: 4).flatMap { $0 }
        let runs = label.withUnsafeBufferPointer { MatteRefiner.shadowRuns(labelPlane: $0.baseAddress!, width: 14, height: 4) }
        XCTAssertEqual(runs.left, 4)
        XCTAssertEqual(runs.right, 4)
        XCTAssertEqual(runs.leftDirect, 0)
        XCTAssertEqual(runs.rightDirect, 0)
        func runs1(_ r: [UInt8]) -> [Int] {
            let c = r.withUnsafeBufferPointer { MatteRefiner.shadowRuns(labelPlane: $0.baseAddress!, width: r.count, height: 1) }
            return [c.left, c.right, c.leftDirect, c.rightDirect]
        }
        XCTAssertEqual(runs1([0, 0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0]), [0, 0, 1, 1], "steps to the wall directly")
        XCTAssertEqual(runs1([0, 2, 2, 2, 0, 1, 1, 0, 0, 0, 0, 0]), [1, 0, 0, 1], "holes beyond a flying pixel")
        XCTAssertEqual(runs1([0, 0, 0, 0, 1, 2, 1, 0, 0, 0, 0, 0]), [0, 0, 1, 1], "a hole inside the subject")
        XCTAssertEqual(runs1([2, 2, 1, 1, 2, 2, 2, 2, 2, 2, 2, 0]), [0, 1, 0, 0], "the picture's edge; a run beyond reach")
        var filled: [UInt8] = [], spare: [UInt8] = []
        MatteRefiner.fillUnknown(label: label, filled: &filled, spare: &spare, width: 14, height: 4, passes: 16,
                                 shadows: true, shadowMargin: 1, shadowSides: .left)
        // left: the shadow, background but the margin; right: the fill's split
        XCTAssertEqual(Array(filled.prefix(14)), [0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 0, 0, 0])
        MatteRefiner.fillUnknown(label: label, filled: &filled, spare: &spare, width: 14, height: 4, passes: 16,
                                 shadows: true, shadowMargin: 1, shadowSides: .right)
        XCTAssertEqual(Array(filled.prefix(14)), [0, 0, 0, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0])
        MatteRefiner.fillUnknown(label: label, filled: &filled, spare: &spare, width: 14, height: 4, passes: 16,
                                 shadows: true, shadowMargin: 1)
        XCTAssertEqual(Array(filled.prefix(14)), [0, 0, 0, 0, 0, 1, 1, 1, 1, 0, 0, 0, 0, 0])
    }

    func testAutoShadowSideFollowsWhereTheHolesAre() {
        // a subject with a 3-pixel shadow on its left on every row, and a
        // run of holes on its right on a quarter of the rows (the rest step
        // to the wall directly): the side is the left; mirrored, the right;
        // holes on both sides on every row: both
        let w = 40, h = 40
        func scene(leftEvery: Int, rightEvery: Int) -> TestDepth {
            let d = TestDepth(width: w, height: h, fill: 3000)
            for y in 0..<h {
                d.fill(x0: 15, y0: y, x1: 25, y1: y + 1, 1000)
                if y % leftEvery == 0 { d.fill(x0: 12, y0: y, x1: 15, y1: y + 1, 0) }
                if y % rightEvery == 0 { d.fill(x0: 25, y0: y, x1: 30, y1: y + 1, 0) }
            }
            return d
        }
        let v = TestRGB(width: 2 * w, height: 2 * h, fill: RGBA(120, 120, 120))
        func side(_ d: TestDepth) -> ShadowSides {
            var r = MatteRefiner(), m = FloatPlane()
            for _ in 0..<3 { r.refine(depth: d.view, scale: 0.001, cutoff: 1.5, video: v.view, into: &m) }
            return r.lastShadowSides
        }
        XCTAssertEqual(side(scene(leftEvery: 1, rightEvery: 4)), .left)
        XCTAssertEqual(side(scene(leftEvery: 4, rightEvery: 1)), .right)
        XCTAssertEqual(side(scene(leftEvery: 1, rightEvery: 1)), .both)
        var fixed = MatteRefiner(), m = FloatPlane()
        fixed.tuning.shadowSide = .both
        fixed.refine(depth: scene(leftEvery: 1, rightEvery: 4).view, scale: 0.001, cutoff: 1.5, video: v.view, into: &m)
        XCTAssertEqual(fixed.lastShadowSides, .both)
    }

    /// Depth 40x30 behind video 80x60: the subject (0.9 m) covers depth
    /// columns x < depthEdge, the wall (3 m) the rest; the colour edge is at
    /// video column `colorEdge`.
    static func stepScene(depthEdge: Int, colorEdge: Int, holes: ClosedRange<Int>? = nil) -> (TestDepth, TestRGB) {
        let d = TestDepth(width: 40, height: 30, fill: 3000)
        d.fill(x0: 0, y0: 0, x1: depthEdge, y1: 30, 900)
        if let holes { d.fill(x0: holes.lowerBound, y0: 0, x1: holes.upperBound + 1, y1: 30, 0) }
        let v = TestRGB(width: 80, height: 60)
        for y in 0..<60 { for x in 0..<80 { v[x, y] = x < colorEdge ? fgColor : bgColor } }
        return (d, v)
    }

    /// `stepScene` through a fresh refiner (one thread, one frame).
    static func refinedStep(depthEdge: Int, colorEdge: Int, holes: ClosedRange<Int>? = nil) -> FloatPlane {
        let (d, v) = stepScene(depthEdge: depthEdge, colorEdge: colorEdge, holes: holes)
        var r = MatteRefiner()
        var m = FloatPlane()
        r.refine(depth: d.view, scale: 0.001, cutoff: 1.5, video: v.view, into: &m)
        return m
    }

    func assertEdge(_ m: FloatPlane, at edge: Int, _ msg: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(m.width, 80, file: file, line: line)
        for y in [0, 15, 29, 30, 59] {
            for x in 0..<80 {
                let v = m[x, y]
                if x < edge - 2 { XCTAssertEqual(v, 1, accuracy: 0.02, "\(msg) (\(x),\(y))", file: file, line: line) }
                if x >= edge + 2 { XCTAssertEqual(v, 0, accuracy: 0.02, "\(msg) (\(x),\(y))", file: file, line: line) }
            }
            XCTAssertGreaterThan(m[edge - 1, y], 0.5, "\(msg) y \(y)", file: file, line: line)
            XCTAssertLessThan(m[edge, y], 0.5, "\(msg) y \(y)", file: file, line: line)
        }
    }

    func testEdgeFollowsTheColourEdgeThroughMisregistration() {
        // depth edge 2 depth px (4 video px) right of, or left of, the colour
        // edge, 1 px left of it, or on it (2 px left: the background readings
        // 2 px from the subject's label have the subject's colour, so
        // `backgroundBand` does not trust them)
        for (depthEdge, colorEdge) in [(20, 36), (18, 40), (19, 40), (20, 40)] {
            assertEdge(Self.refinedStep(depthEdge: depthEdge, colorEdge: colorEdge), at: colorEdge, "depth edge \(depthEdge)")
        }
    }

    func testHolesBesideTheSubjectAreDecidedByColour() {
        // occlusion shadow: depth columns 16...21 unknown, the colour edge at depth 18 (video 36)
        assertEdge(Self.refinedStep(depthEdge: 18, colorEdge: 36, holes: 16...21), at: 36, "shadow")
        // the original chain treats the holes as background: its edge is at depth 16 (video 32)
    }

    /// Errors (|m - ideal| summed over the frame) of a mid-grey subject in
    /// front of a wall striped light and dark, whose mean colour is the
    /// subject's own; the depth edge lies 2 depth px into the wall.
    static func stripedWallError(decisionRadius: Int) -> (error: Float, wrong: Int) {
        let d = TestDepth(width: 40, height: 30, fill: 3000)
        d.fill(x0: 0, y0: 0, x1: 22, y1: 30, 900)
        let v = TestRGB(width: 80, height: 60)
        let subject = RGBA(128, 128, 128), light = RGBA(235, 235, 235), dark = RGBA(21, 21, 21)
        for y in 0..<60 { for x in 0..<80 { v[x, y] = x < 40 ? subject : ((x - 40) / 3 % 2 == 0 ? light : dark) } }
        var r = MatteRefiner()
        r.tuning.decisionRadius = decisionRadius
        var m = FloatPlane()
        r.refine(depth: d.view, scale: 0.001, cutoff: 1.5, video: v.view, into: &m)
        var error: Float = 0, wrong = 0
        for y in 0..<60 {
            for x in 0..<80 {
                let ideal: Float = x < 40 ? 1 : 0
                error += abs(m[x, y] - ideal)
                if (m[x, y] > 0.5) != (ideal > 0.5) { wrong += 1 }
            }
        }
        return (error, wrong)
    }

    func testUntrustedPixelsAreDecidedByTheNearestTrustedColourNotTheMean() {
        let nearest = Self.stripedWallError(decisionRadius: 6)
        let means = Self.stripedWallError(decisionRadius: 0)
        // the two-mean model calls the grey subject "wall" or the stripes
        // "subject"; the nearest trusted colour keeps the edge on the colour edge
        XCTAssertEqual(nearest.wrong, 0, "nearest colour: \(nearest)")
        XCTAssertGreaterThan(means.wrong, 60, "the scene must defeat the two-mean model: \(means)")
        XCTAssertLessThan(nearest.error, means.error, "nearest \(nearest) vs means \(means)")
    }

    /// The matte on a 1-px dark line inside the subject, 6 video px from its
    /// edge (close enough that the colour model has a say there).
    static func darkLineMatte(rangeClamp: Bool) -> (line: Float, beside: Float) {
        let (d, v) = stepScene(depthEdge: 20, colorEdge: 40)
        for y in 0..<60 { v[33, y] = RGBA(20, 20, 30) }
        // the wall has a dark stripe too, so "dark" looks like background
        for y in 0..<60 { for x in 52..<56 { v[x, y] = RGBA(20, 20, 30) } }
        var r = MatteRefiner()
        r.tuning.rangeClamp = rangeClamp
        var m = FloatPlane()
        r.refine(depth: d.view, scale: 0.001, cutoff: 1.5, video: v.view, into: &m)
        return (m[33, 30], m[31, 30])
    }

    func testThinDarkLinesInsideTheSubjectStayForeground() {
        let clamped = Self.darkLineMatte(rangeClamp: true)
        let free = Self.darkLineMatte(rangeClamp: false)
        XCTAssertGreaterThan(clamped.line, 0.9, "with the range clamp: \(clamped)")
        XCTAssertGreaterThan(clamped.beside, 0.9)
        // the scene must make the unclamped linear model dip on the line
        XCTAssertLessThan(free.line, clamped.line - 0.1, "without: \(free), with: \(clamped)")
    }

    func testWideOcclusionShadowsAreDecidedByColourToo() {
        // a 14-pixel occlusion shadow on the wall beside the subject (depth
        // columns 22...35: wall the projector cannot see; the subject is
        // x < 22, colour edge at video 44). The hole fill alone makes columns
        // 22...28 subject, beyond decisionRadius of any trusted wall pixel,
        // and they counted as interior: a 14-video-px strip of wall keyed in
        // beside the subject (a halo). Now holes are never interior and the
        // widened search decides them by colour.
        assertEdge(Self.refinedStep(depthEdge: 22, colorEdge: 44, holes: 22...35), at: 44, "wide shadow")
    }

    /// The subject (depth x < 22) with a flying pixel on its edge (depth
    /// column 22, 1.9 m: between subject and wall, so "background"), its
    /// occlusion shadow beyond (columns 23...35 unknown) and the wall; the
    /// colour subject reaches 3 depth px past its depth edge (video 50).
    static func flyingPixelMatte(matchWidening: Bool, fitWeighting: Bool = true, edgeContrast: Bool = true) -> FloatPlane {
        let (d, v) = stepScene(depthEdge: 22, colorEdge: 50, holes: 23...35)
        d.fill(x0: 22, y0: 0, x1: 23, y1: 30, 1900)
        var r = MatteRefiner()
        r.tuning.matchWidening = matchWidening
        r.tuning.fitWeighting = fitWeighting
        if !edgeContrast { r.tuning.edgeContrast = 0 }
        var m = FloatPlane()
        r.refine(depth: d.view, scale: 0.001, cutoff: 1.5, video: v.view, into: &m)
        return m
    }

    func testSubjectColouredPixelsBesideAFlyingPixelAreNotKeyedOut() {
        // The flying pixel makes the hole fill call the near part of the
        // shadow background, and no trusted wall pixel is within
        // decisionRadius of it: were the fill to decide with only subject
        // colours in reach, subject-coloured pixels (depth 22...24) would be
        // keyed out. Their colour matches the nearest trusted subject colour
        // exactly, so the search goes on to the wall colours, which it does
        // not match at all.
        assertEdge(Self.flyingPixelMatte(matchWidening: true), at: 50, "flying pixel")
        // the scene must defeat the fill-only fallback
        // (the code before matchWidening, fitWeighting and edgeContrast; the
        // fit weighting on its own greys the subject beside it less: α 0.905
        // at video 42)
        let old = Self.flyingPixelMatte(matchWidening: false, fitWeighting: false, edgeContrast: false)
        // (measured: α 0.93 ... 0.41 over video 38...49, subject all along)
        XCTAssertLessThan(old[49, 30], 0.5, "without the widening the fill keys the subject out")
        XCTAssertLessThan(old[42, 30], 0.9, "... and greys the subject beside it")
    }

    /// A thin skin-coloured subject (a finger: depth columns 16 ..< 16 + width,
    /// video 32 ..< 32 + 2·width) in front of a wall that is beige on its left and
    /// pink-brown on its right; skin is nearly the mean of the two wall
    /// colours, so no linear colour model of a window holding all three can
    /// give skin 1 and both wall colours 0.
    static func fingerMatte(fitWeighting: Bool, width fw: Int, edgeKeepSide: Bool = true) -> FloatPlane {
        let d = TestDepth(width: 40, height: 30, fill: 3000)
        d.fill(x0: 16, y0: 0, x1: 16 + fw, y1: 30, 900)
        let v = TestRGB(width: 80, height: 60)
        let skin = RGBA(217, 171, 142), beige = RGBA(224, 214, 182), poster = RGBA(185, 108, 102)
        for y in 0..<60 { for x in 0..<80 { v[x, y] = x < 32 ? beige : (x < 32 + 2 * fw ? skin : poster) } }
        var r = MatteRefiner()
        r.tuning.fitWeighting = fitWeighting
        r.tuning.edgeKeepSide = edgeKeepSide
        var m = FloatPlane()
        r.refine(depth: d.view, scale: 0.001, cutoff: 1.5, video: v.view, into: &m)
        return m
    }

    func testAThinSubjectBetweenTwoWallColoursIsNotKeyedOut() {
        // a finger 2 depth px (4 video px) wide: every window that covers it
        // holds both wall colours too, and with the plain box mean of the
        // coefficients those windows pull the finger to the wall colours'
        // mean. Weighted by how much of its label variance each window's
        // colour model explains, the windows that cannot separate skin from
        // the two walls count little.
        let m = Self.fingerMatte(fitWeighting: true, width: 2)
        let old = Self.fingerMatte(fitWeighting: false, width: 2)
        for y in [0, 15, 30, 59] {
            for x in 32..<36 {
                XCTAssertGreaterThan(m[x, y], 0.5, "finger (\(x),\(y))")
                // the scene must defeat the plain mean (measured: 0.46 ... 0.49)
                XCTAssertLessThan(old[x, y], 0.5, "plain box mean (\(x),\(y))")
            }
            for x in Array(0..<31) + Array(37..<80) { XCTAssertLessThan(m[x, y], 0.05, "wall (\(x),\(y))") }
        }
        // a wider finger is kept either way, and more solidly with the weighting
        let wide = Self.fingerMatte(fitWeighting: true, width: 3), wideOld = Self.fingerMatte(fitWeighting: false, width: 3)
        for x in 33..<37 { XCTAssertGreaterThan(wide[x, 30], wideOld[x, 30] + 0.05, "x \(x)") }
    }

    func testTemporalSmoothingOfAConstantInputIsConstant() {
        let (d, v) = Self.stepScene(depthEdge: 20, colorEdge: 39)
        var r = MatteRefiner()
        var first = FloatPlane(), m = FloatPlane()
        r.refine(depth: d.view, scale: 0.001, cutoff: 1.5, video: v.view, into: &first)
        for _ in 0..<5 {
            r.refine(depth: d.view, scale: 0.001, cutoff: 1.5, video: v.view, into: &m)
            XCTAssertEqual(Array(m.pixels.prefix(80 * 60)), Array(first.pixels.prefix(80 * 60)))
        }
    }

    func testLargeChangesAreFollowedAtOnce() {
        // the subject leaves: no ghost of it on the next frame
        let (d, v) = Self.stepScene(depthEdge: 20, colorEdge: 40)
        let (d2, v2) = Self.stepScene(depthEdge: 0, colorEdge: 0)
        var r = MatteRefiner()
        var m = FloatPlane()
        r.refine(depth: d.view, scale: 0.001, cutoff: 1.5, video: v.view, into: &m)
        r.refine(depth: d2.view, scale: 0.001, cutoff: 1.5, video: v2.view, into: &m)
        // (a faint residue of an already faint edge may take a few frames)
        XCTAssertLessThan(m.pixels.prefix(80 * 60).max() ?? 1, 0.05)
    }

    func testSmallFlickerIsDamped() {
        // a still subject whose edge pixel's matte alternates by ±0.1 moves less than that
        var r = MatteRefiner()
        XCTAssertLessThan(r.tuning.temporalBase + r.tuning.temporalGain * 0.1, 1)
        r.reset()
    }

    /// The synthetic scene with every depth artefact at `time`, into `video` and `depth`.
    static func render(_ time: Double, video: TestRGB, depth: TestDepth) {
        var s = SceneSettings(.defaults)
        s.noise = true; s.holes = true; s.flyingPixels = true; s.misregistration = 2
        let scene = RGBDScene(settings: s, time: time)
        _ = scene.renderVideo(video.view)
        scene.renderDepth(base: UnsafeMutableRawPointer(depth.bytes), width: depth.width, height: depth.height,
                          stride: depth.stride)
    }

    func testThreadsGiveBitIdenticalMattes() {
        // odd sizes (uneven bands, fewer rows than threads · 8), the hand
        // moving over several frames (the temporal state is per band too)
        let pool = WorkerPool()
        for (vw, vh, dw, dh) in [(640, 360, 320, 180), (333, 201, 160, 90), (97, 61, 50, 31), (40, 6, 20, 3)] {
            let v = TestRGB(width: vw, height: vh, layout: .bgra), d = TestDepth(width: dw, height: dh)
            var one = MatteRefiner(), two = MatteRefiner(), three = MatteRefiner()
            var a = FloatPlane(), b = FloatPlane(), c = FloatPlane()
            var soft = 0, ones = 0, zeros = 0
            for f in 0..<4 {
                Self.render(5.5 + 0.25 * Double(f), video: v, depth: d)
                one.refine(depth: d.view, scale: 0.001, cutoff: 1.4, video: v.view, into: &a)
                two.refine(depth: d.view, scale: 0.001, cutoff: 1.4, video: v.view, pool: pool, threads: 2, into: &b)
                three.refine(depth: d.view, scale: 0.001, cutoff: 1.4, video: v.view, pool: pool, threads: 3, into: &c)
                XCTAssertEqual(a.width, b.width); XCTAssertEqual(a.height, b.height)
                XCTAssertEqual(a.width, c.width); XCTAssertEqual(a.height, c.height)
                var diff2 = 0, diff3 = 0
                for i in 0..<(a.width * a.height) {
                    let m = a.pixels[i]
                    if m.bitPattern != b.pixels[i].bitPattern { diff2 += 1 }
                    if m.bitPattern != c.pixels[i].bitPattern { diff3 += 1 }
                    if m == 0 { zeros += 1 } else if m == 1 { ones += 1 } else { soft += 1 }
                }
                XCTAssertEqual(diff2, 0, "2 threads, \(vw)x\(vh), depth \(dw)x\(dh), frame \(f)")
                XCTAssertEqual(diff3, 0, "3 threads, \(vw)x\(vh), depth \(dw)x\(dh), frame \(f)")
            }
            // the comparison means something only if the matte is not trivial
            if dh >= 31 {
                XCTAssertGreaterThan(soft, 0, "\(vw)x\(vh)"); XCTAssertGreaterThan(ones, 0); XCTAssertGreaterThan(zeros, 0)
            }
        }
    }

    func testThreadedRefineFollowsTheColourEdge() {
        // the threaded path on its own must give the right matte, not only the
        // same matte as one thread (both could be equally wrong)
        let pool = WorkerPool()
        for (depthEdge, colorEdge) in [(20, 36), (18, 40)] {
            let (d, v) = Self.stepScene(depthEdge: depthEdge, colorEdge: colorEdge)
            var r = MatteRefiner()
            var m = FloatPlane()
            r.refine(depth: d.view, scale: 0.001, cutoff: 1.5, video: v.view, pool: pool, threads: 2, into: &m)
            assertEdge(m, at: colorEdge, "2 threads, depth edge \(depthEdge)")
        }
    }

    func testGuideColumnSumsMatchPixelByPixel() {
        // the 4-byte path (column sums, eight pixels at a time) against the
        // generic byte-by-byte one: uneven cells, odd widths, every layout's
        // channel order, padded rows, white (the largest sums)
        var rnd = TestRandom(seed: 7)
        // (cells three columns wide, four per step: (99, 30, 33, 10); some
        // rows of them among wider cells: (100, 9, 33, 3); 3 x 85 white cells,
        // the largest sums the 16-bit lanes take: (30, 850, 10, 10))
        // (and DMKernels' AVX2 row kernel: eight cells a step with a tail, a
        // 4K row, 1 x 1, a picture narrower than eight columns; cells two
        // columns wide as 720p onto 640: (1280, 6, 640, 3), with a tail
        // (38, 8, 19, 4), 2 x 128 white cells (20, 1280, 10, 10))
        for (vw, vh, gw, gh) in [(97, 61, 40, 30), (19, 7, 19, 7), (640, 360, 100, 60), (33, 600, 5, 2),
                                 (99, 30, 33, 10), (100, 9, 33, 3), (30, 850, 10, 10),
                                 (1280, 6, 640, 3), (38, 8, 19, 4), (20, 1280, 10, 10),
                                 (1925, 9, 641, 3), (3840, 6, 1280, 2), (1, 1, 1, 1), (5, 4, 1, 1), (75, 12, 25, 4)] {
            for layout in [Layout.bgra, .argb, .rgbx] {
                let v = TestRGB(width: vw, height: vh, layout: layout, padding: 5)
                for y in 0..<vh { for x in 0..<vw {
                    v[x, y] = vh >= 600 ? RGBA(255, 255, 255) : RGBA(UInt8(rnd.int(0...255)), UInt8(rnd.int(0...255)), UInt8(rnd.int(0...255)))
                } }
                var cols: [Int32] = [], rows: [Int32] = [], key = (0, 0, 0, 0)
                MatteRefiner.gridRanges(v.view, width: gw, height: gh, columns: &cols, rows: &rows, key: &key)
                let gn = gw * gh + 3
                for avx2 in [false, true] where !avx2 || kernelsHaveAVX2 {
                var a = [Float](repeating: -1, count: 3 * gn), b = a
                var sums = [UInt32](repeating: 0, count: 2 * vw)
                cols.withUnsafeBufferPointer { cx in rows.withUnsafeBufferPointer { ry in
                    a.withUnsafeMutableBufferPointer { A in b.withUnsafeMutableBufferPointer { B in
                        sums.withUnsafeMutableBufferPointer { S in
                            MatteRefiner.areaRGB(v.view, width: gw, height: gh, gridRows: 0..<gh, columns: cx.baseAddress!,
                                                 rows: ry.baseAddress!, into: A.baseAddress!, planeStride: gn)
                            MatteRefiner.areaRGB(v.view, width: gw, height: gh, gridRows: 0..<gh, columns: cx.baseAddress!,
                                                 rows: ry.baseAddress!, into: B.baseAddress!, planeStride: gn,
                                                 columnSums: S.baseAddress!, avx2: avx2)
                        }
                    }}
                }}
                XCTAssertEqual(a.map(\.bitPattern), b.map(\.bitPattern), "\(vw)x\(vh) -> \(gw)x\(gh) \(layout) avx2 \(avx2)")
                // the first cell's red
                var red = 0
                for y in 0..<Int(rows[1]) { for x in 0..<Int(cols[1]) { red += Int(v[x, y].r) } }
                XCTAssertEqual(a[0], Float(red) / Float(255 * Int(rows[1]) * Int(cols[1])), accuracy: 1e-5, "\(layout): channel order")
                }
            }
        }
    }

    func testBoxMeanOfAConstantIsTheConstant() {
        let p = FloatPlane(width: 7, height: 5, value: 0.25)
        var out = FloatPlane(), tmp = FloatPlane(), sums: [Double] = []
        MatteRefiner.boxMean(p, radius: 3, into: &out, tmp: &tmp, sums: &sums)
        for i in 0..<35 { XCTAssertEqual(out.pixels[i], 0.25, accuracy: 1e-7) }
    }

    /// The mean over the clipped window, against a direct sum, for planes
    /// narrower than the window, as wide as it, and wide enough for the
    /// four-column path (with a tail), and heights below and above 2r + 1.
    func testBoxMeanMatchesTheDirectMeanForAnySize() {
        var seed: UInt32 = 12345
        func next() -> Float { seed = seed &* 1664525 &+ 1013904223; return Float(seed >> 8) / Float(1 << 24) }
        for (w, h) in [(3, 4), (7, 13), (13, 7), (14, 9), (41, 23)] {
            for r in [1, 3, 6] {
                var p = FloatPlane(width: w, height: h, value: 0)
                for i in 0..<(w * h) { p.pixels[i] = next() }
                var out = FloatPlane(), tmp = FloatPlane(), sums: [Double] = []
                MatteRefiner.boxMean(p, radius: r, into: &out, tmp: &tmp, sums: &sums)
                var worst: Float = 0
                for y in 0..<h {
                    for x in 0..<w {
                        var sum = 0.0, count = 0
                        for yy in max(0, y - r)...min(h - 1, y + r) {
                            for xx in max(0, x - r)...min(w - 1, x + r) { sum += Double(p.pixels[yy * w + xx]); count += 1 }
                        }
                        worst = max(worst, abs(out.pixels[y * w + x] - Float(sum / Double(count))))
                    }
                }
                XCTAssertLessThan(worst, 1e-6, "\(w)x\(h) r=\(r)")
            }
        }
    }
}
