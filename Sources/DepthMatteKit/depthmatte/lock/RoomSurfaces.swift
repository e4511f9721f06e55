// SPDX-License-Identifier: LGPL-2.1-or-later
/// Which surfaces of a frame (`DepthComponents`) are the room's own far
/// surface and which are bodies standing in front of it, from the depth
/// steps along their outlines.
///
/// A body (a person, a chair, a pillar) stands in front of what surrounds
/// it: across most of the clear depth steps on its outline the neighbour is
/// farther. A wall, the end of a corridor, a ring of a corridor's walls and
/// ceiling at one depth, is what the bodies stand in front of: across most
/// of its steps the neighbour is nearer (the bodies in front of it, the
/// nearer part of the corridor around it). The selfie model, made for people
/// near the camera, claims patches of such far surfaces (flags and posters
/// on a wall, a stretch of an empty corridor); with a person prior the lock
/// takes no room surface as a new subject (`NearestBodyFinder.find`), so a
/// claimed wall never wins over a man in front of it whom the model misses,
/// and an empty corridor holds no subject.
///
/// A surface that spans more depth than any body (`bodyDepth`) is the room
/// too, whatever its outline: a corridor's walls and the floor receding to
/// its end, with nothing standing in front of them, show no clear step at
/// all. So is one that covers more than any body (`bodyArea`): the wall of
/// an empty room facing the camera, the floor meeting it without a step.
/// So is a surface that stands in front of nothing (no more clear steps
/// in front than behind) and meets such a room surface without a clear
/// step, directly or through other such surfaces: the end wall of that
/// corridor, where the side walls reach it.
///
/// Only clear steps count (`clearSteps` surface jumps): a far sensor's
/// noisy wall breaks into pieces whose borders differ by about one jump,
/// front and behind at random; a body stands clearly in front of the wall
/// (a man 0.5 m before a wall at 4 m: 2.8 jumps). A surface without a clear
/// step on its outline that spans less than `bodyDepth` and covers less
/// than `bodyArea` (a close-up whose background has no reading: 0.1 m²) is
/// no room surface.
///
/// Cost: a pass over the surfaces' grid (about 160 x 90 cells), and a
/// second where a surface stands in front of nothing, only on frames with a
/// person prior (0.07 ms a frame with 640x360 depth); no allocation
/// once the surface count is stable.
struct RoomSurfaces {
    /// Surface jumps (`DepthStep.surfaceJump`) a depth step must reach to count.
    var clearSteps: Float = 2
    /// Share of a surface's clear steps that must have the farther side on
    /// it for it to be a room surface: it lies behind across at least as
    /// many steps as it stands in front.
    var roomShare = 0.5
    /// Metres of depth between a surface's nearest and farthest reading
    /// that no body spans: a standing man seen from above spans about his
    /// height, 1.8 m; a corridor's side wall from the camera to its end, 4 m.
    var bodyDepth: Float = 2.0
    /// Square metres a surface covers (each cell's reading over the focal
    /// length, squared) that no body covers: a man seen from the front
    /// covers about 0.9 (1.8 x 0.5 m), with his arms spread 3; a wall 4.6 m
    /// away across the picture's width, 14.
    var bodyArea: Float = 4.0
    /// Share of the grid the model must claim on room surfaces for its
    /// claim to count (`SubjectLock.claimsOnlyRoom`); less is speckle, as
    /// the fusion's smallest blob (`PersonFusion.Tuning.minBlob`).
    var claimArea = 0.001
    /// Per surface k of the last `measure`, at k, n + k, 2n + k and 3n + k
    /// (n surfaces): its outline contacts where it is the nearer side (in
    /// front), where it is the farther side (behind), its union-find parent
    /// among the surfaces that stand in front of nothing and meet without a
    /// clear step, and its room bits (bit 0 a room surface by its own
    /// outline, depth span or area, bit 1 by meeting one, bit 2 at a set's root:
    /// its set holds one; `isRoom`).
    private var tally: [Int32] = []
    /// Per surface k of the last `measure`, at k, n + k and 2n + k: its
    /// nearest and farthest reading (metres) and the area it covers (m²).
    private var span: [Float] = []
    private var surfaces = 0

    init() {}

