// SPDX-License-Identifier: LGPL-2.1-or-later
import XCTest
@_spi(Bench) @testable import DepthMatteKit

final class SparkleTests: XCTestCase {
    // MARK: brightness

    func testFlatFramesGiveExactBrightnessInEveryLayout() {
        let colours: [RGBA] = [RGBA(0, 0, 0), RGBA(255, 255, 255), RGBA(200, 100, 50), RGBA(1, 2, 3), RGBA(0, 255, 0)]
        for layout in Layout.allCases {
            for c in colours {
                let img = TestRGB(width: 37, height: 23, layout: layout, padding: 3, fill: c)
                let mean = Double(Int(c.r) + Int(c.g) + Int(c.b)) / 765
                let luma = (0.2126 * Double(c.r) + 0.7152 * Double(c.g) + 0.0722 * Double(c.b)) / 255
                for step in [1, 2, 5, 16, 32, 100] {
                    XCTAssertEqual(BrightnessMeter.measure(img.view, step: step, measure: .meanRGB), mean,
                                   accuracy: 1e-12, "\(layout) \(c) step \(step)")
                    XCTAssertEqual(BrightnessMeter.measure(img.view, step: step, measure: .rec709Luma), luma,
                                   accuracy: 1e-12, "\(layout) \(c) step \(step)")
                }
                XCTAssertTrue(img.paddingIntact)
            }
        }
    }

    func testGridReadsCellCentres() {
        // step 4 on 10x7: x in {2, 6}, y in {2, 6}
        let img = TestRGB(width: 10, height: 7, layout: .bgrx, fill: RGBA(0, 0, 0))
        for (x, y) in [(2, 2), (6, 2), (2, 6), (6, 6)] { img[x, y] = RGBA(255, 255, 255) }
        XCTAssertEqual(BrightnessMeter.measure(img.view, step: 4, measure: .meanRGB), 1, accuracy: 1e-12)
        XCTAssertEqual(BrightnessMeter.measure(img.view, step: 1, measure: .meanRGB), 4.0 / 70, accuracy: 1e-12)
        // a step larger than the picture still reads one pixel
        let tiny = TestRGB(width: 3, height: 2, layout: .rgb, fill: RGBA(30, 60, 90))
        XCTAssertEqual(BrightnessMeter.measure(tiny.view, step: 64, measure: .meanRGB), 180.0 / 765, accuracy: 1e-12)
    }

    func testMeanMatchesAReferenceOnRandomPixels() {
        var rnd = TestRandom(seed: 3)
        let img = TestRGB(width: 50, height: 31, layout: .argb, padding: 2)
        for y in 0..<31 { for x in 0..<50 {
            img[x, y] = RGBA(UInt8(rnd.int(0...255)), UInt8(rnd.int(0...255)), UInt8(rnd.int(0...255)), UInt8(rnd.int(0...255)))
        } }
        for step in [1, 3, 7] {
            var sum = 0.0, n = 0.0
            for y in stride(from: step / 2, to: 31, by: step) { for x in stride(from: step / 2, to: 50, by: step) {
                let p = img[x, y]; sum += Double(Int(p.r) + Int(p.g) + Int(p.b)) / 765; n += 1
            } }
            XCTAssertEqual(BrightnessMeter.measure(img.view, step: step, measure: .meanRGB), sum / n, accuracy: 1e-12)
        }
    }

    // MARK: schedule

    private func dueFrames(fps: Int, interval: Int64, frames: Int) -> [Int] {
        var s = MeasureSchedule()
        return (0..<frames).filter { n in s.isDue(at: Int64(n) * 1_000_000_000 / Int64(fps), interval: interval) }
    }

