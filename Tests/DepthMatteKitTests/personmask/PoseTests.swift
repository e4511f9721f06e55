// SPDX-License-Identifier: LGPL-2.1-or-later
/// The full-body fallback's kit side: the pose detector's decoding on synthetic outputs, the
/// region it gives, the warps between region and frame, and the rule for "the selfie model
/// sees no one".
import XCTest
@testable import DepthMatteKit

final class PoseTests: XCTestCase {
    /// Raw detector outputs with every score far below the threshold except `set`.
    func raw(_ set: [(Int, [Float], Float)]) -> ([Float], [Float]) {
        let m = PoseDetector.model
        var reg = [Float](repeating: 0, count: m.anchorCount * 12), sc = [Float](repeating: -50, count: m.anchorCount)
        for (i, r, s) in set { for k in 0..<r.count { reg[12 * i + k] = r[k] }; sc[i] = s }
        return (reg, sc)
    }

    func testAnchors() {
        let m = PoseDetector.model
        XCTAssertEqual(m.anchorCount, 2254)
        // 28x28 cells of stride 8, two anchors each; 14x14 of stride 16, two; 7x7 of stride 32, six
        XCTAssertEqual(m.anchorX[0], 0.5 / 28); XCTAssertEqual(m.anchorX[1], 0.5 / 28)
        XCTAssertEqual(m.anchorX[2], 1.5 / 28)
        XCTAssertEqual(m.anchorX[1568], 0.5 / 14); XCTAssertEqual(m.anchorX[1960], 0.5 / 7)
        XCTAssertEqual(m.anchorX[1965], 0.5 / 7); XCTAssertEqual(m.anchorX[1966], 1.5 / 7)
        XCTAssertEqual(m.anchorX[2253], 6.5 / 7); XCTAssertEqual(m.anchorY[2253], 6.5 / 7)
    }

    func testDecodeBoxAndKeypoints() {
        // anchor 1960 at (1/14, 1/14); values in tensor pixels of 224
        let (reg, sc) = raw([(1960, [22.4, 11.2, 44.8, 89.6, 0, 22.4, 0, -44.8, 11.2, 0, 0, -67.2], 3)])
        let d = try! XCTUnwrap(PoseDetector.best(regressors: reg, scores: sc, letterbox: .none))
        let a: Float = 1 / 14
        XCTAssertEqual(d.box.x, a + 0.1 - 0.1, accuracy: 1e-6); XCTAssertEqual(d.box.y, a + 0.05 - 0.2, accuracy: 1e-6)
        XCTAssertEqual(d.box.width, 0.2, accuracy: 1e-6); XCTAssertEqual(d.box.height, 0.4, accuracy: 1e-6)
        XCTAssertEqual(d.box.score, 1 / (1 + mathExpf(-3)), accuracy: 1e-7)
        let want: [Float] = [a, a + 0.1, a, a - 0.2, a + 0.05, a, a, a - 0.3]
        for k in 0..<8 { XCTAssertEqual(d.keypoints[k], want[k], accuracy: 1e-6, "keypoint value \(k)") }
    }

    func testNoAnchorAtHalfGivesNoOne() {
        // logit -0.01: score 0.4975, below the graph's 0.5
        let (reg, sc) = raw([(100, [0, 0, 20, 20], -0.01)])
        XCTAssertNil(PoseDetector.best(regressors: reg, scores: sc, letterbox: .none))
    }

