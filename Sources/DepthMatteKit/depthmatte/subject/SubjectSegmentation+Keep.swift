// SPDX-License-Identifier: LGPL-2.1-or-later
// Steps 4-6 of `SubjectSegmentation.apply`: which surfaces are the
// subject or kept with it, and the far writing of the rest (see the type's
// documentation).
extension SubjectSegmentation.Frame {
    /// Step 4's start: per surface its area, whether it reaches a picture
    /// side and whether it holds a seed (the subject); and the pixels on an
    /// outline (`boundary`). Returns whether any surface holds a seed.
    func measureSurfaces(_ maps: SubjectSegmentation.SurfaceMaps, boundary: inout [Int32]) -> Bool {
        let lab = maps.lab, seed = maps.seed, o = maps.o, fl = maps.fl, ends = maps.ends
        let ar = maps.ar, adj = maps.adj, side = maps.side, kk = maps.kk, front = maps.front, c = maps.c
        var any = false
        for k in 0..<c { ar[k] = 0; adj[k] = 0; side[k] = 0; kk[k] = 0; front[k] = 0 }
        // per surface: area, picture edges, seeds; and the pixels on an
        // outline (a 4-neighbour that is a hole, a depth edge or another
        // surface, or a depth edge itself): every later step that looks at
        // contacts between surfaces or with holes needs only these
        boundary.removeAll(keepingCapacity: true)
        // (the area counted per run of one surface along a row: no store
        // and load of the same entry per pixel)
        var runSurface = -1, runArea: Int32 = 0
        for y in 0..<h {
            var x = SubjectSegmentation.nextNear(lab + y * w, 0, w)
            while x < w {
                let i = y * w + x
                let l = lab[i]
                let li = Int(l)
                if li == runSurface {
                    runArea &+= 1
                } else {
                    if runSurface >= 0 { ar[runSurface] += runArea }
                    runSurface = li; runArea = 1
                }
                if SubjectSegmentation.atSide(ends, x, y) { side[li] = 1 }
                if seed[i] != 0 { kk[li] = 1 }
                @inline(__always) func other(_ j: Int) -> Bool {
                    let m = lab[j]
                    return m >= 0 ? (m != l || fl[j] & 16 != 0) : o[j] == 0
                }
                if fl[i] & 16 != 0 || (x > 0 && other(i - 1)) || (x < w - 1 && other(i + 1))
                    || (y > 0 && other(i - w)) || (y < h - 1 && other(i + w)) {
                    boundary.append(Int32(i))
                }
                x = SubjectSegmentation.nextNear(lab + y * w, x + 1, w)
            }
        }
        if runSurface >= 0 { ar[runSurface] += runArea }
        for k in 0..<c where kk[k] == 1 { any = true }
        return any
    }

    /// The subject pixel met going from (x, y) by (dx, dy), through at
    /// most two depth-edge pixels; -1 if none.
    @inline(__always) func reach(_ x: Int, _ y: Int, _ dx: Int, _ dy: Int, _ maps: SubjectSegmentation.SurfaceMaps) -> Int {
        let lab = maps.lab, kk = maps.kk, fl = maps.fl
        var cx = x, cy = y
        for _ in 0..<3 {
            cx += dx; cy += dy
            if cx < 0 || cx >= w || cy < 0 || cy >= h { return -1 }
            let j = cy * w + cx
            let m = Int(lab[j])
            if m < 0 { return -1 }
            if kk[m] == 1 { return j }
            if fl[j] & 16 == 0 { return -1 }
        }
        return -1
    }

