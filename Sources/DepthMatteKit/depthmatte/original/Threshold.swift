// SPDX-License-Identifier: LGPL-2.1-or-later
/// Step 2a (README, depthmatte; the original chain): a binary mask at depth resolution.
@_spi(Bench) public enum DepthThreshold {
    /// `mask = 1` where `0 < depth * scale <= cutoff` (metres), else `0`.
    /// `mask` is resized to the depth picture.
    @_spi(Bench) public static func mask(depth: Depth16View, scale: Double, cutoff: Double, into mask: inout FloatPlane) {
        let limit = limit(cutoff: cutoff, scale: scale)
        mask.set(fromDepth: depth) { d in (d != 0 && UInt32(d) <= limit) ? 1 : 0 }
    }

    /// The cutoff in depth units: a depth value `d` is near when
    /// `0 < d <= limit`. depth*scale <= cutoff  <=>  depth <= cutoff/scale,
    /// compared in integers. In binary floating point cutoff/scale often
    /// lands a hair below the whole number it stands for (0.7 / 0.001 =
    /// 699.9999999999999), which would drop a depth exactly at the cutoff: a
    /// tiny relative slack is allowed. Every pass that splits near from far
    /// (the threshold, the refiner's three-state mask, the segmentation)
    /// uses this one conversion.
    @inline(__always) static func limit(cutoff: Double, scale: Double) -> UInt32 {
        let q = cutoff / scale
        let limitD = (q + abs(q) * 1e-9).rounded(.down)
        return !(limitD >= 0) ? 0 : (limitD > 65535 ? 65535 : UInt32(limitD))
    }
}

extension FloatPlane {
    /// Resize to the depth picture and set every pixel to `value` of its raw
    /// depth (0 = hole): the per-pixel masks of step 2a and the focus modes.
    @inline(__always) mutating func set(fromDepth depth: Depth16View, _ value: (UInt16) -> Float) {
        resize(width: depth.width, height: depth.height)
        let w = depth.width
        pixels.withUnsafeMutableBufferPointer { m in
            for y in 0..<depth.height {
                let row = depth.base + y * depth.stride
                let out = m.baseAddress! + y * w
                for x in 0..<w {
                    out[x] = value(UInt16(littleEndian: row.loadUnaligned(fromByteOffset: 2 * x, as: UInt16.self)))
                }
            }
        }
    }
}