    func testWeightedSuppressionAveragesOverlappingAnchorsAndKeepsTheBestScore() {
        // two anchors of one cell, boxes equal, keypoints 0 and 22.4 px apart, scores 0.75 and 0.6;
        // a third box far off does not overlap and must not count
        let s0: Float = 0.75, s1: Float = 0.6
        let l0 = logf(s0 / (1 - s0)), l1 = logf(s1 / (1 - s1))
        let (reg, sc) = raw([(0, [0, 0, 22.4, 22.4, 0, 0, 0, 0, 0, 0, 0, 0], l0),
                             (1, [0, 0, 22.4, 22.4, 22.4, 0, 0, 0, 0, 0, 0, 0], l1),
                             (2253, [0, 0, 22.4, 22.4, 0, 0, 0, 0, 0, 0, 0, 0], l1)])
        let d = try! XCTUnwrap(PoseDetector.best(regressors: reg, scores: sc, letterbox: .none))
        XCTAssertEqual(d.box.score, s0, accuracy: 1e-6)
        let a: Float = 0.5 / 28
        XCTAssertEqual(d.keypoints[0], a + 0.1 * s1 / (s0 + s1), accuracy: 1e-6)
        XCTAssertEqual(d.box.x, a - 0.05, accuracy: 1e-6)
    }

    func testLetterboxComesOffBoxAndKeypoints() {
        // a 4:3 frame letterboxed into the square: 1/8 of the side above and below
        let box = Letterbox(left: 0, top: 0.125, right: 0, bottom: 0.125)
        let (reg, sc) = raw([(1960, [0, 0, 22.4, 22.4, 0, 0, 0, 0, 0, 0, 0, 0], 3)])
        let d = try! XCTUnwrap(PoseDetector.best(regressors: reg, scores: sc, letterbox: box))
        let a: Float = 1 / 14
        XCTAssertEqual(d.keypoints[0], a, accuracy: 1e-6)
        XCTAssertEqual(d.keypoints[1], (a - 0.125) / 0.75, accuracy: 1e-6)
        XCTAssertEqual(d.box.height, 0.1 / 0.75, accuracy: 1e-6)
    }

    func detection(hips: (Float, Float), second: (Float, Float)) -> PoseDetection {
        PoseDetection(box: FaceDetection(x: 0, y: 0, width: 1, height: 1, score: 0.9),
                      keypoints: [hips.0, hips.1, second.0, second.1, 0, 0, 0, 0])
    }

    func testRegionFromHipsAndSizeKeypoint() {
        // upright: keypoint 1 straight above the hips, 192 px on a 640x480 frame
        let up = PoseRegion(detection(hips: (0.5, 0.6), second: (0.5, 0.2)), frameWidth: 640, frameHeight: 480)
        XCTAssertEqual(up.centerX, 320); XCTAssertEqual(up.centerY, 288, accuracy: 1e-4)
        XCTAssertEqual(up.side, 192 * 2 * 1.25, accuracy: 1e-3)
        XCTAssertEqual(up.rotation, 0, accuracy: 1e-6)
        // lying with the head to the right: turned a quarter, the size from pixels (not fractions)
        let right = PoseRegion(detection(hips: (0.25, 0.5), second: (0.5, 0.5)), frameWidth: 640, frameHeight: 480)
        XCTAssertEqual(right.rotation, Float.pi / 2, accuracy: 1e-6)
        XCTAssertEqual(right.side, 160 * 2 * 1.25, accuracy: 1e-3)
        // the head down: pi (normalised into -pi...pi)
        let down = PoseRegion(detection(hips: (0.5, 0.2), second: (0.5, 0.6)), frameWidth: 640, frameHeight: 480)
        XCTAssertEqual(abs(down.rotation), Float.pi, accuracy: 1e-5)
        // the region's top centre is keypoint 1's side of the hips
        let top = right.framePoint(u: 0.5, v: 0)
        XCTAssertEqual(top.x, 160 + 200, accuracy: 1e-3); XCTAssertEqual(top.y, 240, accuracy: 1e-3)
    }

    func testRegionPointIsTheInverseOfFramePoint() {
        let r = PoseRegion(centerX: 301.5, centerY: 177.25, side: 233, rotation: 0.7)
        for (u, v) in [(Float(0), Float(0)), (0.3, 0.9), (1, 0.5), (-0.2, 1.4)] {
            let p = r.framePoint(u: u, v: v)
            let q = r.regionPoint(x: p.x, y: p.y)
            XCTAssertEqual(q.u, u, accuracy: 1e-5); XCTAssertEqual(q.v, v, accuracy: 1e-5)
        }
    }

