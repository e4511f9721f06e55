// SPDX-License-Identifier: LGPL-2.1-or-later
/// The region the pose landmark model reads (mediapipe's pose_detection_to_roi graph) and the
/// warps between it and the frame: the colour crop into the model's input
/// (ImageToTensorCalculator on a rotated rectangle) and the model's segmentation back onto the
/// frame (pose_landmarks_and_segmentation_inverse_projection's WarpAffine).

/// A square, rotated region of the frame, in frame pixels.
public struct PoseRegion: Equatable {
    public var centerX: Float, centerY: Float
    /// The square's side.
    public var side: Float
    /// Radians; the region's up is the frame's up turned by this much (clockwise on screen).
    public var rotation: Float

    public init(centerX: Float, centerY: Float, side: Float, rotation: Float) {
        self.centerX = centerX; self.centerY = centerY; self.side = side; self.rotation = rotation
    }

    /// pose_detection_to_roi: AlignmentPointsRectsCalculator centres the region on the hips'
    /// keypoint (0) with side twice its distance to keypoint 1, turned so that keypoint 1 lies
    /// straight above (rotation = 90 degrees - atan2(-(y1 - y0), x1 - x0), normalised to
    /// -pi...pi); RectTransformationCalculator then makes it square on its long side and scales
    /// it by 1.25.
    public init(_ detection: PoseDetection, frameWidth: Int, frameHeight: Int) {
        let w = Float(frameWidth), h = Float(frameHeight), k = detection.keypoints
        self.init(hips: (k[0] * w, k[1] * h), size: (k[2] * w, k[3] * h))
    }

    /// The region around `hips` sized and turned by the `size` point (frame pixels), as above.
    init(hips: (x: Float, y: Float), size: (x: Float, y: Float)) {
        let dx = size.x - hips.x, dy = size.y - hips.y
        let side = (dx * dx + dy * dy).squareRoot() * 2
        var angle = Float.pi / 2 - mathAtan2f(-dy, dx)
        angle -= 2 * Float.pi * ((angle + Float.pi) / (2 * Float.pi)).rounded(.down)
        self.init(centerX: hips.x, centerY: hips.y, side: side * Self.scale, rotation: angle)
    }

    /// The landmark model's landmarks: 39 of (x, y, z, visibility, presence), x and y in pixels
    /// of its input; 33 and 34 are the hips' centre and the body's size point, as the
    /// detector's keypoints 0 and 1.
    public static let landmarkValues = 39 * 5

    /// The region of the next frame from this region's landmarks (pose_landmarks_to_roi, what
    /// mediapipe tracks a person with instead of running the detector again): landmarks 33 and
    /// 34, from the model's `size` x `size` input back to the frame, give the region as the
    /// detector's keypoints 0 and 1 do.
    public func following(landmarks: UnsafePointer<Float>, size: Int) -> PoseRegion {
        let n = Float(size)
        let hips = framePoint(u: landmarks[33 * 5] / n, v: landmarks[33 * 5 + 1] / n)
        let point = framePoint(u: landmarks[34 * 5] / n, v: landmarks[34 * 5 + 1] / n)
        return PoseRegion(hips: hips, size: point)
    }

    /// RectTransformationCalculator's scale_x and scale_y.
    static let scale: Float = 1.25

    /// The frame point (pixels) of the region point (u, v), fractions of its side from its
    /// top-left corner: the region's centre plus (u - 0.5, v - 0.5) x side turned by `rotation`
    /// (GetRotatedSubRectToRectTransformMatrix).
    @inline(__always) public func framePoint(u: Float, v: Float) -> (x: Float, y: Float) {
        let c = mathCosf(rotation), s = mathSinf(rotation)
        let a = (u - 0.5) * side, b = (v - 0.5) * side
        return (centerX + a * c - b * s, centerY + a * s + b * c)
    }

    /// The inverse of `framePoint`.
    @inline(__always) public func regionPoint(x: Float, y: Float) -> (u: Float, v: Float) {
        let c = mathCosf(rotation), s = mathSinf(rotation)
        let a = x - centerX, b = y - centerY
        return ((a * c + b * s) / side + 0.5, (-a * s + b * c) / side + 0.5)
    }

