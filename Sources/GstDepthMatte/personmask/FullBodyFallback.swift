// SPDX-License-Identifier: LGPL-2.1-or-later
/// personmask's full-body fallback: on a frame the selfie model sees no one in, mediapipe's
/// pose detector finds the most likely person, the pose landmark model segments the square
/// region around that person, and the segmentation replaces the selfie model's probability
/// plane (0 outside the region). The decoding and the warps are the kit's (PoseDetector,
/// PoseRegion).
///
/// As mediapipe's pose graph does, the landmarks of one fallback frame give the next one's
/// region, and the detector runs only when there is none (the first fallback frame, or the
/// person lost); after a frame where neither finds a person the detector runs again on every
/// `idleInterval`-th fallback frame.
import DepthMatteKit
import CLiteRT

final class FullBodyFallback {
    /// The landmark model's input and segmentation side.
    static let landmarkSide = 256
    /// pose_landmark's ThresholdingCalculator: below this pose flag the model sees no body.
    static let presenceThreshold: Float = 0.5

    /// While no one is found the detector runs on every 6th fallback frame: an empty scene
    /// pays a sixth of it (about 2 of 13 ms a frame), and a person walking in is found at
    /// most 5 frames (167 ms at 30 fps) late.
    static let idleInterval = 6

    private let sampler = ModelInputSampler()
    private var segmentation: [Float] = []
    /// The region the last fallback frame's landmarks give, while its person was present.
    private(set) var tracked: PoseRegion?
    /// Fallback frames left before the detector runs again after a frame with no one found.
    private(set) var idle = 0
    /// nil until the models were looked for; then whether both passed their self-test.
    private var ready: Bool?

    /// Loads and self-tests both pose models (once per process); throws why they cannot be used.
    func start() throws(LearnedModelError) {
        do {
            _ = try LearnedRuntime.pool(.poseDetection)
            _ = try LearnedRuntime.pool(.poseLandmark)
            ready = true
        } catch {
            ready = false
            throw error
        }
    }

    /// A frame the fallback does not run on: the next one starts from the detector.
    func forget() {
        tracked = nil
        idle = 0
    }

    /// The person's segmentation over `plane` (width x height, stretched over the whole frame),
    /// or false with `plane` untouched when the models are absent or find no one.
    func segment(_ frame: PackedRGBFrame, into plane: UnsafeMutablePointer<Float>,
                 width: Int, height: Int) throws(LearnedModelError) -> Bool {
        if ready == nil { try? start() }
        guard ready == true else { return false }
        if let region = tracked {
            tracked = nil
            if try landmarks(frame, region, into: plane, width: width, height: height) { return true }
        }
        if idle > 0 {
            idle -= 1
            return false
        }
        if let detection = try detect(frame),
           try landmarks(frame, PoseRegion(detection, frameWidth: frame.width, frameHeight: frame.height),
                         into: plane, width: width, height: height) {
            return true
        }
        idle = Self.idleInterval - 1
        return false
    }

    /// The landmark model on `region`: its segmentation projected onto `plane` and the next
    /// frame's region kept, or false when it sees no body there.
    private func landmarks(_ frame: PackedRGBFrame, _ region: PoseRegion, into plane: UnsafeMutablePointer<Float>,
                           width: Int, height: Int) throws(LearnedModelError) -> Bool {
        guard region.side > 0 else { return false }
        let side = Self.landmarkSide
        let lease = try LearnedRuntime.acquire(try LearnedRuntime.pool(.poseLandmark))
        defer { lease.release() }
        let input = lease.input()
        guard input.count == side * side * 3 else {
            throw LearnedModelError(why: "the pose landmark model's input is not \(side)x\(side) RGB")
        }
        region.sample(frame, into: input.baseAddress!, size: side)
        try lease.run()
        // the outputs by size: 195 landmarks, the pose flag, the segmentation, the heatmap, 117 world landmarks
        var flag: UnsafeBufferPointer<Float>?, logits: UnsafeBufferPointer<Float>?
        var points: UnsafeBufferPointer<Float>?
        for k in 0..<lease.outputCount {
            let out = lease.output(k)
            switch out.count {
            case 1: flag = out
            case side * side: logits = out
            case PoseRegion.landmarkValues: points = out
            default: break
            }
        }
        guard let flag, let logits, let points else {
            throw LearnedModelError(why: "the pose landmark model has no landmarks, pose flag or \(side)x\(side) segmentation")
        }
        guard flag[0] >= Self.presenceThreshold else { return false }
        tracked = region.following(landmarks: points.baseAddress!, size: side)
        if segmentation.count != side * side { segmentation = [Float](repeating: 0, count: side * side) }
        segmentation.withUnsafeMutableBufferPointer { seg in
            PoseRegion.probabilities(logits.baseAddress!, into: seg.baseAddress!, count: side * side)
            region.project(seg.baseAddress!, size: side, frameWidth: frame.width, frameHeight: frame.height,
                           into: plane, width: width, height: height)
        }
        return true
    }

    /// The pose detector's best person on the letterboxed frame, or nil.
    private func detect(_ frame: PackedRGBFrame) throws(LearnedModelError) -> PoseDetection? {
        let m = PoseDetector.model
        let lease = try LearnedRuntime.acquire(try LearnedRuntime.pool(.poseDetection))
        defer { lease.release() }
        let input = lease.input()
        guard input.count == m.inputWidth * m.inputHeight * 3 else {
            throw LearnedModelError(why: "the pose detection model's input is not \(m.inputWidth)x\(m.inputHeight) RGB")
        }
        let box = sampler.fill(frame, into: input.baseAddress!, width: m.inputWidth, height: m.inputHeight,
                               range: -1...1, fit: .letterbox)
        try lease.run()
        var regressors: UnsafeBufferPointer<Float>?, scores: UnsafeBufferPointer<Float>?
        for k in 0..<lease.outputCount {
            let out = lease.output(k)
            if out.count == m.anchorCount * PoseDetector.coordinateCount { regressors = out }
            if out.count == m.anchorCount { scores = out }
        }
        guard let regressors, let scores else {
            throw LearnedModelError(why: "the pose detection model's outputs are not \(m.anchorCount) anchors")
        }
        return PoseDetector.best(regressors: regressors.baseAddress!, scores: scores.baseAddress!, letterbox: box)
    }
}