    func testScheduleMeasuresFirstFrameThenEveryInterval() {
        XCTAssertEqual(dueFrames(fps: 30, interval: 200_000_000, frames: 60), [0, 6, 12, 18, 24, 30, 36, 42, 48, 54])
        XCTAssertEqual(dueFrames(fps: 10, interval: 200_000_000, frames: 20).count, 10)
        XCTAssertEqual(dueFrames(fps: 30, interval: 0, frames: 7), Array(0..<7))
        // 50 ms at 30 fps: due times are kept, so 20 readings a second, not 15
        XCTAssertEqual(dueFrames(fps: 30, interval: 50_000_000, frames: 30).count, 20)
        // an interval shorter than a frame: every frame, never twice per frame
        XCTAssertEqual(dueFrames(fps: 30, interval: 1_000_000, frames: 10).count, 10)
    }

    func testScheduleReanchorsOnJumps() {
        var s = MeasureSchedule()
        let i: Int64 = 200_000_000
        XCTAssertTrue(s.isDue(at: 1_000_000_000, interval: i))
        XCTAssertFalse(s.isDue(at: 1_100_000_000, interval: i))
        XCTAssertTrue(s.isDue(at: 500_000_000, interval: i))   // backwards: measure, re-anchor
        XCTAssertFalse(s.isDue(at: 600_000_000, interval: i))
        XCTAssertTrue(s.isDue(at: 5_000_000_000, interval: i)) // far forward: measure, re-anchor
        XCTAssertFalse(s.isDue(at: 5_150_000_000, interval: i))
        XCTAssertTrue(s.isDue(at: 5_200_000_000, interval: i))
        s.reset()
        XCTAssertTrue(s.isDue(at: 5_250_000_000, interval: i))
    }

    // MARK: mapping and generator

    func testMapping() {
        XCTAssertEqual(SparkleMapping.target(brightness: 0.25, maxSparkles: 64, threshold: 0.25), 0)
        XCTAssertEqual(SparkleMapping.target(brightness: 0.1, maxSparkles: 64, threshold: 0.25), 0)
        XCTAssertEqual(SparkleMapping.target(brightness: 1, maxSparkles: 64, threshold: 0.25), 64)
        XCTAssertEqual(SparkleMapping.target(brightness: 0.625, maxSparkles: 64, threshold: 0.25), 32)
        XCTAssertEqual(SparkleMapping.target(brightness: 0.6, maxSparkles: 10, threshold: 0.2), 5)
        XCTAssertEqual(SparkleMapping.target(brightness: 0.5, maxSparkles: 3, threshold: 0), 2) // 1.5 rounds up
        XCTAssertEqual(SparkleMapping.target(brightness: 0.99, maxSparkles: 10, threshold: 1), 0)
        XCTAssertEqual(SparkleMapping.target(brightness: 1, maxSparkles: 10, threshold: 1), 10)
        XCTAssertEqual(SparkleMapping.target(brightness: 1, maxSparkles: 0, threshold: 0), 0)
    }

    func testSplitMix64ReferenceValues() {
        var g = SplitMix64(seed: 0)
        XCTAssertEqual(g.next(), 0xE220_A839_7B1D_CDAF)
        XCTAssertEqual(g.next(), 0x6E78_9E6A_A1B9_65F4)
        var h = SplitMix64(seed: 42)
        for _ in 0..<1000 { let u = h.unit(); XCTAssertTrue(u >= 0 && u < 1); XCTAssertTrue((0..<7).contains(h.below(7))) }
    }

    // MARK: glints

    func testEnvelopeGrowsPeaksFades() {
        XCTAssertEqual(Glint.envelope(0), 0)
        XCTAssertEqual(Glint.envelope(1), 0)
        XCTAssertEqual(Glint.envelope(0.5), 1)
        XCTAssertEqual(Glint.envelope(0.25), 0.75, accuracy: 1e-12)
        XCTAssertLessThan(Glint.envelope(0.1), Glint.envelope(0.3))
        XCTAssertGreaterThan(Glint.envelope(0.7), Glint.envelope(0.9))
    }

