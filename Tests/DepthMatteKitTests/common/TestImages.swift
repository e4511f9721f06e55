// SPDX-License-Identifier: LGPL-2.1-or-later
// Synthetic pictures for the DepthMatteKit tests: owned byte buffers wrapped as
// the kit's views (with optional row padding filled with a sentinel, so a read
// or write of the padding shows up), plus straightforward reference versions of
// each step of the chain, written independently of the kit's code.
import XCTest
@_spi(Bench) @testable import DepthMatteKit

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

// MARK: - Deterministic pseudo-random numbers

/// A tiny LCG so the "random" test pictures are the same on every run.
struct TestRandom {
    var state: UInt64
    init(seed: UInt64) { state = seed &* 6364136223846793005 &+ 1442695040888963407 }
    mutating func next() -> UInt64 {
        state = state &* 6364136223846793005 &+ 1442695040888963407
        return state >> 33
    }
    /// Uniform in [0, 1).
    mutating func unit() -> Double { Double(next() % (1 << 30)) / Double(1 << 30) }
    mutating func int(_ range: ClosedRange<Int>) -> Int {
        range.lowerBound + Int(next() % UInt64(range.upperBound - range.lowerBound + 1))
    }
}

// MARK: - Depth pictures

/// A GRAY16_LE picture in an owned buffer. Padding bytes hold `paddingByte`.
final class TestDepth {
    let width: Int, height: Int, stride: Int
    let bytes: UnsafeMutablePointer<UInt8>

    /// `padding` extra bytes per row (may be odd: the kit must cope with
    /// unaligned rows).
    init(width: Int, height: Int, padding: Int = 0, paddingByte: UInt8 = 0x37, fill: UInt16 = 0) {
        self.width = width; self.height = height
        stride = 2 * width + padding
        bytes = .allocate(capacity: max(stride * height, 1))
        bytes.initialize(repeating: paddingByte, count: max(stride * height, 1))
        for y in 0..<height { for x in 0..<width { self[x, y] = fill } }
    }

    convenience init(rows: [[UInt16]], padding: Int = 0, paddingByte: UInt8 = 0x37) {
        self.init(width: rows.first?.count ?? 0, height: rows.count, padding: padding, paddingByte: paddingByte)
        for (y, row) in rows.enumerated() { for (x, v) in row.enumerated() { self[x, y] = v } }
    }

    deinit { bytes.deallocate() }

    subscript(x: Int, y: Int) -> UInt16 {
        get { UInt16(bytes[y * stride + 2 * x]) | UInt16(bytes[y * stride + 2 * x + 1]) << 8 }
        set {
            bytes[y * stride + 2 * x] = UInt8(newValue & 0xff)
            bytes[y * stride + 2 * x + 1] = UInt8(newValue >> 8)
        }
    }

    /// Set every sample of the rectangle `[x0, x1) x [y0, y1)`.
    func fill(x0: Int, y0: Int, x1: Int, y1: Int, _ v: UInt16) {
        for y in y0..<y1 { for x in x0..<x1 { self[x, y] = v } }
    }

    var view: Depth16View { Depth16View(base: UnsafeRawPointer(bytes), width: width, height: height, stride: stride) }
}

// MARK: - RGB pictures

/// The packed layouts the element accepts (component byte offsets; a = -1:
/// no alpha byte).
enum Layout: String, CaseIterable {
    case rgba, bgra, argb, abgr, xrgb, rgbx, bgrx, rgb, bgr

    var pixelStride: Int { (self == .rgb || self == .bgr) ? 3 : 4 }
    var offsets: (r: Int, g: Int, b: Int, a: Int) {
        switch self {
        case .rgba: return (0, 1, 2, 3)
        case .bgra: return (2, 1, 0, 3)
        case .argb: return (1, 2, 3, 0)
        case .abgr: return (3, 2, 1, 0)
        case .xrgb: return (1, 2, 3, -1)
        case .rgbx: return (0, 1, 2, -1)
        case .bgrx: return (2, 1, 0, -1)
        case .rgb: return (0, 1, 2, -1)
        case .bgr: return (2, 1, 0, -1)
        }
    }
    var hasAlpha: Bool { offsets.a >= 0 }
}