    /// Tallies each surface's clear steps with its 4-neighbours on other
    /// surfaces and its nearest and farthest reading, then marks the room
    /// surfaces (`isRoom`).
    mutating func measure(_ c: DepthComponents) {
        let n = c.count
        surfaces = n
        tally.removeAll(keepingCapacity: true)
        tally.append(contentsOf: repeatElement(0, count: 4 * n))
        span.removeAll(keepingCapacity: true)
        span.append(contentsOf: repeatElement(.infinity, count: n))
        span.append(contentsOf: repeatElement(0, count: 2 * n))
        let w = c.width, h = c.height
        guard n > 0, w > 0, h > 0 else { return }
        let jump = DepthStep.surfaceJump, k = clearSteps
        let base = k * jump.base, gain = k * jump.gain
        let share = roomShare, deep = bodyDepth, wide = bodyArea
        let focal = c.camera.focal(w, h), perCell = 1 / (focal * focal)
        c.labels.withUnsafeBufferPointer { lp in
        c.depth.withUnsafeBufferPointer { dp in
        tally.withUnsafeMutableBufferPointer { tp in
        span.withUnsafeMutableBufferPointer { sp in
            let labels = lp.baseAddress!, depth = dp.baseAddress!
            let f = tp.baseAddress!, b = f + n, sets = UnionFind(parent: f + 2 * n), r = f + 3 * n
            let lo = sp.baseAddress!, hi = lo + n, covers = hi + n
            for l in 0..<n { sets.parent[l] = Int32(truncatingIfNeeded: l) }
            /// Calls `cell(i, l)` for each cell i on a surface l, and `body(a,
            /// o, clear, aNearer)` for each pair of 4-neighbours on different
            /// surfaces a and o.
            @inline(__always) func pairs(_ cell: (Int, Int) -> Void, _ body: (Int, Int, Bool, Bool) -> Void) {
                @inline(__always) func pair(_ a: Int32, _ i: Int, _ j: Int) {
                    let o = labels[j]
                    guard o >= 0, a != o else { return }
                    let di = depth[i], dj = depth[j]
                    body(Int(a), Int(o), abs(di - dj) >= base + gain * min(di, dj), di < dj)
                }
                for y in 0..<h {
                    let row = y * w
                    for x in 0..<w {
                        let i = row + x, a = labels[i]
                        guard a >= 0 else { continue }
                        cell(i, Int(a))
                        if x + 1 < w { pair(a, i, i + 1) }
                        if y + 1 < h { pair(a, i, i + w) }
                    }
                }
            }
            pairs({ i, l in
                let d = depth[i]
                if d < lo[l] { lo[l] = d }
                if d > hi[l] { hi[l] = d }
                covers[l] += d * d * perCell
            }, { a, o, clear, aNearer in
                guard clear else { return }
                if aNearer { f[a] += 1; b[o] += 1 } else { f[o] += 1; b[a] += 1 }
            })
            var meets = false
            for l in 0..<n {
                let behindShare = b[l] > 0 && Double(b[l]) >= share * Double(f[l] + b[l])
                if behindShare || hi[l] - lo[l] >= deep || covers[l] >= wide { r[l] = 1 } else if f[l] <= b[l] { meets = true }
            }
            // the surfaces in front of nothing that meet without a clear
            // step, joined: where one such set holds a room surface, all of
            // it is the room (the end wall, and the patches of floor and
            // wall beside it that meet the side walls only through it)
            guard meets else { return }
            pairs({ _, _ in }, { a, o, clear, _ in
                if !clear && f[a] <= b[a] && f[o] <= b[o] { sets.union(Int32(a), Int32(o)) }
            })
            for l in 0..<n where r[l] & 1 != 0 { r[Int(sets.find(Int32(l)))] |= 4 }
            for l in 0..<n where r[l] == 0 && f[l] <= b[l] && r[Int(sets.find(Int32(l)))] & 4 != 0 { r[l] = 2 }
        }}}}
    }

    /// Whether surface `k` of the last measured frame is the room's own
    /// surface: it lies behind across at least `roomShare` of its clear
    /// steps, or it spans `bodyDepth` or more, or covers `bodyArea` or
    /// more, or it stands in front of
    /// nothing and meets such a surface without a clear step (directly or
    /// through others that stand in front of nothing).
    func isRoom(_ k: Int) -> Bool { k >= 0 && k < surfaces && tally[3 * surfaces + k] != 0 }
}

extension SubjectLock {
    /// Whether the model's claim on this frame lies on the room's own
    /// surfaces only, and so sees no one: at least `RoomSurfaces.claimArea`
    /// of the grid is claimed on room surfaces (flags on a wall, a stretch
    /// of a corridor's wall), no other surface is seen as a person
    /// (`seen`: a claim under `seenShare` of a body is too weak to count),
    /// and the lock's subject is a body, not the room. Where the model sees
    /// no one, depth decides (`PersonFusion.floorEvidence`): a man standing
    /// still 3.5 m in front of a wall whose flags the model claims, whom it
    /// misses, is keyed as depth alone keys him. O(surfaces).
    var claimsOnlyRoom: Bool {
        guard !seenShares.isEmpty, let subject = seedComponent, !roomSurfaces.isRoom(subject) else { return false }
        let c = components
        var onRoom = 0.0
        for k in 0..<min(c.count, seenShares.count) where seenShares[k] > 0 {
            if roomSurfaces.isRoom(k) {
                onRoom += seenShares[k] * Double(c.area[k])
            } else if seen(k) {
                return false
            }
        }
        return onRoom >= roomSurfaces.claimArea * Double(c.width * c.height)
    }
}
