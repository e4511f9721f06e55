// SPDX-License-Identifier: LGPL-2.1-or-later
import XCTest
@_spi(Bench) @testable import DepthMatteKit
import DMContract

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// End-to-end tests of `DepthMatter.process` on small synthetic scenes. The
/// subject lock's tests (face lock, no subject) are in DepthMatterTests+Lock.swift.
final class DepthMatterTests: XCTestCase {
    // MARK: scene helpers

    /// A colour that differs per pixel and per channel.
    static func videoColor(_ x: Int, _ y: Int) -> RGBA {
        RGBA(UInt8((x * 37 + y * 11) % 256), UInt8((x * 5 + y * 23 + 9) % 256), UInt8((x * 13 + y * 3 + 50) % 256), 255)
    }

    static func makeVideo(_ w: Int, _ h: Int, layout: Layout = .rgba, padding: Int = 0) -> TestRGB {
        let v = TestRGB(width: w, height: h, layout: layout, padding: padding)
        for y in 0..<h { for x in 0..<w { v[x, y] = videoColor(x, y) } }
        return v
    }

    /// Fixed mode pinned to the original sample's chain, with its blur and
    /// gamma; the background colour only when given.
    static func original(cutoff: Double, blurRadius: Double, gamma: Double,
                         backgroundARGB: UInt32? = nil) -> DMDepthMatteSettings {
        var s = DMDepthMatteSettings.defaults
        s.refine = MatteRefine.original.rawValue
        s.mode = KeyingMode.fixed.rawValue
        s.cutoff = cutoff
        s.blur_radius = blurRadius
        s.gamma = gamma
        if let backgroundARGB { s.background_argb = backgroundARGB }
        return s
    }

    /// Sharp keying (no blur, gamma 1) in fixed mode, green background.
    static func sharp(cutoff: Double = 1.5) -> DMDepthMatteSettings {
        original(cutoff: cutoff, blurRadius: 0, gamma: 1, backgroundARGB: 0xff00_ff00)
    }

    static let green = RGBA(0, 255, 0)

    /// Depth 16x12 at 3 m with a subject rectangle [5, 11) x [3, 11) at 0.9 m.
    /// Behind a 32x24 video, output pixels x in 13...18, y in 9...18 see only
    /// subject taps of the x2 bicubic; x in 0...6 and 25...31 see only wall taps.
    static func rectangleScene(padding: Int = 0) -> TestDepth {
        let d = TestDepth(width: 16, height: 12, padding: padding, fill: 3000)
        d.fill(x0: 5, y0: 3, x1: 11, y1: 11, 900)
        return d
    }

    @discardableResult
    func run(_ m: DepthMatter, _ s: DMDepthMatteSettings, video: TestRGB?, depth: TestDepth?,
             background: TestRGB? = nil, output: TestRGB, faces: [Box] = []) -> MatteResult {
        m.process(plan: MattePlan(s), video: video?.view, depth: depth?.view, background: background?.view,
                  output: output.view, faces: faces)
    }

