// SPDX-License-Identifier: LGPL-2.1-or-later
import DMKernels

/// One band's rows: the upscale and the blend for each output row, cut into
/// runs (`Run`) of uniform and edge columns.
extension MatteCompositor.BandJob {
    /// One band's view of the scratch: the column tables (read only) and
    /// the band's own rows (vertical taps, uniformity states, matte, runs,
    /// placed background).
    struct BandScratch {
        let nseg: Int
        let segStart: UnsafeMutablePointer<Int32>, taps: UnsafeMutablePointer<Int32>
        let segmentFrom: UnsafeMutablePointer<Int32>, segmentTo: UnsafeMutablePointer<Int32>
        let rowSpan: UnsafeMutablePointer<Int32>
        let gStart: UnsafeMutablePointer<Int32>, gw: UnsafeMutablePointer<SIMD4<Float>>
        let segGroup: UnsafeMutablePointer<Int32>
        let cix: UnsafeMutablePointer<Int32>, cwt: UnsafeMutablePointer<Float>
        let dcol: UnsafeMutablePointer<Int32>, dwt: UnsafeMutablePointer<Float>
        let vp: UnsafeMutablePointer<Float>, st: UnsafeMutablePointer<MatteCompositor.RunKind>
        let mp: UnsafeMutablePointer<Float>, runs: UnsafeMutablePointer<MatteCompositor.Run>
        let brow: UnsafeMutablePointer<UInt8>

        init(_ sc: CompositorScratch, band: Int) {
            nseg = sc.segmentCount
            segStart = sc.segmentStart.base; taps = sc.segmentTaps.base
            segmentFrom = sc.segmentFrom.base; segmentTo = sc.segmentTo.base; rowSpan = sc.rowSpan.base
            gStart = sc.groupStart.base; gw = sc.groupWeights.base; segGroup = sc.segmentGroup.base
            cix = sc.columnIndex.base; cwt = sc.columnWeight.base
            dcol = sc.detailColumn.base; dwt = sc.detailWeight.base
            vp = sc.vertical.base + band * sc.sourceStride; st = sc.state.base + band * sc.sourceStride
            mp = sc.matte.base + band * sc.matteStride; runs = sc.runs.base + band * sc.runStride
            brow = sc.background.base + band * sc.backgroundStride
        }
    }

    /// The 32-bit word path's settings: whether it applies (4-byte pixels
    /// with the same colour byte positions in video, background and
    /// output), the output's alpha byte, and the key colour as a word.
    struct WordLayout {
        let words: Bool
        let alphaMask: UInt32
        let colorWord: UInt32
    }

    func wordLayout() -> WordLayout {
        let o = output
        let words = o.pixelStride == 4 && o.a >= 0 && video.map {
            $0.pixelStride == 4 && $0.r == o.r && $0.g == o.g && $0.b == o.b
        } ?? false && background.map { $0.pixelStride == 4 && $0.r == o.r && $0.g == o.g && $0.b == o.b } ?? true
        let alphaMask: UInt32 = o.a >= 0 ? UInt32(0xff) << UInt32(8 * o.a) : 0
        var colorWord: UInt32 = alphaMask
        colorWord |= UInt32(color.r) << UInt32(8 * o.r) | UInt32(color.g) << UInt32(8 * o.g) | UInt32(color.b) << UInt32(8 * o.b)
        return WordLayout(words: words, alphaMask: alphaMask, colorWord: colorWord)
    }