    /// The region's colour as a size x size x 3 float tensor in 0...1 (the landmark model's
    /// input): each tensor pixel centre's frame point, bilinear between the four nearest pixel
    /// centres, the frame's edge pixels repeated beyond it (BORDER_REPLICATE, the calculator's
    /// default).
    public func sample(_ frame: PackedRGBFrame, into tensor: UnsafeMutablePointer<Float>, size: Int) {
        precondition(size >= 1, "a tensor has at least one pixel")
        let c = mathCosf(rotation), s = mathSinf(rotation), step = side / Float(size)
        let maxX = Float(frame.width - 1), maxY = Float(frame.height - 1)
        let offsets = (frame.red, frame.green, frame.blue)
        for ty in 0..<size {
            let b = (Float(ty) + 0.5) * step - side / 2
            for tx in 0..<size {
                let a = (Float(tx) + 0.5) * step - side / 2
                // pixel centres sit at integer + 0.5 in frame coordinates
                let fx = min(max(centerX + a * c - b * s - 0.5, 0), maxX)
                let fy = min(max(centerY + a * s + b * c - 0.5, 0), maxY)
                let x0 = Int(fx), y0 = Int(fy)
                let x1 = min(x0 + 1, frame.width - 1), y1 = min(y0 + 1, frame.height - 1)
                let wx = fx - Float(x0), wy = fy - Float(y0)
                let r0 = frame.base + y0 * frame.stride, r1 = frame.base + y1 * frame.stride
                let p00 = r0 + x0 * frame.pixelSize, p01 = r0 + x1 * frame.pixelSize
                let p10 = r1 + x0 * frame.pixelSize, p11 = r1 + x1 * frame.pixelSize
                @inline(__always) func channel(_ o: Int) -> Float {
                    let top = Float(p00[o]) + (Float(p01[o]) - Float(p00[o])) * wx
                    let bottom = Float(p10[o]) + (Float(p11[o]) - Float(p10[o])) * wx
                    return (top + (bottom - top) * wy) / 255
                }
                let out = tensor + (ty * size + tx) * 3
                out[0] = channel(offsets.0)
                out[1] = channel(offsets.1)
                out[2] = channel(offsets.2)
            }
        }
    }

    /// The region's size x size probability `mask` onto a width x height plane that stretches
    /// over the whole frameWidth x frameHeight frame (the selfie model's probability plane):
    /// each plane pixel centre's frame point taken into the region, bilinear between the four
    /// nearest mask pixel centres, a tap outside the mask reading 0 (BORDER_ZERO), so the
    /// plane is 0 outside the region.
    public func project(_ mask: UnsafePointer<Float>, size: Int, frameWidth: Int, frameHeight: Int,
                        into plane: UnsafeMutablePointer<Float>, width: Int, height: Int) {
        precondition(size >= 1 && width >= 1 && height >= 1, "planes have at least one pixel")
        let c = mathCosf(rotation), s = mathSinf(rotation), n = Float(size)
        let sx = Float(frameWidth) / Float(width), sy = Float(frameHeight) / Float(height)
        @inline(__always) func tap(_ x: Int, _ y: Int) -> Float {
            x >= 0 && y >= 0 && x < size && y < size ? mask[y * size + x] : 0
        }
        for py in 0..<height {
            let b0 = (Float(py) + 0.5) * sy - centerY
            for px in 0..<width {
                let a0 = (Float(px) + 0.5) * sx - centerX
                // the region point in mask pixels, centres at integer + 0.5
                let mx = ((a0 * c + b0 * s) / side + 0.5) * n - 0.5
                let my = ((-a0 * s + b0 * c) / side + 0.5) * n - 0.5
                guard mx > -1 && my > -1 && mx < n && my < n else {
                    plane[py * width + px] = 0
                    continue
                }
                let fx = mx.rounded(.down), fy = my.rounded(.down)
                let x0 = Int(fx), y0 = Int(fy), wx = mx - fx, wy = my - fy
                let top = tap(x0, y0) + (tap(x0 + 1, y0) - tap(x0, y0)) * wx
                let bottom = tap(x0, y0 + 1) + (tap(x0 + 1, y0 + 1) - tap(x0, y0 + 1)) * wx
                plane[py * width + px] = top + (bottom - top) * wy
            }
        }
    }

    /// The landmark model's segmentation logits as probabilities (TensorsToSegmentationCalculator's
    /// SIGMOID activation).
    public static func probabilities(_ logits: UnsafePointer<Float>, into out: UnsafeMutablePointer<Float>,
                                     count: Int) {
        for i in 0..<count { out[i] = 1 / (1 + mathExpf(-logits[i])) }
    }
}
