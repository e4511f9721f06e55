// SPDX-License-Identifier: LGPL-2.1-or-later
/// mediapipe's BlazeFace face detectors (0.10.14's face_detection graphs), decoded
/// from the raw model outputs exactly as the graph does: SsdAnchorsCalculator's
/// anchors, TensorsToDetectionsCalculator, NonMaxSuppressionCalculator (WEIGHTED)
/// and DetectionProjectionCalculator (the letterbox of ImageToTensorCalculator taken off).

/// A face box. x, y, width, height are fractions of the FRAME (not the tensor); the box may
/// reach outside 0...1 as mediapipe's does.
public struct FaceDetection: Equatable {
    public var x: Float, y: Float, width: Float, height: Float
    public var score: Float
    public init(x: Float, y: Float, width: Float, height: Float, score: Float) {
        self.x = x; self.y = y; self.width = width; self.height = height; self.score = score
    }

    /// Intersection over union, 0 when the union is empty.
    func iou(_ o: FaceDetection) -> Float {
        let ix = min(x + width, o.x + o.width) - max(x, o.x)
        let iy = min(y + height, o.y + o.height) - max(y, o.y)
        if ix < 0 || iy < 0 { return 0 }  // Rectangle_f::Intersects: touching edges intersect, with area 0
        let inter = ix * iy
        let union = width * height + o.width * o.height - inter
        return union > 0 ? inter / union : 0
    }
}

public enum BlazeFace {
    public struct Model {
        public let inputWidth: Int, inputHeight: Int, anchorCount: Int
        /// The anchor centres (x, y), fractions of the tensor. fixed_anchor_size: every anchor is 1x1.
        let anchorX: [Float], anchorY: [Float]
        /// x_scale, y_scale, w_scale, h_scale: the tensor side in pixels.
        let coordinateScale: Float
        /// The graph's own min_score_thresh (short 0.5, full 0.6). mediapipe 0.10.14's Python
        /// FaceDetection does not pass min_detection_confidence down to it: with 0.3 asked, the full
        /// model still drops a 0.54 face.
        public let graphMinScore: Float

        /// SsdAnchorsCalculator with num_layers = strides.count, min_scale 0.1484375, max_scale 0.75,
        /// anchor offsets 0.5, aspect_ratios [1.0], fixed_anchor_size. Consecutive layers with the
        /// same stride form one grid; a cell holds one anchor per aspect ratio per merged layer,
        /// plus one more per layer when interpolated_scale_aspect_ratio > 0
        /// (short range: 16x16 cells x 2 + 8x8 cells x 3 layers x 2 = 896).
        init(width: Int, height: Int, strides: [Int], interpolated: Bool, minScore: Float) {
            inputWidth = width; inputHeight = height; coordinateScale = Float(width); graphMinScore = minScore
            var xs: [Float] = [], ys: [Float] = []
            var layer = 0
            while layer < strides.count {
                var perCell = 0, next = layer
                while next < strides.count && strides[next] == strides[layer] {
                    perCell += 1 + (interpolated ? 1 : 0)
                    next += 1
                }
                let fmH = Int((Float(height) / Float(strides[layer])).rounded(.up))
                let fmW = Int((Float(width) / Float(strides[layer])).rounded(.up))
                for y in 0..<fmH {
                    for x in 0..<fmW {
                        let cx = (Float(x) + 0.5) / Float(fmW), cy = (Float(y) + 0.5) / Float(fmH)
                        for _ in 0..<perCell { xs.append(cx); ys.append(cy) }
                    }
                }
                layer = next
            }
            anchorX = xs; anchorY = ys; anchorCount = xs.count
        }

        /// face_detection_short_range.pbtxt: 128x128, strides 8, 16, 16, 16, interpolated ratio 1.0.
        public static let shortRange = Model(width: 128, height: 128, strides: [8, 16, 16, 16], interpolated: true,
                                              minScore: 0.5)
        /// face_detection_full_range.pbtxt (the sparse model): 192x192, stride 4, no interpolated anchor.
        public static let fullRange = Model(width: 192, height: 192, strides: [4], interpolated: false,
                                             minScore: 0.6)
    }

    /// TensorsToDetectionsCalculator's score clipping (score_clipping_thresh) before the sigmoid.
    static let scoreClip: Float = 100
    /// NonMaxSuppressionCalculator: boxes overlapping by IoU above this are one face (WEIGHTED).
    static let suppressionIoU: Float = 0.3

