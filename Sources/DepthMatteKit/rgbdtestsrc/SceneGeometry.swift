// SPDX-License-Identifier: LGPL-2.1-or-later
/// The scene's objects as signed distances (metres, negative inside) in the
/// plane of each cut-out, their depth shading and their colours. Everything
/// per frame (pose, bounding boxes in ray coordinates) is computed once in
/// `SceneGeometry.init`; the per-pixel functions do arithmetic only.

/// Which piece of an object a point hit.
enum ScenePart: UInt8 {
    case none, head, neck, torso, hand, forearm, upperArm, pot, rim, stem, leaf, rod, binder
}

/// A signed distance to the nearest piece of one object, with what the colour
/// and depth functions need: the point in the object's own frame (metres) and
/// one extra number (the position along a limb, or a leaf's index).
struct SceneHit {
    var sd: Double
    var part: ScenePart
    var px: Double
    var py: Double
    var aux: Double
    static let miss = SceneHit(sd: .infinity, part: .none, px: 0, py: 0, aux: 0)
}

/// An RGB colour with components in 0...255.
struct SceneColor {
    var r: Double, g: Double, b: Double
    @inline(__always) init(_ r: Double, _ g: Double, _ b: Double) { self.r = r; self.g = g; self.b = b }
    @inline(__always) func scaled(_ k: Double) -> SceneColor { SceneColor(r * k, g * k, b * k) }
    /// self over `under` with coverage `a`.
    @inline(__always) func over(_ under: SceneColor, _ a: Double) -> SceneColor {
        SceneColor(under.r + (r - under.r) * a, under.g + (g - under.g) * a, under.b + (b - under.b) * a)
    }
}

// MARK: - distance functions

/// Approximate signed distance to an axis-aligned ellipse centred at the origin.
@inline(__always) func sceneEllipseSD(_ x: Double, _ y: Double, _ a: Double, _ b: Double) -> Double {
    let ia = 1 / a, ib = 1 / b
    let k0 = ((x * ia) * (x * ia) + (y * ib) * (y * ib)).squareRoot()
    let k1 = ((x * ia * ia) * (x * ia * ia) + (y * ib * ib) * (y * ib * ib)).squareRoot()
    if k1 < 1e-12 { return -(a < b ? a : b) }
    return k0 * (k0 - 1) / k1
}

/// Whether (x, y) is inside the axis-aligned ellipse with semi-axes a, b (no distance needed).
@inline(__always) func sceneInEllipse(_ x: Double, _ y: Double, _ a: Double, _ b: Double) -> Bool {
    let u = x * (1 / a), v = y * (1 / b)
    return u * u + v * v < 1
}

/// Signed distance to a box with half sizes (hx, hy) and corner radius r, centred at the origin.
@inline(__always) func sceneRoundBoxSD(_ x: Double, _ y: Double, _ hx: Double, _ hy: Double, _ r: Double) -> Double {
    let qx = abs(x) - hx + r, qy = abs(y) - hy + r
    let ox = qx > 0 ? qx : 0, oy = qy > 0 ? qy : 0
    let inside = qx > qy ? qx : qy
    return (ox * ox + oy * oy).squareRoot() + (inside < 0 ? inside : 0) - r
}

/// Distance from (x, y) to the segment a→b and the position h in [0, 1] of the nearest point.
@inline(__always) func sceneSegment(_ x: Double, _ y: Double, _ ax: Double, _ ay: Double,
                               _ bx: Double, _ by: Double) -> (d: Double, h: Double) {
    let px = x - ax, py = y - ay, dx = bx - ax, dy = by - ay
    var h = (px * dx + py * dy) / (dx * dx + dy * dy)
    h = h < 0 ? 0 : (h > 1 ? 1 : h)
    let ex = px - dx * h, ey = py - dy * h
    return ((ex * ex + ey * ey).squareRoot(), h)
}

/// Smooth minimum (polynomial, blend width k).
@inline(__always) func sceneSmin(_ a: Double, _ b: Double, _ k: Double) -> Double {
    let h = max(k - abs(a - b), 0) / k
    return min(a, b) - h * h * k * 0.25
}

/// floor(x) for |x| < 2^62 without a libm call (baseline x86-64 has no
/// rounding instruction, so `rounded(.down)` is a function call).
@inline(__always) func sceneFloor(_ x: Double) -> Double {
    let i = Double(Int(x))
    return i > x ? i - 1 : i
}

@inline(__always) func sceneFract(_ x: Double) -> Double { x - sceneFloor(x) }

