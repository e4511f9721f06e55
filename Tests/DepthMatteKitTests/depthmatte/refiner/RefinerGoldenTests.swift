// SPDX-License-Identifier: LGPL-2.1-or-later
import XCTest
@_spi(Bench) @testable import DepthMatteKit
import DMContract

/// Golden outputs of the refiner and the compositor (they were
/// split into parts with no change in any output value). Each case hashes
/// every output bit (FNV-1a over the float bit patterns or the output bytes)
/// over several frames of the synthetic scene with every depth artefact; the
/// hashes were recorded before the split (re-recorded for the deliberate
/// changes since: step 3's colour detail, 2.2's shadow fill and shadow
/// readings, 2.6's colour hold on; 2.3's `backgroundBand` 1 and 2.6's
/// `temporalLeak` 0.25 and `labelHold` 0.2, whose case "earlier band and
/// hold" sets them back and kept the earlier default's hash; 2.8's edge
/// contrast, whose case "no edge contrast" keeps the hash before it). A deliberate change of the
/// algorithm changes them: record the new ones (the failure message prints them).
final class RefinerGoldenTests: XCTestCase {
    struct Hash {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        mutating func add(_ v: UInt32) {
            for s in stride(from: 0, to: 32, by: 8) { h = (h ^ UInt64((v >> UInt32(s)) & 0xff)) &* 0x100_0000_01b3 }
        }
        mutating func add(_ p: FloatPlane) {
            add(UInt32(p.width)); add(UInt32(p.height))
            for v in p.pixels.prefix(p.width * p.height) { add(v.bitPattern) }
        }
        mutating func add(_ img: TestRGB) {
            for y in 0..<img.height {
                for x in 0..<(img.width * img.layout.pixelStride) { h = (h ^ UInt64(img.bytes[y * img.stride + x])) &* 0x100_0000_01b3 }
            }
        }
    }

    /// The refiner alone: sizes with uneven bands and plane tails, every
    /// option switched off once, temporal on and off, 1 and 3 bands.
    func refinerHash(_ configure: (inout MatteRefiner) -> Void, temporal: Bool = true) -> UInt64 {
        var hash = Hash()
        let pool = WorkerPool()
        for (vw, vh, dw, dh) in [(333, 201, 160, 90), (97, 61, 50, 31), (960, 540, 160, 90)] {
            let v = TestRGB(width: vw, height: vh, layout: .bgra), d = TestDepth(width: dw, height: dh)
            for threads in [1, 3] {
                var r = MatteRefiner()
                configure(&r)
                var m = FloatPlane()
                for f in 0..<3 {
                    RefineTests.render(5.5 + 0.3 * Double(f), video: v, depth: d)
                    r.refine(depth: d.view, scale: 0.001, cutoff: 1.4, video: v.view, temporal: temporal,
                             pool: threads > 1 ? pool : nil, threads: threads, into: &m)
                    hash.add(m)
                }
            }
        }
        // a video layout without the 4-byte guide path
        let v = TestRGB(width: 200, height: 120, layout: .rgb), d = TestDepth(width: 100, height: 60)
        var r = MatteRefiner()
        configure(&r)
        var m = FloatPlane()
        RefineTests.render(6, video: v, depth: d)
        r.refine(depth: d.view, scale: 0.001, cutoff: 1.4, video: v.view, temporal: temporal, into: &m)
        hash.add(m)
        return hash.h
    }

