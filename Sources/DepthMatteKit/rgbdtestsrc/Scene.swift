// SPDX-License-Identifier: LGPL-2.1-or-later
/// A deterministic synthetic RGB-D scene for `rgbdtestsrc`: a person (head,
/// neck, shoulders, sometimes a raised hand) in front of a plant and a
/// papered wall, seen by one pinhole camera. Colour, registered depth and the
/// ground-truth matte are all functions of (settings, time, output size) only,
/// so three independent renders of the same time line up exactly.
///
/// Coordinates. The camera sits at the origin looking along +z; x is right,
/// y is down, all in metres. A picture of any size samples the scene at its
/// pixel centres in normalized image coordinates `u, v` in [0, 1], so every
/// resolution shows the same field of view (depth at a quarter of the colour
/// resolution is registered to it). The view is designed for 16:9; other
/// aspect ratios stretch it.
///
/// The scene is layered (2.5D): each object is a flat cut-out in a plane of
/// constant depth for its outline, with its own depth shading for the depth
/// map. Depth artefacts (noise, holes, flying pixels, misregistration) are
/// applied only to the depth render and are hash-based: no global RNG.
import DMContract

/// What `rgbdtestsrc`'s properties say about the scene (read from the
/// shim's copy of them, `init(_:)`), plus a few knobs of the kit's own for
/// quality-bench, which no property sets.
public struct SceneSettings: Equatable {
    /// Seed of every pseudo-random artefact.
    @_spi(Bench) public var seed: UInt32
    /// Metres per depth unit written (0.001 = millimetres).
    var depthScale: Double
    /// Depth noise with sigma = `SceneLayout.noiseCoefficient` * d² (metres).
    @_spi(Bench) public var noise: Bool
    /// Zero-valued holes: occlusion shadows, random clusters, hair.
    @_spi(Bench) public var holes: Bool
    /// Intermediate depths on depth edges.
    @_spi(Bench) public var flyingPixels: Bool
    /// Depth content shifted right by this many depth pixels against colour.
    @_spi(Bench) public var misregistration: Int
    /// false: the scene is frozen at its t = 0 state (sensor noise still varies).
    @_spi(Bench) public var motion: Bool
    /// A face printed on the poster behind the subject, reported as a face
    /// (first in meta order), plus a one-frame stray box on the plant every
    /// 1.7 s: what a real face detector adds.
    @_spi(Bench) public var falseFace: Bool
    /// The subject's face is not reported while covered (a hand, a cup):
    /// `t mod 8` in [2.8, 4.6), which spans a step in depth.
    @_spi(Bench) public var faceCover: Bool
    /// false: no face is reported at all (no face detector upstream).
    @_spi(Bench) public var faceMeta: Bool
    /// Which scene (SceneExtras.swift): the portrait, or one with a chair
    /// back, a sloping floor, a door frame, a subject walking in (also
    /// carrying a dark binder), holding a thin rod, or an arm's-length
    /// selfie.
    @_spi(Bench) public var scene: SceneKind
    /// Depth in disparity steps: z is rounded to steps of
    /// `SceneLayout.quantization` · z² (2.8 mm at 1 m, 2.2 cm at 2.8 m).
    @_spi(Bench) public var quantization: Bool
    /// Depth noise correlated over patches of about 4 depth pixels (as a
    /// structured-light sensor's), plus a smaller independent part.
    @_spi(Bench) public var correlatedNoise: Bool
    /// The camera pans slowly to the right: the view turns by
    /// `SceneLayout.panSpeed` ray units (x/z) per second of stream time,
    /// about 0.6 px per frame of 640 px at 30 fps (a sub-pixel pan at
    /// depth resolution).
    @_spi(Bench) public var pan: Bool
    /// Depth as a filtered map (SceneFilter.swift): holes filled and every
    /// step smoothed into a ramp, three box passes of radius width / 320
    /// (at least 1) over the rendered map (with a calibration: over the
    /// colour camera's view before the depth camera's is formed).
    @_spi(Bench) public var filtered: Bool
    /// The whole world scaled by this factor in depth (kit only, for
    /// quality-bench): the pictures, the truth and the face boxes are the
    /// same (a scaled world projects identically), the depth readings are
    /// this many times farther, and the noise and quantisation are those of
    /// the farther depth (2.5: the subject at 2.5 m, where the disparity
    /// steps are 1.75 cm). The occlusion shadows keep their width.
    @_spi(Bench) public var distanceScale = 1.0
    /// Square pixels at any aspect ratio (rgbdtestsrc `square-pixels`): the
    /// vertical field of view stays the 16:9 picture's, the horizontal one
    /// follows the picture's width (a 4:3 picture sees the central three
    /// quarters of the 16:9 scene, a 3:4 portrait the central 42 %, upright
    /// and unsqueezed: a phone's portrait). Off, a picture of any shape shows
    /// the whole 16:9 scene (squeezed or stretched).
    @_spi(Bench) public var squarePixels: Bool
    /// With `flyingPixels` (kit only, for quality-bench): a reading within a
    /// sample offset of an outline is not a mix but either side's depth, a
    /// new draw every frame, biased towards the near side (a structured-light
    /// or stereo correlation window straddling the edge: the edge jitters by
    /// a depth pixel from frame to frame and is fattened).
    @_spi(Bench) public var edgeJitter = false
    /// With `holes` (kit only, for quality-bench): the share of an
    /// IR-absorbing surface's depth pixels (scene=carry-binder's binder)
    /// that have no reading; the rest are fragments amid the holes.
    @_spi(Bench) public var absorbedShare = 0.9