/// A leaf of the plant: a segment from its base to its tip, widest in the
/// middle, with what the distance test needs precomputed.
struct SceneLeaf {
    let ax: Double, ay: Double, dx: Double, dy: Double, invLength2: Double
    /// Half width at the middle.
    let w: Double
    /// Bounding box (metres, in the plant plane).
    let x0: Double, x1: Double, y0: Double, y1: Double
    /// Depth offset from the plant plane, and colour tint.
    let dz: Double, tint: Double

    init(baseX: Double, baseY: Double, tipX: Double, tipY: Double, w: Double, dz: Double, tint: Double) {
        ax = baseX; ay = baseY; dx = tipX - baseX; dy = tipY - baseY
        invLength2 = 1 / (dx * dx + dy * dy)
        self.w = w
        x0 = min(baseX, tipX) - w; x1 = max(baseX, tipX) + w
        y0 = min(baseY, tipY) - w; y1 = max(baseY, tipY) + w
        self.dz = dz; self.tint = tint
    }

    /// Approximate signed distance (metres); `cull` when farther than `cull` from the bounding box.
    @inline(__always) func distance(_ x: Double, _ y: Double, cull: Double) -> Double {
        if x < x0 - cull || x > x1 + cull || y < y0 - cull || y > y1 + cull { return cull }
        let px = x - ax, py = y - ay
        var h = (px * dx + py * dy) * invLength2
        h = h < 0 ? 0 : (h > 1 ? 1 : h)
        let ex = px - dx * h, ey = py - dy * h
        let e2 = ex * ex + ey * ey
        if e2 > (w + cull) * (w + cull) { return cull }     // the taper is at most w
        return e2.squareRoot() - w * 4 * h * (1 - h)
    }
}

// MARK: - the scene at one instant

struct SceneGeometry {
    // pose
    let zs: Double, hx: Double, hy: Double, zHand: Double
    let handRaised: Bool, faceVisible: Bool
    /// The hand holds a thin rod up (`SceneKind.thinRod`).
    let rod: Bool
    /// A dark binder against the chest (`SceneKind.carryBinder`).
    let binder: Bool
    /// The torso leans back (`SceneKind.selfie`).
    let lean: Bool
    // bounding boxes in ray coordinates (x/z, y/z), without margins
    let bodyX0: Double, bodyX1: Double, bodyY0: Double
    let handX0: Double, handX1: Double, handY0: Double, handY1: Double
    let plantX0: Double, plantX1: Double, plantY0: Double
    /// The scene's chair, floor or door (none in the portrait).
    var extras: SceneExtras
    let plantOn: Bool
    var hasExtras: Bool { extras.kind != .portrait }

    // fixed shapes (metres)
    static let headA = SceneLayout.headHalfWidth, headB = SceneLayout.headHalfHeight
    static let torsoHalfWidth = 0.20
    /// Hand and arm in the hand plane, relative to the head centre.
    static let handCX = 0.19, handCY = -0.02, handA = 0.045, handB = 0.062
    static let wristX = 0.192, wristY = 0.035, elbowX = 0.25, elbowY = 0.36
    static let shoulderX = 0.15, shoulderY = 0.22
    static let forearmR = 0.033, upperArmR = 0.045
    /// The thin rod (`SceneKind.thinRod`): from the top of the hand up and a
    /// little outwards, 5 mm thick (about 4 video pixels at 1280x720 and
    /// 1.2 m: 2 depth pixels at 640x360, 1 at 320x180).
    static let rodX0 = handCX, rodY0 = handCY - handB + 0.01, rodX1 = handCX + 0.05, rodY1 = handCY - 0.42
    static let rodR = 0.0025
    /// The binder (`SceneKind.carryBinder`): centre, half width and half
    /// height in the face's plane, and its depth behind the face centre's
    /// (the torso's front is `SceneLayout.torsoBehind` behind it).
    static let binderX = 0.15, binderY = 0.47, binderA = 0.12, binderB = 0.16, binderBehind = 0.01
    /// Plant: absolute metres in its plane.
    static let plantX = -0.80
    /// Leaves growing from the stem (x = plantX): tip, base height, half
    /// width, depth offset, green tint.
    static let leaves: [SceneLeaf] = [
        (-1.08, -0.02, 0.30, 0.050, 0.06, 0.00),
        (-0.98, -0.26, 0.26, 0.045, 0.02, 0.15),
        (-0.82, -0.38, 0.22, 0.050, -0.04, 0.30),
        (-0.64, -0.24, 0.26, 0.045, -0.07, 0.10),
        (-0.52, 0.02, 0.30, 0.050, -0.02, 0.25),
        (-0.70, 0.12, 0.32, 0.040, 0.07, 0.05),
        (-0.93, 0.12, 0.32, 0.040, -0.06, 0.20),
    ].map { SceneLeaf(baseX: plantX, baseY: $0.2, tipX: $0.0, tipY: $0.1, w: $0.3, dz: $0.4, tint: $0.5) }

