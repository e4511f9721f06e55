/// Step 4 of the original chain: `m = m^gamma` through a lookup table
/// (65536 intervals, linear interpolation), rebuilt only when gamma changes.
/// Below `2^-12` the uniform table is too coarse for small gammas (m^0.1 at
/// m = 1e-7 is 0.2, the first interval would give 0.002), so small values go
/// through a log-spaced split instead: m = s * 2^e with s in [1, 2), and
/// m^gamma = 2^(e gamma) * s^gamma from two small tables.
public struct GammaCurve {
    public private(set) var gamma: Double = .nan
    private var table: [Float] = []
    /// `2^(e gamma)` for `e = -149 ... -13` (Float's smallest exponent up to just below 2^-12).
    private var lowExponent: [Float] = []
    /// `(1 + k / 256)^gamma` for `k = 0 ... 256`.
    private var lowSignificand: [Float] = []
    static let steps = 65536
    static let lowLimit = 16  // table index below which (m < 2^-12) the split is used

    public init() {}

    /// Exact value, for reference.
    public static func exact(_ m: Float, gamma: Double) -> Float {
        m <= 0 ? 0 : Float(mathPow(Double(m), gamma))
    }

    /// `gamma` outside (0, +inf] cannot come from the element (its param spec
    /// is 0.01-10); for direct callers NaN is taken as 1 and a negative value
    /// as 0, so the matte stays in [0, 1] (a negative exponent would give
    /// values above 1, and NaN mattes trap when blended into bytes).
    /// `snap`: then values within `FloatPlane.snapMargin` of 0 or 1 become exactly that (as
    /// `FloatPlane.snapToEnds`), in the same pass; with a `pool` the plane is
    /// split into `threads` bands.
    public mutating func apply(to plane: inout FloatPlane, gamma requested: Double,
                               snap: Bool = false, pool: WorkerPool? = nil, threads: Int = 1) {
        let gamma = requested.isNaN ? 1 : max(requested, 0)
        if gamma == 1 && !snap { return }
        if gamma != 1 && gamma != self.gamma {
            self.gamma = gamma
            table = (0...GammaCurve.steps).map { GammaCurve.exact(Float($0) / Float(GammaCurve.steps), gamma: gamma) }
            table.append(1)  // guard for m == 1 interpolation
            lowExponent = (-149 ... -13).map { Float(mathPow(2, Double($0) * gamma)) }
            lowSignificand = (0...256).map { Float(mathPow(1 + Double($0) / 256, gamma)) }
        }
        let n = plane.width * plane.height
        let bands = pool == nil ? 1 : max(1, min(threads, n / 4096))
        table.withUnsafeBufferPointer { t in
        lowExponent.withUnsafeBufferPointer { le in
        lowSignificand.withUnsafeBufferPointer { ls in
        plane.pixels.withUnsafeMutableBufferPointer { p in
            var job = GammaJob(p: p.baseAddress!, n: n, bands: bands, curve: gamma != 1, snap: snap,
                               t: t.baseAddress, le: le.baseAddress, ls: ls.baseAddress)
            withUnsafeMutablePointer(to: &job) { ctx in
                WorkerPool.run(pool, bands: bands, context: UnsafeMutableRawPointer(ctx)) { raw, b in
                    raw.assumingMemoryBound(to: GammaJob.self).pointee.run(band: b)
                }
            }
        }}}}
    }
}

/// One band of the curve (and of the snap to 0 and 1 of values within
/// `FloatPlane.snapMargin` of them, which `FloatPlane.snapToEnds` does alone) over a plane.
private struct GammaJob {
    let p: UnsafeMutablePointer<Float>
    let n: Int, bands: Int
    let curve: Bool, snap: Bool
    let t: UnsafePointer<Float>?, le: UnsafePointer<Float>?, ls: UnsafePointer<Float>?

    func run(band b: Int) {
        let scale = Float(GammaCurve.steps)
        let lowLimit = GammaCurve.lowLimit
        let lo: Float = snap ? FloatPlane.snapMargin : 0, hi: Float = snap ? 1 - FloatPlane.snapMargin : 1
        for i in (n * b / bands)..<(n * (b + 1) / bands) {
            var m = min(max(p[i], 0), 1)
            if curve && m != 0 && m != 1 {  // fixed points: most of a mask
                let f = m * scale
                let i0 = Int(f)
                if i0 < lowLimit {
                    let e = Int(m.exponent)  // -149 ... -13 (subnormals included)
                    let fs = (m.significand - 1) * 256
                    let k = Int(fs)
                    m = le![e + 149] * (ls![k] + (ls![k + 1] - ls![k]) * (fs - Float(k)))
                } else {
                    m = t![i0] + (t![i0 + 1] - t![i0]) * (f - Float(i0))
                }
            }
            p[i] = m < lo ? 0 : (m > hi ? 1 : m)
        }
    }
}
