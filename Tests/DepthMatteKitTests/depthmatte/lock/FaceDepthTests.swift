// SPDX-License-Identifier: LGPL-2.1-or-later
import XCTest
@testable import DepthMatteKit

final class FaceDepthTests: XCTestCase {
    private func region(_ box: Box, video: (Int, Int), depth: (Int, Int), fraction: Double = 0.5)
        -> [Int]? {
        var s = FaceDepthSampler()
        s.centralFraction = fraction
        guard let r = s.region(of: box, videoWidth: video.0, videoHeight: video.1,
                               depthWidth: depth.0, depthHeight: depth.1) else { return nil }
        return [r.x0, r.y0, r.x1, r.y1]
    }

    /// 8x8 depth whose central 4x4 block ([2, 6) x [2, 6)) is `block` (row
    /// major) and whose surround is 9999.
    private func depthWithCentre(_ block: [UInt16], padding: Int = 0) -> TestDepth {
        let d = TestDepth(width: 8, height: 8, padding: padding, fill: 9999)
        for i in 0..<16 { d[2 + i % 4, 2 + i / 4] = block[i] }
        return d
    }

    private let fullBox = Box(x: 0, y: 0, width: 8, height: 8)

    func testBoxGeometry() {
        let b = Box(x: 10, y: 20, width: 30, height: 41)
        XCTAssertEqual(b.centerX, 25); XCTAssertEqual(b.centerY, 40.5)
    }

    func testRegionIsTheCentralHalf() {
        XCTAssertEqual(region(fullBox, video: (8, 8), depth: (8, 8)), [2, 2, 6, 6])
        XCTAssertEqual(region(Box(x: 100, y: 40, width: 80, height: 120), video: (640, 480), depth: (640, 480)),
                       [120, 70, 160, 130])
        XCTAssertEqual(region(fullBox, video: (8, 8), depth: (8, 8), fraction: 1), [0, 0, 8, 8])
    }

    func testRegionMapsVideoBoxToDepthCoordinates() {
        // video 640x480, depth 64x48 (x0.1): centre (240, 160), half-size (20, 30)
        XCTAssertEqual(region(Box(x: 200, y: 100, width: 80, height: 120), video: (640, 480), depth: (64, 48)),
                       [22, 13, 26, 19])
        // depth larger than video (x2): centre (4, 3), half-size (1, 0.5)
        XCTAssertEqual(region(Box(x: 2, y: 2, width: 4, height: 2), video: (8, 6), depth: (16, 12)), [6, 5, 10, 7])
        // different scale per axis: video 320x240, depth 160x60 (x0.5, x0.25)
        XCTAssertEqual(region(Box(x: 40, y: 40, width: 80, height: 80), video: (320, 240), depth: (160, 60)),
                       [30, 15, 50, 25])
        // non-aligned edges round outwards: centre 10.5, half 2.75 -> [7.75, 13.25] * 0.5
        XCTAssertEqual(region(Box(x: 5, y: 5, width: 11, height: 11), video: (40, 40), depth: (20, 20)), [3, 3, 7, 7])
    }

    func testTinyBoxesGiveAtLeastOnePixel() {
        XCTAssertEqual(region(Box(x: 3, y: 4, width: 1, height: 1), video: (8, 8), depth: (8, 8)), [3, 4, 4, 5])
        XCTAssertEqual(region(Box(x: 3, y: 4, width: 0, height: 0), video: (8, 8), depth: (8, 8)), [3, 4, 4, 5])
        // a small face in a big video maps below one depth pixel
        XCTAssertEqual(region(Box(x: 100, y: 100, width: 4, height: 4), video: (640, 480), depth: (64, 48)),
                       [10, 10, 11, 11])
    }

    func testRegionIsClippedToTheDepthMap() {
        // centre (0, 0): central half [-2, 2) clipped to [0, 2)
        XCTAssertEqual(region(Box(x: -4, y: -4, width: 8, height: 8), video: (8, 8), depth: (8, 8)), [0, 0, 2, 2])
        // hanging off the bottom right: the central part is below the map
        XCTAssertNil(region(Box(x: 4, y: 6, width: 8, height: 8), video: (8, 8), depth: (8, 8)))
        XCTAssertEqual(region(Box(x: 4, y: 2, width: 8, height: 8), video: (8, 8), depth: (8, 8)), [6, 4, 8, 8])
        // fully outside
        XCTAssertNil(region(Box(x: 100, y: 0, width: 8, height: 8), video: (8, 8), depth: (8, 8)))
        XCTAssertNil(region(Box(x: -20, y: -20, width: 8, height: 8), video: (8, 8), depth: (8, 8)))
    }

    func testMedianOfOddCount() {
        var s = FaceDepthSampler()
        // 15 valid samples 100...1500 shuffled, one hole
        let block: [UInt16] = [1500, 300, 0, 700, 100, 1200, 900, 200, 1100, 400, 1400, 500, 1000, 600, 1300, 800]
        let d = depthWithCentre(block)
        XCTAssertEqual(s.medianDepth(d.view, box: fullBox, videoWidth: 8, videoHeight: 8), 800)
    }

