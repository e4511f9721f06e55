/// refine=guided: an edge-aware matte from depth and colour (issue 3).
///
/// At depth resolution, after the subject lock gives the cutoff:
///  1. three-state mask: foreground (0 < d <= cutoff), background (d > cutoff),
///     unknown (d == 0: no reading, not "far");
///  2. unknown pixels are filled from their valid neighbours, one pixel per pass
///     from every side (a nearest-valid fill), foreground winning ties: the
///     occlusion shadow and hair holes sit beside near objects;
///  3. confidence: a pixel is trusted only if it had a reading and every
///     filled label within `band` depth pixels agrees with it. Holes, flying
///     pixels on edges and the 1–2 px misregistration between depth and colour
///     all fall into the untrusted band.
///     Untrusted pixels are decided first: the side (foreground or
///     background) whose nearest trusted colour within `decisionRadius` is
///     nearer wins (soft: d_bg / (d_fg + d_bg)); a striped or multi-coloured
///     wall has no useful mean colour. Where one side has no trusted pixel
///     in reach, a pixel whose colour matches the other side's nearest
///     trusted colour to within the noise (`matchWidening`) searches on for
///     it; otherwise the window mean colours are compared;
///  4. a weighted guided filter (He et al., "Guided Image Filtering"; the
///     "fast" variant: coefficients at depth resolution) with the colour
///     frame's RGB as guide: the linear model α = a·I + b of every window is
///     fitted to the trusted labels and those decisions, so the matte edge
///     follows the colour edge inside the band. The coefficients of the
///     windows covering a pixel are averaged weighted by how much of each
///     window's label variance its colour model explains (`fitWeighting`).
///     The smoothed coefficients ā, b̄ are
///     upsampled bilinearly to the output grid (up to 2× depth resolution) and
///     applied to the colour there, each value clamped to the range of the
///     four depth-resolution values around it (`rangeClamp`): the fine colour
///     places the edge but cannot dig thin dark lines out of a foreground
///     region;
///  5. temporal smoothing with the previous matte, weighted by how much a pixel
///     changed: small changes (noise, flicker on a still subject) are averaged,
///     large ones (motion, a new cutoff) are followed at once (no ghost trail);
///  6. a contrast of 1.5 around 0.5 (the linear colour model leaves 0.9 on
///     shaded cloth and 0.1 on wall near the edge), then values within half
///     an 8-bit level of 0 or 1 are snapped, so the fused
///     upscale and blend keeps its uniform fast path away from the edge.
///
/// All planes are kept between frames and only grow: no heap allocation per
/// frame once the sizes (and the thread count) are stable.
///
/// Threads (issue 4): with a `WorkerPool`, every step after the hole fill is
/// split into bands: rows of the depth or output grid, or whole planes for
/// the box means (each band with its own scratch plane and column sums).
/// Every output value is computed by the same expression in the same order
/// whatever the band count, so the matte is bit-identical for any `threads`.
public struct MatteRefiner {
    /// Window radius of the guided filter, in depth pixels (depth maps are at
    /// most 400 px wide here, so about 2.5 % of the picture width or more).
    /// Chosen by quality-bench (4, 6, 8 tried): 6 with the nearest-colour
    /// decision below gives the best IoU and the fewest hand pixels lost.
    public var radius = 6
    /// Guided-filter regularisation (colour in [0, 1]): colour steps well
    /// above sqrt(eps) ≈ 0.03 are followed, flatter texture (and sensor
    /// noise) is smoothed; 1e-3 is the usual feathering value in He et al.
    public var eps: Float = 1e-3
    /// Half-width, in depth pixels, of the untrusted band around the depth edge.
    public var band = 2
    /// Weight of untrusted pixels in the fit (small, not zero: a window with no
    /// trusted pixel falls back to the filled mask).
    public var untrustedWeight: Float = 1e-3
    /// Passes of the hole fill (depth pixels reached from a valid neighbour);
    /// unknown pixels farther away count as background.
    public var fillPasses = 16
    /// Temporal smoothing: weight of the new matte is min(1, base + gain·|Δ|).
    public var temporalBase: Float = 0.35
    public var temporalGain: Float = 3
    /// Output grid = depth resolution × this (at most; never above the video).
    public var maxUpscale = 2
    /// Pixels whose filled label is uniform within `band + interiorMargin`
    /// depth pixels keep that label (the colour model decides only near the edge).
    public var interiorMargin = 4
    /// Untrusted pixels take the label whose nearest trusted colour within
    /// this many depth pixels is nearer (0: compare with the window means).
    public var decisionRadius = 6
    /// Contrast around 0.5 applied to the filtered matte (1 = none): the
    /// linear colour model leaves values like 0.9 on shaded cloth and 0.1 on
    /// the wall near the edge; 1.5 maps [1/6, 5/6] onto [0, 1]. Edges stay
    /// soft over about 2/3 of their filtered width.
    public var contrast: Float = 1.5
    /// Clamp each output-grid value to the range of the four depth-resolution
    /// values around it (α = ā·I + b̄ with the guide averaged to depth
    /// resolution): the fine colour only places the edge within the local
    /// range and cannot dig a thin dark line (fingers, eyes) out of a region
    /// the coarse model calls foreground. quality-bench (4 s at 10 fps): hand
    /// pixels > 2 px inside the outline keyed out 30 → 3 per clip, SAD and
    /// gradient error slightly lower, IoU unchanged.
    public var rangeClamp = true
    /// An untrusted pixel with trusted colours of only one side within
    /// `decisionRadius` keeps its filled label, unless its colour matches
    /// that side's nearest trusted colour to within the noise (squared RGB
    /// distance <= `eps`): then the search widens (2x, 3x) for the other
    /// side, and the nearest-colour decision p moves the filled label f only
    /// as far as it is clear: f + c·(p − f), c = |d_bg − d_fg| / (d_bg + d_fg).
    public var matchWidening = true
    /// The coefficients of the windows covering a pixel are averaged weighted
    /// by how well each window's linear model fits its labels (a weighted
    /// aggregation of the overlapping local models instead of the plain box
    /// mean of He et al.): ā = Σ c_k a_k / Σ c_k with
    /// c_k = 1 − s_k · (var_k(p) − X_k) / (var_k(p) + fitFloor), where X_k is
    /// the part of the window's label variance its colour model explains
    /// (var − X = E_k, the mean squared residual) and s_k = tr Σ_k / (tr Σ_k + eps)
    /// says whether the window's colours vary enough to have explained it.
    /// A window whose labels its colours cannot separate (skin between two
    /// wall colours whose mean is nearly skin) counts little; a uniform
    /// window, one whose edge the colour follows, and a flat-colour window
    /// (no colour evidence: its edge stays a soft ramp) count fully.
    /// `fitFloor` is a label variance below which a window counts as uniform
    /// (1e-3, a label spread of ~0.03; 1e-4 and 1e-2 change quality-bench IoU by
    /// <= 0.0001). quality-bench (4 s at 10 fps): hand
    /// pixels keyed out 28–30 → 8–11 per clip (> 2 px inside: 3 → 1), SAD
    /// 2–6 % lower; `8 3`: no hand pixel > 2 px inside lost (was 3–4).
    public var fitWeighting = true
    /// The label variance below which a window counts as uniform (see `fitWeighting`).
    public var fitFloor: Float = 1e-3

