// SPDX-License-Identifier: LGPL-2.1-or-later
/// What the learned elements (personmask, mpfacedetect) share: a packed RGB
/// frame as GStreamer hands it, the float tensor a model reads from it (an
/// area average, stretched or letterboxed as mediapipe's ImageToTensorCalculator
/// places the picture), and a fingerprint that says a frame repeats the last one.

/// A packed RGB frame as GStreamer hands it (no ownership).
public struct PackedRGBFrame {
    var base: UnsafePointer<UInt8>
    public internal(set) var width: Int, height: Int
    var stride: Int
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

    /// Where a `frameWidth` x `frameHeight` frame sits in a `width` x `height`
    /// tensor: stretched over all of it, or letterboxed as ImageToTensorCalculator's
    /// PadRoi does it (the region grows along one axis to the tensor's aspect).
    /// The border fractions and the picture's size in tensor pixels (1920x1080
    /// letterboxed into 192x192: 0.21875 above and below, 192x108).
    @_spi(Bench) public static func placing(frameWidth: Int, frameHeight: Int, width: Int, height: Int,
                                            fit: ModelInputSampler.Fit)
        -> (box: Letterbox, pictureWidth: Double, pictureHeight: Double) {
        var box = Letterbox.none
        var pictureW = Double(width), pictureH = Double(height)
        guard fit == .letterbox else { return (box, pictureW, pictureH) }
        let tensorAspect = Float(height) / Float(width)
        let roiAspect = Float(frameHeight) / Float(frameWidth)
        if tensorAspect > roiAspect {
            let pad = (1 - roiAspect / tensorAspect) / 2
            box.top = pad; box.bottom = pad
            pictureH = Double(width) * Double(frameHeight) / Double(frameWidth)
        } else {
            let pad = (1 - tensorAspect / roiAspect) / 2
            box.left = pad; box.right = pad
            pictureW = Double(height) * Double(frameWidth) / Double(frameHeight)
        }
        return (box, pictureW, pictureH)
    }
}

/// One axis of a resampling as fixed-point taps: for each tensor pixel, the
/// samples its footprint covers and their integer weights (the covered length
/// in 1/`unit` of a sample), and the footprint's whole length in the same
/// units (border included), which divides the weighted sum.
///
/// A footprint of 4 source pixels or more takes 2 pixels per sample (`step` 2):
/// along rows a sample reads the pair it covers, down columns only its first
/// row, so half the rows are never read (1920x1080 into 256x256 reads 540 of
/// 1080 rows) and a tensor pixel still averages at least 2 rows of samples.
/// A footprint past 100 samples doubles the step again (8K into 1x1), a sample
/// still reading the first pair or row of its run.
struct SamplingTaps {
    /// Taps per tensor pixel, the same for all: tensor pixel j's are `j * count ..< (j + 1) * count`,
    /// those a footprint does not need weigh 0 (a loop of one length never mispredicts its end).
    var count = 1
    /// Byte offset of each tap's first source pixel (pixel index times `pixelSize`).
    var offset: [Int] = []
    var weight: [UInt16] = []
    /// `weight` in all 8 lanes.
    var wide: [SIMD8<UInt16>] = []
    /// The footprint's length in weight units, border included (never 0).
    var norm: [UInt32] = []
    var step = 1, unit = 1
    struct Key: Equatable { var source = 0, target = 0, picture = 0.0, pixelSize = 0, maxStep = 0, budget = 0, pairs = false }
    var key = Key()

