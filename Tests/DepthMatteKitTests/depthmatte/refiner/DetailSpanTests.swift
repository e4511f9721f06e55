// SPDX-License-Identifier: LGPL-2.1-or-later
import XCTest
@_spi(Bench) @testable import DepthMatteKit

/// Step 3's colour detail is cleared each frame only in the columns the
/// colour model wrote the frame before (`MatteRefiner.detailSpans`): after
/// frames whose edges lie elsewhere, the detail is what a refiner that saw
/// only the last frame leaves (without temporal state the frame's matte
/// depends on nothing before it).
final class DetailSpanTests: XCTestCase {
    func testDetailAfterOtherFramesEqualsAFreshRefiners() {
        let v = TestRGB(width: 640, height: 360, layout: .bgra), d = TestDepth(width: 320, height: 180)
        var seasoned = MatteRefiner()
        var m = FloatPlane()
        // the subject far from where it ends, then where it ends
        for time in [1.0, 9.0, 3.5, 6.0] {
            RefineTests.render(time, video: v, depth: d)
            seasoned.refine(depth: d.view, scale: 0.001, cutoff: 1.4, video: v.view, temporal: false, into: &m)
        }
        var fresh = MatteRefiner()
        var f = FloatPlane()
        fresh.refine(depth: d.view, scale: 0.001, cutoff: 1.4, video: v.view, temporal: false, into: &f)
        XCTAssertEqual(seasoned.detail.width, fresh.detail.width)
        XCTAssertEqual(seasoned.detail.height, fresh.detail.height)
        let count = fresh.detail.width * fresh.detail.height
        var differ = 0, nonzero = 0
        for i in 0..<count {
            if seasoned.detail.pixels[i].bitPattern != fresh.detail.pixels[i].bitPattern { differ += 1 }
            if fresh.detail.pixels[i] != 0 { nonzero += 1 }
        }
        XCTAssertEqual(differ, 0)
        XCTAssertGreaterThan(nonzero, 100, "the scene has an edge the model decides")
        XCTAssertEqual(m.pixels.prefix(m.width * m.height).map(\.bitPattern), f.pixels.prefix(f.width * f.height).map(\.bitPattern))
    }
}
