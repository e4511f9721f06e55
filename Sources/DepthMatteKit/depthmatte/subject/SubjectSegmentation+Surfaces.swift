// SPDX-License-Identifier: LGPL-2.1-or-later
// Steps 1-3 of `SubjectSegmentation.apply`: near pixels, the floor, and
// the surfaces (see the type's documentation).
extension SubjectSegmentation.Frame {
    /// Step 1: copies the depth into `o`, marks the near pixels (`lab` 0,
    /// -1 not), makes every pixel its own union-find root and finds each
    /// row's sides as the depth sees them. Returns the near count.
    func copyNear(_ depth: Depth16View, _ maps: SubjectSegmentation.PixelMaps) -> Int {
        let o = maps.o, p = maps.p, lab = maps.lab, ends = maps.ends
        var near = 0
        // (eight pixels at a time; 0 < v <= limit is v - 1 < limit in 16
        // bits, with the limit clamped to 65535)
        let lim16 = SIMD8<UInt16>(repeating: UInt16(min(limit, 65535)))
        let lanes = SIMD8<Int32>(0, 1, 2, 3, 4, 5, 6, 7)
        var nears = SIMD8<Int32>(repeating: 0)
        for y in 0..<h {
            let row = depth.base + y * depth.stride
            let ro = o + y * w, rp = p + y * w, rl = lab + y * w, i0 = Int32(truncatingIfNeeded: y * w)
            var x = 0
            while x &+ 8 <= w {
                let v = depth.eight(x, y)
                UnsafeMutableRawPointer(ro + x).storeBytes(of: v, as: SIMD8<UInt16>.self)
                let roots = SIMD8<Int32>(repeating: i0 &+ Int32(truncatingIfNeeded: x)) &+ lanes
                UnsafeMutableRawPointer(rp + x).storeBytes(of: roots, as: SIMD8<Int32>.self)
                let isNear = SIMD8<Int32>(truncatingIfNeeded: SIMD8<Int16>(repeating: 0).replacing(with: -1, where: v &- 1 .< lim16))
                UnsafeMutableRawPointer(rl + x).storeBytes(of: ~isNear, as: SIMD8<Int32>.self)
                nears &-= isNear
                x &+= 8
            }
            for x in x..<w {
                let v = UInt16(littleEndian: row.loadUnaligned(fromByteOffset: 2 &* x, as: UInt16.self))
                ro[x] = v
                rp[x] = i0 &+ Int32(truncatingIfNeeded: x)
                let isNear = v != 0 && UInt32(v) <= limit
                rl[x] = isNear ? 0 : -1
                near &+= isNear ? 1 : 0
            }
            // the picture's sides as the depth sees them: past a strip of
            // holes along a side (`edgeStrip`)
            let r = o + y * w
            let (first, last) = DepthComponents.sideReadings(width: w, strip: Int(edgeStrip * Float(w))) { r[$0] != 0 }
            ends[2 * y] = Int32(first); ends[2 * y + 1] = Int32(last)
        }
        return near &+ Int(nears.wrappedSum())
    }

    /// Whether near pixel `i` is floor-like (tested on demand, cached in
    /// `fl` bits 1 and 2): its surface recedes upwards steeply and smoothly.
    @inline(__always) func floorLike(_ i: Int, _ maps: SubjectSegmentation.PixelMaps) -> Bool {
        let o = maps.o, lab = maps.lab, fl = maps.fl
        let f = fl[i]
        if f & 1 != 0 { return f & 2 != 0 }
        var r = false
        if lab[i] >= 0 && h > 2 * t {
            // the bottom rows the slope test cannot see take the test of the row above
            let (y, x) = rows.split(i)
            let c = min(y, h - t - 1) * w + x
            if c >= t * w && lab[c] >= 0 {
                // the least-squares slope over rows c ± t (a far
                // sensor's quantised, noisy floor steps by a few
                // centimetres every few rows: two samples alone
                // miss it), over the readings there (holes are
                // skipped: a speckle hole would fail every row whose
                // window holds it, a streak that splits the floor);
                // smooth: no depth edge from reading to reading
                r = SubjectSegmentation.recedesUpwards(UnsafePointer(o), c, w, t: t, s: s, slopeK: slopeK) {
                    within($0, $1, bodyA, bodyB)
                }
            }
        }
        fl[i] = f | (r ? 3 : 1)
        return r
    }