    /// `target` tensor pixels over `source` pixels; the picture spans `picture`
    /// tensor pixels centred on the tensor (== target when stretched). A footprint
    /// part outside the picture is border: it counts as value 0 (BORDER_ZERO).
    /// The weights of one footprint sum to at most `budget`. `pairs`: a sample at
    /// step 2 or more reads the first 2 pixels of its run (the second at `offset + pixelSize`).
    mutating func update(source: Int, target: Int, picture: Double, pixelSize: Int, maxStep: Int,
                         budget: Int, pairs: Bool) {
        let newKey = Key(source: source, target: target, picture: picture, pixelSize: pixelSize,
                         maxStep: maxStep, budget: budget, pairs: pairs)
        if key == newKey && norm.count == target { return }
        key = newKey
        let scale = Double(source) / picture                  // source pixels per tensor pixel
        step = maxStep >= 2 && scale >= 4 ? 2 : 1
        while scale / Double(step) > 100 { step *= 2 }
        let fp = scale / Double(step)                         // samples per tensor pixel
        // the rounded weights of a footprint sum to at most unit * fp + 1
        unit = 64
        while unit > 1 && Double(unit) * (fp + 2) > Double(budget) { unit /= 2 }
        let samples = (source + step - 1) / step, extent = Double(source) / Double(step)
        let phase = pairs ? 0 : (step - 1) / 2                // the row a sample reads inside its run
        let pad = (Double(target) - picture) / 2 * fp         // samples of border before the picture
        let u = Double(unit)
        // the first pixel a sample reads; an odd source's last pair is its last two pixels
        func pixel(_ k: Int) -> Int { pairs && step >= 2 ? min(k * step, source - 2) : min(k * step + phase, source - 1) }
        var lists: [[(Int, UInt16)]] = []
        norm = []
        for j in 0..<target {
            var taps: [(Int, UInt16)] = []
            let a = Double(j) * fp - pad, b = Double(j + 1) * fp - pad
            norm.append(UInt32(max(1, Int((b * u).rounded()) - Int((a * u).rounded()))))
            let lo = Int((max(0, a) * u).rounded()), hi = Int((min(extent, b) * u).rounded())
            if hi > lo {                                      // else all border
                for k in lo / unit...min(samples - 1, (hi - 1) / unit) {
                    let w = min(hi, (k + 1) * unit) - max(lo, k * unit)
                    if w <= 0 { continue }
                    taps.append((pixel(k) * pixelSize, UInt16(w)))
                }
            } else if min(extent, b) > max(0, a) {
                // narrower than a weight unit (a 1x1 frame into 256x256): the sample under its centre
                taps.append((pixel(min(samples - 1, Int((max(0, a) + min(extent, b)) / 2))) * pixelSize, 1))
                norm[j] = 1
            }
            lists.append(taps)
        }
        count = max(1, lists.map(\.count).max() ?? 1)
        offset = []; weight = []
        for taps in lists {
            for k in 0..<count {
                offset.append(k < taps.count ? taps[k].0 : taps.last?.0 ?? 0)
                weight.append(k < taps.count ? taps[k].1 : 0)
            }
        }
        wide = weight.map { SIMD8(repeating: $0) }
    }
}

/// How a sample's bytes reach the sums: lanes 0-3 the first pixel's bytes in
/// memory order, lanes 4-7 the second pixel's (0 for a single pixel); a pixel's
/// 4th byte, if any, rides along unused.
protocol PixelLoad {
    static func single(_ p: UnsafePointer<UInt8>) -> SIMD8<UInt16>
    static func pair(_ p: UnsafePointer<UInt8>) -> SIMD8<UInt16>
}
enum FourBytePixel: PixelLoad {
    @inline(__always) static func single(_ p: UnsafePointer<UInt8>) -> SIMD8<UInt16> {
        let v = UnsafeRawPointer(p).loadUnaligned(as: SIMD4<UInt8>.self)
        return SIMD8<UInt16>(truncatingIfNeeded: SIMD8<UInt8>(lowHalf: v, highHalf: .zero))
    }
    @inline(__always) static func pair(_ p: UnsafePointer<UInt8>) -> SIMD8<UInt16> {
        SIMD8<UInt16>(truncatingIfNeeded: UnsafeRawPointer(p).loadUnaligned(as: SIMD8<UInt8>.self))
    }
}
enum ThreeBytePixel: PixelLoad {
    @inline(__always) static func single(_ p: UnsafePointer<UInt8>) -> SIMD8<UInt16> {
        SIMD8<UInt16>(UInt16(p[0]), UInt16(p[1]), UInt16(p[2]), 0, 0, 0, 0, 0)
    }
    @inline(__always) static func pair(_ p: UnsafePointer<UInt8>) -> SIMD8<UInt16> {
        SIMD8<UInt16>(UInt16(p[0]), UInt16(p[1]), UInt16(p[2]), 0, UInt16(p[3]), UInt16(p[4]), UInt16(p[5]), 0)
    }
}

