// SPDX-License-Identifier: LGPL-2.1-or-later
// The figures a matte is scored by against the truth (the metrics listed in
// main.swift): per-frame sums, their means over a clip, and the gradient
// magnitude the Grad figure compares.

/// Gradient magnitude with Gaussian derivative filters, sigma 1.4.
struct Gradient {
    let g: [Float], dg: [Float], r: Int
    init(sigma: Float = 1.4) {
        r = Int((3 * sigma).rounded(.up))
        var g = [Float](), dg = [Float]()
        for i in -r...r {
            let x = Float(i)
            let e = (-(x * x) / (2 * sigma * sigma))
            // exp via Double pow-free series is overkill: use Float's built-in exp through powf-free approach
            let v = Float(expApprox(Double(e)))
            g.append(v); dg.append(-x / (sigma * sigma) * v)
        }
        let sg = g.reduce(0, +)
        self.g = g.map { $0 / sg }
        let sdg = zip(dg, (-r...r)).reduce(Float(0)) { $0 + $1.0 * Float($1.1) }
        self.dg = dg.map { -$0 / sdg }
    }
    func magnitude(_ a: [Float], _ w: Int, _ h: Int, tmp: inout [Float], gx: inout [Float], out: inout [Float]) {
        // gx = dg along x, g along y; gy = g along x, dg along y
        func hconv(_ src: [Float], _ k: [Float], _ dst: inout [Float]) {
            for y in 0..<h { for x in 0..<w {
                var s: Float = 0
                for i in -r...r { let xx = min(max(x + i, 0), w - 1); s += k[i + r] * src[y * w + xx] }
                dst[y * w + x] = s } }
        }
        func vconv(_ src: [Float], _ k: [Float], _ dst: inout [Float]) {
            for y in 0..<h { for x in 0..<w {
                var s: Float = 0
                for i in -r...r { let yy = min(max(y + i, 0), h - 1); s += k[i + r] * src[yy * w + x] }
                dst[y * w + x] = s } }
        }
        hconv(a, dg, &tmp); vconv(tmp, g, &gx)
        hconv(a, g, &tmp); vconv(tmp, dg, &out)
        for i in 0..<(w * h) { out[i] = (gx[i] * gx[i] + out[i] * out[i]).squareRoot() }
    }
}
func expApprox(_ x: Double) -> Double {
    // exp for x <= 0 by squaring a Taylor series of x / 2^k
    var k = 0, y = x
    while y < -0.5 { y /= 2; k += 1 }
    var s = 1.0, t = 1.0
    for n in 1...12 { t *= y / Double(n); s += t }
    for _ in 0..<k { s *= s }
    return s
}

struct Score {
    var sad = 0.0, mse = 0.0, grad = 0.0, iou = 0.0, iouMin = 1.0, dt = 0.0, distractor = 0, handOut = 0, handOutDeep = 0, thin = 0, thinKept = 0, ms = 0.0
    /// Per frame pair, mean: pixels whose matte change differs from the
    /// truth's by more than 0.2 (on a still clip: pixels that flip), the
    /// worst frame pair, and pixels the truth itself changes by more than 0.2.
    var off = 0.0, offMax = 0, truthMoves = 0.0
    /// The walk's figures (the Kinect target): frames whose truth is
    /// in view and touches neither side of the picture, their IoU (sum,
    /// then mean) and worst; frames with no truth, and how many of them key
    /// more than 0.1 % of the picture.
    var full = 0, fullIoU = 0.0, fullMin = 1.0, empty = 0, emptyKeyed = 0

    /// Add one frame's `FrameMetrics` (frame `index` of the clip).
    mutating func add(_ fm: FrameMetrics, index: Int) {
        sad += fm.sad / 1000; mse += fm.mse / Double(max(fm.n, 1)) * 1e3
        let frameIoU = fm.iou
        iou += frameIoU; iouMin = min(iouMin, frameIoU)
        if index > 0 {
            dt += (fm.dd / Double(max(fm.pairs, 1))).squareRoot() * 100
            off += Double(fm.off); offMax = max(offMax, fm.off); truthMoves += Double(fm.moves)
        }
    }
    /// Means over `frames` frames (the temporal figures over the frame pairs).
    mutating func finish(frames: Int) {
        let n = Double(frames)
        sad /= n; mse /= n; grad /= n; iou /= n; ms /= n
        if frames > 1 { dt /= n - 1; off /= n - 1; truthMoves /= n - 1 }
    }
}

/// The per-pixel sums of one frame that `Score` is made of: a matte value
/// `v` against the truth's `vt`, and their previous frame's (from the
/// second frame on) for dtSSD and the "off > 0.2" count.
struct FrameMetrics {
    var sad = 0.0, mse = 0.0, inter = 0, uni = 0, dd = 0.0, off = 0, moves = 0
    /// Pixels scored, and pixel pairs scored for dtSSD.
    var n = 0, pairs = 0
    var iou: Double { uni > 0 ? Double(inter) / Double(uni) : 1 }
    @inline(__always) mutating func add(_ v: Float, _ vt: Float) {
        n += 1
        let e = Double(v - vt)
        sad += abs(e); mse += e * e
        if v > 0.5 && vt > 0.5 { inter += 1 }
        if v > 0.5 || vt > 0.5 { uni += 1 }
    }
    @inline(__always) mutating func add(_ v: Float, _ vt: Float, previous pv: Float, _ pvt: Float) {
        add(v, vt)
        pairs += 1
        let q = Double((v - pv) - (vt - pvt)); dd += q * q
        if abs(q) > 0.2 { off += 1 }
        if abs(vt - pvt) > 0.2 { moves += 1 }
    }
}

let gradient = Gradient()
/// The truth's gradient magnitude per frame: made by the first run over a
/// clip and reused by the others (cleared before each new clip).
var truthGrad: [[Float]] = []

