// SPDX-License-Identifier: LGPL-2.1-or-later
import XCTest
@_spi(Bench) @testable import DepthMatteKit

/// The guided filter's grouped box means (`MatteRefiner.boxMean4`, four
/// interleaved planes) equal the one-plane `boxMean` of each plane to the
/// bit, in Swift and in `DMKernels`' AVX2 kernel (when the CPU has it),
/// for pictures narrower and shorter than the window, heights about two
/// windows (16, 17, 18 at r 6), odd widths, rows of 4K video, and every lane
/// count.
final class BoxMeanGroupTests: XCTestCase {
    func testGroupedMeansEqualThePlaneMeansToTheBit() {
        var seed: UInt64 = 0x9e37_79b9_7f4a_7c15
        func next() -> Float {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let u = Float(seed >> 40) / Float(1 << 24)
            // (values of every size the products take: 0, tiny, up to 1, a few negative)
            switch seed >> 61 {
            case 0: return 0
            case 1: return u * 1e-6
            case 2: return -u
            default: return u
            }
        }
        for (w, h, r) in [(50, 31, 6), (7, 5, 6), (13, 20, 6), (320, 180, 6), (1, 1, 2), (17, 3, 1), (14, 14, 6), (9, 40, 4),
                          (11, 16, 6), (33, 17, 6), (5, 18, 6), (1, 50, 3), (641, 43, 6), (3840, 21, 6)] {
            let n = w * h
            var src = [Float](repeating: 0, count: 4 * n)
            for i in 0..<(4 * n) { src[i] = next() }
            // the reference: each plane alone
            var reference = [Float](repeating: 0, count: 4 * n)
            var plane = [Float](repeating: 0, count: n), tmp = [Float](repeating: 0, count: 4 * n)
            var sums = [Double](repeating: 0, count: 4 * w)
            for lane in 0..<4 {
                for i in 0..<n { plane[i] = src[4 * i + lane] }
                plane.withUnsafeBufferPointer { S in
                    reference.withUnsafeMutableBufferPointer { D in
                        MatteRefiner.boxMean(S.baseAddress!, into: D.baseAddress! + lane * n, width: w, height: h, radius: r,
                                             tmp: tmp.withUnsafeMutableBufferPointer { $0.baseAddress! },
                                             sums: sums.withUnsafeMutableBufferPointer { $0.baseAddress! })
                    }
                }
            }
            for avx2 in [false, true] where !avx2 || kernelsHaveAVX2 {
                for lanes in 1...4 {
                    let out = Self.boxMean4(src, width: w, height: h, radius: r, lanes: lanes, avx2: avx2,
                                            unwritten: .nan)
                    for lane in 0..<4 {
                        for i in 0..<n {
                            if lane < lanes {
                                XCTAssertEqual(out[lane * n + i].bitPattern, reference[lane * n + i].bitPattern,
                                               "\(w)x\(h) r \(r) lane \(lane) of \(lanes) pixel \(i) avx2 \(avx2)")
                            } else {
                                XCTAssert(out[lane * n + i].isNaN, "lane \(lane) of \(lanes) written")
                            }
                        }
                    }
                }
            }
        }
    }

    /// The product groups made as the box means read group 0 (`group` 1 ... 3)
    /// equal the means of the products stored beforehand, to the bit, in
    /// Swift and in the AVX2 kernel.
    func testProductGroupsEqualTheStoredProducts() {
        var seed: UInt64 = 0x2545_f491_4f6c_dd1d
        func next() -> Float {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Float(seed >> 40) / Float(1 << 24)
        }
        for (w, h, r) in [(50, 31, 6), (7, 5, 6), (320, 180, 6), (17, 3, 1), (33, 17, 6), (3, 22, 6), (3840, 19, 6)] {
            let n = w * h
            var g0 = [Float](repeating: 0, count: 4 * n)
            for i in 0..<(4 * n) { g0[i] = next() }
            for group in 1...3 {
                var stored = [Float](repeating: 0, count: 4 * n)
                for i in 0..<n {
                    let R = g0[4 * i], G = g0[4 * i + 1], B = g0[4 * i + 2], p = g0[4 * i + 3]
                    let v: [Float] = group == 1 ? [R * p, G * p, B * p, R * R]
                        : group == 2 ? [R * G, R * B, G * G, G * B] : [B * B, p * p, 0, 0]
                    for c in 0..<4 { stored[4 * i + c] = v[c] }
                }
                func means(_ src: [Float], group g: Int, lanes: Int, avx2: Bool) -> [Float] {
                    Self.boxMean4(src, width: w, height: h, radius: r, lanes: lanes, avx2: avx2, group: g)
                }
                // (group 3: BB and pp, or BB alone without the fit confidence)
                for lanes in group == 3 ? [1, 2] : [4] {
                    let reference = means(stored, group: 0, lanes: lanes, avx2: false)
                    for avx2 in [false, true] where !avx2 || kernelsHaveAVX2 {
                        let made = means(g0, group: group, lanes: lanes, avx2: avx2)
                        for i in 0..<(lanes * n) where made[i].bitPattern != reference[i].bitPattern {
                            XCTFail("\(w)x\(h) r \(r) group \(group) lanes \(lanes) value \(i) avx2 \(avx2)")
                            break
                        }
                    }
                }
            }
        }
    }

    /// `MatteRefiner.boxMean4` of four interleaved w x h planes in `src`, into
    /// planes filled with `unwritten` beforehand (fresh scratch each call).
    private static func boxMean4(_ src: [Float], width w: Int, height h: Int, radius r: Int, lanes: Int,
                                 avx2: Bool, group: Int = 0, unwritten: Float = 0) -> [Float] {
        let n = w * h
        var out = [Float](repeating: unwritten, count: 4 * n)
        var tmp = [Float](repeating: 0, count: 4 * n), sums = [Double](repeating: 0, count: 4 * w)
        src.withUnsafeBufferPointer { S in
            out.withUnsafeMutableBufferPointer { D in
                tmp.withUnsafeMutableBufferPointer { T in
                    sums.withUnsafeMutableBufferPointer { C in
                        MatteRefiner.boxMean4(S.baseAddress!, into: D.baseAddress!, planeStride: n, lanes: lanes,
                                              width: w, height: h, radius: r, tmp: T.baseAddress!,
                                              sums: C.baseAddress!, avx2: avx2, group: group)
                    }
                }
            }
        }
        return out
    }
}