    // depth resolution
    private var label: [UInt8] = []     // 0 bg, 1 fg, 2 unknown
    private var filled: [UInt8] = []
    private var spare: [UInt8] = []
    /// Every float plane of one frame, in one array (offsets in `RefinePass`):
    /// one pointer per plane for the worker bands, one allocation when the
    /// sizes or the band count grow. Nothing in it outlives the frame.
    private var planes: [Float] = []
    /// Running column sums of the box means: one row of the depth width per band.
    private var columnSums: [Double] = []
    /// Video column sums for the guide: two rows of the video width per band.
    private var videoSums: [UInt32] = []
    // output grid
    private var previous = FloatPlane()
    private var havePrevious = false
    private var columnRange: [Int32] = [], rowRange: [Int32] = []
    private var rangeKey = (0, 0, 0, 0)
    /// Per output-grid column: the nearest depth column, the two bilinear
    /// columns (3 Int32) and the weight of the second (`outputWeights`), for
    /// `outputKey` = (grid width, depth width, k).
    private var outputColumns: [Int32] = [], outputWeights: [Float] = []
    private var outputKey = (0, 0, 0)

    public init() {}

    /// Forget the previous matte (flush, restart, a mode change).
    public mutating func reset() { havePrevious = false }

    /// The refined matte on the output grid into `out`. With a `pool`, the
    /// work is split into up to `threads` bands (the result does not depend on it).
    public mutating func refine(depth: Depth16View, scale: Double, cutoff: Double, video: RGBImageView,
                                temporal: Bool = true, pool: WorkerPool? = nil, threads: Int = 1,
                                into out: inout FloatPlane) {
        let dw = depth.width, dh = depth.height, n = dw * dh
        let k = max(1, min(maxUpscale, video.width / max(dw, 1), video.height / max(dh, 1)))
        let gw = dw * k, gh = dh * k, gn = gw * gh
        out.resize(width: gw, height: gh)
        let blend = temporal && havePrevious && previous.width == gw && previous.height == gh
        if previous.width != gw || previous.height != gh { previous.resize(width: gw, height: gh) }
        havePrevious = true
        if n == 0 { return }
        // more bands than depth rows would only idle
        let bands = pool == nil ? 1 : max(1, min(threads, dh))
        if label.count < n { label = [UInt8](repeating: 0, count: n); filled = label; spare = label }
        let need = RefinePass.floats(n: RefinePass.planeStride(n), gn: RefinePass.planeStride(gn), bands: bands)
        if planes.count < need { planes = [Float](repeating: 0, count: need) }
        if columnSums.count < bands * dw { columnSums = [Double](repeating: 0, count: bands * dw) }
        if videoSums.count < bands * 2 * video.width { videoSums = [UInt32](repeating: 0, count: bands * 2 * video.width) }

        // 1. three-state mask (integer compare as DepthThreshold)
        let q = cutoff / scale
        let limitD = (q + abs(q) * 1e-9).rounded(.down)
        let limit: UInt32 = !(limitD >= 0) ? 0 : (limitD > 65535 ? 65535 : UInt32(limitD))
        label.withUnsafeMutableBufferPointer { l in
            for y in 0..<dh {
                let row = depth.base + y * depth.stride, o = y * dw
                for x in 0..<dw {
                    let d = UInt32(UInt16(littleEndian: row.loadUnaligned(fromByteOffset: 2 * x, as: UInt16.self)))
                    l[o + x] = d == 0 ? 2 : (d <= limit ? 1 : 0)
                }
            }
        }
        // 2. hole fill (serial: each pass reads the whole previous pass)
        MatteRefiner.fillUnknown(label: label, filled: &filled, spare: &spare, width: dw, height: dh, passes: fillPasses)
        MatteRefiner.gridRanges(video, width: gw, height: gh, columns: &columnRange, rows: &rowRange, key: &rangeKey)

        if outputKey != (gw, dw, k) {
            // the output phase's column positions, as it computed them per pixel
            outputKey = (gw, dw, k)
            outputColumns = [Int32](repeating: 0, count: 3 * gw)
            outputWeights = [Float](repeating: 0, count: gw)
            let invK = 1 / Float(k)
            for x in 0..<gw {
                let fx = max(0, (Float(x) + 0.5) * invK - 0.5)
                let x0 = min(Int(fx), dw - 1)
                outputColumns[3 * x] = Int32(min(Int(fx + 0.5), dw - 1))
                outputColumns[3 * x + 1] = Int32(x0)
                outputColumns[3 * x + 2] = Int32(min(x0 + 1, dw - 1))
                outputWeights[x] = fx - Float(x0)
            }
        }

        planes.withUnsafeMutableBufferPointer { F in
        outputColumns.withUnsafeBufferPointer { oc in
        outputWeights.withUnsafeBufferPointer { ow in
        columnSums.withUnsafeMutableBufferPointer { S in
        videoSums.withUnsafeMutableBufferPointer { V in
        label.withUnsafeBufferPointer { lab in
        filled.withUnsafeBufferPointer { fil in
        columnRange.withUnsafeBufferPointer { cx in
        rowRange.withUnsafeBufferPointer { ry in
        previous.pixels.withUnsafeMutableBufferPointer { prev in
        out.pixels.withUnsafeMutableBufferPointer { O in
            var pass = RefinePass(planes: F.baseAddress!, n: RefinePass.planeStride(n), gn: RefinePass.planeStride(gn),
                                  bands: bands, sums: S.baseAddress!, videoSums: V.baseAddress!,
                                  label: lab.baseAddress!, dw: dw, dh: dh, k: k, gw: gw, gh: gh,
                                  video: video, columns: cx.baseAddress!, rows: ry.baseAddress!,
                                  previous: prev.baseAddress!, out: O.baseAddress!,
                                  outputColumns: oc.baseAddress!, outputWeights: ow.baseAddress!)
            pass.band = band; pass.interiorRadius = interiorMargin + band; pass.radius = radius
            pass.untrustedWeight = untrustedWeight; pass.eps = eps; pass.decisionRadius = decisionRadius
            pass.contrast = contrast; pass.rangeClamp = rangeClamp; pass.matchWidening = matchWidening; pass.matchNoise = eps; pass.fitFloor = fitWeighting ? fitFloor : 0; pass.blend = blend; pass.base = temporalBase; pass.gain = temporalGain
            for i in 0..<n { pass.fill[i] = Float(fil[i]) }
            withUnsafeMutablePointer(to: &pass) { ctx in
                for phase in 0..<RefinePass.phases {
                    ctx.pointee.phase = phase
                    WorkerPool.run(pool, bands: bands, context: UnsafeMutableRawPointer(ctx)) { raw, b in
                        raw.assumingMemoryBound(to: RefinePass.self).pointee.run(band: b)
                    }
                }
            }
        }}}}}}}}}}}
    }