    /// The flood also crosses a near pixel whose row has floor-like
    /// pixels 1-2 pixels either side, on its surface: on a
    /// far sensor's floor the fit fails in thin streaks (correlated
    /// noise flattens it where the floor is barely steep enough) that
    /// split the floor into strips none of which is wide enough.
    @inline(__always) func bridged(_ j: Int, _ maps: SubjectSegmentation.PixelMaps) -> Bool {
        let o = maps.o, lab = maps.lab
        guard lab[j] >= 0 else { return false }
        let x = rows.column(j), v = o[j]
        @inline(__always) func side(_ dx: Int) -> Bool {
            for k in 1...2 {
                let xx = x + dx * k
                if xx < 0 || xx >= w { return false }
                let q = j + dx * k
                if lab[q] >= 0 && within(o[q], v, stepA, stepB) && floorLike(q, maps) { return true }
            }
            return false
        }
        return side(-1) && side(1)
    }

    /// Step 2, the floor: floor-like pixels reached from the bottom row, in
    /// a region that reaches a side of the picture or spans `floorSpan` of
    /// its width, are marked floor (`fl` bit 8) and leave the near pixels.
    /// Returns the floor's pixel count.
    func markFloor(_ maps: SubjectSegmentation.PixelMaps, stack: inout [Int32]) -> Int {
        let lab = maps.lab, fl = maps.fl, ends = maps.ends
        fl.update(repeating: 0, count: n)
        var floorPixels = 0
        stack.removeAll(keepingCapacity: true)
        for x0 in 0..<w {
            let start = (h - 1) * w + x0
            if fl[start] & 4 != 0 || !floorLike(start, maps) { continue }
            // flood one region (4-neighbours) of floor-like pixels
            let first = stack.count
            stack.append(Int32(start)); fl[start] |= 4
            var head = first
            var minX = x0, maxX = x0, side = false
            while head < stack.count {
                let i = Int(stack[head]); head += 1
                let (y, x) = rows.split(i)
                if x < minX { minX = x }
                if x > maxX { maxX = x }
                if !side && SubjectSegmentation.atSide(ends, x, y) { side = true }
                @inline(__always) func visit(_ j: Int) {
                    if fl[j] & 4 == 0 && (floorLike(j, maps) || bridged(j, maps)) { fl[j] |= 4; stack.append(Int32(j)) }
                }
                if x > 0 { visit(i - 1) }
                if x < w - 1 { visit(i + 1) }
                if i >= w { visit(i - w) }
                if i + w < n { visit(i + w) }
            }
            if side || Float(maxX - minX + 1) >= floorSpan * Float(w) {
                // the floor is no surface of the subject's
                for k in first..<stack.count { let j = Int(stack[k]); fl[j] |= 8; lab[j] = -1 }
                floorPixels += stack.count - first
            }
        }
        return floorPixels
    }

    /// Step 3's noise gain (`noiseSteps`): the map's own noise, as a gain on
    /// depth², from the 90th percentile of |Δ| / d² between row neighbours,
    /// real edges (4 steps or more) left out. `hist` is the histogram's
    /// storage.
    func noiseGain(_ maps: SubjectSegmentation.PixelMaps, _ hist: UnsafeMutableBufferPointer<Int32>) -> Float {
        let o = maps.o, lab = maps.lab
        let bins = hist.count
        hist.update(repeating: 0)
        var total = 0
        let m2 = Float(scale) * Float(scale)
        for y in 0..<h {
            let row = y * w
            // (runs of pixels that are not near skipped: `nextNear`)
            var x = SubjectSegmentation.nextNear(lab + row, 0, w - 1)
            while x < w - 1 {
                let i = row + x
                x = SubjectSegmentation.nextNear(lab + row, x + 1, w - 1)
                guard lab[i + 1] >= 0 else { continue }
                let a = Float(o[i]), b = Float(o[i + 1]), m = min(a, b)
                let dd = abs(a - b)
                if dd >= 4 * (stepA + stepB * m) { continue }
                hist[min(bins - 1, Int(dd / max(m * m * m2, 1e-6)))] += 1
                total += 1
            }
        }
        guard total > 0 else { return 0 }
        var acc = 0
        for k in 0..<bins {
            acc += Int(hist[k])
            if 10 * acc >= 9 * total { return noiseSteps * (Float(k) + 0.5) * m2 }
        }
        return noiseSteps * Float(bins) * m2
    }

