// SPDX-License-Identifier: LGPL-2.1-or-later
/// docs/quality.md step 2, refine=guided, sub-step 2.2: a dark part the
/// subject carries that the sensor cannot read at all (`heldParts`).
///
/// A black binder held against the chest can absorb the infrared entirely:
/// no fragment of it is left to tell the segmentation or the fill that it is
/// there, and where it sticks out past the subject its dark colour is nearer
/// a dark floor than the subject's clothes. In one frame nothing tells it
/// from a pocket of holes behind the subject (a black screen, a window, the
/// wall between two leaves): both are holes mostly bordered by the subject.
/// Motion does: the part's far edge, where it meets the room's readings,
/// moves with the subject; a pocket's stays where it is.
extension MatteRefiner {
    /// Per-pixel state between frames: the luma of each depth cell where it
    /// was last measured and when, and when a pixel was last taken as a held
    /// part (frame numbers: a stamp of `frame - 1` is last frame's; `reset()`
    /// moves `frame` on by two, so nothing is last frame's after a flush).
    struct HeldPartState {
        var luma: [Float] = [], measured: [UInt32] = [], taken: [UInt32] = []
        var frame: UInt32 = 1
        var count = 0
        /// Sized for `n` pixels: all stamps stale after a change of size.
        mutating func reserve(_ n: Int) {
            if count == n { return }
            count = n
            luma = [Float](repeating: 0, count: n)
            measured = [UInt32](repeating: 0, count: n)
            taken = [UInt32](repeating: 0, count: n)
        }
    }

    /// 2.2 (`heldParts`), on the three-state `label` after the shadow runs
    /// became readings: each component of holes (4-connected) of at least
    /// `heldPartArea` of the map whose border is at least `heldPartShare`
    /// subject readings becomes subject readings when
    /// - at least half of it was taken last frame (the subject stopped), or
    /// - it is an object of its own that moved: its mean luma differs from
    ///   that of the background readings next to it by `heldPartContrast`
    ///   or more (a pocket of wall or floor seen between a moving arm and
    ///   the body has the room's colours), and of its holes next to
    ///   background readings and those readings, at least
    ///   `heldPartMotion` changed their luma by more than `heldPartChange`
    ///   since the last frame, and at least `heldPartRatio` times the share
    ///   of the room around it that did (background readings with no hole
    ///   within 2 px, in its box grown by `heldPartMargin`): a pan or a
    ///   change of light moves the room too.
    /// `visited` (a byte per pixel) and `members` (an Int32 per pixel) are
    /// scratch. Returns the number of pixels taken.
    @discardableResult
    mutating func takeHeldParts(label: UnsafeMutablePointer<UInt8>, width w: Int, height h: Int, video: RGBImageView,
                                visited: UnsafeMutablePointer<UInt8>, members: UnsafeMutablePointer<Int32>) -> Int {
        let n = w * h
        held.reserve(n)
        held.frame &+= 1
        let now = held.frame, last = now &- 1
        let unknown = DepthLabel.unknown.rawValue, subject = DepthLabel.subject.rawValue
        let minArea = max(16, Int(tuning.heldPartArea * Float(n)))
        for i in 0..<n { visited[i] = 0 }
        var takenPixels = 0
        for start in 0..<n where label[start] == unknown && visited[start] == 0 {
            // the component, breadth first (`members` holds it)
            let (area, nS, nB, x0, x1, y0, y1) = Self.holeComponent(from: start, label: label, width: w, height: h,
                                                                  visited: visited, members: members)
            defer { for m in 0..<area { visited[Int(members[m])] = 1 } }
            guard area >= minArea, nS > 0, Float(nS) >= tuning.heldPartShare * Float(nS + nB) else { continue }
            var before = 0
            for m in 0..<area where held.taken[Int(members[m])] == last { before += 1 }
            var take = 2 * before >= area
            // the luma of the box grown by the margin, measured now; where it
            // was measured last frame too, whether it moved (bits 4 and 8 of
            // `visited` until the box is done)
            let gx0 = max(0, x0 - tuning.heldPartMargin), gx1 = min(w - 1, x1 + tuning.heldPartMargin)
            let gy0 = max(0, y0 - tuning.heldPartMargin), gy1 = min(h - 1, y1 + tuning.heldPartMargin)
            measureLuma(video, gx0, gx1, gy0, gy1, width: w, height: h, visited: visited, now: now, last: last)
            if !take {
                take = edgeMoved(label: label, visited: visited, members: members, area: area,
                                 gx0, gx1, gy0, gy1, width: w, height: h)
            }
            for y in gy0...gy1 { for x in gx0...gx1 { visited[y * w + x] &= 3 } }
            if take {
                for m in 0..<area {
                    let i = Int(members[m])
                    label[i] = subject; held.taken[i] = now
                }
                takenPixels += area
            }
        }
        return takenPixels
    }