    /// Unknown (2) pixels of `label` take the label of their nearest valid
    /// neighbours: one 4-connected pixel per pass from every side, foreground
    /// winning ties; what is still unknown after `passes` becomes background.
    public static func fillUnknown(label: [UInt8], filled: inout [UInt8], spare: inout [UInt8],
                                   width w: Int, height h: Int, passes: Int) {
        let n = w * h
        if filled.count < n { filled = [UInt8](repeating: 0, count: n) }
        if spare.count < n { spare = [UInt8](repeating: 0, count: n) }
        var unknown = 0
        for i in 0..<n { filled[i] = label[i]; if label[i] == 2 { unknown += 1 } }
        var pass = 0
        while unknown > 0 && pass < passes {
            pass += 1
            var changed = false
            for i in 0..<n { spare[i] = filled[i] }
            spare.withUnsafeBufferPointer { s in
                filled.withUnsafeMutableBufferPointer { f in
                    for y in 0..<h {
                        for x in 0..<w where s[y * w + x] == 2 {
                            let i = y * w + x
                            var fg = false, bg = false
                            @inline(__always) func look(_ j: Int) { let v = s[j]; if v == 1 { fg = true } else if v == 0 { bg = true } }
                            if x > 0 { look(i - 1) }
                            if x + 1 < w { look(i + 1) }
                            if y > 0 { look(i - w) }
                            if y + 1 < h { look(i + w) }
                            if fg { f[i] = 1; changed = true; unknown -= 1 } else if bg { f[i] = 0; changed = true; unknown -= 1 }
                        }
                    }
                }
            }
            if !changed { break }
        }
        for i in 0..<n where filled[i] == 2 { filled[i] = 0 }
    }

    /// Mean over the (2r+1)² window clipped to the picture. `sums` holds at
    /// least `src.width` doubles.
    public static func boxMean(_ src: FloatPlane, radius r: Int, into dst: inout FloatPlane,
                               tmp: inout FloatPlane, sums: inout [Double]) {
        let w = src.width, h = src.height
        dst.resize(width: w, height: h)
        tmp.resize(width: w, height: h)
        if sums.count < w { sums = [Double](repeating: 0, count: w) }
        src.pixels.withUnsafeBufferPointer { S in
        tmp.pixels.withUnsafeMutableBufferPointer { T in
        dst.pixels.withUnsafeMutableBufferPointer { D in
        sums.withUnsafeMutableBufferPointer { C in
            boxMean(S.baseAddress!, into: D.baseAddress!, width: w, height: h, radius: r, tmp: T.baseAddress!, sums: C.baseAddress!)
        }}}}
    }

    static func boxMean(_ S: UnsafePointer<Float>, into D: UnsafeMutablePointer<Float>, width w: Int, height h: Int,
                        radius r: Int, tmp T: UnsafeMutablePointer<Float>, sums C: UnsafeMutablePointer<Double>) {
        // horizontal: sliding sums per row (sums, not means). Each row's sum is
        // one chain of dependent additions, so four rows go side by side, each
        // in exactly the order of one row alone (the last block repeats the
        // last row, which writes the same values twice). The window edges are
        // separate loops instead of two tests per pixel.
        let head = min(r, w)
        let addEnd = max(0, w - r)      // x < addEnd: row[x + r] enters the window
        let subStart = min(r + 1, w)    // x >= subStart: row[x - r - 1] leaves it
        var y = 0
        while y < h {
            let p0 = S + y * w, p1 = S + min(y + 1, h - 1) * w, p2 = S + min(y + 2, h - 1) * w, p3 = S + min(y + 3, h - 1) * w
            let q0 = T + y * w, q1 = T + min(y + 1, h - 1) * w, q2 = T + min(y + 2, h - 1) * w, q3 = T + min(y + 3, h - 1) * w
            var s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0
            for x in 0..<head { s0 += Double(p0[x]); s1 += Double(p1[x]); s2 += Double(p2[x]); s3 += Double(p3[x]) }
            @inline(__always) func enter(_ x: Int) {
                s0 += Double(p0[x + r]); s1 += Double(p1[x + r]); s2 += Double(p2[x + r]); s3 += Double(p3[x + r])
            }
            @inline(__always) func leave(_ x: Int) {
                let j = x - r - 1
                s0 -= Double(p0[j]); s1 -= Double(p1[j]); s2 -= Double(p2[j]); s3 -= Double(p3[j])
            }
            @inline(__always) func store(_ x: Int) { q0[x] = Float(s0); q1[x] = Float(s1); q2[x] = Float(s2); q3[x] = Float(s3) }
            var x = 0
            while x < min(addEnd, subStart) { enter(x); store(x); x += 1 }
            if addEnd <= subStart {
                while x < subStart { store(x); x += 1 }
            } else {
                while x < addEnd { enter(x); leave(x); store(x); x += 1 }
            }
            while x < w { leave(x); store(x); x += 1 }
            y += 4
        }
        // vertical: running column sums, divided by the clipped window area
        // (the row entering, the row leaving and the division in one pass)
        for x in 0..<w { C[x] = 0 }
        for y in 0..<min(r, h) { for x in 0..<w { C[x] += Double(T[y * w + x]) } }
        // Columns r ..< w − r have the full horizontal count 2r + 1: four at a
        // time (SIMD), scaled by the reciprocal of the window area; the
        // clipped columns at the sides divide.
        let inner = min(r, w)..<max(min(r, w), w - r)  // empty when w < 2r + 1
        for y in 0..<h {
            let ny = min(y + r, h - 1) - max(y - r, 0) + 1
            let out = D + y * w
            let add: UnsafePointer<Float>? = y + r < h ? UnsafePointer(T + (y + r) * w) : nil
            let sub: UnsafePointer<Float>? = y - r - 1 >= 0 ? UnsafePointer(T + (y - r - 1) * w) : nil
            @inline(__always) func slide(_ x: Int) {
                if let add { C[x] += Double(add[x]) }
                if let sub { C[x] -= Double(sub[x]) }
            }
            for x in 0..<inner.lowerBound {
                slide(x)
                out[x] = Float(C[x] / Double((min(x + r, w - 1) - max(x - r, 0) + 1) * ny))
            }
            let scale = 1 / Double((2 * r + 1) * ny)
            var x = inner.lowerBound
            while x + 4 <= inner.upperBound {
                var c = UnsafeRawPointer(C + x).loadUnaligned(as: SIMD4<Double>.self)
                if let add { c += SIMD4<Double>(UnsafeRawPointer(add + x).loadUnaligned(as: SIMD4<Float>.self)) }
                if let sub { c -= SIMD4<Double>(UnsafeRawPointer(sub + x).loadUnaligned(as: SIMD4<Float>.self)) }
                UnsafeMutableRawPointer(C + x).storeBytes(of: c, as: SIMD4<Double>.self)
                UnsafeMutableRawPointer(out + x).storeBytes(of: SIMD4<Float>(c * scale), as: SIMD4<Float>.self)
                x += 4
            }
            while x < inner.upperBound { slide(x); out[x] = Float(C[x] * scale); x += 1 }
            for x in inner.upperBound..<w {
                slide(x)
                out[x] = Float(C[x] / Double((min(x + r, w - 1) - max(x - r, 0) + 1) * ny))
            }
        }
    }

