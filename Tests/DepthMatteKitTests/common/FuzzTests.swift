// SPDX-License-Identifier: LGPL-2.1-or-later
// Property-based fuzzing of the kit's entry points: random sizes
// (including 1x1 and odd sizes), row padding, every packed layout, parameter
// values across and beyond their documented ranges, NaN and infinities where a
// Double is accepted, and random or absurd face boxes. A seeded generator
// makes every run the same; a failure prints the case number and its inputs.
//
// Properties checked on every case: no trap, no write outside the picture
// (row padding keeps its sentinel), results in range (coverage and brightness
// in [0, 1], finite cutoffs when the inputs are finite).
import XCTest
@_spi(Bench) @testable import DepthMatteKit
import DMContract

private extension TestRandom {
    mutating func pick<T>(_ xs: [T]) -> T { xs[int(0...(xs.count - 1))] }
    mutating func bool() -> Bool { next() & 1 == 1 }
    /// A dimension: mostly small, sometimes 1, sometimes odd and larger.
    mutating func size(_ maxSize: Int) -> Int {
        switch int(0...9) {
        case 0: return 1
        case 1: return int(2...3)
        case 2: return maxSize
        default: return int(1...maxSize)
        }
    }
    /// A Double from `range`, its edges, or outside values when `wild`.
    mutating func double(_ range: ClosedRange<Double>, wild: Bool) -> Double {
        let special: [Double] = wild
            ? [.nan, .infinity, -.infinity, -1, 0, 1e-300, 1e300, -0.0, .ulpOfOne, .greatestFiniteMagnitude]
            : []
        switch int(0...9) {
        case 0: return range.lowerBound
        case 1: return range.upperBound
        case 2 where wild: return pick(special)
        default: return range.lowerBound + unit() * (range.upperBound - range.lowerBound)
        }
    }
}

private let cases = 300
/// The whole-keyer cases are the slow ones in a debug build.
private let matterCases = 150

final class FuzzTests: XCTestCase {

    /// Random depth with holes, zeros, far and 65535 values.
    private func randomDepth(_ rng: inout TestRandom, maxSize: Int) -> TestDepth {
        let d = TestDepth(width: rng.size(maxSize), height: rng.size(maxSize), padding: rng.pick([0, 0, 1, 2, 7]))
        let style = rng.int(0...3)
        for y in 0..<d.height {
            for x in 0..<d.width {
                switch style {
                case 0: d[x, y] = 0
                case 1: d[x, y] = 65535
                default: d[x, y] = rng.pick([0, 1, 500, 800, 1000, 1200, 3000, 65535, UInt16(rng.int(0...65535))])
                }
            }
        }
        return d
    }

    private func randomRGB(_ rng: inout TestRandom, width: Int, height: Int, layout: Layout) -> TestRGB {
        let img = TestRGB(width: width, height: height, layout: layout, padding: rng.pick([0, 0, 1, 3, 5, 16]))
        for y in 0..<height {
            for x in 0..<width {
                img[x, y] = RGBA(UInt8(rng.int(0...255)), UInt8(rng.int(0...255)), UInt8(rng.int(0...255)),
                                 UInt8(rng.int(0...255)))
            }
        }
        return img
    }

    // MARK: depthmatte

    /// The settings the element can hand over (its param specs bound every
    /// value) plus `wild` values the kit sees only when called directly.
    private func matteSettings(_ rng: inout TestRandom, wild: Bool) -> MattePlan {
        var s = DMDepthMatteSettings.defaults
        s.mode = rng.pick([KeyingMode.face, .fixed]).rawValue
        s.refine = rng.pick([MatteRefine.guided, .original, .none]).rawValue
        s.cutoff = rng.double(0...100, wild: wild)
        s.cutoff_offset = rng.double(-10...10, wild: wild)
        // blur-radius: NaN and huge values are fuzzed in testBlurKernelEdges
        s.blur_radius = rng.double(0...100, wild: false)
        if wild && rng.int(0...9) == 0 { s.blur_radius = rng.pick([.nan, -1, -.infinity, 0]) }
        s.gamma = rng.double(0.01...10, wild: wild)
        // GRAY16_LE distance: the keyer works at this scale itself
        s.depth_scale = rng.double(1e-6...1, wild: wild)
        s.background_argb = UInt32(truncatingIfNeeded: rng.next())
        s.output = rng.pick([ElementOutput.composite, .matte, .alpha]).rawValue
        return MattePlan(s)
    }

