// SPDX-License-Identifier: LGPL-2.1-or-later
import XCTest
@_spi(Bench) @testable import DepthMatteKit

/// 2.3's trust and decision (`RefinePass.labelTable`'s rows,
/// `RefinePass.trust`'s row flags and `RefinePass.decide`'s
/// nearest-trusted-colour search by `DMKernels`' AVX2 kernels where the CPU
/// has them) give the same matte bits as the Swift
/// code, for depth pictures with odd widths, narrower than eight pixels and
/// than the search window, and for the search options (radius, match
/// widening, thin parts).
final class DecideKernelTests: XCTestCase {
    func matte(_ v: TestRGB, _ d: TestDepth, kernels: Bool, _ configure: (inout MatteRefiner) -> Void) -> [UInt32] {
        var r = MatteRefiner()
        r.tuning.kernels = kernels
        configure(&r)
        var m = FloatPlane(), bits: [UInt32] = []
        for f in 0..<2 {
            RefineTests.render(5.5 + 0.3 * Double(f), video: v, depth: d)
            r.refine(depth: d.view, scale: 0.001, cutoff: 1.4, video: v.view, temporal: true, into: &m)
            bits += m.pixels.prefix(m.width * m.height).map(\.bitPattern)
        }
        return bits
    }

    func testAVX2DecisionEqualsTheSwiftDecision() throws {
        try XCTSkipUnless(kernelsHaveAVX2, "no AVX2")
        let options: [(String, (inout MatteRefiner) -> Void)] = [
            ("default", { _ in }),
            ("radius 2", { $0.tuning.decisionRadius = 2 }),
            ("radius 9, no match widening", { $0.tuning.decisionRadius = 9; $0.tuning.matchWidening = false }),
            ("no thin parts", { $0.tuning.thinParts = false }),
            ("background band 2", { $0.tuning.backgroundBand = 2 }),
        ]
        for (vw, vh, dw, dh) in [(14, 10, 7, 5), (26, 18, 13, 9), (62, 34, 31, 17), (97, 61, 50, 31), (333, 201, 161, 91)] {
            let v = TestRGB(width: vw, height: vh, layout: .bgra), d = TestDepth(width: dw, height: dh)
            for (name, configure) in options {
                let swift = matte(v, d, kernels: false, configure), avx2 = matte(v, d, kernels: true, configure)
                XCTAssertEqual(swift.count, avx2.count)
                if let i = swift.indices.first(where: { swift[$0] != avx2[$0] }) {
                    XCTFail("depth \(dw)x\(dh) \(name): value \(i) differs")
                }
            }
        }
    }
}
