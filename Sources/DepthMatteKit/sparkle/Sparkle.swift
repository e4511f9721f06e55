// SPDX-License-Identifier: LGPL-2.1-or-later
/// The "vampire in sunlight" effect: a brightness meter drives how many small
/// four-pointed glints twinkle on the picture.
///
/// Per frame (`SparkleEffect.process`):
/// 1. If a reading is due (`MeasureSchedule`, stream time), measure the input
///    frame's brightness (`BrightnessMeter`) before anything is drawn.
/// 2. Map the latest reading to a target number of live glints
///    (`SparkleMapping.target`), retire glints whose life is over, retire the
///    oldest ones while there are more than the target, and spawn new ones at
///    positions from a seeded generator until the target is reached.
/// 3. Draw every live glint, adding its colour to R, G, B (saturating at 255).
///    On formats with alpha, only pixels whose alpha is above 0.5 (> 127) are
///    touched, new glints are placed on such pixels, and alpha is never written.
///
/// Everything is deterministic given the seed and the frames' stream times,
/// and nothing allocates per frame (the glint list grows only when
/// `maxSparkles` grows).
import DMContract

/// The element's settings as the kit sees them (read from the shim's copy
/// of its properties once per frame, `init(_:)`).
public struct SparkleSettings: Equatable {
    var measure: BrightnessMeasure
    /// Grid step of the meter in pixels (1 = every pixel).
    @_spi(Bench) public var gridStep: Int
    /// Stream time between readings, ns; 0 = every frame.
    @_spi(Bench) public var interval: Int64
    /// false: pure meter, the frame is never written.
    var draw: Bool
    /// Live glints at full brightness.
    var maxSparkles: Int
    /// Brightness (0...1) at or below which no glints live.
    @_spi(Bench) public var threshold: Double
    /// Mean glint arm length as a fraction of the frame's shorter side.
    @_spi(Bench) public var size: Double
    /// Mean glint life in ns of stream time.
    var life: Int64
    /// Glint colour 0xAARRGGBB; AA scales the strength (0xFF = full).
    var colorARGB: UInt32
    /// Seed of the position / size / life generator.
    var seed: UInt32

    /// The element's properties (sparkle_properties.def); `post-messages`
    /// is the shim's. A grid step below 1 reads as 1, a life below 1 ns as
    /// 1 ns, a negative glint count as none.
    public init(_ c: DMSparkleSettings) {
        measure = BrightnessMeasure(property: c.measure)
        gridStep = Int(max(1, c.grid_step))
        interval = Int64(clamping: c.interval)
        draw = c.draw != 0
        maxSparkles = Int(max(0, c.max_sparkles))
        threshold = c.threshold
        size = c.size
        life = max(1, Int64(clamping: c.life))
        colorARGB = c.color_argb
        seed = c.seed
    }
}

/// What happened on one frame.
public struct SparkleResult: Equatable {
    /// A new brightness reading was taken on this frame.
    public var measured: Bool
    /// The latest reading, 0...1.
    public var brightness: Double
    /// Glints live after this frame (drawn when `draw` is set).
    public var sparkles: Int
    /// The target count for the latest reading.
    public var target: Int
}

enum SparkleMapping {
    /// Target number of live glints for a brightness reading:
    ///
    ///     round(maxSparkles · clamp((brightness − threshold) / (1 − threshold), 0, 1))
    ///
    /// (round half away from zero). None at or below the threshold, all of
    /// them at brightness 1, linear in between. With threshold ≥ 1 the
    /// target is maxSparkles at brightness ≥ 1 and 0 otherwise.
    static func target(brightness: Double, maxSparkles: Int, threshold: Double) -> Int {
        let m = max(0, maxSparkles)
        let f: Double
        if threshold >= 1 {
            f = brightness >= 1 ? 1 : 0
        } else {
            f = min(1, max(0, (brightness - threshold) / (1 - threshold)))
        }
        return Int((Double(m) * f).rounded(.toNearestOrAwayFromZero))
    }
}

/// SplitMix64: a small, fast, well-mixed deterministic generator.
@_spi(Bench) public struct SplitMix64 {
    @usableFromInline var state: UInt64
    @_spi(Bench) public init(seed: UInt64) { state = seed }
    @inlinable @_spi(Bench) public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    /// Uniform in [0, 1).
    mutating func unit() -> Double { Double(next() >> 11) * (1.0 / 9_007_199_254_740_992.0) }
    /// Uniform in 0..<n (n > 0).
    mutating func below(_ n: Int) -> Int { Int(next() % UInt64(n)) }
}