    private func randomFaces(_ rng: inout TestRandom, width: Int, height: Int) -> [Box] {
        (0..<rng.int(0...3)).map { _ in
            rng.pick([
                Box(x: rng.int(0...width), y: rng.int(0...height), width: rng.int(0...width), height: rng.int(0...height)),
                Box(x: -rng.int(0...1000), y: -5, width: rng.int(0...2000), height: 3),
                Box(x: Int(Int32.max) - 5, y: Int(Int32.max) - 5, width: Int(Int32.max), height: Int(Int32.max)),
                Box(x: 0, y: 0, width: 0, height: 0),
                Box(x: 3, y: 3, width: -7, height: -1),
            ])
        }
    }

    private func fuzzMatter(seed: UInt64, wild: Bool) {
        var rng = TestRandom(seed: seed)
        let matter = DepthMatter()   // one keyer across cases: sizes change every frame
        for n in 0..<matterCases {
            let w = rng.size(48), h = rng.size(40)
            let layout = rng.pick(Layout.allCases)
            let video = randomRGB(&rng, width: w, height: h, layout: layout)
            let depth = rng.int(0...5) == 0 ? nil : randomDepth(&rng, maxSize: 64)
            let bgLayout = layout
            let background = rng.bool() ? randomRGB(&rng, width: rng.size(70), height: rng.size(30), layout: bgLayout) : nil
            let settings = matteSettings(&rng, wild: wild)
            // output=alpha writes the alpha variant of the layout
            var outLayout = layout
            if settings.output == .alpha {
                outLayout = [Layout.rgbx: .rgba, .bgrx: .bgra, .xrgb: .argb, .rgb: .rgba, .bgr: .bgra][layout] ?? layout
            }
            let out = TestRGB(width: w, height: h, layout: outLayout, padding: rng.pick([0, 2, 9]))
            let faces = randomFaces(&rng, width: w, height: h)
            let noVideo = rng.int(0...9) == 0
            let what = "case \(n) seed \(seed): \(w)x\(h) \(layout) depth \(depth.map { "\($0.width)x\($0.height)" } ?? "nil") "
                + "bg \(background.map { "\($0.width)x\($0.height)" } ?? "nil") \(settings) faces \(faces)"
            let r = matter.process(plan: settings, video: noVideo ? nil : video.view, depth: depth?.view,
                                   background: background?.view, output: out.view, faces: faces)
            XCTAssert(r.coverage >= 0 && r.coverage <= 1, what)
            XCTAssert(out.paddingIntact, "output row padding written: " + what)
            XCTAssert(video.paddingIntact, "video written: " + what)
            if !wild {
                XCTAssert(r.cutoff.isFinite, what)
                XCTAssert(r.faceDepth.isFinite && r.faceDepth >= 0, what)
            }
            if rng.int(0...20) == 0 { matter.reset() }
        }
    }

    func testDepthMatterInRangeSettings() { fuzzMatter(seed: 1, wild: false) }
    func testDepthMatterWildSettings() { fuzzMatter(seed: 2, wild: true) }

    func testFaceDepthSamplerAnyBox() {
        var rng = TestRandom(seed: 3)
        var sampler = FaceDepthSampler()
        for _ in 0..<cases {
            let d = randomDepth(&rng, maxSize: 40)
            let vw = rng.size(100), vh = rng.size(100)
            for box in randomFaces(&rng, width: vw, height: vh) {
                if let m = sampler.medianDepth(d.view, box: box, videoWidth: vw, videoHeight: vh) {
                    XCTAssert(m > 0 && m <= 65535, "\(box) -> \(m)")
                }
            }
        }
    }

    func testThresholdAnyCutoffAndScale() {
        var rng = TestRandom(seed: 4)
        var mask = FloatPlane()
        for _ in 0..<cases {
            let d = randomDepth(&rng, maxSize: 30)
            let cutoff = rng.double(0...100, wild: true), scale = rng.double(1e-6...1, wild: true)
            DepthThreshold.mask(depth: d.view, scale: scale, cutoff: cutoff, into: &mask)
            XCTAssertEqual(mask.width, d.width)
            for y in 0..<d.height {
                for x in 0..<d.width {
                    let m = mask[x, y]
                    XCTAssert(m == 0 || m == 1)
                    if d[x, y] == 0 { XCTAssertEqual(m, 0, "no reading is never the subject") }
                }
            }
        }
    }

