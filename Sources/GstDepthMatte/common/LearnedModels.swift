// SPDX-License-Identifier: LGPL-2.1-or-later
/// The learned models of personmask and mpfacedetect: where their files are,
/// the process-wide pool of compiled instances of each (CLiteRT), and the
/// self-test each passes before its first use.
import CLiteRT
import DMContract
import DepthMatteKit

/// Why a model cannot be used: one line for the element's message.
struct LearnedModelError: Error {
    let why: String
}

/// A .tflite file of the data folder and the figures of its self-test.
struct LearnedModel {
    /// Path inside the data folder (litert_runtime.h, dm_nn_find).
    let file: String
    /// Per output (the first two, or three): the sum of its values and their sum
    /// weighted by (index mod 97) / 97, on the self-test figure, as the
    /// pinned runtime computes them.
    let expected: [(sum: Double, weighted: Double)]

    static let selfieGeneral = LearnedModel(
        file: "models/selfie_segmentation.tflite", expected: [(259.6400, 128.3372)])
    static let selfieLandscape = LearnedModel(
        file: "models/selfie_segmentation_landscape.tflite", expected: [(11310.9862, 5595.4803)])
    static let faceShort = LearnedModel(
        file: "models/face_detection_short_range.tflite",
        expected: [(127406.8052, 64847.5339), (-15416.2186, -7335.0856)])
    static let faceFull = LearnedModel(
        file: "models/face_detection_full_range_sparse.tflite",
        expected: [(78643.3168, 38519.3287), (-23727.3794, -12217.8131)])
    static let poseDetection = LearnedModel(
        file: "models/pose_detection.tflite",
        expected: [(38080.7624, 18231.3666), (-106331.1688, -52181.6325)])
    /// Its landmarks, pose flag and segmentation (the fallback's outputs).
    static let poseLandmark = LearnedModel(
        file: "models/pose_landmark_full.tflite",
        expected: [(8316.4055, 4435.1158), (0.2766, 0), (-4819643.9493, -2393734.4857)])
}

/// One compiled instance, lent by its pool for one run.
struct ModelLease {
    let pool: OpaquePointer
    let model: OpaquePointer

    func input(_ index: Int = 0) -> UnsafeMutableBufferPointer<Float> {
        var count = 0
        let p = dm_nn_model_input(model, Int32(index), &count)
        return UnsafeMutableBufferPointer(start: p, count: p == nil ? 0 : count)
    }

    func output(_ index: Int) -> UnsafeBufferPointer<Float> {
        var count = 0
        let p = dm_nn_model_output(model, Int32(index), &count)
        return UnsafeBufferPointer(start: p, count: p == nil ? 0 : count)
    }

    /// The input's (height, width) for an NHWC image tensor.
    var inputSize: (height: Int, width: Int) {
        var dims = (Int32(0), Int32(0), Int32(0), Int32(0), Int32(0), Int32(0), Int32(0), Int32(0))
        let rank = withUnsafeMutablePointer(to: &dims) {
            $0.withMemoryRebound(to: Int32.self, capacity: 8) { dm_nn_model_input_shape(model, 0, $0) }
        }
        return rank == 4 ? (Int(dims.1), Int(dims.2)) : (0, 0)
    }

    var outputCount: Int { Int(dm_nn_model_output_count(model)) }

    func run() throws(LearnedModelError) {
        let status = withWhy { dm_nn_model_run(model, $0, $1) }
        if status.code != 0 { throw LearnedModelError(why: status.why) }
    }

    func release() { dm_nn_pool_release(pool, model) }
}

/// The result of a C call that writes its reason into a buffer.
private func withWhy(_ body: (UnsafeMutablePointer<CChar>, Int) -> Int32) -> (code: Int32, why: String) {
    withUnsafeTemporaryAllocation(of: CChar.self, capacity: 512) { buf in
        buf[0] = 0
        let code = body(buf.baseAddress!, 512)
        return (code, String(cString: buf.baseAddress!))
    }
}

enum LearnedRuntime {
    /// The data folder's path of `name`, or why it is not there.
    static func find(_ name: String) throws(LearnedModelError) -> String {
        var path = ""
        let found = withUnsafeTemporaryAllocation(of: CChar.self, capacity: 4096) { buf in
            buf[0] = 0
            let r = withWhy { dm_nn_find(name, buf.baseAddress!, 4096, $0, $1) }
            path = String(cString: buf.baseAddress!)
            return r
        }
        if found.code != 0 { throw LearnedModelError(why: found.why) }
        return path
    }

    /// The pool of `model` with the runtime loaded and the model self-tested
    /// (both once per process; a failed self-test stays failed).
    static func pool(_ model: LearnedModel) throws(LearnedModelError) -> OpaquePointer {
        let runtime = try find(DM_NN_RUNTIME_FILE)
        let loaded = withWhy { dm_nn_runtime_load(runtime, $0, $1) }
        if loaded.code != 0 { throw LearnedModelError(why: loaded.why) }
        let path = try find(model.file)
        guard let pool = dm_nn_pool_get(path, 0) else {
            throw LearnedModelError(why: "out of memory for the pool of \(path)")
        }
        let verdict = withWhy { dm_nn_pool_verdict(pool, $0, $1) }
        if verdict.code > 0 { return pool }
        if verdict.code < 0 { throw LearnedModelError(why: verdict.why) }
        let lease = try acquire(pool)
        defer { lease.release() }
        if let failure = selfTest(lease, model, path: path) {
            dm_nn_pool_set_verdict(pool, -1, failure)
            throw LearnedModelError(why: failure)
        }
        dm_nn_pool_set_verdict(pool, 1, nil)
        return pool
    }