    /// The video columns and rows bounding each cell of a `width` × `height`
    /// grid (kept while the sizes stay).
    static func gridRanges(_ v: RGBImageView, width gw: Int, height gh: Int,
                           columns: inout [Int32], rows: inout [Int32], key: inout (Int, Int, Int, Int)) {
        if key != (v.width, v.height, gw, gh) {
            key = (v.width, v.height, gw, gh)
            columns = (0...gw).map { Int32($0 * v.width / gw) }
            rows = (0...gh).map { Int32($0 * v.height / gh) }
        }
    }

    /// R, G, B in [0, 1] (three planes of `gw` × `gh`, `planeStride` apart), averaged over the
    /// video pixels of each grid cell, for grid rows `gys`.
    static func areaRGB(_ v: RGBImageView, width gw: Int, height gh: Int, gridRows gys: Range<Int>,
                        columns cx: UnsafePointer<Int32>, rows ry: UnsafePointer<Int32>,
                        into O: UnsafeMutablePointer<Float>, planeStride gn: Int,
                        columnSums colSums: UnsafeMutablePointer<UInt32>? = nil) {
        let ps = v.pixelStride, cr = v.r, cg = v.g, cb = v.b
        // 4-byte pixels: first each video column over the cell's rows, eight
        // pixels at a time (a contiguous pass per row), bytes 0, 2 and 1, 3 in
        // the 16-bit lanes of two words (exact up to 257 rows per cell); then
        // the columns of each cell. Integer sums in any order: the same values
        // as byte by byte.
        if ps == 4, let colSums, v.height / max(gh, 1) + 2 <= 257 {
            let vw = v.width
            let even = colSums, odd = colSums + vw
            let mask = SIMD8<UInt32>(repeating: 0x00FF_00FF)
            let vw8 = vw & ~7
            for gy in gys {
                let y0 = Int(ry[gy]), y1 = max(Int(ry[gy + 1]), y0 + 1)
                // the cell's rows summed in registers, eight columns at a time
                let first = UnsafeRawPointer(v.row(y0)), stride = v.stride
                var x = 0
                while x < vw8 {
                    var e = SIMD8<UInt32>(repeating: 0), o = e
                    var row = first + 4 * x
                    for _ in y0..<y1 {
                        let q = row.loadUnaligned(as: SIMD8<UInt32>.self)
                        e &+= q & mask; o &+= (q &>> 8) & mask
                        row += stride
                    }
                    UnsafeMutableRawPointer(even + x).storeBytes(of: e, as: SIMD8<UInt32>.self)
                    UnsafeMutableRawPointer(odd + x).storeBytes(of: o, as: SIMD8<UInt32>.self)
                    x += 8
                }
                while x < vw {
                    var e: UInt32 = 0, o: UInt32 = 0
                    for y in y0..<y1 {
                        let q = UnsafeRawPointer(v.row(y)).loadUnaligned(fromByteOffset: 4 * x, as: UInt32.self)
                        e &+= q & 0x00FF_00FF; o &+= (q >> 8) & 0x00FF_00FF
                    }
                    even[x] = e; odd[x] = o
                    x += 1
                }
                var gx4 = 0
                if (y1 - y0) * 3 <= 257 {
                    // cells three video columns wide (1080p onto the 640-wide
                    // grid): four cells per step, each lane the scalar loop's
                    // integer sums; the integers (< 2^16) become floats
                    // exactly through the 2^23 bit pattern
                    typealias U4 = SIMD4<UInt32>
                    let inv3 = 1 / Float(255 * (y1 - y0) * 3)
                    @inline(__always) func ld(_ p: UnsafeMutablePointer<UInt32>, _ x: Int) -> U4 {
                        UnsafeRawPointer(p + x).loadUnaligned(as: U4.self)
                    }
                    @inline(__always) func cells(_ p: UnsafeMutablePointer<UInt32>, _ x: Int) -> U4 {
                        let a = ld(p, x), b = ld(p, x + 4), c = ld(p, x + 8)
                        return U4(a[0], a[3], b[2], c[1]) &+ U4(a[1], b[0], b[3], c[2]) &+ U4(a[2], b[1], c[0], c[3])
                    }
                    @inline(__always) func channel(_ e: U4, _ o: U4, _ c: Int) -> SIMD4<Float> {
                        let w = c & 1 == 0 ? e : o
                        let v = c >= 2 ? w &>> 16 : w & 0xFFFF
                        return unsafeBitCast(v | 0x4B00_0000, to: SIMD4<Float>.self) - 8_388_608
                    }
                    @inline(__always) func storeMean(_ v: SIMD4<Float>, _ p: UnsafeMutablePointer<Float>) { store(v * inv3, p) }
                    while gx4 + 4 <= gw {
                        let x0 = Int(cx[gx4])
                        guard Int(cx[gx4 + 1]) == x0 + 3, Int(cx[gx4 + 2]) == x0 + 6, Int(cx[gx4 + 3]) == x0 + 9,
                              Int(cx[gx4 + 4]) == x0 + 12, x0 + 12 <= vw else { break }
                        let e = cells(even, x0), o = cells(odd, x0)
                        let i = gy * gw + gx4
                        storeMean(channel(e, o, cr), O + i); storeMean(channel(e, o, cg), O + gn + i)
                        storeMean(channel(e, o, cb), O + 2 * gn + i)
                        gx4 += 4
                    }
                }
                var lastWidth = 0
                var inv: Float = 0
                for gx in gx4..<gw {
                    let x0 = Int(cx[gx]), x1 = max(Int(cx[gx + 1]), x0 + 1)
                    var s0: UInt32 = 0, s1: UInt32 = 0, s2: UInt32 = 0, s3: UInt32 = 0
                    if (y1 - y0) * (x1 - x0) <= 257 {
                        // the cell's sums still fit the 16-bit lanes: add whole words
                        var e: UInt32 = 0, o: UInt32 = 0
                        for x in x0..<x1 { e &+= even[x]; o &+= odd[x] }
                        s0 = e & 0xFFFF; s2 = e >> 16; s1 = o & 0xFFFF; s3 = o >> 16
                    } else {
                        for x in x0..<x1 {
                            let e = even[x], o = odd[x]
                            s0 &+= e & 0xFFFF; s2 &+= e >> 16; s1 &+= o & 0xFFFF; s3 &+= o >> 16
                        }
                    }
                    @inline(__always) func byte(_ c: Int) -> UInt32 { c == 0 ? s0 : (c == 1 ? s1 : (c == 2 ? s2 : s3)) }
                    let sr = byte(cr), sg = byte(cg), sb = byte(cb)
                    if x1 - x0 != lastWidth { lastWidth = x1 - x0; inv = 1 / Float(255 * (y1 - y0) * lastWidth) }
                    let i = gy * gw + gx
                    O[i] = Float(sr) * inv; O[gn + i] = Float(sg) * inv; O[2 * gn + i] = Float(sb) * inv
                }
            }
            return
        }
        for gy in gys {
            let y0 = Int(ry[gy]), y1 = max(Int(ry[gy + 1]), y0 + 1)
            for gx in 0..<gw {
                let x0 = Int(cx[gx]), x1 = max(Int(cx[gx + 1]), x0 + 1)
                var sr: UInt32 = 0, sg: UInt32 = 0, sb: UInt32 = 0
                for y in y0..<y1 {
                    let row = v.row(y)
                    for x in x0..<x1 {
                        let p = row + x * ps
                        sr += UInt32(p[cr]); sg += UInt32(p[cg]); sb += UInt32(p[cb])
                    }
                }
                let inv = 1 / Float(255 * (y1 - y0) * (x1 - x0))
                let o = gy * gw + gx
                O[o] = Float(sr) * inv; O[gn + o] = Float(sg) * inv; O[2 * gn + o] = Float(sb) * inv
            }
        }
    }
}

