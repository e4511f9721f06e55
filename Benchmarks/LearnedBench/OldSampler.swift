// SPDX-License-Identifier: LGPL-2.1-or-later
// The model-input sampler as it stood before the fixed-point taps (float footprint
// sums of every source pixel): the baseline `learned-bench time` runs beside the kit's.
@_spi(Bench) import DepthMatteKit

struct OldFrame {
    var base: UnsafePointer<UInt8>
    var width: Int, height: Int, stride: Int
    var red: Int, green: Int, blue: Int, pixelSize: Int
}

/// One axis of a resampling: for each tensor pixel, the source pixels its
/// footprint covers (`first...last`; those strictly between have weight 1)
/// and the covered fractions of the two end pixels.
struct OldSamplingAxis {
    var first: [Int] = [], last: [Int] = []
    var firstWeight: [Float] = [], lastWeight: [Float] = []
    /// Source pixels per tensor pixel (the footprint's length, outside parts included).
    var scale: Double = 0
    var key: (source: Int, target: Int, picture: Double) = (0, 0, 0)

    /// `target` tensor pixels over `source` pixels; the picture spans `picture`
    /// tensor pixels centred on the tensor (== target when stretched). A footprint
    /// part outside the picture is border: it counts as value 0 (BORDER_ZERO).
    mutating func update(source: Int, target: Int, picture: Double) {
        if key == (source, target, picture) && first.count == target { return }
        key = (source, target, picture)
        scale = Double(source) / picture
        let pad = (Double(target) - picture) / 2 * scale  // source pixels of border before the picture
        first = .init(repeating: 0, count: target); last = .init(repeating: -1, count: target)
        firstWeight = .init(repeating: 0, count: target); lastWeight = .init(repeating: 0, count: target)
        for j in 0..<target {
            let lo = max(0, Double(j) * scale - pad), hi = min(Double(source), Double(j + 1) * scale - pad)
            guard hi > lo else { continue }  // all border: first > last
            var f = Int(lo.rounded(.down)), l = Int(hi.rounded(.up)) - 1
            f = min(max(f, 0), source - 1); l = min(max(l, f), source - 1)
            first[j] = f; last[j] = l
            if f == l {
                firstWeight[j] = Float(hi - lo)
            } else {
                firstWeight[j] = Float(Double(f + 1) - lo)
                lastWeight[j] = Float(hi - Double(l))
            }
        }
    }
}

/// Fills model input tensors from frames; owns its scratch (allocated once per size, nothing per frame).
final class OldSampler {
    typealias Fit = ModelInputSampler.Fit // { case stretch, letterbox }

    var xs = OldSamplingAxis(), ys = OldSamplingAxis()
    var rowA: [Float] = [], rowB: [Float] = [], sum: [Float] = []

    init() {}

