// SPDX-License-Identifier: LGPL-2.1-or-later
/// The compositor's working memory: the size-keyed column tables, the
/// per-row measures, the band starts and every band's scratch rows, allocated
/// by hand (`GrowingBuffer`) so the bands get plain base pointers (no
/// `withUnsafe…` per buffer), grown (never shrunk) when the sizes or the band
/// count grow and freed with the compositor. No heap allocation per frame
/// once the sizes (and the thread count) are stable.
final class CompositorScratch {
    /// Column segments: output columns `segmentStart[k] ..< segmentStart[k + 1]`
    /// read the same four source columns `segmentTaps[4k ..< 4k + 4]`
    /// (`segmentCount` segments).
    var segmentStart = GrowingBuffer<Int32>(filling: 0), segmentTaps = GrowingBuffer<Int32>(filling: 0)
    private(set) var segmentCount = 0
    /// Per source column c: the first segment that reads a column >= c, and
    /// the last segment that reads a column <= c.
    var segmentFrom = GrowingBuffer<Int32>(filling: 0), segmentTo = GrowingBuffer<Int32>(filling: 0)
    /// The output columns of each segment in groups of up to four: group g
    /// starts at output column `groupStart[g]`, and `groupWeights[4g + t]`
    /// holds tap t's weights of its (up to) four columns (0 past its end).
    /// Segment k's groups are `segmentGroup[k] ..< segmentGroup[k + 1]`.
    var groupStart = GrowingBuffer<Int32>(filling: 0), segmentGroup = GrowingBuffer<Int32>(filling: 0)
    var groupWeights = GrowingBuffer<SIMD4<Float>>(filling: SIMD4(repeating: 0))
    /// The bicubic taps and weights of each output column (`CubicTable`'s).
    var columnIndex = GrowingBuffer<Int32>(filling: 0), columnWeight = GrowingBuffer<Float>(filling: 0)
    /// (source width, output width) of the column tables.
    private var columnKey = (0, 0)
    /// The colour detail's bilinear columns (`detailColumns`) and their key.
    var detailColumn = GrowingBuffer<Int32>(filling: 0), detailWeight = GrowingBuffer<Float>(filling: 0)
    var detailKey = (0, 0)

    /// Per source row: the first and last column whose matte is not 0
    /// (first > last: the row is all 0), measured once per frame.
    var rowSpan = GrowingBuffer<Int32>(filling: 0)
    /// Per source row: how many values are strictly between 0 and 1 (edge
    /// work; measured only with several bands).
    var rowMixed = GrowingBuffer<Int32>(filling: 0)
    /// The first output row of each band (bands + 1 entries).
    var bandStart = GrowingBuffer<Int>(filling: 0)
    /// Per band: the output pixels with matte > 0.5 of its rows.
    var covered = GrowingBuffer<Int>(filling: 0)

    /// Band b's scratch rows start at b × their stride (a whole number of
    /// cache lines): the 4 source rows combined and what they hold per source
    /// column; the output row's matte; the current source rows' runs; the
    /// placed background row (output width × pixel stride).
    var vertical = GrowingBuffer<Float>(filling: 0)
    var state = GrowingBuffer<MatteCompositor.RunKind>(filling: .zero)
    var matte = GrowingBuffer<Float>(filling: 0)
    var runs = GrowingBuffer<MatteCompositor.Run>(filling: MatteCompositor.Run())
    var background = GrowingBuffer<UInt8>(filling: 0)
    private(set) var sourceStride = 0, matteStride = 0, runStride = 0, backgroundStride = 0

    init() {}

    deinit {
        segmentStart.free(); segmentTaps.free(); segmentFrom.free(); segmentTo.free()
        groupStart.free(); segmentGroup.free(); groupWeights.free(); columnIndex.free(); columnWeight.free()
        rowSpan.free(); rowMixed.free(); bandStart.free(); covered.free()
        vertical.free(); state.free(); matte.free(); runs.free(); background.free()
        detailColumn.free(); detailWeight.free()
    }

    /// Grow the per-row and per-band buffers for a source `sw` × `sh`, an
    /// output `width` wide of `pixelStride` bytes a pixel and `bands` bands
    /// (after `columnTables`, whose segment count sizes the runs).
    func reserve(sourceWidth sw: Int, sourceHeight sh: Int, width: Int, pixelStride: Int,
                 bands: Int, background hasBackground: Bool) {
        @inline(__always) func lines(_ n: Int) -> Int { (n + 63) & ~63 }
        rowSpan.reserve(2 * sh); rowMixed.reserve(sh)
        bandStart.reserve(bands + 1); covered.reserve(bands)
        sourceStride = max(sourceStride, lines(sw))
        // (+ 3: the cubic stores four values per group of up to four columns)
        matteStride = max(matteStride, lines(width + 3))
        runStride = max(runStride, segmentCount + 1)
        vertical.reserve(bands * sourceStride); state.reserve(bands * sourceStride)
        matte.reserve(bands * matteStride); runs.reserve(bands * runStride)
        if hasBackground {
            backgroundStride = max(backgroundStride, lines(width * pixelStride))
            background.reserve(bands * backgroundStride)
        }
    }

    /// The column segments and groups of `columns` (a source `sw` wide onto
    /// an output `width` wide), rebuilt only when the sizes change.
    func columnTables(_ columns: CubicTable, sourceWidth sw: Int, width: Int) {
        if columnKey == (sw, width) { return }
        columnKey = (sw, width)
        columnIndex.reserve(4 * width); columnWeight.reserve(4 * width)
        for q in 0..<4 * width { columnIndex.base[q] = columns.index[q]; columnWeight.base[q] = columns.weight[q] }
        segmentStart.reserve(width + 1); segmentTaps.reserve(4 * width)
        groupStart.reserve(width); groupWeights.reserve(4 * width); segmentGroup.reserve(width + 1)
        segmentFrom.reserve(sw); segmentTo.reserve(sw)
        let ix = columnIndex.base, start = segmentStart.base, taps = segmentTaps.base
        var nseg = 0
        for x in 0..<width {
            let j = 4 * x
            let newSegment = x == 0 || ix[j] != ix[j - 4] || ix[j + 1] != ix[j - 3]
                || ix[j + 2] != ix[j - 2] || ix[j + 3] != ix[j - 1]
            if newSegment {
                start[nseg] = Int32(x)
                for t in 0..<4 { taps[4 * nseg + t] = ix[j + t] }
                nseg += 1
            }
        }
        start[nseg] = Int32(width)
        segmentCount = nseg
        var groups = 0, weights = 0
        for k in 0..<nseg {
            segmentGroup.base[k] = Int32(groups)
            var x = Int(start[k])
            while x < Int(start[k + 1]) {
                let n = min(4, Int(start[k + 1]) - x)
                groupStart.base[groups] = Int32(x)
                groups += 1
                for t in 0..<4 {
                    var c = SIMD4<Float>(repeating: 0)
                    for i in 0..<n { c[i] = columnWeight.base[4 * (x + i) + t] }
                    groupWeights.base[weights] = c
                    weights += 1
                }
                x += n
            }
        }
        segmentGroup.base[nseg] = Int32(groups)
        var k = 0
        for c in 0..<sw {
            while k < nseg && Int(taps[4 * k + 3]) < c { k += 1 }
            segmentFrom.base[c] = Int32(k)
        }
        k = nseg - 1
        for c in stride(from: sw - 1, through: 0, by: -1) {
            while k >= 0 && Int(taps[4 * k]) > c { k -= 1 }
            segmentTo.base[c] = Int32(k)
        }
    }
}
