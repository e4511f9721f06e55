// SPDX-License-Identifier: LGPL-2.1-or-later
import XCTest
@_spi(Bench) @testable import DepthMatteKit
import DMContract

/// Step 3's colour detail (`MatteRefiner.Tuning.colourDetail`) and 2.2's
/// occlusion-shadow fill (`MatteRefiner.Tuning.shadowFill`).
final class ColourDetailTests: XCTestCase {
    static let fg = RGBA(200, 40, 40), bg = RGBA(60, 160, 90)

    /// A vertical colour edge at video column `edge` (fractional: the pixel
    /// it crosses is the coverage-weighted mix), the subject (0.9 m) left of
    /// it in a depth map a quarter of the video's size whose edge is the
    /// nearest depth column (the depth grid cannot say where in its 4 video
    /// pixels the edge is). Returns the output matte rows (byte values / 255).
    static func keyedEdge(at edge: Double, detail: Bool, layout: Layout = .bgra, threads: Int = 1) -> [[Float]] {
        let vw = 320, vh = 180, dw = 80, dh = 45
        let v = TestRGB(width: vw, height: vh, layout: layout)
        for y in 0..<vh {
            for x in 0..<vw {
                let c = min(max(edge - Double(x), 0), 1)  // coverage of pixel x by the subject
                func mix(_ a: UInt8, _ b: UInt8) -> UInt8 { UInt8((Double(a) * c + Double(b) * (1 - c)).rounded()) }
                v[x, y] = RGBA(mix(fg.r, bg.r), mix(fg.g, bg.g), mix(fg.b, bg.b))
            }
        }
        let d = TestDepth(width: dw, height: dh, fill: 3000)
        d.fill(x0: 0, y0: 0, x1: Int((edge / 4).rounded()), y1: dh, 900)
        let m = DepthMatter()
        m.refiner.tuning.colourDetail = detail
        var s = DMDepthMatteSettings.defaults
        s.mode = KeyingMode.fixed.rawValue; s.cutoff = 1.5; s.output = ElementOutput.matte.rawValue; s.n_threads = UInt32(threads)
        let out = TestRGB(width: vw, height: vh, layout: layout)
        _ = m.process(plan: MattePlan(s), video: v.view, depth: d.view, background: nil, output: out.view, faces: [])
        return (0..<vh).map { y in (0..<vw).map { x in Float(out[x, y].r) / 255 } }
    }

    /// Σ α along a row: where a step edge is (its sub-pixel position).
    static func position(_ row: [Float]) -> Double { row.reduce(0) { $0 + Double($1) } }
    /// Pixels of a row strictly between 0.05 and 0.95: the edge's width.
    static func ramp(_ row: [Float]) -> Int { row.filter { $0 > 0.05 && $0 < 0.95 }.count }

    func testEdgeIsPlacedWithinAPixelAndSharpAtVideoResolution() {
        var worst = 0.0, previous = -1.0
        for step in 0..<9 {
            let edge = 150 + 0.25 * Double(step)
            let rows = Self.keyedEdge(at: edge, detail: true)
            for y in [20, 90, 160] {
                let p = Self.position(rows[y])
                worst = max(worst, abs(p - edge))
                XCTAssertLessThanOrEqual(Self.ramp(rows[y]), 2, "edge \(edge) row \(y): \(rows[y][144..<158])")
            }
            // the edge moves with the colour, a quarter pixel per step (no step of
            // the depth grid or the output grid)
            let p = Self.position(rows[90])
            if previous >= 0 { XCTAssertEqual(p - previous, 0.25, accuracy: 0.22, "edge \(edge): it moves on every step") }
            previous = p
        }
        XCTAssertLessThan(worst, 0.5)
    }

    func testWithoutDetailTheEdgeIsTheGridsRamp() {
        // the same edges without step 3's detail: the output grid's ramp (2
        // video pixels a cell) upscaled, 3 or more pixels wide mid-cell, and
        // stuck while the colour edge moves within a cell
        let rows = Self.keyedEdge(at: 150.75, detail: false)
        XCTAssertGreaterThanOrEqual(Self.ramp(rows[90]), 3)
        XCTAssertLessThan(Self.ramp(Self.keyedEdge(at: 150.75, detail: true)[90]), Self.ramp(rows[90]))
        let a = Self.position(Self.keyedEdge(at: 150, detail: false)[90])
        let b = Self.position(Self.keyedEdge(at: 150.25, detail: false)[90])
        XCTAssertEqual(a, b, accuracy: 0.01, "without detail a quarter-pixel move within a saturated cell is lost")
    }