    init(pose: ScenePose, kind: SceneKind = .portrait) {
        extras = SceneExtras(kind: kind, subjectDepth: pose.subjectDepth)
        plantOn = kind.hasPlant
        zs = pose.subjectDepth; hx = pose.headX; hy = pose.headY
        zHand = zs - SceneLayout.handForward
        rod = kind == .thinRod
        binder = kind == .carryBinder
        lean = kind == .selfie
        handRaised = pose.handRaised || rod; faceVisible = pose.faceVisible
        let tw = Self.torsoHalfWidth
        bodyX0 = (hx - tw) / zs; bodyX1 = (hx + (binder ? Self.binderX + Self.binderA : tw)) / zs; bodyY0 = (hy - Self.headB) / zs
        handX0 = (hx + 0.10) / zHand; handX1 = (hx + 0.30) / zHand
        handY0 = (hy + (rod ? Self.rodY1 - Self.rodR : -0.085)) / zHand; handY1 = (hy + 0.41) / zHand
        let zd = SceneLayout.distractorDepth
        plantX0 = -1.15 / zd; plantX1 = -0.45 / zd; plantY0 = -0.43 / zd
    }

    @inline(__always) func inBody(_ x: Double, _ y: Double, _ m: Double) -> Bool {
        x > bodyX0 - m && x < bodyX1 + m && y > bodyY0 - m
    }
    @inline(__always) func inHand(_ x: Double, _ y: Double, _ m: Double) -> Bool {
        handRaised && x > handX0 - m && x < handX1 + m && y > handY0 - m && y < handY1 + m
    }
    @inline(__always) func inPlant(_ x: Double, _ y: Double, _ m: Double) -> Bool {
        plantOn && x > plantX0 - m && x < plantX1 + m && y > plantY0 - m
    }

    // MARK: shapes

    /// Head, neck and torso, cut out in the plane of the face centre.
    @inline(__always) func body(_ x: Double, _ y: Double) -> SceneHit {
        let rx = x * zs - hx, ry = y * zs - hy
        let sh = sceneEllipseSD(rx, ry, Self.headA, Self.headB)
        let sn = sceneRoundBoxSD(rx, ry - 0.14, 0.054, 0.06, 0.01)
        let st = sceneRoundBoxSD(rx, ry - 0.77, Self.torsoHalfWidth, 0.60, 0.11)
        let snt = sceneSmin(sn, st, 0.08)               // sloping trapezius
        if binder {
            let sb = sceneRoundBoxSD(rx - Self.binderX, ry - Self.binderY, Self.binderA, Self.binderB, 0.01)
            if sb < 0 || sb <= min(sh, snt) { return SceneHit(sd: min(sb, sh, snt), part: .binder, px: rx, py: ry, aux: 0) }
        }
        if sh <= snt { return SceneHit(sd: sh, part: .head, px: rx, py: ry, aux: 0) }
        return SceneHit(sd: snt, part: sn < st ? .neck : .torso, px: rx, py: ry, aux: 0)
    }

    /// The raised right hand with its arm, cut out in the hand's plane.
    @inline(__always) func hand(_ x: Double, _ y: Double) -> SceneHit {
        let rx = x * zHand - hx, ry = y * zHand - hy
        let sh = sceneEllipseSD(rx - Self.handCX, ry - Self.handCY, Self.handA, Self.handB)
        let f = sceneSegment(rx, ry, Self.wristX, Self.wristY, Self.elbowX, Self.elbowY)
        let sf = f.d - Self.forearmR
        let u = sceneSegment(rx, ry, Self.elbowX, Self.elbowY, Self.shoulderX, Self.shoulderY)
        let su = u.d - Self.upperArmR
        if rod {
            let sr = sceneSegment(rx, ry, Self.rodX0, Self.rodY0, Self.rodX1, Self.rodY1).d - Self.rodR
            if sr < sh && sr <= sf && sr <= su { return SceneHit(sd: sr, part: .rod, px: rx, py: ry, aux: 0) }
        }
        if sh <= sf && sh <= su { return SceneHit(sd: sh, part: .hand, px: rx, py: ry, aux: 0) }
        if sf <= su { return SceneHit(sd: min(sf, sh), part: .forearm, px: rx, py: ry, aux: f.h) }
        return SceneHit(sd: su, part: .upperArm, px: rx, py: ry, aux: u.h)
    }