/// One frame of refine=guided on raw planes, in phases; every phase is split
/// into `bands` parts with disjoint outputs (rows, or whole planes for the box
/// means), run by `run(band:)` on the pool's threads. Each value is computed
/// by the same expression in the same order as with one band, so the result
/// does not depend on the band count.
/// Four floats at `p` (any alignment): the refiner's 4-pixel steps.
private typealias F4 = SIMD4<Float>
@inline(__always) private func load(_ p: UnsafeMutablePointer<Float>) -> F4 { UnsafeRawPointer(p).loadUnaligned(as: F4.self) }
@inline(__always) private func store(_ v: F4, _ p: UnsafeMutablePointer<Float>) { UnsafeMutableRawPointer(p).storeBytes(of: v, as: F4.self) }

private struct RefinePass {
    /// 0 trust box means, 1 guide on the grid, 2 trust weights + guide at depth
    /// resolution + the two-colour products, 3 their box means, 4 decision of
    /// untrusted pixels, 5 the fit's products, 6 their box means, 7 the 3x3
    /// solve (and each window's fit confidence), 8 box means of the
    /// confidence-weighted coefficients, 9 their division by the summed
    /// confidence and the fit at depth resolution (for the range clamp; into
    /// the free product planes), 10 the output grid.
    static let phases = 11
    /// Floats in `planes` for these plane strides: 48 planes at depth
    /// resolution (see the offsets below), one scratch plane per band, 3 on the output grid.
    static func floats(n: Int, gn: Int, bands: Int) -> Int { (48 + bands) * n + 3 * gn }
    /// Floats from one plane to the next for `count` pixels: a multiple of 4
    /// KiB plus one cache line. The pixel loops read or write up to 15 planes
    /// at once; at 640x360 (4K video) planes exactly 900 KiB apart mapped onto
    /// the same cache sets and the products and solve ran ten times slower.
    static func planeStride(_ count: Int) -> Int { (count + 1023) / 1024 * 1024 + 16 }

    var phase = 0
    /// Plane strides (floats) at depth resolution and on the output grid.
    let n: Int, gn: Int, bands: Int
    let fill, weight, boxed, interior, decision, L, P, M, C, CM, tmp, grid: UnsafeMutablePointer<Float>
    let sums: UnsafeMutablePointer<Double>
    /// Per band: two rows of video-width sums for the guide (`areaRGB`).
    let videoSums: UnsafeMutablePointer<UInt32>
    let label: UnsafePointer<UInt8>
    let dw: Int, dh: Int, k: Int, gw: Int, gh: Int
    let video: RGBImageView
    let columns: UnsafePointer<Int32>, rows: UnsafePointer<Int32>
    let previous: UnsafeMutablePointer<Float>, out: UnsafeMutablePointer<Float>
    /// per output-grid column: nearest, first and second bilinear depth column; the second's weight
    let outputColumns: UnsafePointer<Int32>, outputWeights: UnsafePointer<Float>
    // parameters (MatteRefiner's)
    var band = 0, interiorRadius = 0, radius = 0, decisionRadius = 0
    var untrustedWeight: Float = 0, eps: Float = 0, contrast: Float = 1, base: Float = 0, gain: Float = 0
    var blend = false, rangeClamp = false, matchWidening = false
    /// > 0: the coefficient means are weighted by each window's fit (`fitWeighting`).
    var matchNoise: Float = 0, fitFloor: Float = 0

    init(planes F: UnsafeMutablePointer<Float>, n: Int, gn: Int, bands: Int, sums: UnsafeMutablePointer<Double>,
         videoSums: UnsafeMutablePointer<UInt32>,
         label: UnsafePointer<UInt8>, dw: Int, dh: Int, k: Int, gw: Int, gh: Int, video: RGBImageView,
         columns: UnsafePointer<Int32>, rows: UnsafePointer<Int32>,
         previous: UnsafeMutablePointer<Float>, out: UnsafeMutablePointer<Float>,
         outputColumns: UnsafePointer<Int32>, outputWeights: UnsafePointer<Float>) {
        self.outputColumns = outputColumns; self.outputWeights = outputWeights
        self.n = n; self.gn = gn; self.bands = bands
        fill = F                    // the filled label, then the decided matte
        weight = F + n              // fit weight: 1 trusted (then decided), untrustedWeight
        boxed = F + 2 * n           // box mean of `fill` over `band`
        interior = F + 3 * n        // ... and over interiorMargin + band (must follow `boxed`)
        decision = F + 4 * n
        L = F + 5 * n               // 3 planes: the guide at depth resolution
        P = F + 8 * n               // 15 planes: w, wR, wG, wB, wp, wRp, wGp, wBp, wRR, wRG, wRB, wGG, wGB, wBB, wpp
        M = F + 23 * n              // their window means
        C = F + 38 * n              // 5 planes: c·aR, c·aG, c·aB, c·b, c (c: the window's fit confidence)
        CM = F + 43 * n             // their window means
        tmp = F + 48 * n            // one scratch plane per band
        grid = F + (48 + bands) * n // 3 planes: the guide on the output grid
        self.sums = sums; self.videoSums = videoSums; self.label = label
        self.dw = dw; self.dh = dh; self.k = k; self.gw = gw; self.gh = gh
        self.video = video; self.columns = columns; self.rows = rows
        self.previous = previous; self.out = out
    }

