// SPDX-License-Identifier: LGPL-2.1-or-later
/// Photo stacking: collect frames, align them by translation and take the
/// per-channel mean or median, so that noise averages out and people walking
/// through the shot disappear.
///
/// - `batch`: frames are collected in groups of `frames`; each group gives one
///   output in the coordinates of its *first* frame (the reference and
///   registration anchor). A partial group can be rendered at any time (EOS).
/// - `sliding`: every input gives an output, the stack of the last `frames`
///   inputs in the coordinates of the *newest* one (so live video follows the
///   camera). Frames are registered once, on arrival, against an anchor frame
///   kept in the window; when the anchor is about to leave the window the
///   previous frame becomes the anchor. Positions are kept in one global
///   coordinate system, so stacking never re-registers old frames, but every
///   output re-resamples all `frames` frames (cost ∝ frames per output).
///
/// Input frames are copied into owned slots (holding upstream buffers would
/// starve capture pools), so a slot costs width × height × bytes-per-pixel.
/// Slots and pyramids are allocated the first time they are used and reused
/// afterwards; nothing is allocated per frame after warm-up.
import DMContract

@_spi(Bench) public enum StackAlign: Int32, CaseIterable {
    case none = 0
    case translation = 1
}

@_spi(Bench) public enum StackMode: Int32, CaseIterable {
    case batch = 0
    case sliding = 1
}

/// The element's properties as the kit sees them (read from the shim's
/// copy of them, `init(_:)`).
public struct FrameStackSettings: Equatable {
    /// Frames per stack (batch) or window length (sliding), 1...maxFrames.
    @_spi(Bench) public var frames: Int
    public var method: StackMethod
    @_spi(Bench) public var align: StackAlign
    /// Largest displacement searched, in pixels.
    @_spi(Bench) public var maxShift: Double
    @_spi(Bench) public var mode: StackMode

    /// The element's properties (framestack_properties.def); `post-messages`
    /// is the shim's.
    public init(_ c: DMFrameStackSettings) {
        frames = Int(c.frames)
        method = StackMethod(property: c.method)
        align = StackAlign(property: c.align)
        maxShift = c.max_shift
        mode = StackMode(property: c.mode)
    }
}

/// Timestamps in nanoseconds; `FrameStacker.noTime` when unknown.
public struct FrameStackOutput {
    public var pts = FrameStacker.noTime
    public var duration = FrameStacker.noTime
    /// Frames stacked into this output.
    public var frames = 0
    public var coverage = StackCoverage()
    /// False when the output picture does not fit the frames (another size
    /// or pixel layout than theirs): nothing was written.
    public var ok = true
}

final class StackSlot {
    let pixels: UnsafeMutablePointer<UInt8>
    let pyramid: LumaPyramid
    var pts = FrameStacker.noTime
    var duration = FrameStacker.noTime
    /// Position in the stacker's global coordinates: content at global point
    /// p appears at pixel p - position (so a frame whose content moved right
    /// by 3 px has position.x 3 less than the reference's).
    var px = 0.0, py = 0.0
    var registered = false

    init(bytes: Int, width: Int, height: Int) {
        pixels = .allocate(capacity: max(bytes, 1))
        pyramid = LumaPyramid(width: width, height: height)
    }
    deinit { pixels.deallocate() }
}

public final class FrameStacker {
    public static let noTime = UInt64.max
    static let maxFrames = 128

    // geometry of the current stream
    private(set) var width = 0, height = 0, pixelStride = 0
    private var rOff = 0, gOff = 1, bOff = 2
    private var rowBytes = 0
    private var capacity = 0
    private var mode = StackMode.batch

    private var slots: [StackSlot?] = []
    /// Ring of slot indices: the window is `head`, head+1, ... (count of them).
    private var head = 0
    private(set) var count = 0
    private var anchor: Int? = nil

    private let registrar = TranslationRegistrar()
    private let kernel = StackKernel()
    private var taps: [StackTap] = []

    /// Per stacked frame of the last `render`, oldest first: the sampling
    /// shift (content displacement relative to the output's reference frame,
    /// pixels), whether registration succeeded, and the input timestamp.
    public private(set) var shiftX: [Double] = []
    public private(set) var shiftY: [Double] = []
    public private(set) var registered: [Bool] = []
    public private(set) var framePTS: [UInt64] = []
    /// `sampleCounts[k]`: output pixels of the last render stacked from k samples.
    public private(set) var sampleCounts: [Int] = []

    public init() {}

    /// Frames collected and not yet rendered (batch) or in the window (sliding).
    public var pending: Int { count }

    /// Forget every frame (flush, new segment, size change). Memory is kept.
    public func reset() {
        head = 0
        count = 0
        anchor = nil
    }

    private func configure(_ image: RGBImageView, _ settings: FrameStackSettings) {
        let frames = max(1, min(settings.frames, Self.maxFrames))
        let sameSize = image.width == width && image.height == height && image.pixelStride == pixelStride
        if !sameSize {
            slots = []
            width = image.width
            height = image.height
            pixelStride = image.pixelStride
            rowBytes = width * pixelStride
        }
        rOff = image.r; gOff = image.g; bOff = image.b
        capacity = frames
        mode = settings.mode
        if slots.count < capacity { slots.append(contentsOf: [StackSlot?](repeating: nil, count: capacity - slots.count)) }
        let n = capacity
        if shiftX.count < n {
            shiftX = [Double](repeating: 0, count: n); shiftY = shiftX
            registered = [Bool](repeating: false, count: n)
            framePTS = [UInt64](repeating: Self.noTime, count: n)
            sampleCounts = [Int](repeating: 0, count: n + 1)
            taps = []
            taps.reserveCapacity(n)
        }
        reset()
    }