    /// The whole chain computed naively: mask, 2-D blur, pow, bicubic, bilinear
    /// aspect fill, blend; in Double.
    func reference(_ s: DMDepthMatteSettings, cutoffUnits: Int, video: TestRGB?, depth: TestDepth?,
                   background: TestRGB?, width W: Int, height H: Int) -> [[RGBA]] {
        var matte: [[Double]]
        if let depth {
            let mask = Reference.mask(depth, cutoffUnits: cutoffUnits)
            let blurred = Reference.blur(mask, sigma: s.blur_radius)
            let g = s.gamma == 1 ? blurred : Reference.gamma(blurred, s.gamma)
            matte = Reference.bicubic(g, width: W, height: H)
        } else {
            matte = [[Double]](repeating: [Double](repeating: video == nil ? 0 : 1, count: W), count: H)
        }
        let c = ARGBColor(argb: s.background_argb)
        var out: [[RGBA]] = []
        for y in 0..<H {
            var row: [RGBA] = []
            for x in 0..<W {
                var bg = RGBA(c.r, c.g, c.b)
                if let b = background {
                    let sc = max(Double(W) / Double(b.width), Double(H) / Double(b.height))
                    let sx = min(max((Double(x) + 0.5 - Double(W) / 2) / sc + Double(b.width) / 2 - 0.5, 0), Double(b.width - 1))
                    let sy = min(max((Double(y) + 0.5 - Double(H) / 2) / sc + Double(b.height) / 2 - 0.5, 0), Double(b.height - 1))
                    let x0 = Int(sx), y0 = Int(sy), x1 = min(x0 + 1, b.width - 1), y1 = min(y0 + 1, b.height - 1)
                    let fx = sx - Double(x0), fy = sy - Double(y0)
                    func ch(_ k: KeyPath<RGBA, UInt8>) -> UInt8 {
                        let top = Double(b[x0, y0][keyPath: k]) * (1 - fx) + Double(b[x1, y0][keyPath: k]) * fx
                        let bot = Double(b[x0, y1][keyPath: k]) * (1 - fx) + Double(b[x1, y1][keyPath: k]) * fx
                        return UInt8((top * (1 - fy) + bot * fy + 0.5).rounded(.down))
                    }
                    bg = RGBA(ch(\.r), ch(\.g), ch(\.b))
                }
                let v = video?[x, y] ?? RGBA(0, 0, 0)
                let m = matte[y][x]
                switch MattePlan(s).output {
                case .composite:
                    row.append(RGBA(Reference.mix(v.r, bg.r, m), Reference.mix(v.g, bg.g, m), Reference.mix(v.b, bg.b, m), 255))
                case .matte:
                    let g = UInt8((255 * m + 0.5).rounded(.down))
                    row.append(RGBA(g, g, g, 255))
                case .alpha:
                    row.append(RGBA(v.r, v.g, v.b, UInt8((255 * m + 0.5).rounded(.down))))
                }
            }
            out.append(row)
        }
        return out
    }

    func assertMatchesReference(_ out: TestRGB, _ want: [[RGBA]], tolerance: Int = 1,
                                _ message: String = "", file: StaticString = #filePath, line: UInt = #line) {
        var bad = 0, first = ""
        for y in 0..<out.height {
            for x in 0..<out.width {
                let a = out[x, y], e = want[y][x]
                let alpha = out.layout.hasAlpha
                if abs(Int(a.r) - Int(e.r)) > tolerance || abs(Int(a.g) - Int(e.g)) > tolerance
                    || abs(Int(a.b) - Int(e.b)) > tolerance || (alpha && abs(Int(a.a) - Int(e.a)) > tolerance) {
                    if bad == 0 { first = "(\(x),\(y)) got \(a) want \(e)" }
                    bad += 1
                }
            }
        }
        XCTAssertEqual(bad, 0, "\(message): \(bad) pixels differ, first \(first)", file: file, line: line)
        XCTAssertTrue(out.paddingIntact, "\(message): row padding was written", file: file, line: line)
    }

    // MARK: keying

    func testSubjectKeepsVideoAndBackgroundGetsColour() {
        let m = DepthMatter()
        let depth = Self.rectangleScene()
        let video = Self.makeVideo(32, 24)
        let out = TestRGB(width: 32, height: 24)
        let r = run(m, Self.sharp(), video: video, depth: depth, output: out)
        XCTAssertEqual(r.cutoff, 1.5)
        XCTAssertFalse(r.faceFound)
        for y in 9...18 { for x in 13...18 { assertPixel(out[x, y], Self.videoColor(x, y), "subject (\(x),\(y))") } }
        for y in 0..<24 {
            for x in Array(0...6) + Array(25...31) { assertPixel(out[x, y], Self.green, "wall (\(x),\(y))") }
        }
        for x in 0..<32 { for y in 0...2 { assertPixel(out[x, y], Self.green, "wall (\(x),\(y))") } }
        // the subject covers depth [5, 11) x [3, 11) = video [10, 22) x [6, 22): 192 of 768 pixels
        XCTAssertEqual(r.coverage, 0.25, accuracy: 1e-12)
    }