struct RGBA: Equatable, CustomStringConvertible {
    var r: UInt8, g: UInt8, b: UInt8, a: UInt8
    init(_ r: UInt8, _ g: UInt8, _ b: UInt8, _ a: UInt8 = 255) { self.r = r; self.g = g; self.b = b; self.a = a }
    var description: String { "(\(r),\(g),\(b),\(a))" }
}

/// An 8-bit packed RGB picture in an owned buffer. Padding bytes (and the x
/// byte of RGBx-style layouts) start as `paddingByte`.
final class TestRGB {
    let width: Int, height: Int, stride: Int
    let layout: Layout
    let bytes: UnsafeMutablePointer<UInt8>
    let paddingByte: UInt8

    init(width: Int, height: Int, layout: Layout = .rgba, padding: Int = 0, paddingByte: UInt8 = 0xA5,
         fill: RGBA? = nil) {
        self.width = width; self.height = height; self.layout = layout; self.paddingByte = paddingByte
        stride = layout.pixelStride * width + padding
        bytes = .allocate(capacity: max(stride * height, 1))
        bytes.initialize(repeating: paddingByte, count: max(stride * height, 1))
        if let fill { for y in 0..<height { for x in 0..<width { self[x, y] = fill } } }
    }

    deinit { bytes.deallocate() }

    /// Pixel (x, y); `a` reads as 255 for layouts without alpha.
    subscript(x: Int, y: Int) -> RGBA {
        get {
            let p = bytes + y * stride + x * layout.pixelStride
            let o = layout.offsets
            return RGBA(p[o.r], p[o.g], p[o.b], o.a >= 0 ? p[o.a] : 255)
        }
        set {
            let p = bytes + y * stride + x * layout.pixelStride
            let o = layout.offsets
            p[o.r] = newValue.r; p[o.g] = newValue.g; p[o.b] = newValue.b
            if o.a >= 0 { p[o.a] = newValue.a }
        }
    }

    var view: RGBImageView {
        let o = layout.offsets
        return RGBImageView(base: bytes, width: width, height: height, stride: stride,
                            pixelStride: layout.pixelStride, r: o.r, g: o.g, b: o.b, a: o.a)
    }

    /// Byte offsets of row padding (after the last pixel of each row).
    var paddingOffsets: [Int] {
        var out: [Int] = []
        for y in 0..<height {
            for i in (width * layout.pixelStride)..<stride { out.append(y * stride + i) }
        }
        return out
    }

    /// True when no padding byte was written.
    var paddingIntact: Bool { paddingOffsets.allSatisfy { bytes[$0] == paddingByte } }
}

// MARK: - Float planes

func makePlane(_ rows: [[Float]]) -> FloatPlane {
    var p = FloatPlane(width: rows.first?.count ?? 0, height: rows.count)
    for (y, row) in rows.enumerated() { for (x, v) in row.enumerated() { p[x, y] = v } }
    return p
}

func makePlane(width: Int, height: Int, _ f: (Int, Int) -> Float) -> FloatPlane {
    var p = FloatPlane(width: width, height: height)
    for y in 0..<height { for x in 0..<width { p[x, y] = f(x, y) } }
    return p
}

func randomPlane(width: Int, height: Int, seed: UInt64) -> FloatPlane {
    var rng = TestRandom(seed: seed)
    return makePlane(width: width, height: height) { _, _ in Float(rng.unit()) }
}

/// Largest |a - b| over the first `width * height` pixels of two planes of the same size.
func maxDifference(_ a: FloatPlane, _ b: [[Double]]) -> Double {
    var worst = 0.0
    for y in 0..<a.height { for x in 0..<a.width { worst = max(worst, abs(Double(a[x, y]) - b[y][x])) } }
    return worst
}

// MARK: - Reference implementations (deliberately naive)

enum Reference {
    /// mask = 1 where 0 < d * scale <= cutoff, with the comparison done on
    /// exact decimals: cutoffs and scales in the tests are given in whole
    /// sensor units, so `d <= cutoffUnits` is the exact statement.
    static func mask(_ depth: TestDepth, cutoffUnits: Int) -> [[Double]] {
        (0..<depth.height).map { y in
            (0..<depth.width).map { x in
                let d = Int(depth[x, y])
                return (d != 0 && d <= cutoffUnits) ? 1 : 0
            }
        }
    }