    private func needsConfigure(_ image: RGBImageView, _ settings: FrameStackSettings) -> Bool {
        image.width != width || image.height != height || image.pixelStride != pixelStride
            || image.r != rOff || image.g != gOff || image.b != bOff
            || max(1, min(settings.frames, Self.maxFrames)) != capacity || settings.mode != mode
    }

    private func slot(_ i: Int) -> StackSlot {
        if let s = slots[i] { return s }
        let s = StackSlot(bytes: rowBytes * height, width: width, height: height)
        slots[i] = s
        return s
    }

    private func ensurePyramid(_ s: StackSlot) {
        if !s.pyramid.valid {
            s.pyramid.build(s.pixels, stride: rowBytes, pixelStride: pixelStride, r: rOff, g: gOff, b: bOff)
        }
    }

    /// Add a frame (copied). Returns true when an output is due now: the
    /// batch is full (batch) or always (sliding). A change of size, layout,
    /// `frames` or `mode` drops what was collected and starts over; render
    /// before pushing such a frame to keep it.
    /// - Parameters:
    ///   - pts, duration: the input's timestamps (ns, `noTime` if unknown)
    @discardableResult
    public func push(_ image: RGBImageView, pts: UInt64 = noTime, duration: UInt64 = noTime,
                     settings: FrameStackSettings) -> Bool {
        if needsConfigure(image, settings) { configure(image, settings) }
        // batch mode: a full batch nobody rendered is dropped
        if mode == .batch && count == capacity { reset() }
        // choose the slot; in sliding mode the oldest frame is overwritten
        let index: Int
        if count < capacity {
            index = (head + count) % capacity
            count += 1
        } else {
            index = head
            head = (head + 1) % capacity
            if anchor == index { anchor = nil }
        }
        let s = slot(index)
        for y in 0..<height {
            (s.pixels + y * rowBytes).update(from: image.row(y), count: rowBytes)
        }
        s.pts = pts
        s.duration = duration
        s.pyramid.valid = false
        s.registered = false
        s.px = 0; s.py = 0

        if count == 1 {
            // first frame of a batch / window: the anchor and the origin
            anchor = index
            s.registered = true
        } else {
            if anchor == nil {
                // the anchor left the window: the previous frame takes over
                anchor = (head + count - 2) % capacity
            }
            let a = slot(anchor!)
            s.px = a.px; s.py = a.py
            if settings.align == .translation {
                ensurePyramid(s)
                ensurePyramid(a)
                let reg = registrar.register(s.pyramid, to: a.pyramid, maxShift: max(0, settings.maxShift))
                // moving(x + d) = anchor(x): the content moved by d
                s.px = a.px - reg.x
                s.py = a.py - reg.y
                s.registered = reg.ok
            }
        }
        return mode == .sliding || count == capacity
    }

    /// Stack the collected frames into `out` (same size and pixel layout as
    /// the input). In batch mode this consumes the batch.
    public func render(into out: RGBImageView, method: StackMethod) -> FrameStackOutput {
        var result = FrameStackOutput()
        guard count > 0 else { return result }
        let n = count
        let refIndex = mode == .batch ? head : (head + n - 1) % capacity
        let ref = slot(refIndex)
        taps.removeAll(keepingCapacity: true)
        for k in 0..<n {
            let s = slot((head + k) % capacity)
            // out(x) = frame(x + shift), shift = reference position - frame position
            let sx = ref.px - s.px, sy = ref.py - s.py
            shiftX[k] = sx
            shiftY[k] = sy
            registered[k] = s.registered
            framePTS[k] = s.pts
            taps.append(StackTap(source: s.pixels, shiftX: sx, shiftY: sy, width: width, height: height))
        }
        result.frames = n
        guard let coverage = taps.withUnsafeBufferPointer({ t in
            sampleCounts.withUnsafeMutableBufferPointer { c in
                kernel.stack(taps: t, width: width, height: height, rowBytes: rowBytes, pixelStride: pixelStride,
                             method: method, out: out, sampleCounts: c.baseAddress!)
            }
        }) else {
            result.ok = false
            return result
        }
        result.coverage = coverage
        // timestamps
        if mode == .batch {
            let first = slot(head), last = slot((head + n - 1) % capacity)
            result.pts = first.pts
            if first.pts != Self.noTime && last.pts != Self.noTime && last.pts >= first.pts {
                if last.duration != Self.noTime {
                    result.duration = last.pts + last.duration - first.pts
                } else if n > 1 {
                    // no duration on the last frame: assume the batch's mean spacing
                    result.duration = (last.pts - first.pts) / UInt64(n - 1) * UInt64(n)
                }
            }
            reset()
        } else {
            result.pts = ref.pts
            result.duration = ref.duration
        }
        return result
    }
}