    func testMatchesNaiveReferenceChainForEveryLayout() {
        // random depth with holes, odd paddings, non-integer size ratio, blur and gamma
        var rng = TestRandom(seed: 99)
        let depth = TestDepth(width: 12, height: 9, padding: 3)
        for y in 0..<9 {
            for x in 0..<12 {
                let near = (x - 5) * (x - 5) + (y - 4) * (y - 4) < 12
                var d = near ? 700 + rng.int(0...300) : 1500 + rng.int(0...1500)
                if rng.int(0...9) == 0 { d = 0 }
                if d == 1200 { d = 1201 }
                depth[x, y] = UInt16(d)
            }
        }
        var s = Self.original(cutoff: 1.2, blurRadius: 1.3, gamma: 0.6, backgroundARGB: 0xff20_4060)
        for layout in Layout.allCases {
            for mode in [ElementOutput.composite, .matte, .alpha] {
                s.output = mode.rawValue
                let video = Self.makeVideo(29, 21, layout: layout, padding: 2)
                let out = TestRGB(width: 29, height: 21, layout: layout, padding: 4)
                run(DepthMatter(), s, video: video, depth: depth, output: out)
                let want = reference(s, cutoffUnits: 1200, video: video, depth: depth, background: nil, width: 29, height: 21)
                assertMatchesReference(out, want, "\(layout) \(mode)")
            }
        }
    }

    func testSizesScalesAndOutputsMatchReference() {
        // the fused upscale and blend (its per-row spans, runs and the SIMD
        // edge blend) against the naive chain: upscales of about 3x and of
        // 1.5x, a downscale, a subject touching the borders, widths that are
        // not multiples of four, with and without a background picture, for a
        // word layout (bgra, abgr) and a 3-byte one
        // A staircase with a hard edge (no blur) moves the subject's left
        // edge right row by row, and each case follows a frame of subject
        // only: runs must not reuse the states of earlier rows or frames.
        var rng = TestRandom(seed: 7)
        for (vw, vh, dw, dh) in [(37, 23, 12, 9), (61, 35, 20, 12), (23, 17, 15, 11), (16, 12, 40, 30), (5, 3, 2, 2)] {
          for staircase in [false, true] {
            let depth = TestDepth(width: dw, height: dh, padding: 1)
            for y in 0..<dh {
                for x in 0..<dw {
                    let near = staircase ? x >= 1 + 2 * y * dw / (3 * dh) && x < dw - 1
                        : 3 * x < 2 * dw && 4 * y > dh   // touches the left and bottom borders
                    var d = near ? 800 + rng.int(0...200) : 1600 + rng.int(0...800)
                    if !staircase && rng.int(0...11) == 0 { d = 0 }
                    depth[x, y] = UInt16(d)
                }
            }
            var s = Self.original(cutoff: 1.2, blurRadius: staircase ? 0 : 1.7, gamma: staircase ? 1 : 0.7,
                                  backgroundARGB: 0xff30_6090)
            for layout in [Layout.bgra, .abgr, .rgb] {
                let video = Self.makeVideo(vw, vh, layout: layout, padding: 3)
                for bgSize in [nil, (vw, vh), (vw / 2 + 1, vh + 3)] {
                    let background = bgSize.map { (w, h) -> TestRGB in
                        let b = TestRGB(width: w, height: h, layout: layout)
                        for y in 0..<h { for x in 0..<w { b[x, y] = RGBA(UInt8(7 * x % 256), UInt8(11 * y % 256), 200) } }
                        return b
                    }
                    for mode in [ElementOutput.composite, .matte, .alpha] where mode == .composite || bgSize == nil {
                        s.output = mode.rawValue
                        let out = TestRGB(width: vw, height: vh, layout: layout, padding: 2)
                        // a frame of subject only first: nothing of it may stay in the scratch rows
                        let matter = DepthMatter()
                        run(matter, s, video: video, depth: TestDepth(width: dw, height: dh, fill: 500), background: background, output: out)
                        run(matter, s, video: video, depth: depth, background: background, output: out)
                        let want = reference(s, cutoffUnits: 1200, video: video, depth: depth, background: background,
                                             width: vw, height: vh)
                        assertMatchesReference(out, want, "\(vw)x\(vh) over \(dw)x\(dh) staircase \(staircase) "
                                               + "\(layout) \(mode) bg \(String(describing: bgSize))")
                    }
                }
            }
          }
        }
    }

