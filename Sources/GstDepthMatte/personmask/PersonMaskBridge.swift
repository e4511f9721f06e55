// SPDX-License-Identifier: LGPL-2.1-or-later
/// The Swift side of personmask.h: the selfie segmentation model run
/// in-process on each frame for the `personmask` element, and on frames it
/// sees no one in, the full-body fallback (FullBodyFallback).
import DepthMatteKit
import DMContract
import CLiteRT

/// One personmask element's state (its streaming thread's): the model's
/// input of the last run, the probability it gave and that probability as
/// the last mask written (copied out again while the probability stands,
/// instead of converted anew: 1.6 % of a frozen frame's learned pipeline).
final class PersonMasker: ResettableState, LearnedElement {
    private let sampler = ModelInputSampler()
    private let fullBody = FullBodyFallback()
    private var input: [Float] = []
    private var lastInput: [Float] = []
    private var probability: [Float] = []
    private var probabilitySize = (width: 0, height: 0)
    private var lastPrint: FrameFingerprint?
    private var lastFullBody = false
    private var frames = 0
    /// `probability` as written at `maskSize` (rows packed), while `maskValid`.
    private var mask: [UInt8] = []
    private var maskSize = (width: 0, height: 0)
    private var maskValid = false

    func reset() {
        fullBody.forget()
        lastInput.removeAll(keepingCapacity: true)
        probability.removeAll(keepingCapacity: true)
        maskValid = false
        lastPrint = nil
        frames = 0
    }

    static func model(_ setting: Int32) -> LearnedModel {
        setting == Int32(DM_PERSON_MODEL_LANDSCAPE.rawValue) ? .selfieLandscape : .selfieGeneral
    }

    static func inputSize(_ setting: Int32) -> (width: Int, height: Int) {
        setting == Int32(DM_PERSON_MODEL_LANDSCAPE.rawValue) ? (256, 144) : (256, 256)
    }

    func start(_ settings: DMPersonMaskSettings) throws(LearnedModelError) {
        _ = try LearnedRuntime.pool(Self.model(settings.model))
    }

    /// The pose models, when full-body is auto.
    func startFullBody(_ settings: DMPersonMaskSettings) throws(LearnedModelError) {
        if Self.fullBody(settings) { try fullBody.start() }
    }

    static func fullBody(_ settings: DMPersonMaskSettings) -> Bool {
        settings.full_body == Int32(DM_PERSON_FULL_BODY_AUTO.rawValue)
    }

    func process(_ settings: DMPersonMaskSettings, frame: PackedRGBFrame,
                 out: UnsafeMutablePointer<UInt8>, outWidth: Int, outHeight: Int, outStride: Int) throws(LearnedModelError) {
        let (w, h) = Self.inputSize(settings.model)
        let interval = max(1, Int(settings.interval))
        let due = probability.isEmpty || probabilitySize != (w, h) || frames % interval == 0
        frames += 1
        if due {
            try segment(Self.model(settings.model), fullBody: Self.fullBody(settings), frame: frame, width: w, height: h)
        }
        if !maskValid || maskSize != (outWidth, outHeight) {
            if mask.count != outWidth * outHeight { mask = [UInt8](repeating: 0, count: outWidth * outHeight) }
            maskSize = (outWidth, outHeight)
            maskValid = true
            probability.withUnsafeBufferPointer { p in
                mask.withUnsafeMutableBufferPointer {
                    PersonProbability.write(p.baseAddress!, width: w, height: h, to: $0.baseAddress!,
                                            outWidth: outWidth, outHeight: outHeight, outStride: outWidth)
                }
            }
        }
        mask.withUnsafeBufferPointer { m in
            for y in 0..<outHeight {
                (out + y * outStride).update(from: m.baseAddress! + y * outWidth, count: outWidth)
            }
        }
    }