/// Fills model input tensors from frames; owns its scratch (allocated once per size, nothing per frame).
public final class ModelInputSampler {
    public enum Fit { case stretch, letterbox }

    var xs = SamplingTaps(), ys = SamplingTaps()
    /// Row sums, 2 tensor pixels a vector (the last half unused when the width is odd).
    var rowA: [SIMD8<UInt16>] = [], rowB: [SIMD8<UInt16>] = [], sum: [SIMD4<UInt32>] = []
    /// The largest sampling step below 100 samples a footprint (1: every source pixel is read).
    @_spi(Bench) public var maxStep = 2

    public init() {}

    /// HxWx3 float RGB, values mapped from 0...255 to `range` (selfie: 0...1; BlazeFace: -1...1).
    ///
    /// Each tensor pixel is the area average of the source over its footprint
    /// (a box filter, its ends weighted by the covered fraction, see
    /// `SamplingTaps`; rows are sampled every 2nd once a footprint spans 4 rows),
    /// then `v * (max - min) / 255 + min` as ImageToTensorCalculator maps values.
    /// `.letterbox` keeps the frame's aspect: the picture is centred and the border
    /// reads as value 0 (BORDER_ZERO, so `range`'s minimum), e.g. 1920x1080 into
    /// 192x192 leaves 42 border rows above and below (0.21875 of the side).
    /// Sums are integers (16-bit per source row, 32-bit per tensor pixel, below
    /// 2^24 so the float division is exact): a flat colour comes out exact.
    @discardableResult
    public func fill(_ frame: PackedRGBFrame, into tensor: UnsafeMutablePointer<Float>, width: Int, height: Int,
                     range: ClosedRange<Float>, fit: Fit) -> Letterbox {
        precondition(width >= 1 && height >= 1, "a tensor has at least one pixel")
        let (box, pictureW, pictureH) = Letterbox.placing(frameWidth: frame.width, frameHeight: frame.height,
                                                          width: width, height: height, fit: fit)
        if fit == .stretch && (frame.width < 2 * width || frame.height < 2 * height) {
            bilinear(frame, into: tensor, width: width, height: height, range: range)
            return box
        }
        // a row sum is at most 2 * 255 * 128 == 65280 (2 pixels a sample), a
        // tensor pixel's sum at most 65280 * 128 < 2^24
        xs.update(source: frame.width, target: width, picture: pictureW, pixelSize: frame.pixelSize,
                  maxStep: maxStep, budget: 128, pairs: true)
        ys.update(source: frame.height, target: height, picture: pictureH, pixelSize: frame.stride,
                  maxStep: maxStep, budget: 128, pairs: false)
        let halves = (width + 1) / 2
        if sum.count != 2 * halves {
            sum = .init(repeating: .zero, count: 2 * halves)
            rowA = .init(repeating: .zero, count: halves); rowB = .init(repeating: .zero, count: halves)
        }
        if frame.pixelSize == 4 {
            fill(frame, FourBytePixel.self, into: tensor, width: width, height: height, range: range)
        } else {
            fill(frame, ThreeBytePixel.self, into: tensor, width: width, height: height, range: range)
        }
        return box
    }