    func testThreadCountNeverChangesTheOutput() {
        // whole frames of the synthetic scene (hand raised, artefacts on),
        // both refine modes and all outputs: the blur, gamma and refiner bands
        // and the upscale's bands of estimated equal cost give the same bytes
        for (vw, vh, dw, dh) in [(480, 270, 160, 90), (301, 187, 150, 93)] {
            let video = TestRGB(width: vw, height: vh, layout: .bgra), depth = TestDepth(width: dw, height: dh)
            RefineTests.render(6.0, video: video, depth: depth)
            for refine in [MatteRefine.original, .guided] {
                for mode in [ElementOutput.composite, .matte, .alpha] {
                    var outs: [[UInt8]] = []
                    var coverage: [Double] = []
                    for threads in [1, 2, 3] {
                        var s = DMDepthMatteSettings.defaults
                        s.refine = refine.rawValue; s.output = mode.rawValue; s.n_threads = UInt32(threads); s.mode = KeyingMode.fixed.rawValue; s.cutoff = 1.4
                        let out = TestRGB(width: vw, height: vh, layout: .bgra)
                        let r = run(DepthMatter(), s, video: video, depth: depth, output: out)
                        outs.append(Array(UnsafeBufferPointer(start: out.bytes, count: out.stride * vh)))
                        coverage.append(r.coverage)
                    }
                    XCTAssertGreaterThan(coverage[0], 0.05, "\(refine) \(mode): the subject is keyed")
                    for t in 1...2 {
                        let differ = zip(outs[t], outs[0]).filter { $0 != $1 }.count
                        XCTAssertEqual(differ, 0, "\(vw)x\(vh) \(refine) \(mode): \(t + 1) threads, bytes differing from 1 thread")
                    }
                    XCTAssertEqual(coverage[1], coverage[0]); XCTAssertEqual(coverage[2], coverage[0])
                }
            }
        }
    }

    func testDefaultSettingsMatchReference() {
        // blur 5, gamma 0.5 (the defaults) on a 24x18 depth behind 48x36 video
        let depth = TestDepth(width: 24, height: 18, fill: 2500)
        depth.fill(x0: 7, y0: 4, x1: 17, y1: 18, 950)
        var s = DMDepthMatteSettings.defaults
        s.refine = MatteRefine.original.rawValue  // pinned to the original sample's chain
        s.mode = KeyingMode.fixed.rawValue
        XCTAssertEqual(s.blur_radius, 5); XCTAssertEqual(s.gamma, 0.5); XCTAssertEqual(s.cutoff, 1.0)
        let video = Self.makeVideo(48, 36)
        let out = TestRGB(width: 48, height: 36)
        let r = run(DepthMatter(), s, video: video, depth: depth, output: out)
        let want = reference(s, cutoffUnits: 1000, video: video, depth: depth, background: nil, width: 48, height: 36)
        assertMatchesReference(out, want)
        // default background is opaque black; sigma 5 reaches the far corner only faintly
        assertPixel(out[0, 0], RGBA(0, 0, 0), tolerance: 10)
        // gamma 0.5 widens the 140 / 432 = 0.32 subject
        XCTAssertGreaterThan(r.coverage, 0.4); XCTAssertLessThan(r.coverage, 0.6)
    }

    // MARK: output size vs depth size

    /// A 16x12 video keyed sharply at 1 m over `depth`, asserted to match the
    /// reference chain: the output and the result.
    private func keySixteenByTwelve(_ depth: TestDepth,
                                    file: StaticString = #filePath, line: UInt = #line) -> (TestRGB, MatteResult) {
        let video = Self.makeVideo(16, 12)
        let out = TestRGB(width: 16, height: 12)
        let s = Self.sharp(cutoff: 1.0)
        let r = run(DepthMatter(), s, video: video, depth: depth, output: out)
        assertMatchesReference(out, reference(s, cutoffUnits: 1000, video: video, depth: depth, background: nil,
                                              width: 16, height: 12), file: file, line: line)
        return (out, r)
    }