    /// Rows `[count·b/bands, count·(b+1)/bands)`.
    @inline(__always) func share(_ count: Int, _ b: Int) -> Range<Int> {
        (count * b / bands)..<(count * (b + 1) / bands)
    }

    func run(band b: Int) {
        switch phase {
        case 0: boxMeans(b, src: fill, step: 0, dst: boxed, planes: 2, firstRadius: band, radius: interiorRadius)
        case 1: MatteRefiner.areaRGB(video, width: gw, height: gh, gridRows: share(gh, b), columns: columns, rows: rows,
                                     into: grid, planeStride: gn, columnSums: videoSums + b * 2 * video.width)
        case 2: trust(share(dh, b))
        case 3: boxMeans(b, src: P, step: n, dst: M, planes: 8, firstRadius: radius, radius: radius)
        // untrusted pixels gather along the subject's edge, unevenly over the
        // rows: every bands-th row, not a block of rows, balances the bands
        case 4: decide(stride(from: b, to: dh, by: bands))
        case 5: products(share(dh, b))
        case 6: boxMeans(b, src: P, step: n, dst: M, planes: fitFloor > 0 ? 15 : 14, firstRadius: radius, radius: radius)
        case 7: solve(share(dh, b))
        case 8: boxMeans(b, src: C, step: n, dst: CM, planes: fitFloor > 0 ? 5 : 4, firstRadius: radius, radius: radius)
        case 9:
            if fitFloor > 0 { normalise(share(dh, b)) }
            if rangeClamp { lowFit(share(dh, b)) }
        default: output(share(gh, b))
        }
    }

    /// Planes `b`, `b + bands`, ... of `planes` (source `src + c·step`, result
    /// `dst + c·n`), with this band's own scratch plane and column sums.
    func boxMeans(_ b: Int, src: UnsafeMutablePointer<Float>, step: Int, dst: UnsafeMutablePointer<Float>,
                  planes: Int, firstRadius: Int, radius: Int) {
        var c = b
        while c < planes {
            MatteRefiner.boxMean(src + c * step, into: dst + c * n, width: dw, height: dh,
                                 radius: c == 0 ? firstRadius : radius, tmp: tmp + b * n, sums: sums + b * dw)
            c += bands
        }
    }

    /// 3. trust (known and uniform within the band); the guide averaged from
    /// the grid cells to each depth cell; the products of the two-colour model.
    func trust(_ ys: Range<Int>) {
        let uw = untrustedWeight, inv = 1 / Float(k * k)
        for y in ys {
            // the guide at depth resolution: the mean of each k × k block of
            // grid cells (summed row by row, left to right, from 0)
            for c in 0..<3 {
                let g = grid + c * gn + y * k * gw, out = L + c * n + y * dw
                var x = 0
                if k == 2 {
                    // four depth pixels per step, each lane in the same order
                    let g1 = g + gw
                    while x + 4 <= dw {
                        let a = UnsafeRawPointer(g + 2 * x).loadUnaligned(as: SIMD8<Float>.self)
                        let b = UnsafeRawPointer(g1 + 2 * x).loadUnaligned(as: SIMD8<Float>.self)
                        let sum = ((a.evenHalf + a.oddHalf) + b.evenHalf) + b.oddHalf
                        UnsafeMutableRawPointer(out + x).storeBytes(of: sum * inv, as: SIMD4<Float>.self)
                        x += 4
                    }
                }
                while x < dw {
                    var s: Float = 0
                    for j in 0..<k { for u in 0..<k { s += g[j * gw + x * k + u] } }
                    out[x] = s * inv
                    x += 1
                }
            }
            for x in 0..<dw {
                let i = y * dw + x
                let m = boxed[i]
                weight[i] = label[i] != 2 && (m == 0 || m == 1) ? 1 : uw
            }
            // untrusted pixels: foreground if their colour is nearer the mean
            // colour of the trusted foreground than of the trusted background in
            // the window (a local two-colour model; no window extrapolates)
            var x = 0
            while x + 4 <= dw {  // four pixels at a time, as the scalar tail per lane
                let i = y * dw + x
                let t = load(weight + i) .== 1, f = load(fill + i)
                let wf = F4(repeating: 0).replacing(with: 1, where: t .& (f .== 1))
                let wb = F4(repeating: 0).replacing(with: 1, where: t .& (f .== 0))
                let R = load(L + i), G = load(L + n + i), B = load(L + 2 * n + i)
                store(wf, P + i); store(wf * R, P + n + i); store(wf * G, P + 2 * n + i); store(wf * B, P + 3 * n + i)
                store(wb, P + 4 * n + i); store(wb * R, P + 5 * n + i); store(wb * G, P + 6 * n + i); store(wb * B, P + 7 * n + i)
                x += 4
            }
            for x in x..<dw {
                let i = y * dw + x
                let t = weight[i] == 1, f = fill[i]
                let wf: Float = t && f == 1 ? 1 : 0, wb: Float = t && f == 0 ? 1 : 0
                let R = L[i], G = L[n + i], B = L[2 * n + i]
                P[i] = wf; P[n + i] = wf * R; P[2 * n + i] = wf * G; P[3 * n + i] = wf * B
                P[4 * n + i] = wb; P[5 * n + i] = wb * R; P[6 * n + i] = wb * G; P[7 * n + i] = wb * B
            }
        }
    }

