// SPDX-License-Identifier: LGPL-2.1-or-later
/// The depth-only subject finder: the nearest large connected body.
///
/// A surface is a candidate when its distance-independent size
/// (`DepthComponents.physicalSize`: area fraction x depth²) reaches
/// `minSize` (a raised cup, a hand alone or a stray reading does not), when
/// it is not floor-like (reaching the bottom of the picture and receding
/// upwards), and when its top band lies within `depthRange`. Among the
/// candidates the one whose top band (a person's head) is nearest wins.
@_spi(Bench) public struct NearestBodyFinder: Equatable {
    /// Area fraction x depth² (m²·fraction): 0.02 is about a head and
    /// shoulders at any distance for a 60-90° camera; a 8 cm cup at 0.6 m is
    /// about 0.005.
    var minSize = 0.02
    /// Fraction of the picture a candidate covers at least: a
    /// head and shoulders at the far end of `depthRange` still cover about
    /// 0.5 %; pieces of a floor 4-5 m away that holes and a far sensor's
    /// quantisation steps cut apart (a few grid cells) reach `minSize` by
    /// their depth alone and were taken for the subject in an empty room
    /// (quality-bench "leaveRight, 2.5 m": the floor keyed after the subject left).
    var minArea = 0.002
    /// Metres: bodies nearer or farther than this are ignored.
    var depthRange = 0.25...6.0
    /// Metres of upward recession that makes a surface touching the bottom a floor.
    var floorRise = 0.25

    @_spi(Bench) public init() {}

    /// Whether surface `k` can be the subject. A surface that `moved` into
    /// view is no door jamb, however it touches a side: a person entering
    /// at the picture's edge.
    @_spi(Bench) public func accepts(_ c: DepthComponents, _ k: Int, moved: Bool = false) -> Bool {
        accepts(c, k, moved: moved, minSize: minSize)
    }

    private func accepts(_ c: DepthComponents, _ k: Int, moved: Bool, minSize: Double) -> Bool {
        c.physicalSize(k) >= minSize && c.areaFraction(k) >= minArea && depthRange.contains(c.headDepth(k))
            && !c.isFloorLike(k, rise: floorRise) && !c.isFloorPiece(k)
            && (moved || !c.isEdgeSlab(k)) && !c.isBackdrop(k)
    }

    /// Whether surface `k`, which moved into view, is another person or a
    /// part of one: as `accepts`, but a quarter of `minSize` is enough (a
    /// head and shoulders leaving at the bottom of the picture, most of the
    /// body already out of view).
    func acceptsMover(_ c: DepthComponents, _ k: Int) -> Bool {
        accepts(c, k, moved: true, minSize: minSize / 4)
    }

    /// Share of another mover's physical size under which a mover that
    /// reaches a side of the picture is a fragment (`isSideFragment`).
    var fragmentShare = 0.25
    /// How many times farther than a fragment the whole body may be.
    var fragmentReach = 2.0

    /// Whether surface `k` is what shows of a body mostly outside the
    /// picture beside a whole one, `other`: it reaches the picture's left or
    /// right side, it is under `fragmentShare` of `other`'s physical size,
    /// and `other`'s head is at most `fragmentReach` times as far. In an
    /// office seen from a corner, the arm and chair of someone seated at the
    /// picture's edge shift, and so moved into view, 0.5 m nearer than a man
    /// walking through the room; the nearest-first rule followed them and
    /// the man, five times their size, stayed beyond the cutoff. The reach
    /// keeps a person close up at the side, whose head alone shows, from
    /// losing to a patch at the back of the room that its distance makes
    /// physically larger.
    func isSideFragment(_ c: DepthComponents, _ k: Int, beside other: Int) -> Bool {
        c.sideTouch[k] != 0 && c.physicalSize(k) < fragmentShare * c.physicalSize(other)
            && c.headDepth(other) <= fragmentReach * c.headDepth(k)
    }

    /// The subject surface and its head depth (metres), nil when no surface
    /// qualifies. With `room`, a surface that moved into view (`RoomDepth`)
    /// wins over any that did not; then, with a person prior (`seen`: the
    /// surfaces the model sees as a person), a surface it sees wins over one
    /// it does not (the man, not the pillar nearer than him); then the
    /// nearest. Among those that moved, a fragment at the picture's side
    /// beside another that moved (`isSideFragment`) comes after the others.
    /// With `roomSurface` (`RoomSurfaces.isRoom`, under a person prior), a
    /// surface that never moved and is the room's own far surface is no
    /// subject: the model's claim on a wall does not win over the man in
    /// front of it, and an empty corridor holds none.
    func find(_ c: DepthComponents, room: RoomDepth? = nil, seen: ((Int) -> Bool)? = nil,
              roomSurface: ((Int) -> Bool)? = nil) -> (component: Int, headDepth: Double)? {
        // the lowest rank wins: moved first, then seen, then no fragment, then nearest
        var best: (k: Int, rank: (Int, Int, Int, Double))? = nil
        for k in 0..<c.count {
            let m = room?.moved(k) ?? false
            guard accepts(c, k, moved: m), m || roomSurface?(k) != true else { continue }
            // (the cheap tests first: a fragment is rare, and this runs per frame)
            let f = m && c.sideTouch[k] != 0 && (0..<c.count).contains { o in
                o != k && room?.moved(o) == true && isSideFragment(c, k, beside: o) && accepts(c, o, moved: true)
            }
            let d = c.headDepth(k)
            let rank = (m ? 0 : 1, seen?(k) == false ? 1 : 0, f ? 1 : 0, d)
            if let b = best, b.rank <= rank { continue }
            best = (k, rank)
        }
        return best.map { (component: $0.k, headDepth: $0.rank.3) }
    }
}
