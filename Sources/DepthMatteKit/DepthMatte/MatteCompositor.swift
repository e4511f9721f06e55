/// Steps 5 and 6 fused: bicubic upscale of the depth-resolution matte and the
/// blend, one pass over the output in which every full-resolution pixel is
/// read and written once.
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
    private var segmentStart: [Int32] = []
    private var segmentTaps: [Int32] = []
    /// Per source column c: the first segment that reads a column >= c, and
    /// the last segment that reads a column <= c.
    private var segmentFrom: [Int32] = [], segmentTo: [Int32] = []
    /// The output columns of each segment in groups of up to four: group g
    /// starts at output column `groupStart[g]`, and `groupWeights[4g + t]`
    /// holds tap t's weights of its (up to) four columns (0 past its end).
    /// Segment k's groups are `segmentGroup[k] ..< segmentGroup[k + 1]`.
    private var groupStart: [Int32] = [], groupWeights: [SIMD4<Float>] = [], segmentGroup: [Int32] = []
    /// Per source row: the first and last column whose matte is not 0
    /// (first > last: the row is all 0), measured once per frame.
    private var rowSpan: [Int32] = []
    /// Per source row: how many values are strictly between 0 and 1 (edge
    /// work), and the first output row of each band (bands + 1 entries).
    private var rowMixed: [Int32] = []
    private var bandStart: [Int] = []
    private var columns = CubicTable()
    private var rows = CubicTable()
    private var scratch: [BandScratch] = []
    private var fillColumns = AspectFillTable()
    private var fillRows = AspectFillTable()

    struct BandScratch {
        var vertical: [Float] = []   // source width: the 4 source rows combined
        var state: [UInt8] = []      // source width: 0 all zero, 1 all one, 2 mixed
        var matte: [Float] = []      // output width
        var runs: [Int32] = []       // (x0, x1, class, first source column, last source column, first segment) per run
        var runCount = 0
        var background: [UInt8] = [] // output width × pixel stride: placed background row
        var covered = 0
    }

    mutating func prepare(sourceWidth sw: Int, sourceHeight sh: Int, width: Int, height: Int,
                          pixelStride: Int, bands: Int, background: RGBImageView?) {
        if columns.source != sw || columns.destination != width {
            columns.update(source: sw, destination: width)
            segmentStart.removeAll(keepingCapacity: true)
            segmentTaps.removeAll(keepingCapacity: true)
            columns.index.withUnsafeBufferPointer { ix in
                for x in 0..<width {
                    let j = 4 * x
                    let newSegment = x == 0 || ix[j] != ix[j - 4] || ix[j + 1] != ix[j - 3]
                        || ix[j + 2] != ix[j - 2] || ix[j + 3] != ix[j - 1]
                    if newSegment {
                        segmentStart.append(Int32(x))
                        segmentTaps.append(contentsOf: [ix[j], ix[j + 1], ix[j + 2], ix[j + 3]])
                    }
                }
            }
            segmentStart.append(Int32(width))
            let nseg = segmentStart.count - 1
            groupStart.removeAll(keepingCapacity: true)
            groupWeights.removeAll(keepingCapacity: true)
            segmentGroup.removeAll(keepingCapacity: true)
            for k in 0..<nseg {
                segmentGroup.append(Int32(groupStart.count))
                var x = Int(segmentStart[k])
                while x < Int(segmentStart[k + 1]) {
                    let n = min(4, Int(segmentStart[k + 1]) - x)
                    groupStart.append(Int32(x))
                    for t in 0..<4 {
                        var c = SIMD4<Float>(repeating: 0)
                        for i in 0..<n { c[i] = columns.weight[4 * (x + i) + t] }
                        groupWeights.append(c)
                    }
                    x += n
                }
            }
            segmentGroup.append(Int32(groupStart.count))
            segmentFrom = [Int32](repeating: Int32(nseg), count: sw)
            segmentTo = [Int32](repeating: -1, count: sw)
            var k = 0
            for c in 0..<sw {
                while k < nseg && Int(segmentTaps[4 * k + 3]) < c { k += 1 }
                segmentFrom[c] = Int32(k)
            }
            k = nseg - 1
            for c in stride(from: sw - 1, through: 0, by: -1) {
                while k >= 0 && Int(segmentTaps[4 * k]) > c { k -= 1 }
                segmentTo[c] = Int32(k)
            }
        }
        if rowSpan.count != 2 * sh { rowSpan = [Int32](repeating: 0, count: 2 * sh); rowMixed = [Int32](repeating: 0, count: sh) }
        if bandStart.count < bands + 1 { bandStart = [Int](repeating: 0, count: bands + 1) }
        rows.update(source: sh, destination: height)
        if scratch.count < bands { scratch += Array(repeating: BandScratch(), count: bands - scratch.count) }
        for b in 0..<bands {
            if scratch[b].vertical.count < sw {
                scratch[b].vertical = [Float](repeating: 0, count: sw)
                scratch[b].state = [UInt8](repeating: 0, count: sw)
            }
            // (+ 3: the cubic stores four values per group of up to four columns)
            if scratch[b].matte.count < width + 3 { scratch[b].matte = [Float](repeating: 0, count: width + 3) }
            if scratch[b].runs.count < 6 * (segmentStart.count + 1) {
                scratch[b].runs = [Int32](repeating: 0, count: 6 * (segmentStart.count + 1))
            }
            if background != nil && scratch[b].background.count < width * pixelStride {
                scratch[b].background = [UInt8](repeating: 0, count: width * pixelStride)
            }
        }
        if let bg = background {
            let s = AspectFillTable.fillScale(sourceWidth: bg.width, sourceHeight: bg.height, width: width, height: height)
            if fillColumns.source != bg.width || fillColumns.destination != width || fillColumns.scale != s {
                fillColumns = AspectFillTable(source: bg.width, destination: width, scale: s)
            }
            if fillRows.source != bg.height || fillRows.destination != height || fillRows.scale != s {
                fillRows = AspectFillTable(source: bg.height, destination: height, scale: s)
            }
        }
    }

    /// Upscale `matte` (values in [0, 1], exact 0 and 1 far from edges) and
    /// blend into `output`. Returns the number of output pixels with matte > 0.5.
    mutating func run(matte: FloatPlane, video: RGBImageView?, background: RGBImageView?,
                      color: ARGBColor, output: RGBImageView, mode: MatteOutput, pool: WorkerPool, threads: Int) -> Int {
        let W = output.width, H = output.height
        let bands = max(1, min(threads, H / 16 + 1))
        prepare(sourceWidth: matte.width, sourceHeight: matte.height, width: W, height: H,
                pixelStride: output.pixelStride, bands: bands, background: background)
        let sw = matte.width, sh = matte.height
        matte.pixels.withUnsafeBufferPointer { m in
            rowSpan.withUnsafeMutableBufferPointer { span in
            rowMixed.withUnsafeMutableBufferPointer { mixed in
                let zero = SIMD8<Float>(repeating: 0), one = SIMD8<Float>(repeating: 1)
                for r in 0..<sh {
                    let row = m.baseAddress! + r * sw
                    var lo = 0, hi = sw - 1
                    while lo + 8 <= sw && all(UnsafeRawPointer(row + lo).loadUnaligned(as: SIMD8<Float>.self) .== zero) { lo += 8 }
                    while lo < sw && row[lo] == 0 { lo += 1 }
                    while hi - 8 >= lo && all(UnsafeRawPointer(row + hi - 7).loadUnaligned(as: SIMD8<Float>.self) .== zero) { hi -= 8 }
                    while hi > lo && row[hi] == 0 { hi -= 1 }
                    span[2 * r] = Int32(lo); span[2 * r + 1] = Int32(hi)
                    if bands > 1 {
                        // values strictly between 0 and 1 in the span: the row's edge work
                        var count = SIMD8<Int32>(repeating: 0)
                        var x = lo
                        while x + 8 <= hi + 1 {
                            let v = UnsafeRawPointer(row + x).loadUnaligned(as: SIMD8<Float>.self)
                            count &-= unsafeBitCast((v .> zero) .& (v .< one), to: SIMD8<Int32>.self)  // true is -1
                            x += 8
                        }
                        var c = Int(count.wrappedSum())
                        while x <= hi { if row[x] > 0 && row[x] < 1 { c += 1 }; x += 1 }
                        mixed[r] = Int32(c)
                    }
                }
            }}
        }
        // Bands of equal estimated cost, not of equal height: an output row
        // costs its width (the uniform runs, at memory speed) plus about six
        // times the edge pixels it gets from its source row (measured: the
        // edge blend is several times the cost of a uniform pixel). Over a
        // colour, a background pixel is only written while one of the subject
        // is also read from the video: the row's span of subject counts once
        // more (with 2 threads the compositor's two bands took 0.58 / 0.76 ms
        // without it, 0.63 / 0.72 ms with it).
        bandStart.withUnsafeMutableBufferPointer { start in
            start[0] = 0; start[bands] = H
            guard bands > 1 else { return }
            let scale = Double(W) / Double(max(sw, 1))
            let perMixed = 6 * scale
            let perSpan = mode == .composite && background == nil ? scale : 0
            @inline(__always) func cost(_ y: Int) -> Double {
                let r = Int(rows.index[4 * y + 1])
                let span = max(0, Int(rowSpan[2 * r + 1]) - Int(rowSpan[2 * r]) + 1)
                return Double(W) + perMixed * Double(rowMixed[r]) + perSpan * Double(span)
            }
            var total = 0.0
            for y in 0..<H { total += cost(y) }
            var acc = 0.0, b = 1, y = 0
            while b < bands {
                while y < H && acc < total * Double(b) / Double(bands) { acc += cost(y); y += 1 }
                start[b] = y
                b += 1
            }
        }
        let job = BandJob(src: nil, sw: sw, columns: columns, rows: rows,
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

/// The context of one frame's band calls (a plain pointer crosses to the
/// workers, so no closure context is allocated per frame).
private struct BandCall {
    let job: BandJob
    let source: UnsafePointer<Float>
    let scratch: UnsafeMutablePointer<MatteCompositor.BandScratch>
    /// Band b covers output rows start[b] ..< start[b + 1].
    let start: UnsafePointer<Int>
}

/// Everything one band needs, read only.
private struct BandJob {
    let src: UnsafePointer<Float>?
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

    func rows(_ range: Range<Int>, source src: UnsafePointer<Float>, scratch s: inout MatteCompositor.BandScratch) -> Int {
        let o = output
        let W = o.width
        // 32-bit word path: 4-byte pixels with the same colour byte positions
        // in video, background and output.
        let words = o.pixelStride == 4 && o.a >= 0 && video.map {
            $0.pixelStride == 4 && $0.r == o.r && $0.g == o.g && $0.b == o.b
        } ?? false && background.map { $0.pixelStride == 4 && $0.r == o.r && $0.g == o.g && $0.b == o.b } ?? true
        let alphaMask: UInt32 = o.a >= 0 ? UInt32(0xff) << UInt32(8 * o.a) : 0
        var colorWord: UInt32 = alphaMask
        colorWord |= UInt32(color.r) << UInt32(8 * o.r) | UInt32(color.g) << UInt32(8 * o.g) | UInt32(color.b) << UInt32(8 * o.b)
        let directBackground = background.map { $0.width == W && $0.height == o.height } ?? false
        var covered = 0
        let nseg = segmentStart.count - 1

        segmentStart.withUnsafeBufferPointer { segStart in
        segmentTaps.withUnsafeBufferPointer { taps in
        groupStart.withUnsafeBufferPointer { gStart in
        groupWeights.withUnsafeBufferPointer { gwp in
        segmentGroup.withUnsafeBufferPointer { segGroup in
        columns.index.withUnsafeBufferPointer { cix in
        columns.weight.withUnsafeBufferPointer { cwt in
        s.vertical.withUnsafeMutableBufferPointer { vert in
        s.state.withUnsafeMutableBufferPointer { state in
        s.matte.withUnsafeMutableBufferPointer { mrow in
        s.background.withUnsafeMutableBufferPointer { brow in
            let vp = vert.baseAddress!, st = state.baseAddress!, mp = mrow.baseAddress!, gw = gwp.baseAddress!
            // Consecutive output rows mostly read the same four source rows
            // (only the weights differ): the uniformity states and the runs
            // depend on the rows alone and are reused until they change.
            var haveRows = false
            var q0 = 0, q1 = 0, q2 = 0, q3 = 0
            for y in range {
                let j = 4 * y
                let i0 = Int(rows.index[j]), i1 = Int(rows.index[j + 1])
                let i2 = Int(rows.index[j + 2]), i3 = Int(rows.index[j + 3])
                let a = src + i0 * sw, b = src + i1 * sw, c = src + i2 * sw, d = src + i3 * sw
                if !haveRows || i0 != q0 || i1 != q1 || i2 != q2 || i3 != q3 {
                    haveRows = true
                    q0 = i0; q1 = i1; q2 = i2; q3 = i3
                    // only the columns between the first and last non-zero
                    // value of the four rows (and the 3 beyond, which the
                    // segments at the border read) can be anything but 0
                    var lo = Int(min(rowSpan[2 * i0], rowSpan[2 * i1], rowSpan[2 * i2], rowSpan[2 * i3]))
                    var hi = Int(max(rowSpan[2 * i0 + 1], rowSpan[2 * i1 + 1], rowSpan[2 * i2 + 1], rowSpan[2 * i3 + 1]))
                    var kFirst = nseg, kLast = -1
                    if lo < sw && hi >= lo {
                        kFirst = Int(segmentFrom[lo]); kLast = Int(segmentTo[hi])
                        lo = max(0, lo - 3); hi = min(sw - 1, hi + 3)
                        for x in lo...hi {
                            let va = a[x], vb = b[x], vc = c[x], vd = d[x]
                            let same = va == vb && vb == vc && vc == vd
                            st[x] = same && va == 0 ? 0 : (same && va == 1 ? 1 : 2)
                        }
                    }
                    @inline(__always) func segmentClass(_ k: Int) -> UInt8 {
                        let t = 4 * k
                        let s0 = st[Int(taps[t])], s1 = st[Int(taps[t + 1])]
                        let s2 = st[Int(taps[t + 2])], s3 = st[Int(taps[t + 3])]
                        return s0 == s1 && s0 == s2 && s0 == s3 ? s0 : 2
                    }
                    s.runCount = 0
                    @inline(__always) func addRun(_ k: Int, _ e: Int, _ cls: UInt8) {
                        let r = 6 * s.runCount
                        s.runs[r] = segStart[k]; s.runs[r + 1] = segStart[e]; s.runs[r + 2] = Int32(cls)
                        s.runs[r + 3] = taps[4 * k]; s.runs[r + 4] = taps[4 * (e - 1) + 3]; s.runs[r + 5] = Int32(k)
                        s.runCount += 1
                    }
                    if kFirst > kLast {
                        addRun(0, nseg, 0)
                    } else {
                        if kFirst > 0 { addRun(0, kFirst, 0) }
                        var k = kFirst
                        while k <= kLast {
                            let cls = segmentClass(k)
                            var e = k + 1
                            while e <= kLast && segmentClass(e) == cls { e += 1 }
                            addRun(k, e, cls)
                            k = e
                        }
                        if kLast < nseg - 1 { addRun(kLast + 1, nseg, 0) }
                    }
                }
                let w0 = rows.weight[j], w1 = rows.weight[j + 1], w2 = rows.weight[j + 2], w3 = rows.weight[j + 3]
                let outRow = o.row(y)
                let videoRow: UnsafeMutablePointer<UInt8>? = video.map { $0.row(y) }
                var bgPlaced = false
                func backgroundRow() -> UnsafePointer<UInt8>? {
                    guard let bg = background else { return nil }
                    if directBackground { return UnsafePointer(bg.row(y)) }
                    if !bgPlaced {
                        placeBackgroundRow(bg, y: y, width: W, pixelStride: o.pixelStride, into: brow.baseAddress!)
                        bgPlaced = true
                    }
                    return UnsafePointer(brow.baseAddress!)
                }

                for run in 0..<s.runCount {
                    let r = 6 * run
                    let x0 = Int(s.runs[r]), x1 = Int(s.runs[r + 1]), cls = UInt8(s.runs[r + 2])
                    let n = x1 - x0
                    if cls == 2 {
                        // vertical taps only for the source columns this run reads
                        // (8 columns at a time, each lane in the scalar order)
                        var x = Int(s.runs[r + 3])
                        let xEnd = Int(s.runs[r + 4]) + 1
                        while x + 8 <= xEnd {
                            @inline(__always) func at(_ p: UnsafePointer<Float>) -> SIMD8<Float> {
                                UnsafeRawPointer(p + x).loadUnaligned(as: SIMD8<Float>.self)
                            }
                            let v = w0 * at(a) + w1 * at(b) + w2 * at(c) + w3 * at(d)
                            UnsafeMutableRawPointer(vp + x).storeBytes(of: v, as: SIMD8<Float>.self)
                            x += 8
                        }
                        while x < xEnd {
                            vp[x] = w0 * a[x] + w1 * b[x] + w2 * c[x] + w3 * d[x]
                            x += 1
                        }
                    }
                    if cls == 1 { covered += n }
                    if words && cls < 2 {
                        let out32 = UnsafeMutableRawPointer(outRow + 4 * x0).assumingMemoryBound(to: UInt32.self)
                        let vid32 = videoRow.map { UnsafeRawPointer($0 + 4 * x0).assumingMemoryBound(to: UInt32.self) }
                        switch (mode, cls) {
                        case (.composite, 1), (.alpha, 1):
                            let v = vid32!
                            for i in 0..<n { out32[i] = v[i] | alphaMask }
                        case (.composite, _):
                            if let bgp = backgroundRow() {
                                let g = UnsafeRawPointer(bgp + 4 * x0).assumingMemoryBound(to: UInt32.self)
                                for i in 0..<n { out32[i] = g[i] | alphaMask }
                            } else {
                                for i in 0..<n { out32[i] = colorWord }
                            }
                        case (.alpha, _):
                            let v = vid32!
                            for i in 0..<n { out32[i] = v[i] & ~alphaMask }
                        case (.matte, 1):
                            for i in 0..<n { out32[i] = 0xffff_ffff }
                        case (.matte, _):
                            for i in 0..<n { out32[i] = alphaMask }
                        }
                        continue
                    }
                    if words && cls == 2 {
                        // edge run: the cubic segment by segment (the four source
                        // values loaded once per segment), then clamp, rounding and
                        // blend four pixels at a time (SIMD; see EdgeBlend)
                        // Four output columns per step (a group of one segment):
                        // each lane sums w0 v0 + w1 v1 + w2 v2 + w3 v3 in the
                        // scalar path's order. A group shorter than four
                        // stores past its end; the next group (or nothing the
                        // run reads) is there.
                        var k = Int(s.runs[r + 5])
                        var x = x0
                        while x < x1 {
                            let t = 4 * k
                            let v0 = SIMD4<Float>(repeating: vp[Int(taps[t])]), v1 = SIMD4<Float>(repeating: vp[Int(taps[t + 1])])
                            let v2 = SIMD4<Float>(repeating: vp[Int(taps[t + 2])]), v3 = SIMD4<Float>(repeating: vp[Int(taps[t + 3])])
                            for g in Int(segGroup[k])..<Int(segGroup[k + 1]) {
                                let c = gw + 4 * g
                                let m = c[0] * v0 + c[1] * v1 + c[2] * v2 + c[3] * v3
                                UnsafeMutableRawPointer(mp + Int(gStart[g])).storeBytes(of: m, as: SIMD4<Float>.self)
                            }
                            x = Int(segStart[k + 1])
                            k += 1
                        }
                        let bgp: UnsafePointer<UInt32>? = mode == .composite ? backgroundRow().map {
                            UnsafeRawPointer($0).assumingMemoryBound(to: UInt32.self) } : nil
                        covered += EdgeBlend.run(matte: mp, range: x0..<x1,
                            video: UnsafeRawPointer(videoRow!).assumingMemoryBound(to: UInt32.self),
                            background: bgp, color: colorWord, alphaMask: alphaMask, alphaShift: UInt32(8 * o.a),
                            output: UnsafeMutableRawPointer(outRow).assumingMemoryBound(to: UInt32.self), mode: mode)
                        continue
                    }
                    // interpolate the run's matte, then the generic blend
                    if cls == 2 {
                        for x in x0..<x1 {
                            let q = 4 * x
                            let v = cwt[q] * vp[Int(cix[q])] + cwt[q + 1] * vp[Int(cix[q + 1])]
                                + cwt[q + 2] * vp[Int(cix[q + 2])] + cwt[q + 3] * vp[Int(cix[q + 3])]
                            mp[x] = min(max(v, 0), 1)
                        }
                    } else {
                        let v: Float = cls == 1 ? 1 : 0
                        for x in x0..<x1 { mp[x] = v }
                    }
                    let bgRow = mode == .composite && cls != 1 ? backgroundRow() : nil
                    let blended = RowBlender.blend(
                        width: n, matte: mp + x0,
                        video: videoRow.map { UnsafePointer($0 + x0 * video!.pixelStride) },
                        videoLayout: video ?? o,
                        background: bgRow.map { $0 + x0 * o.pixelStride }, color: color,
                        output: outRow + x0 * o.pixelStride, outputLayout: o, mode: mode)
                    if cls == 2 { covered += blended }
                }
            }
        }}}}}}}}}}}
        return covered
    }

    /// Bilinear aspect-fill sample of background row `y` into `out`
    /// (`width` pixels of the background's own layout, which is the output's).
    private func placeBackgroundRow(_ bg: RGBImageView, y: Int, width: Int, pixelStride ps: Int,
                                    into out: UnsafeMutablePointer<UInt8>) {
        let r0 = bg.row(Int(fillRows.i0[y])), r1 = bg.row(Int(fillRows.i1[y]))
        let fy = fillRows.frac[y]
        let bps = bg.pixelStride
        let cr = bg.r, cg = bg.g, cb = bg.b
        fillColumns.i0.withUnsafeBufferPointer { i0 in
        fillColumns.i1.withUnsafeBufferPointer { i1 in
        fillColumns.frac.withUnsafeBufferPointer { fr in
            for x in 0..<width {
                let a = Int(i0[x]) * bps, b = Int(i1[x]) * bps
                let fx = fr[x]
                for c in 0..<3 {
                    let ch = c == 0 ? cr : (c == 1 ? cg : cb)
                    let top = Float(r0[a + ch]) + fx * (Float(r0[b + ch]) - Float(r0[a + ch]))
                    let bot = Float(r1[a + ch]) + fx * (Float(r1[b + ch]) - Float(r1[a + ch]))
                    out[x * ps + ch] = roundByte(top + fy * (bot - top))
                }
            }
        }}}
    }
}

/// The blend of an edge run in 32-bit pixels (any byte order; the alpha byte
/// at `alphaShift`), four pixels per step. The colour bytes are multiplied in
/// 16-bit lanes (two per pixel word: bytes 0 and 2, then 1 and 3), which SSE2
/// does in one instruction, and divided by 255 with exact rounding:
/// `(x + 128 + ((x + 128) >> 8)) >> 8`. Alpha is `round(255 m)`, m clamped to
/// [0, 1]; the results equal the per-pixel formula's (tested).
public enum EdgeBlend {
    typealias U4 = SIMD4<UInt32>
    typealias H8 = SIMD8<UInt16>

    @inline(__always) static func alpha(_ m: SIMD4<Float>) -> U4 {
        // floor(255 c + 0.5) without the generic (slow) float-to-integer
        // conversion: adding 2^23 leaves the value rounded to an integer in
        // the low significand bits (ties to even); one compare makes it floor
        let c = m.replacing(with: 0, where: m .< 0).replacing(with: 1, where: m .> 1)
        let y = c * 255 + 0.5
        let big = y + 8_388_608
        let down = (big - 8_388_608) .> y
        return (unsafeBitCast(big, to: U4.self) & 0x1ff) &- (unsafeBitCast(down, to: U4.self) & 1)
    }

    /// v·a + g·(255 − a), rounded /255, per colour byte; `aa` is a in both 16-bit halves.
    @inline(__always) static func mix(_ v: U4, _ g: U4, _ aa: U4) -> U4 {
        let ia = U4(repeating: 0x00ff_00ff) &- aa
        let lo = unsafeBitCast(v & 0x00ff_00ff, to: H8.self) &* unsafeBitCast(aa, to: H8.self)
            &+ unsafeBitCast(g & 0x00ff_00ff, to: H8.self) &* unsafeBitCast(ia, to: H8.self) &+ 0x80
        let hi = unsafeBitCast((v &>> 8) & 0x00ff_00ff, to: H8.self) &* unsafeBitCast(aa, to: H8.self)
            &+ unsafeBitCast((g &>> 8) & 0x00ff_00ff, to: H8.self) &* unsafeBitCast(ia, to: H8.self) &+ 0x80
        let rlo = unsafeBitCast((lo &+ (lo &>> 8)) &>> 8, to: U4.self)
        let rhi = unsafeBitCast((hi &+ (hi &>> 8)) &>> 8, to: U4.self)
        return rlo | (rhi &<< 8)
    }

    /// Returns the number of pixels with m > 0.5.
    public static func run(matte mp: UnsafePointer<Float>, range: Range<Int>, video: UnsafePointer<UInt32>,
                    background: UnsafePointer<UInt32>?, color: UInt32, alphaMask: UInt32, alphaShift: UInt32,
                    output out: UnsafeMutablePointer<UInt32>, mode: MatteOutput) -> Int {
        var covered = SIMD4<Int32>(repeating: 0)
        var x = range.lowerBound
        let end = range.upperBound
        let mask = U4(repeating: alphaMask)
        let half = SIMD4<Float>(repeating: 0.5)
        @inline(__always) func load(_ p: UnsafePointer<UInt32>, _ x: Int) -> U4 {
            UnsafeRawPointer(p + x).loadUnaligned(as: U4.self)
        }
        while x + 4 <= end {
            let m = UnsafeRawPointer(mp + x).loadUnaligned(as: SIMD4<Float>.self)
            covered &-= unsafeBitCast(m .> half, to: SIMD4<Int32>.self)  // true is -1
            let a = alpha(m)
            let r: U4
            switch mode {
            case .composite:
                let g = background.map { load($0, x) } ?? U4(repeating: color)
                r = mix(load(video, x), g, a | (a &<< 16)) | mask
            case .matte:
                r = (a &* 0x0101_0101) | mask
            case .alpha:
                r = (load(video, x) & ~mask) | (a &<< alphaShift)
            }
            UnsafeMutableRawPointer(out + x).storeBytes(of: r, as: U4.self)
            x += 4
        }
        var n = Int(covered.wrappedSum())
        while x < end {
            let m = mp[x]
            if m > 0.5 { n += 1 }
            let a = alpha(SIMD4(repeating: m))
            let r: U4
            switch mode {
            case .composite:
                r = mix(U4(repeating: video[x]), U4(repeating: background?[x] ?? color), a | (a &<< 16)) | mask
            case .matte:
                r = (a &* 0x0101_0101) | mask
            case .alpha:
                r = (U4(repeating: video[x]) & ~mask) | (a &<< alphaShift)
            }
            out[x] = r[0]
            x += 1
        }
        return n
    }
}