    /// The element's properties (rgbdtestsrc_properties.def); `stream`,
    /// `is-live` and `calibration` are the shim's, not the scene's.
    public init(_ c: DMRGBDTestSrcSettings) {
        seed = c.seed
        depthScale = c.depth_scale
        noise = c.noise != 0
        holes = c.holes != 0
        flyingPixels = c.flying_pixels != 0
        misregistration = Int(c.misregistration)
        motion = c.motion != 0
        falseFace = c.false_face != 0
        faceCover = c.face_cover != 0
        faceMeta = c.face_meta != 0
        scene = SceneKind(property: c.scene)
        quantization = c.quantization != 0
        correlatedNoise = c.correlated_noise != 0
        pan = c.pan != 0
        filtered = c.filtered != 0
        squarePixels = c.square_pixels != 0
    }
}

/// Fixed dimensions of the scene, in metres unless noted.
enum SceneLayout {
    /// Focal length in units of the picture width (70° horizontal field of view).
    static let focalX = 0.714
    /// Focal length in units of the picture height (square pixels at 16:9).
    static let focalY = 0.714 * 16.0 / 9.0

    /// Wall depth on the optical axis; the wall is turned slightly, so its
    /// depth runs from about 2.6 m (left edge) to 3.05 m (right edge).
    static let wallDepth = 2.8
    /// The wall plane is z = wallDepth + wallSlope * x (x in metres).
    static let wallSlope = 0.12
    /// Plant (the distractor): plane depth of its outline; leaves lie within
    /// ±0.08 m of it.
    static let distractorDepth = 1.9
    /// Nearest and farthest depth any part of the plant has.
    static let distractorDepthRange = 1.82...1.98

    /// Head ellipse semi-axes.
    static let headHalfWidth = 0.08
    static let headHalfHeight = 0.112
    /// Head depth grows by this much from the face centre to the head outline.
    static let headRounding = 0.05
    /// The torso is this much behind the face centre (plus rounding to the sides).
    static let torsoBehind = 0.05
    /// The raised hand is this much in front of the face centre.
    static let handForward = 0.15
    /// Nearest and farthest face-centre depth the subject takes over time.
    static let subjectDepthRange = 0.85...1.35

