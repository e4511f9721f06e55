// SPDX-License-Identifier: LGPL-2.1-or-later
/// Step 2b (README, depthmatte; the original chain): a separable Gaussian blur with clamped edges
/// (the border is extended, blurred, and cropped, as Core Image's
/// `clampedToExtent` + `CIGaussianBlur` + crop do).
@_spi(Bench) public struct GaussianBlur {
    /// Standard deviation in pixels.
    private(set) var sigma: Double = -1
    /// Normalised weights for offsets `-radius...radius`.
    private(set) var kernel: [Float] = []
    var radius: Int { kernel.count / 2 }
    private var scratch = FloatPlane()
    private var dirtyCounts: [Int32] = []
    private var rowOnes: [Int32] = [], rowZeros: [Int32] = []
    /// per band: one row of the vertical pass
    private var rowBuffer: [Float] = []

    @_spi(Bench) public init() {}

    /// Weights `exp(-k^2 / (2 sigma^2))` for `|k| <= ceil(3 sigma)`, summing to 1.
    static func kernel(sigma: Double) -> [Float] {
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

    /// Blur `plane` in place. Both passes go 8 values at a time. Blocks of 8
    /// whose lanes each see only exact 0s or only exact 1s in their window
    /// keep that value without being summed: found down each block column
    /// from prefix counts of blocks that hold another value or differ from
    /// the block above, and along each row from prefix counts of blocks all 0
    /// and all 1. A summed lane whose window was all 1s gives exactly 1 too (its sum
    /// is the kernel's own sum, `kernelSum`), so binary regions stay exact.
    /// With a pool, block columns (dirty counts) and rows (both passes) are split
    /// into `threads` bands. `then`: a map applied to every summed value as it
    /// is made (the values not summed are 0 and 1, which it must keep).
    /// Returns whether the plane was blurred (false: sigma too small for a
    /// kernel, or an empty plane; `then` was not applied).
    @discardableResult
    @_spi(Bench) public mutating func apply(to plane: inout FloatPlane, sigma: Double, pool: WorkerPool? = nil, threads: Int = 1,
                               then post: GammaMap? = nil) -> Bool {
        if sigma != self.sigma {
            self.sigma = sigma
            kernel = GaussianBlur.kernel(sigma: sigma)
        }
        let r = radius
        if r == 0 { return false }
        let w = plane.width, h = plane.height
        if w == 0 || h == 0 { return false }
        let nb = (w + 7) / 8
        let bands = pool == nil ? 1 : max(1, min(threads, h / 8))
        scratch.resize(width: w, height: h)
        if dirtyCounts.count < (h + 1) * nb { dirtyCounts = [Int32](repeating: 0, count: (h + 1) * nb) }
        if rowOnes.count < (nb + 1) * bands { rowOnes = [Int32](repeating: 0, count: (nb + 1) * bands); rowZeros = rowOnes }
        if rowBuffer.count < w * bands { rowBuffer = [Float](repeating: 0, count: w * bands) }
        kernel.withUnsafeBufferPointer { kp in
            plane.pixels.withUnsafeMutableBufferPointer { src in
            scratch.pixels.withUnsafeMutableBufferPointer { dst in
            rowBuffer.withUnsafeMutableBufferPointer { rows in
            dirtyCounts.withUnsafeMutableBufferPointer { o in
            rowOnes.withUnsafeMutableBufferPointer { ro in
            rowZeros.withUnsafeMutableBufferPointer { rz in
                var pass = BlurPass(k: kp.baseAddress! + r, r: r, w: w, h: h, nb: nb, bands: bands, phase: 0,
                                    s: src.baseAddress!, d: dst.baseAddress!, t: rows.baseAddress!, po: o.baseAddress!,
                                    ro: ro.baseAddress!, rz: rz.baseAddress!, post: post)
                withUnsafeMutablePointer(to: &pass) { ctx in
                    for phase in 0..<2 {
                        ctx.pointee.phase = phase
                        WorkerPool.run(pool, bands: bands, context: UnsafeMutableRawPointer(ctx)) { raw, b in
                            raw.assumingMemoryBound(to: BlurPass.self).pointee.run(band: b)
                        }
                    }
                }
            }}}}}}
        }
        // the result is in the scratch plane: it becomes the plane (no copy)
        swap(&plane, &scratch)
        return true
    }
}

/// One blur on raw planes, in two phases, each split into bands: 0 dirty
/// blocks of `s` and their prefix counts down each block column (bands of
/// block columns); 1 (bands of rows) row by row the vertical pass from `s`
/// into the band's row `t`, then the horizontal pass from `t` into `d` (the
/// intermediate plane is one row that stays in the cache).
private struct BlurPass {
    let k: UnsafePointer<Float>   // kernel centre: k[-r...r]
    let r: Int, w: Int, h: Int, nb: Int, bands: Int
    var phase: Int
    let s: UnsafeMutablePointer<Float>, d: UnsafeMutablePointer<Float>
    /// per band, w: the vertical pass's row
    let t: UnsafeMutablePointer<Float>
    /// (h + 1) × nb: dirty blocks (`dirty`) in rows 0..<y of each block column
    let po: UnsafeMutablePointer<Int32>
    /// per band, nb + 1: blocks all 1 / all 0 along the band's row `t`
    let ro: UnsafeMutablePointer<Int32>, rz: UnsafeMutablePointer<Int32>
    /// the summed value of a window of 1s, in the passes' own order
    let kernelSum: Float
    /// applied to the values the horizontal pass sums
    let post: GammaMap?
    typealias F8 = SIMD8<Float>