    /// The potted plant, cut out in the distractor plane. Distances beyond
    /// `cull` metres may be reported as `cull`.
    @inline(__always) func plant(_ x: Double, _ y: Double, cull: Double) -> SceneHit {
        let zd = SceneLayout.distractorDepth
        let px = x * zd, py = y * zd
        let cx = px - Self.plantX
        var best = SceneHit(sd: cull, part: .none, px: px, py: py, aux: 0)
        if py > 0.36 - cull {
            let rim = sceneRoundBoxSD(cx, py - 0.385, 0.15, 0.025, 0.01)
            if rim < 0 { return SceneHit(sd: rim, part: .rim, px: px, py: py, aux: 0) }
            let pot = sceneRoundBoxSD(cx, py - 0.62, 0.13, 0.26, 0.02)
            if pot < 0 { return SceneHit(sd: pot, part: .pot, px: px, py: py, aux: 0) }
            best = SceneHit(sd: min(rim, pot), part: rim < pot ? .rim : .pot, px: px, py: py, aux: 0)
            // Leaves and stem end above y = 0.37: farther than `cull` from
            // here, so any answer >= cull is right.
            if py > 0.37 + cull { return best }
        }
        if abs(cx) < 0.012 + cull && py > 0.12 - cull {
            let stem = sceneSegment(px, py, Self.plantX, 0.36, Self.plantX, 0.12).d - 0.012
            if stem < best.sd { best = SceneHit(sd: stem, part: .stem, px: px, py: py, aux: 0) }
        }
        Self.leaves.withUnsafeBufferPointer { leaves in
            for i in 0..<leaves.count {
                let d = leaves[i].distance(px, py, cull: cull)
                if d < best.sd { best = SceneHit(sd: d, part: .leaf, px: px, py: py, aux: Double(i)) }
            }
        }
        return best
    }

    // MARK: depth

    /// Depth (metres) of the wall through ray x.
    @inline(__always) static func wallDepth(_ x: Double) -> Double {
        SceneLayout.wallDepth / (1 - SceneLayout.wallSlope * x)
    }

    @inline(__always) func bodyDepth(_ h: SceneHit) -> Double {
        switch h.part {
        case .head:
            let nx = h.px / Self.headA, ny = h.py / Self.headB
            return zs + SceneLayout.headRounding * min(nx * nx + ny * ny, 1)
        case .neck:
            return zs + 0.04
        case .binder:
            return zs + Self.binderBehind
        default:
            let n = h.px / Self.torsoHalfWidth
            let d = zs + SceneLayout.torsoBehind + 0.04 * min(n * n, 1)
            guard lean else { return d }
            // `selfie`: leaning back, nearer towards the bottom
            return d + SceneExtras.selfieBack - SceneExtras.selfieLean * max(0, h.py - SceneExtras.selfieLeanStart)
        }
    }

    @inline(__always) func handDepth(_ h: SceneHit) -> Double {
        switch h.part {
        case .hand:
            let nx = (h.px - Self.handCX) / Self.handA, ny = (h.py - Self.handCY) / Self.handB
            return zHand + 0.01 * min(nx * nx + ny * ny, 1)
        case .rod:
            return zHand
        case .forearm:
            return zs - 0.13 + 0.09 * h.aux        // wrist → elbow
        default:
            return zs - 0.04 + 0.08 * h.aux        // elbow → shoulder
        }
    }

    @inline(__always) func plantDepth(_ h: SceneHit) -> Double {
        let zd = SceneLayout.distractorDepth
        switch h.part {
        case .pot, .rim:
            let n = (h.px - Self.plantX) / 0.15
            return zd - 0.04 + 0.05 * min(n * n, 1)
        case .leaf:
            return zd + Self.leaves[Int(h.aux)].dz
        default:
            return zd
        }
    }