    /// The model's probability for `frame`, or with `fullBody` where it sees
    /// no one, the pose models' segmentation of the person they find. A frame
    /// whose fingerprint (a 64x36 grid of its pixels) equals the last run's,
    /// or whose model input equals it (with the same `fullBody`), gives the
    /// last run's probability without running a model.
    private func segment(_ model: LearnedModel, fullBody: Bool, frame: PackedRGBFrame,
                         width w: Int, height h: Int) throws(LearnedModelError) {
        let print = FrameFingerprint(frame)
        if fullBody != lastFullBody { lastPrint = nil; lastInput.removeAll(keepingCapacity: true) }
        lastFullBody = fullBody
        let have = probabilitySize == (w, h) && !probability.isEmpty
        if have, print == lastPrint { return }
        lastPrint = nil
        let count = w * h * 3
        if input.count != count { input = [Float](repeating: 0, count: count) }
        _ = input.withUnsafeMutableBufferPointer {
            sampler.fill(frame, into: $0.baseAddress!, width: w, height: h, range: 0...1, fit: .stretch)
        }
        if have, input == lastInput {
            lastPrint = print
            return
        }
        let lease = try LearnedRuntime.acquire(try LearnedRuntime.pool(model))
        var released = false
        defer { if !released { lease.release() } }
        let tensor = lease.input()
        guard tensor.count == count else {
            throw LearnedModelError(why: "the model's input is not \(w)x\(h) RGB")
        }
        input.withUnsafeBufferPointer { tensor.baseAddress!.update(from: $0.baseAddress!, count: count) }
        try lease.run()
        let out = lease.output(0)
        guard out.count == w * h else { throw LearnedModelError(why: "the model's output is not \(w)x\(h)") }
        if probability.count != w * h { probability = [Float](repeating: 0, count: w * h) }
        probability.withUnsafeMutableBufferPointer { $0.baseAddress!.update(from: out.baseAddress!, count: w * h) }
        lease.release()
        released = true
        if fullBody, !probability.withUnsafeBufferPointer({ PersonProbability.seesSomeone($0) }) {
            _ = try probability.withUnsafeMutableBufferPointer { (p) throws(LearnedModelError) -> Bool in
                try self.fullBody.segment(frame, into: p.baseAddress!, width: w, height: h)
            }
        } else {
            self.fullBody.forget()
        }
        probabilitySize = (w, h)
        maskValid = false
        swap(&input, &lastInput)
        lastPrint = print
    }
}

@_cdecl("dm_personmask_model_size")
public func dm_personmask_model_size(_ model: Int32, _ width: UnsafeMutablePointer<Int32>?,
                                     _ height: UnsafeMutablePointer<Int32>?) {
    let (w, h) = PersonMasker.inputSize(model)
    width?.pointee = Int32(w)
    height?.pointee = Int32(h)
}

@_cdecl("dm_personmask_new")
public func dm_personmask_new() -> UnsafeMutableRawPointer? {
    ElementState.retain(PersonMasker())
}

@_cdecl("dm_personmask_start")
public func dm_personmask_start(_ state: UnsafeMutableRawPointer?, _ settings: UnsafePointer<DMPersonMaskSettings>?,
                                _ why: UnsafeMutablePointer<CChar>?, _ whyLength: Int) -> Int32 {
    learnedStart(state, settings, as: PersonMasker.self, why, whyLength)
}

@_cdecl("dm_personmask_start_full_body")
public func dm_personmask_start_full_body(_ state: UnsafeMutableRawPointer?,
                                          _ settings: UnsafePointer<DMPersonMaskSettings>?,
                                          _ why: UnsafeMutablePointer<CChar>?, _ whyLength: Int) -> Int32 {
    reportingWhy(why, whyLength) { () throws(LearnedModelError) -> Int32 in
        guard let m = ElementState.get(state, as: PersonMasker.self), let settings else {
            throw LearnedModelError(why: "no element state")
        }
        try m.startFullBody(settings.pointee)
        return 0
    }
}

@_cdecl("dm_personmask_process")
public func dm_personmask_process(_ state: UnsafeMutableRawPointer?, _ settings: UnsafePointer<DMPersonMaskSettings>?,
                                  _ image: UnsafePointer<DMRGBImage>?, _ mask: UnsafePointer<DMGrayImage>?,
                                  _ why: UnsafeMutablePointer<CChar>?, _ whyLength: Int) -> Int32 {
    learnedProcess(state, settings, image, as: PersonMasker.self, why, whyLength) {
        (m, settings, frame) throws(LearnedModelError) -> Int32 in
        guard let mask, let out = mask.pointee.data else { throw LearnedModelError(why: "no frame") }
        try m.process(settings, frame: frame, out: out, outWidth: Int(mask.pointee.width),
                      outHeight: Int(mask.pointee.height), outStride: Int(mask.pointee.stride))
        return 0
    }
}

extension PackedRGBFrame {
    /// The kit's view of a shim picture (nil without pixels).
    init?(_ c: DMRGBImage) {
        guard let data = c.data, c.width > 0, c.height > 0 else { return nil }
        self.init(base: UnsafePointer(data), width: Int(c.width), height: Int(c.height), stride: Int(c.stride),
                  red: Int(c.r), green: Int(c.g), blue: Int(c.b), pixelSize: Int(c.pixel_stride))
    }
}
