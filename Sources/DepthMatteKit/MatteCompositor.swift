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
    private var columns = CubicTable()
    private var rows = CubicTable()
    private var scratch: [BandScratch] = []
    private var fillColumns = AspectFillTable()
    private var fillRows = AspectFillTable()

    struct BandScratch {
        var vertical: [Float] = []   // source width: the 4 source rows combined
        var state: [UInt8] = []      // source width: 0 all zero, 1 all one, 2 mixed
        var matte: [Float] = []      // output width
        var runs: [Int32] = []       // (x0, x1, class, first source column, last source column) per run
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
        }
        rows.update(source: sh, destination: height)
        if scratch.count < bands { scratch += Array(repeating: BandScratch(), count: bands - scratch.count) }
        for b in 0..<bands {
            if scratch[b].vertical.count < sw {
                scratch[b].vertical = [Float](repeating: 0, count: sw)
                scratch[b].state = [UInt8](repeating: 0, count: sw)
            }
            if scratch[b].matte.count < width { scratch[b].matte = [Float](repeating: 0, count: width) }
            if scratch[b].runs.count < 5 * (segmentStart.count + 1) {
                scratch[b].runs = [Int32](repeating: 0, count: 5 * (segmentStart.count + 1))
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
        let job = BandJob(src: nil, sw: matte.width, columns: columns, rows: rows,
                          segmentStart: segmentStart, segmentTaps: segmentTaps,
                          fillColumns: fillColumns, fillRows: fillRows,
                          video: video, background: background, color: color, output: output, mode: mode)
        return matte.pixels.withUnsafeBufferPointer { src in
            scratch.withUnsafeMutableBufferPointer { sc in
                let scp = sc.baseAddress!
                var band = BandCall(job: job, source: src.baseAddress!, scratch: scp, height: H, bands: bands)
                withUnsafeMutablePointer(to: &band) { ctx in
                    pool.run(bands: bands, context: UnsafeMutableRawPointer(ctx)) { raw, b in
                        let c = raw.assumingMemoryBound(to: BandCall.self)
                        let H = c.pointee.height, n = c.pointee.bands
                        c.pointee.scratch[b].covered = c.pointee.job.rows(H * b / n ..< H * (b + 1) / n,
                            source: c.pointee.source, scratch: &c.pointee.scratch[b])
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
    let height: Int, bands: Int
}

/// Everything one band needs, read only.
private struct BandJob {
    let src: UnsafePointer<Float>?
    let sw: Int
    let columns: CubicTable, rows: CubicTable
    let segmentStart: [Int32], segmentTaps: [Int32]
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
        columns.index.withUnsafeBufferPointer { cix in
        columns.weight.withUnsafeBufferPointer { cwt in
        s.vertical.withUnsafeMutableBufferPointer { vert in
        s.state.withUnsafeMutableBufferPointer { state in
        s.matte.withUnsafeMutableBufferPointer { mrow in
        s.background.withUnsafeMutableBufferPointer { brow in
            let vp = vert.baseAddress!, st = state.baseAddress!, mp = mrow.baseAddress!
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
                    for x in 0..<sw {
                        let va = a[x], vb = b[x], vc = c[x], vd = d[x]
                        let same = va == vb && vb == vc && vc == vd
                        st[x] = same && va == 0 ? 0 : (same && va == 1 ? 1 : 2)
                    }
                    @inline(__always) func segmentClass(_ k: Int) -> UInt8 {
                        let t = 4 * k
                        let s0 = st[Int(taps[t])], s1 = st[Int(taps[t + 1])]
                        let s2 = st[Int(taps[t + 2])], s3 = st[Int(taps[t + 3])]
                        return s0 == s1 && s0 == s2 && s0 == s3 ? s0 : 2
                    }
                    s.runCount = 0
                    var k = 0
                    while k < nseg {
                        let cls = segmentClass(k)
                        var e = k + 1
                        while e < nseg && segmentClass(e) == cls { e += 1 }
                        let r = 5 * s.runCount
                        s.runs[r] = segStart[k]; s.runs[r + 1] = segStart[e]; s.runs[r + 2] = Int32(cls)
                        s.runs[r + 3] = taps[4 * k]; s.runs[r + 4] = taps[4 * (e - 1) + 3]
                        s.runCount += 1
                        k = e
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
                    let r = 5 * run
                    let x0 = Int(s.runs[r]), x1 = Int(s.runs[r + 1]), cls = UInt8(s.runs[r + 2])
                    let n = x1 - x0
                    if cls == 2 {
                        // vertical taps only for the source columns this run reads
                        for x in Int(s.runs[r + 3])...Int(s.runs[r + 4]) {
                            vp[x] = w0 * a[x] + w1 * b[x] + w2 * c[x] + w3 * d[x]
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
                        // edge run: cubic per pixel, blend in 32-bit words (two 16-bit lanes,
                        // exact rounding of /255), a = round(255 m)
                        let out32 = UnsafeMutableRawPointer(outRow).assumingMemoryBound(to: UInt32.self)
                        let vid32 = UnsafeRawPointer(videoRow!).assumingMemoryBound(to: UInt32.self)
                        let bg32 = mode == .composite ? backgroundRow().map {
                            UnsafeRawPointer($0).assumingMemoryBound(to: UInt32.self) } : nil
                        let alphaShift = UInt32(8 * o.a)
                        for x in x0..<x1 {
                            let q = 4 * x
                            var m = cwt[q] * vp[Int(cix[q])] + cwt[q + 1] * vp[Int(cix[q + 1])]
                                + cwt[q + 2] * vp[Int(cix[q + 2])] + cwt[q + 3] * vp[Int(cix[q + 3])]
                            m = min(max(m, 0), 1)
                            if m > 0.5 { covered += 1 }
                            let a = UInt32(m * 255 + 0.5)
                            let v = vid32[x]
                            switch mode {
                            case .composite:
                                let g = bg32?[x] ?? colorWord
                                let ia = 255 - a
                                let lo = (v & 0x00ff_00ff) &* a &+ (g & 0x00ff_00ff) &* ia &+ 0x0080_0080
                                let hi = ((v >> 8) & 0x00ff_00ff) &* a &+ ((g >> 8) & 0x00ff_00ff) &* ia &+ 0x0080_0080
                                let rlo = ((lo &+ ((lo >> 8) & 0x00ff_00ff)) >> 8) & 0x00ff_00ff
                                let rhi = ((hi &+ ((hi >> 8) & 0x00ff_00ff)) >> 8) & 0x00ff_00ff
                                out32[x] = rlo | (rhi << 8) | alphaMask
                            case .matte:
                                out32[x] = (a &* 0x0101_0101) | alphaMask
                            case .alpha:
                                out32[x] = (v & ~alphaMask) | (a << alphaShift)
                            }
                        }
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
        }}}}}}}}
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