    /// A component of holes, breadth first from `start` (`members` is the
    /// queue and ends holding its pixels; `visited` 2 marks them): its area,
    /// its subject and background neighbour counts, and its box.
    @inline(__always)
    private static func holeComponent(from start: Int, label: UnsafeMutablePointer<UInt8>, width w: Int, height h: Int,
                                      visited: UnsafeMutablePointer<UInt8>, members: UnsafeMutablePointer<Int32>)
        -> (area: Int, nS: Int, nB: Int, x0: Int, x1: Int, y0: Int, y1: Int) {
        let unknown = DepthLabel.unknown.rawValue, subject = DepthLabel.subject.rawValue
        var head = 0, tail = 1
        // (`visited`: 2 for this component's holes while it is looked
        // at, 1 for those of components done)
        members[0] = Int32(start); visited[start] = 2
        var nS = 0, nB = 0
        var x0 = w, x1 = 0, y0 = h, y1 = 0
        while head < tail {
            let i = Int(members[head]); head += 1
            let x = i % w, y = i / w
            x0 = min(x0, x); x1 = max(x1, x); y0 = min(y0, y); y1 = max(y1, y)
            @inline(__always) func look(_ j: Int) {
                let v = label[j]
                if v == unknown {
                    if visited[j] == 0 { visited[j] = 2; members[tail] = Int32(j); tail += 1 }
                } else if v == subject { nS += 1 } else { nB += 1 }
            }
            if x > 0 { look(i - 1) }
            if x + 1 < w { look(i + 1) }
            if y > 0 { look(i - w) }
            if y + 1 < h { look(i + w) }
        }
        return (tail, nS, nB, x0, x1, y0, y1)
    }

    /// The cell luma over the box gx0...gx1 x gy0...gy1 into `held.luma`,
    /// measured now; where it was measured last frame too, whether it moved
    /// (bits 4 and 8 of `visited` until the box is done).
    private mutating func measureLuma(_ video: RGBImageView, _ gx0: Int, _ gx1: Int, _ gy0: Int, _ gy1: Int,
                                      width w: Int, height h: Int, visited: UnsafeMutablePointer<UInt8>,
                                      now: UInt32, last: UInt32) {
        let change = tuning.heldPartChange
        for y in gy0...gy1 {
            for x in gx0...gx1 {
                let i = y * w + x
                let l = MatteRefiner.cellLuma(video, x: x, y: y, width: w, height: h)
                if held.measured[i] == last {
                    visited[i] |= 4
                    if abs(l - held.luma[i]) > change { visited[i] |= 8 }
                }
                held.luma[i] = l; held.measured[i] = now
            }
        }
    }

