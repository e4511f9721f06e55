// SPDX-License-Identifier: LGPL-2.1-or-later
/// What the depth-only lock knows of the room: per cell of the surfaces'
/// grid (`DepthComponents`), the farthest reading seen since the last reset.
///
/// A fixed camera sees people only in front of the room: where a person
/// walked, the room behind them was read at some time, so a surface nearer
/// than the room's farthest reading by more than `margin` has appeared or
/// moved there (a person walking in, away or about), while a table, a
/// chair or a cupboard that has stood still since the start has not. The
/// lock (`SubjectLock`, `mode=nearest` and the face lock's depth-only
/// fallback) prefers a body that moved to a nearer one that never did: in a
/// lab seen from above, the man walking to the door and not the chair back
/// in front of the camera. On the first frames nothing has moved yet and
/// the nearest body wins as before; a moving camera makes whole surfaces
/// "moved", which changes nothing as long as they all do.
struct RoomDepth {
    /// Farther than the room's reading by less than this is the room.
    var margin = DepthStep(base: 0.15, gain: 0.04)
    /// Share of a surface's cells in front of the room that makes it a mover.
    var moverShare = 0.3
    /// Per cell: the farthest reading (metres), 0 = none yet.
    private var far: [Float] = []
    /// Per surface of the last `measure`: the share of its cells in front of the room.
    private(set) var movedShare: [Double] = []
    private var counts: [Int32] = []
    /// Per cell of the last `measure`: 1 where the reading is in front of the room.
    private var moving: [UInt8] = []

    init() {}

    mutating func reset() { far.removeAll(keepingCapacity: true) }

    /// Measures each surface of `c` against the room, then adds this frame's
    /// readings to the room (farthest wins).
    mutating func measure(_ c: DepthComponents) {
        let n = c.width * c.height
        if far.count != n { far = [Float](repeating: 0, count: n) }
        if moving.count != n { moving = [UInt8](repeating: 0, count: n) }
        // (zeroed in place: a frame's surfaces allocate nothing once the
        // arrays have room for them)
        movedShare.removeAll(keepingCapacity: true)
        movedShare.append(contentsOf: repeatElement(0, count: c.count))
        counts.removeAll(keepingCapacity: true)
        counts.append(contentsOf: repeatElement(0, count: c.count))
        guard n > 0 else { return }
        let margin = margin
        c.labels.withUnsafeBufferPointer { lp in
        c.depth.withUnsafeBufferPointer { dp in
        far.withUnsafeMutableBufferPointer { fp in
        moving.withUnsafeMutableBufferPointer { mp in
        counts.withUnsafeMutableBufferPointer { cp in
        movedShare.withUnsafeMutableBufferPointer { sp in
            let labels = lp.baseAddress!, depth = dp.baseAddress!, far = fp.baseAddress!
            let moving = mp.baseAddress!
            // (a labelled cell means at least one surface: the per-surface planes are not empty)
            let counts = cp.baseAddress, share = sp.baseAddress
            // (a surface's cells counted per run of it in scan order: no
            // store and load of the same count per cell)
            var runSurface = -1, runCells: Int32 = 0
            for i in 0..<n {
                moving[i] = 0
                let k = Int(labels[i]), d = depth[i]
                guard k >= 0, d > 0 else { continue }
                if k == runSurface {
                    runCells &+= 1
                } else {
                    if runSurface >= 0 { counts.unsafelyUnwrapped[runSurface] += runCells }
                    runSurface = k; runCells = 1
                }
                if far[i] > 0 && d < far[i] - margin.at(far[i]) { share.unsafelyUnwrapped[k] += 1; moving[i] = 1 }
            }
            if runSurface >= 0 { counts.unsafelyUnwrapped[runSurface] += runCells }
            for k in 0..<c.count where cp[k] > 0 { sp[k] /= Double(cp[k]) }
            for i in 0..<n where depth[i] > far[i] { far[i] = depth[i] }
        }}}}}}
    }

    /// Whether grid cell `i` of the last measured frame is in front of the room.
    func movedCell(_ i: Int) -> Bool { i >= 0 && i < moving.count && moving[i] != 0 }

    /// Whether surface `k` of the last measured frame has moved into view.
    func moved(_ k: Int) -> Bool { k >= 0 && k < movedShare.count && movedShare[k] >= moverShare }
}
