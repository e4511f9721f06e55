// SPDX-License-Identifier: LGPL-2.1-or-later
/// Oracle rows for the real-depth clips: the truth itself, degraded the way
/// a good matte from a depth map could be, scored exactly as a matte is.
/// They say what the targets mean: a matte whose edges sit within about a
/// pixel of the truth and move as the scene moves scores like `shifted` or
/// better; one that ignores the motion altogether scores like `frozen`.
enum TruthOracle: CaseIterable {
    case frozen, shifted, blurred, binary

    var label: String {
        switch self {
        case .frozen: return "oracle: truth of frame 0, never moving"
        case .shifted: return "oracle: truth shifted 1 px"
        case .blurred: return "oracle: truth blurred, sigma 1 px"
        case .binary: return "oracle: binary truth"
        }
    }

    /// The oracle's matte for frame `i` of the truth (values 0...1).
    func matte(_ truth: [[UInt8]], frame i: Int, width w: Int, height h: Int) -> [Float] {
        let t = (self == .frozen ? truth[0] : truth[i]).map { Float($0) / 255 }
        switch self {
        case .frozen:
            return t
        case .binary:
            return t.map { $0 >= 0.5 ? 1 : 0 }
        case .shifted:
            var a = t
            for y in 0..<h { for x in 1..<w { a[y * w + x] = t[y * w + x - 1] } }
            return a
        case .blurred:
            return gaussian(t, width: w, height: h, sigma: 1)
        }
    }

    /// A separable Gaussian blur with clamped edges.
    private func gaussian(_ a: [Float], width w: Int, height h: Int, sigma: Float) -> [Float] {
        let r = Int((3 * sigma).rounded(.up))
        var k = (-r...r).map { d -> Float in
            let x = Float(d) / sigma
            return Float(expApprox(Double(-0.5 * x * x)))
        }
        let sum = k.reduce(0, +)
        k = k.map { $0 / sum }
        var tmp = a, out = a
        for y in 0..<h {
            for x in 0..<w {
                var s: Float = 0
                for d in -r...r { s += k[d + r] * a[y * w + min(max(x + d, 0), w - 1)] }
                tmp[y * w + x] = s
            }
        }
        for y in 0..<h {
            for x in 0..<w {
                var s: Float = 0
                for d in -r...r { s += k[d + r] * tmp[min(max(y + d, 0), h - 1) * w + x] }
                out[y * w + x] = s
            }
        }
        return out
    }

    /// SAD, IoU, dtSSD and the "off > 0.2" counts of the oracle against the
    /// truth, computed as `run` computes them for a matte (unknown truth,
    /// `known` 0, left out; `known` empty: known everywhere).
    func score(_ truth: [[UInt8]], known: [[UInt8]], width w: Int, height h: Int) -> Score {
        var sc = Score()
        var prev: [Float] = [], prevT: [Float] = []
        for (i, tr) in truth.enumerated() {
            let a = matte(truth, frame: i, width: w, height: h)
            let t = tr.map { Float($0) / 255 }
            var fm = FrameMetrics()
            for p in 0..<(w * h) {
                if !known.isEmpty && known[i][p] == 0 { continue }
                if i > 0 && (known.isEmpty || known[i - 1][p] != 0) {
                    fm.add(a[p], t[p], previous: prev[p], prevT[p])
                } else {
                    fm.add(a[p], t[p])
                }
            }
            sc.add(fm, index: i)
            prev = a; prevT = t
        }
        sc.finish(frames: truth.count)
        return sc
    }
}