    /// Step 3: the near pixels that are not floor are split into surfaces
    /// (union-find), `lab` then holds each one's surface number. Returns
    /// the surface count.
    func joinSurfaces(_ maps: SubjectSegmentation.PixelMaps, noiseK: Float) -> Int32 {
        let o = maps.o, lab = maps.lab, p = maps.p, fl = maps.fl
        let sets = UnionFind(parent: p)
        var count: Int32 = 0
        @inline(__always) func joins(_ a: UInt16, _ b: UInt16) -> Bool {
            let m = Float(min(a, b))
            return within(a, b, stepA, stepB) || abs(Float(a) - Float(b)) < noiseK * m * m
        }
        // Depth-edge pixels (a near 4-neighbour a step away: flying pixels
        // between two near surfaces, the outline of a self-occlusion)
        // join nothing: a chain of flying pixels would otherwise bridge a
        // shoulder to the chair behind it. Every other near pixel joins its
        // near left and upper neighbours that are no edge (no step between
        // them, or it would be an edge). Each step test is made once:
        // `stepLeft` and `sd[x]` carry it to the right and the next row.
        // A contact with no step is still cut (no union, no edge) where
        // the depth changes by a `step` over the `off` pixels either side
        // and the colours there differ by more than `joinColourStep`
        // (`colourCut`): a smoothed step (see `colourCut`). `cutLeft` and
        // bit 2 of `sd[x]` carry it like the step tests.
        let cutOn = colourCut && vw > 0
        // the cut judges the depth before 1b sharpened it (a
        // ramp wider than the sharpening reaches is sharpened to flat
        // in-between plateaus, where no span shows a step; a map smoothed
        // twice as much as rgbdtestsrc's, chair 3:4 480x640: IoU 0.9866,
        // 0.9721 judging the sharpened depth)
        let unsharpened = UnsafePointer(rampSteps > 0 ? maps.sharp : o)
        @inline(__always) func cut(_ x: Int, _ y: Int, _ dx: Int, _ dy: Int) -> Bool {
            let xa = x - off * dx, ya = y - off * dy, xb = x + dx * (off + 1), yb = y + dy * (off + 1)
            guard xa >= 0 && ya >= 0 && xb < w && yb < h else { return false }
            let ia = ya * w + xa, ib = yb * w + xb
            let a = unsharpened[ia], b = unsharpened[ib]
            // both sides near, a step between them, and this pair at least
            // as steep as the mean over the span (not a flat strip beside
            // the ramp)
            guard lab[ia] >= 0 && lab[ib] >= 0 && a != 0 && b != 0 && !joins(a, b) else { return false }
            let i = y * w + x, j = i + dx + dy * w
            guard Float(2 * off + 2) * abs(Float(unsharpened[j]) - Float(unsharpened[i])) >= abs(Float(b) - Float(a)) else { return false }
            let d = colour(xa, ya) - colour(xb, yb)
            return abs(d[0]) + abs(d[1]) + abs(d[2]) > joinColourStep
        }
        let sd = maps.sd
        for x in 0..<w { sd[x] = 0 }
        for y in 0..<h {
            var stepLeft = false, cutLeft = false
            var x = 0
            while x < w {
                let i = y * w + x
                if lab[i] < 0 {
                    // a run of pixels that are not near: no step or cut carried
                    let e = SubjectSegmentation.nextNear(lab + y * w, x, w)
                    (sd + x).update(repeating: 0, count: e - x)
                    stepLeft = false; cutLeft = false
                    x = e; continue
                }
                defer { x += 1 }
                let v = o[i]
                let sr = x < w - 1 && lab[i + 1] >= 0 && !joins(v, o[i + 1])
                let sdn = y < h - 1 && lab[i + w] >= 0 && !joins(v, o[i + w])
                let edge = stepLeft || sr || sd[x] & 1 != 0 || sdn
                let cutUp = sd[x] & 2 != 0, cutL = cutLeft
                let cr = cutOn && !sr && x < w - 1 && lab[i + 1] >= 0 && cut(x, y, 1, 0)
                let cdn = cutOn && !sdn && y < h - 1 && lab[i + w] >= 0 && cut(x, y, 0, 1)
                stepLeft = sr; cutLeft = cr
                sd[x] = (sdn ? 1 : 0) | (cdn ? 2 : 0)
                if edge { fl[i] |= 16; continue }
                if x > 0 && !cutL && lab[i - 1] >= 0 && fl[i - 1] & 16 == 0 { p[i] = sets.find(Int32(truncatingIfNeeded: i - 1)) }
                if y > 0 && !cutUp && lab[i - w] >= 0 && fl[i - w] & 16 == 0 {
                    sets.union(Int32(truncatingIfNeeded: i - w), Int32(truncatingIfNeeded: i))
                }
            }
        }
        var i = SubjectSegmentation.nextNear(lab, 0, n)
        while i < n {
            let i32 = Int32(truncatingIfNeeded: i)
            let r = sets.find(i32)
            if r == i32 { lab[i] = count; count &+= 1 } else { lab[i] = lab[Int(r)] }
            i = SubjectSegmentation.nextNear(lab, i + 1, n)
        }
        return count
    }
}