    /// The decision for each untrusted pixel into `decision` (trust is read
    /// from `weight` unchanged until every pixel is decided: the next phase
    /// applies it).
    func decide(_ ys: some Sequence<Int>) {
        let sr = decisionRadius
        for y in ys {
            for x in 0..<dw where weight[y * dw + x] != 1 {
                let i = y * dw + x
                let R = L[i], G = L[n + i], B = L[2 * n + i]
                var p = fill[i]
                var nearest = false
                if sr > 0 {
                    // nearest trusted colour on each side within decisionRadius:
                    // a striped or multi-coloured background is not one mean.
                    // Inside a wide occlusion shadow one side may be out of
                    // reach: the search widens (2x, 3x) until both are found.
                    var bf = Float.infinity, bb = Float.infinity
                    var reach = sr, searched = -1
                    // widen only for holes the fill made foreground: an occlusion
                    // shadow is wall the projector cannot see, so the risk is
                    // keying it in; a hole filled as background stays so when
                    // no subject colour is in reach
                    var maxReach = label[i] == 2 && fill[i] == 1 ? 3 * sr : sr
                    var matched = false
                    // the nearest distance on each side over row pixels
                    // a...b: four at a time (the minimum does not depend on
                    // the order; each distance is summed as one by one)
                    let R4 = F4(repeating: R), G4 = F4(repeating: G), B4 = F4(repeating: B)
                    var bf4 = F4(repeating: .infinity), bb4 = bf4
                    @inline(__always) func scan(_ row: Int, _ a: Int, _ b: Int) {
                        var xx = a
                        while xx + 4 <= b + 1 {
                            let j = row + xx
                            xx += 4
                            let trusted = load(weight + j) .== 1
                            if !any(trusted) { continue }
                            let dr = load(L + j) - R4, dg = load(L + n + j) - G4, db = load(L + 2 * n + j) - B4
                            let dist = dr * dr + dg * dg + db * db
                            let front = load(fill + j) .== 1
                            // (compare-and-blend: SIMD pointwiseMin goes lane by lane)
                            bf4.replace(with: dist, where: trusted .& front .& (dist .< bf4))
                            bb4.replace(with: dist, where: trusted .& .!front .& (dist .< bb4))
                        }
                        while xx <= b {
                            let j = row + xx
                            xx += 1
                            guard weight[j] == 1 else { continue }
                            let dr = L[j] - R, dg = L[n + j] - G, db = L[2 * n + j] - B
                            let dist = dr * dr + dg * dg + db * db
                            if fill[j] == 1 { bf = min(bf, dist) } else { bb = min(bb, dist) }
                        }
                    }
                    while reach <= maxReach {
                        for yy in max(0, y - reach)...min(dh - 1, y + reach) {
                            let row = yy * dw
                            let xStart = max(0, x - reach), xEnd = min(dw - 1, x + reach)
                            if abs(yy - y) <= searched {
                                // skip the part of the row already searched
                                scan(row, xStart, min(xEnd, x - searched - 1))
                                scan(row, max(xStart, x + searched + 1), xEnd)
                            } else {
                                scan(row, xStart, xEnd)
                            }
                        }
                        bf = min(bf, bf4.min()); bb = min(bb, bb4.min())
                        if bf < .infinity && bb < .infinity { break }
                        // one side only, and the pixel is that side's colour to
                        // within the noise (eps): search on for the other side's
                        // colours, but let the result override the fill only as
                        // far as it is clear (below)
                        if reach == sr && maxReach == sr && matchWidening && min(bf, bb) <= matchNoise {
                            maxReach = 3 * sr
                            matched = true
                        }
                        searched = reach
                        reach += sr
                    }
                    if bf < .infinity && bb < .infinity {
                        p = bb / max(bf + bb, 1e-12)
                        nearest = true
                        if matched {
                            let c = abs(bb - bf) / max(bf + bb, 1e-12)
                            p = fill[i] + c * (p - fill[i])
                        }
                    }
                }
                if !nearest {
                    let nf = M[i], nb = M[4 * n + i]
                    if nf > 0 && nb > 0 {
                        let fr = M[n + i] / nf - R, fg = M[2 * n + i] / nf - G, fb = M[3 * n + i] / nf - B
                        let br = M[5 * n + i] / nb - R, bg = M[6 * n + i] / nb - G, bb = M[7 * n + i] / nb - B
                        let df = fr * fr + fg * fg + fb * fb, db = br * br + bg * bg + bb * bb
                        p = db / max(df + db, 1e-12)
                    }
                }
                decision[i] = p
            }
        }
    }

    /// 4. the decisions applied (full weight), then the products of the
    /// weighted colour guided filter at depth resolution.
    func products(_ ys: Range<Int>) {
        let end = ys.upperBound * dw
        var i = ys.lowerBound * dw
        // four pixels at a time, the same operations per lane as below
        while i + 4 <= end {
            var w = load(weight + i), p = load(fill + i)
            let undecided = w .!= 1
            if any(undecided) {
                p.replace(with: load(decision + i), where: undecided)
                w.replace(with: 1, where: undecided)
                store(p, fill + i)
                store(w, weight + i)
            }
            let R = load(L + i), G = load(L + n + i), B = load(L + 2 * n + i)
            store(w, P + i); store(w * R, P + n + i); store(w * G, P + 2 * n + i); store(w * B, P + 3 * n + i)
            store(w * p, P + 4 * n + i); store(w * R * p, P + 5 * n + i); store(w * G * p, P + 6 * n + i)
            store(w * B * p, P + 7 * n + i)
            store(w * R * R, P + 8 * n + i); store(w * R * G, P + 9 * n + i); store(w * R * B, P + 10 * n + i)
            store(w * G * G, P + 11 * n + i); store(w * G * B, P + 12 * n + i); store(w * B * B, P + 13 * n + i)
            store(w * p * p, P + 14 * n + i)
            i += 4
        }
        for i in i..<end {
            if weight[i] != 1 {
                fill[i] = decision[i]
                weight[i] = 1
            }
            let w = weight[i], p = fill[i]
            let R = L[i], G = L[n + i], B = L[2 * n + i]
            P[i] = w; P[n + i] = w * R; P[2 * n + i] = w * G; P[3 * n + i] = w * B
            P[4 * n + i] = w * p; P[5 * n + i] = w * R * p; P[6 * n + i] = w * G * p; P[7 * n + i] = w * B * p
            P[8 * n + i] = w * R * R; P[9 * n + i] = w * R * G; P[10 * n + i] = w * R * B
            P[11 * n + i] = w * G * G; P[12 * n + i] = w * G * B; P[13 * n + i] = w * B * B
            P[14 * n + i] = w * p * p
        }
    }