    func testTheNextRegionFromLandmarks() {
        // a turned region whose landmarks 33 and 34 sit where its own hips and size point are
        // (the centre, and side / 2.5 towards its top) gives itself back
        let r = PoseRegion(centerX: 300, centerY: 200, side: 250, rotation: 0.5)
        var lm = [Float](repeating: 0, count: PoseRegion.landmarkValues)
        lm[33 * 5] = 128; lm[33 * 5 + 1] = 128
        lm[34 * 5] = 128; lm[34 * 5 + 1] = 128 - 256 / 2.5
        let next = r.following(landmarks: lm, size: 256)
        XCTAssertEqual(next.centerX, 300, accuracy: 1e-3); XCTAssertEqual(next.centerY, 200, accuracy: 1e-3)
        XCTAssertEqual(next.side, 250, accuracy: 1e-2); XCTAssertEqual(next.rotation, 0.5, accuracy: 1e-5)
        // the person moved 32 tensor pixels to the region's right and stands upright in it: the
        // next region is shifted by 32 / 256 of the side along the region's turned x axis
        lm[33 * 5] = 160; lm[34 * 5] = 160
        let moved = r.following(landmarks: lm, size: 256)
        XCTAssertEqual(moved.centerX, 300 + 31.25 * cosf(0.5), accuracy: 1e-3)
        XCTAssertEqual(moved.centerY, 200 + 31.25 * sinf(0.5), accuracy: 1e-3)
    }

    /// A 3-byte RGB frame whose red is a disc of 255 on 0, green the column and blue the row (mod 256).
    func discFrame(width: Int, height: Int, cx: Float, cy: Float, radius: Float) -> [UInt8] {
        var px = [UInt8](repeating: 0, count: width * height * 3)
        for y in 0..<height {
            for x in 0..<width {
                let dx = Float(x) + 0.5 - cx, dy = Float(y) + 0.5 - cy
                px[(y * width + x) * 3] = dx * dx + dy * dy <= radius * radius ? 255 : 0
                px[(y * width + x) * 3 + 1] = UInt8(x & 255)
                px[(y * width + x) * 3 + 2] = UInt8(y & 255)
            }
        }
        return px
    }

    func testSampleReadsTheTurnedCropAndReplicatesTheEdge() {
        let w = 64, h = 48
        let px = discFrame(width: w, height: h, cx: 32, cy: 24, radius: 10)
        // a 32 px square turned a quarter around (20, 10): tensor column 0 is the frame's top
        let r = PoseRegion(centerX: 20, centerY: 10, side: 32, rotation: Float.pi / 2)
        var t = [Float](repeating: -1, count: 32 * 32 * 3)
        px.withUnsafeBufferPointer { p in
            let f = PackedRGBFrame(base: p.baseAddress!, width: w, height: h, stride: w * 3,
                                   red: 0, green: 1, blue: 2, pixelSize: 3)
            r.sample(f, into: &t, size: 32)
        }
        // tensor pixel (tx, ty): frame point centre + ((tx + 0.5) - 16) turned: x = 20 - (ty + 0.5 - 16),
        // y = 10 + (tx + 0.5 - 16); pixel centres land on pixel centres, so the values are exact
        for (tx, ty) in [(16, 16), (20, 3), (25, 25)] {
            let x = 20 - (Float(ty) + 0.5 - 16), y = 10 + (Float(tx) + 0.5 - 16)
            let o = (ty * 32 + tx) * 3
            XCTAssertEqual(t[o + 1] * 255, (x - 0.5).rounded(), accuracy: 1e-3, "column at \(tx),\(ty)")
            XCTAssertEqual(t[o + 2] * 255, (y - 0.5).rounded(), accuracy: 1e-3, "row at \(tx),\(ty)")
        }
        // above the frame (y < 0) the top row repeats: row 0
        let o = (16 * 32 + 0) * 3  // tx 0: y = 10 - 15.5
        XCTAssertEqual(t[o + 2], 0)
    }

