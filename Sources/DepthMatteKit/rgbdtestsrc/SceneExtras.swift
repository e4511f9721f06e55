// SPDX-License-Identifier: LGPL-2.1-or-later
/// The scenes beyond the portrait: surfaces that are nearer than
/// the cutoff without being the subject, and a subject walking in at the
/// picture's edge. Each is a layer behind the subject (and its hand) and in
/// front of the plant and the wall; none of it is in the ground-truth matte.

/// Which scene `rgbdtestsrc` draws (`scene` property).
@_spi(Bench) public enum SceneKind: Int32, CaseIterable, Sendable {
    /// The head-and-shoulders portrait (the default; unchanged).
    case portrait = 0
    /// A chair back rising behind the shoulders, 0.16 m behind the face
    /// (nearer than the default cutoff of face + 0.25 m).
    case chair = 1
    /// A floor seen by a camera pitched 30° down, meeting the torso's sides in
    /// depth at the bottom of the picture and receding to the wall (no plant).
    case slopingFloor = 2
    /// A door jamb along the picture's left edge at 1.0 m (nearer than the
    /// cutoff at every subject depth).
    case doorFrame = 3
    /// The subject walks in from the left edge (0–4 s of a 10 s cycle),
    /// stands (4–6 s) and walks out on the right (6–10 s), at 1.2 m, over
    /// the sloping floor; no raised hand.
    case enterLeft = 4
    /// The portrait with the hand raised all the time, holding a thin rod
    /// (5 mm, a cable or a thin boom) up from it: a part of the subject one
    /// or two depth pixels wide, in front of the wall.
    case thinRod = 5
    /// The walk of `enterLeft`, carrying a dark binder against the right
    /// side of the chest, sticking out past the torso: a part of the
    /// subject that absorbs a structured-light or time-of-flight sensor's
    /// infrared (with `holes`, 90 % of its depth pixels have no reading;
    /// the rest are fragments amid the holes).
    case carryBinder = 6
    /// An arm's-length selfie, for an upright 3:4 picture with square
    /// pixels: the subject still, the head high in the picture, the torso
    /// leaning back (its depth falls towards the bottom edge: floor-like to
    /// a slope test, and nearer than the face there) and filling the bottom
    /// edge from side to side; a chair back behind, beside the head and the
    /// neck. No raised hand. The depth reads as a phone's at arm's length
    /// (the face at 0.33 m: `SceneExtras.selfieReadings`).
    case selfie = 7
}

extension SceneKind {
    var hasChair: Bool { self == .chair || self == .selfie }
    var hasFloor: Bool { self == .slopingFloor || walks }
    /// The subject walks across (`enterLeft`'s pose).
    var walks: Bool { self == .enterLeft || self == .carryBinder }
    var hasDoor: Bool { self == .doorFrame }
    /// The plant stands where the floor would cut through it: left out with a floor.
    var hasPlant: Bool { !hasFloor }
}

/// Scene-specific layers at one instant (all in ray units x/z, y/z).
struct SceneExtras {
    let kind: SceneKind
    /// Chair plane depth, half width and top (metres in its plane).
    let chairZ: Double
    static let chairHalfWidth = 0.30, chairTop = -0.02
    /// Floor plane y·cos θ + z·sin θ = floorH (camera frame), θ = 30°.
    let floorH: Double
    static let floorCos = 0.8660254, floorSin = 0.5
    /// Door jamb: depth, width, and right edge (ray x): `doorWidth` inside
    /// the picture's left edge (the 16:9 picture's unless `RGBDScene.fitted`
    /// moves it to a narrower square-pixel picture's).
    static let doorZ = 1.0, doorWidth = 0.10
    var doorX1 = SceneExtras.doorEdge(leftRay: -0.5 / SceneLayout.focalX)
    static func doorEdge(leftRay: Double) -> Double { leftRay + doorWidth / doorZ }

    init(kind: SceneKind, subjectDepth zs: Double) {
        self.kind = kind
        // (a selfie's chair back is behind the sitter's leaning torso)
        chairZ = zs + (kind == .selfie ? 0.22 : 0.16)
        // the floor meets the torso's sides (zs + 0.09) at the bottom row, 1 cm behind them
        let bottomY = 0.5 / SceneLayout.focalY
        floorH = (zs + 0.10) * (bottomY * Self.floorCos + Self.floorSin)
    }

