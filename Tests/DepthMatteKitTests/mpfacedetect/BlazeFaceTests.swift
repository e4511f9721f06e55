// SPDX-License-Identifier: LGPL-2.1-or-later
import XCTest
@testable import DepthMatteKit

final class BlazeFaceTests: XCTestCase {
    func testAnchorsShortRange() {
        let m = BlazeFace.Model.shortRange
        XCTAssertEqual(m.anchorCount, 896)
        // 16x16 cells of stride 8, two anchors each, then 8x8 cells of stride 16, six each
        XCTAssertEqual(m.anchorX[0], 0.5 / 16); XCTAssertEqual(m.anchorY[0], 0.5 / 16)
        XCTAssertEqual(m.anchorX[1], 0.5 / 16)
        XCTAssertEqual(m.anchorX[2], 1.5 / 16)
        XCTAssertEqual(m.anchorX[512], 0.5 / 8); XCTAssertEqual(m.anchorX[517], 0.5 / 8)
        XCTAssertEqual(m.anchorX[518], 1.5 / 8)
        XCTAssertEqual(m.anchorX[895], 7.5 / 8); XCTAssertEqual(m.anchorY[895], 7.5 / 8)
    }

    func testAnchorsFullRange() {
        let m = BlazeFace.Model.fullRange
        XCTAssertEqual(m.anchorCount, 2304)
        XCTAssertEqual(m.anchorX[0], 0.5 / 48); XCTAssertEqual(m.anchorX[1], 1.5 / 48)
        XCTAssertEqual(m.anchorY[48], 1.5 / 48)
        XCTAssertEqual(m.anchorX[2303], 47.5 / 48); XCTAssertEqual(m.anchorY[2303], 47.5 / 48)
    }

    /// Raw outputs with every score far below the threshold except `set`.
    func raw(_ m: BlazeFace.Model, _ set: [(Int, [Float], Float)]) -> ([Float], [Float]) {
        var reg = [Float](repeating: 0, count: m.anchorCount * 16), sc = [Float](repeating: -50, count: m.anchorCount)
        for (i, r, s) in set { for k in 0..<r.count { reg[16 * i + k] = r[k] }; sc[i] = s }
        return (reg, sc)
    }

    func testDecodeKnownBox() {
        let m = BlazeFace.Model.shortRange
        // anchor 0 at (1/32, 1/32); x, y, w, h in tensor pixels (reverse_output_order)
        let (reg, sc) = raw(m, [(0, [12, 8, 32, 16], 2)])
        let d = BlazeFace.detect(m, regressors: reg, scores: sc, minScore: 0.5, letterbox: .none)
        XCTAssertEqual(d.count, 1)
        let cx: Float = 12 / 128 + 1 / 32, cy: Float = 8 / 128 + 1 / 32
        XCTAssertEqual(d[0].x, cx - 0.125, accuracy: 1e-6); XCTAssertEqual(d[0].y, cy - 0.0625, accuracy: 1e-6)
        XCTAssertEqual(d[0].width, 0.25, accuracy: 1e-6); XCTAssertEqual(d[0].height, 0.125, accuracy: 1e-6)
        XCTAssertEqual(d[0].score, 1 / (1 + mathExpf(-2)), accuracy: 1e-7)
    }

    func testSigmoidThresholdAndClip() {
        let m = BlazeFace.Model.fullRange
        // logit 0.405 -> 0.5999 (below full range's 0.6), 0.41 -> 0.6011; 1000 clips to 100 -> 1
        let (reg, sc) = raw(m, [(0, [0, 0, 10, 10], 0.405), (500, [0, 0, 10, 10], 0.41), (2000, [0, 0, 10, 10], 1000)])
        let d = BlazeFace.detect(m, regressors: reg, scores: sc, minScore: 0.5, letterbox: .none)
        XCTAssertEqual(d.count, 2)
        XCTAssertEqual(d[0].score, 1)
        XCTAssertEqual(d[1].score, 1 / (1 + mathExpf(-0.41)), accuracy: 1e-7)
        // the element's min-confidence drops after the graph
        XCTAssertEqual(BlazeFace.detect(m, regressors: reg, scores: sc, minScore: 0.7, letterbox: .none).count, 1)
        // a negative size is dropped
        let (r2, s2) = raw(m, [(0, [0, 0, -10, 10], 5)])
        XCTAssertEqual(BlazeFace.detect(m, regressors: r2, scores: s2, minScore: 0.5, letterbox: .none).count, 0)
    }

    func testWeightedNMSMergesToScoreWeightedMean() {
        let a = FaceDetection(x: 0.1, y: 0.1, width: 0.2, height: 0.2, score: 0.9)
        let b = FaceDetection(x: 0.12, y: 0.1, width: 0.2, height: 0.2, score: 0.6)
        let far = FaceDetection(x: 0.7, y: 0.7, width: 0.1, height: 0.1, score: 0.7)
        let out = BlazeFace.weightedNMS([b, far, a])
        XCTAssertEqual(out.count, 2)
        XCTAssertEqual(out[0].score, 0.9)  // the best box keeps its own score
        XCTAssertEqual(out[0].x, (0.1 * 0.9 + 0.12 * 0.6) / 1.5, accuracy: 1e-6)
        XCTAssertEqual(out[0].x + out[0].width, (0.3 * 0.9 + 0.32 * 0.6) / 1.5, accuracy: 1e-6)
        // a lone box is its own weighted mean (mediapipe recomputes it too: a rounding of its corners)
        XCTAssertEqual(out[1].x, far.x); XCTAssertEqual(out[1].width, far.width, accuracy: 1e-6); XCTAssertEqual(out[1].score, far.score)
        // IoU 0.3 exactly is not merged (> 0.3 merges)
        let c = FaceDetection(x: 0, y: 0, width: 1, height: 0.3, score: 0.9)
        let d = FaceDetection(x: 0, y: 0, width: 1, height: 0.09, score: 0.8)
        XCTAssertLessThanOrEqual(c.iou(d), 0.3)
        XCTAssertEqual(BlazeFace.weightedNMS([c, d]).count, c.iou(d) > 0.3 ? 1 : 2)
    }

    func testLetterboxRemoval() {
        let box = Letterbox(left: 0, top: 0.21875, right: 0, bottom: 0.21875)
        let d = BlazeFace.removeLetterbox(FaceDetection(x: 0.5, y: 0.21875, width: 0.1, height: 0.28125, score: 1), box)
        XCTAssertEqual(d.x, 0.5); XCTAssertEqual(d.y, 0, accuracy: 1e-7)
        XCTAssertEqual(d.width, 0.1); XCTAssertEqual(d.height, 0.5, accuracy: 1e-6)
    }

    func testMergeBoth() {
        let full = FaceDetection(x: 0.1, y: 0.1, width: 0.2, height: 0.2, score: 0.7)
        let confirmed = FaceDetection(x: 0.11, y: 0.1, width: 0.2, height: 0.2, score: 0.75)  // overlaps full: de-duped, wins on score
        let alone = FaceDetection(x: 0.6, y: 0.6, width: 0.1, height: 0.1, score: 0.85)  // >= 0.8 alone: kept
        let weak = FaceDetection(x: 0.6, y: 0.1, width: 0.1, height: 0.1, score: 0.79)  // alone below 0.8: dropped
        let out = BlazeFace.mergeBoth(full: [full], short: [confirmed, alone, weak])
        XCTAssertEqual(out, [alone, confirmed])
        XCTAssertEqual(BlazeFace.mergeBoth(full: [full], short: []), [full])
    }
}