    func testBlurAndGammaKeepTheMatteInRange() {
        var rng = TestRandom(seed: 5)
        var blur = GaussianBlur()
        var gamma = GammaCurve()
        for n in 0..<100 {
            let w = rng.size(40), h = rng.size(40)
            var p = randomPlane(width: w, height: h, seed: UInt64(n))
            blur.apply(to: &p, sigma: rng.double(0...100, wild: false))
            gamma.apply(to: &p, gamma: rng.double(0.01...10, wild: false))
            for v in p.pixels.prefix(w * h) { XCTAssert(v >= 0 && v <= 1.0001, "\(v)") }
        }
    }

    /// sigma values a direct caller could pass: the element's param spec
    /// bounds blur-radius to 0-100, so only NaN/negatives are tried here
    /// (see docs/robustness.md: sigma = inf or > ~1e18 traps in Int()).
    func testBlurKernelEdges() {
        for sigma in [Double.nan, -1, -Double.infinity, 0, 0.01, 0.0100001, 1e-300, 100] as [Double] {
            let k = GaussianBlur.kernel(sigma: sigma)
            XCTAssertFalse(k.isEmpty)
            let sum = k.reduce(0, +)
            XCTAssertEqual(Double(sum), 1, accuracy: 1e-4, "sigma \(sigma)")
        }
    }

    /// Regression: NaN or negative gamma gave NaN or > 1 mattes, and a NaN
    /// matte trapped in the byte conversion of the blend.
    func testGammaOutsideItsRangeKeepsTheMatteInRange() {
        var curve = GammaCurve()
        for g in [Double.nan, -1, -Double.infinity, 0, Double.infinity, 1e-300] as [Double] {
            var p = makePlane(width: 5, height: 1) { x, _ in Float(x) / 4 }
            curve.apply(to: &p, gamma: g)
            for v in p.pixels { XCTAssert(v >= 0 && v <= 1, "gamma \(g): \(v)") }
        }
    }

    // MARK: sparkle

    func testSparkleAnyPictureAndSettings() {
        var rng = TestRandom(seed: 6)
        let effect = SparkleEffect()
        var t: Int64 = 0
        for n in 0..<cases {
            let img = randomRGB(&rng, width: rng.size(64), height: rng.size(48), layout: rng.pick(Layout.allCases))
            var s = SparkleSettings(.defaults)
            s.measure = rng.pick([.meanRGB, .rec709Luma])
            s.gridStep = rng.pick([1, 2, 3, 31, 1024])
            s.interval = rng.pick([0, 1, 200_000_000, Int64.max / 4])
            s.draw = rng.bool()
            s.maxSparkles = rng.pick([0, 1, 64, 1000])
            s.threshold = rng.double(0...1, wild: true)
            s.size = rng.double(0.001...0.5, wild: false)
            s.life = rng.pick([1, 1_000_000, 600_000_000, 60_000_000_000])
            s.colorARGB = UInt32(truncatingIfNeeded: rng.next())
            s.seed = UInt32(truncatingIfNeeded: rng.next())
            // stream times jump backwards, forwards, repeat, or are missing
            switch rng.int(0...5) {
            case 0: t = 0
            case 1: t = t &- Int64(rng.int(0...1_000_000_000))
            case 2: t = Int64.max / 2
            default: t = t &+ Int64(rng.int(0...100_000_000))
            }
            let streamTime: Int64? = rng.int(0...4) == 0 ? nil : max(0, t)
            let r = effect.process(img.view, settings: s, streamTime: streamTime,
                                   frameDuration: rng.pick([nil, 0, 33_333_333, Int64.max]))
            XCTAssert(r.brightness >= 0 && r.brightness <= 1, "case \(n)")
            XCTAssert(r.sparkles >= 0 && r.sparkles <= max(s.maxSparkles, 1000), "case \(n)")
            XCTAssert(img.paddingIntact, "case \(n): padding written")
            if rng.int(0...30) == 0 { effect.reset() }
        }
    }

