// Oracle rows for the real clips: what the SAD / IoU / dtSSD
// targets mean, measured on the truth itself. A matte that were the truth
// turned binary at 0.5, or the truth moved by half a pixel, or the truth
// with a 3 px ramp instead of its 1 px edge, is the best a keyer working
// from a depth map could hope for; the printed ratios to the original chain
// show how far below them a target lies. No keyer runs here.

enum TruthOracle: CaseIterable {
    case binary, halfPixel, ramp3

    var label: String {
        switch self {
        case .binary: return "oracle: truth at 0.5"
        case .halfPixel: return "oracle: truth 0.5 px off"
        case .ramp3: return "oracle: truth, 3 px ramp"
        }
    }

    /// The oracle's matte for one truth frame (values 0...1).
    func matte(_ t: [UInt8], width w: Int, height h: Int) -> [Float] {
        var a = [Float](repeating: 0, count: w * h)
        for y in 0..<h {
            let o = y * w
            for x in 0..<w {
                let v = Float(t[o + x]) / 255
                switch self {
                case .binary:
                    a[o + x] = v > 0.5 ? 1 : 0
                case .halfPixel:
                    let l = x > 0 ? Float(t[o + x - 1]) / 255 : v
                    a[o + x] = 0.5 * (v + l)
                case .ramp3:
                    let l = x > 0 ? Float(t[o + x - 1]) / 255 : v
                    let r = x + 1 < w ? Float(t[o + x + 1]) / 255 : v
                    a[o + x] = (l + v + r) / 3
                }
            }
        }
        return a
    }

    /// SAD, IoU, dtSSD and the "off > 0.2" counts of the oracle against the
    /// truth, computed as `run` computes them for a matte.
    func score(_ truth: [[UInt8]], width w: Int, height h: Int) -> Score {
        var sc = Score()
        var prev: [Float] = [], prevT: [Float] = []
        for (i, tr) in truth.enumerated() {
            let a = matte(tr, width: w, height: h)
            let t = tr.map { Float($0) / 255 }
            var fm = FrameMetrics()
            for p in 0..<(w * h) {
                if i > 0 { fm.add(a[p], t[p], previous: prev[p], prevT[p]) } else { fm.add(a[p], t[p]) }
            }
            sc.add(fm, index: i, pixels: w * h)
            prev = a; prevT = t
        }
        sc.finish(frames: truth.count)
        return sc
    }
}
