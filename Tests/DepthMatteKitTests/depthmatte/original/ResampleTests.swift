// SPDX-License-Identifier: LGPL-2.1-or-later
import XCTest
@_spi(Bench) @testable import DepthMatteKit

final class CubicKernelTests: XCTestCase {
    func testDefaultIsKeysWithAMinusThreeQuarters() {
        let k = CubicKernel()
        XCTAssertEqual(k.b, 0); XCTAssertEqual(k.c, 0.75)
        var x = -2.5
        while x <= 2.5 {
            XCTAssertEqual(k.weight(x), Reference.keys(x), accuracy: 1e-12, "x = \(x)")
            x += 0.03125
        }
        XCTAssertEqual(k.weight(0), 1)
        XCTAssertEqual(k.weight(1), 0, accuracy: 1e-15)
        XCTAssertEqual(k.weight(-1), 0, accuracy: 1e-15)
        XCTAssertEqual(k.weight(2), 0)
        XCTAssertEqual(k.weight(0.5), 0.59375, accuracy: 1e-15)
        XCTAssertEqual(k.weight(1.5), -0.09375, accuracy: 1e-15)
    }

    func testMitchellOneThird() {
        let k = CubicKernel(b: 1.0 / 3, c: 1.0 / 3)
        XCTAssertEqual(k.weight(0), 8.0 / 9, accuracy: 1e-12)
        XCTAssertEqual(k.weight(1), 1.0 / 18, accuracy: 1e-12)
        XCTAssertEqual(k.weight(2), 0, accuracy: 1e-12)
    }

    func testPartitionOfUnity() {
        for k in [CubicKernel(), CubicKernel(b: 1.0 / 3, c: 1.0 / 3), CubicKernel(b: 1, c: 0)] {
            for i in 0...16 {
                let t = Double(i) / 16
                let s = k.weight(t + 1) + k.weight(t) + k.weight(1 - t) + k.weight(2 - t)
                XCTAssertEqual(s, 1, accuracy: 1e-12)
            }
        }
    }
}

final class CubicTableTests: XCTestCase {
    func testOddIntegerUpscaleHitsSourceCentres() {
        // x3: destination 3j+1 has its centre on source centre j
        let t = CubicTable(source: 4, destination: 12)
        for j in 0..<4 {
            let i = 3 * j + 1
            XCTAssertEqual(Array(t.weight[4 * i..<4 * i + 4]), [0, 1, 0, 0], "dst \(i)")
            XCTAssertEqual(t.index[4 * i + 1], Int32(j))
        }
    }

    func testIndicesAreClampedAndWeightsSumToOne() {
        for (s, d) in [(4, 12), (5, 13), (9, 4), (1, 7), (3, 3), (2, 1)] {
            let t = CubicTable(source: s, destination: d)
            XCTAssertEqual(t.index.count, 4 * d)
            for i in 0..<d {
                let w = t.weight[4 * i..<4 * i + 4].reduce(0, +)
                XCTAssertEqual(w, 1, accuracy: 1e-6)
                for k in 0..<4 { XCTAssertTrue((0..<Int32(s)).contains(t.index[4 * i + k])) }
            }
        }
        // 8 -> 16: destination 0 sits at source -0.25: taps -2,-1,0,1 clamp to 0,0,0,1
        let t = CubicTable(source: 8, destination: 16)
        XCTAssertEqual(Array(t.index[0..<4]), [0, 0, 0, 1])
        XCTAssertEqual(Array(t.index[60..<64]), [6, 7, 7, 7])  // destination 15 at 7.25
        XCTAssertEqual(Double(t.weight[0]), Reference.keys(1.75), accuracy: 1e-7)  // tap -2 at distance 1.75
        XCTAssertEqual(Double(t.weight[2]), Reference.keys(0.25), accuracy: 1e-7)
    }

    func testUpdateRebuildsOnlyWhenSizesChange() {
        var t = CubicTable(source: 4, destination: 8)
        t.update(source: 4, destination: 8)
        XCTAssertEqual(t, CubicTable(source: 4, destination: 8))
        t.update(source: 5, destination: 8)
        XCTAssertEqual(t, CubicTable(source: 5, destination: 8))
        t.update(source: 5, destination: 3)
        XCTAssertEqual(t, CubicTable(source: 5, destination: 3))
    }
}

final class CubicResamplerTests: XCTestCase {
    private func resample(_ p: FloatPlane, _ w: Int, _ h: Int) -> FloatPlane {
        var r = CubicResampler()
        return r.resample(p, width: w, height: h)
    }

    func testInterpolatesAtSamplePositionsForOddIntegerFactor() {
        let src = randomPlane(width: 4, height: 3, seed: 3)
        let out = resample(src, 12, 9)
        XCTAssertEqual(out.width, 12); XCTAssertEqual(out.height, 9)
        for y in 0..<3 { for x in 0..<4 { XCTAssertEqual(out[3 * x + 1, 3 * y + 1], src[x, y], accuracy: 1e-6) } }
        // x5 too
        let out5 = resample(src, 20, 15)
        for y in 0..<3 { for x in 0..<4 { XCTAssertEqual(out5[5 * x + 2, 5 * y + 2], src[x, y], accuracy: 1e-6) } }
    }