    func testProjectIsZeroOutsideTheRegionAndOneInside() {
        let r = PoseRegion(centerX: 100, centerY: 80, side: 60, rotation: 0.4)
        let mask = [Float](repeating: 1, count: 16 * 16)
        var plane = [Float](repeating: -1, count: 200 * 160)
        r.project(mask, size: 16, frameWidth: 200, frameHeight: 160, into: &plane, width: 200, height: 160)
        var inside = 0
        for y in 0..<160 {
            for x in 0..<200 {
                let q = r.regionPoint(x: Float(x) + 0.5, y: Float(y) + 0.5)
                let v = plane[y * 200 + x]
                // half a mask pixel in from the edge reads 1, half a mask pixel beyond it 0
                let m: Float = 1.0 / 32
                if q.u > m && q.u < 1 - m && q.v > m && q.v < 1 - m { XCTAssertEqual(v, 1, accuracy: 1e-5) }
                if q.u < -m || q.u > 1 + m || q.v < -m || q.v > 1 + m { XCTAssertEqual(v, 0) }
                if v >= 0.5 { inside += 1 }
            }
        }
        // the turned square's area, 3600 pixels, to within its outline
        XCTAssertEqual(Double(inside), 3600, accuracy: 240)
    }

    func testCropAndProjectRoundTrip() {
        // the disc sampled into a turned region and projected back lands where it was
        let w = 160, h = 120
        let px = discFrame(width: w, height: h, cx: 70, cy: 64, radius: 20)
        let r = PoseRegion(centerX: 76, centerY: 58, side: 90, rotation: -0.6)
        let n = 128
        var t = [Float](repeating: 0, count: n * n * 3)
        px.withUnsafeBufferPointer { p in
            let f = PackedRGBFrame(base: p.baseAddress!, width: w, height: h, stride: w * 3,
                                   red: 0, green: 1, blue: 2, pixelSize: 3)
            r.sample(f, into: &t, size: n)
        }
        let red = (0..<n * n).map { t[3 * $0] }
        var plane = [Float](repeating: 0, count: w * h)
        r.project(red, size: n, frameWidth: w, frameHeight: h, into: &plane, width: w, height: h)
        var wrong = 0, disc = 0
        for y in 0..<h {
            for x in 0..<w {
                let isDisc = px[(y * w + x) * 3] == 255
                if isDisc { disc += 1 }
                if (plane[y * w + x] >= 0.5) != isDisc { wrong += 1 }
            }
        }
        XCTAssertGreaterThan(disc, 1200)
        // only pixels on the disc's outline may flip
        XCTAssertLessThanOrEqual(wrong, 30, "\(wrong) of \(disc) disc pixels")
    }

    func testSigmoidOfLogits() {
        let logits: [Float] = [0, 2, -2, 40]
        var p = [Float](repeating: 0, count: 4)
        PoseRegion.probabilities(logits, into: &p, count: 4)
        XCTAssertEqual(p[0], 0.5); XCTAssertEqual(p[1], 0.880797, accuracy: 1e-6)
        XCTAssertEqual(p[2], 0.119203, accuracy: 1e-6); XCTAssertEqual(p[3], 1)
    }

    func testTheSelfieModelSeesSomeoneFromOnePercentOfThePlane() {
        var p = [Float](repeating: 0.45, count: 100 * 100)
        p.withUnsafeBufferPointer { XCTAssertFalse(PersonProbability.seesSomeone($0)) }
        for i in 0..<99 { p[i] = 0.5 }
        p.withUnsafeBufferPointer { XCTAssertFalse(PersonProbability.seesSomeone($0)) }
        p[5000] = 1
        p.withUnsafeBufferPointer { XCTAssertTrue(PersonProbability.seesSomeone($0)) }
    }
}
