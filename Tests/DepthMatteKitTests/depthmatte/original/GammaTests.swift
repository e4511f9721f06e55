// SPDX-License-Identifier: LGPL-2.1-or-later
import XCTest
@_spi(Bench) @testable import DepthMatteKit

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

final class GammaTests: XCTestCase {
    private func applied(_ values: [Float], gamma: Double) -> [Float] {
        var p = FloatPlane(width: values.count, height: 1)
        for (i, v) in values.enumerated() { p[i, 0] = v }
        var g = GammaCurve()
        g.apply(to: &p, gamma: gamma)
        return Array(p.pixels.prefix(values.count))
    }

    /// A grid over [0, 1] plus deterministic random values.
    private var samples: [Float] {
        var v = (0...1000).map { Float($0) / 1000 }
        var rng = TestRandom(seed: 5)
        for _ in 0..<2000 { v.append(Float(rng.unit())) }
        return v
    }

    func testMatchesPowAwayFromZero() {
        for gamma in [0.5, 0.3, 0.8, 1.7, 2.0, 3.0] {
            let x = samples.filter { $0 >= 1e-3 }
            let y = applied(x, gamma: gamma)
            var worst: Double = 0
            for (a, b) in zip(x, y) { worst = max(worst, abs(Double(b) - pow(Double(a), gamma))) }
            XCTAssertLessThanOrEqual(worst, 1e-4, "gamma \(gamma)")
        }
    }

    func testZeroAndOneAreFixedPoints() {
        for gamma in [0.01, 0.3, 0.5, 1.0, 2.0, 10.0] {
            let y = applied([0, 1], gamma: gamma)
            XCTAssertEqual(y[0], 0, "gamma \(gamma)")
            XCTAssertEqual(y[1], 1, "gamma \(gamma)")
        }
    }

    func testGammaOneIsIdentity() {
        let x = samples
        XCTAssertEqual(applied(x, gamma: 1), x)
    }

    func testOutOfRangeInputIsClamped() {
        let y = applied([-0.5, -1e-9, 1.0000001, 7], gamma: 0.5)
        XCTAssertEqual(y, [0, 0, 1, 1])
    }

    func testMonotone() {
        let x = (0...20000).map { Float($0) / 20000 }
        for gamma in [0.5, 2.0] {
            let y = applied(x, gamma: gamma)
            for i in 1..<y.count { XCTAssertGreaterThanOrEqual(y[i], y[i - 1], "gamma \(gamma) at \(x[i])") }
        }
    }

    /// Continuous and monotone across the whole range, including the switch
    /// between the small-value path and the uniform table.
    func testMonotoneOnALogSweep() {
        var x: [Float] = []
        var v: Float = 1
        while v > 1e-30 { x.append(v); v *= 0.999 }
        x.reverse()
        x += (0...400).map { Float(1.0 / 4096) * (0.99 + Float($0) * 0.00005) }  // dense around 2^-12
        x += (0...400).map { Float(1.0 / 65536) * (0.99 + Float($0) * 0.00005) }  // and around 2^-16
        x.sort()
        for gamma in [0.01, 0.1, 0.5, 2.0, 10] {
            let y = applied(x, gamma: gamma)
            for i in 1..<y.count {
                XCTAssertGreaterThanOrEqual(y[i] + 2e-7 * max(1, y[i]), y[i - 1], "gamma \(gamma) at \(x[i])")
                if y[i] + 2e-7 < y[i - 1] { break }
            }
        }
    }

    func testKnownValues() {
        let y = applied([0.25, 0.5, 0.81], gamma: 0.5)
        XCTAssertEqual(y[0], 0.5, accuracy: 1e-6)
        XCTAssertEqual(y[1], Float(0.5.squareRoot()), accuracy: 1e-6)
        XCTAssertEqual(y[2], 0.9, accuracy: 1e-6)
        let z = applied([0.5, 0.1], gamma: 2)
        XCTAssertEqual(z[0], 0.25, accuracy: 1e-6)
        XCTAssertEqual(z[1], 0.01, accuracy: 1e-6)
    }

    func testChangingGammaRebuildsTheTable() {
        var g = GammaCurve()
        for gamma in [0.5, 2.0, 0.5, 1.0, 3.0] {
            var p = makePlane([[0.2, 0.6]])
            g.apply(to: &p, gamma: gamma)
            XCTAssertEqual(Double(p[0, 0]), pow(0.2, gamma), accuracy: 1e-5, "gamma \(gamma)")
            XCTAssertEqual(Double(p[1, 0]), pow(0.6, gamma), accuracy: 1e-5, "gamma \(gamma)")
        }
    }

    /// Tiny matte values (the tail of the blurred mask) must not be grossly
    /// wrong either: within half an 8-bit step of pow, for every
    /// gamma the element accepts (0.01...10).
    func testTinyValuesWithinHalfAnEightBitStep() {
        var x: [Float] = []
        var v: Float = 1e-3
        while v > 8 * Float.leastNonzeroMagnitude { x.append(v); v *= 0.83 }  // down into subnormals
        for gamma in [0.01, 0.1, 0.3, 0.5, 0.7, 1.5, 10] {
            let y = applied(x, gamma: gamma)
            var worst: Double = 0, at: Float = 0
            for (a, b) in zip(x, y) {
                let e = abs(Double(b) - pow(Double(a), gamma))
                if e > worst { worst = e; at = a }
            }
            XCTAssertLessThanOrEqual(worst, 1.0 / 510, "gamma \(gamma): worst at m = \(at)")
        }
    }

    func testSnapAndBandsEqualTheSerialCurveThenSnap() {
        // the fused pass (curve, then values within 1e-4 of 0 or 1 snapped),
        // split into 1 or 3 bands, against the curve alone and snapToEnds
        var v = samples
        v += [0, 1, 5e-5, 1 - 5e-5, 2e-4, -0.5, 1.5]
        var plane = FloatPlane(width: 101, height: (v.count + 100) / 101)
        for (i, x) in v.enumerated() { plane.pixels[i] = x }
        for gamma in [0.5, 1.0, 2.2] {
            var want = plane
            var g = GammaCurve()
            g.apply(to: &want, gamma: gamma)
            if gamma == 1 { for i in want.pixels.indices { want.pixels[i] = min(max(want.pixels[i], 0), 1) } }
            want.snapToEnds()
            for threads in [1, 3] {
                var got = plane
                var h = GammaCurve()
                h.apply(to: &got, gamma: gamma, snap: true, pool: WorkerPool(), threads: threads)
                XCTAssertEqual(got.pixels.map(\.bitPattern), want.pixels.map(\.bitPattern), "gamma \(gamma), \(threads) band(s)")
            }
        }
        // snapped: nothing strictly inside (0, 1e-4) or (1 - 1e-4, 1)
        var p = plane
        var g = GammaCurve()
        g.apply(to: &p, gamma: 0.5, snap: true)
        XCTAssertFalse(p.pixels.contains { ($0 > 0 && $0 < 1e-4) || ($0 < 1 && $0 > 1 - 1e-4) })
    }
}