    /// Decodes raw outputs (regressors [anchors x 16], classificators [anchors x 1]) exactly as mediapipe's
    /// TensorsToDetectionsCalculator + weighted NMS + DetectionLetterboxRemoval do for that model's graph.
    ///
    /// Per anchor (reverse_output_order: x, y, w, h first; fixed 1x1 anchors):
    /// centre = raw / side + anchor centre, size = raw / side; score = sigmoid(clamp(raw, -100, 100)),
    /// kept when score >= the model's graphMinScore and width, height >= 0. Weighted NMS at IoU > 0.3: by falling score,
    /// the best remaining box takes every remaining box overlapping it and becomes their
    /// score-weighted mean corners, keeping its own score. Last, the letterbox comes off:
    /// x' = (x - left) / (1 - left - right), likewise y. Then, as the Python element does after
    /// mediapipe, faces scoring below `minScore` (its min-confidence) are dropped.
    public static func detect(_ model: Model, regressors: UnsafePointer<Float>, scores: UnsafePointer<Float>,
                              minScore: Float, letterbox: Letterbox) -> [FaceDetection] {
        var found: [FaceDetection] = []
        let s = model.coordinateScale
        for i in 0..<model.anchorCount {
            var raw = scores[i]
            raw = raw < -scoreClip ? -scoreClip : raw
            raw = raw > scoreClip ? scoreClip : raw
            let score = 1 / (1 + mathExpf(-raw))
            if score < model.graphMinScore { continue }  // has_min_score_thresh: only lower scores are dropped
            let r = regressors + 16 * i
            let cx = r[0] / s + model.anchorX[i], cy = r[1] / s + model.anchorY[i]
            let w = r[2] / s, h = r[3] / s
            let xmin = cx - w / 2, ymin = cy - h / 2, xmax = cx + w / 2, ymax = cy + h / 2
            let box = FaceDetection(x: xmin, y: ymin, width: xmax - xmin, height: ymax - ymin, score: score)
            if box.width < 0 || box.height < 0 || box.width.isNaN || box.height.isNaN { continue }
            found.append(box)
        }
        return weightedNMS(found).filter { $0.score >= minScore }.map { removeLetterbox($0, letterbox) }
    }

    /// NonMaxSuppressionCalculator, algorithm WEIGHTED, overlap INTERSECTION_OVER_UNION.
    /// Ties in score keep the decode order.
    static func weightedNMS(_ boxes: [FaceDetection]) -> [FaceDetection] {
        var remaining = boxes.indices.sorted { boxes[$0].score > boxes[$1].score || (boxes[$0].score == boxes[$1].score && $0 < $1) }
        var out: [FaceDetection] = []
        while let top = remaining.first {
            let best = boxes[top]
            var rest: [Int] = [], candidates: [Int] = []
            for k in remaining {
                if boxes[k].iou(best) > suppressionIoU { candidates.append(k) } else { rest.append(k) }
            }
            var merged = best
            if !candidates.isEmpty {
                var x0: Float = 0, y0: Float = 0, x1: Float = 0, y1: Float = 0, total: Float = 0
                for k in candidates {
                    let b = boxes[k], w = b.score
                    total += w
                    x0 += b.x * w; y0 += b.y * w
                    x1 += (b.x + b.width) * w; y1 += (b.y + b.height) * w
                }
                merged.x = x0 / total; merged.y = y0 / total
                merged.width = x1 / total - merged.x; merged.height = y1 / total - merged.y
            }
            out.append(merged)
            // a box that overlaps nothing, not even itself (zero area), ends the loop as in mediapipe
            if rest.count == remaining.count { break }
            remaining = rest
        }
        return out
    }

    /// The tensor-relative box back to frame-relative (DetectionProjectionCalculator with
    /// ImageToTensorCalculator's letterbox matrix; the same as DetectionLetterboxRemoval).
    static func removeLetterbox(_ d: FaceDetection, _ box: Letterbox) -> FaceDetection {
        if box == .none { return d }
        let sx = 1 - box.left - box.right, sy = 1 - box.top - box.bottom
        var o = d
        o.x = (d.x - box.left) / sx; o.y = (d.y - box.top) / sy
        o.width = d.width / sx; o.height = d.height / sy
        return o
    }

    /// The Python element's rule for IoU: boxes clamped to the frame, as its pixel boxes are.
    static let mergeIoU: Float = 0.3
    /// A short-range face needs this score when no full-range box confirms it.
    static let shortAloneMinScore: Float = 0.8

    /// The `both` rule of the Python element: every full-range face, plus short-range faces that a full-range
    /// box overlaps by IoU > 0.3 or that score >= 0.8 alone; then greedy de-dup at IoU 0.3 by score.
    ///
    /// IoU is taken on the boxes clamped to the frame (the Python element compares its clamped pixel
    /// boxes; IoU does not change when both axes are scaled). The de-dup visits full-range faces
    /// before short-range ones at equal score and keeps a box when it overlaps every kept box by 0.3 or less.
    public static func mergeBoth(full: [FaceDetection], short: [FaceDetection]) -> [FaceDetection] {
        func clamped(_ d: FaceDetection) -> FaceDetection {
            let x0 = min(max(d.x, 0), 1), y0 = min(max(d.y, 0), 1)
            let x1 = min(max(d.x + d.width, 0), 1), y1 = min(max(d.y + d.height, 0), 1)
            return FaceDetection(x: x0, y: y0, width: x1 - x0, height: y1 - y0, score: d.score)
        }
        let fullC = full.map(clamped)
        var pool: [(box: FaceDetection, clamped: FaceDetection)] = Array(zip(full, fullC))
        for s in short {
            let c = clamped(s)
            if s.score >= shortAloneMinScore || fullC.contains(where: { c.iou($0) > mergeIoU }) {
                pool.append((s, c))
            }
        }
        let order = pool.indices.sorted { pool[$0].box.score > pool[$1].box.score
                                          || (pool[$0].box.score == pool[$1].box.score && $0 < $1) }
        var kept: [(box: FaceDetection, clamped: FaceDetection)] = []
        for k in order where kept.allSatisfy({ pool[k].clamped.iou($0.clamped) <= mergeIoU }) {
            kept.append(pool[k])
        }
        return kept.map(\.box)
    }
}