    /// The clean scene through ray (x, y): the nearest object whose outline
    /// contains the ray.
    func sample(_ x: Double, _ y: Double) -> SceneSample {
        if inHand(x, y, 0) {
            let h = hand(x, y)
            if h.sd < 0 { return SceneSample(object: h.part == .hand ? .hand : (h.part == .rod ? .thinPart : .arm), depth: handDepth(h)) }
        }
        if inBody(x, y, 0) {
            let b = body(x, y)
            if b.sd < 0 {
                // (the binder held against the chest counts as the torso)
                let o: SceneSample.Object = b.part == .head ? .head : (b.part == .neck ? .neck : .torso)
                return SceneSample(object: o, depth: bodyDepth(b))
            }
        }
        if hasExtras, let e = extras.hit(x, y, behind: Self.wallDepth(x)) {
            return SceneSample(object: .surface, depth: e.depth)
        }
        if inPlant(x, y, 0) {
            let p = plant(x, y, cull: 0.01)
            if p.sd < 0 { return SceneSample(object: .distractor, depth: plantDepth(p)) }
        }
        return SceneSample(object: .wall, depth: Self.wallDepth(x))
    }

    // MARK: colour

    static let skin = SceneColor(226, 178, 148)
    static let hair = SceneColor(62, 42, 30)
    static let shirt = SceneColor(40, 82, 172)

    @inline(__always) func hairColor(_ x: Double, _ y: Double) -> SceneColor {
        // fine strands: a faint ripple across the hair
        let s = sceneFract(x * 180 + y * 40)
        return Self.hair.scaled(0.85 + 0.3 * (s < 0.5 ? s : 1 - s))
    }

    /// Head (face or back of the head), neck, shirt.
    @inline(__always) func bodyColor(_ h: SceneHit) -> SceneColor {
        let x = h.px, y = h.py
        switch h.part {
        case .head:
            if !faceVisible { return hairColor(x, y) }
            let nx = x / Self.headA
            let hairline = -0.058 + 0.035 * nx * nx
            if y < hairline || (abs(x) > 0.066 && y < 0.025) { return hairColor(x, y) }
            let ex = abs(x) - 0.030
            // eyebrows
            if sceneInEllipse(ex, y + 0.030, 0.017, 0.0045) { return Self.hair }
            // eyes: white, iris, pupil
            if sceneInEllipse(ex, y + 0.010, 0.013, 0.0065) {
                let r2 = ex * ex + (y + 0.010) * (y + 0.010)
                if r2 < 0.0022 * 0.0022 { return SceneColor(15, 10, 10) }
                if r2 < 0.0055 * 0.0055 { return SceneColor(70, 110, 60) }
                return SceneColor(240, 240, 235)
            }
            // mouth
            if sceneInEllipse(x, y - 0.055, 0.024, 0.0075) { return SceneColor(172, 72, 78) }
            // nose shadow
            if sceneInEllipse(x + 0.004, y - 0.020, 0.007, 0.014) { return Self.skin.scaled(0.86) }
            // rounder towards the outline
            let ny = y / Self.headB
            let k2 = nx * nx + ny * ny
            return Self.skin.scaled(1 - 0.22 * k2 * k2)
        case .neck:
            return Self.skin.scaled(0.82)
        case .binder:
            // dark blue-grey plastic, a little lighter along its spine
            return SceneColor(30, 32, 40).scaled(abs(x - Self.binderX + Self.binderA) < 0.02 ? 1.4 : 1)
        default:
            let n = x / Self.torsoHalfWidth
            var c = Self.shirt.scaled(1 - 0.35 * min(n * n, 1))
            if !faceVisible { return c }                // the back of the shirt
            // V neck
            if abs(x) < (0.25 - y) * 0.55 { return Self.skin.scaled(0.82) }
            if abs(x) < (0.26 - y) * 0.55 { c = c.scaled(0.7) }
            // buttons
            if abs(x) < 0.006 && sceneFract(y * (1 / 0.09)) < 0.12 && y > 0.29 { c = SceneColor(225, 225, 230) }
            return c
        }
    }

    @inline(__always) func handColor(_ h: SceneHit) -> SceneColor {
        switch h.part {
        case .hand:
            let dx = h.px - Self.handCX + Self.handA, dy = h.py - Self.handCY
            // gaps between four fingers in the upper part
            if dy < -0.015 && sceneFract(dx / 0.0225) < 0.12 { return Self.skin.scaled(0.7) }
            return Self.skin.scaled(0.96)
        case .rod:
            return SceneColor(38, 38, 42)     // a black microphone boom
        case .forearm:
            return h.aux > 0.55 ? Self.shirt.scaled(0.9) : Self.skin.scaled(0.9)
        default:
            return Self.shirt.scaled(0.8)
        }
    }