    /// Step 4, joining: surfaces whose contact with the subject is mostly a
    /// small step (< bodyStep: a head on its neck, a torso behind the chin)
    /// join it, round after round; a single bridge of flying pixels does not
    /// (a chair back 10 cm behind the shoulders touches them with a step all
    /// along).
    func joinRounds(_ maps: SubjectSegmentation.SurfaceMaps, _ boundary: [Int32]) {
        let lab = maps.lab, o = maps.o
        let ar = maps.ar, adj = maps.adj, kk = maps.kk, front = maps.front, c = maps.c, cap = maps.cap
        let colourDiff = front + cap, colourN = front + 2 * cap
        // the colour `off` depth pixels from (x, y), clamped to the picture
        for _ in 0..<maxJoinRounds {
            for k in 0..<c { adj[k] = 0; front[k] = 0; colourDiff[k] = 0; colourN[k] = 0 }
            for b in boundary {
                let i = Int(b), (y, x) = rows.split(i)
                do {
                    let l = Int(lab[i])
                    if kk[l] == 1 || ar[l] <= fragment { continue }
                    let v = o[i]
                    @inline(__always) func look(_ dx: Int, _ dy: Int) {
                        let j = reach(x, y, dx, dy, maps)
                        if j < 0 { return }
                        adj[l] += 1
                        let u = o[j]
                        if within(v, u, bodyA, bodyB) {
                            front[l] += 1
                            if vw > 0 {
                                // colours either side of the contact, `off` pixels
                                // away from it (past a 1-2 px misregistration)
                                let a = colour(x - off * dx, y - off * dy)
                                let b = colour(j % w + off * dx, j / w + off * dy)
                                let d = a - b
                                colourDiff[l] += abs(d[0]) + abs(d[1]) + abs(d[2])
                                colourN[l] += 1
                            }
                        }
                    }
                    // (dx, dy): from this pixel towards the subject
                    look(-1, 0); look(1, 0); look(0, -1); look(0, 1)
                }
            }
            var joined = false
            // fragments (flying pixels on an outline) never join here: they
            // would bridge the subject to whatever lies behind them; they are
            // kept at the end without passing anything on
            for k in 0..<c where kk[k] == 0 && ar[k] > fragment && adj[k] > 0 && front[k] >= 3 && 2 * front[k] >= Float(adj[k]) {
                // a step of a few centimetres is a body's own (chin and
                // neck, arm and chest) unless the colour changes across it
                // too: a chair back or a sofa touching the shoulders
                if colourN[k] > 0 && colourDiff[k] / colourN[k] > joinColourStep { continue }
                kk[k] = 1; joined = true
            }
            if !joined { break }
        }
    }

    /// Step 5's start: clears the contact sums for `keepTouching` and
    /// returns the subject's area (pixels).
    func clearContacts(_ maps: SubjectSegmentation.SurfaceMaps) -> Int32 {
        let ar = maps.ar, adj = maps.adj, kk = maps.kk, front = maps.front, c = maps.c, cap = maps.cap
        var subjectArea: Int32 = 0
        let colourDiff = front + cap, colourN = front + 2 * cap
        // per surface, its contacts with holes beyond `holeReach`: how
        // many, the depth differences to what they carry, and its depths
        // (the colour sums' planes are free again)
        let farN = front + 3 * cap, farDiff = colourDiff, farDepth = colourN
        for k in 0..<c { adj[k] = 0; front[k] = 0; farDiff[k] = 0; farDepth[k] = 0; farN[k] = 0 }
        for k in 0..<c where kk[k] == 1 { subjectArea += ar[k] }
        return subjectArea
    }

    /// Step 5, the subject's holes: holes next to the subject carry the
    /// depth of the subject pixel they were reached from, and how far (hs: 1
    /// next to it); up to `holeReach` pixels from it they count as the
    /// subject's for the surfaces that touch them (an occlusion shadow
    /// between an arm and the body is no separation); further in, only for
    /// fragments at the subject's depth (`holeFragments`).
    func growHoles(_ maps: SubjectSegmentation.SurfaceMaps, _ boundary: [Int32], stack: inout [Int32]) {
        let lab = maps.lab, o = maps.o, hs = maps.hs, ar = maps.ar, kk = maps.kk
        let hd = maps.hd
        hs.update(repeating: 0, count: n)
        stack.removeAll(keepingCapacity: true)
        for b in boundary {
            let i = Int(b), (y, x) = rows.split(i)
            if kk[Int(lab[i])] != 1 { continue }
            @inline(__always) func seedHole(_ j: Int) {
                if o[j] == 0 && hs[j] == 0 { hs[j] = 1; hd[j] = o[i]; stack.append(Int32(j)) }
            }
            if x > 0 { seedHole(i - 1) }
            if x < w - 1 { seedHole(i + 1) }
            if y > 0 { seedHole(i - w) }
            if y < h - 1 { seedHole(i + w) }
        }
        var head = 0
        while head < stack.count {
            let i = Int(stack[head]); head += 1
            if !holeFragments && hs[i] >= holeReach { continue }
            let x = rows.column(i)
            let carried = Float(hd[i])
            @inline(__always) func grow(_ j: Int) {
                if hs[j] != 0 { return }
                if o[j] != 0 {
                    // (`holeFragments`: on through a fragment in front of
                    // the carried depth or less than `bodyStep` behind)
                    let m = lab[j]
                    if !holeFragments || m < 0 || kk[Int(m)] != 0 || ar[Int(m)] > fragment
                        || Float(o[j]) >= carried + bodyA + bodyB * carried { return }
                }
                hs[j] = hs[i] < 65534 ? hs[i] + 1 : 65534; hd[j] = hd[i]; stack.append(Int32(j))
            }
            if x > 0 { grow(i - 1) }
            if x < w - 1 { grow(i + 1) }
            if i >= w { grow(i - w) }
            if i + w < n { grow(i + w) }
        }
        if holeFragments {
            // the fragments the holes led to are the subject's
            for e in stack { let j = Int(e); if o[j] != 0 { kk[Int(lab[j])] = 2 } }
        }
    }