    func testDepthSmallerThanVideo() {
        let depth = TestDepth(width: 8, height: 6, fill: 4000)
        depth.fill(x0: 2, y0: 1, x1: 7, y1: 6, 600)
        let (out, _) = keySixteenByTwelve(depth)
        assertPixel(out[9, 8], Self.videoColor(9, 8))   // depth taps 3...6 x 3...6 all subject
        assertPixel(out[0, 5], Self.green)              // depth taps 0, 1
    }

    func testDepthLargerThanVideo() {
        let depth = TestDepth(width: 32, height: 24, fill: 4000)
        depth.fill(x0: 8, y0: 6, x1: 24, y1: 24, 600)
        let (out, r) = keySixteenByTwelve(depth)
        // output (x, y) sits on depth 2x + 0.5: x in 5...10, y in 4...11 see only subject taps
        for y in 4...11 { for x in 5...10 { assertPixel(out[x, y], Self.videoColor(x, y)) } }
        for y in 0..<12 { for x in 0...2 { assertPixel(out[x, y], Self.green) } }
        XCTAssertEqual(r.coverage, Double(8 * 9) / Double(16 * 12), accuracy: 1e-12)
    }

    func testGuidedReducesLargeDepthMapsAndKeepsTheEdge() {
        // depth registered at 4x the colour size (1280x720 behind 320x180):
        // reduced by 4 to 320x180 before refine=guided. Subject: depth
        // x < 640 at 0.9 m, colour x < 160 red on a green wall. Every 4x4
        // block's centre sample (1, 1) is a hole: the block's other samples
        // must stand in for it.
        let depth = TestDepth(width: 1280, height: 720, fill: 3000)
        depth.fill(x0: 0, y0: 0, x1: 640, y1: 720, 900)
        for y in stride(from: 1, to: 720, by: 4) { for x in stride(from: 1, to: 1280, by: 4) { depth.fill(x0: x, y0: y, x1: x + 1, y1: y + 1, 0) } }
        let video = TestRGB(width: 320, height: 180)
        for y in 0..<180 { for x in 0..<320 { video[x, y] = x < 160 ? RGBA(200, 40, 40) : RGBA(60, 160, 90) } }
        let out = TestRGB(width: 320, height: 180)
        var s = DMDepthMatteSettings.defaults
        s.mode = KeyingMode.fixed.rawValue
        s.cutoff = 1.5
        s.output = ElementOutput.matte.rawValue
        let r = run(DepthMatter(), s, video: video, depth: depth, output: out)
        for y in [0, 90, 179] {
            for x in 0..<156 { XCTAssertGreaterThan(out[x, y].r, 240, "subject (\(x),\(y))") }
            for x in 164..<320 { XCTAssertLessThan(out[x, y].r, 15, "wall (\(x),\(y))") }
        }
        XCTAssertEqual(r.coverage, 0.5, accuracy: 0.02)
    }

    func testSizeChangesBetweenFramesReuseNothingStale() {
        let m = DepthMatter()
        let s = Self.original(cutoff: 1.0, blurRadius: 1.0, gamma: 0.7)
        let frames: [(dw: Int, dh: Int, vw: Int, vh: Int)] = [(16, 12, 32, 24), (8, 6, 12, 10), (16, 12, 32, 24), (10, 10, 7, 5)]
        for (i, f) in frames.enumerated() {
            let depth = TestDepth(width: f.dw, height: f.dh, fill: 3000)
            depth.fill(x0: f.dw / 4, y0: f.dh / 3, x1: 3 * f.dw / 4, y1: f.dh, 800)
            let video = Self.makeVideo(f.vw, f.vh)
            let out = TestRGB(width: f.vw, height: f.vh)
            run(m, s, video: video, depth: depth, output: out)
            assertMatchesReference(out, reference(s, cutoffUnits: 1000, video: video, depth: depth, background: nil,
                                                  width: f.vw, height: f.vh), "frame \(i)")
        }
    }

