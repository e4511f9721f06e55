// SPDX-License-Identifier: LGPL-2.1-or-later
/// Step 3's colour detail (refine=guided, `MatteRefiner.Tuning.colourDetail`): on
/// the edge runs, after the bicubic upscale, every video pixel adds
/// G·I − G·Ī, the colour model's gain G and offset G·Ī of the output grid
/// (interpolated bilinearly) applied to its own colour I. The cell's mean
/// stays the grid's matte (the detail averages to about 0 over a cell); the
/// edge inside the cell lands where the full-resolution colour puts it and
/// moves with it by fractions of a pixel instead of in whole grid cells.
struct MatteDetail {
    /// (gR, gG, gB, offset) per grid pixel, `width` × `height` of them.
    let base: UnsafePointer<Float>
    let width: Int, height: Int

    /// The two grid rows output row `y` (of `outputHeight` rows) reads and
    /// the second's weight.
    @inline(__always)
    func gridRows(y: Int, outputHeight: Int) -> (UnsafePointer<Float>, UnsafePointer<Float>, Float) {
        let fy = max(0, (Float(y) + 0.5) * Float(height) / Float(outputHeight) - 0.5)
        let y0 = min(Int(fy), height - 1), y1 = min(y0 + 1, height - 1)
        return (base + 4 * y0 * width, base + 4 * y1 * width, fy - Float(y0))
    }

    /// The detail of output row `y` (of `outputHeight` rows) added to
    /// `matte[range]`, clamped to [0, 1]; `columns` holds each output
    /// column's first grid column and its weight (`CompositorScratch.detailColumns`).
    func add(to matte: UnsafeMutablePointer<Float>, range: Range<Int>, y: Int, outputHeight: Int,
             video row: UnsafePointer<UInt8>, layout v: RGBImageView,
             columns: UnsafePointer<Int32>, weights: UnsafePointer<Float>) {
        let (r0, r1, ty) = gridRows(y: y, outputHeight: outputHeight)
        let ps = v.pixelStride, ro = v.r, go = v.g, bo = v.b
        let inv: Float = 1 / 255
        @inline(__always) func at(_ p: UnsafePointer<Float>) -> SIMD4<Float> {
            UnsafeRawPointer(p).loadUnaligned(as: SIMD4<Float>.self)
        }
        for x in range {
            let c0 = Int(columns[x]), c1 = min(c0 + 1, width - 1)
            let tx = weights[x]
            let top = at(r0 + 4 * c0) + (at(r0 + 4 * c1) - at(r0 + 4 * c0)) * tx
            let bottom = at(r1 + 4 * c0) + (at(r1 + 4 * c1) - at(r1 + 4 * c0)) * tx
            let d = top + (bottom - top) * ty
            if d == SIMD4(repeating: 0) { continue }
            let p = row + x * ps
            let m = matte[x] + (d.x * Float(p[ro]) + d.y * Float(p[go]) + d.z * Float(p[bo])) * inv - d.w
            matte[x] = min(max(m, 0), 1)
        }
    }
}

extension CompositorScratch {
    /// Per output column of `width`: the first of the two grid columns (of
    /// `sw`) its bilinear detail reads, and the second's weight.
    func detailColumns(sourceWidth sw: Int, width: Int) {
        if detailKey == (sw, width) { return }
        detailKey = (sw, width)
        detailColumn.reserve(width); detailWeight.reserve(width)
        for x in 0..<width {
            let fx = max(0, (Float(x) + 0.5) * Float(sw) / Float(width) - 0.5)
            let c = min(Int(fx), sw - 1)
            detailColumn.base[x] = Int32(c)
            detailWeight.base[x] = c + 1 < sw ? fx - Float(c) : 0
        }
    }
}
