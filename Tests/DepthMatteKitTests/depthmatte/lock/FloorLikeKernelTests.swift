// SPDX-License-Identifier: LGPL-2.1-or-later
import XCTest
@_spi(Bench) @testable import DepthMatteKit

/// The depth-only lock's floor test (`DepthComponents.markFloorLike`) gives
/// the same cells in Swift and in `DMKernels`' AVX2 kernel (when the CPU
/// has it): floors with noise, holes and steps, grids whose width is and is
/// not a multiple of eight, narrower than eight, and just tall enough.
final class FloorLikeKernelTests: XCTestCase {
    func testKernelAndSwiftMarkTheSameCells() {
        var seed: UInt64 = 0x2545_f491_4f6c_dd1d
        func next(_ n: Int) -> Int {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int(seed >> 33) % n
        }
        for (w, h) in [(160, 90), (157, 90), (21, 7), (5, 30), (64, 48)] {
            let d = TestDepth(width: w, height: h)
            for y in 0..<h {
                for x in 0..<w {
                    // a floor receding upwards (steeper on the right), a wall in
                    // the middle band, noise, holes, a few steps
                    var v = 1200 + (h - y) * (20 + 40 * x / max(w, 1))
                    if x > w / 3 && x < w / 2 { v = 2500 }
                    v += next(30) - 15
                    if next(20) == 0 { v = 0 }
                    if next(50) == 0 { v += 400 }
                    d[x, y] = UInt16(max(0, min(v, 65535)))
                }
            }
            var swift = DepthComponents(), kernel = DepthComponents()
            swift.avx2 = false
            kernel.avx2 = kernelsHaveAVX2
            swift.analyse(depth: d.view, scale: 0.001, maxWidth: w)
            kernel.analyse(depth: d.view, scale: 0.001, maxWidth: w)
            let n = swift.width * swift.height
            XCTAssertEqual(Array(kernel.floorLike[0..<n]), Array(swift.floorLike[0..<n]), "\(w)x\(h)")
            XCTAssertEqual(Array(kernel.labels[0..<n]), Array(swift.labels[0..<n]), "\(w)x\(h)")
            if h >= 30 && w >= 20 {
                XCTAssertGreaterThan(swift.floorLike[0..<n].filter { $0 != 0 }.count, n / 10, "\(w)x\(h): a floor")
                XCTAssertLessThan(swift.floorLike[0..<n].filter { $0 != 0 }.count, n, "\(w)x\(h): not only floor")
            }
        }
    }
}