    func testSameSizeIsIdentity() {
        let src = randomPlane(width: 7, height: 5, seed: 4)
        XCTAssertEqual(Array(resample(src, 7, 5).pixels.prefix(35)), Array(src.pixels.prefix(35)))
    }

    func testOddIntegerDownscaleSamplesCentres() {
        // /3: destination i sits on source 3i + 1
        let src = randomPlane(width: 9, height: 6, seed: 5)
        let out = resample(src, 3, 2)
        for y in 0..<2 { for x in 0..<3 { XCTAssertEqual(out[x, y], src[3 * x + 1, 3 * y + 1], accuracy: 1e-6) } }
    }

    func testConstantStaysConstant() {
        let sizes: [(Int, Int, Int, Int)] = [(8, 6, 16, 12), (5, 3, 13, 7), (9, 7, 4, 3), (1, 1, 5, 4), (3, 1, 7, 5), (4, 4, 4, 4)]
        for (sw, sh, dw, dh) in sizes {
            let out = resample(FloatPlane(width: sw, height: sh, value: 0.6), dw, dh)
            for v in out.pixels.prefix(dw * dh) { XCTAssertEqual(v, 0.6, accuracy: 1e-6, "\(sw)x\(sh)->\(dw)x\(dh)") }
        }
    }

    func testOneByOneSourceFillsTheDestination() {
        let out = resample(makePlane([[0.3]]), 6, 5)
        XCTAssertEqual(out.width, 6); XCTAssertEqual(out.height, 5)
        for v in out.pixels.prefix(30) { XCTAssertEqual(v, 0.3, accuracy: 1e-6) }
    }

    func testMatchesReferenceBicubic() {
        let sizes: [(Int, Int, Int, Int)] = [
            (8, 6, 16, 12), (5, 3, 13, 7), (9, 7, 4, 3), (1, 1, 5, 4), (3, 1, 7, 5),
            (6, 6, 6, 6), (4, 5, 11, 23), (16, 12, 640 / 16, 480 / 16),
        ]
        for (i, (sw, sh, dw, dh)) in sizes.enumerated() {
            let src = randomPlane(width: sw, height: sh, seed: UInt64(100 + i))
            let got = resample(src, dw, dh)
            let want = Reference.bicubic(src.rows, width: dw, height: dh)
            XCTAssertLessThanOrEqual(maxDifference(got, want), 1e-5, "\(sw)x\(sh)->\(dw)x\(dh)")
        }
    }

    func testStepIsClampedToUnitRange() {
        // a sharp 0 -> 1 step: the a = -0.75 kernel over- and undershoots,
        // the resampler must clamp to [0, 1]
        let src = makePlane(width: 6, height: 6) { x, _ in x >= 3 ? 1 : 0 }
        let raw = Reference.bicubic(src.rows, width: 20, height: 6, clamp: false)
        XCTAssertGreaterThan(raw.flatMap { $0 }.max()!, 1.01, "the test needs overshoot")
        XCTAssertLessThan(raw.flatMap { $0 }.min()!, -0.01, "the test needs undershoot")
        let out = resample(src, 20, 6)
        for v in out.pixels.prefix(120) { XCTAssertTrue(v >= 0 && v <= 1, "\(v)") }
        XCTAssertLessThanOrEqual(maxDifference(out, Reference.bicubic(src.rows, width: 20, height: 6)), 1e-5)
        // monotone step: each row is non-decreasing after clamping
        for y in 0..<6 { for x in 1..<20 { XCTAssertGreaterThanOrEqual(out[x, y], out[x - 1, y]) } }
        // far from the step the values are exact
        XCTAssertEqual(out[0, 0], 0); XCTAssertEqual(out[19, 0], 1, accuracy: 1e-6)
    }

    func testCheckerboardStaysInUnitRange() {
        let src = makePlane(width: 5, height: 4) { x, y in Float((x + y) % 2) }
        let raw = Reference.bicubic(src.rows, width: 17, height: 11, clamp: false)
        let out = resample(src, 17, 11)
        var clamped = 0
        for y in 0..<11 {
            for x in 0..<17 {
                XCTAssertTrue(out[x, y] >= 0 && out[x, y] <= 1)
                if raw[y][x] > 1 + 1e-4 { XCTAssertEqual(out[x, y], 1); clamped += 1 }
                if raw[y][x] < -1e-4 { XCTAssertEqual(out[x, y], 0); clamped += 1 }
            }
        }
        XCTAssertGreaterThan(clamped, 0, "the test needs over- or undershoot")
    }