    init(k: UnsafePointer<Float>, r: Int, w: Int, h: Int, nb: Int, bands: Int, phase: Int,
         s: UnsafeMutablePointer<Float>, d: UnsafeMutablePointer<Float>, t: UnsafeMutablePointer<Float>,
         po: UnsafeMutablePointer<Int32>,
         ro: UnsafeMutablePointer<Int32>, rz: UnsafeMutablePointer<Int32>, post: GammaMap?) {
        self.post = post
        self.k = k; self.r = r; self.w = w; self.h = h; self.nb = nb; self.bands = bands; self.phase = phase
        self.s = s; self.d = d; self.t = t; self.po = po; self.ro = ro; self.rz = rz
        var sum: Float = 0
        for j in -r...r { sum += k[j] * 1 }
        kernelSum = sum
    }

    /// Whether the block at `p` (`n` values) holds a value other than 0 and 1,
    /// or differs from the block above it at `above`.
    @inline(__always) static func dirty(_ p: UnsafePointer<Float>, _ above: UnsafePointer<Float>?, _ n: Int) -> Bool {
        if n == 8 {
            let v = UnsafeRawPointer(p).loadUnaligned(as: F8.self)
            if !all((v .== 0) .| (v .== 1)) { return true }
            guard let above else { return false }
            return any(v .!= UnsafeRawPointer(above).loadUnaligned(as: F8.self))
        }
        for i in 0..<n where (p[i] != 0 && p[i] != 1) || (above.map { $0[i] != p[i] } ?? false) { return true }
        return false
    }

    /// Class of the block at `p` (`n` values, 8 for all but a row's last):
    /// (all 1, all 0).
    @inline(__always) static func classify(_ p: UnsafePointer<Float>, _ n: Int) -> (Bool, Bool) {
        if n == 8 {
            let v = UnsafeRawPointer(p).loadUnaligned(as: F8.self)
            return (all(v .== 1), all(v .== 0))
        }
        var one = true, zero = true
        for i in 0..<n { one = one && p[i] == 1; zero = zero && p[i] == 0 }
        return (one, zero)
    }

    @inline(__always) func exact(_ acc: F8) -> F8 {
        var a = acc
        a.replace(with: 1, where: a .== F8(repeating: kernelSum))
        return a
    }

    func run(band b: Int) {
        switch phase {
        case 0:
            let b0 = nb * b / bands, b1 = nb * (b + 1) / bands
            for i in b0..<b1 { po[i] = 0 }
            for y in 0..<h {
                let row = s + y * w
                let o0 = po + y * nb, o1 = po + (y + 1) * nb
                for i in b0..<b1 {
                    let dirty = BlurPass.dirty(row + 8 * i, y > 0 ? row + 8 * i - w : nil, min(8, w - 8 * i))
                    o1[i] = o0[i] &+ (dirty ? 1 : 0)
                }
            }
        default:
            let tb = t + b * w
            let ron = ro + b * (nb + 1), rzn = rz + b * (nb + 1)
            for y in (h * b / bands)..<(h * (b + 1) / bands) {
                vertical(y, into: tb)
                horizontal(tb, into: d + y * w, ones: ron, zeros: rzn)
            }
        }
    }

