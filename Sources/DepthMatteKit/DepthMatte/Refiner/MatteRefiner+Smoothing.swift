/// README step 2, refine=guided, sub-step 2.9: the matte softened where its
/// edge is uncertain (`MatteRefiner.Tuning.uncertainSmoothing`).
extension MatteRefiner {
    /// Each value of the output grid `m` (`w` × `h`) moved towards its
    /// [1 2 1]/4 smoothing down and across (edges replicated) by
    /// u = min(1, (1 − c)·gain), where c is the fit confidence (`fitWeighting`'s
    /// window weights averaged over the windows covering the depth pixel under
    /// it, 1 where the colour model explains the labels or the labels are
    /// uniform), but never past 0.25 + v/2 towards 0.5 (it keeps its side and
    /// half its distance); then 2.7's snap. `copy`: room for the grid. Values whose
    /// depth pixel has c = 1 are not read: away from the edge, and on an edge the
    /// colour places, the matte is left as it is.
    static func smoothUncertain(_ m: UnsafeMutablePointer<Float>, width w: Int, height h: Int,
                                copy: UnsafeMutablePointer<Float>, confidence: UnsafePointer<Float>,
                                depthWidth dw: Int, depthHeight dh: Int, k: Int, gain: Float) {
        if w < 2 || h < 2 { return }
        copy.update(from: m, count: w * h)
        let lo: Float = 0.5 / 255, hi: Float = 1 - 0.5 / 255
        for y in 0..<h {
            let c = confidence + min(y / k, dh - 1) * dw
            let up = copy + max(y - 1, 0) * w, row = copy + y * w, down = copy + min(y + 1, h - 1) * w
            for x in 0..<w {
                let u = min((1 - c[min(x / k, dw - 1)]) * gain, 1)
                if !(u > 0) { continue }
                let l = max(x - 1, 0), r = min(x + 1, w - 1)
                let across = (up[l] + 2 * up[x] + up[r]) + 2 * (row[l] + 2 * row[x] + row[r]) + (down[l] + 2 * down[x] + down[r])
                let v0 = row[x]
                var v = v0 + u * (across * 0.0625 - v0)
                // (a value keeps its side of 0.5, and half its distance to it:
                // a thin part the colour cannot separate is softened, not lost)
                v = v0 >= 0.5 ? max(v, 0.25 + 0.5 * v0) : min(v, 0.25 + 0.5 * v0)
                m[y * w + x] = v < lo ? 0 : (v > hi ? 1 : v)
            }
        }
    }
}