    /// Floor depth through ray y, or nil above the horizon.
    @inline(__always) func floorDepth(_ y: Double) -> Double? {
        let k = y * Self.floorCos + Self.floorSin
        return k > 1e-6 ? floorH / k : nil
    }

    /// The nearest extra layer through ray (x, y) that is nearer than
    /// `behind` (the depth of what lies behind it): its depth and the signed
    /// distance (ray units, negative inside) of its outline, nil if none.
    @inline(__always) func hit(_ x: Double, _ y: Double, behind: Double) -> (depth: Double, sd: Double, part: UInt8)? {
        if kind.hasChair {
            let cx = x * chairZ, cy = y * chairZ
            // a rounded slab from its top to below the picture
            let sd = sceneRoundBoxSD(cx, cy - (Self.chairTop + 1.0), Self.chairHalfWidth, 1.0, 0.06) / chairZ
            if sd < 0 {
                let n = cx / Self.chairHalfWidth
                return (chairZ + 0.03 * n * n, sd, 1)
            }
        }
        if kind.hasDoor && x < doorX1 {
            let n = (doorX1 - x) * Self.doorZ / Self.doorWidth   // 0 at its inner edge, 1 at the picture edge
            return (Self.doorZ + 0.01 * (n < 0.2 ? 1 - 5 * n : 0), x - doorX1, 2)
        }
        if kind.hasFloor, let z = floorDepth(y), z < behind {
            return (z, -1, 3)
        }
        return nil
    }

    /// The chair's, the door's and the floor's colours.
    @inline(__always) func color(_ x: Double, _ y: Double, part: UInt8, depth z: Double) -> SceneColor {
        switch part {
        case 1:
            // dark red upholstery with vertical seams
            let cx = x * chairZ
            let seam = abs(sceneFract(cx * (1 / 0.15)) - 0.5) < 0.04
            return SceneColor(128, 34, 40).scaled(seam ? 0.7 : 1)
        case 2:
            // painted wood, a shadow line at the inner edge
            return x > doorX1 - 0.012 ? SceneColor(150, 148, 140) : SceneColor(232, 229, 220)
        default:
            // carpet: grey-brown, a faint check in floor metres
            let fx = x * z, fz = z
            let check = (sceneFract(fx * (1 / 0.25)) < 0.5) != (sceneFract(fz * (1 / 0.25)) < 0.5)
            return SceneColor(118, 104, 92).scaled(check ? 0.92 : 1)
        }
    }

    /// `selfie`: the face centre's depth and the head centre's height (y
    /// down). At the scene camera's 43° vertical field of view the head
    /// then spans 10-58 % of the picture's height, as a phone's wider front
    /// camera frames a face at arm's length (the TrueDepth selfie: 20-70 %
    /// at 0.33 m).
    static let selfieDepth = 0.6, selfieHeadY = -0.075
    /// `selfie`: its depth readings are scaled by this (as
    /// `SceneSettings.distanceScale` scales the world, on top of it): the
    /// face reads 0.33 m, as the TrueDepth selfie's; the pictures, the truth
    /// and the face box stay those of the scene at `selfieDepth`.
    static let selfieReadings = 0.55
    /// `selfie`: the torso sits `selfieBack` further back than the
    /// portrait's and, below `selfieLeanStart` (metres under the head
    /// centre: the torso's top), comes nearer by `selfieLean` metres per
    /// metre downwards: from 1.15 times the face's depth at the collar to
    /// 0.92 times at the bottom edge (the TrueDepth selfie: 0.40 m and
    /// 0.315 m for a face at 0.33 m, 1.2 and 0.95 times).
    static let selfieLean = 1.3, selfieLeanStart = 0.17, selfieBack = 0.07

    /// The enter-left walk: head x (metres) at time t.
    static func enterX(_ t: Double) -> Double {
        let p = (t > 0 ? t : 0).truncatingRemainder(dividingBy: 10)
        if p < 4 { return -1.05 + 0.30 * p }
        if p < 6 { return 0.15 }
        return 0.15 + 0.30 * (p - 6)
    }
}
