// SPDX-License-Identifier: LGPL-2.1-or-later
/// The Swift side of mpfacedetect.h: BlazeFace run in-process on each frame
/// for the `mpfacedetect` element.
import DepthMatteKit
import DMContract
import CLiteRT

/// One BlazeFace model's part of a FaceFinder: its input of the last run
/// and the faces it gave.
private final class FaceModelRun {
    let model: BlazeFace.Model
    let file: LearnedModel
    let sampler = ModelInputSampler()
    var input: [Float] = []
    var lastInput: [Float] = []
    var faces: [FaceDetection]? = nil
    var minScore: Float = -1
    var lastPrint: FrameFingerprint?

    init(_ model: BlazeFace.Model, _ file: LearnedModel) {
        self.model = model
        self.file = file
    }

    func reset() {
        lastInput.removeAll(keepingCapacity: true)
        faces = nil
        lastPrint = nil
    }

    /// The faces in `frame`. With the same threshold, a frame whose
    /// fingerprint (a 64x36 grid of its pixels) equals the last run's, or whose
    /// model input equals it, gives the last run's faces without running the model.
    func detect(_ frame: PackedRGBFrame, print: FrameFingerprint, minScore: Float) throws(LearnedModelError) -> [FaceDetection] {
        if let faces, minScore == self.minScore, print == lastPrint { return faces }
        lastPrint = nil
        let (w, h) = (model.inputWidth, model.inputHeight)
        let count = w * h * 3
        if input.count != count { input = [Float](repeating: 0, count: count) }
        let letterbox = input.withUnsafeMutableBufferPointer {
            sampler.fill(frame, into: $0.baseAddress!, width: w, height: h, range: -1...1, fit: .letterbox)
        }
        if let faces, minScore == self.minScore, input == lastInput {
            lastPrint = print
            return faces
        }
        let lease = try LearnedRuntime.acquire(try LearnedRuntime.pool(file))
        defer { lease.release() }
        let tensor = lease.input()
        guard tensor.count == count, lease.outputCount >= 2 else {
            throw LearnedModelError(why: "the face model's tensors are not BlazeFace's")
        }
        input.withUnsafeBufferPointer { tensor.baseAddress!.update(from: $0.baseAddress!, count: count) }
        try lease.run()
        let boxes = lease.output(0), scores = lease.output(1)
        guard boxes.count == model.anchorCount * 16, scores.count == model.anchorCount else {
            throw LearnedModelError(why: "the face model's outputs do not match its anchors")
        }
        let found = BlazeFace.detect(model, regressors: boxes.baseAddress!, scores: scores.baseAddress!,
                                     minScore: minScore, letterbox: letterbox)
        faces = found
        self.minScore = minScore
        swap(&input, &lastInput)
        lastPrint = print
        return found
    }
}

/// One mpfacedetect element's state (its streaming thread's).
final class FaceFinder: ResettableState, LearnedElement {
    private let short = FaceModelRun(.shortRange, .faceShort)
    private let full = FaceModelRun(.fullRange, .faceFull)
    private var last: [FaceDetection] = []
    private var frames = 0

    func reset() {
        short.reset()
        full.reset()
        last = []
        frames = 0
    }

    private func runs(_ model: Int32) -> [FaceModelRun] {
        switch model {
        case Int32(DM_FACE_MODEL_SHORT.rawValue): return [short]
        case Int32(DM_FACE_MODEL_FULL.rawValue): return [full]
        default: return [full, short]
        }
    }

    func start(_ settings: DMFaceDetectSettings) throws(LearnedModelError) {
        // every model, so that changing `model` while PLAYING needs no load
        _ = try LearnedRuntime.pool(LearnedModel.faceFull)
        _ = try LearnedRuntime.pool(LearnedModel.faceShort)
    }

    func process(_ settings: DMFaceDetectSettings, frame: PackedRGBFrame) throws(LearnedModelError) -> [FaceDetection] {
        let interval = max(1, Int(settings.interval))
        defer { frames += 1 }
        if frames % interval != 0 { return last }
        let minScore = Float(settings.min_confidence)
        let print = FrameFingerprint(frame)
        if settings.model == Int32(DM_FACE_MODEL_BOTH.rawValue) {
            last = BlazeFace.mergeBoth(full: try full.detect(frame, print: print, minScore: minScore),
                                       short: try short.detect(frame, print: print, minScore: minScore))
        } else {
            last = try runs(settings.model)[0].detect(frame, print: print, minScore: minScore)
        }
        return last
    }
}

@_cdecl("dm_mpfacedetect_new")
public func dm_mpfacedetect_new() -> UnsafeMutableRawPointer? {
    ElementState.retain(FaceFinder())
}

@_cdecl("dm_mpfacedetect_start")
public func dm_mpfacedetect_start(_ state: UnsafeMutableRawPointer?, _ settings: UnsafePointer<DMFaceDetectSettings>?,
                                  _ why: UnsafeMutablePointer<CChar>?, _ whyLength: Int) -> Int32 {
    learnedStart(state, settings, as: FaceFinder.self, why, whyLength)
}

@_cdecl("dm_mpfacedetect_process")
public func dm_mpfacedetect_process(_ state: UnsafeMutableRawPointer?, _ settings: UnsafePointer<DMFaceDetectSettings>?,
                                    _ image: UnsafePointer<DMRGBImage>?, _ faces: UnsafeMutablePointer<DMFace>?,
                                    _ why: UnsafeMutablePointer<CChar>?, _ whyLength: Int) -> Int32 {
    learnedProcess(state, settings, image, as: FaceFinder.self, why, whyLength) {
        (f, settings, frame) throws(LearnedModelError) -> Int32 in
        guard let faces else { throw LearnedModelError(why: "no frame") }
        let found = try f.process(settings, frame: frame)
        let w = Int(image?.pointee.width ?? 0), h = Int(image?.pointee.height ?? 0)
        var n = 0
        for face in found where n < Int(DM_MAX_FACES) {
            // pixels of the frame, rounded and clamped, as facedetect reports them
            func px(_ v: Float, _ size: Int) -> Int { min(max(Int((v * Float(size)).rounded()), 0), size) }
            let x0 = px(face.x, w), y0 = px(face.y, h)
            let x1 = px(face.x + face.width, w), y1 = px(face.y + face.height, h)
            guard x1 > x0, y1 > y0 else { continue }
            faces[n] = DMFace(box: DMBox(x: Int32(x0), y: Int32(y0), width: Int32(x1 - x0), height: Int32(y1 - y0)),
                              confidence: Double(face.score))
            n += 1
        }
        return Int32(n)
    }
}
