// SPDX-License-Identifier: LGPL-2.1-or-later
import XCTest
@_spi(Bench) @testable import DepthMatteKit

/// The compositor's word path by `DMKernels`' AVX2 kernels (uniform runs,
/// streamed lines of a large frame, the edge runs' colour detail and blend)
/// gives the Swift path's output and coverage to the bit: every output mode,
/// over a colour and a background placed or not, with and without the
/// detail, 4-byte layouts with and without alpha, padded rows (unaligned
/// pixels), widths that are not a multiple of 8, 1 × 1, 4K rows, 1 and 2 threads.
final class CompositorKernelTests: XCTestCase {
    private struct Random {
        var s: UInt64
        mutating func next() -> Float {
            s = s &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Float(s >> 40) / Float(1 << 24)
        }
    }

    /// A soft disc (0 outside, 1 inside, a ramp between) with a few stray
    /// values, `sw` × `sh`.
    private static func matte(_ sw: Int, _ sh: Int, _ rnd: inout Random) -> FloatPlane {
        var m = FloatPlane(width: sw, height: sh)
        let cx = Float(sw) * 0.45, cy = Float(sh) * 0.55, r = Float(min(sw, sh)) * 0.35 + 0.5
        for y in 0..<sh {
            for x in 0..<sw {
                let d = ((Float(x) - cx) * (Float(x) - cx) + (Float(y) - cy) * (Float(y) - cy)).squareRoot()
                var v = min(max((r - d) / 2, 0), 1)
                if rnd.next() < 0.02 { v = rnd.next() }
                m.pixels[y * sw + x] = v
            }
        }
        return m
    }

    /// (gR, gG, gB, offset) per matte pixel; a third of the cells 0.
    private static func detail(_ sw: Int, _ sh: Int, _ rnd: inout Random) -> FloatPlane {
        var d = FloatPlane(width: 4 * sw, height: sh)
        for i in 0..<(sw * sh) where rnd.next() > 0.33 {
            for c in 0..<3 { d.pixels[4 * i + c] = (rnd.next() - 0.5) * 0.008 }
            d.pixels[4 * i + 3] = rnd.next() - 0.5
        }
        return d
    }

    private static func picture(_ w: Int, _ h: Int, _ layout: Layout, _ rnd: inout Random, padding: Int) -> TestRGB {
        let p = TestRGB(width: w, height: h, layout: layout, padding: padding)
        for y in 0..<h {
            for x in 0..<w {
                p[x, y] = RGBA(UInt8(rnd.next() * 255), UInt8(rnd.next() * 255), UInt8(rnd.next() * 255),
                               UInt8(rnd.next() * 255))
            }
        }
        return p
    }

    func testKernelsGiveTheSwiftOutput() throws {
        try XCTSkipUnless(kernelsHaveAVX2, "no AVX2")
        let pool = WorkerPool()
        var rnd = Random(s: 0x2545_f491_4f6c_dd1d)
        // (output W, H; matte sw, sh; padding; all modes or composite only)
        let sizes: [(Int, Int, Int, Int, Int, Bool)] = [
            (37, 23, 13, 8, 0, true), (37, 23, 13, 8, 5, true), (1, 1, 1, 1, 0, true), (61, 45, 20, 15, 3, true),
            (3840, 6, 1280, 2, 0, true),
            // (at least `streamBytes`: the uniform runs' lines streamed; unaligned rows too)
            (1920, 300, 640, 100, 0, false), (1283, 420, 431, 140, 7, false),
        ]
        for (W, H, sw, sh, padding, allModes) in sizes {
            let m = Self.matte(sw, sh, &rnd), d = Self.detail(sw, sh, &rnd)
            for layout in [Layout.bgra, .argb, .rgbx] where allModes || layout == .bgra {
                let video = Self.picture(W, H, layout, &rnd, padding: padding)
                let direct = Self.picture(W, H, layout, &rnd, padding: 0)
                let placed = Self.picture(max(1, W / 2 + 3), max(1, H / 3 + 1), layout, &rnd, padding: 1)
                for mode in allModes ? [MatteOutput.composite, .matte, .alpha] : [.composite] {
                    for background in [nil, direct, placed] where mode == .composite || background == nil {
                        for withDetail in [false, true] {
                            for threads in allModes ? [1, 2] : [2] {
                                var results: [([UInt8], Int)] = []
                                for avx2 in [false, true] {
                                    let out = TestRGB(width: W, height: H, layout: layout, padding: padding, paddingByte: 0x5A)
                                    var c = MatteCompositor()
                                    c.avx2 = avx2
                                    let covered = c.run(matte: m, detail: withDetail ? d : nil, video: video.view,
                                                        background: background?.view, color: ARGBColor(argb: 0xff30_c060),
                                                        output: out.view, mode: mode, pool: pool, threads: threads)
                                    results.append((Array(UnsafeBufferPointer(start: out.bytes, count: out.stride * H)), covered))
                                }
                                let what = "\(W)x\(H) from \(sw)x\(sh) pad \(padding) \(layout) \(mode) "
                                    + "background \(background == nil ? "colour" : background === direct ? "direct" : "placed") "
                                    + "detail \(withDetail) threads \(threads)"
                                XCTAssertEqual(results[0].1, results[1].1, "covered: " + what)
                                if let i = results[0].0.indices.first(where: { results[0].0[$0] != results[1].0[$0] }) {
                                    XCTFail("byte \(i) (row \(i / video.stride)): \(results[0].0[i]) vs \(results[1].0[i]): " + what)
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}
