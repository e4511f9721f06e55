// SPDX-License-Identifier: LGPL-2.1-or-later
import XCTest
@_spi(Bench) @testable import DepthMatteKit

/// docs/quality.md step 2.5 (`MatteRefiner.Tuning.flatContrast`): where the
/// coarse depth-resolution fit has no edge, partial values are the colour
/// model's imprint of texture, not coverage: a stronger contrast there
/// pushes them to their side without moving any pixel across 0.5.
final class FlatContrastTests: XCTestCase {
    func testPartialValuesAwayFromTheCoarseEdgeGoToTheirSide() {
        let v = TestRGB(width: 640, height: 360), d = TestDepth(width: 320, height: 180)
        RefineTests.render(5.5, video: v, depth: d)
        func matte(_ flat: Float) -> [Float] {
            var r = MatteRefiner()
            r.tuning.flatContrast = flat
            // (2.5 alone: 2.8's smoothing mixes neighbours of either contrast)
            r.tuning.edgeContrast = 0
            var m = FloatPlane()
            r.refine(depth: d.view, scale: 0.001, cutoff: 1.4, video: v.view, temporal: false, into: &m)
            return Array(m.pixels.prefix(m.width * m.height))
        }
        let mild = matte(MatteRefiner.Tuning().contrast), strong = matte(2.5)
        func partial(_ m: [Float]) -> Int { m.filter { $0 > 0.05 && $0 < 0.95 }.count }
        XCTAssertGreaterThan(partial(mild), 200, "the scene has partial values (the test means something)")
        XCTAssertLessThan(Double(partial(strong)), 0.9 * Double(partial(mild)), "partial \(partial(strong)) against \(partial(mild))")
        var crossed = 0, pushed = 0
        for i in 0..<mild.count {
            if (mild[i] - 0.5) * (strong[i] - 0.5) < 0 { crossed += 1 }
            if abs(strong[i] - 0.5) > abs(mild[i] - 0.5) + 1e-4 { pushed += 1 }
            XCTAssertGreaterThanOrEqual(abs(strong[i] - 0.5), abs(mild[i] - 0.5) - 1e-6, "pixel \(i) pulled towards 0.5")
            if abs(strong[i] - 0.5) < abs(mild[i] - 0.5) - 1e-6 { break }
        }
        XCTAssertEqual(crossed, 0, "no pixel changes side")
        XCTAssertGreaterThan(pushed, 50)
    }
}