    func testGlintIsAFourPointedStarAddedToThePicture() {
        let img = TestRGB(width: 41, height: 41, layout: .bgrx, padding: 4, fill: RGBA(10, 20, 30))
        Glint(x: 20, y: 20, birth: 0, life: 1, length: 15)
            .draw(into: img.view, envelope: 1, r: 200, g: 200, b: 200)
        XCTAssertEqual(img[20, 20], RGBA(210, 220, 230))                    // centre: full
        for d in [4, 8, 12] {                                                // arms, falling off
            let along = [img[20 + d, 20], img[20 - d, 20], img[20, 20 + d], img[20, 20 - d]]
            XCTAssertTrue(along.allSatisfy { $0 == along[0] }, "\(along)")   // symmetric
            XCTAssertGreaterThan(along[0].r, 10)
            XCTAssertLessThan(along[0].r, img[20 + d - 2, 20].r)
        }
        XCTAssertEqual(img[20 + 8, 20 + 8], RGBA(10, 20, 30))                // diagonal: untouched
        XCTAssertEqual(img[0, 0], RGBA(10, 20, 30))
        XCTAssertEqual(img[20 + 16, 20], RGBA(10, 20, 30))                   // beyond the arm
        for y in 0..<41 { for x in 0..<41 { XCTAssertGreaterThanOrEqual(img[x, y].g, 20) } }
        XCTAssertTrue(img.paddingIntact)
    }

    func testGlintSaturatesAndClipsAtTheEdges() {
        let img = TestRGB(width: 9, height: 6, layout: .rgb, padding: 1, fill: RGBA(250, 250, 250))
        for (x, y) in [(0, 0), (8, 5), (8, 0), (0, 5), (4, 3)] {
            Glint(x: x, y: y, birth: 0, life: 1, length: 30).draw(into: img.view, envelope: 1, r: 255, g: 255, b: 255)
        }
        XCTAssertEqual(img[0, 0], RGBA(255, 255, 255))
        XCTAssertTrue(img.paddingIntact)
    }

    func testGlintTouchesOnlyAlphaAboveHalfAndLeavesAlpha() {
        let img = TestRGB(width: 30, height: 30, layout: .argb, fill: RGBA(50, 50, 50, 255))
        for y in 0..<30 { for x in 15..<30 { img[x, y] = RGBA(50, 50, 50, x < 20 ? 127 : 0) } }
        for x in 0..<15 { img[x, 3] = RGBA(50, 50, 50, 128) }
        Glint(x: 14, y: 14, birth: 0, life: 1, length: 12).draw(into: img.view, envelope: 1, r: 100, g: 100, b: 100)
        for y in 0..<30 { for x in 15..<30 { XCTAssertEqual(img[x, y], RGBA(50, 50, 50, x < 20 ? 127 : 0)) } }
        XCTAssertEqual(img[14, 14], RGBA(150, 150, 150, 255))
        XCTAssertEqual(img[14, 3].a, 128)
        XCTAssertGreaterThan(img[14, 3].r, 50)   // 128 is above half
    }

    // MARK: the effect

    private func run(_ effect: SparkleEffect, _ settings: SparkleSettings, frames: Int,
                     layout: Layout = .bgrx, fill: RGBA = RGBA(160, 160, 160),
                     alpha: ((Int, Int) -> UInt8)? = nil) -> ([[UInt8]], [SparkleResult]) {
        var out: [[UInt8]] = [], results: [SparkleResult] = []
        for n in 0..<frames {
            let img = TestRGB(width: 64, height: 48, layout: layout, fill: fill)
            if let alpha { for y in 0..<48 { for x in 0..<64 { img[x, y] = RGBA(fill.r, fill.g, fill.b, alpha(x, y)) } } }
            results.append(effect.process(img.view, settings: settings, streamTime: Int64(n) * 33_333_333, frameDuration: nil))
            out.append(Array(UnsafeBufferPointer(start: img.bytes, count: img.stride * img.height)))
        }
        return (out, results)
    }