    /// The linear model α = a·I + b of every window (weighted least squares),
    /// four pixels at a time; the last ones of the band one by one through
    /// the same lanes (the same operations, so the same values).
    func solve(_ ys: Range<Int>) {
        let start = ys.lowerBound * dw, end = ys.upperBound * dw
        typealias V = SIMD4<Float>
        @inline(__always) func load(_ p: UnsafeMutablePointer<Float>, _ i: Int, _ lanes: Int) -> V {
            lanes == 4 ? UnsafeRawPointer(p + i).loadUnaligned(as: V.self) : V(repeating: p[i])
        }
        @inline(__always) func store(_ v: V, _ p: UnsafeMutablePointer<Float>, _ i: Int, _ lanes: Int) {
            if lanes == 4 { UnsafeMutableRawPointer(p + i).storeBytes(of: v, as: V.self) } else { p[i] = v[0] }
        }
        @inline(__always) func lanes(_ i: Int, _ k: Int) {
            let e = V(repeating: eps)
            @inline(__always) func m(_ c: Int) -> V { load(M + c * n, i, k) }
            let iw = 1 / m(0).replacing(with: 1e-12, where: m(0) .< 1e-12)
            let mR = m(1) * iw, mG = m(2) * iw, mB = m(3) * iw, mp = m(4) * iw
            let cR = m(5) * iw - mR * mp, cG = m(6) * iw - mG * mp, cB = m(7) * iw - mB * mp
            let rr = m(8) * iw - mR * mR + e, rg = m(9) * iw - mR * mG, rb = m(10) * iw - mR * mB
            let gg = m(11) * iw - mG * mG + e, gb = m(12) * iw - mG * mB, bb = m(13) * iw - mB * mB + e
            // symmetric 3x3 inverse (adjugate / determinant)
            let i00 = gg * bb - gb * gb, i01 = rb * gb - rg * bb, i02 = rg * gb - rb * gg
            let i11 = rr * bb - rb * rb, i12 = rb * rg - rr * gb, i22 = rr * gg - rg * rg
            let det = rr * i00 + rg * i01 + rb * i02
            let solvable = det .> 1e-20
            let id = 1 / det.replacing(with: 1, where: .!solvable)
            let zero = V(repeating: 0)
            let aR = ((i00 * cR + i01 * cG + i02 * cB) * id).replacing(with: zero, where: .!solvable)
            let aG = ((i01 * cR + i11 * cG + i12 * cB) * id).replacing(with: zero, where: .!solvable)
            let aB = ((i02 * cR + i12 * cG + i22 * cB) * id).replacing(with: zero, where: .!solvable)
            let b = mp - aR * mR - aG * mG - aB * mB
            if fitFloor > 0 {
                // the window's label variance and the part of it its model
                // explains: var(p) − E = a·cov(I, p) + eps·|a|² (E, the mean
                // squared residual, = var(p) − a·cov − eps·|a|² at the optimum)
                let vp = m(14) * iw - mp * mp
                let v0 = vp.replacing(with: zero, where: vp .< zero)
                let ex = (aR * cR + aG * cG + aB * cB) + e * (aR * aR + aG * aG + aB * aB)
                let ex0 = ex.replacing(with: zero, where: ex .< zero).replacing(with: v0, where: ex .> v0)
                let fl = V(repeating: fitFloor)
                // the unexplained fraction counts only as far as the window's
                // colours vary enough to have explained it (tr Σ against eps,
                // the filter's own edge/flat scale): a flat-colour window
                // keeps full weight, so edges colour cannot place stay soft
                let tr = (rr - e) + (gg - e) + (bb - e)
                let tr0 = tr.replacing(with: zero, where: tr .< zero)
                let s = tr0 / (tr0 + e)
                let c = 1 - s * ((v0 - ex0) / (v0 + fl))
                store(c * aR, C, i, k); store(c * aG, C + n, i, k); store(c * aB, C + 2 * n, i, k)
                store(c * b, C + 3 * n, i, k); store(c, C + 4 * n, i, k)
            } else {
                store(aR, C, i, k); store(aG, C + n, i, k); store(aB, C + 2 * n, i, k)
                store(b, C + 3 * n, i, k)
            }
        }
        var i = start
        while i + 4 <= end { lanes(i, 4); i += 4 }
        while i < end { lanes(i, 1); i += 1 }
    }

    /// 9a. the confidence-weighted coefficient sums divided by the summed confidence.
    func normalise(_ ys: Range<Int>) {
        for i in (ys.lowerBound * dw)..<(ys.upperBound * dw) {
            let inv = 1 / max(CM[4 * n + i], 1e-30)
            CM[i] *= inv; CM[n + i] *= inv; CM[2 * n + i] *= inv; CM[3 * n + i] *= inv
        }
    }

    /// 9. the fitted matte at depth resolution (the coefficients applied to
    /// the guide there) into the first product plane: the range the output
    /// between four depth pixels is clamped to.
    func lowFit(_ ys: Range<Int>) {
        let A = CM
        for y in ys {
            for i in (y * dw)..<((y + 1) * dw) {
                P[i] = A[i] * L[i] + A[n + i] * L[n + i] + A[2 * n + i] * L[2 * n + i] + A[3 * n + i]
            }
        }
    }

    /// Coefficients up to the grid, α = ā·I + b̄; 5. temporal (each pixel
    /// reads and writes only its own `previous`); 6. contrast and snap.
    func output(_ ys: Range<Int>) {
        let A = CM, n = n, dw = dw, dh = dh, gw = gw
        let lo: Float = 0.5 / 255, hi: Float = 1 - 0.5 / 255
        let invK = 1 / Float(k)
        for y in ys {
            let fy = max(0, (Float(y) + 0.5) * invK - 0.5)
            let y0 = min(Int(fy), dh - 1), y1 = min(y0 + 1, dh - 1)
            let ty = fy - Float(y0)
            let innerRow = interior + min(Int(fy + 0.5), dh - 1) * dw
            let labelRow = label + min(Int(fy + 0.5), dh - 1) * dw
            for x in 0..<gw {
                let o = y * gw + x
                // interior pixels keep their label: the colour model (most
                // of the work here) is evaluated only where it has a say
                // (not for holes: a hole the fill made subject, inside a
                // wide occlusion shadow, is for the colour model to decide)
                let nx = Int(outputColumns[3 * x])
                let inner = labelRow[nx] == 2 ? 0.5 : innerRow[nx]
                if (inner == 1 || inner == 0) && (!blend || previous[o] == inner) {
                    // most of the grid: the label, and (blending) the same as
                    // last frame, which the blend and the snap keep as it is
                    out[o] = inner
                    if !blend { previous[o] = inner }  // (blending, it holds this value already)
                    continue
                }
                var m: Float
                if inner == 1 {
                    m = 1
                } else if inner == 0 {
                    m = 0
                } else {
                    let x0 = Int(outputColumns[3 * x + 1]), x1 = Int(outputColumns[3 * x + 2])
                    let tx = outputWeights[x]
                    let w00 = (1 - tx) * (1 - ty), w01 = tx * (1 - ty), w10 = (1 - tx) * ty, w11 = tx * ty
                    let i00 = y0 * dw + x0, i01 = y0 * dw + x1, i10 = y1 * dw + x0, i11 = y1 * dw + x1
                    @inline(__always) func up(_ c: Int) -> Float {
                        let o = c * n
                        return A[o + i00] * w00 + A[o + i01] * w01 + A[o + i10] * w10 + A[o + i11] * w11
                    }
                    m = up(0) * grid[o] + up(1) * grid[gn + o] + up(2) * grid[2 * gn + o] + up(3)
                    if rangeClamp {
                        let a00 = P[i00], a01 = P[i01], a10 = P[i10], a11 = P[i11]
                        m = min(max(m, min(a00, a01, a10, a11)), max(a00, a01, a10, a11))
                    }
                    m = (m - 0.5) * contrast + 0.5
                    m = min(max(m, 0), 1)
                    if !(m == m) { m = 0 }
                }
                if blend {
                    let prev = previous[o]
                    let w = min(1, base + gain * abs(m - prev))
                    m = prev + w * (m - prev)
                }
                m = m < lo ? 0 : (m > hi ? 1 : m)
                out[o] = m
                previous[o] = m
            }
        }
    }
}


