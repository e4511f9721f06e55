// SPDX-License-Identifier: LGPL-2.1-or-later
extension SubjectSegmentation {
    /// Step 1b: every near pixel on a smoothed step takes the depth of the
    /// side it is nearer to (a shock filter, one pass). Along a row or a
    /// column, a pixel is on one when the depths a = d(−s) and b = d(+s)
    /// differ by D ≥ `rampSteps` `step`s at min(a, b); the depth changes at
    /// the pixel itself too (its central difference is at least half the
    /// mean slope D / 2s: not a flat strip of a third surface between two
    /// real steps); and the surface beyond a or beyond b is flat by
    /// comparison (it changes by less than D / 2 over the next 2s pixels: a
    /// surface that stays steep on both sides, an arm pointing at the camera
    /// or a floor, is no step; the foot of a wide ramp is).
    /// A real, unsmoothed step passes too, mostly harmlessly: its pixels
    /// already hold one side's depth (a flying pixel between them moves to
    /// the nearer side). Of the two axes the larger D wins; where neither
    /// finds a ramp, the two diagonals are tried the same way (a ramp beside
    /// a sloping edge is too wide along either axis). With `holes`
    /// (`rampHoles`), a pixel whose nearer side still changes by a step over
    /// the next 2s pixels (no surface: a ramp between two others) becomes a
    /// hole instead.
    /// On return `o` holds the sharpened depth and `t` the original; `lab`
    /// is updated (near or not) and the near count returned.
    static func sharpenRamps(_ o: UnsafeMutablePointer<UInt16>, _ lab: UnsafeMutablePointer<Int32>,
                                     _ t: UnsafeMutablePointer<UInt16>, _ w: Int, _ h: Int, _ s: Int, _ limit: UInt32,
                                     _ stepA: Float, _ stepB: Float, _ rampSteps: Float, holes: Bool) -> Int {
        let n = w * h
        // t: the original (read); o: the sharpened depth (written)
        t.update(from: o, count: n)
        let k0 = rampSteps * stepA, k1 = rampSteps * stepB
        // the step along k at i, or 0 (the cheapest test first: most pixels
        // lie on no step at all)
        // (D, the depth taken (0: a hole, `holes`)), or D = 0: no ramp
        @inline(__always) func rampAt(_ i: Int, _ k: Int) -> (Float, UInt16) {
            let a = t[i - s * k], b = t[i + s * k]
            guard Float(a > b ? a - b : b - a) >= k0 else { return (0, 0) }
            let fa = Float(a), fb = Float(b)
            let d0 = abs(fb - fa)
            guard d0 >= k0 + k1 * min(fa, fb), a != 0, b != 0 else { return (0, 0) }
            // on the ramp itself: the depth changes here too (at least half
            // the mean slope), not a flat strip between two steps
            guard Float(2 * s) * abs(Float(t[i + k]) - Float(t[i - k])) >= d0 else { return (0, 0) }
            let a3 = t[i - 3 * s * k], b3 = t[i + 3 * s * k]
            let da = abs(fa - Float(a3)), db = abs(Float(b3) - fb)
            guard a3 != 0 && b3 != 0, 2 * min(da, db) < d0 else { return (0, 0) }
            let v = Float(t[i])
            let toA = abs(v - fa) <= abs(fb - v)
            // (`rampHoles`: the side taken still changes by a step over the
            // next 2s pixels, no surface but a ramp itself, and the pixel is
            // a step from it: it would take an in-between depth)
            if holes && (toA ? da >= k0 + k1 * fa && abs(v - fa) >= k0 + k1 * fa
                             : db >= k0 + k1 * fb && abs(fb - v) >= k0 + k1 * fb) { return (d0, 0) }
            return (d0, toA ? a : b)
        }
        // Eight pixels at a time, where all of them have room for every
        // direction: the cheapest test (|a - b| >= k0, in whole depth units)
        // along the four directions at once; when no pixel passes it, none
        // is on a ramp and only the near ones are counted.
        let k0Units = k0 > 0 ? Int(min(k0, 65536).rounded(.up)) : 0
        let firstTest = SIMD8<UInt16>(repeating: UInt16(min(k0Units, 65535)))
        @inline(__always) func noRampAmong(_ i: Int) -> Bool {
            if k0Units > 65535 { return true }
            @inline(__always) func passes(_ k: Int) -> SIMDMask<SIMD8<Int16>> {
                let a = UnsafeRawPointer(t + (i &- s &* k)).loadUnaligned(as: SIMD8<UInt16>.self)
                let b = UnsafeRawPointer(t + (i &+ s &* k)).loadUnaligned(as: SIMD8<UInt16>.self)
                return (b &- a).replacing(with: a &- b, where: a .> b) .>= firstTest
            }
            return !any(passes(1) .| passes(w) .| passes(w &+ 1) .| passes(w &- 1))
        }
        // only near pixels can change anything: one sharpened to a far side
        // leaves the subject's surfaces; a far one sharpened to a near side
        // would be written back with its own (far) depth if kept
        var near = 0
        for y in 0..<h {
            let rowOK = y >= 3 * s && y < h - 3 * s
            var x = SubjectSegmentation.nextNear(lab + y * w, 0, w)
            var tested = 0  // (the pixels before this one were in an eight tested already)
            while x < w {
                let i = y * w + x
                if x >= tested && rowOK && x >= 3 * s && x + 8 <= w - 3 * s {
                    tested = x + 8
                    if noRampAmong(i) {
                        let labels = UnsafeRawPointer(lab + i).loadUnaligned(as: SIMD8<Int32>.self)
                        near += 8 + Int((labels &>> 31).wrappedSum())
                        x = SubjectSegmentation.nextNear(lab + y * w, x + 8, w)
                        continue
                    }
                }
                defer { x = SubjectSegmentation.nextNear(lab + y * w, x + 1, w) }
                var best: (Float, UInt16) = (0, 0)
                if x >= 3 * s && x < w - 3 * s { best = rampAt(i, 1) }
                if rowOK { let r = rampAt(i, w); if r.0 > best.0 { best = r } }
                // the diagonals only where neither axis finds a ramp (a ramp
                // beside a sloping edge: along an axis it is wider than the test)
                if best.0 == 0 && rowOK && x >= 3 * s && x < w - 3 * s {
                    var r = rampAt(i, w + 1); if r.0 > best.0 { best = r }
                    r = rampAt(i, w - 1); if r.0 > best.0 { best = r }
                }
                if best.0 > 0 {
                    let v = best.1
                    o[i] = v
                    lab[i] = v != 0 && UInt32(v) <= limit ? 0 : -1
                }
                if lab[i] >= 0 { near += 1 }
            }
        }
        return near
    }
}
