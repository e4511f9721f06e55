// SPDX-License-Identifier: LGPL-2.1-or-later
/// What the learned elements (personmask, mpfacedetect) share: a packed RGB
/// frame as GStreamer hands it, the float tensor a model reads from it (an
/// area average, stretched or letterboxed as mediapipe's ImageToTensorCalculator
/// places the picture), and a fingerprint that says a frame repeats the last one.

/// A packed RGB frame as GStreamer hands it (no ownership).
public struct PackedRGBFrame {
    var base: UnsafePointer<UInt8>
    var width: Int, height: Int, stride: Int
    /// Byte offsets of r, g, b inside a pixel, and the pixel size (3 or 4).
    var red: Int, green: Int, blue: Int, pixelSize: Int

    public init(base: UnsafePointer<UInt8>, width: Int, height: Int, stride: Int,
                red: Int, green: Int, blue: Int, pixelSize: Int) {
        precondition(width >= 1 && height >= 1, "a frame has at least one pixel")
        precondition(pixelSize == 3 || pixelSize == 4, "packed RGB pixels are 3 or 4 bytes")
        precondition((0..<pixelSize).contains(red) && (0..<pixelSize).contains(green)
                     && (0..<pixelSize).contains(blue), "component offsets lie inside a pixel")
        precondition(stride >= width * pixelSize, "a row holds its pixels")
        self.base = base; self.width = width; self.height = height; self.stride = stride
        self.red = red; self.green = green; self.blue = blue; self.pixelSize = pixelSize
    }
}

/// Where a letterboxed tensor's picture sits, as fractions of the tensor side (0 for a stretched fill).
public struct Letterbox: Equatable {
    public var left: Float, top: Float, right: Float, bottom: Float
    public init(left: Float, top: Float, right: Float, bottom: Float) {
        self.left = left; self.top = top; self.right = right; self.bottom = bottom
    }
    public static let none = Letterbox(left: 0, top: 0, right: 0, bottom: 0)
}

/// One axis of a resampling: for each tensor pixel, the source pixels its
/// footprint covers (`first...last`; those strictly between have weight 1)
/// and the covered fractions of the two end pixels.
struct SamplingAxis {
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
public final class ModelInputSampler {
    public enum Fit { case stretch, letterbox }

    var xs = SamplingAxis(), ys = SamplingAxis()
    var rowA: [Float] = [], rowB: [Float] = [], sum: [Float] = []

    public init() {}

    /// HxWx3 float RGB, values mapped from 0...255 to `range` (selfie: 0...1; BlazeFace: -1...1).
    ///
    /// Each tensor pixel is the area average of the source over its footprint
    /// (a box filter over the exact, fractional footprint), then `v * (max - min) / 255 + min`
    /// as ImageToTensorCalculator maps values. `.letterbox` keeps the frame's aspect:
    /// the picture is centred and the border reads as value 0 (BORDER_ZERO, so `range`'s
    /// minimum), e.g. 1920x1080 into 192x192 leaves 42 border rows above and below
    /// (0.21875 of the side). Source rows and pixels are each read at most once.
    @discardableResult
    public func fill(_ frame: PackedRGBFrame, into tensor: UnsafeMutablePointer<Float>, width: Int, height: Int,
                     range: ClosedRange<Float>, fit: Fit) -> Letterbox {
        precondition(width >= 1 && height >= 1, "a tensor has at least one pixel")
        // ImageToTensorCalculator's PadRoi: the region grows along one axis to the tensor's aspect.
        var box = Letterbox.none
        var pictureW = Double(width), pictureH = Double(height)
        if fit == .letterbox {
            let tensorAspect = Float(height) / Float(width)
            let roiAspect = Float(frame.height) / Float(frame.width)
            if tensorAspect > roiAspect {
                let pad = (1 - roiAspect / tensorAspect) / 2
                box.top = pad; box.bottom = pad
                pictureH = Double(width) * Double(frame.height) / Double(frame.width)
            } else {
                let pad = (1 - tensorAspect / roiAspect) / 2
                box.left = pad; box.right = pad
                pictureW = Double(height) * Double(frame.width) / Double(frame.height)
            }
        }
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
    private func horizontalSums(_ frame: PackedRGBFrame, row y: Int, into h: UnsafeMutablePointer<Float>) {
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

/// A cheap test for "this frame is the same picture as the last one" (a frozen
/// source, a paused camera): the frame's size and a 128-bit hash of the r, g, b
/// of a sparse grid of pixels (64x36 at the centres of equal cells, fewer on
/// frames smaller than that), compared exactly. A change outside the grid goes unseen.
public struct FrameFingerprint: Equatable {
    var width: Int, height: Int
    var hash0: UInt64, hash1: UInt64

    static let columns = 64, rows = 36

    public init(_ frame: PackedRGBFrame) {
        width = frame.width; height = frame.height
        let nx = min(Self.columns, frame.width), ny = min(Self.rows, frame.height)
        var h0: UInt64 = 0x9E37_79B9_7F4A_7C15, h1: UInt64 = 0xC2B2_AE3D_27D4_EB4F
        for sy in 0..<ny {
            let y = (2 * sy + 1) * frame.height / (2 * ny)
            let row = frame.base + y * frame.stride
            var word: UInt64 = 0
            for sx in 0..<nx {
                let x = (2 * sx + 1) * frame.width / (2 * nx)
                let p = row + x * frame.pixelSize
                let rgb = UInt64(p[frame.red]) << 16 | UInt64(p[frame.green]) << 8 | UInt64(p[frame.blue])
                word = word << 24 | rgb
                if sx % 2 == 1 || sx == nx - 1 {
                    h0 = Self.mix(h0 ^ word); h1 = Self.mix(h1 &+ word &* 0x9FB2_1C65_1E98_DF25)
                    word = 0
                }
            }
        }
        hash0 = h0; hash1 = h1
    }

    /// splitmix64's finaliser: every input bit moves about half the output bits.
    @inline(__always) static func mix(_ x: UInt64) -> UInt64 {
        var z = x &+ 0x9E37_79B9_7F4A_7C15
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