    /// The vertical pass of row `y` from `s` into `out`.
    func vertical(_ y: Int, into out: UnsafeMutablePointer<Float>) {
        let lo = max(y - r, 0), hi = min(y + r, h - 1)
        let oLo = po + lo * nb, oHi = po + (hi + 1) * nb
        let src = s + y * w
        for i in 0..<nb {
            let x = 8 * i
            let full = x + 8 <= w
            if oHi[i] == oLo[i] {
                // every lane holds one value, 0 or 1, over its whole window
                if full {
                    UnsafeMutableRawPointer(out + x).storeBytes(
                        of: UnsafeRawPointer(src + x).loadUnaligned(as: F8.self), as: F8.self)
                } else {
                    for q in x..<w { out[q] = src[q] }
                }
                continue
            }
            if full {
                // each lane sums its taps in the same order as the scalar tail
                var acc = F8(repeating: 0)
                for j in -r...r {
                    let yy = min(max(y + j, 0), h - 1)
                    acc += k[j] * UnsafeRawPointer(s + yy * w + x).loadUnaligned(as: F8.self)
                }
                UnsafeMutableRawPointer(out + x).storeBytes(of: exact(acc), as: F8.self)
            } else {
                for q in x..<w {
                    var acc: Float = 0
                    for j in -r...r {
                        let yy = min(max(y + j, 0), h - 1)
                        acc += k[j] * s[yy * w + q]
                    }
                    out[q] = acc == kernelSum ? 1 : acc
                }
            }
        }
    }

    /// The horizontal pass of `row` into `out` (`ones`, `zeros`: nb + 1 counts).
    func horizontal(_ row: UnsafeMutablePointer<Float>, into out: UnsafeMutablePointer<Float>,
                    ones ron: UnsafeMutablePointer<Int32>, zeros rzn: UnsafeMutablePointer<Int32>) {
        ron[0] = 0; rzn[0] = 0
        for i in 0..<nb {
            let (one, zero) = BlurPass.classify(row + 8 * i, min(8, w - 8 * i))
            ron[i + 1] = ron[i] &+ (one ? 1 : 0)
            rzn[i + 1] = rzn[i] &+ (zero ? 1 : 0)
        }
        for i in 0..<nb {
            let x = 8 * i
            // the blocks holding the window of every lane of this block
            let bLo = max(x - r, 0) >> 3, bHi = min(x + 7 + r, w - 1) >> 3
            let n = Int32(bHi - bLo + 1)
            let one = ron[bHi + 1] &- ron[bLo] == n
            if one || rzn[bHi + 1] &- rzn[bLo] == n {
                if x + 8 <= w {
                    UnsafeMutableRawPointer(out + x).storeBytes(of: F8(repeating: one ? 1 : 0), as: F8.self)
                } else {
                    for q in x..<w { out[q] = one ? 1 : 0 }
                }
                continue
            }
            if x >= r && x + 8 + r <= w {
                // 8 outputs whose windows are inside the row: SIMD lanes,
                // same tap order per lane as the scalar loop
                var acc = F8(repeating: 0)
                for j in -r...r {
                    acc += k[j] * UnsafeRawPointer(row + x + j).loadUnaligned(as: F8.self)
                }
                UnsafeMutableRawPointer(out + x).storeBytes(of: exact(acc), as: F8.self)
                if let post { for q in x..<x + 8 { out[q] = post(out[q]) } }
                continue
            }
            for q in x..<min(x + 8, w) {
                var acc: Float = 0
                if q >= r && q + r < w {
                    for j in -r...r { acc += k[j] * row[q + j] }
                } else {
                    for j in -r...r { acc += k[j] * row[min(max(q + j, 0), w - 1)] }
                }
                let v = acc == kernelSum ? 1 : acc
                out[q] = post.map { $0(v) } ?? v
            }
        }
    }
}
