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
    private var ones: [Int32] = [], zeros: [Int32] = []
    private var rowOnes: [Int32] = [], rowZeros: [Int32] = []

    public init() {}

    /// Weights `exp(-k^2 / (2 sigma^2))` for `|k| <= ceil(3 sigma)`, summing to 1.
    public static func kernel(sigma: Double) -> [Float] {
        guard sigma.isFinite, sigma > 0.01 else { return [1] }
        // radius capped: a blur wider than any picture is a mean anyway
        let r = Int(min(3 * sigma, 4096).rounded(.up))
        var w = [Double](repeating: 0, count: 2 * r + 1)
        var sum = 0.0
        for k in -r...r {
            let v = mathExp(-Double(k * k) / (2 * sigma * sigma))
            w[k + r] = v
            sum += v
        }
        return w.map { Float($0 / sum) }
    }

    /// Blur `plane` in place. Windows whose samples are all exactly 0 or all
    /// exactly 1 give exactly that value without being summed (found in O(1)
    /// from prefix counts), so the cost goes to the pixels near an edge.
    /// With a pool, columns (prefix counts) and rows (both passes) are split
    /// into `threads` bands.
    public mutating func apply(to plane: inout FloatPlane, sigma: Double, pool: WorkerPool? = nil, threads: Int = 1) {
        if sigma != self.sigma {
            self.sigma = sigma
            kernel = GaussianBlur.kernel(sigma: sigma)
        }
        let r = radius
        if r == 0 { return }
        let w = plane.width, h = plane.height
        if w == 0 || h == 0 { return }
        let bands = pool == nil ? 1 : max(1, min(threads, h / 8))
        scratch.resize(width: w, height: h)
        if ones.count < (h + 1) * w { ones = [Int32](repeating: 0, count: (h + 1) * w); zeros = ones }
        if rowOnes.count < (w + 1) * bands { rowOnes = [Int32](repeating: 0, count: (w + 1) * bands); rowZeros = rowOnes }
        kernel.withUnsafeBufferPointer { kp in
            plane.pixels.withUnsafeMutableBufferPointer { src in
            scratch.pixels.withUnsafeMutableBufferPointer { tmp in
            ones.withUnsafeMutableBufferPointer { o in
            zeros.withUnsafeMutableBufferPointer { z in
            rowOnes.withUnsafeMutableBufferPointer { ro in
            rowZeros.withUnsafeMutableBufferPointer { rz in
                var pass = BlurPass(k: kp.baseAddress! + r, r: r, w: w, h: h, bands: bands, phase: 0,
                                    s: src.baseAddress!, t: tmp.baseAddress!, po: o.baseAddress!, pz: z.baseAddress!,
                                    ro: ro.baseAddress!, rz: rz.baseAddress!)
                withUnsafeMutablePointer(to: &pass) { ctx in
                    for phase in 0..<3 {
                        ctx.pointee.phase = phase
                        WorkerPool.run(pool, bands: bands, context: UnsafeMutableRawPointer(ctx)) { raw, b in
                            raw.assumingMemoryBound(to: BlurPass.self).pointee.run(band: b)
                        }
                    }
                }
            }}}}}}
        }
    }
}

/// One blur on raw planes, in three phases, each split into bands:
/// 0 column prefix counts (bands of columns), 1 vertical pass src -> tmp and
/// 2 horizontal pass tmp -> src (bands of rows).
private struct BlurPass {
    let k: UnsafePointer<Float>   // kernel centre: k[-r...r]
    let r: Int, w: Int, h: Int, bands: Int
    var phase: Int
    let s: UnsafeMutablePointer<Float>, t: UnsafeMutablePointer<Float>
    let po: UnsafeMutablePointer<Int32>, pz: UnsafeMutablePointer<Int32>
    let ro: UnsafeMutablePointer<Int32>, rz: UnsafeMutablePointer<Int32>

