// SPDX-License-Identifier: LGPL-2.1-or-later
/// mediapipe's pose detector (0.10.14's pose_detection_cpu graph), decoded from the raw model
/// outputs as the graph does: SsdAnchorsCalculator's anchors, TensorsToDetectionsCalculator,
/// NonMaxSuppressionCalculator (WEIGHTED) and DetectionLetterboxRemoval, keeping the first
/// detection as pose_landmark_cpu's SplitDetectionVectorCalculator does.

/// The best person the pose detector finds: its box (x, y, width, height, score; fractions of
/// the frame) and its four keypoints, (x, y) pairs in fractions of the frame: the hips' centre,
/// a point whose distance from it gives the body's size and whose direction gives its
/// rotation, then the shoulders' centre and a point above the head.
public struct PoseDetection: Equatable {
    public var box: FaceDetection
    public var keypoints: [Float]
    public init(box: FaceDetection, keypoints: [Float]) {
        precondition(keypoints.count == 2 * PoseDetector.keypointCount, "four (x, y) keypoints")
        self.box = box; self.keypoints = keypoints
    }
}

public enum PoseDetector {
    /// pose_detection_cpu.pbtxt: 224x224 input, strides 8, 16, 32, 32, 32 with the interpolated
    /// anchor (SsdAnchorsCalculatorOptions' default ratio 1.0): 28x28x2 + 14x14x2 + 7x7x6 = 2254
    /// anchors; min_score_thresh 0.5.
    public static let model = BlazeFace.Model(width: 224, height: 224, strides: [8, 16, 32, 32, 32],
                                               interpolated: true, minScore: 0.5)
    /// num_coords: the box (4) and four keypoints (x, y).
    public static let coordinateCount = 12
    static let keypointCount = 4

    /// The best detection in raw outputs (regressors [anchors x 12], scores [anchors x 1]), or nil
    /// when no anchor scores 0.5.
    ///
    /// Per anchor (reverse_output_order: x, y, w, h, then the keypoints; fixed 1x1 anchors):
    /// centre = raw / 224 + anchor centre, size = raw / 224, keypoint = raw / 224 + anchor centre;
    /// score = sigmoid(clamp(raw, -100, 100)). The highest score wins (the first anchor on a tie);
    /// WEIGHTED suppression makes it the score-weighted mean of every kept anchor whose box
    /// overlaps its box by IoU above 0.3 (itself included), corners and keypoints alike, with
    /// its own score. Last, the letterbox comes off the box and the keypoints.
    public static func best(regressors: UnsafePointer<Float>, scores: UnsafePointer<Float>,
                            letterbox: Letterbox) -> PoseDetection? {
        let m = model, s = m.coordinateScale
        var kept: [(anchor: Int, box: FaceDetection)] = []
        var top = -1
        for i in 0..<m.anchorCount {
            let raw = min(max(scores[i], -BlazeFace.scoreClip), BlazeFace.scoreClip)
            let score = 1 / (1 + mathExpf(-raw))
            if score < m.graphMinScore { continue }
            let r = regressors + coordinateCount * i
            let cx = r[0] / s + m.anchorX[i], cy = r[1] / s + m.anchorY[i]
            let w = r[2] / s, h = r[3] / s
            let box = FaceDetection(x: cx - w / 2, y: cy - h / 2, width: w, height: h, score: score)
            if !(box.width >= 0 && box.height >= 0) { continue }
            if top < 0 || score > kept[top].box.score { top = kept.count }
            kept.append((i, box))
        }
        guard top >= 0 else { return nil }
        let best = kept[top].box
        var corners = [Float](repeating: 0, count: 4), points = [Float](repeating: 0, count: 2 * keypointCount)
        var total: Float = 0
        for (i, b) in kept where b.iou(best) > BlazeFace.suppressionIoU || i == kept[top].anchor {
            let w = b.score, r = regressors + coordinateCount * i
            total += w
            corners[0] += b.x * w; corners[1] += b.y * w
            corners[2] += (b.x + b.width) * w; corners[3] += (b.y + b.height) * w
            for k in 0..<keypointCount {
                points[2 * k] += (r[4 + 2 * k] / s + m.anchorX[i]) * w
                points[2 * k + 1] += (r[5 + 2 * k] / s + m.anchorY[i]) * w
            }
        }
        var box = best
        box.x = corners[0] / total; box.y = corners[1] / total
        box.width = corners[2] / total - box.x; box.height = corners[3] / total - box.y
        box = BlazeFace.removeLetterbox(box, letterbox)
        let sx = 1 - letterbox.left - letterbox.right, sy = 1 - letterbox.top - letterbox.bottom
        for k in 0..<keypointCount {
            points[2 * k] = (points[2 * k] / total - letterbox.left) / sx
            points[2 * k + 1] = (points[2 * k + 1] / total - letterbox.top) / sy
        }
        return PoseDetection(box: box, keypoints: points)
    }
}
