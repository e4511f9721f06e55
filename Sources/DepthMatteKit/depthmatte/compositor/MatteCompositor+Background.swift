// SPDX-License-Identifier: LGPL-2.1-or-later
/// The background picture placed by aspect fill (scaled to cover the
/// output, centre-cropped), one output row at a time.
extension MatteCompositor.BandJob {
    /// Bilinear aspect-fill sample of background row `y` into `out`
    /// (`width` pixels of the background's own layout, which is the output's).
    func placeBackgroundRow(_ bg: RGBImageView, y: Int, width: Int, pixelStride ps: Int,
                            into out: UnsafeMutablePointer<UInt8>) {
        let r0 = bg.row(Int(fillRows.i0[y])), r1 = bg.row(Int(fillRows.i1[y]))
        let fy = fillRows.frac[y]
        let bps = bg.pixelStride
        let cr = bg.r, cg = bg.g, cb = bg.b
        fillColumns.i0.withUnsafeBufferPointer { i0 in
        fillColumns.i1.withUnsafeBufferPointer { i1 in
        fillColumns.frac.withUnsafeBufferPointer { fr in
            for x in 0..<width {
                let a = Int(i0[x]) * bps, b = Int(i1[x]) * bps
                let fx = fr[x]
                for c in 0..<3 {
                    let ch = c == 0 ? cr : (c == 1 ? cg : cb)
                    let top = Float(r0[a + ch]) + fx * (Float(r0[b + ch]) - Float(r0[a + ch]))
                    let bot = Float(r1[a + ch]) + fx * (Float(r1[b + ch]) - Float(r1[a + ch]))
                    out[x * ps + ch] = roundByte(top + fy * (bot - top))
                }
            }
        }}}
    }
}
