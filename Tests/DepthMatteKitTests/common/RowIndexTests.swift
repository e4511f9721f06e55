// SPDX-License-Identifier: LGPL-2.1-or-later
import XCTest
@_spi(Bench) @testable import DepthMatteKit

/// `RowIndex` gives a pixel index's row and column as `/` and `%` do, and
/// `SubjectSegmentation.nextNear` finds the first near label as a plain scan.
final class RowIndexTests: XCTestCase {
    func testSplitMatchesDivision() {
        var seed: UInt64 = 0x9e37_79b9_7f4a_7c15
        func next() -> Int { seed = seed &* 6364136223846793005 &+ 1442695040888963407; return Int(seed >> 33) }
        for w in [1, 2, 3, 7, 8, 159, 160, 240, 320, 480, 640, 641, 1280, 1920, 3840, 4095, 65535] {
            let r = RowIndex(width: w)
            // every index of the first rows, the row ends further on, random ones up to 2^31
            var indices = Array(0..<min(4 * w + 3, 20000))
            for y in [100, 1000, 4000, 30000] where y * w < Int(Int32.max) { indices += [y * w - 1, y * w, y * w + 1] }
            for _ in 0..<20000 { indices.append(next() % Int(Int32.max)) }
            for i in indices {
                let (y, x) = r.split(i)
                XCTAssertEqual(y, i / w, "w \(w) i \(i)")
                XCTAssertEqual(x, i % w, "w \(w) i \(i)")
            }
        }
    }

    func testNextNearMatchesAScan() {
        var seed: UInt64 = 0x2545_f491_4f6c_dd1d
        func next(_ n: Int) -> Int { seed = seed &* 6364136223846793005 &+ 1442695040888963407; return Int(seed >> 33) % n }
        for _ in 0..<300 {
            let n = 1 + next(100)
            // runs of labels that are not near (-1) with a few near ones (0...)
            let density = 1 + next(30)
            let lab = (0..<n).map { _ in next(density) == 0 ? Int32(next(5)) : -1 }
            lab.withUnsafeBufferPointer { p in
                for from in 0...n {
                    var k = from
                    while k < n && lab[k] < 0 { k += 1 }
                    XCTAssertEqual(SubjectSegmentation.nextNear(p.baseAddress!, from, n), k)
                }
            }
        }
    }
}