    @inline(__always) func plantColor(_ h: SceneHit) -> SceneColor {
        switch h.part {
        case .pot:
            let n = (h.px - Self.plantX) / 0.13
            return SceneColor(182, 96, 58).scaled(1 - 0.3 * n * n)
        case .rim:
            return SceneColor(150, 76, 46)
        case .stem:
            return SceneColor(70, 100, 40)
        default:
            let t = Self.leaves[Int(h.aux)].tint
            return SceneColor(40 + 40 * t, 120 + 50 * t, 45)
        }
    }

    /// What the wall looks like along one vertical line (x metres in the wall
    /// plane): everything of the wall colour that does not depend on height.
    struct WallColumn {
        /// Wallpaper colour (stripes with their pinstripe).
        var paper: SceneColor
        /// Horizontal distance from the stripe centre (stripe widths), or -1
        /// in a stripe without the lozenge pattern.
        var lozengeX: Double
        var plankGap: Bool
        var plankPhase: Double
        var plankShade: Double
        /// 0 outside the poster, 1 on its left/right frame, 2 inside.
        var poster: UInt8
        /// Height of the poster's hills at this x.
        var hillTop: Double
        /// Squared horizontal distance from the sun's centre.
        var sunDX2: Double
    }

    @inline(__always) static func wallColumn(_ x: Double) -> WallColumn {
        // wallpaper: cream and sage stripes 0.16 m wide, a thin pinstripe
        let p = x * (1 / 0.16)
        let stripe = sceneFloor(p)
        let f = p - stripe
        let odd = sceneFract(stripe * 0.5) >= 0.25
        var paper = odd ? SceneColor(150, 182, 162) : SceneColor(224, 214, 182)
        if abs(f - 0.5) < 0.025 { paper = paper.scaled(0.82) }
        // panelling: planks 0.18 m wide with a dark gap
        let q = x * (1 / 0.18)
        let plank = sceneFloor(q)
        let pf = q - plank
        let tone = sceneFract(plank * 0.618)              // per-plank variation
        // poster between x = 0.50 and 1.00
        var poster: UInt8 = 0
        if x > 0.50 && x < 1.00 { poster = (x < 0.52 || x > 0.98) ? 1 : 2 }
        return WallColumn(paper: paper, lozengeX: odd ? -1 : abs(f - 0.5),
                          plankGap: pf < 0.04, plankPhase: pf * 0.7 + tone, plankShade: 0.85 + 0.1 * tone,
                          poster: poster,
                          hillTop: -0.30 + 0.08 * abs(sceneFract((x - 0.52) * (1 / 0.16)) - 0.5) * 2,
                          sunDX2: (x - 0.80) * (x - 0.80))
    }

    /// Papered wall with a dado rail, wood panelling below and a poster:
    /// the colour at height y (metres) of a wall column.
    @inline(__always) static func wallColor(_ c: WallColumn, _ y: Double) -> SceneColor {
        if y > 0.55 {
            if c.plankGap { return SceneColor(70, 45, 28) }
            let g = sceneFract(y * 9 + c.plankPhase)       // grain ripple
            return SceneColor(150, 100, 62).scaled(c.plankShade + 0.08 * (g < 0.5 ? g : 1 - g))
        }
        if y > 0.50 { return SceneColor(236, 232, 222) }   // dado rail
        if c.poster != 0 && y > -0.75 && y < -0.10 {
            if c.poster == 1 || y < -0.73 || y > -0.12 { return SceneColor(25, 25, 25) }
            // sunset: sky gradient, sun, hills
            if y > c.hillTop { return SceneColor(40, 40, 90) }
            let sy = y + 0.52
            if c.sunDX2 + sy * sy < 0.085 * 0.085 { return SceneColor(255, 215, 60) }
            let s = (y + 0.73) * (1 / 0.61)
            return SceneColor(250 - 140 * s, 150 - 90 * s, 60 + 90 * s)
        }
        // a faint lozenge in the cream stripes
        if c.lozengeX >= 0 {
            let d = c.lozengeX + abs(sceneFract(y * (1 / 0.16)) - 0.5)
            if d < 0.12 && d > 0.08 { return c.paper.scaled(0.9) }
        }
        return c.paper
    }

    /// The wall colour at (x, y) metres in the wall plane.
    @inline(__always) static func wallColor(_ x: Double, _ y: Double) -> SceneColor {
        wallColor(wallColumn(x), y)
    }
}