    /// An instance of the pool's model for one run (waits while every core's is busy).
    static func acquire(_ pool: OpaquePointer) throws(LearnedModelError) -> ModelLease {
        var model: OpaquePointer?
        let r = withWhy { why, len in
            model = dm_nn_pool_acquire(pool, why, len)
            return model == nil ? -1 : 0
        }
        guard let model else { throw LearnedModelError(why: r.why) }
        return ModelLease(pool: pool, model: model)
    }

    /// Runs the model on the self-test figure and compares its outputs with
    /// the pinned runtime's (relative 1e-3): a runtime of another ABI or
    /// version, or a model file other than the shipped one, fails here.
    /// Returns why it failed, or nil.
    static func selfTest(_ lease: ModelLease, _ model: LearnedModel, path: String) -> String? {
        let input = lease.input()
        let (h, w) = lease.inputSize
        guard h > 0, w > 0, input.count == h * w * 3, lease.outputCount >= model.expected.count else {
            return "\(path) does not have the inputs and outputs of the shipped model"
        }
        SelfTestFigure.fill(input, width: w, height: h)
        do { try lease.run() } catch { return error.why }
        for (k, want) in model.expected.enumerated() {
            let out = lease.output(k)
            var sum = 0.0, weighted = 0.0
            for i in 0..<out.count {
                let v = Double(out[i])
                sum += v
                weighted += v * Double(i % 97) / 97.0
            }
            func near(_ a: Double, _ b: Double) -> Bool { abs(a - b) <= 1e-3 * max(1.0, abs(b)) }
            if !(near(sum, want.sum) && near(weighted, want.weighted)) {
                return "the self-test of \(path) failed (output \(k): sum \(sum), expected \(want.sum)): "
                    + "the model file or the LiteRT runtime is not the pinned one (ai-edge-litert 2.3.0, mediapipe 0.10.14's models)"
            }
        }
        return nil
    }
}

/// The self-test's input: a head and a body in skin tones over a textured
/// grey, RGB in 0...1, NHWC.
enum SelfTestFigure {
    static func fill(_ t: UnsafeMutableBufferPointer<Float>, width w: Int, height h: Int) {
        let fg: [Float] = [0.85, 0.65, 0.55]
        for y in 0..<h {
            for x in 0..<w {
                let u = (Float(x) + 0.5) / Float(w) - 0.5
                let v = (Float(y) + 0.5) / Float(h) - 0.35
                let person = (u * u / 0.02 + v * v / 0.03 < 1.0) || (u < 0.25 && u > -0.25 && 2 * y > h + h / 10)
                for c in 0..<3 {
                    let bg = 0.3 + 0.1 * Float(c) + 0.05 * Float((x * 7 + y * 13 + c * 5) % 11) / 10.0
                    t[(y * w + x) * 3 + c] = person ? fg[c] : bg
                }
            }
        }
    }
}

/// A learned element's entry point: `body`'s result, or -1 with its error's
/// reason copied into the shim's buffer (truncated, NUL-terminated).
func reportingWhy(_ why: UnsafeMutablePointer<CChar>?, _ length: Int,
                  _ body: () throws(LearnedModelError) -> Int32) -> Int32 {
    do {
        return try body()
    } catch {
        if let why, length > 0 {
            var n = 0
            for byte in error.why.utf8 where n < length - 1 {
                why[n] = CChar(bitPattern: byte)
                n += 1
            }
            why[n] = 0
        }
        return -1
    }
}

/// An element that runs learned models (personmask, mpfacedetect): its
/// Swift state starts with the element's settings, loading what they name.
protocol LearnedElement: AnyObject {
    associatedtype Settings
    func start(_ settings: Settings) throws(LearnedModelError)
}

/// The `dm_<element>_start` entry point of a learned element: 0, or -1 with
/// the reason in `why`.
func learnedStart<E: LearnedElement>(_ state: UnsafeMutableRawPointer?, _ settings: UnsafePointer<E.Settings>?,
                                     as: E.Type, _ why: UnsafeMutablePointer<CChar>?, _ whyLength: Int) -> Int32 {
    reportingWhy(why, whyLength) { () throws(LearnedModelError) -> Int32 in
        guard let e = ElementState.get(state, as: E.self), let settings else {
            throw LearnedModelError(why: "no element state")
        }
        try e.start(settings.pointee)
        return 0
    }
}

/// The `dm_<element>_process` entry point of a learned element: `body` on
/// its state, settings and packed RGB frame; its result, or -1 with the
/// reason in `why`.
func learnedProcess<E: LearnedElement>(_ state: UnsafeMutableRawPointer?, _ settings: UnsafePointer<E.Settings>?,
                                       _ image: UnsafePointer<DMRGBImage>?, as: E.Type,
                                       _ why: UnsafeMutablePointer<CChar>?, _ whyLength: Int,
                                       _ body: (E, E.Settings, PackedRGBFrame) throws(LearnedModelError) -> Int32) -> Int32 {
    reportingWhy(why, whyLength) { () throws(LearnedModelError) -> Int32 in
        guard let e = ElementState.get(state, as: E.self), let settings, let image,
              let frame = PackedRGBFrame(image.pointee) else {
            throw LearnedModelError(why: "no frame")
        }
        return try body(e, settings.pointee, frame)
    }
}
