// SPDX-License-Identifier: LGPL-2.1-or-later
import XCTest
@_spi(Bench) @testable import DepthMatteKit

/// The fit of 2.4 computed only where the output grid and 2.8 read it
/// (`RefinePass.modelReach`) gives the matte of the fit computed in every
/// window, to the bit: a subject in the left part of the picture moving left
/// in the depth by more than the interior margin a frame while the video
/// stays (2.6 holds last frame's soft edge where 2.8 reads the confidence
/// outside the rectangle: the completion), with the fit's planes (the
/// product means, the coefficients, their means, the low fit) and 2.8's
/// grid planes filled with NaN or with 0.25 before every frame, so a value
/// read but not computed this frame would show in the matte; also with
/// interior labels next to the colour model's soft values (no interior
/// margin, no range clamp), where 2.8 reads `settled`.
final class FitReachTests: XCTestCase {
    /// A dark hole inside the subject's first frame, where 2.8 reads the
    /// pixels left of it that `output` settled.
    static func spot(_ x: Int, _ y: Int) -> Bool { (60...61).contains(x) && (24...25).contains(y) }

    static func draw(_ f: Int, video v: TestRGB, depth d: TestDepth) {
        var rng = TestRandom(seed: 7)
        let cx = [60, 45, 30, 20, 20][f], cy = 25, radius = 11
        for y in 0..<d.height {
            for x in 0..<d.width {
                let dx = x - cx, dy = y - cy
                var z: UInt16 = dx * dx + dy * dy <= radius * radius ? 900 : 2500
                if x < 15 && rng.int(0...20) == 0 { z = 0 }  // (holes, left of the subject)
                if spot(x, y) { z = 0 }
                d[x, y] = z
            }
        }
        let k = v.width / d.width
        for y in 0..<v.height {
            for x in 0..<v.width {
                // (the video still: 2.6 holds last frame's soft edge where only the depth moved)
                let dx = Double(x) / Double(k) - 60, dy = Double(y) / Double(k) - Double(cy)
                let t = UInt8(rng.int(0...30))
                v[x, y] = spot(x / k, y / k) ? RGBA(20, 20, 20, 255) : dx * dx + dy * dy <= Double(radius * radius)
                    ? RGBA(200 &+ t / 2, 90 &+ t, 60, 255) : RGBA(40 &+ t, UInt8(min(255, 60 + x / 2)), 150 &+ t, 255)
            }
        }
    }

    func mattes(everywhere: Bool, kernels: Bool, threads: Int, pool: WorkerPool, poison: Float,
                narrow: Bool) -> [UInt32] {
        let v = TestRGB(width: 194, height: 122, layout: .bgra), d = TestDepth(width: 97, height: 61)
        var r = MatteRefiner()
        if narrow {
            // (interior labels next to the colour model's soft values)
            r.tuning.interiorMargin = 0; r.tuning.rangeClamp = false
        }
        r.tuning.fitEverywhere = everywhere
        r.tuning.kernels = kernels
        var m = FloatPlane(), bits: [UInt32] = []
        for f in 0..<5 {
            Self.draw(f, video: v, depth: d)
            if f > 0 {
                let F = r.scratch.planes.base, n = RefineLayout.planeStride(d.width * d.height)
                let gn = RefineLayout.planeStride(v.width * v.height)
                // (the product means but that of w, which is never written)
                (F + (RefineLayout.productMeans + 1) * n).update(
                    repeating: poison, count: (RefineLayout.bandScratch - RefineLayout.productMeans - 1) * n)
                (F + RefineLayout.low * n).update(repeating: poison, count: n)
                let grid = F + (RefineLayout.bandScratch + 4 * threads) * n
                (grid + RefineLayout.rawGridPlane * gn).update(repeating: poison, count: 2 * gn)
            }
            r.refine(depth: d.view, scale: 0.001, cutoff: 1.4, video: v.view, temporal: true,
                     pool: threads > 1 ? pool : nil, threads: threads, into: &m)
            bits += m.pixels.prefix(m.width * m.height).map(\.bitPattern)
        }
        return bits
    }

    func testFitWhereReadEqualsFitEverywhere() {
        // (and the AVX2 kernels' matte the Swift one's: their output grid
        // leaves 2.8's `settled` unwritten where 2.8 does not look)
        let pool = WorkerPool()
        for narrow in [false, true] {
            let reference = mattes(everywhere: true, kernels: false, threads: 1, pool: pool, poison: .nan, narrow: narrow)
            XCTAssertFalse(reference.contains { Float(bitPattern: $0).isNaN })
            // (a soft edge: the fit is read)
            XCTAssertTrue(reference.contains { let m = Float(bitPattern: $0); return m > 0 && m < 1 })
            for kernels in [false, true] {
                for (threads, poison) in [(1, Float.nan), (3, Float.nan), (1, 0.25), (3, 0.25)] {
                    for everywhere in [true, false] {
                        let m = mattes(everywhere: everywhere, kernels: kernels, threads: threads, pool: pool, poison: poison,
                                       narrow: narrow)
                        XCTAssertEqual(m.count, reference.count)
                        if let i = m.indices.first(where: { m[$0] != reference[$0] }) {
                            XCTFail("kernels \(kernels), \(threads) threads, arena \(poison), everywhere \(everywhere), "
                                    + "narrow \(narrow): value \(i) differs")
                        }
                    }
                }
            }
        }
    }
}