    func run(band b: Int) {
        switch phase {
        case 0:
            let x0 = w * b / bands, x1 = w * (b + 1) / bands
            for x in x0..<x1 { po[x] = 0; pz[x] = 0 }
            for y in 0..<h {
                let row = s + y * w, o0 = po + y * w, o1 = po + (y + 1) * w
                let z0 = pz + y * w, z1 = pz + (y + 1) * w
                for x in x0..<x1 {
                    let v = row[x]
                    o1[x] = o0[x] &+ (v == 1 ? 1 : 0)
                    z1[x] = z0[x] &+ (v == 0 ? 1 : 0)
                }
            }
        case 1:
            for y in (h * b / bands)..<(h * (b + 1) / bands) {
                let lo = max(y - r, 0), hi = min(y + r, h - 1)
                let n = Int32(hi - lo + 1)
                let oLo = po + lo * w, oHi = po + (hi + 1) * w
                let zLo = pz + lo * w, zHi = pz + (hi + 1) * w
                let out = t + y * w
                var x = 0
                // 8 columns at a time: each lane sums its taps in the same
                // order as the scalar loop, so the result is bit-identical
                while x + 8 <= w {
                    let ones = UnsafeRawPointer(oHi + x).loadUnaligned(as: SIMD8<Int32>.self)
                        &- UnsafeRawPointer(oLo + x).loadUnaligned(as: SIMD8<Int32>.self)
                    let zeros = UnsafeRawPointer(zHi + x).loadUnaligned(as: SIMD8<Int32>.self)
                        &- UnsafeRawPointer(zLo + x).loadUnaligned(as: SIMD8<Int32>.self)
                    let n8 = SIMD8<Int32>(repeating: n)
                    let allOne = ones .== n8, allZero = zeros .== n8
                    var acc = SIMD8<Float>(repeating: 0)
                    if !all(allOne .| allZero) {
                        for j in -r...r {
                            let yy = min(max(y + j, 0), h - 1)
                            acc += k[j] * UnsafeRawPointer(s + yy * w + x).loadUnaligned(as: SIMD8<Float>.self)
                        }
                    }
                    acc.replace(with: 1, where: allOne)
                    acc.replace(with: 0, where: allZero)
                    UnsafeMutableRawPointer(out + x).storeBytes(of: acc, as: SIMD8<Float>.self)
                    x += 8
                }
                while x < w {
                    defer { x += 1 }
                    if oHi[x] &- oLo[x] == n { out[x] = 1; continue }
                    if zHi[x] &- zLo[x] == n { out[x] = 0; continue }
                    var acc: Float = 0
                    for j in -r...r {
                        let yy = min(max(y + j, 0), h - 1)
                        acc += k[j] * s[yy * w + x]
                    }
                    out[x] = acc
                }
            }
        default:
            let ron = ro + b * (w + 1), rzn = rz + b * (w + 1)
            for y in (h * b / bands)..<(h * (b + 1) / bands) {
                let row = t + y * w, out = s + y * w
                ron[0] = 0; rzn[0] = 0
                for x in 0..<w {
                    let v = row[x]
                    ron[x + 1] = ron[x] &+ (v == 1 ? 1 : 0)
                    rzn[x + 1] = rzn[x] &+ (v == 0 ? 1 : 0)
                }
                var x = 0
                while x < w {
                    if x >= r && x + 8 + r <= w {
                        // 8 outputs whose windows are inside the row: SIMD lanes,
                        // same tap order per lane as the scalar loop
                        let n8 = SIMD8<Int32>(repeating: Int32(2 * r + 1))
                        let ones = UnsafeRawPointer(ron + x + r + 1).loadUnaligned(as: SIMD8<Int32>.self)
                            &- UnsafeRawPointer(ron + x - r).loadUnaligned(as: SIMD8<Int32>.self)
                        let zeros = UnsafeRawPointer(rzn + x + r + 1).loadUnaligned(as: SIMD8<Int32>.self)
                            &- UnsafeRawPointer(rzn + x - r).loadUnaligned(as: SIMD8<Int32>.self)
                        let allOne = ones .== n8, allZero = zeros .== n8
                        var acc = SIMD8<Float>(repeating: 0)
                        if !all(allOne .| allZero) {
                            for j in -r...r {
                                acc += k[j] * UnsafeRawPointer(row + x + j).loadUnaligned(as: SIMD8<Float>.self)
                            }
                        }
                        acc.replace(with: 1, where: allOne)
                        acc.replace(with: 0, where: allZero)
                        UnsafeMutableRawPointer(out + x).storeBytes(of: acc, as: SIMD8<Float>.self)
                        x += 8
                        continue
                    }
                    defer { x += 1 }
                    let lo = max(x - r, 0), hi = min(x + r, w - 1)
                    let n = Int32(hi - lo + 1)
                    if ron[hi + 1] &- ron[lo] == n { out[x] = 1; continue }
                    if rzn[hi + 1] &- rzn[lo] == n { out[x] = 0; continue }
                    var acc: Float = 0
                    if x >= r && x + r < w {
                        for j in -r...r { acc += k[j] * row[x + j] }
                    } else {
                        for j in -r...r { acc += k[j] * row[min(max(x + j, 0), w - 1)] }
                    }
                    out[x] = acc
                }
            }
        }
    }
}
