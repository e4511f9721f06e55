// SPDX-License-Identifier: LGPL-2.1-or-later
/// rgbdtestsrc `filtered=true`: depth as a phone's or
/// a sensor SDK's filtered map delivers it (an iPhone's AVDepthData with
/// isDepthDataFiltered, librealsense's spatial and hole-filling filters):
/// the holes filled and every step smoothed into a ramp a few pixels wide,
/// so a shoulder and the chair back behind it are no longer separated by a
/// step or by an occlusion shadow.
extension RGBDScene {
    /// Three passes of a box mean of radius `radius` over the valid (non-zero)
    /// pixels of a GRAY16 depth map, in place; a pixel with no valid pixel in
    /// reach stays 0. Each pass is separable (rows, then columns) with the
    /// valid count as weight.
    @_spi(Bench) public static func filterDepth(base: UnsafeMutableRawPointer, width w: Int, height h: Int, stride: Int,
                                   radius r: Int, passes: Int = 3) {
        guard w > 0, h > 0, r > 0 else { return }
        let n = w * h
        withUnsafeTemporaryAllocation(of: Float.self, capacity: 4 * n) { buf in
            let v = buf.baseAddress!, k = v + n, tv = v + 2 * n, tk = v + 3 * n
            for y in 0..<h {
                for x in 0..<w {
                    let d = UInt16(littleEndian: (base + y * stride).loadUnaligned(fromByteOffset: 2 * x, as: UInt16.self))
                    v[y * w + x] = Float(d); k[y * w + x] = d > 0 ? 1 : 0
                }
            }
            // one box pass along `count` lines of `len` samples `step` apart,
            // lines `jump` apart: (v·k, k) summed, from src into dst
            func box(_ sv: UnsafeMutablePointer<Float>, _ sk: UnsafeMutablePointer<Float>,
                     _ dv: UnsafeMutablePointer<Float>, _ dk: UnsafeMutablePointer<Float>,
                     lines: Int, len: Int, step: Int, jump: Int) {
                for l in 0..<lines {
                    let o = l * jump
                    var sum: Float = 0, cnt: Float = 0
                    for i in 0..<min(r, len) { sum += sv[o + i * step] * sk[o + i * step]; cnt += sk[o + i * step] }
                    for i in 0..<len {
                        if i + r < len { let j = o + (i + r) * step; sum += sv[j] * sk[j]; cnt += sk[j] }
                        if i - r - 1 >= 0 { let j = o + (i - r - 1) * step; sum -= sv[j] * sk[j]; cnt -= sk[j] }
                        let j = o + i * step
                        dk[j] = cnt > 0.5 ? 1 : 0
                        dv[j] = cnt > 0.5 ? sum / cnt : 0
                    }
                }
            }
            for _ in 0..<passes {
                box(v, k, tv, tk, lines: h, len: w, step: 1, jump: w)   // rows
                box(tv, tk, v, k, lines: w, len: h, step: w, jump: 1)   // columns
            }
            for y in 0..<h {
                for x in 0..<w {
                    let q = k[y * w + x] > 0 ? v[y * w + x] + 0.5 : 0
                    let d: UInt16 = q < 1 ? (k[y * w + x] > 0 ? 1 : 0) : (q >= 65535 ? 65535 : UInt16(q))
                    (base + y * stride).storeBytes(of: d.littleEndian, toByteOffset: 2 * x, as: UInt16.self)
                }
            }
        }
    }
}