    /// A stretched tensor from a frame less than twice its size along an axis:
    /// bilinear at pixel centres, rounded to 8 bits (what cv2.INTER_LINEAR gives
    /// the model there; an area average of so few pixels blurs what the selfie
    /// model sees: learned IoU 0.717 against 0.732 on the Kinect lab walk).
    private func bilinear(_ frame: PackedRGBFrame, into tensor: UnsafeMutablePointer<Float>, width: Int, height: Int,
                          range: ClosedRange<Float>) {
        let scale = (range.upperBound - range.lowerBound) / 255, offset = range.lowerBound
        let sx = Double(frame.width) / Double(width), sy = Double(frame.height) / Double(height)
        for y in 0..<height {
            let fy = max(0, (Double(y) + 0.5) * sy - 0.5)
            let y0 = min(Int(fy), frame.height - 1), y1 = min(y0 + 1, frame.height - 1)
            let wy = Float(fy - Double(y0))
            let row0 = frame.base + y0 * frame.stride, row1 = frame.base + y1 * frame.stride
            for x in 0..<width {
                let fx = max(0, (Double(x) + 0.5) * sx - 0.5)
                let x0 = min(Int(fx), frame.width - 1), x1 = min(x0 + 1, frame.width - 1)
                let wx = Float(fx - Double(x0))
                let p00 = row0 + x0 * frame.pixelSize, p01 = row0 + x1 * frame.pixelSize
                let p10 = row1 + x0 * frame.pixelSize, p11 = row1 + x1 * frame.pixelSize
                let out = tensor + (y * width + x) * 3
                @inline(__always) func channel(_ o: Int) -> Float {
                    let top = Float(p00[o]) + (Float(p01[o]) - Float(p00[o])) * wx
                    let bottom = Float(p10[o]) + (Float(p11[o]) - Float(p10[o])) * wx
                    return (top + (bottom - top) * wy).rounded() * scale + offset
                }
                out[0] = channel(frame.red)
                out[1] = channel(frame.green)
                out[2] = channel(frame.blue)
            }
        }
    }

    private func fill<P: PixelLoad>(_ frame: PackedRGBFrame, _: P.Type, into tensor: UnsafeMutablePointer<Float>,
                                    width: Int, height: Int, range: ClosedRange<Float>) {
        let scale = (range.upperBound - range.lowerBound) / 255, offset = range.lowerBound
        let ro = frame.red, go = frame.green, bo = frame.blue
        let pairs = xs.step == 2
        let perSample: Float = pairs ? 2 : 1
        let halves = (width + 1) / 2, xCount = xs.count, yCount = ys.count
        sum.withUnsafeMutableBufferPointer { accBuf in
        rowA.withUnsafeMutableBufferPointer { a in
        rowB.withUnsafeMutableBufferPointer { b in
        ys.offset.withUnsafeBufferPointer { yOffset in
        ys.weight.withUnsafeBufferPointer { yWeight in
        ys.norm.withUnsafeBufferPointer { yNorm in
        xs.offset.withUnsafeBufferPointer { xOffset in
        xs.wide.withUnsafeBufferPointer { xWide in
        xs.norm.withUnsafeBufferPointer { xNorm in
            let acc = accBuf.baseAddress!
            var current = a.baseAddress!, kept = b.baseAddress!
            var keptRow = -1  // the byte offset of the source row whose sums `kept` holds
            for i in 0..<height {
                let out = tensor + i * width * 3
                let t0 = i * yCount, t1 = t0 + yCount
                if yWeight[t0] == 0 {  // all border
                    for k in 0..<width * 3 { out[k] = offset }
                    continue
                }
                for j in 0..<2 * halves { acc[j] = .zero }
                for t in t0..<t1 {
                    let rowOffset = yOffset[t], w = UInt32(yWeight[t])
                    if w == 0 { break }
                    let row: UnsafeMutablePointer<SIMD8<UInt16>>
                    if rowOffset == keptRow {
                        row = kept
                    } else {
                        let src = frame.base + rowOffset
                        let h = UnsafeMutableRawPointer(current).assumingMemoryBound(to: SIMD4<UInt16>.self)
                        if pairs {
                            rowSums(src, P.pair, width, xCount, xOffset, xWide, into: h)
                        } else {
                            rowSums(src, P.single, width, xCount, xOffset, xWide, into: h)
                        }
                        row = current
                        if t == t1 - 1 || yWeight[t + 1] == 0 {  // the next tensor row may start on it
                            swap(&current, &kept); keptRow = rowOffset
                        }
                    }
                    for j in 0..<halves {
                        let v = SIMD8<UInt32>(truncatingIfNeeded: row[j]) &* w
                        acc[2 * j] &+= v.lowHalf; acc[2 * j + 1] &+= v.highHalf
                    }
                }
                let ny = Float(yNorm[i]) * perSample
                for j in 0..<width {
                    let v = SIMD4<Float>(acc[j]) / (Float(xNorm[j]) * ny)
                    out[3 * j] = v[ro] * scale + offset
                    out[3 * j + 1] = v[go] * scale + offset
                    out[3 * j + 2] = v[bo] * scale + offset
                }
            }
        }}}}}}}}}
    }