    func testCountFollowsMappingAndSeedReproduces() {
        var s = SparkleSettings(.defaults)
        s.maxSparkles = 30; s.threshold = 0.2; s.seed = 9
        let (a, ra) = run(SparkleEffect(), s, frames: 40)
        let (b, rb) = run(SparkleEffect(), s, frames: 40)
        XCTAssertEqual(a, b)
        XCTAssertEqual(ra, rb)
        let want = SparkleMapping.target(brightness: 160.0 / 255, maxSparkles: 30, threshold: 0.2)
        XCTAssertTrue(ra.allSatisfy { $0.sparkles == want && $0.target == want })
        XCTAssertEqual(ra.filter(\.measured).count, 7)  // 40 frames at 30 fps, 200 ms
        s.seed = 10
        let (c, _) = run(SparkleEffect(), s, frames: 40)
        XCTAssertNotEqual(a, c)
    }

    func testResetRestartsTheSequence() {
        var s = SparkleSettings(.defaults)
        s.threshold = 0
        let e = SparkleEffect()
        let (a, _) = run(e, s, frames: 20)
        e.reset()
        let (b, _) = run(e, s, frames: 20)
        XCTAssertEqual(a, b)
    }

    func testDrawFalseLeavesFramesButKeepsTheCount() {
        var s = SparkleSettings(.defaults)
        s.threshold = 0; s.draw = false
        let (out, results) = run(SparkleEffect(), s, frames: 12)
        let blank = TestRGB(width: 64, height: 48, layout: .bgrx, fill: RGBA(160, 160, 160))
        let ref = Array(UnsafeBufferPointer(start: blank.bytes, count: blank.stride * blank.height))
        XCTAssertTrue(out.allSatisfy { $0 == ref })
        XCTAssertTrue(results.allSatisfy { $0.sparkles == SparkleMapping.target(brightness: 160.0 / 255, maxSparkles: 64, threshold: 0) })
    }

    func testGlintsAreBornOnAlphaAboveHalf() {
        var s = SparkleSettings(.defaults)
        s.threshold = 0; s.maxSparkles = 100
        let e = SparkleEffect()
        let inside: (Int, Int) -> Bool = { x, y in x >= 10 && x < 30 && y >= 5 && y < 40 }
        _ = run(e, s, frames: 30, layout: .rgba, alpha: { x, y in inside(x, y) ? 200 : 127 })
        XCTAssertFalse(e.glints.isEmpty)
        XCTAssertTrue(e.glints.allSatisfy { inside($0.x, $0.y) })
    }

    func testLivesAndSizesFollowTheSettings() {
        var s = SparkleSettings(.defaults)
        s.threshold = 0; s.maxSparkles = 200; s.life = 300_000_000; s.size = 0.1
        let e = SparkleEffect()
        _ = run(e, s, frames: 3)
        XCTAssertTrue(e.glints.allSatisfy { $0.life >= 180_000_000 && $0.life <= 420_000_000 })
        XCTAssertTrue(e.glints.allSatisfy { $0.length >= 0.6 * 4.8 - 1e-9 && $0.length <= 1.4 * 4.8 + 1e-9 })
    }

    func testMissingTimestampsAdvanceByTheFrameDuration() {
        let e = SparkleEffect()
        let img = TestRGB(width: 8, height: 8, layout: .rgb, fill: RGBA(100, 100, 100))
        var s = SparkleSettings(.defaults)
        s.interval = 100_000_000
        let measured = (0..<10).map { _ in
            e.process(img.view, settings: s, streamTime: nil, frameDuration: 50_000_000).measured
        }
        XCTAssertEqual(measured, [true, false, true, false, true, false, true, false, true, false])
    }

    func testSteadyStateDoesNotGrowTheGlintStorage() {
        var s = SparkleSettings(.defaults)
        s.threshold = 0
        let e = SparkleEffect()
        _ = run(e, s, frames: 3)
        let capacity = e.glints.capacity
        _ = run(e, s, frames: 60)
        XCTAssertEqual(e.glints.capacity, capacity)
    }
}
