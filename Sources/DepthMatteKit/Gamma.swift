/// Step 4 of the original chain: `m = m^gamma` through a lookup table
/// (65536 intervals, linear interpolation), rebuilt only when gamma changes.
public struct GammaCurve {
    public private(set) var gamma: Double = .nan
    private var table: [Float] = []
    static let steps = 65536

    public init() {}

    /// Exact value, for reference.
    public static func exact(_ m: Float, gamma: Double) -> Float {
        m <= 0 ? 0 : Float(mathPow(Double(m), gamma))
    }

    public mutating func apply(to plane: inout FloatPlane, gamma: Double) {
        if gamma == 1 { return }
        if gamma != self.gamma {
            self.gamma = gamma
            table = (0...GammaCurve.steps).map { GammaCurve.exact(Float($0) / Float(GammaCurve.steps), gamma: gamma) }
            table.append(1)  // guard for m == 1 interpolation
        }
        let n = plane.width * plane.height
        let scale = Float(GammaCurve.steps)
        table.withUnsafeBufferPointer { t in
            plane.pixels.withUnsafeMutableBufferPointer { p in
                for i in 0..<n {
                    let m = min(max(p[i], 0), 1)
                    let f = m * scale
                    let i0 = Int(f)
                    let frac = f - Float(i0)
                    p[i] = t[i0] + (t[i0 + 1] - t[i0]) * frac
                }
            }
        }
    }
}