    func testBrightnessMeterAnyGrid() {
        var rng = TestRandom(seed: 7)
        for _ in 0..<cases {
            let img = randomRGB(&rng, width: rng.size(50), height: rng.size(50), layout: rng.pick(Layout.allCases))
            for m in [BrightnessMeasure.meanRGB, .rec709Luma] {
                let b = BrightnessMeter.measure(img.view, step: rng.pick([1, 2, 7, 1024]), measure: m)
                XCTAssert(b >= 0 && b <= 1)
            }
        }
    }

    // MARK: framestack

    func testFrameStackerAnySizesModesAndShifts() {
        var rng = TestRandom(seed: 8)
        let stacker = FrameStacker()
        var w = 8, h = 8, layout = Layout.rgba
        for n in 0..<cases {
            if rng.int(0...6) == 0 {   // a size / format change mid-stack
                w = rng.size(40); h = rng.size(30); layout = rng.pick(Layout.allCases)
            }
            var s = FrameStackSettings(.defaults)
            s.frames = rng.pick([1, 2, 3, 5, 8])
            s.method = rng.pick([.mean, .median])
            s.align = rng.pick([.none, .translation])
            s.maxShift = rng.double(0...1024, wild: true)
            s.mode = rng.pick([.batch, .sliding])
            let img = randomRGB(&rng, width: w, height: h, layout: layout)
            let due = stacker.push(img.view, pts: UInt64(n) * 33_333_333, duration: rng.pick([33_333_333, FrameStacker.noTime]),
                                   settings: s)
            if due || rng.int(0...9) == 0, stacker.pending > 0 {
                let out = TestRGB(width: w, height: h, layout: layout, padding: rng.pick([0, 3]))
                let r = stacker.render(into: out.view, method: s.method)
                XCTAssert(r.frames >= 1 && r.frames <= s.frames, "case \(n)")
                XCTAssert(out.paddingIntact, "case \(n): padding written")
            }
        }
    }

    // MARK: rgbdtestsrc

    func testSceneAnyTimeSizeAndSettings() {
        var rng = TestRandom(seed: 9)
        for n in 0..<100 {
            var s = SceneSettings(.defaults)
            s.seed = UInt32(truncatingIfNeeded: rng.next())
            s.depthScale = rng.double(1e-6...1, wild: false)
            s.noise = rng.bool(); s.holes = rng.bool(); s.flyingPixels = rng.bool()
            s.misregistration = rng.int(-8...8)
            s.motion = rng.bool()
            let t = rng.pick([0, 1e-9, 5.5, 12.3, 1e6, 1e12, -1, rng.unit() * 30])
            let scene = RGBDScene(settings: s, time: t)
            let w = rng.size(40), h = rng.size(30)
            let video = TestRGB(width: w, height: h, layout: rng.pick(Layout.allCases), padding: rng.pick([0, 1, 5]))
            if let box = scene.renderVideo(video.view) {
                XCTAssert(box.width > 0 && box.height > 0, "case \(n)")
            }
            XCTAssert(video.paddingIntact, "case \(n)")
            let depth = TestDepth(width: w, height: h, padding: rng.pick([0, 2, 3]))
            scene.renderDepth(base: UnsafeMutableRawPointer(depth.bytes), width: w, height: h, stride: depth.stride)
            for y in 0..<h { for i in (2 * w)..<depth.stride { XCTAssertEqual(depth.bytes[y * depth.stride + i], 0x37) } }
            let truth = Gray8View(base: .allocate(capacity: w * h + 3), width: w, height: h, stride: w)
            scene.renderTruth(truth)
            truth.base.deallocate()
        }
    }

    /// NaN and infinite times: the shim only passes finite PTS-derived
    /// seconds, but a direct caller must not crash the renderer.
    func testSceneNonFiniteTime() {
        for t in [Double.nan, .infinity, -.infinity] {
            let scene = RGBDScene(settings: SceneSettings(.defaults), time: t)
            let video = TestRGB(width: 5, height: 3, layout: .bgrx)
            _ = scene.renderVideo(video.view)
            let depth = TestDepth(width: 5, height: 3)
            scene.renderDepth(base: UnsafeMutableRawPointer(depth.bytes), width: 5, height: 3, stride: depth.stride)
        }
    }
}