    /// Depth noise sigma = noiseCoefficient * d² (1.5 mm at 1 m, 6 mm at 2 m).
    static let noiseCoefficient = 0.0015
    /// Disparity step: depth steps of quantization * d² (a Kinect-like sensor).
    static let quantization = 0.0028
    /// `SceneSettings.pan`: ray units (x/z) per second.
    static let panSpeed = 0.025
    /// Projector-camera baseline of the simulated structured-light sensor; the
    /// projector is to the right, so occlusion shadows fall left of near objects.
    static let baseline = 0.075

    /// Ray direction (x/z, y/z) of a normalized image position.
    @inline(__always)
    static func ray(u: Double, v: Double) -> (x: Double, y: Double) {
        ((u - 0.5) / focalX, (v - 0.5) / focalY)
    }
    /// Normalized image position of a point (metres, camera frame).
    @inline(__always)
    static func project(x: Double, y: Double, z: Double) -> (u: Double, v: Double) {
        (0.5 + focalX * x / z, 0.5 + focalY * y / z)
    }
}

/// Where the subject is at one instant.
@_spi(Bench) public struct ScenePose: Equatable {
    /// Metres: depth of the face centre (the nearest point of the head).
    @_spi(Bench) public var subjectDepth: Double
    /// Metres: the head centre (camera frame, x right, y down).
    var headX: Double
    var headY: Double
    /// The right hand is raised beside the face, `SceneLayout.handForward` nearer.
    var handRaised: Bool
    /// false while the subject has turned away (the head shows only hair).
    var faceVisible: Bool

    /// Face-centre depths, held 4 s each (20 s cycle), with a 0.6 s smooth move
    /// to the next at the end of each hold.
    static let depthSteps: [Double] = [1.00, 1.25, 0.85, 1.35, 1.10]
    /// The hand is up for t mod 12 in [5, 9).
    static let handWindow = (period: 12.0, start: 5.0, end: 9.0)
    /// The face is turned away for t mod 15 in [12, 13.2).
    static let turnedAwayWindow = (period: 15.0, start: 12.0, end: 13.2)
    /// With `SceneSettings.faceCover`, the face is not reported for t mod 8
    /// in [2.8, 4.6): the depth steps at t = 3.4-4.0 and 11.4-12.0 happen meanwhile.
    static let coverWindow = (period: 8.0, start: 2.8, end: 4.6)

    /// The pose at `t` seconds (negative times are t = 0). The subject sways
    /// ±0.10 m left/right (7 s period), bobs ±0.01 m and steps nearer/farther.
    static func at(_ t: Double) -> ScenePose {
        let t = t > 0 ? t : 0
        let steps = depthSteps
        let hold = 4.0, move = 0.6
        let seg = (t / hold).rounded(.down)
        let local = t - seg * hold
        let k = Int(seg.truncatingRemainder(dividingBy: Double(steps.count)))
        var z = steps[k]
        if local > hold - move {
            z += (steps[(k + 1) % steps.count] - z) * sceneSmoothstep((local - (hold - move)) / move)
        }
        let hx = 0.10 * sceneWave(t / 7.0)
        let hy = -0.08 + 0.01 * sceneWave(t / 3.1 + 0.25)
        let hw = handWindow, tw = turnedAwayWindow
        let hp = t.truncatingRemainder(dividingBy: hw.period)
        let tp = t.truncatingRemainder(dividingBy: tw.period)
        return ScenePose(subjectDepth: z, headX: hx, headY: hy,
                         handRaised: hp >= hw.start && hp < hw.end,
                         faceVisible: !(tp >= tw.start && tp < tw.end))
    }
}

/// What the scene shows through one image position (clean, no artefacts).
@_spi(Bench) public struct SceneSample: Equatable {
    /// `surface`: a scene's chair back, floor or door frame (SceneExtras.swift).
    /// (`thinPart`: the rod of `SceneKind.thinRod`.)
    @_spi(Bench) public enum Object: Equatable { case wall, distractor, head, neck, torso, hand, arm, thinPart, surface }
    @_spi(Bench) public var object: Object
    /// Metres along the optical axis.
    var depth: Double
    /// The object belongs to the subject (part of the ground-truth matte).
    var isSubject: Bool {
        switch object {
        case .head, .neck, .torso, .hand, .arm, .thinPart: return true
        case .wall, .distractor, .surface: return false
        }
    }
}