    /// One source row's sums for every tensor pixel, in memory-order lanes, a pair's two pixels folded.
    @inline(__always)
    private func rowSums(_ src: UnsafePointer<UInt8>, _ load: (UnsafePointer<UInt8>) -> SIMD8<UInt16>, _ width: Int,
                         _ count: Int, _ offset: UnsafeBufferPointer<Int>, _ wide: UnsafeBufferPointer<SIMD8<UInt16>>,
                         into h: UnsafeMutablePointer<SIMD4<UInt16>>) {
        let off = offset.baseAddress!, w = wide.baseAddress!
        // a fixed tap count unrolls (1920 into 256: 5 taps, 192: 6, 128: 9)
        switch count {
        case 2: rowSums(src, load, width, Taps2.self, off, w, into: h)
        case 3: rowSums(src, load, width, Taps3.self, off, w, into: h)
        case 4: rowSums(src, load, width, Taps4.self, off, w, into: h)
        case 5: rowSums(src, load, width, Taps5.self, off, w, into: h)
        case 6: rowSums(src, load, width, Taps6.self, off, w, into: h)
        case 7: rowSums(src, load, width, Taps7.self, off, w, into: h)
        case 8: rowSums(src, load, width, Taps8.self, off, w, into: h)
        case 9: rowSums(src, load, width, Taps9.self, off, w, into: h)
        default:
            for j in 0..<width {
                var s = SIMD8<UInt16>.zero
                let t = j &* count
                for k in 0..<count { s &+= load(src + off[t &+ k]) &* w[t &+ k] }
                h[j] = s.lowHalf &+ s.highHalf
            }
        }
    }

    @inline(__always)
    private func rowSums<N: TapCount>(_ src: UnsafePointer<UInt8>, _ load: (UnsafePointer<UInt8>) -> SIMD8<UInt16>,
                                      _ width: Int, _: N.Type, _ off: UnsafePointer<Int>,
                                      _ w: UnsafePointer<SIMD8<UInt16>>, into h: UnsafeMutablePointer<SIMD4<UInt16>>) {
        var t = 0
        for j in 0..<width {
            var s = SIMD8<UInt16>.zero
            for k in 0..<N.n { s &+= load(src + off[t &+ k]) &* w[t &+ k] }
            h[j] = s.lowHalf &+ s.highHalf
            t &+= N.n
        }
    }
}

protocol TapCount { static var n: Int { get } }
enum Taps2: TapCount { static var n: Int { 2 } }
enum Taps3: TapCount { static var n: Int { 3 } }
enum Taps4: TapCount { static var n: Int { 4 } }
enum Taps5: TapCount { static var n: Int { 5 } }
enum Taps6: TapCount { static var n: Int { 6 } }
enum Taps7: TapCount { static var n: Int { 7 } }
enum Taps8: TapCount { static var n: Int { 8 } }
enum Taps9: TapCount { static var n: Int { 9 } }

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
