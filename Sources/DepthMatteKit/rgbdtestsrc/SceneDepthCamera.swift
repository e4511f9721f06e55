// SPDX-License-Identifier: LGPL-2.1-or-later
/// The scene's depth as a separate depth camera sees it (its own pose,
/// intrinsics and resolution, from a `DepthCalibration`), for testing
/// registration end to end: `rgbdtestsrc calibration=…` renders this, and
/// `depthalign` with the same calibration brings it back to the colour view.
///
/// The scene is drawn from the colour camera. Its depth is drawn at twice the
/// colour intrinsics' size, each pixel back-projected with the (scaled) colour
/// intrinsics, moved into the depth camera's frame by the inverse of
/// depth→colour, projected with the depth intrinsics and kept when nearest
/// (z-buffer, z along the depth camera's axis). Surfaces the colour camera
/// does not see stay 0 (no reading), as the depth camera's own occlusion
/// shadows would be unknown to it; single-pixel gaps between samples of one
/// surface are filled.
extension RGBDScene {
    public func renderDepth(seenBy calibration: DepthCalibration, base: UnsafeMutableRawPointer,
                            width w: Int, height h: Int, stride: Int) {
        guard w > 0, h > 0 else { return }
        for y in 0..<h { (base + y * stride).initializeMemory(as: UInt16.self, repeating: 0, count: w) }
        let color = calibration.color.scaled(toWidth: 2 * calibration.color.width,
                                             height: 2 * calibration.color.height)
        let depth = calibration.depth.width == w && calibration.depth.height == h
            ? calibration.depth : calibration.depth.scaled(toWidth: w, height: h)
        let cw = color.width, ch = color.height
        var view = [UInt16](repeating: 0, count: cw * ch)
        view.withUnsafeMutableBytes { renderDepth(base: $0.baseAddress!, width: cw, height: ch, stride: 2 * cw) }
        let scale = settings.depthScale > 0 ? settings.depthScale : 0.001
        let toDepth = calibration.depthToColor.inverse
        var zbuf = [Float](repeating: .infinity, count: w * h)
        for v in 0..<ch {
            for u in 0..<cw {
                let d = view[v * cw + u]
                if d == 0 { continue }
                let p = toDepth.transform(color.deproject(u: Double(u), v: Double(v), depth: Double(d) * scale))
                if p.z <= 0 { continue }
                let q = depth.project(p)
                let x = Int((q.u).rounded()), y = Int((q.v).rounded())
                if x < 0 || y < 0 || x >= w || y >= h { continue }
                let z = Float(p.z)
                if z < zbuf[y * w + x] { zbuf[y * w + x] = z }
            }
        }
        // one-pixel gaps inside a surface: the mean of two neighbours that agree
        func agree(_ a: Float, _ b: Float) -> Bool { a.isFinite && b.isFinite && abs(a - b) <= 0.03 * min(a, b) }
        var filled = zbuf
        for y in 1..<max(1, h - 1) {
            for x in 1..<max(1, w - 1) where !zbuf[y * w + x].isFinite {
                let l = zbuf[y * w + x - 1], r = zbuf[y * w + x + 1]
                let t = zbuf[(y - 1) * w + x], b = zbuf[(y + 1) * w + x]
                if agree(l, r) { filled[y * w + x] = (l + r) / 2 } else if agree(t, b) { filled[y * w + x] = (t + b) / 2 }
            }
        }
        let inv = 1 / scale
        for y in 0..<h {
            let row = (base + y * stride).assumingMemoryBound(to: UInt16.self)
            for x in 0..<w {
                let z = filled[y * w + x]
                if z.isFinite { row[x] = UInt16(littleEndian: UInt16(clamping: Int((Double(z) * inv).rounded()))) }
            }
        }
    }
}