    /// Direct 2-D convolution with a Gaussian truncated at ceil(3 sigma),
    /// normalised over the square support, with clamp-to-edge sampling.
    static func blur(_ p: [[Double]], sigma: Double) -> [[Double]] {
        guard sigma > 0.01 else { return p }
        let h = p.count, w = p.first?.count ?? 0
        let r = Int((3 * sigma).rounded(.up))
        var weights = [[Double]](repeating: [Double](repeating: 0, count: 2 * r + 1), count: 2 * r + 1)
        var total = 0.0
        for j in -r...r {
            for i in -r...r {
                let v = exp(-Double(i * i + j * j) / (2 * sigma * sigma))
                weights[j + r][i + r] = v
                total += v
            }
        }
        var out = p
        for y in 0..<h {
            for x in 0..<w {
                var acc = 0.0
                for j in -r...r {
                    let yy = min(max(y + j, 0), h - 1)
                    for i in -r...r {
                        let xx = min(max(x + i, 0), w - 1)
                        acc += weights[j + r][i + r] * p[yy][xx]
                    }
                }
                out[y][x] = acc / total
            }
        }
        return out
    }

    static func gamma(_ p: [[Double]], _ g: Double) -> [[Double]] {
        p.map { $0.map { $0 <= 0 ? 0 : pow(min($0, 1), g) } }
    }

    /// Keys' cubic convolution kernel with parameter a = -C (the B = 0 member
    /// of the Mitchell-Netravali family), written in Keys' form.
    static func keys(_ x: Double, a: Double = -0.75) -> Double {
        let x = abs(x)
        if x < 1 { return (a + 2) * x * x * x - (a + 3) * x * x + 1 }
        if x < 2 { return a * x * x * x - 5 * a * x * x + 8 * a * x - 4 * a }
        return 0
    }

    /// Separable cubic resampling with pixel-centre alignment
    /// (`s = (i + 0.5) * src / dst - 0.5`), clamp-to-edge taps; optionally
    /// clamped to [0, 1].
    static func bicubic(_ p: [[Double]], width W: Int, height H: Int, clamp: Bool = true) -> [[Double]] {
        let h = p.count, w = p.first?.count ?? 0
        func taps(_ i: Int, _ src: Int, _ dst: Int) -> [(Int, Double)] {
            let s = (Double(i) + 0.5) * Double(src) / Double(dst) - 0.5
            let f = Int(s.rounded(.down))
            var t: [(Int, Double)] = []
            var sum = 0.0
            for k in (f - 1)...(f + 2) {
                let wt = keys(s - Double(k))
                t.append((min(max(k, 0), src - 1), wt))
                sum += wt
            }
            return t.map { ($0.0, $0.1 / sum) }
        }
        var out = [[Double]](repeating: [Double](repeating: 0, count: W), count: H)
        for y in 0..<H {
            let ty = taps(y, h, H)
            for x in 0..<W {
                let tx = taps(x, w, W)
                var acc = 0.0
                for (yy, wy) in ty { for (xx, wx) in tx { acc += wy * wx * p[yy][xx] } }
                out[y][x] = clamp ? min(max(acc, 0), 1) : acc
            }
        }
        return out
    }

    /// `round(bg + m * (v - bg))`, halves rounding up.
    static func mix(_ v: UInt8, _ bg: UInt8, _ m: Double) -> UInt8 {
        UInt8((Double(bg) + m * (Double(v) - Double(bg)) + 0.5).rounded(.down))
    }
}

extension FloatPlane {
    var rows: [[Double]] { (0..<height).map { y in (0..<width).map { x in Double(self[x, y]) } } }
}

// MARK: - Assertions

func assertPixel(_ actual: RGBA, _ expected: RGBA, tolerance: Int = 0, checkAlpha: Bool = true,
                 _ message: @autoclosure () -> String = "", file: StaticString = #filePath, line: UInt = #line) {
    let ok = abs(Int(actual.r) - Int(expected.r)) <= tolerance
        && abs(Int(actual.g) - Int(expected.g)) <= tolerance
        && abs(Int(actual.b) - Int(expected.b)) <= tolerance
        && (!checkAlpha || abs(Int(actual.a) - Int(expected.a)) <= tolerance)
    XCTAssertTrue(ok, "got \(actual), expected \(expected) ±\(tolerance) \(message())", file: file, line: line)
}