    /// Band `band`'s output rows; returns how many of its pixels have matte > 0.5.
    func rows(band: Int, source src: UnsafePointer<Float>) -> Int {
        let sc = scratch
        let range = sc.bandStart.base[band] ..< sc.bandStart.base[band + 1]
        let o = output
        let layout = wordLayout()
        let words = layout.words, alphaMask = layout.alphaMask, colorWord = layout.colorWord
        let directBackground = background.map { $0.width == o.width && $0.height == o.height } ?? false
        var covered = 0
        let t = BandScratch(sc, band: band)
        let vp = t.vp, mp = t.mp, runs = t.runs
        var runCount = 0
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
                runCount = makeRuns(t, a, b, c, d, i0, i1, i2, i3)
            }
            let w0 = rows.weight[j], w1 = rows.weight[j + 1], w2 = rows.weight[j + 2], w3 = rows.weight[j + 3]
            let outRow = o.row(y)
            let videoRow: UnsafeMutablePointer<UInt8>? = video.map { $0.row(y) }
            var bgPlaced = false
            func backgroundRow() -> UnsafePointer<UInt8>? {
                guard let bg = background else { return nil }
                if directBackground { return UnsafePointer(bg.row(y)) }
                if !bgPlaced {
                    placeBackgroundRow(bg, y: y, width: o.width, pixelStride: o.pixelStride, into: t.brow)
                    bgPlaced = true
                }
                return UnsafePointer(t.brow)
            }
            for r in 0..<runCount {
                let run = runs[r]
                let x0 = Int(run.start), x1 = Int(run.end), kind = run.kind
                let n = x1 - x0
                if kind == .edge { verticalTaps(vp, run, a, b, c, d, w0, w1, w2, w3) }
                if kind == .one { covered += n }
                if words && kind != .edge {
                    // (placed only for a composite's zero run: the one case that reads it)
                    let bgp = mode == .composite && kind != .one ? backgroundRow() : nil
                    fillWords(kind, x0, n, outRow, videoRow, bgp, alphaMask, colorWord)
                    continue
                }
                if words && kind == .edge {
                    // edge run: the cubic segment by segment (the four source
                    // values loaded once per segment), then clamp, rounding and
                    // blend four pixels at a time (SIMD; see EdgeBlend)
                    cubicSegments(t, run, x0, x1)
                    if avx2 {
                        // the detail and the blend eight pixels at a time (DMKernels)
                        let bgp: UnsafePointer<UInt32>? = mode == .composite ? backgroundRow().map {
                            UnsafeRawPointer($0).assumingMemoryBound(to: UInt32.self) } : nil
                        covered += edgeAVX2(t, x0, x1, y, videoRow!, bgp, alphaMask, colorWord, outRow)
                        continue
                    }
                    if let detail { detail.add(to: mp, range: x0..<x1, y: y, outputHeight: o.height, video: videoRow!,
                                               layout: video!, columns: t.dcol, weights: t.dwt) }
                    let bgp: UnsafePointer<UInt32>? = mode == .composite ? backgroundRow().map {
                        UnsafeRawPointer($0).assumingMemoryBound(to: UInt32.self) } : nil
                    covered += EdgeBlend.run(matte: mp, range: x0..<x1,
                        video: UnsafeRawPointer(videoRow!).assumingMemoryBound(to: UInt32.self),
                        background: bgp, color: colorWord, alphaMask: alphaMask, alphaShift: UInt32(8 * o.a),
                        output: UnsafeMutableRawPointer(outRow).assumingMemoryBound(to: UInt32.self), mode: mode)
                    continue
                }
                // interpolate the run's matte, then the generic blend
                matteRun(t, kind, x0, x1, y, videoRow)
                let bgRow = mode == .composite && kind != .one ? backgroundRow() : nil
                let blended = RowBlender.blend(
                    width: n, matte: mp + x0,
                    video: videoRow.map { UnsafePointer($0 + x0 * video!.pixelStride) },
                    videoLayout: video ?? o,
                    background: bgRow.map { $0 + x0 * o.pixelStride }, color: color,
                    output: outRow + x0 * o.pixelStride, outputLayout: o, mode: mode)
                if kind == .edge { covered += blended }
            }
        }
        if stream { dm_store_fence() }
        return covered
    }

    /// What a uniform run on the word path writes: each output word is
    /// `(src[i] & and) | or`, or `or` alone without a source (video,
    /// background, or the key colour or the matte's 0 or 1).
    @inline(__always)
    private func wordFill(_ kind: MatteCompositor.RunKind, _ x0: Int, _ videoRow: UnsafeMutablePointer<UInt8>?,
                          _ bgp: UnsafePointer<UInt8>?, _ alphaMask: UInt32, _ colorWord: UInt32)
        -> (src: UnsafePointer<UInt32>?, and: UInt32, or: UInt32) {
        let vid32 = videoRow.map { UnsafePointer(UnsafeRawPointer($0 + 4 * x0).assumingMemoryBound(to: UInt32.self)) }
        switch (mode, kind) {
        case (.composite, .one), (.alpha, .one):
            return (vid32, 0xffff_ffff, alphaMask)
        case (.composite, _):
            if let bgp { return (UnsafeRawPointer(bgp + 4 * x0).assumingMemoryBound(to: UInt32.self), 0xffff_ffff, alphaMask) }
            return (nil, 0xffff_ffff, colorWord)
        case (.alpha, _):
            return (vid32, ~alphaMask, 0)
        case (.matte, .one):
            return (nil, 0xffff_ffff, 0xffff_ffff)
        case (.matte, _):
            return (nil, 0xffff_ffff, alphaMask)
        }
    }

    /// A uniform run on the word path, `n` pixels from x0 (`wordFill`): by
    /// `DMKernels` (whole cache lines streamed when `stream`) with AVX2.
    @inline(__always)
    private func fillWords(_ kind: MatteCompositor.RunKind, _ x0: Int, _ n: Int, _ outRow: UnsafeMutablePointer<UInt8>,
                           _ videoRow: UnsafeMutablePointer<UInt8>?, _ bgp: UnsafePointer<UInt8>?,
                           _ alphaMask: UInt32, _ colorWord: UInt32) {
        let out32 = UnsafeMutableRawPointer(outRow + 4 * x0).assumingMemoryBound(to: UInt32.self)
        let (src, and, or) = wordFill(kind, x0, videoRow, bgp, alphaMask, colorWord)
        if avx2 {
            dm_fill_words_avx2(out32, src, n, and, or, stream ? 1 : 0)
        } else if let src {
            for i in 0..<n { out32[i] = src[i] & and | or }
        } else {
            for i in 0..<n { out32[i] = or }
        }
    }

    /// An edge run on the word path by `DMKernels`: the colour detail (when
    /// `detail`) and the blend of `mp[x0 ..< x1]`; returns the pixels with matte > 0.5.
    @inline(__always)
    private func edgeAVX2(_ t: BandScratch, _ x0: Int, _ x1: Int, _ y: Int, _ videoRow: UnsafeMutablePointer<UInt8>,
                          _ bgp: UnsafePointer<UInt32>?, _ alphaMask: UInt32, _ colorWord: UInt32,
                          _ outRow: UnsafeMutablePointer<UInt8>) -> Int {
        let vid32 = UnsafeRawPointer(videoRow).assumingMemoryBound(to: UInt32.self)
        let out32 = UnsafeMutableRawPointer(outRow).assumingMemoryBound(to: UInt32.self)
        let alphaShift = Int32(8 * output.a), m = Int32(mode.rawValue)
        // (`prefetchRows` rows on, the same columns: the next rows' edge is about here)
        let later = y + MatteCompositor.prefetchRows < output.height ? MatteCompositor.prefetchRows : 0
        let videoAhead = later * (video?.stride ?? 0), outAhead = later * output.stride
        guard let detail, let v = video else {
            return dm_edge_blend_avx2(t.mp, x0, x1, vid32, bgp, colorWord, alphaMask, alphaShift, out32, m, nil, videoAhead, outAhead)
        }
        let (r0, r1, ty) = detail.gridRows(y: y, outputHeight: output.height)
        var d = DMEdgeDetail(r0: r0, r1: r1, columns: t.dcol, weights: t.dwt, ty: ty, width: Int32(detail.width),
                             shift_r: Int32(8 * v.r), shift_g: Int32(8 * v.g), shift_b: Int32(8 * v.b))
        return dm_edge_blend_avx2(t.mp, x0, x1, vid32, bgp, colorWord, alphaMask, alphaShift, out32, m, &d, videoAhead, outAhead)
    }

    /// The uniformity states of the columns the source rows a..d (rows
    /// i0..i3) cover, and the output row's runs from them (written to
    /// `runs`). Returns the run count.
    @inline(__always)
    private func makeRuns(_ t: BandScratch, _ a: UnsafePointer<Float>, _ b: UnsafePointer<Float>,
                          _ c: UnsafePointer<Float>, _ d: UnsafePointer<Float>,
                          _ i0: Int, _ i1: Int, _ i2: Int, _ i3: Int) -> Int {
        let nseg = t.nseg, rowSpan = t.rowSpan, segmentFrom = t.segmentFrom, segmentTo = t.segmentTo
        let st = t.st, taps = t.taps, runs = t.runs, segStart = t.segStart
        // only the columns between the first and last non-zero
        // value of the four rows (and the 3 beyond, which the
        // segments at the border read) can be anything but 0
        var lo = Int(min(rowSpan[2 * i0], rowSpan[2 * i1], rowSpan[2 * i2], rowSpan[2 * i3]))
        var hi = Int(max(rowSpan[2 * i0 + 1], rowSpan[2 * i1 + 1], rowSpan[2 * i2 + 1], rowSpan[2 * i3 + 1]))
        var kFirst = nseg, kLast = -1
        if lo < sw && hi >= lo {
            kFirst = Int(segmentFrom[lo]); kLast = Int(segmentTo[hi])
            lo = max(0, lo - 3); hi = min(sw - 1, hi + 3)
            // (eight columns at a time: all four values 0 is zero, all
            // four 1 is one, anything else an edge)
            var x = lo
            let zero = SIMD8<Float>(repeating: 0), one = SIMD8<Float>(repeating: 1)
            let stb = UnsafeMutableRawPointer(st)
            while x &+ 8 <= hi &+ 1 {
                @inline(__always) func at(_ p: UnsafePointer<Float>) -> SIMD8<Float> {
                    UnsafeRawPointer(p + x).loadUnaligned(as: SIMD8<Float>.self)
                }
                let va = at(a), vb = at(b), vc = at(c), vd = at(d)
                let zeros = (va .== zero) .& (vb .== zero) .& (vc .== zero) .& (vd .== zero)
                let ones = (va .== one) .& (vb .== one) .& (vc .== one) .& (vd .== one)
                let kinds = SIMD8<Int32>(repeating: Int32(MatteCompositor.RunKind.edge.rawValue))
                    .replacing(with: Int32(MatteCompositor.RunKind.one.rawValue), where: ones)
                    .replacing(with: Int32(MatteCompositor.RunKind.zero.rawValue), where: zeros)
                (stb + x).storeBytes(of: UInt64(littleEndian: kinds.lowBytes), as: UInt64.self)
                x &+= 8
            }
            while x <= hi {
                let va = a[x], vb = b[x], vc = c[x], vd = d[x]
                let same = va == vb && vb == vc && vc == vd
                st[x] = same && va == 0 ? .zero : (same && va == 1 ? .one : .edge)
                x &+= 1
            }
        }
        let consecutive = SIMD4<Int32>(0, 1, 2, 3)
        @inline(__always) func segmentKind(_ k: Int) -> MatteCompositor.RunKind {
            let t = 4 * k
            // four consecutive columns (all but the border segments): their
            // four states as one word
            let four = UnsafeRawPointer(taps + t).loadUnaligned(as: SIMD4<Int32>.self)
            if four == SIMD4(repeating: four[0]) &+ consecutive {
                let word = UInt32(littleEndian: UnsafeRawPointer(st + Int(four[0])).loadUnaligned(as: UInt32.self))
                return word == 0 ? .zero : (word == 0x0101_0101 ? .one : .edge)
            }
            let s0 = st[Int(taps[t])], s1 = st[Int(taps[t + 1])]
            let s2 = st[Int(taps[t + 2])], s3 = st[Int(taps[t + 3])]
            return s0 == s1 && s0 == s2 && s0 == s3 ? s0 : .edge
        }
        var runCount = 0
        /// Segments k ..< e as one run of `kind`.
        @inline(__always) func addRun(_ k: Int, _ e: Int, _ kind: MatteCompositor.RunKind) {
            runs[runCount] = MatteCompositor.Run(start: segStart[k], end: segStart[e], kind: kind,
                                                     firstColumn: taps[4 * k], lastColumn: taps[4 * (e - 1) + 3],
                                                     firstSegment: Int32(k))
            runCount += 1
        }
        if kFirst > kLast {
            addRun(0, nseg, .zero)
        } else {
            if kFirst > 0 { addRun(0, kFirst, .zero) }
            var k = kFirst
            while k <= kLast {
                let kind = segmentKind(k)
                var e = k + 1
                while e <= kLast && segmentKind(e) == kind { e += 1 }
                addRun(k, e, kind)
                k = e
            }
            if kLast < nseg - 1 { addRun(kLast + 1, nseg, .zero) }
        }
        return runCount
    }

    /// An edge run's vertical taps into `vp`: only for the source columns
    /// the run reads (8 columns at a time, each lane in the scalar order).
    @inline(__always)
    private func verticalTaps(_ vp: UnsafeMutablePointer<Float>, _ run: MatteCompositor.Run,
                              _ a: UnsafePointer<Float>, _ b: UnsafePointer<Float>,
                              _ c: UnsafePointer<Float>, _ d: UnsafePointer<Float>,
                              _ w0: Float, _ w1: Float, _ w2: Float, _ w3: Float) {
        var x = Int(run.firstColumn)
        let xEnd = Int(run.lastColumn) + 1
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

    /// An edge run's matte on the word path, into `mp`: the cubic segment by
    /// segment. Four output columns per step (a group of one segment):
    /// each lane sums w0 v0 + w1 v1 + w2 v2 + w3 v3 in the
    /// scalar path's order. A group shorter than four
    /// stores past its end; the next group (or nothing the
    /// run reads) is there.
    @inline(__always)
    private func cubicSegments(_ t: BandScratch, _ run: MatteCompositor.Run, _ x0: Int, _ x1: Int) {
        let vp = t.vp, taps = t.taps, segGroup = t.segGroup, gw = t.gw, mp = t.mp, gStart = t.gStart
        let segStart = t.segStart
        var k = Int(run.firstSegment)
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
    }

    /// A run's matte for the generic blend, into `mp`: an edge run's
    /// interpolated and clamped (with the colour detail), a uniform run's 0
    /// or 1.
    @inline(__always)
    private func matteRun(_ t: BandScratch, _ kind: MatteCompositor.RunKind, _ x0: Int, _ x1: Int, _ y: Int,
                          _ videoRow: UnsafeMutablePointer<UInt8>?) {
        let mp = t.mp, vp = t.vp, cix = t.cix, cwt = t.cwt
        if kind == .edge {
            for x in x0..<x1 {
                let q = 4 * x
                let v = cwt[q] * vp[Int(cix[q])] + cwt[q + 1] * vp[Int(cix[q + 1])]
                    + cwt[q + 2] * vp[Int(cix[q + 2])] + cwt[q + 3] * vp[Int(cix[q + 3])]
                mp[x] = min(max(v, 0), 1)
            }
            if let detail, let videoRow { detail.add(to: mp, range: x0..<x1, y: y, outputHeight: output.height,
                                                     video: videoRow, layout: video!, columns: t.dcol, weights: t.dwt) }
        } else {
            let v: Float = kind == .one ? 1 : 0
            for x in x0..<x1 { mp[x] = v }
        }
    }
}