    // MARK: background

    func testBackgroundPictureIsAspectFilled() {
        // 4x4 background into an 8x4 output: scale 2, the source band [1, 3]
        // (edge coordinates) visible: one source row cropped at the top and one
        // at the bottom; output rows sample source rows 0.75, 1.25, 1.75, 2.25
        let bg = TestRGB(width: 4, height: 4)
        for y in 0..<4 { for x in 0..<4 { bg[x, y] = RGBA(UInt8(10 + 40 * y), UInt8(20 * x), 100, 255) } }
        let depth = TestDepth(width: 4, height: 2, fill: 5000)  // all wall
        let out = TestRGB(width: 8, height: 4, padding: 3)
        let r = run(DepthMatter(), Self.sharp(cutoff: 1), video: Self.makeVideo(8, 4), depth: depth, background: bg, output: out)
        XCTAssertEqual(r.coverage, 0)
        let reds: [UInt8] = [40, 60, 80, 100]                  // 10 + 40 * row
        let greens: [UInt8] = [0, 5, 15, 25, 35, 45, 55, 60]    // source columns clamp(-0.25), 0.25, ..., clamp(3.25)
        for y in 0..<4 { for x in 0..<8 { assertPixel(out[x, y], RGBA(reds[y], greens[x], 100, 255), "(\(x),\(y))") } }
        XCTAssertTrue(out.paddingIntact)
    }

    func testFourThreeBackgroundIntoSixteenNineMatchesReference() {
        let bg = TestRGB(width: 16, height: 12, layout: .bgrx, padding: 1)
        var rng = TestRandom(seed: 17)
        for y in 0..<12 { for x in 0..<16 { bg[x, y] = RGBA(UInt8(rng.int(0...255)), UInt8(rng.int(0...255)), UInt8(rng.int(0...255))) } }
        let depth = Self.rectangleScene()
        let video = Self.makeVideo(32, 18, layout: .bgrx)
        let out = TestRGB(width: 32, height: 18, layout: .bgrx)
        var s = Self.sharp()
        s.blur_radius = 0.8
        run(DepthMatter(), s, video: video, depth: depth, background: bg, output: out)
        assertMatchesReference(out, reference(s, cutoffUnits: 1500, video: video, depth: depth, background: bg,
                                              width: 32, height: 18))
    }

    func testBackgroundOfTheOutputSizeIsUsedAsIs() {
        let bg = TestRGB(width: 32, height: 24)
        for y in 0..<24 { for x in 0..<32 { bg[x, y] = RGBA(UInt8(x * 8), UInt8(y * 10), UInt8(255 - x - y)) } }
        let out = TestRGB(width: 32, height: 24)
        run(DepthMatter(), Self.sharp(), video: Self.makeVideo(32, 24), depth: Self.rectangleScene(), background: bg, output: out)
        for y in 0..<24 { for x in 0...6 { assertPixel(out[x, y], bg[x, y]) } }
        for y in 9...18 { for x in 13...18 { assertPixel(out[x, y], Self.videoColor(x, y)) } }
    }

    // MARK: missing inputs

    func testNoDepthPassesVideoThrough() {
        for layout in [Layout.rgba, .xrgb, .rgb] {
            let video = Self.makeVideo(20, 10, layout: layout)
            let out = TestRGB(width: 20, height: 10, layout: layout, padding: 2)
            let r = run(DepthMatter(), Self.faceSettings(), video: video, depth: nil, output: out, faces: [Self.faceBox])
            for y in 0..<10 { for x in 0..<20 { assertPixel(out[x, y], Self.videoColor(x, y), "\(layout)") } }
            XCTAssertEqual(r.coverage, 1)
            XCTAssertFalse(r.faceFound)
            XCTAssertEqual(r.cutoff, 1.0)
            XCTAssertTrue(out.paddingIntact)
        }
        // alpha output: opaque
        var s = Self.sharp(); s.output = ElementOutput.alpha.rawValue
        let out = TestRGB(width: 4, height: 3)
        run(DepthMatter(), s, video: Self.makeVideo(4, 3), depth: nil, output: out)
        for y in 0..<3 { for x in 0..<4 { assertPixel(out[x, y], Self.videoColor(x, y)) } }
    }