    func testRowAPIMatchesWholePlaneAndResamplerCanBeReused() {
        var r = CubicResampler()
        for (i, (sw, sh, dw, dh)) in [(4, 3, 10, 7), (8, 8, 5, 3), (4, 3, 10, 7), (2, 2, 2, 9)].enumerated() {
            let src = randomPlane(width: sw, height: sh, seed: UInt64(200 + i))
            r.prepare(src, width: dw, height: dh)
            XCTAssertEqual(r.columns.destination, dw); XCTAssertEqual(r.rows.destination, dh)
            var row = [Float](repeating: -1, count: dw)
            let want = Reference.bicubic(src.rows, width: dw, height: dh)
            for y in 0..<dh {
                row.withUnsafeMutableBufferPointer { r.row(y, into: $0.baseAddress!) }
                for x in 0..<dw { XCTAssertEqual(Double(row[x]), want[y][x], accuracy: 1e-5, "case \(i) (\(x),\(y))") }
            }
        }
    }
}

final class AspectFillTests: XCTestCase {
    private func position(_ t: AspectFillTable, _ i: Int) -> Double { Double(t.i0[i]) + Double(t.frac[i]) }

    func testFillScaleCoversTheOutput() {
        XCTAssertEqual(AspectFillTable.fillScale(sourceWidth: 8, sourceHeight: 6, width: 32, height: 18), 4)    // 4:3 into 16:9
        XCTAssertEqual(AspectFillTable.fillScale(sourceWidth: 32, sourceHeight: 18, width: 8, height: 6), 1.0 / 3)  // 16:9 into 4:3
        XCTAssertEqual(AspectFillTable.fillScale(sourceWidth: 10, sourceHeight: 10, width: 20, height: 20), 2)
        XCTAssertEqual(AspectFillTable.fillScale(sourceWidth: 640, sourceHeight: 480, width: 1280, height: 720), 2)
    }

    func testFourThreeIntoSixteenNineCropsTopAndBottomSymmetrically() {
        // 8x6 scaled by 4 = 32x24, centre 18 rows kept: 3 output rows (0.75
        // source rows) cropped at the top and at the bottom, none at the sides.
        let s = AspectFillTable.fillScale(sourceWidth: 8, sourceHeight: 6, width: 32, height: 18)
        let cols = AspectFillTable(source: 8, destination: 32, scale: s)
        let rows = AspectFillTable(source: 6, destination: 18, scale: s)
        // rows: destination y samples source (y + 0.5) / 4 + 0.25
        for y in 0..<18 { XCTAssertEqual(position(rows, y), (Double(y) + 0.5) / 4 + 0.25, accuracy: 1e-6, "row \(y)") }
        XCTAssertEqual(position(rows, 0), 0.375, accuracy: 1e-6)
        XCTAssertEqual(position(rows, 17), 4.625, accuracy: 1e-6)
        // columns: full width, centre aligned, clamped at the ends
        XCTAssertEqual(position(cols, 0), 0, accuracy: 1e-6)          // -0.375 clamped
        XCTAssertEqual(position(cols, 1), 0, accuracy: 1e-6)          // -0.125 clamped
        XCTAssertEqual(position(cols, 2), 0.125, accuracy: 1e-6)
        XCTAssertEqual(position(cols, 31), 7, accuracy: 1e-6)
        // symmetric about the centre
        for y in 0..<18 { XCTAssertEqual(position(rows, y) + position(rows, 17 - y), 5, accuracy: 1e-6) }
        for x in 0..<32 { XCTAssertEqual(position(cols, x) + position(cols, 31 - x), 7, accuracy: 1e-6) }
        // i1 is the next source index (clamped), frac in [0, 1)
        for t in [rows, cols] {
            for i in 0..<t.destination {
                XCTAssertEqual(t.i1[i], min(t.i0[i] + 1, Int32(t.source - 1)))
                XCTAssertTrue(t.frac[i] >= 0 && t.frac[i] < 1)
            }
        }
    }

    func testWideBackgroundIntoNarrowOutputCropsTheSides() {
        // 16x4 into 4x4: scale 1, keep the centre 4 columns (source 6...9)
        let s = AspectFillTable.fillScale(sourceWidth: 16, sourceHeight: 4, width: 4, height: 4)
        XCTAssertEqual(s, 1)
        let cols = AspectFillTable(source: 16, destination: 4, scale: s)
        XCTAssertEqual(cols.i0, [6, 7, 8, 9])
        XCTAssertEqual(cols.frac, [0, 0, 0, 0])
        let rows = AspectFillTable(source: 4, destination: 4, scale: s)
        XCTAssertEqual(rows.i0, [0, 1, 2, 3])
    }

    func testDownscaledFill() {
        // 40x30 into 8x6: scale 0.2, destination i at source 5i + 2
        let t = AspectFillTable(source: 40, destination: 8, scale: 0.2)
        for i in 0..<8 { XCTAssertEqual(position(t, i), Double(5 * i + 2), accuracy: 1e-6) }
    }
}