    func testDetailIsTheSameForEveryThreadCountAndLayout() {
        let one = Self.keyedEdge(at: 151.25, detail: true)
        XCTAssertEqual(Self.keyedEdge(at: 151.25, detail: true, threads: 3), one)
        XCTAssertEqual(Self.keyedEdge(at: 151.25, detail: true, layout: .rgb), one)
    }

    func testShadowRunsBetweenSubjectAndBackgroundAreBackground() {
        var filled: [UInt8] = [], spare: [UInt8] = []
        // subject, 8 holes, background: the 2 holes next to the subject are
        // left to the fill (which reaches them from both sides: one each), the
        // rest is the wall the projector missed
        MatteRefiner.fillUnknown(label: [1, 1, 2, 2, 2, 2, 2, 2, 2, 2, 0, 0], filled: &filled, spare: &spare,
                                 width: 12, height: 1, passes: 16, shadows: true, shadowMargin: 2)
        XCTAssertEqual(Array(filled.prefix(12)), [1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0])
        // mirrored (a projector on the other side)
        MatteRefiner.fillUnknown(label: [0, 0, 2, 2, 2, 2, 2, 1], filled: &filled, spare: &spare,
                                 width: 8, height: 1, passes: 16, shadows: true, shadowMargin: 2)
        XCTAssertEqual(Array(filled.prefix(8)), [0, 0, 0, 0, 0, 0, 1, 1])
        // without the rule the run is split, the subject winning the tie
        MatteRefiner.fillUnknown(label: [1, 1, 2, 2, 2, 2, 2, 2, 2, 2, 0, 0], filled: &filled, spare: &spare,
                                 width: 12, height: 1, passes: 16)
        XCTAssertEqual(Array(filled.prefix(12)), [1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0])
        // holes inside the subject (hair, a dark shirt) and at the border stay the fill's
        MatteRefiner.fillUnknown(label: [1, 2, 2, 2, 1, 2, 2], filled: &filled, spare: &spare,
                                 width: 7, height: 1, passes: 16, shadows: true, shadowMargin: 0)
        XCTAssertEqual(Array(filled.prefix(7)), [1, 1, 1, 1, 1, 1, 1])
    }
}

/// Subject-only keying with no subject found (empty frames stay empty).
final class EmptySceneTests: XCTestCase {
    func run(_ mode: KeyingMode, subjectOnly: Bool, strategy: LockStrategy = .robust) -> (MatteResult, Int) {
        // a wall 2 m away filling the frame, nearer than the fallback cutoff (4 m)
        let v = TestRGB(width: 160, height: 90), d = TestDepth(width: 80, height: 45, fill: 2000)
        for y in 0..<90 { for x in 0..<160 { v[x, y] = RGBA(UInt8(x), 120, UInt8(y)) } }
        let m = DepthMatter()
        var s = DMDepthMatteSettings.defaults
        s.mode = mode.rawValue; s.cutoff = 4.0; s.subject_only = subjectOnly ? 1 : 0; s.output = ElementOutput.matte.rawValue; s.lock_strategy = strategy.rawValue
        let out = TestRGB(width: 160, height: 90)
        var r = MatteResult()
        for _ in 0..<3 { r = m.process(plan: MattePlan(s), video: v.view, depth: d.view, background: nil, output: out.view, faces: []) }
        var keyed = 0
        for y in 0..<90 { for x in 0..<160 where out[x, y].r > 127 { keyed += 1 } }
        return (r, keyed)
    }

    func testNoSubjectKeysNothing() {
        let (r, keyed) = run(.nearest, subjectOnly: true)
        XCTAssertEqual(r.lockSource, .fixed, "a wall filling the frame is not a body")
        XCTAssertEqual(keyed, 0)
        XCTAssertEqual(run(.face, subjectOnly: true).1, 0)
    }

    func testTheSlabAndTheOriginalStrategyKeepTheFallbackCutoff() {
        XCTAssertEqual(run(.nearest, subjectOnly: false).1, 160 * 90)
        XCTAssertEqual(run(.face, subjectOnly: true, strategy: .original).1, 160 * 90)
        XCTAssertEqual(run(.fixed, subjectOnly: true).1, 160 * 90)
    }
}