/// The scene at one instant, ready to render pictures of any size.
public struct RGBDScene {
    let settings: SceneSettings
    /// Seconds of stream time asked for.
    let time: Double
    /// The subject's pose (at t = 0 when `settings.motion` is false).
    @_spi(Bench) public let pose: ScenePose
    private(set) var geo: SceneGeometry
    /// Ray units (x/z) the view has turned right (`SceneSettings.pan`).
    let panOffset: Double

    /// A non-finite `time` is taken as 0 (the element passes PTS seconds,
    /// always finite; the depth artefacts key on Int64(time * 1000)).
    public init(settings: SceneSettings, time: Double) {
        self.settings = settings
        let time = time.isFinite ? time : 0
        self.time = time
        var pose = ScenePose.at(settings.motion ? time : 0)
        if settings.scene.walks {
            pose.subjectDepth = 1.2
            pose.headX = SceneExtras.enterX(settings.motion ? time : 0)
            pose.handRaised = false
        }
        if settings.scene == .selfie {
            // still, facing the camera, the head high in the picture
            pose = ScenePose(subjectDepth: SceneExtras.selfieDepth, headX: 0, headY: SceneExtras.selfieHeadY,
                             handRaised: false, faceVisible: true)
        }
        self.pose = pose
        geo = SceneGeometry(pose: pose, kind: settings.scene)
        panOffset = settings.pan ? SceneLayout.panSpeed * (time > 0 ? time : 0) : 0
    }

    /// The head's bounding box in pixels of a `width` x `height` picture,
    /// clipped to it; nil when the face is turned away or outside the picture.
    @_spi(Bench) public func faceBox(width: Int, height: Int) -> Box? {
        guard pose.faceVisible, width > 0, height > 0 else { return nil }
        let z = pose.subjectDepth
        let a = SceneLayout.headHalfWidth, b = SceneLayout.headHalfHeight
        return pixelBox(pose.headX - a, pose.headY - b, z, pose.headX + a, pose.headY + b, z, width, height)
    }

    /// The scene as a `width` x `height` picture shows it: with
    /// `squarePixels`, a picture narrower than 16:9 sees less of the scene,
    /// and the door jamb moves to its left edge (it is the edge's).
    func fitted(_ width: Int, _ height: Int) -> RGBDScene? {
        guard settings.squarePixels, settings.scene.hasDoor, width > 0, height > 0 else { return nil }
        let edge = SceneExtras.doorEdge(leftRay: -0.5 / focalX(width, height))
        if edge == geo.extras.doorX1 { return nil }
        var s = self
        s.geo.extras.doorX1 = edge
        return s
    }

    /// Focal length in units of a `width` x `height` picture's width
    /// (`squarePixels`).
    @inline(__always) func focalX(_ width: Int, _ height: Int) -> Double {
        settings.squarePixels ? SceneLayout.focalY * Double(height) / Double(width) : SceneLayout.focalX
    }

    /// The box (pixels of a `width` x `height` picture, clipped to it) from
    /// the projection of (x0, y0, z0) to that of (x1, y1, z1); nil when empty.
    func pixelBox(_ x0: Double, _ y0: Double, _ z0: Double, _ x1: Double, _ y1: Double, _ z1: Double,
                  _ width: Int, _ height: Int) -> Box? {
        let p0 = project(x: x0, y: y0, z: z0), p1 = project(x: x1, y: y1, z: z1)
        // the 16:9 picture's u to this picture's
        let k = focalX(width, height) / SceneLayout.focalX
        let u0 = 0.5 + (p0.u - 0.5) * k, u1 = 0.5 + (p1.u - 0.5) * k
        let bx0 = max(0, Int((u0 * Double(width)).rounded(.down)))
        let by0 = max(0, Int((p0.v * Double(height)).rounded(.down)))
        let bx1 = min(width, Int((u1 * Double(width)).rounded(.up)))
        let by1 = min(height, Int((p1.v * Double(height)).rounded(.up)))
        return bx1 > bx0 && by1 > by0 ? Box(x: bx0, y: by0, width: bx1 - bx0, height: by1 - by0) : nil
    }

