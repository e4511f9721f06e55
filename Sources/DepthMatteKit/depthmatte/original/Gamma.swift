// SPDX-License-Identifier: LGPL-2.1-or-later
/// Step 2c (README, depthmatte; the original chain): `m = m^gamma` through a lookup table
/// (65536 intervals, linear interpolation), rebuilt only when gamma changes.
/// Below `2^-12` the uniform table is too coarse for small gammas (m^0.1 at
/// m = 1e-7 is 0.2, the first interval would give 0.002), so small values go
/// through a log-spaced split instead: m = s * 2^e with s in [1, 2), and
/// m^gamma = 2^(e gamma) * s^gamma from two small tables.
@_spi(Bench) public struct GammaCurve {
    private(set) var gamma: Double = .nan
    private var table: [Float] = []
    /// `2^(e gamma)` for `e = -149 ... -13` (Float's smallest exponent up to just below 2^-12).
    private var lowExponent: [Float] = []
    /// `(1 + k / 256)^gamma` for `k = 0 ... 256`.
    private var lowSignificand: [Float] = []
    static let steps = 65536
    static let lowLimit = 16  // table index below which (m < 2^-12) the split is used

    @_spi(Bench) public init() {}

    /// Exact value, for reference.
    static func exact(_ m: Float, gamma: Double) -> Float {
        m <= 0 ? 0 : Float(mathPow(Double(m), gamma))
    }

    /// `gamma` outside (0, +inf] cannot come from the element (its param spec
    /// is 0.01-10); for direct callers NaN is taken as 1 and a negative value
    /// as 0, so the matte stays in [0, 1] (a negative exponent would give
    /// values above 1, and NaN mattes trap when blended into bytes).
    /// `snap`: then values within `FloatPlane.snapMargin` of 0 or 1 become exactly that (as
    /// `FloatPlane.snapToEnds`), in the same pass; with a `pool` the plane is
    /// split into `threads` bands.
    @_spi(Bench) public mutating func apply(to plane: inout FloatPlane, gamma requested: Double,
                               snap: Bool = false, pool: WorkerPool? = nil, threads: Int = 1) {
        let gamma = requested.isNaN ? 1 : max(requested, 0)
        if gamma == 1 && !snap { return }
        let n = plane.width * plane.height
        let bands = pool == nil ? 1 : max(1, min(threads, n / 4096))
        withMap(gamma: requested, snap: snap) { map in
        plane.pixels.withUnsafeMutableBufferPointer { p in
            var job = GammaJob(p: p.baseAddress!, n: n, bands: bands, map: map)
            withUnsafeMutablePointer(to: &job) { ctx in
                WorkerPool.run(pool, bands: bands, context: UnsafeMutableRawPointer(ctx)) { raw, b in
                    raw.assumingMemoryBound(to: GammaJob.self).pointee.run(band: b)
                }
            }
        }}
    }

    /// The curve (tables built when `gamma` changed) as a per-value map,
    /// valid inside `body`: for passes that apply it to the values they make
    /// (the blur applies it to the values it sums; the rest are 0 and 1).
    mutating func withMap<R>(gamma requested: Double, snap: Bool, _ body: (GammaMap) -> R) -> R {
        let gamma = requested.isNaN ? 1 : max(requested, 0)
        if gamma != 1 && gamma != self.gamma {
            self.gamma = gamma
            table = (0...GammaCurve.steps).map { GammaCurve.exact(Float($0) / Float(GammaCurve.steps), gamma: gamma) }
            table.append(1)  // guard for m == 1 interpolation
            lowExponent = (-149 ... -13).map { Float(mathPow(2, Double($0) * gamma)) }
            lowSignificand = (0...256).map { Float(mathPow(1 + Double($0) / 256, gamma)) }
        }
        return table.withUnsafeBufferPointer { t in
        lowExponent.withUnsafeBufferPointer { le in
        lowSignificand.withUnsafeBufferPointer { ls in
            body(GammaMap(curve: gamma != 1, snap: snap, t: t.baseAddress, le: le.baseAddress, ls: ls.baseAddress))
        }}}
    }
}

/// `GammaCurve` on one value: clamp to [0, 1], the curve, then (`snap`) the
/// snap to 0 and 1 of values within `FloatPlane.snapMargin` of them, as
/// `FloatPlane.snapToEnds` does alone. 0 and 1 map to themselves.
@_spi(Bench) public struct GammaMap {
    let curve: Bool
    let lo: Float, hi: Float
    let t: UnsafePointer<Float>?, le: UnsafePointer<Float>?, ls: UnsafePointer<Float>?

    init(curve: Bool, snap: Bool, t: UnsafePointer<Float>?, le: UnsafePointer<Float>?, ls: UnsafePointer<Float>?) {
        self.curve = curve; self.t = t; self.le = le; self.ls = ls
        lo = snap ? FloatPlane.snapMargin : 0
        hi = snap ? 1 - FloatPlane.snapMargin : 1
    }

    @inline(__always) func callAsFunction(_ v: Float) -> Float {
        var m = min(max(v, 0), 1)
        if curve && m != 0 && m != 1 {  // fixed points: most of a mask
            let f = m * Float(GammaCurve.steps)
            let i0 = Int(f)
            if i0 < GammaCurve.lowLimit {
                let e = Int(m.exponent)  // -149 ... -13 (subnormals included)
                let fs = (m.significand - 1) * 256
                let k = Int(fs)
                m = le![e + 149] * (ls![k] + (ls![k + 1] - ls![k]) * (fs - Float(k)))
            } else {
                m = t![i0] + (t![i0 + 1] - t![i0]) * (f - Float(i0))
            }
        }
        return m < lo ? 0 : (m > hi ? 1 : m)
    }
}

/// One band of `GammaCurve.apply` over a plane.
private struct GammaJob {
    let p: UnsafeMutablePointer<Float>
    let n: Int, bands: Int
    let map: GammaMap

    func run(band b: Int) {
        for i in (n * b / bands)..<(n * (b + 1) / bands) { p[i] = map(p[i]) }
    }
}