    func testRefinerOutputsAreUnchanged() {
        let cases: [(String, UInt64, (inout MatteRefiner) -> Void, Bool)] = [
            ("default", 0x8ea98b000159a8ec, { _ in }, true),
            // (the Swift kernels instead of DMKernels' AVX2 ones: the same bits)
            ("Swift kernels", 0x8ea98b000159a8ec, { $0.tuning.kernels = false }, true),
            ("no temporal", 0x51700194dcdcedc0, { _ in }, false),
            ("no fit weighting", 0xa9fd54bf0e728a9f, { $0.tuning.fitWeighting = false }, true),
            // (the fit floor set back: the earlier default, with 2.8 on)
            ("fit floor 1e-3", 0x64960664e8f72938, { $0.tuning.fitFloor = 1e-3 }, true),
            ("edge smoothing alone, no gate", 0xb860bcf135388273, { $0.tuning.edgeContrast = 1; $0.tuning.edgeGate = 0 }, true),
            // (2.8 off: the earlier default, to the bit)
            ("no edge contrast", 0xf25a2e157e7c75c9, { $0.tuning.edgeContrast = 0 }, true),
            ("no range clamp", 0xa1f2361fbbf60df1, { $0.tuning.rangeClamp = false }, true),
            ("no match widening", 0x6e9b3666f69d235c, { $0.tuning.matchWidening = false }, true),
            ("window means only", 0x5b3af2e4982485e9, { $0.tuning.decisionRadius = 0 }, true),
            ("upscale 1, radius 4", 0x586136b5f2e8fe63, { $0.tuning.maxUpscale = 1; $0.tuning.radius = 4 }, true),
            // (`backgroundBand`, `temporalLeak` and `labelHold` set back, with 2.8 on)
            ("earlier band and hold", 0x2ded2c6d3a98a3b7, { $0.tuning.backgroundBand = 2; $0.tuning.temporalLeak = 0.35; $0.tuning.labelHold = 0.3 }, true),
        ]
        var got: [String] = []
        for (name, expected, configure, temporal) in cases {
            let h = refinerHash(configure, temporal: temporal)
            got.append("(\"\(name)\", 0x\(String(h, radix: 16)))")
            XCTAssertEqual(h, expected, name)
        }
        if got.count != cases.count || zip(cases, got).contains(where: { !$1.contains(String($0.1, radix: 16)) }) {
            print("refiner golden hashes:\n" + got.joined(separator: "\n"))
        }
    }

    /// The whole element (refiner and compositor) in every output mode, over
    /// a colour and over a background that is placed (aspect fill) or not,
    /// 4-byte and 3-byte layouts, 1 and 2 threads, each refine mode.
    func testDepthMatterOutputsAreUnchanged() {
        var got: [String] = []
        var results: [UInt64] = []
        for refine in [MatteRefine.guided, .original, .none] {
            var hash = Hash()
            for layout in [Layout.bgra, .rgb] {
                let v = TestRGB(width: 333, height: 201, layout: layout), d = TestDepth(width: 160, height: 90)
                let placed = TestRGB(width: 120, height: 90, layout: layout)
                let direct = TestRGB(width: 333, height: 201, layout: layout)
                for y in 0..<90 { for x in 0..<120 { placed[x, y] = RGBA(UInt8(x * 2), UInt8(y * 2), 77) } }
                for y in 0..<201 { for x in 0..<333 { direct[x, y] = RGBA(UInt8(x % 256), 31, UInt8(y)) } }
                for mode in [ElementOutput.composite, .matte, .alpha] {
                    for background in [nil, placed, direct] where mode == .composite || background == nil {
                        for threads in [1, 2] {
                            let m = DepthMatter()
                            var s = DMDepthMatteSettings.defaults
                            s.mode = KeyingMode.fixed.rawValue; s.cutoff = 1.4; s.refine = refine.rawValue; s.output = mode.rawValue; s.n_threads = UInt32(threads)
                            s.background_argb = 0xff20_4060
                            let out = TestRGB(width: 333, height: 201, layout: layout)
                            for f in 0..<3 {
                                RefineTests.render(5.5 + 0.3 * Double(f), video: v, depth: d)
                                let r = m.process(plan: MattePlan(s), video: v.view, depth: d.view, background: background?.view,
                                                  output: out.view, faces: [])
                                hash.add(out)
                                hash.add(UInt32(truncatingIfNeeded: Int(r.coverage * 1e9)))
                            }
                        }
                    }
                }
            }
            results.append(hash.h)
            got.append("\(refine): 0x\(String(hash.h, radix: 16))")
        }
        let expected: [UInt64] = [0xce1cfa40658e8d4f, 0x57755fd2e12c4789, 0x3fa17f2fc6090453]
        if results != expected { print("depthmatter golden hashes:\n" + got.joined(separator: "\n")) }
        XCTAssertEqual(results, expected)
    }
}