/// One glint: a four-pointed star centred on a pixel.
struct Glint: Equatable {
    var x: Int
    var y: Int
    /// Stream time of birth, ns.
    var birth: Int64
    /// Life, ns (> 0).
    var life: Int64
    /// Arm length at the peak, pixels.
    var length: Double

    init(x: Int, y: Int, birth: Int64, life: Int64, length: Double) {
        self.x = x; self.y = y; self.birth = birth; self.life = life; self.length = length
    }

    /// Fraction of the life spent at stream time t (0 at birth, 1 at death).
    func phase(at t: Int64) -> Double { Double(t &- birth) / Double(life) }

    /// Twinkle envelope 4p(1 − p) at phase p: 0 at birth, grows to 1 at half
    /// life, fades to 0 at death.
    static func envelope(_ p: Double) -> Double {
        p <= 0 || p >= 1 ? 0 : 4 * p * (1 - p)
    }

    /// Adds the glint at envelope `env` to `image`: colour (r, g, b, each
    /// 0...255 already scaled by the strength) times the glint's shape.
    ///
    /// Shape, with L = length · (0.35 + 0.65 · env) the current arm length:
    /// two arms (horizontal, vertical) of weight (1 − d/L)² along the arm,
    /// 2w + 1 pixels thick (w = max(1, L/10)) with a linear fall-off across,
    /// and a round core of radius max(1, L/5) with weight 1 − r²/rc²; the
    /// pixel gets env · max(of the three) · colour, saturating at 255.
    /// Pixels outside the picture are clipped; with alpha, only pixels with
    /// alpha > 127 are touched and alpha is left as it is.
    func draw(into image: RGBImageView, envelope env: Double, r cr: Float, g cg: Float, b cb: Float) {
        guard env > 0 else { return }
        let lt = length * (0.35 + 0.65 * env)
        let reach = Int(lt)
        guard reach >= 0 else { return }
        let w = max(1, Int(lt / 10))
        let rc = max(1.0, lt / 5)
        let coreReach = Int(rc)
        let invL = Float(1 / max(lt, 1e-6))
        let invW = Float(1) / Float(w + 1)
        let invRc2 = Float(1 / (rc * rc))
        let e = Float(env)
        let ps = image.pixelStride, ro = image.r, go = image.g, bo = image.b, ao = image.a
        let gated = ao >= 0
        let y0 = max(-reach, -y), y1 = min(reach, image.height - 1 - y)
        if y0 > y1 { return }
        for dy in y0...y1 {
            let ady = abs(dy)
            // Only the horizontal arm reaches past the core and the vertical
            // arm's thickness, so other rows are short.
            let span = ady <= w ? reach : (ady <= coreReach ? max(w, coreReach) : w)
            let x0 = max(-span, -x), x1 = min(span, image.width - 1 - x)
            if x0 > x1 { continue }
            let row = image.row(y + dy)
            let fdy = Float(ady)
            // horizontal arm weight across (depends on dy only)
            let hAcross: Float = ady <= w ? 1 - fdy * invW : 0
            // vertical arm weight along (depends on dy only)
            let vAlongT = 1 - fdy * invL
            let vAlong: Float = vAlongT > 0 ? vAlongT * vAlongT : 0
            for dx in x0...x1 {
                let adx = abs(dx)
                let fdx = Float(adx)
                var g: Float = 0
                if hAcross > 0 {
                    let t = 1 - fdx * invL
                    if t > 0 { g = t * t * hAcross }
                }
                if adx <= w && vAlong > 0 {
                    let v = vAlong * (1 - fdx * invW)
                    if v > g { g = v }
                }
                let r2 = Float(dx * dx + dy * dy) * invRc2
                if r2 < 1 { let c = 1 - r2; if c > g { g = c } }
                if g <= 0 { continue }
                let p = row + (x + dx) * ps
                if gated && p[ao] <= 127 { continue }
                let k = g * e
                p[ro] = Glint.addSat(p[ro], k * cr)
                p[go] = Glint.addSat(p[go], k * cg)
                p[bo] = Glint.addSat(p[bo], k * cb)
            }
        }
    }

    @inline(__always)
    static func addSat(_ v: UInt8, _ add: Float) -> UInt8 {
        let s = Int(v) + Int(add + 0.5)
        return s >= 255 ? 255 : UInt8(s)
    }
}

/// The per-element effect state: schedule, latest reading, generator, glints.
public final class SparkleEffect {
    private(set) var schedule = MeasureSchedule()
    /// The latest reading (0 before the first).
    private(set) var brightness: Double = 0
    private(set) var glints: [Glint] = []
    var rng = SplitMix64(seed: 0)
    var seed: UInt32? = nil
    var lastTime: Int64? = nil