    /// HxWx3 float RGB, values mapped from 0...255 to `range` (selfie: 0...1; BlazeFace: -1...1).
    ///
    /// Each tensor pixel is the area average of the source over its footprint
    /// (a box filter over the exact, fractional footprint), then `v * (max - min) / 255 + min`
    /// as ImageToTensorCalculator maps values. `.letterbox` keeps the frame's aspect:
    /// the picture is centred and the border reads as value 0 (BORDER_ZERO, so `range`'s
    /// minimum), e.g. 1920x1080 into 192x192 leaves 42 border rows above and below
    /// (0.21875 of the side). Source rows and pixels are each read at most once.
    @discardableResult
    func fill(_ frame: OldFrame, into tensor: UnsafeMutablePointer<Float>, width: Int, height: Int,
                     range: ClosedRange<Float>, fit: Fit) -> Letterbox {
        precondition(width >= 1 && height >= 1, "a tensor has at least one pixel")
        let (box, pictureW, pictureH) = Letterbox.placing(frameWidth: frame.width, frameHeight: frame.height,
                                                          width: width, height: height, fit: fit)
        xs.update(source: frame.width, target: width, picture: pictureW)
        ys.update(source: frame.height, target: height, picture: pictureH)
        let n = width * 3
        if sum.count != n {
            sum = .init(repeating: 0, count: n)
            rowA = .init(repeating: 0, count: n); rowB = .init(repeating: 0, count: n)
        }
        let scale = (range.upperBound - range.lowerBound) / 255, offset = range.lowerBound
        let area = Float(xs.scale * ys.scale)
        sum.withUnsafeMutableBufferPointer { acc in
        rowA.withUnsafeMutableBufferPointer { a in
        rowB.withUnsafeMutableBufferPointer { b in
            var current = a.baseAddress!, kept = b.baseAddress!
            var keptRow = -1  // the source row whose horizontal sums `kept` holds
            for i in 0..<height {
                let out = tensor + i * n
                let f = ys.first[i], l = ys.last[i]
                if f > l {  // all border
                    for k in 0..<n { out[k] = offset }
                    continue
                }
                for k in 0..<n { acc[k] = 0 }
                for y in f...l {
                    let w: Float = y == f ? ys.firstWeight[i] : (y == l ? ys.lastWeight[i] : 1)
                    let row: UnsafeMutablePointer<Float>
                    if y == keptRow {
                        row = kept
                    } else {
                        horizontalSums(frame, row: y, into: current)
                        row = current
                        if y == l {  // the next tensor row may start on it
                            swap(&current, &kept); keptRow = y
                        }
                    }
                    if w == 1 {
                        for k in 0..<n { acc[k] += row[k] }
                    } else {
                        for k in 0..<n { acc[k] += w * row[k] }
                    }
                }
                for k in 0..<n { out[k] = acc[k] / area * scale + offset }
            }
        }}}
        return box
    }

    /// The footprint sums of one source row for every tensor column (r, g, b interleaved).
    private func horizontalSums(_ frame: OldFrame, row y: Int, into h: UnsafeMutablePointer<Float>) {
        let src = frame.base + y * frame.stride
        let ps = frame.pixelSize, ro = frame.red, go = frame.green, bo = frame.blue
        xs.first.withUnsafeBufferPointer { first in
        xs.last.withUnsafeBufferPointer { last in
        xs.firstWeight.withUnsafeBufferPointer { fw in
        xs.lastWeight.withUnsafeBufferPointer { lw in
            var keptIndex = -1
            var kr: Float = 0, kg: Float = 0, kb: Float = 0
            for j in 0..<first.count {
                let f = first[j], l = last[j]
                if f > l { h[3 * j] = 0; h[3 * j + 1] = 0; h[3 * j + 2] = 0; continue }
                var fr: Float, fg: Float, fb: Float
                if f == keptIndex {
                    fr = kr; fg = kg; fb = kb
                } else {
                    let p = src + f * ps
                    fr = Float(p[ro]); fg = Float(p[go]); fb = Float(p[bo])
                    kr = fr; kg = fg; kb = fb; keptIndex = f
                }
                if f == l {
                    let w = fw[j]
                    h[3 * j] = w * fr; h[3 * j + 1] = w * fg; h[3 * j + 2] = w * fb
                    continue
                }
                var sr = 0, sg = 0, sb = 0
                var p = src + (f + 1) * ps
                let end = src + l * ps
                while p < end {
                    sr &+= Int(p[ro]); sg &+= Int(p[go]); sb &+= Int(p[bo])
                    p += ps
                }
                kr = Float(end[ro]); kg = Float(end[go]); kb = Float(end[bo]); keptIndex = l
                let w0 = fw[j], w1 = lw[j]
                h[3 * j] = w0 * fr + Float(sr) + w1 * kr
                h[3 * j + 1] = w0 * fg + Float(sg) + w1 * kg
                h[3 * j + 2] = w0 * fb + Float(sb) + w1 * kb
            }
        }}}}
    }
}

