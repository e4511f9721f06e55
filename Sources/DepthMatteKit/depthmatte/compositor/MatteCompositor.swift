// SPDX-License-Identifier: LGPL-2.1-or-later
/// The upscale and the blend (the original chain's steps 3 and 4, docs/quality.md) fused: bicubic upscale of the depth-resolution matte
/// and the blend, one pass over the output in which every full-resolution
/// pixel is read and written once.
///
/// Most of a frame is far from the subject's edge, where the 4×4 cubic
/// support holds only 0s or only 1s and the upscaled matte is exactly 0 or 1.
/// Each output row is cut into runs by the source columns its pixels read:
/// uniform runs are written with 32-bit word operations (a copy of the video
/// with the alpha byte set, the background colour, ...); only runs that touch
/// the edge are interpolated and blended per pixel. Rows are split into bands
/// over a `WorkerPool`. Scratch rows are kept per band: no allocation per
/// frame once the sizes are stable.
struct MatteCompositor {
    /// The bicubic taps and weights of each output column and row (step 3).
    var columns = CubicTable()
    var rows = CubicTable()
    /// The background's aspect-fill sample positions per output column and row.
    var fillColumns = AspectFillTable()
    var fillRows = AspectFillTable()
    /// The column tables, row measures, band starts and band rows.
    var scratch = CompositorScratch()
    /// `DMKernels`' AVX2 kernels on the word path (the CPU has AVX2 and
    /// `MatteRefiner.Tuning.kernels`); false: the Swift code, the same bits.
    var avx2 = kernelsHaveAVX2
    /// Outputs of at least this many bytes are written past the cache
    /// (non-temporal stores) on the AVX2 word path: a frame larger than a
    /// core's L2 (1 MB) is not read back from it (an 8 MB fill: 0.37 ms
    /// streamed, 0.63 ms through the cache).
    static let streamBytes = 2 << 20
    /// An edge run prefetches the video and the output this many rows on
    /// (the compositor's 1.15 ms a 1080p frame without, 0.96 ms with).
    static let prefetchRows = 2

    /// Upscale `matte` (values in [0, 1], exact 0 and 1 far from edges) and
    /// blend into `output`. Returns the number of output pixels with matte > 0.5.
    /// `detail`: step 3's colour detail of refine=guided (`MatteRefiner.detail`,
    /// 4 floats per matte pixel), added on the edge runs; nil: none.
    mutating func run(matte: FloatPlane, detail: FloatPlane? = nil, video: RGBImageView?, background: RGBImageView?,
                      color: ARGBColor, output: RGBImageView, mode: MatteOutput, pool: WorkerPool, threads: Int) -> Int {
        let W = output.width, H = output.height
        let bands = max(1, min(threads, H / 16 + 1))
        // a copied compositor gets its own scratch (bands write into it)
        if !isKnownUniquelyReferenced(&scratch) { scratch = CompositorScratch() }
        prepare(sourceWidth: matte.width, sourceHeight: matte.height, width: W, height: H,
                pixelStride: output.pixelStride, bands: bands, background: background)
        let sw = matte.width
        measureRows(matte, bands: bands)
        scheduleBands(bands, width: W, height: H, sourceWidth: sw, mode: mode, overColor: background == nil)
        let useDetail = video != nil && detail.map { $0.width == 4 * sw && $0.height == matte.height } ?? false
        if useDetail { scratch.detailColumns(sourceWidth: sw, width: W) }
        return (useDetail ? detail! : matte).pixels.withUnsafeBufferPointer { dp in
        matte.pixels.withUnsafeBufferPointer { src in
            let job = BandJob(sw: sw, rows: rows, scratch: scratch, fillColumns: fillColumns, fillRows: fillRows,
                              video: video, background: background, color: color, output: output, mode: mode,
                              detail: useDetail ? MatteDetail(base: dp.baseAddress!, width: sw, height: matte.height) : nil,
                              avx2: avx2, stream: avx2 && output.stride * H >= MatteCompositor.streamBytes)
            var band = BandCall(job: job, source: src.baseAddress!)
            withUnsafeMutablePointer(to: &band) { ctx in
                pool.run(bands: bands, context: UnsafeMutableRawPointer(ctx)) { raw, b in
                    let c = raw.assumingMemoryBound(to: BandCall.self)
                    c.pointee.job.scratch.covered.base[b] = c.pointee.job.rows(band: b, source: c.pointee.source)
                }
            }
            var sum = 0
            for b in 0..<bands { sum += scratch.covered.base[b] }
            return sum
        }}
    }
}

extension MatteCompositor {
    /// What the matte holds over a run of output columns (and, per source
    /// column, over the four source rows an output row reads).
    enum RunKind: UInt8 {
        /// Exactly 0 everywhere: background (or colour) only.
        case zero = 0
        /// Exactly 1 everywhere: video only.
        case one = 1
        /// Anything else: the edge, interpolated and blended per pixel.
        case edge = 2
    }

    /// Output columns `start ..< end` of one row, made of the column segments
    /// `firstSegment ...`, whose taps read source columns `firstColumn ... lastColumn`.
    struct Run {
        var start: Int32 = 0, end: Int32 = 0
        var kind = RunKind.zero
        var firstColumn: Int32 = 0, lastColumn: Int32 = 0
        var firstSegment: Int32 = 0
    }

    /// The context of one frame's band calls (a plain pointer crosses to the
    /// workers, so no closure context is allocated per frame).
    struct BandCall {
        let job: BandJob
        let source: UnsafePointer<Float>
    }

    /// Everything one band needs, read only (band b writes only its own
    /// rows of `scratch`).
    struct BandJob {
        let sw: Int
        let rows: CubicTable
        let scratch: CompositorScratch
        let fillColumns: AspectFillTable, fillRows: AspectFillTable
        let video: RGBImageView?, background: RGBImageView?
        let color: ARGBColor
        let output: RGBImageView
        let mode: MatteOutput
        /// Step 3's colour detail, or nil.
        let detail: MatteDetail?
        /// The word path by `DMKernels`' AVX2 kernels; the uniform runs'
        /// whole cache lines with non-temporal stores.
        let avx2: Bool, stream: Bool
    }
}