    /// Step 5: surfaces touching the subject (or its holes) that lie in
    /// front of it or level across a hole, fragments, and the readings of a
    /// dark part amid the subject's holes are kept with it (`kk` 2).
    func keepTouching(_ maps: SubjectSegmentation.SurfaceMaps, _ boundary: [Int32], subjectArea: Int32) {
        let lab = maps.lab, o = maps.o, hs = maps.hs, hd = maps.hd
        let ar = maps.ar, adj = maps.adj, side = maps.side, kk = maps.kk, front = maps.front, cap = maps.cap, c = maps.c
        let farN = front + 3 * cap, farDiff = front + cap, farDepth = front + 2 * cap
        // surfaces touching the subject (or its holes): how often, and how
        // much nearer (negative = in front)
        for b in boundary {
            let i = Int(b), (y, x) = rows.split(i)
            let l = Int(lab[i])
            if kk[l] == 1 { continue }
            @inline(__always) func look(_ dx: Int, _ dy: Int) {
                let j = reach(x, y, dx, dy, maps)
                if j >= 0 { adj[l] += 1; front[l] += Float(o[i]) - Float(o[j]); return }
                let nx = x + dx, ny = y + dy
                if nx < 0 || nx >= w || ny < 0 || ny >= h { return }
                let q = ny * w + nx
                if o[q] != 0 || hs[q] == 0 { return }
                if hs[q] <= holeReach { adj[l] += 1; front[l] += Float(o[i]) - Float(hd[q]); return }
                farN[l] += 1; farDiff[l] += Float(o[i]) - Float(hd[q]); farDepth[l] += Float(o[i])
            }
            look(-1, 0); look(1, 0); look(0, -1); look(0, 1)
        }
        for k in 0..<c where kk[k] == 0 && adj[k] > 0 {
            // in front of the subject where they touch, or level with it across a hole
            let meanDiff = front[k] / Float(adj[k])
            if ar[k] <= fragment || (meanDiff < stepA && side[k] == 0 && ar[k] < subjectArea) { kk[k] = 2 }
        }
        if holeFragments {
            // the readings a dark, IR-absorbing part of the subject still
            // gives (a black binder held in front, a dark jumper, black
            // hair): a surface that touches only holes reached from the
            // subject, further in than `holeReach`, in front of the depth
            // they carry or level with it (less than `bodyStep` behind:
            // a held object is in front; the wall seen past the
            // subject is far behind) and with neither picture side, is
            // the subject's. (Written far, each such reading made
            // its whole row of holes an occlusion shadow in the refiner's
            // fill, and grew background into the rest.)
            // (within arm's reach in front: not a chair or a desk between
            // the camera and a subject walking metres behind it, across a
            // Kinect's holes of monitors and windows)
            let reachUnits = restoreReach / fscale
            for k in 0..<c where kk[k] == 0 && adj[k] == 0 && farN[k] > 0 && side[k] == 0 && ar[k] < subjectArea {
                let diff = farDiff[k] / farN[k], d = farDepth[k] / farN[k]
                if diff < bodyA + bodyB * d && diff > -reachUnits { kk[k] = 2 }
            }
        }
    }

