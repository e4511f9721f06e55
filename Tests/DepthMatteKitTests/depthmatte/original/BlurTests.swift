// SPDX-License-Identifier: LGPL-2.1-or-later
import XCTest
@_spi(Bench) @testable import DepthMatteKit

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

final class BlurTests: XCTestCase {
    private func blurred(_ p: FloatPlane, sigma: Double) -> FloatPlane {
        var b = GaussianBlur()
        var q = p
        b.apply(to: &q, sigma: sigma)
        return q
    }

    func testKernelWeights() {
        let k = GaussianBlur.kernel(sigma: 1)
        guard k.count == 7 else { return XCTFail("radius ceil(3 sigma) = 3 expected, got \(k.count) taps") }
        XCTAssertEqual(Double(k.reduce(0, +)), 1, accuracy: 1e-6)
        for i in 0..<3 { XCTAssertEqual(k[i], k[6 - i]) }
        // ratios of neighbouring weights are exp((2k+1) / (2 sigma^2))
        XCTAssertEqual(Double(k[3] / k[4]), exp(0.5), accuracy: 1e-5)
        XCTAssertEqual(Double(k[4] / k[5]), exp(1.5), accuracy: 1e-4)
        // normalised closed form
        let z = (-3...3).map { exp(-Double($0 * $0) / 2) }.reduce(0, +)
        XCTAssertEqual(Double(k[3]), 1 / z, accuracy: 1e-6)

        XCTAssertEqual(GaussianBlur.kernel(sigma: 0.5).count, 5)   // ceil(1.5) = 2
        XCTAssertEqual(GaussianBlur.kernel(sigma: 2.2).count, 15)  // ceil(6.6) = 7
        XCTAssertEqual(GaussianBlur.kernel(sigma: 0), [1])
    }

    func testMatchesDirect2DConvolution() {
        let cases: [(w: Int, h: Int, sigma: Double, seed: UInt64)] = [
            (13, 9, 1.5, 1), (13, 9, 0.7, 2), (16, 12, 2.0, 3), (11, 17, 1.0, 4),
            (7, 5, 5.0, 5),   // radius 15: wider than the picture, clamping dominates
            (1, 9, 1.3, 6), (9, 1, 1.3, 7), (1, 1, 3.0, 8), (2, 3, 0.4, 9),
        ]
        for c in cases {
            let p = randomPlane(width: c.w, height: c.h, seed: c.seed)
            let got = blurred(p, sigma: c.sigma)
            XCTAssertEqual(got.width, c.w); XCTAssertEqual(got.height, c.h)
            let want = Reference.blur(p.rows, sigma: c.sigma)
            XCTAssertLessThanOrEqual(maxDifference(got, want), 1e-4, "\(c.w)x\(c.h) sigma \(c.sigma)")
        }
    }

    func testBinaryMaskMatchesReference() {
        // the shape the chain actually blurs: a 0/1 mask touching two edges
        let p = makePlane(width: 20, height: 15) { x, y in (x >= 6 && y >= 4) ? 1 : 0 }
        for sigma in [0.8, 2.5, 5.0] {
            XCTAssertLessThanOrEqual(maxDifference(blurred(p, sigma: sigma), Reference.blur(p.rows, sigma: sigma)), 1e-4,
                                     "sigma \(sigma)")
        }
    }

    func testWidePlanesTakeTheEightLanePathsAndStillMatchTheReference() {
        // wide enough for the 8-column vertical and 8-output horizontal paths
        // (x >= r, x + 8 + r <= w) with a ragged tail; random values and a
        // 0/1 disc (uniform windows mixed with edge windows within one group)
        let noise = randomPlane(width: 83, height: 41, seed: 21)
        let disc = makePlane(width: 83, height: 41) { x, y in (x - 40) * (x - 40) + (y - 20) * (y - 20) < 225 ? 1 : 0 }
        for p in [noise, disc] {
            for sigma in [0.9, 2.5, 5.0] {
                let got = blurred(p, sigma: sigma)
                XCTAssertLessThanOrEqual(maxDifference(got, Reference.blur(p.rows, sigma: sigma)), 1e-5, "sigma \(sigma)")
                // threads split rows and columns but never change a value
                var b = GaussianBlur(), q = p
                b.apply(to: &q, sigma: sigma, pool: WorkerPool(), threads: 3)
                XCTAssertEqual(q.pixels, got.pixels, "sigma \(sigma), 3 threads")
            }
        }
        // uniform windows are exact
        let q = blurred(disc, sigma: 2.5)
        XCTAssertEqual(q[40, 20], 1)
        XCTAssertEqual(q[2, 2], 0)
    }

