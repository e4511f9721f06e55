// SPDX-License-Identifier: LGPL-2.1-or-later
import XCTest
@testable import DepthMatteKit

final class BackgroundEffectTests: XCTestCase {
    private func image(_ px: [[UInt8]], width: Int, height: Int) -> ([UInt8], Int) {
        var bytes = [UInt8](repeating: 0, count: width * height * 4)
        for i in 0..<(width * height) { for c in 0..<4 { bytes[4 * i + c] = px[i % px.count][c] } }
        return (bytes, width * 4)
    }

    func testDesaturateExactAndInputUntouched() {
        var (bytes, stride) = image([[200, 100, 50, 7]], width: 3, height: 2)
        let copy = bytes
        let fx = BackgroundEffects()
        let out = bytes.withUnsafeMutableBufferPointer { p in
            fx.apply(.desaturate, video: RGBImageView(base: p.baseAddress!, width: 3, height: 2, stride: stride,
                                                      pixelStride: 4, r: 0, g: 1, b: 2, a: 3))
        }
        XCTAssertEqual(bytes, copy)
        let sum: Int = 54 * 200 + 183 * 100 + 19 * 50 + 128
        let y = UInt8(sum >> 8)
        XCTAssertEqual([out.base[0], out.base[1], out.base[2], out.base[3]], [y, y, y, 7])
    }

    func testComicPosterisesFlatAreasAndDrawsEdges() {
        // left half black, right half white: flat areas keep 0 / 255, the edge is black
        let W = 8, H = 4
        var bytes = [UInt8](repeating: 0, count: W * H * 4)
        for y in 0..<H { for x in W / 2..<W { for c in 0..<3 { bytes[(y * W + x) * 4 + c] = 255 } } }
        for y in 0..<H { bytes[(y * W + 1) * 4 + 0] = 100 }   // R 100 -> 85 (posterised)
        let fx = BackgroundEffects()
        let out = bytes.withUnsafeMutableBufferPointer { p in
            fx.apply(.comic, video: RGBImageView(base: p.baseAddress!, width: W, height: H, stride: W * 4,
                                                 pixelStride: 4, r: 0, g: 1, b: 2, a: 3))
        }
        XCTAssertEqual(out.base[(1 * W + 1) * 4], 85)
        XCTAssertEqual(out.base[(1 * W + 7) * 4], 255)
        XCTAssertEqual(out.base[(1 * W + 4) * 4], 0)       // edge line on the white side of the step
    }
}
