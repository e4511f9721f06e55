/// The depth keyer: face lock, mask, blur, gamma, upscale and blend, with
/// scratch buffers kept between frames (no allocation per frame once the
/// sizes are stable).

/// Where the cutoff comes from.
public enum CutoffMode: Int32 {
    /// Locked to the face: face depth + offset; held when no face is seen.
    case face = 0
    /// Always `MatteSettings.cutoff`.
    case fixed = 1
    /// From depth alone: the nearest large body (see `NearestBodyFinder`).
    case nearest = 2
}

/// The element's properties, copied once per frame.
public struct MatteSettings: Equatable {
    public var mode: CutoffMode = .face
    /// Metres: the fixed cutoff, and the cutoff before any face is seen.
    public var cutoff: Double = 1.0
    /// Metres added to the face depth.
    public var cutoffOffset: Double = 0.25
    /// Gaussian sigma in depth pixels.
    public var blurRadius: Double = 5.0
    public var gamma: Double = 0.5
    /// Metres per depth unit.
    public var depthScale: Double = 0.001
    public var backgroundARGB: UInt32 = 0xff00_0000
    public var output: MatteOutput = .composite
    /// mode=face: the subject lock's rules, or the original sample's.
    public var lockStrategy: LockStrategy = .robust
    /// Seconds a lost face is trusted (tracked in depth) before the depth-only finder.
    public var lockHold: Double = 4.0
    /// Seconds: time constant with which the cutoff follows the subject.
    public var lockSmoothing: Double = 0.1
    /// Seconds since the previous frame (the lock's clock).
    public var frameDuration: Double = 1.0 / 30
    public init() {}
}

/// What one frame did, for the bus message.
public struct MatteResult: Equatable {
    /// A face box with valid depth set the cutoff on this frame.
    public var faceFound = false
    /// Metres; 0 when no face depth was measured on this frame.
    public var faceDepth = 0.0
    /// Metres: the cutoff used.
    public var cutoff = 0.0
    /// Fraction of output pixels with matte > 0.5.
    public var coverage = 0.0
    /// Where the cutoff came from.
    public var lockSource: LockSource = .fixed
    public init() {}
}

public final class DepthMatter {
    /// The locked cutoff (metres), nil before any lock.
    public var lockedCutoff: Double? { subjectLock.cutoff }
    /// Face choice, tracking, depth-only finder and smoothing.
    public let subjectLock = SubjectLock()

    private var mask = FloatPlane()
    private var blur = GaussianBlur()
    private var gammaCurve = GammaCurve()
    private var resampler = CubicResampler()
    private var matteRow: [Float] = []
    private var backgroundRow: [UInt8] = []
    private var fillColumns = AspectFillTable()
    private var fillRows = AspectFillTable()
    private var onePlane = FloatPlane(width: 1, height: 1, value: 1)

    public init() {}

    /// Forget the face lock (flush, restart).
    public func reset() { subjectLock.reset() }

    /// The cutoff for this frame, from the subject lock (see SubjectLock.swift).
    public func updateCutoff(settings: MatteSettings, depth: Depth16View?, faces: [Box],
                             videoWidth: Int, videoHeight: Int, result: inout MatteResult) -> Double {
        subjectLock.settings.holdTime = settings.lockHold
        subjectLock.settings.smoothing = settings.lockSmoothing
        return subjectLock.update(mode: settings.mode, strategy: settings.lockStrategy, cutoffSetting: settings.cutoff,
                                  offset: settings.cutoffOffset, depthScale: settings.depthScale,
                                  frameDuration: settings.frameDuration, depth: depth, faces: faces,
                                  videoWidth: videoWidth, videoHeight: videoHeight, result: &result)
    }