    /// How many random positions a new glint tries to land on alpha > 0.5; one
    /// that misses them all is not placed this frame (and retried on the next).
    static let placementTries = 16
    /// Frame duration assumed when frames have neither timestamps nor a rate.
    static let fallbackFrameDuration: Int64 = 33_333_333

    public init() { glints.reserveCapacity(64) }

    /// Back to the state of a new element (on flush and READY): the first
    /// frame after this is measured and the generator restarts from the seed.
    public func reset() {
        schedule.reset()
        brightness = 0
        glints.removeAll(keepingCapacity: true)
        seed = nil
        lastTime = nil
    }

    /// Runs one frame (see the file comment). `streamTime` is the frame's
    /// stream time in ns (nil when unknown: the previous time plus
    /// `frameDuration`, or 1/30 s, is used). The frame is written only when
    /// `settings.draw` is set.
    public func process(_ image: RGBImageView, settings s: SparkleSettings,
                        streamTime: Int64?, frameDuration: Int64?) -> SparkleResult {
        let t: Int64
        if let st = streamTime {
            t = st
        } else if let last = lastTime {
            let d = frameDuration ?? 0
            t = last &+ (d > 0 ? d : SparkleEffect.fallbackFrameDuration)
        } else {
            t = 0
        }
        if let last = lastTime, t < last {
            glints.removeAll(keepingCapacity: true)  // born in the future now
        }
        lastTime = t
        if seed != s.seed {
            seed = s.seed
            rng = SplitMix64(seed: UInt64(s.seed) &* 0x9E37_79B9_7F4A_7C15 ^ 0x5EED)
        }

        var measured = false
        if schedule.isDue(at: t, interval: s.interval) {
            brightness = BrightnessMeter.measure(image, step: s.gridStep, measure: s.measure)
            measured = true
        }
        let target = SparkleMapping.target(brightness: brightness, maxSparkles: s.maxSparkles,
                                           threshold: s.threshold)
        update(image, settings: s, time: t, target: target)
        if s.draw { draw(into: image, settings: s, time: t) }
        return SparkleResult(measured: measured, brightness: brightness, sparkles: glints.count, target: target)
    }

    func update(_ image: RGBImageView, settings s: SparkleSettings, time t: Int64, target: Int) {
        // retire the dead
        var i = 0
        while i < glints.count {
            if t &- glints[i].birth >= glints[i].life { glints.swapAt(i, glints.count - 1); glints.removeLast() } else { i += 1 }
        }
        // retire the oldest (by phase: the dimmest, fading ones) above the target
        while glints.count > target {
            var oldest = 0
            var oldestPhase = -Double.infinity
            for j in 0..<glints.count {
                let p = glints[j].phase(at: t)
                if p > oldestPhase { oldestPhase = p; oldest = j }
            }
            glints.swapAt(oldest, glints.count - 1)
            glints.removeLast()
        }
        // spawn up to the target
        if glints.capacity < target { glints.reserveCapacity(max(target, s.maxSparkles)) }
        let w = image.width, h = image.height
        guard w > 0, h > 0, glints.count < target else { return }
        let gated = image.hasAlpha
        let meanLength = s.size * Double(min(w, h))
        let meanLife = Double(max(1, s.life))
        for _ in glints.count..<target {
            var x = 0, y = 0
            var placed = false
            for _ in 0..<(gated ? SparkleEffect.placementTries : 1) {
                x = rng.below(w); y = rng.below(h)
                if !gated || image.row(y)[x * image.pixelStride + image.a] > 127 { placed = true; break }
            }
            // size and life are drawn even when placement fails, so the
            // sequence of draws does not depend on more than the frames.
            let length = max(1.5, meanLength * (0.6 + 0.8 * rng.unit()))
            let life = max(Int64(1), Int64(meanLife * (0.6 + 0.8 * rng.unit())))
            if placed { glints.append(Glint(x: x, y: y, birth: t, life: life, length: length)) }
        }
    }

    func draw(into image: RGBImageView, settings s: SparkleSettings, time t: Int64) {
        let c = s.colorARGB
        let strength = Float(c >> 24) / 255
        let r = Float((c >> 16) & 0xFF) * strength
        let g = Float((c >> 8) & 0xFF) * strength
        let b = Float(c & 0xFF) * strength
        for glint in glints {
            glint.draw(into: image, envelope: Glint.envelope(glint.phase(at: t)), r: r, g: g, b: b)
        }
    }
}
