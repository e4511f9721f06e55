// SPDX-License-Identifier: LGPL-2.1-or-later
import XCTest
@_spi(Bench) @testable import DepthMatteKit

/// 2.8, `MatteRefiner.Tuning.edgeContrast`: where the colour model leaves the
/// labels unexplained, the output grid moves towards its [1 2 1]/4 smoothing
/// with a contrast around 0.5, each value kept on its side of 0.5.
final class EdgeContrastTests: XCTestCase {
    /// The grid of the textured portrait at 5.5 s (depth 320x180, no
    /// temporal state), with the refiner configured.
    private func matte(_ configure: (inout MatteRefiner) -> Void) -> FloatPlane {
        let v = TestRGB(width: 640, height: 360), d = TestDepth(width: 320, height: 180)
        RefineTests.render(5.5, video: v, depth: d)
        var r = MatteRefiner()
        configure(&r)
        var m = FloatPlane()
        r.refine(depth: d.view, scale: 0.001, cutoff: 1.4, video: v.view, temporal: false, into: &m)
        return m
    }

    func testValuesKeepTheirSideAndUniformPartsStayExactAndOnlyUnsurePixelsMove() {
        let off = matte { $0.tuning.edgeContrast = 0 }, on = matte { _ in }
        let everywhere = matte { $0.tuning.edgeGate = 0 }
        let w = off.width, h = off.height
        XCTAssertEqual(on.width, w); XCTAssertEqual(on.height, h)
        var changed = 0, failures = 0
        for y in 0..<h {
            for x in 0..<w where failures < 5 {
                let a = off[x, y], b = on[x, y]
                if a != b { changed += 1 }
                // its side of 0.5, and at least half its distance from it
                if (a >= 0.5) != (b >= 0.5) || abs(b - 0.5) < 0.5 * abs(a - 0.5) - 1e-6 {
                    XCTFail("(\(x),\(y)): \(a) -> \(b)"); failures += 1
                }
                // a uniform 3x3 neighbourhood of 0 or 1 stays exact
                var uniform = a == 0 || a == 1
                for dy in -1...1 { for dx in -1...1 {
                    let X = min(max(x + dx, 0), w - 1), Y = min(max(y + dy, 0), h - 1)
                    if off[X, Y] != a { uniform = false }
                } }
                if uniform && b != a { XCTFail("uniform (\(x),\(y)): \(a) -> \(b)"); failures += 1 }
            }
        }
        XCTAssertGreaterThan(changed, 50)
        // the gate: pixels whose depth pixel the colour model explains (fit
        // confidence 1) are left as they are; without it every edge pixel moves
        var changedEverywhere = 0
        for i in 0..<(w * h) where everywhere.pixels[i] != off.pixels[i] { changedEverywhere += 1 }
        XCTAssertLessThan(changed + 100, changedEverywhere, "\(changed) against \(changedEverywhere)")
    }

    func testKeepingTheSideKeepsAThinPartTheColourCannotSeparate() {
        // the finger of RefineTests between two wall colours: the smoothing
        // alone would pull it under 0.5 (measured: 0.45 ... 0.47)
        let kept = RefineTests.fingerMatte(fitWeighting: true, width: 2)
        let lost = RefineTests.fingerMatte(fitWeighting: true, width: 2, edgeKeepSide: false)
        var under = 0
        for y in [0, 15, 30, 59] {
            for x in 32..<36 {
                XCTAssertGreaterThan(kept[x, y], 0.5, "finger (\(x),\(y))")
                if lost[x, y] < 0.5 { under += 1 }
            }
        }
        XCTAssertGreaterThan(under, 0, "without the limit the finger falls under 0.5 (the limit means something)")
    }
}