    /// The face on the poster (wall-plane metres): centre and semi-axes,
    /// about life size, so its box has a head's size for its depth.
    static let posterFace = (x: 0.75, y: -0.42, a: 0.085, b: 0.115)

    /// Whether the subject's face is covered at this time (`faceCover`).
    var faceCovered: Bool {
        guard settings.faceCover else { return false }
        let w = ScenePose.coverWindow
        let p = (settings.motion ? max(time, 0) : 0).truncatingRemainder(dividingBy: w.period)
        return p >= w.start && p < w.end
    }

    /// The face boxes a face detector would report on this frame, in meta
    /// order: with `falseFace` the poster face first (and a stray box on the
    /// plant on one frame every 1.7 s), then the subject's face unless it is
    /// turned away or covered. Empty when `faceMeta` is false.
    public func detectedFaces(width: Int, height: Int) -> [Box] {
        guard settings.faceMeta, width > 0, height > 0 else { return [] }
        var out: [Box] = []
        func box(_ x0: Double, _ y0: Double, _ z0: Double, _ x1: Double, _ y1: Double, _ z1: Double) -> Box? {
            pixelBox(x0, y0, z0, x1, y1, z1, width, height)
        }
        if settings.falseFace {
            let f = Self.posterFace
            let wz = { (x: Double) in SceneLayout.wallDepth + SceneLayout.wallSlope * x }
            if let b = box(f.x - f.a, f.y - f.b, wz(f.x - f.a), f.x + f.a, f.y + f.b, wz(f.x + f.a)) { out.append(b) }
            // a stray detection in the leaves, one frame in every 1.7 s
            if time.truncatingRemainder(dividingBy: 1.7) < 1.0 / 30 {
                let z = SceneLayout.distractorDepth
                if let b = box(-0.86, -0.18, z, -0.80, -0.12, z) { out.append(b) }
            }
        }
        if !faceCovered, let b = faceBox(width: width, height: height) { out.append(b) }
        return out
    }

    /// Normalized image position of a point, with the pan.
    @inline(__always) func project(x: Double, y: Double, z: Double) -> (u: Double, v: Double) {
        SceneLayout.project(x: x - panOffset * z, y: y, z: z)
    }

    /// The clean scene at a normalized image position (of the 16:9 picture).
    func sample(u: Double, v: Double) -> SceneSample {
        let r = SceneLayout.ray(u: u, v: v)
        return geo.sample(r.x + panOffset, r.y)
    }
    /// The clean scene at the centre of pixel (x, y) of a `width` x `height`
    /// picture (`squarePixels` taken into account).
    @_spi(Bench) public func sample(x: Int, y: Int, width: Int, height: Int) -> SceneSample {
        if let f = fitted(width, height) { return f.sample(x: x, y: y, width: width, height: height) }
        return geo.sample(rayX(x, width, height) + panOffset, Self.rayY(y, height))
    }
}

@inline(__always) func sceneSmoothstep(_ x: Double) -> Double {
    let c = x < 0 ? 0 : (x > 1 ? 1 : x)
    return c * c * (3 - 2 * c)
}

/// A smooth periodic wave in [-1, 1] with period 1 and sceneWave(0) = 0, close
/// to sin(2πp) (a smoothed triangle wave; no libm needed).
@inline(__always) func sceneWave(_ p: Double) -> Double {
    let f = p - p.rounded(.down)                  // [0, 1)
    // triangle: 0 at 0, 1 at 0.25, 0 at 0.5, -1 at 0.75
    let tri = f < 0.25 ? 4 * f : (f < 0.75 ? 2 - 4 * f : 4 * f - 4)
    return tri * (1.5 - 0.5 * tri * tri)
}