    func testSigmaZeroIsIdentity() {
        let p = randomPlane(width: 9, height: 7, seed: 11)
        for sigma in [0.0, 0.005, -1.0] {
            XCTAssertEqual(blurred(p, sigma: sigma).pixels, p.pixels, "sigma \(sigma)")
        }
    }

    func testConstantIsPreserved() {
        let p = FloatPlane(width: 12, height: 10, value: 0.37)
        for sigma in [0.5, 1.7, 4.0, 10.0] {
            let q = blurred(p, sigma: sigma)
            for v in q.pixels.prefix(120) { XCTAssertEqual(v, 0.37, accuracy: 1e-5, "sigma \(sigma)") }
        }
    }

    func testImpulseIsTheOuterProductOfTheKernelAndKeepsItsSum() {
        let n = 41, c = 20
        var p = FloatPlane(width: n, height: n)
        p[c, c] = 1
        let sigma = 2.0
        let q = blurred(p, sigma: sigma)
        let k = GaussianBlur.kernel(sigma: sigma), r = k.count / 2
        var sum = 0.0
        for y in 0..<n {
            for x in 0..<n {
                sum += Double(q[x, y])
                let dx = x - c, dy = y - c
                let want: Float = (abs(dx) <= r && abs(dy) <= r) ? k[dx + r] * k[dy + r] : 0
                XCTAssertEqual(q[x, y], want, accuracy: 1e-7)
            }
        }
        XCTAssertEqual(sum, 1, accuracy: 1e-5)
        // the peak stays at the impulse and is the largest value
        XCTAssertEqual(q.pixels.prefix(n * n).max(), q[c, c])
        XCTAssertEqual(Double(q[c, c]), 1 / (2 * Double.pi * sigma * sigma), accuracy: 2e-3)
    }

    func testInteriorSumIsPreserved() {
        // any picture whose support stays 3 sigma away from the border keeps its sum
        var p = FloatPlane(width: 30, height: 24)
        var rng = TestRandom(seed: 21)
        for y in 8..<16 { for x in 8..<22 { p[x, y] = Float(rng.unit()) } }
        let before = p.pixels.prefix(30 * 24).reduce(0.0) { $0 + Double($1) }
        let after = blurred(p, sigma: 2.0).pixels.prefix(30 * 24).reduce(0.0) { $0 + Double($1) }
        XCTAssertEqual(after, before, accuracy: 1e-4 * before)
    }

    func testSymmetricInputGivesSymmetricOutput() {
        // mirror-symmetric in x and y (and clamped edges are symmetric too)
        let w = 15, h = 11
        let p = makePlane(width: w, height: h) { x, y in
            let dx = Float(min(x, w - 1 - x)), dy = Float(min(y, h - 1 - y))
            return (dx * 0.13 + dy * 0.07).truncatingRemainder(dividingBy: 1)
        }
        let q = blurred(p, sigma: 1.6)
        for y in 0..<h {
            for x in 0..<w {
                XCTAssertEqual(q[x, y], q[w - 1 - x, y], accuracy: 1e-6)
                XCTAssertEqual(q[x, y], q[x, h - 1 - y], accuracy: 1e-6)
            }
        }
        // and a transposed input gives the transposed output
        let r = randomPlane(width: 8, height: 8, seed: 31)
        let rt = makePlane(width: 8, height: 8) { x, y in r[y, x] }
        let a = blurred(r, sigma: 1.2), b = blurred(rt, sigma: 1.2)
        for y in 0..<8 { for x in 0..<8 { XCTAssertEqual(a[x, y], b[y, x], accuracy: 1e-6) } }
    }

