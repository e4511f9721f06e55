// SPDX-License-Identifier: LGPL-2.1-or-later
/// The central half of a face box in normalized picture coordinates (the
/// face seeds: eyes, nose and cheeks, never the hair's edge or the wall).
struct FaceCentre {
    let u0: Double, u1: Double, v0: Double, v1: Double
    /// nil for an empty picture.
    init?(_ f: Box, videoWidth: Int, videoHeight: Int) {
        guard videoWidth > 0, videoHeight > 0 else { return nil }
        let vw = Double(videoWidth), vh = Double(videoHeight)
        u0 = (Double(f.x) + 0.25 * Double(f.width)) / vw; u1 = (Double(f.x) + 0.75 * Double(f.width)) / vw
        v0 = (Double(f.y) + 0.25 * Double(f.height)) / vh; v1 = (Double(f.y) + 0.75 * Double(f.height)) / vh
    }
}

extension SubjectLock {
    /// Mark this frame's subject seeds in a `width` x `height` mask over the
    /// same view as the depth the lock measured (any resolution): the
    /// central half of the accepted face box when a face set the lock;
    /// otherwise the cells of the surface the lock tracks (or took as the
    /// nearest body) within `seedDepthTolerance(d)` of the subject's depth
    /// that lie in the central half of the last face box while a missed face
    /// is held (`tracked`), or else in the surface's top band (the head: not
    /// a chair back merged with the chest at the lock's coarser grid);
    /// otherwise, while a lost subject is held, last frame's subject cells
    /// (in that box, if any). Returns false when there is no seed
    /// (mode=fixed, nothing found). With a subject, the bodies that moved
    /// into view (`movers`) are seeds too, where nearer than the cutoff
    /// (plus `moverReach` metres): other people within the cutoff band, a
    /// person entering at a side.
    func writeSeeds(into seeds: inout [UInt8], width w: Int, height h: Int, movers withMovers: Bool = true,
                    moverReach: Double = 0) -> Bool {
        guard writeSubjectSeeds(into: &seeds, width: w, height: h) else { return false }
        if withMovers { writeMoverSeeds(into: &seeds, width: w, height: h, reach: moverReach) }
        return true
    }

    /// Marks the cells of every mover that moved (a chair merged with a
    /// walking subject at the lock's coarse grid did not) and lie nearer
    /// than the cutoff (plus `reach` metres), with bit 1 (the subject's own
    /// seeds are bit 0: the restore pass measures the subject from those
    /// alone).
    func writeMoverSeeds(into seeds: inout [UInt8], width w: Int, height h: Int, reach: Double = 0) {
        let c = components
        guard !movers.isEmpty, let cutoff, c.width > 0, c.height > 0,
              seedDepthSize.0 > 0, seedDepthSize.1 > 0 else { return }
        let cut = cutoff + reach
        let sx = Double(seedDepthSize.0) / Double(c.step) / Double(w)
        let sy = Double(seedDepthSize.1) / Double(c.step) / Double(h)
        for y in 0..<h {
            let gy = min(Int((Double(y) + 0.5) * sy), c.height - 1)
            for x in 0..<w {
                let g = gy * c.width + min(Int((Double(x) + 0.5) * sx), c.width - 1)
                let k = Int(c.labels[g])
                if k >= 0 && c.depth[g] <= Float(cut) && room.movedCell(g) && movers.contains(k) { seeds[y * w + x] |= 2 }
            }
        }
    }

    private func writeSubjectSeeds(into seeds: inout [UInt8], width w: Int, height h: Int) -> Bool {
        guard w > 0, h > 0 else { return false }
        if let f = seedFace, let b = FaceCentre(f, videoWidth: seedVideoSize.0, videoHeight: seedVideoSize.1) {
            return SubjectSegmentation.markBox(&seeds, width: w, height: h, u0: b.u0, v0: b.v0, u1: b.u1, v1: b.v1)
        }
        let c = components
        let gw = c.width, gh = c.height
        guard gw > 0, gh > 0, seedDepthSize.0 > 0, seedDepthSize.1 > 0, let d = subjectDepth else { return false }
        let k = seedComponent
        if k == nil && !(source == .tracked && hasSeedMask) { return false }
        let tol = Float(SubjectLock.seedDepthTolerance(d))
        let dd = Float(d)
        let sx = Double(seedDepthSize.0) / Double(c.step) / Double(w)
        let sy = Double(seedDepthSize.1) / Double(c.step) / Double(h)
        // The surface the lock tracks (its grid is coarser) may have merged a
        // chair back with the chest, within the depth tolerance of the face
        //: a face missed this frame while the lock holds it
        // (`tracked`) seeds only the cells in the central half of the last
        // face box, if any (in the upper half of the surface); otherwise the
        // surface's top band (its top fifth of rows: the head) is the seed.
        var rowEnd = gh, boxRowEnd = gh
        if let k {
            rowEnd = Int(c.topEnd[k])
            boxRowEnd = Int(c.minRow[k]) + (Int(c.maxRow[k]) - Int(c.minRow[k])) / 2 + 1
        }
        let near = source == .tracked ? lastFaceCentre : nil
        var any = false
        for pass in 0..<2 {
            if pass == 1 && (any || near == nil) { break }
            let box = pass == 0 ? near : nil
            let end = box == nil ? rowEnd : boxRowEnd
            for y in 0..<h {
                let gy = min(Int((Double(y) + 0.5) * sy), gh - 1)
                if gy >= end { break }
                let v = (Double(y) + 0.5) / Double(h)
                if let box, v < box.v0 || v > box.v1 { continue }
                for x in 0..<w {
                    if let box {
                        let u = (Double(x) + 0.5) / Double(w)
                        if u < box.u0 || u > box.u1 { continue }
                    }
                    let gx = min(Int((Double(x) + 0.5) * sx), gw - 1)
                    let g = gy * gw + gx
                    let on: Bool
                    if let k {
                        on = c.labels[g] == Int32(k) && abs(c.depth[g] - dd) <= tol
                    } else {
                        on = seedMaskCell(g)
                    }
                    if on { seeds[y * w + x] = 1; any = true }
                }
            }
        }
        return any
    }

    /// Metres either side of the subject's depth that seed cells may lie:
    /// a head and the chest below it, not a chair back 15 cm behind.
    static func seedDepthTolerance(_ d: Double) -> Double { 0.08 + 0.04 * d }
}
