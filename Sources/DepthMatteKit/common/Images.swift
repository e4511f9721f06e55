// SPDX-License-Identifier: LGPL-2.1-or-later
/// Views over pictures in memory owned by someone else (GStreamer buffers, test
/// arrays), and a small owned float plane for intermediate results.
///
/// Views never allocate or copy; the caller guarantees the memory outlives the
/// view and holds at least `height * stride` bytes.

/// A packed 8-bit RGB picture: one plane, 3 or 4 bytes per pixel.
/// `r`, `g`, `b`, `a` are byte offsets of the components inside a pixel;
/// `a == -1` means the format has no alpha byte (RGBx, RGB, ...).
public struct RGBImageView {
    var base: UnsafeMutablePointer<UInt8>
    var width: Int
    var height: Int
    /// Bytes per row (may include padding).
    var stride: Int
    /// Bytes per pixel: 3 or 4.
    var pixelStride: Int
    var r: Int, g: Int, b: Int, a: Int

    public init(base: UnsafeMutablePointer<UInt8>, width: Int, height: Int, stride: Int,
                pixelStride: Int, r: Int, g: Int, b: Int, a: Int) {
        self.base = base; self.width = width; self.height = height; self.stride = stride
        self.pixelStride = pixelStride; self.r = r; self.g = g; self.b = b; self.a = a
    }

    func row(_ y: Int) -> UnsafeMutablePointer<UInt8> { base + y * stride }
    var hasAlpha: Bool { a >= 0 }
}

/// A GRAY16_LE picture (depth), values in sensor units; 0 = no reading.
public struct Depth16View {
    var base: UnsafeRawPointer
    var width: Int
    var height: Int
    /// Bytes per row.
    var stride: Int

    public init(base: UnsafeRawPointer, width: Int, height: Int, stride: Int) {
        self.base = base; self.width = width; self.height = height; self.stride = stride
    }

    /// Sample at (x, y); no bounds check.
    func at(_ x: Int, _ y: Int) -> UInt16 {
        UInt16(littleEndian: base.loadUnaligned(fromByteOffset: y * stride + 2 * x, as: UInt16.self))
    }

    /// The eight samples of row `y` from column `x`; no bounds check.
    @inline(__always) func eight(_ x: Int, _ y: Int) -> SIMD8<UInt16> {
        let v = base.loadUnaligned(fromByteOffset: y &* stride &+ 2 &* x, as: SIMD8<UInt16>.self)
        #if _endian(big)
        return v &<< 8 | v &>> 8
        #else
        return v
        #endif
    }
}

/// A GRAY8 picture (ground-truth mattes, grey outputs).
public struct Gray8View {
    var base: UnsafeMutablePointer<UInt8>
    var width: Int
    var height: Int
    var stride: Int

    public init(base: UnsafeMutablePointer<UInt8>, width: Int, height: Int, stride: Int) {
        self.base = base; self.width = width; self.height = height; self.stride = stride
    }
    func row(_ y: Int) -> UnsafeMutablePointer<UInt8> { base + y * stride }
}

/// An owned, row-major plane of `Float`, reused between frames: `resize` only
/// reallocates when the plane grows.
@_spi(Bench) public struct FloatPlane {
    private(set) var width: Int = 0
    private(set) var height: Int = 0
    @_spi(Bench) public var pixels: [Float] = []

    @_spi(Bench) public init() {}
    init(width: Int, height: Int, value: Float = 0) {
        resize(width: width, height: height)
        for i in 0..<(width * height) { pixels[i] = value }
    }

    mutating func resize(width: Int, height: Int) {
        self.width = width
        self.height = height
        if pixels.count < width * height {
            pixels = [Float](repeating: 0, count: width * height)
        }
    }

    subscript(x: Int, y: Int) -> Float {
        get { pixels[y * width + x] }
        set { pixels[y * width + x] = newValue }
    }

    /// How near 0 or 1 a value must be for `snapToEnds` (and the gamma pass
    /// with `snap`) to make it exactly 0 or 1: at most 0.03 of an 8-bit level.
    static let snapMargin: Float = 1e-4

    /// Values within `snapMargin` of 0 or 1 become exactly 0 or 1, so regions
    /// far from an edge are recognisably uniform to the fused upscale and blend.
    @_spi(Bench) public mutating func snapToEnds() {
        let n = width * height
        let lo = FloatPlane.snapMargin, hi = 1 - FloatPlane.snapMargin
        pixels.withUnsafeMutableBufferPointer { p in
            for i in 0..<n {
                let v = p[i]
                p[i] = v < lo ? 0 : (v > hi ? 1 : v)
            }
        }
    }
}
