/// README steps 3 and 4 fused: bicubic upscale of the depth-resolution matte
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
    /// Column segments: output columns `start[k] ..< start[k + 1]` read the same
    /// four source columns `taps[4k ..< 4k + 4]`.
    var segmentStart: [Int32] = []
    var segmentTaps: [Int32] = []
    /// Per source column c: the first segment that reads a column >= c, and
    /// the last segment that reads a column <= c.
    var segmentFrom: [Int32] = [], segmentTo: [Int32] = []
    /// The output columns of each segment in groups of up to four: group g
    /// starts at output column `groupStart[g]`, and `groupWeights[4g + t]`
    /// holds tap t's weights of its (up to) four columns (0 past its end).
    /// Segment k's groups are `segmentGroup[k] ..< segmentGroup[k + 1]`.
    var groupStart: [Int32] = [], groupWeights: [SIMD4<Float>] = [], segmentGroup: [Int32] = []
    /// Per source row: the first and last column whose matte is not 0
    /// (first > last: the row is all 0), measured once per frame.
    var rowSpan: [Int32] = []
    /// Per source row: how many values are strictly between 0 and 1 (edge
    /// work; measured only with several bands).
    var rowMixed: [Int32] = []
    /// The first output row of each band (bands + 1 entries).
    var bandStart: [Int] = []
    /// The bicubic taps and weights of each output column and row (step 3).
    var columns = CubicTable()
    var rows = CubicTable()
    /// Per band: its scratch rows.
    var scratch: [BandScratch] = []
    /// The background's aspect-fill sample positions per output column and row.
    var fillColumns = AspectFillTable()
    var fillRows = AspectFillTable()

    /// One band's rows: all of them sized once per size change.
    struct BandScratch {
        var vertical: [Float] = []   // source width: the 4 source rows combined
        var state: [RunKind] = []    // source width: what the 4 source rows hold there
        var matte: [Float] = []      // output width
        var runs: [Run] = []         // the current source rows' runs, `runCount` of them
        var runCount = 0
        var background: [UInt8] = [] // output width × pixel stride: placed background row
        var covered = 0
    }

    /// Upscale `matte` (values in [0, 1], exact 0 and 1 far from edges) and
    /// blend into `output`. Returns the number of output pixels with matte > 0.5.
    mutating func run(matte: FloatPlane, video: RGBImageView?, background: RGBImageView?,
                      color: ARGBColor, output: RGBImageView, mode: MatteOutput, pool: WorkerPool, threads: Int) -> Int {
        let W = output.width, H = output.height
        let bands = max(1, min(threads, H / 16 + 1))
        prepare(sourceWidth: matte.width, sourceHeight: matte.height, width: W, height: H,
                pixelStride: output.pixelStride, bands: bands, background: background)
        let sw = matte.width
        measureRows(matte, bands: bands)
        scheduleBands(bands, width: W, height: H, sourceWidth: sw, mode: mode, overColor: background == nil)
        let job = BandJob(sw: sw, columns: columns, rows: rows,
                          segmentStart: segmentStart, segmentTaps: segmentTaps,
                          segmentFrom: segmentFrom, segmentTo: segmentTo, rowSpan: rowSpan,
                          groupStart: groupStart, groupWeights: groupWeights, segmentGroup: segmentGroup,
                          fillColumns: fillColumns, fillRows: fillRows,
                          video: video, background: background, color: color, output: output, mode: mode)
        return matte.pixels.withUnsafeBufferPointer { src in
            scratch.withUnsafeMutableBufferPointer { sc in
                let scp = sc.baseAddress!
                bandStart.withUnsafeBufferPointer { start in
                    var band = BandCall(job: job, source: src.baseAddress!, scratch: scp, start: start.baseAddress!)
                    withUnsafeMutablePointer(to: &band) { ctx in
                        pool.run(bands: bands, context: UnsafeMutableRawPointer(ctx)) { raw, b in
                            let c = raw.assumingMemoryBound(to: BandCall.self)
                            c.pointee.scratch[b].covered = c.pointee.job.rows(c.pointee.start[b] ..< c.pointee.start[b + 1],
                                source: c.pointee.source, scratch: &c.pointee.scratch[b])
                        }
                    }
                }
                var sum = 0
                for b in 0..<bands { sum += scp[b].covered }
                return sum
            }
        }
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
        let scratch: UnsafeMutablePointer<BandScratch>
        /// Band b covers output rows start[b] ..< start[b + 1].
        let start: UnsafePointer<Int>
    }

    /// Everything one band needs, read only.
    struct BandJob {
        let sw: Int
        let columns: CubicTable, rows: CubicTable
        let segmentStart: [Int32], segmentTaps: [Int32]
        let segmentFrom: [Int32], segmentTo: [Int32], rowSpan: [Int32]
        let groupStart: [Int32], groupWeights: [SIMD4<Float>], segmentGroup: [Int32]
        let fillColumns: AspectFillTable, fillRows: AspectFillTable
        let video: RGBImageView?, background: RGBImageView?
        let color: ARGBColor
        let output: RGBImageView
        let mode: MatteOutput
    }
}
