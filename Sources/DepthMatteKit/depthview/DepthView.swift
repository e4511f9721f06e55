// SPDX-License-Identifier: LGPL-2.1-or-later
/// Depth as a picture: metres → colour, near bright/warm, far dark/cool, holes
/// in their own colour. Used by the `depthview` element and `depthmatte
/// output=depth`.
///
/// Mapping: t = (m − rangeMin) / (rangeMax − rangeMin), clamped to [0, 1]
/// (t = 0 nearest). `grey`: level = round(255 · (1 − t)). `turbo`: Google's
/// Turbo colour map at (1 − t), so near is red and far is dark blue.
/// Automatic range (rangeMin or rangeMax 0): the 2nd and 98th percentiles of
/// the valid depths in the frame (sampled on a grid of at most ~4096 points).
import DMContract

enum DepthColormap: Int32, CaseIterable, Sendable {
    case grey = 0
    case turbo = 1
}

/// How a depth picture is drawn: depthview's settings, or depthmatte's for
/// output=depth.
public struct DepthViewSettings: Equatable, Sendable {
    var encoding: DepthEncoding
    /// Metres shown at t = 0 / t = 1; 0 = automatic from the frame.
    var rangeMin: Double
    var rangeMax: Double
    var colormap: DepthColormap
    /// Colour of holes (no reading) as 0xAARRGGBB; AA goes to alpha formats.
    var holeARGB: UInt32

    /// depthview's settings (the shim's copy of its properties,
    /// depthview_properties.def, and the depth pad's format).
    public init(_ c: DMDepthViewSettings) {
        self.init(display: c, encoding: DepthEncoding(c, eightBit: c.eight_bit != 0, bigEndian: c.big_endian != 0))
    }

    /// An element's depth-picture rows, for depth in `encoding`.
    init(display rows: some DepthDisplayRows, encoding: DepthEncoding) {
        self.encoding = encoding
        rangeMin = rows.range_min
        rangeMax = rows.range_max
        colormap = DepthColormap(property: rows.depth_colormap)
        holeARGB = rows.hole_argb
    }
}

enum Turbo {
    /// Turbo's published polynomial approximation (Anton Mikhailov, Google, 2019)
    /// evaluated at 256 points: 0 = dark blue, 1 = dark red.
    static let table: [(UInt8, UInt8, UInt8)] = (0..<256).map { i in
        let x = Double(i) / 255
        let x2 = x * x, x3 = x2 * x, x4 = x2 * x2, x5 = x4 * x
        let r = 0.13572138 + 4.61539260 * x - 42.66032258 * x2 + 132.13108234 * x3 - 152.94239396 * x4 + 59.28637943 * x5
        let g = 0.09140261 + 2.19418839 * x + 4.84296658 * x2 - 14.18503333 * x3 + 4.27729857 * x4 + 2.82956604 * x5
        let b = 0.10667330 + 12.64194608 * x - 60.58204836 * x2 + 110.36276771 * x3 - 89.90310912 * x4 + 27.34824973 * x5
        func byte(_ v: Double) -> UInt8 { UInt8(max(0, min(255, (v * 255).rounded()))) }
        return (byte(r), byte(g), byte(b))
    }
}

/// Renders depth pictures; keeps the decode table and scratch between frames.
public final class DepthViewRenderer {
    var decoder = DepthDecoder()
    var metres = FloatPlane()
    var samples: [Float] = []

    public init() {}

    /// The range (metres) used for a frame: the settings' or the robust automatic one.
    func range(_ s: DepthViewSettings, metres m: FloatPlane) -> (Float, Float) {
        var lo = Float(s.rangeMin), hi = Float(s.rangeMax)
        if !(lo > 0) || !(hi > 0) {
            samples.removeAll(keepingCapacity: true)
            let n = m.width * m.height
            let step = max(1, Int((Double(n) / 4096).squareRoot()))
            var y = step / 2
            while y < m.height {
                var x = step / 2
                while x < m.width {
                    let v = m.pixels[y * m.width + x]
                    if v > 0 && v.isFinite { samples.append(v) }
                    x += step
                }
                y += step
            }
            if samples.isEmpty { return (lo > 0 ? lo : 0, hi > 0 ? hi : 1) }
            samples.sort()
            let c = samples.count
            if !(lo > 0) { lo = samples[min(c - 1, Int(Double(c - 1) * 0.02))] }
            if !(hi > 0) { hi = samples[min(c - 1, Int((Double(c - 1) * 0.98).rounded(.up)))] }
        }
        if !(hi > lo) { hi = lo + 1e-3 }
        return (lo, hi)
    }

    /// Colour for metres `v` (0 = hole) within (lo, hi). Returns (r, g, b, a).
    static func color(_ v: Float, lo: Float, hi: Float, _ s: DepthViewSettings) -> (UInt8, UInt8, UInt8, UInt8) {
        if !(v > 0) || !v.isFinite {
            let c = s.holeARGB
            return (UInt8((c >> 16) & 0xff), UInt8((c >> 8) & 0xff), UInt8(c & 0xff), UInt8(c >> 24))
        }
        var t = (v - lo) / (hi - lo)
        t = t < 0 ? 0 : (t > 1 ? 1 : t)
        let i = Int(((1 - t) * 255).rounded())
        switch s.colormap {
        case .grey: let g = UInt8(i); return (g, g, g, 255)
        case .turbo: let c = Turbo.table[i]; return (c.0, c.1, c.2, 255)
        }
    }

    /// Draw the depth plane (raw values at `base`, bytes per sample from the
    /// encoding) into `out`, scaled to out's size by nearest neighbour.
    public func render(depth base: UnsafeRawPointer, width: Int, height: Int, stride: Int,
                       settings s: DepthViewSettings, into out: RGBImageView) {
        decoder.update(s.encoding)
        decoder.decode(base, width: width, height: height, stride: stride, into: &metres)
        render(metres: metres, settings: s, into: out)
    }

    /// Draw a metres plane (0 = hole) into `out`, nearest-neighbour scaled.
    func render(metres m: FloatPlane, settings s: DepthViewSettings, into out: RGBImageView) {
        let (lo, hi) = range(s, metres: m)
        if m.width == 0 || m.height == 0 { return }
        for y in 0..<out.height {
            let sy = min(m.height - 1, (y * m.height) / out.height)
            let row = out.row(y)
            for x in 0..<out.width {
                let sx = min(m.width - 1, (x * m.width) / out.width)
                let c = DepthViewRenderer.color(m.pixels[sy * m.width + sx], lo: lo, hi: hi, s)
                let p = row + x * out.pixelStride
                p[out.r] = c.0; p[out.g] = c.1; p[out.b] = c.2
                if out.a >= 0 { p[out.a] = c.3 }
                else if out.pixelStride == 4 {
                    // the x byte of RGBx-style formats: leave it defined
                    let xo = 6 - out.r - out.g - out.b
                    if xo >= 0 && xo < 4 { p[xo] = 255 }
                }
            }
        }
    }
}