    /// Key one frame into `output` (same size as the video).
    /// - video: nil when there is no colour for this output time (background only).
    /// - depth: nil when there is no depth (the video passes through, matte = 1).
    /// - background: a picture in the output's format, any size, placed by aspect fill;
    ///   nil = `settings.backgroundARGB`.
    public func process(settings: MatteSettings, video: RGBImageView?, depth: Depth16View?,
                        background: RGBImageView?, output: RGBImageView, faces: [Box]) -> MatteResult {
        var result = MatteResult()
        let W = output.width, H = output.height
        let cutoff = updateCutoff(settings: settings, depth: depth, faces: faces,
                                  videoWidth: video?.width ?? W, videoHeight: video?.height ?? H, result: &result)
        result.cutoff = cutoff

        // matte at depth resolution
        if video != nil, let depth, depth.width > 0, depth.height > 0 {
            DepthThreshold.mask(depth: depth, scale: settings.depthScale, cutoff: cutoff, into: &mask)
            blur.apply(to: &mask, sigma: settings.blurRadius)
            gammaCurve.apply(to: &mask, gamma: settings.gamma)
            resampler.prepare(mask, width: W, height: H)
        } else {
            // no depth: matte 1 everywhere (unkeyed pass-through); no colour: matte 0
            onePlane[0, 0] = video == nil ? 0 : 1
            resampler.prepare(onePlane, width: W, height: H)
        }

        if matteRow.count < W { matteRow = [Float](repeating: 0, count: W) }
        if let bg = background {
            let s = AspectFillTable.fillScale(sourceWidth: bg.width, sourceHeight: bg.height, width: W, height: H)
            if fillColumns.source != bg.width || fillColumns.destination != W || fillColumns.scale != s {
                fillColumns = AspectFillTable(source: bg.width, destination: W, scale: s)
            }
            if fillRows.source != bg.height || fillRows.destination != H || fillRows.scale != s {
                fillRows = AspectFillTable(source: bg.height, destination: H, scale: s)
            }
            if backgroundRow.count < W * output.pixelStride {
                backgroundRow = [UInt8](repeating: 0, count: W * output.pixelStride)
            }
        }
        let color = ARGBColor(argb: settings.backgroundARGB)
        var covered = 0
        matteRow.withUnsafeMutableBufferPointer { mrow in
            backgroundRow.withUnsafeMutableBufferPointer { brow in
                for y in 0..<H {
                    resampler.row(y, into: mrow.baseAddress!)
                    var bgPtr: UnsafePointer<UInt8>? = nil
                    if let bg = background {
                        placeBackgroundRow(bg, y: y, width: W, pixelStride: output.pixelStride, into: brow.baseAddress!)
                        bgPtr = UnsafePointer(brow.baseAddress!)
                    }
                    let vrow: UnsafePointer<UInt8>? = video.map { UnsafePointer($0.row(y)) }
                    covered += RowBlender.blend(width: W, matte: mrow.baseAddress!,
                                                video: vrow, videoLayout: video ?? output,
                                                background: bgPtr, color: color,
                                                output: output.row(y), outputLayout: output,
                                                mode: settings.output)
                }
            }
        }
        result.coverage = W * H > 0 ? Double(covered) / Double(W * H) : 0
        return result
    }

    /// Bilinear aspect-fill sample of background row `y` into `out`
    /// (`width` pixels of the background's own layout, which is the output's).
    private func placeBackgroundRow(_ bg: RGBImageView, y: Int, width: Int, pixelStride ps: Int,
                                    into out: UnsafeMutablePointer<UInt8>) {
        let r0 = bg.row(Int(fillRows.i0[y])), r1 = bg.row(Int(fillRows.i1[y]))
        let fy = fillRows.frac[y]
        let bps = bg.pixelStride
        let channels = [bg.r, bg.g, bg.b]
        for x in 0..<width {
            let a = Int(fillColumns.i0[x]) * bps, b = Int(fillColumns.i1[x]) * bps
            let fx = fillColumns.frac[x]
            for c in channels {
                let top = Float(r0[a + c]) + fx * (Float(r0[b + c]) - Float(r0[a + c]))
                let bot = Float(r1[a + c]) + fx * (Float(r1[b + c]) - Float(r1[a + c]))
                out[x * ps + c] = roundByte(top + fy * (bot - top))
            }
        }
    }
}