    func testEdgeIsClampedNotZeroPadded() {
        // a column of ones at the left edge: zero padding would give ~0.5 at x = 0
        let p = makePlane(width: 10, height: 3) { x, _ in x == 0 ? 1 : 0 }
        let q = blurred(p, sigma: 1.0)
        let k = GaussianBlur.kernel(sigma: 1.0)  // 7 taps, centre 3
        // clamped: x = 0 sees the edge value for offsets -3...0
        let want = k[0] + k[1] + k[2] + k[3]
        for y in 0..<3 { XCTAssertEqual(q[0, y], want, accuracy: 1e-6) }
        XCTAssertGreaterThan(q[0, 1], 0.6)
    }

    func testChangingSigmaOnTheSameBlurRecomputesTheKernel() {
        var b = GaussianBlur()
        let p = randomPlane(width: 12, height: 9, seed: 41)
        for sigma in [1.0, 2.5, 0.0, 1.0, 0.6] {
            var q = p
            b.apply(to: &q, sigma: sigma)
            XCTAssertEqual(b.sigma, sigma)
            XCTAssertLessThanOrEqual(maxDifference(q, Reference.blur(p.rows, sigma: sigma)), 1e-4, "sigma \(sigma)")
        }
        // and a different size after a larger one (scratch reuse)
        let small = randomPlane(width: 5, height: 4, seed: 42)
        var q = small
        b.apply(to: &q, sigma: 0.9)
        XCTAssertLessThanOrEqual(maxDifference(q, Reference.blur(small.rows, sigma: 0.9)), 1e-4)
    }
    func testLanesWhoseWindowIsAllOnesStayExactlyOneInsideASummedBlock() {
        // Columns 0-3 are 1 everywhere; columns 4-7 (same block of 8) have
        // one 0 at row 20, so that block is summed near row 20. A lane whose
        // windows are all 1s must still give exactly 1, not the kernel's
        // rounded sum. Only sigmas whose summed kernel is not exactly 1 in
        // Float tell the two apart, so the test looks for some.
        let p = makePlane(width: 8, height: 40) { x, y in x < 4 ? 1 : (y == 20 ? 0 : 1) }
        var checked = 0
        for sigma in stride(from: 0.4, through: 1.3, by: 0.05) {
            let k = GaussianBlur.kernel(sigma: sigma), r = k.count / 2
            guard r <= 3 else { continue }  // column 0's row window must stay inside columns 0-3
            var sum: Float = 0
            for v in k { sum += v * 1 }
            if sum == 1 { continue }
            checked += 1
            let q = blurred(p, sigma: sigma)
            for y in 15..<26 { XCTAssertEqual(q[0, y], 1, "sigma \(sigma), row \(y)") }
            XCTAssertLessThan(q[6, 20], 1)
        }
        XCTAssertGreaterThan(checked, 0, "no sigma with a kernel sum other than 1 in Float: the test checks nothing")
    }

    func testGammaAppliedByTheBlurEqualsTheGammaPassAfterIt() {
        // the original chain's fused step: the blur applies the curve and the
        // snap to the values it sums; every value must equal blur-then-gamma
        let disc = makePlane(width: 83, height: 41) { x, y in (x - 40) * (x - 40) + (y - 20) * (y - 20) < 225 ? 1 : 0 }
        let noise = randomPlane(width: 37, height: 29, seed: 51)
        for p in [disc, noise] {
            for (sigma, gamma) in [(2.5, 0.5), (5.0, 2.2), (0.9, 1.0)] {
                var b = GaussianBlur(), g = GammaCurve()
                var want = p
                b.apply(to: &want, sigma: sigma)
                g.apply(to: &want, gamma: gamma, snap: true)
                for threads in [1, 3] {
                    var got = p, b2 = GaussianBlur(), g2 = GammaCurve()
                    let blurred = g2.withMap(gamma: gamma, snap: true) { map in
                        b2.apply(to: &got, sigma: sigma, pool: threads > 1 ? WorkerPool() : nil, threads: threads, then: map)
                    }
                    XCTAssertTrue(blurred)
                    XCTAssertEqual(got.pixels, want.pixels, "sigma \(sigma), gamma \(gamma), \(threads) threads")
                }
            }
        }
        // no kernel: nothing applied, the caller runs the gamma pass itself
        var b = GaussianBlur(), g = GammaCurve(), q = noise
        XCTAssertFalse(g.withMap(gamma: 0.5, snap: true) { b.apply(to: &q, sigma: 0, then: $0) })
        XCTAssertEqual(q.pixels, noise.pixels)
    }
}
