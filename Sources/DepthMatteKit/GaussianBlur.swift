/// Step 3 of the original chain: a separable Gaussian blur with clamped edges
/// (the border is extended, blurred, and cropped, as Core Image's
/// `clampedToExtent` + `CIGaussianBlur` + crop do).
public struct GaussianBlur {
    /// Standard deviation in pixels.
    public private(set) var sigma: Double = -1
    /// Normalised weights for offsets `-radius...radius`.
    public private(set) var kernel: [Float] = []
    public var radius: Int { kernel.count / 2 }
    private var scratch = FloatPlane()

    public init() {}

    /// Weights `exp(-k^2 / (2 sigma^2))` for `|k| <= ceil(3 sigma)`, summing to 1.
    public static func kernel(sigma: Double) -> [Float] {
        guard sigma > 0.01 else { return [1] }
        let r = Int((3 * sigma).rounded(.up))
        var w = [Double](repeating: 0, count: 2 * r + 1)
        var sum = 0.0
        for k in -r...r {
            let v = mathExp(-Double(k * k) / (2 * sigma * sigma))
            w[k + r] = v
            sum += v
        }
        return w.map { Float($0 / sum) }
    }

    /// Blur `plane` in place.
    public mutating func apply(to plane: inout FloatPlane, sigma: Double) {
        if sigma != self.sigma {
            self.sigma = sigma
            kernel = GaussianBlur.kernel(sigma: sigma)
        }
        let r = radius
        if r == 0 { return }
        let w = plane.width, h = plane.height
        scratch.resize(width: w, height: h)
        kernel.withUnsafeBufferPointer { kp in
            let k = kp.baseAddress! + r
            plane.pixels.withUnsafeMutableBufferPointer { src in
                scratch.pixels.withUnsafeMutableBufferPointer { tmp in
                    let s = src.baseAddress!, t = tmp.baseAddress!
                    // horizontal: src -> tmp
                    for y in 0..<h {
                        let row = s + y * w, out = t + y * w
                        for x in 0..<w {
                            var acc: Float = 0
                            if x >= r && x + r < w {
                                for j in -r...r { acc += k[j] * row[x + j] }
                            } else {
                                for j in -r...r {
                                    let xx = min(max(x + j, 0), w - 1)
                                    acc += k[j] * row[xx]
                                }
                            }
                            out[x] = acc
                        }
                    }
                    // vertical: tmp -> src
                    for y in 0..<h {
                        let out = s + y * w
                        for x in 0..<w { out[x] = 0 }
                        for j in -r...r {
                            let yy = min(max(y + j, 0), h - 1)
                            let row = t + yy * w
                            let kj = k[j]
                            for x in 0..<w { out[x] += kj * row[x] }
                        }
                    }
                }
            }
        }
    }
}