    /// Step 5, fragments: those between two kept surfaces, and the pieces of
    /// a thin part touching a kept pixel corner to corner, are kept too.
    func keepFragments(_ maps: SubjectSegmentation.SurfaceMaps, _ boundary: [Int32], stack: inout [Int32]) {
        let lab = maps.lab, o = maps.o, ar = maps.ar, kk = maps.kk
        // fragments between two kept surfaces (flying pixels between a
        // forearm and the upper arm held in front) stay with them: two
        // passes reach across a 2-pixel band
        for _ in 0..<2 {
            for b in boundary {
                let i = Int(b), (y, x) = rows.split(i)
                let l = Int(lab[i])
                if kk[l] != 0 || ar[l] > fragment { continue }
                @inline(__always) func keptAt(_ j: Int) -> Bool { let m = lab[j]; return m >= 0 && kk[Int(m)] != 0 }
                if (x > 0 && keptAt(i - 1)) || (x < w - 1 && keptAt(i + 1)) || (y > 0 && keptAt(i - w)) || (y < h - 1 && keptAt(i + w)) {
                    kk[l] = 2
                }
            }
        }
        // a thin part broken into pieces (a rod or a cable one depth
        // pixel wide, sampled with gaps along a diagonal: pieces that
        // touch only corner to corner): a fragment touching a kept pixel,
        // also diagonally, at that pixel's depth (within `bodyStep`)
        // stays with it, piece after piece along the part. (Such pieces
        // have no 4-neighbour on another surface: not on `boundary`.)
        stack.removeAll(keepingCapacity: true)
        for i in 0..<n {
            let l = lab[i]
            if l >= 0 && kk[Int(l)] == 0 && ar[Int(l)] <= fragment { stack.append(Int32(i)) }
        }
        if !stack.isEmpty {
            for _ in 0..<64 {
                var grew = false
                for s in stack {
                    let i = Int(s), (y, x) = rows.split(i)
                    let l = Int(lab[i])
                    if kk[l] != 0 { continue }
                    let v = Float(o[i])
                    var near = false
                    for dy in -1...1 where y + dy >= 0 && y + dy < h {
                        for dx in -1...1 where (dx != 0 || dy != 0) && x + dx >= 0 && x + dx < w {
                            let j = i + dy * w + dx, m = lab[j]
                            if m >= 0 && Int(m) != l && kk[Int(m)] != 0 {
                                let u = Float(o[j])
                                if abs(v - u) < bodyA + bodyB * min(u, v) { near = true }
                            }
                        }
                    }
                    if near { kk[l] = 2; grew = true }
                }
                if !grew { break }
            }
        }
    }

    /// Step 6: the decision's labels: a kept near pixel gets its own depth
    /// back (not the sharpened one) and the label of that depth; every
    /// other near pixel is `leftOut`; the rest are unknown (no reading in
    /// the working copy) or background. Returns the kept count.
    func writeDecision(_ maps: SubjectSegmentation.SurfaceMaps) -> Int {
        let lab = maps.lab, o = maps.o, kk = maps.kk, original = maps.original, l = maps.decision
        let sharpened = rampSteps > 0
        let unknown = DepthLabel.unknown.rawValue, background = DepthLabel.background.rawValue
        let subject = DepthLabel.subject.rawValue, leftOut = SubjectSegmentation.leftOut
        var kept = 0
        // (eight pixels at a time where none is near: 0 < v <= limit is
        // v - 1 < limit in 16 bits, the limit clamped to 65535)
        let lim16 = SIMD8<UInt16>(repeating: UInt16(min(limit, 65535)))
        let none = SIMD8<UInt16>(repeating: 0)
        var start = 0
        while start < n {
            let end = min(start &+ 8, n)
            if end &- start == 8 {
                let v = UnsafeRawPointer(o + start).loadUnaligned(as: SIMD8<UInt16>.self)
                if !any(v &- 1 .< lim16) {
                    let labels = SIMD8<UInt16>(repeating: UInt16(background)).replacing(with: UInt16(unknown), where: v .== none)
                    UnsafeMutableRawPointer(l + start).storeBytes(of: SIMD8<UInt8>(truncatingIfNeeded: labels), as: SIMD8<UInt8>.self)
                    start = end; continue
                }
            }
            for i in start..<end {
                let v = o[i]
                if v == 0 { l[i] = unknown; continue }
                if UInt32(v) > limit { l[i] = background; continue }
                let c = Int(lab[i])
                if c >= 0 && kk[c] != 0 {
                    kept += 1
                    let d = sharpened ? original[i] : v
                    if sharpened { o[i] = d }
                    l[i] = d == 0 ? unknown : UInt32(d) <= limit ? subject : background
                } else { l[i] = leftOut }
            }
            start = end
        }
        return kept
    }
}