    /// Whether the component (`members` ..< `area`, `visited` 2) moved
    /// with its edge to the room and apart from the room itself (see
    /// `takeHeldParts`), over its box gx0...gx1 x gy0...gy1.
    private func edgeMoved(label: UnsafeMutablePointer<UInt8>, visited: UnsafeMutablePointer<UInt8>,
                           members: UnsafeMutablePointer<Int32>, area: Int,
                           _ gx0: Int, _ gx1: Int, _ gy0: Int, _ gy1: Int, width w: Int, height h: Int) -> Bool {
        let unknown = DepthLabel.unknown.rawValue, background = DepthLabel.background.rawValue
        var take = false
        // its edge to the room: its holes next to background readings
        // and those readings; the room: background readings with no
        // hole within 2 px; and the mean luma of the component and of
        // the readings next to it
        var edge = 0, edgeMoved = 0, room = 0, roomMoved = 0
        var lumaIn: Float = 0, lumaOut: Float = 0, nOut = 0
        for m in 0..<area { lumaIn += held.luma[Int(members[m])] }
        for y in gy0...gy1 {
            for x in gx0...gx1 {
                let i = y * w + x
                let v = label[i], f = visited[i], had = f & 4 != 0, moved = f & 8 != 0
                if v == unknown {
                    if had && f & 3 == 2 && nextTo(label, i, x, y, w, h, background) {
                        edge += 1; if moved { edgeMoved += 1 }
                    }
                } else if v == background {
                    if (x > 0 && visited[i - 1] & 3 == 2) || (x + 1 < w && visited[i + 1] & 3 == 2)
                        || (y > 0 && visited[i - w] & 3 == 2) || (y + 1 < h && visited[i + w] & 3 == 2) {
                        lumaOut += held.luma[i]; nOut += 1
                        if had { edge += 1; if moved { edgeMoved += 1 } }
                    } else if had && !holeWithin(label, x, y, w, h, 2) {
                        room += 1; if moved { roomMoved += 1 }
                    }
                }
            }
        }
        // (a pocket of wall or floor seen between an arm and the body
        // has the room's colours; a carried part, its own)
        let apart = nOut > 0 && abs(lumaIn / Float(area) - lumaOut / Float(nOut)) >= tuning.heldPartContrast
        if edge >= 4 && apart {
            let fEdge = Float(edgeMoved) / Float(edge), fRoom = room > 0 ? Float(roomMoved) / Float(room) : 0
            take = fEdge >= tuning.heldPartMotion && fEdge >= tuning.heldPartRatio * fRoom
        }
        return take
    }

    /// The mean luma ((R + 2G + B) / 4, 0-1) of the video under depth cell (x, y).
    @inline(__always) static func cellLuma(_ v: RGBImageView, x: Int, y: Int, width w: Int, height h: Int) -> Float {
        let vx0 = x * v.width / w, vx1 = max(vx0 + 1, (x + 1) * v.width / w)
        let vy0 = y * v.height / h, vy1 = max(vy0 + 1, (y + 1) * v.height / h)
        var sum = 0, count = 0
        for yy in vy0..<min(vy1, v.height) {
            var p = v.row(yy) + vx0 * v.pixelStride
            for _ in vx0..<min(vx1, v.width) {
                sum += Int(p[v.r]) + 2 * Int(p[v.g]) + Int(p[v.b])
                count += 1
                p += v.pixelStride
            }
        }
        return Float(sum) / Float(max(count, 1) * 4 * 255)
    }

    /// Whether a 4-neighbour of pixel i (at x, y) has `value`.
    @inline(__always) private func nextTo(_ label: UnsafeMutablePointer<UInt8>, _ i: Int, _ x: Int, _ y: Int,
                                          _ w: Int, _ h: Int, _ value: UInt8) -> Bool {
        (x > 0 && label[i - 1] == value) || (x + 1 < w && label[i + 1] == value)
            || (y > 0 && label[i - w] == value) || (y + 1 < h && label[i + w] == value)
    }

    /// Whether a hole lies within `r` pixels (a square) of (x, y).
    @inline(__always) private func holeWithin(_ label: UnsafeMutablePointer<UInt8>, _ x: Int, _ y: Int,
                                              _ w: Int, _ h: Int, _ r: Int) -> Bool {
        for yy in max(0, y - r)...min(h - 1, y + r) {
            for xx in max(0, x - r)...min(w - 1, x + r) where label[yy * w + xx] == DepthLabel.unknown.rawValue { return true }
        }
        return false
    }
}
