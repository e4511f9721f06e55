// SPDX-License-Identifier: LGPL-2.1-or-later
import XCTest
@testable import DepthMatteKit

final class PersonProbabilityTests: XCTestCase {
    func write(_ p: [Float], _ w: Int, _ h: Int, _ ow: Int, _ oh: Int) -> [UInt8] {
        var out = [UInt8](repeating: 1, count: (ow + 3) * oh)
        out.withUnsafeMutableBufferPointer { PersonProbability.write(p, width: w, height: h, to: $0.baseAddress!, outWidth: ow, outHeight: oh, outStride: ow + 3) }
        XCTAssertTrue((0..<oh).allSatisfy { y in out[(y * (ow + 3) + ow)..<((y + 1) * (ow + 3))].allSatisfy { $0 == 1 } }, "padding untouched")
        return (0..<oh).flatMap { y in out[(y * (ow + 3))..<(y * (ow + 3) + ow)] }
    }

    func testBytesRoundHalfEvenAndSaturate() {
        // 0.5/255*... : p*255 = 0.5 -> 0, 1.5 -> 2, 2.5 -> 2, -0.2*255 -> |..| 51, 1.2 -> 255, NaN -> 0
        let p: [Float] = [0.5 / 255, 1.5 / 255, 2.5 / 255, -0.2, 1.2, .nan, 0, 1]
        XCTAssertEqual(write(p, 8, 1, 8, 1), [0, 2, 2, 51, 255, 0, 0, 255])
    }

    func testRoundHalfEvenIsTheStandardLibrarys() {
        // every 97th float from 0 to 255, and each half and whole with its neighbours
        var values: [Float] = stride(from: UInt32(0), through: Float(255).bitPattern, by: 97).map(Float.init(bitPattern:))
        for k in 0...255 {
            for v in [Float(k), Float(k) + 0.5] { values += [v.nextDown, v, v.nextUp] }
        }
        for v in values where v >= 0 && v < 256 {
            XCTAssertEqual(PersonProbability.roundHalfEven(v), v.rounded(.toNearestOrEven), "\(v)")
        }
    }

    func testResizeHalfPixelCentres() {
        // 2x1 of 100 and 200 to 4x1: positions -0.25 (clamped), 0.25, 0.75, 1.25 (clamped)
        let p: [Float] = [100 / 255, 200 / 255]
        XCTAssertEqual(write(p, 2, 1, 4, 1), [100, 125, 175, 200])
        // 4x1 to 2x1: positions 0.5 and 2.5: halfway 150 between 100 and 200
        XCTAssertEqual(write([100 / 255, 200 / 255, 0, 100 / 255], 4, 1, 2, 1), [150, 50])
        // vertical as well: 1x2 to 1x4
        XCTAssertEqual(write(p, 1, 2, 1, 4), [100, 125, 175, 200])
    }
}
