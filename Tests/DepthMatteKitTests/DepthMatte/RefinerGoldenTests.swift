import XCTest
@testable import DepthMatteKit

/// Golden outputs of the refiner and the compositor (they were
/// split into parts with no change in any output value). Each case hashes
/// every output bit (FNV-1a over the float bit patterns or the output bytes)
/// over several frames of the synthetic scene with every depth artefact; the
/// hashes were recorded before the split (re-recorded for the deliberate
/// changes since: step 3's colour detail, 2.2's shadow fill and shadow
/// readings, 2.6's colour hold on; 2.3's `backgroundBand` 1 and 2.6's
/// `temporalLeak` 0.25 and `labelHold` 0.2, whose case "earlier band and
/// hold" sets them back and keeps the earlier default's hash). A deliberate change of the
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
            ("default", 0xf25a2e157e7c75c9, { _ in }, true),
            ("no temporal", 0xa96e183ae4028e15, { _ in }, false),
            ("no fit weighting", 0x45f7a37d1a968d6c, { $0.tuning.fitWeighting = false }, true),
            // (the fit floor set back: the earlier default, to the bit)
            ("fit floor 1e-3", 0x5b975589ac967fa0, { $0.tuning.fitFloor = 1e-3 }, true),
            ("uncertain smoothing 2", 0xb9440ca46cafbc83, { $0.tuning.uncertainSmoothing = 2 }, true),
            ("no range clamp", 0x51988ba6212baa1a, { $0.tuning.rangeClamp = false }, true),
            ("no match widening", 0x911acff113545ca5, { $0.tuning.matchWidening = false }, true),
            ("window means only", 0xcd4214b754b23dfe, { $0.tuning.decisionRadius = 0 }, true),
            ("upscale 1, radius 4", 0x2448df9a1e5b528d, { $0.tuning.maxUpscale = 1; $0.tuning.radius = 4 }, true),
            // (`backgroundBand`, `temporalLeak` and `labelHold` set back:
            // the earlier default, to the bit)
            ("earlier band and hold", 0xad0bee69496aec4f, { $0.tuning.backgroundBand = 2; $0.tuning.temporalLeak = 0.35; $0.tuning.labelHold = 0.3 }, true),
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
                            var s = DepthMatteSettings()
                            s.mode = .fixed; s.cutoff = 1.4; s.refine = refine; s.output = mode; s.threads = threads
                            s.backgroundARGB = 0xff20_4060
                            let out = TestRGB(width: 333, height: 201, layout: layout)
                            for f in 0..<3 {
                                RefineTests.render(5.5 + 0.3 * Double(f), video: v, depth: d)
                                let r = m.process(plan: s.plan(depthScale: 0.001), video: v.view, depth: d.view, background: background?.view,
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
        let expected: [UInt64] = [0x35ee4991b966bf01, 0x57755fd2e12c4789, 0x3fa17f2fc6090453]
        if results != expected { print("depthmatter golden hashes:\n" + got.joined(separator: "\n")) }
        XCTAssertEqual(results, expected)
    }
}