    func testNoVideoAndNoDepthGivesBackground() {
        let out = TestRGB(width: 10, height: 6)
        let r = run(DepthMatter(), Self.sharp(), video: nil, depth: nil, output: out)
        for y in 0..<6 { for x in 0..<10 { assertPixel(out[x, y], Self.green) } }
        XCTAssertEqual(r.coverage, 0)
        let bg = TestRGB(width: 10, height: 6, fill: RGBA(9, 99, 199))
        let out2 = TestRGB(width: 10, height: 6)
        run(DepthMatter(), Self.sharp(), video: nil, depth: nil, background: bg, output: out2)
        for y in 0..<6 { for x in 0..<10 { assertPixel(out2[x, y], RGBA(9, 99, 199)) } }
    }

    /// "video: nil when there is no colour for this output time (background
    /// only)": a depth frame must not punch a black subject into it.
    func testNoVideoWithDepthGivesBackgroundOnly() {
        let out = TestRGB(width: 32, height: 24)
        let r = run(DepthMatter(), Self.sharp(), video: nil, depth: Self.rectangleScene(), output: out)
        var wrong = 0
        for y in 0..<24 { for x in 0..<32 where out[x, y] != Self.green { wrong += 1 } }
        XCTAssertEqual(wrong, 0, "pixels that are not the background, e.g. (15,12) = \(out[15, 12])")
        XCTAssertEqual(r.coverage, 0)
    }

    // MARK: output modes and coverage

    func testMatteAndAlphaOutputs() {
        var s = Self.sharp()
        s.output = ElementOutput.matte.rawValue
        let out = TestRGB(width: 32, height: 24)
        run(DepthMatter(), s, video: Self.makeVideo(32, 24), depth: Self.rectangleScene(), output: out)
        assertPixel(out[15, 12], RGBA(255, 255, 255))
        assertPixel(out[2, 12], RGBA(0, 0, 0))
        s.output = ElementOutput.alpha.rawValue
        let a = TestRGB(width: 32, height: 24, layout: .argb)
        run(DepthMatter(), s, video: Self.makeVideo(32, 24, layout: .argb), depth: Self.rectangleScene(), output: a)
        assertPixel(a[15, 12], Self.videoColor(15, 12))
        let c = Self.videoColor(2, 12)
        assertPixel(a[2, 12], RGBA(c.r, c.g, c.b, 0))
    }

    func testCoverage() {
        let m = DepthMatter()
        let video = Self.makeVideo(32, 24)
        let out = TestRGB(width: 32, height: 24)
        XCTAssertEqual(run(m, Self.sharp(), video: video, depth: TestDepth(width: 16, height: 12, fill: 500), output: out).coverage, 1)
        XCTAssertEqual(run(m, Self.sharp(), video: video, depth: TestDepth(width: 16, height: 12, fill: 5000), output: out).coverage, 0)
        XCTAssertEqual(run(m, Self.sharp(), video: video, depth: TestDepth(width: 16, height: 12, fill: 0), output: out).coverage, 0)
        // left half near: exactly half the columns
        let half = TestDepth(width: 16, height: 12, fill: 5000)
        half.fill(x0: 0, y0: 0, x1: 8, y1: 12, 500)
        XCTAssertEqual(run(m, Self.sharp(), video: video, depth: half, output: out).coverage, 0.5, accuracy: 1e-12)
    }

    func testPaddedDepthAndOutputRows() {
        let depth = Self.rectangleScene(padding: 5)
        let video = Self.makeVideo(32, 24, layout: .rgb, padding: 1)
        let out = TestRGB(width: 32, height: 24, layout: .rgb, padding: 7)
        let s = Self.sharp()
        let r = run(DepthMatter(), s, video: video, depth: depth, output: out)
        XCTAssertEqual(r.coverage, 0.25, accuracy: 1e-12)
        assertMatchesReference(out, reference(s, cutoffUnits: 1500, video: video, depth: depth, background: nil,
                                              width: 32, height: 24))
    }
}