    func testMedianOfEvenCountIsMeanOfMiddlePair() {
        var s = FaceDepthSampler()
        let d = depthWithCentre([10, 20, 30, 40, 50, 60, 70, 80, 90, 100, 110, 120, 130, 140, 150, 161])
        XCTAssertEqual(s.medianDepth(d.view, box: fullBox, videoWidth: 8, videoHeight: 8), 85)
        // middle pair 801 and 802 -> 801.5 (not truncated)
        let e = depthWithCentre([801, 802, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0])
        XCTAssertEqual(s.medianDepth(e.view, box: fullBox, videoWidth: 8, videoHeight: 8), 801.5)
    }

    func testHolesAreIgnoredAndSurroundIsNotSampled() {
        var s = FaceDepthSampler()
        // 13 holes, 3 readings: median 800 (holes would drag it to 0; the 9999
        // surround lies outside the central half)
        let d = depthWithCentre([0, 0, 0, 0, 0, 790, 0, 0, 0, 0, 800, 0, 0, 0, 0, 5000])
        XCTAssertEqual(s.medianDepth(d.view, box: fullBox, videoWidth: 8, videoHeight: 8), 800)
    }

    func testAllHolesIsNil() {
        var s = FaceDepthSampler()
        let d = depthWithCentre([UInt16](repeating: 0, count: 16))
        XCTAssertNil(s.medianDepth(d.view, box: fullBox, videoWidth: 8, videoHeight: 8))
        // a box fully outside is nil too
        let full = TestDepth(width: 8, height: 8, fill: 700)
        XCTAssertNil(s.medianDepth(full.view, box: Box(x: 50, y: 50, width: 8, height: 8), videoWidth: 8, videoHeight: 8))
    }

    func testBoxPartiallyOutsideUsesTheClippedRegion() {
        var s = FaceDepthSampler()
        let d = TestDepth(width: 8, height: 8, fill: 3000)
        d.fill(x0: 0, y0: 0, x1: 2, y1: 2, 600)
        d[1, 1] = 0
        // region [0, 2) x [0, 2): readings 600, 600, 600
        XCTAssertEqual(s.medianDepth(d.view, box: Box(x: -4, y: -4, width: 8, height: 8), videoWidth: 8, videoHeight: 8), 600)
    }

    func testMappedRegionAtDifferentResolutions() {
        var s = FaceDepthSampler()
        // depth 64x48 behind a 640x480 video: face at depth [22, 26) x [13, 19) reads 750
        let d = TestDepth(width: 64, height: 48, fill: 2500)
        d.fill(x0: 22, y0: 13, x1: 26, y1: 19, 750)
        let face = Box(x: 200, y: 100, width: 80, height: 120)
        XCTAssertEqual(s.medianDepth(d.view, box: face, videoWidth: 640, videoHeight: 480), 750)
        // the same box taken as depth coordinates falls outside the 64x48 map
        XCTAssertEqual(s.medianDepth(d.view, box: face, videoWidth: 64, videoHeight: 48), nil)
        // depth larger than the video: video 8x6, depth 16x12, region [6, 10) x [5, 7)
        let big = TestDepth(width: 16, height: 12, fill: 4000)
        big.fill(x0: 6, y0: 5, x1: 10, y1: 7, 900)
        XCTAssertEqual(s.medianDepth(big.view, box: Box(x: 2, y: 2, width: 4, height: 2), videoWidth: 8, videoHeight: 6), 900)
    }

    func testPaddedOddStrideDepth() {
        var s = FaceDepthSampler()
        // padding bytes 0x05 0x05 = 1285 would shift the median if read
        let d = TestDepth(width: 5, height: 5, padding: 1, paddingByte: 0x05)
        for y in 0..<5 { for x in 0..<5 { d[x, y] = UInt16(100 * (x + 5 * y) + 100) } }
        // whole box, fraction 1: 25 readings 100...2500, median 1300
        s.centralFraction = 1
        XCTAssertEqual(s.medianDepth(d.view, box: Box(x: 0, y: 0, width: 5, height: 5), videoWidth: 5, videoHeight: 5), 1300)
        // rightmost column (next to the padding), central rows 1...3: 1000, 1500, 2000
        s.centralFraction = 0.5
        XCTAssertEqual(s.medianDepth(d.view, box: Box(x: 4, y: 0, width: 1, height: 5), videoWidth: 5, videoHeight: 5), 1500)
    }

    func testSamplerIsReusable() {
        var s = FaceDepthSampler()
        let a = depthWithCentre([UInt16](repeating: 500, count: 16))
        let b = depthWithCentre([UInt16](repeating: 1500, count: 16))
        XCTAssertEqual(s.medianDepth(a.view, box: fullBox, videoWidth: 8, videoHeight: 8), 500)
        XCTAssertEqual(s.medianDepth(b.view, box: fullBox, videoWidth: 8, videoHeight: 8), 1500)
        XCTAssertEqual(s.medianDepth(a.view, box: fullBox, videoWidth: 8, videoHeight: 8), 500)
    }
}
