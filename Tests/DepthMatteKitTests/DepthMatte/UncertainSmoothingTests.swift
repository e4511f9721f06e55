import XCTest
@testable import DepthMatteKit

/// 2.9, `MatteRefiner.Tuning.uncertainSmoothing`: the grid moved towards its
/// [1 2 1]/4 smoothing by how little the colour model explains the labels.
final class UncertainSmoothingTests: XCTestCase {
    /// `values` (row-major, `w` × `h`, a grid k = 2 times the depth's) smoothed
    /// with the depth pixels' confidence `c` (`w/2` × `h/2`, row-major).
    private func smoothed(_ values: [Float], width w: Int, height h: Int, confidence c: [Float],
                          gain: Float) -> [Float] {
        var m = values
        var copy = [Float](repeating: -1, count: w * h)
        m.withUnsafeMutableBufferPointer { M in
            copy.withUnsafeMutableBufferPointer { C in
                c.withUnsafeBufferPointer { K in
                    MatteRefiner.smoothUncertain(M.baseAddress!, width: w, height: h, copy: C.baseAddress!,
                                                 confidence: K.baseAddress!, depthWidth: w / 2, depthHeight: h / 2,
                                                 k: 2, gain: gain)
                }
            }
        }
        return m
    }

    /// A `w` × `h` grid of 0s with `v` at (w/2, h/2).
    private func point(_ v: Float, width w: Int, height h: Int) -> [Float] {
        var p = [Float](repeating: 0, count: w * h); p[(h / 2) * w + w / 2] = v
        return p
    }

    func testWhereTheColourExplainsTheLabelsNothingChanges() {
        let w = 10, h = 6
        let step = (0..<(w * h)).map { Float($0 % w >= 5 ? 1 : 0) }
        let ones = [Float](repeating: 1, count: w * h / 4)
        XCTAssertEqual(smoothed(step, width: w, height: h, confidence: ones, gain: 2), step)
        XCTAssertEqual(smoothed(point(1, width: w, height: h), width: w, height: h, confidence: ones, gain: 2),
                       point(1, width: w, height: h))
    }

    func testWithNoConfidenceARampIsSmoothedAndUniformValuesStayExact() {
        // a ramp across 0.5 (0 0 0.2 0.4 0.6 0.8 1 1 ...) down every row: the
        // filter leaves its linear part as it is and rounds its two corners
        let w = 10, h = 6
        let profile: [Float] = [0, 0, 0.2, 0.4, 0.6, 0.8, 1, 1, 1, 1]
        let ramp = (0..<(w * h)).map { profile[$0 % w] }
        let zeros = [Float](repeating: 0, count: w * h / 4)
        let m = smoothed(ramp, width: w, height: h, confidence: zeros, gain: 2)
        for y in 0..<h {
            let r = Array(m[(y * w)..<(y * w + w)])
            XCTAssertEqual(r[0], 0); XCTAssertEqual(r[1], 0.05, accuracy: 1e-6); XCTAssertEqual(r[2], 0.2, accuracy: 1e-6)
            XCTAssertEqual(r[4], 0.6, accuracy: 1e-6); XCTAssertEqual(r[6], 0.95, accuracy: 1e-6); XCTAssertEqual(r[7], 1)
        }
        for v: Float in [0, 1] {
            let flat = [Float](repeating: v, count: w * h)
            XCTAssertEqual(smoothed(flat, width: w, height: h, confidence: zeros, gain: 2), flat)
        }
    }

    func testAValueKeepsItsSideAndHalfItsDistanceAndFaintValuesSnap() {
        let w = 10, h = 6, c = 3 * w + 5
        let zeros = [Float](repeating: 0, count: w * h / 4)
        // a lone 1 (a thin part the colour cannot separate) would fall to
        // 0.25; it stops at 0.75, and its neighbours rise to 0.125 / 0.0625
        let m = smoothed(point(1, width: w, height: h), width: w, height: h, confidence: zeros, gain: 2)
        XCTAssertEqual(m[c], 0.75); XCTAssertEqual(m[c - 1], 0.125); XCTAssertEqual(m[c - w - 1], 0.0625)
        XCTAssertEqual(m[c - 2 * w], 0)
        // c = 0.75, gain 2: u = 0.5, a neighbour moves half way: 0.0625
        let half = smoothed(point(1, width: w, height: h), width: w, height: h,
                            confidence: [Float](repeating: 0.75, count: w * h / 4), gain: 2)
        XCTAssertEqual(half[c - 1], 0.0625); XCTAssertEqual(half[c], 0.75)
        // 0.02 spreads below half an 8-bit level at the corners: they snap to 0
        let f = smoothed(point(0.02, width: w, height: h), width: w, height: h, confidence: zeros, gain: 2)
        XCTAssertEqual(f[c], 0.005, accuracy: 1e-7)
        XCTAssertEqual(f[c - w - 1], 0, "0.02/16 is below half an 8-bit level")
    }

    func testTheRefinerSoftensOnlyWhereItsFitIsUnsure() {
        // the step scene whose colour edge sits 1 video px past where the
        // depth edge puts it: the matte with and without 2.9 is the same far
        // from the edge (exact 0 and 1) and the same where the confidence is 1
        let (d, v) = RefineTests.stepScene(depthEdge: 20, colorEdge: 41)
        var plain = MatteRefiner(), soft = MatteRefiner()
        plain.tuning.uncertainSmoothing = 0; soft.tuning.uncertainSmoothing = 2
        var a = FloatPlane(), b = FloatPlane()
        plain.refine(depth: d.view, scale: 0.001, cutoff: 1.5, video: v.view, into: &a)
        soft.refine(depth: d.view, scale: 0.001, cutoff: 1.5, video: v.view, into: &b)
        for y in 0..<a.height {
            for x in 0..<a.width where x < 30 || x > 50 { XCTAssertEqual(b[x, y], a[x, y], "(\(x),\(y))") }
            XCTAssertGreaterThan(b[38, y], 0.5); XCTAssertLessThan(b[43, y], 0.5)
        }
    }
}
