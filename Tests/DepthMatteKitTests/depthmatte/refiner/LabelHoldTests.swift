// SPDX-License-Identifier: LGPL-2.1-or-later
import XCTest
@_spi(Bench) @testable import DepthMatteKit

/// docs/quality.md step 2.6 at depth resolution (`MatteRefiner.Tuning.labelHold`):
/// where the colour did not change, the decided label is averaged with the
/// previous one before the fit, so the depth's per-frame noise does not
/// reach the matte; a coherent change of the label (a new cutoff, an edge
/// that moved) is followed at once.
final class LabelHoldTests: XCTestCase {
    /// The real-sensor scene of `TemporalHoldTests` held still, the output's
    /// own hold off (`temporalHold` 0) so only the label hold acts: the mean
    /// over frame pairs of the summed |Δα| on the output grid.
    static func stillChange(labelHold: Float, frames: Int = 8) -> Double {
        var r = MatteRefiner()
        r.tuning.colourNoise = 4.0 / 255; r.tuning.temporalHold = 0; r.tuning.labelHold = labelHold
        var prev: [Float] = []
        var change = 0.0
        TemporalHoldTests.refineStill(&r, frames: frames) { cur in
            if !prev.isEmpty { for i in 0..<cur.count { change += Double(abs(cur[i] - prev[i])) } }
            prev = cur
        }
        return change / Double(frames - 1)
    }

    func testStillSceneSensorNoiseIsAveragedBeforeTheFit() {
        let free = Self.stillChange(labelHold: 1), held = Self.stillChange(labelHold: 0.3)
        XCTAssertGreaterThan(free, 3, "the sensor noise moves the matte without the hold (the test means something)")
        XCTAssertLessThan(held, 0.5 * free, "label hold: \(held) against \(free) without it")
    }

    /// Uniform colour (no colour evidence at all), depth a ramp of 2 cm per
    /// depth pixel with fresh ±16 mm noise: the cutoff alone places the edge.
    static func rampFrame(seed: UInt64, video v: TestRGB, depth d: TestDepth) {
        for y in 0..<v.height { for x in 0..<v.width { v[x, y] = RGBA(120, 110, 100, 255) } }
        var h = seed &* 0x9E37_79B9_7F4A_7C15
        for y in 0..<d.height {
            for x in 0..<d.width {
                h = h &* 6364136223846793005 &+ 1442695040888963407
                d[x, y] = UInt16(1000 + 20 * x + Int(h >> 59) - 16)
            }
        }
    }

    func testNewCutoffIsFollowedAtOnceWhereTheColourDidNotChange() {
        let v = TestRGB(width: 160, height: 40), d = TestDepth(width: 40, height: 10)
        func edgeAfterCutoffChange(labelHold: Float, labelShift: Float = MatteRefiner.Tuning().labelShift) -> (before: Double, after: Double) {
            var r = MatteRefiner()
            r.tuning.colourNoise = 4.0 / 255; r.tuning.labelHold = labelHold; r.tuning.labelShift = labelShift
            var m = FloatPlane()
            for f in 0..<6 {
                Self.rampFrame(seed: UInt64(f + 1), video: v, depth: d)
                r.refine(depth: d.view, scale: 0.001, cutoff: 1.3, video: v.view, into: &m)
            }
            let before = TemporalHoldTests.position(m, videoWidth: v.width)
            // 1.3 m -> 1.5 m: the edge moves 10 depth pixels (40 video px) to the right
            Self.rampFrame(seed: 7, video: v, depth: d)
            r.refine(depth: d.view, scale: 0.001, cutoff: 1.5, video: v.view, into: &m)
            return (before, TemporalHoldTests.position(m, videoWidth: v.width))
        }
        let free = edgeAfterCutoffChange(labelHold: 1), held = edgeAfterCutoffChange(labelHold: 0.3)
        XCTAssertEqual(free.after - free.before, 40, accuracy: 6, "the new cutoff moves the edge (the test means something)")
        XCTAssertEqual(held.before, free.before, accuracy: 1)
        XCTAssertEqual(held.after, free.after, accuracy: 2, "the label hold kept the edge back: \(held) against \(free)")
        // without the coherence rule (every change held) it would lag
        let lagging = edgeAfterCutoffChange(labelHold: 0.3, labelShift: 2)
        XCTAssertLessThan(lagging.after, free.after - 4, "the rule is what follows the new cutoff: \(lagging)")
    }
}
