/// Step 2 of the original chain: a binary mask at depth resolution.
public enum DepthThreshold {
    /// `mask = 1` where `0 < depth * scale <= cutoff` (metres), else `0`.
    /// `mask` is resized to the depth picture.
    public static func mask(depth: Depth16View, scale: Double, cutoff: Double, into mask: inout FloatPlane) {
        mask.resize(width: depth.width, height: depth.height)
        // depth*scale <= cutoff  <=>  depth <= cutoff/scale; compare in integers.
        let limitD = (cutoff / scale).rounded(.down)
        let limit: UInt32 = limitD < 0 ? 0 : (limitD > 65535 ? 65535 : UInt32(limitD))
        let w = depth.width
        mask.pixels.withUnsafeMutableBufferPointer { m in
            for y in 0..<depth.height {
                let row = depth.base + y * depth.stride
                let out = m.baseAddress! + y * w
                for x in 0..<w {
                    let d = UInt32(UInt16(littleEndian: row.loadUnaligned(fromByteOffset: 2 * x, as: UInt16.self)))
                    out[x] = (d != 0 && d <= limit) ? 1 : 0
                }
            }
        }
    }
}
