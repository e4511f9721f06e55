// SPDX-License-Identifier: LGPL-2.1-or-later
/// Step 4 (README, depthmatte) and the output modes: one pass over each
/// output row reads the matte row, the video row and the background row once.

/// What the output carries.
@_spi(Bench) public enum MatteOutput: Int32 {
    /// `out = m * video + (1 - m) * background`, opaque.
    case composite = 0
    /// The matte as grey (R = G = B = 255 m), opaque.
    case matte = 1
    /// The video with `alpha = 255 m`.
    case alpha = 2
}

/// A background colour as 0xAARRGGBB (alpha is ignored: the composite is opaque).
struct ARGBColor: Equatable {
    var r: UInt8, g: UInt8, b: UInt8
    init(argb: UInt32) {
        r = UInt8((argb >> 16) & 0xff); g = UInt8((argb >> 8) & 0xff); b = UInt8(argb & 0xff)
    }
}

@inline(__always) func roundByte(_ v: Float) -> UInt8 {
    let c = v + 0.5  // NaN compares false: 0
    return c > 0 ? (c < 255 ? UInt8(c) : 255) : 0
}

enum RowBlender {
    /// Blend one row. `matte` holds `width` values in [0, 1]. `video` may be nil
    /// (no colour for this frame: treated as black). `background` is a row of
    /// the output format already placed (or nil: use `color`).
    @inline(__always)
    static func blend(width: Int, matte: UnsafePointer<Float>,
                             video: UnsafePointer<UInt8>?, videoLayout v: RGBImageView,
                             background: UnsafePointer<UInt8>?, color: ARGBColor,
                             output out: UnsafeMutablePointer<UInt8>, outputLayout o: RGBImageView,
                             mode: MatteOutput) -> Int {
        var covered = 0
        let vps = v.pixelStride, ops = o.pixelStride
        let cr = Float(color.r), cg = Float(color.g), cb = Float(color.b)
        for x in 0..<width {
            let m = matte[x]
            if m > 0.5 { covered += 1 }
            let op = out + x * ops
            var vr: Float = 0, vg: Float = 0, vb: Float = 0
            if let video {
                let vp = video + x * vps
                vr = Float(vp[v.r]); vg = Float(vp[v.g]); vb = Float(vp[v.b])
            }
            switch mode {
            case .composite:
                var br = cr, bg = cg, bb = cb
                if let background {
                    let bp = background + x * ops
                    br = Float(bp[o.r]); bg = Float(bp[o.g]); bb = Float(bp[o.b])
                }
                op[o.r] = roundByte(br + m * (vr - br))
                op[o.g] = roundByte(bg + m * (vg - bg))
                op[o.b] = roundByte(bb + m * (vb - bb))
                if o.a >= 0 { op[o.a] = 255 }
            case .matte:
                let g = roundByte(255 * m)
                op[o.r] = g; op[o.g] = g; op[o.b] = g
                if o.a >= 0 { op[o.a] = 255 }
            case .alpha:
                op[o.r] = UInt8(vr); op[o.g] = UInt8(vg); op[o.b] = UInt8(vb)
                if o.a >= 0 { op[o.a] = roundByte(255 * m) }
            }
        }
        return covered
    }
}
