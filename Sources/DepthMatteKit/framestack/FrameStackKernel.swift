// SPDX-License-Identifier: LGPL-2.1-or-later
/// The pixel side of frame stacking: resample N translated frames into the
/// reference frame's grid and take the per-channel mean or median, keeping
/// per-pixel sample counts where shifted frames do not cover the output.
///
/// Layout of the work: the output is processed row by row. On each row the
/// span covered by *all* frames ("interior") is cut into chunks of up to
/// `chunkPixels` pixels; for each chunk every frame's translated row is
/// resampled into its own contiguous byte buffer, and a selection network
/// (compare-exchange of whole buffers, which the compiler vectorises) leaves
/// the median ranks in known buffers. Pixels outside the interior (the
/// borders) take a scalar path that gathers only the frames covering them.
/// All scratch memory is allocated once per (frames, chunk size).

// MARK: - Selection network

/// A compare-exchange network that puts the requested ranks of `n` values on
/// the same-numbered wires (wire i = i-th smallest). Built from Batcher's
/// merge-exchange sort (Knuth, TAOCP 5.2.2, Algorithm M), which sorts any n,
/// then pruned backwards to the comparators the requested ranks depend on;
/// a comparator whose max (or min) output is never read keeps only the other half.
struct SelectionNetwork {
    enum Kind: UInt8 { case both = 0, minOnly = 1, maxOnly = 2 }
    let n: Int
    private(set) var lo: [Int] = []
    private(set) var hi: [Int] = []
    private(set) var kinds: [Kind] = []

    var count: Int { lo.count }

    /// - Parameters:
    ///   - n: number of inputs (fewer than 1 counts as 1: a single wire)
    ///   - ranks: ranks wanted on their wires (0 = smallest); empty = full sort
    init(n: Int, ranks: [Int] = []) {
        let n = max(n, 1)
        self.n = n
        var pairs: [(Int, Int)] = []
        if n > 1 {
            var t = 0
            while (1 << t) < n { t += 1 }
            var p = 1 << (t - 1)
            while p > 0 {
                var q = 1 << (t - 1), r = 0, d = p
                while true {
                    for i in 0..<(n - d) where i & p == r { pairs.append((i, i + d)) }
                    if q == p { break }
                    d = q - p
                    q >>= 1
                    r = p
                }
                p >>= 1
            }
        }
        var needed = [Bool](repeating: ranks.isEmpty, count: n)
        for r in ranks { needed[r] = true }
        var kept: [(Int, Int, Kind)] = []
        for (i, j) in pairs.reversed() {
            let wantMin = needed[i], wantMax = needed[j]
            if !wantMin && !wantMax { continue }
            kept.append((i, j, wantMin && wantMax ? .both : (wantMin ? .minOnly : .maxOnly)))
            needed[i] = true
            needed[j] = true
        }
        for (i, j, k) in kept.reversed() {
            lo.append(i); hi.append(j); kinds.append(k)
        }
    }

    /// Apply to `n` byte rows of `length` bytes, row i at `base + i * rowStride`.
    func apply(_ base: UnsafeMutablePointer<UInt8>, rowStride: Int, length: Int) {
        for c in 0..<lo.count {
            let a = base + lo[c] * rowStride, b = base + hi[c] * rowStride
            switch kinds[c] {
            case .both:
                for i in 0..<length {
                    let x = a[i], y = b[i]
                    a[i] = min(x, y)
                    b[i] = max(x, y)
                }
            case .minOnly:
                for i in 0..<length { a[i] = min(a[i], b[i]) }
            case .maxOnly:
                for i in 0..<length { b[i] = max(a[i], b[i]) }
            }
        }
    }
}

// MARK: - Taps (one translated source frame)

/// One source frame as seen from the output grid: output pixel (x, y) takes
/// the bilinear sample of the source at (x + ix + qx/16, y + iy + qy/16).
/// Positions are quantised to 1/16 pixel (at most 1/32 px off).
struct StackTap {
    var source: UnsafePointer<UInt8>
    var ix: Int, iy: Int
    /// Sub-pixel parts in sixteenths, 0...15.
    var qx: Int, qy: Int
    /// Output pixels this frame covers (inclusive; empty when lo > hi).
    var xLo = 0, xHi = -1, yLo = 0, yHi = -1

    /// - Parameter shift: sampling offset in pixels (content displacement of
    ///   this frame relative to the output's reference frame).
    init(source: UnsafePointer<UInt8>, shiftX: Double, shiftY: Double, width: Int, height: Int) {
        func split(_ v: Double) -> (Int, Int) {
            let clamped = max(-1e6, min(1e6, v))
            var i = Int(clamped.rounded(.down))
            var q = Int(((clamped - Double(i)) * 16).rounded())
            if q == 16 { i += 1; q = 0 }
            return (i, q)
        }
        self.source = source
        (ix, qx) = split(shiftX)
        (iy, qy) = split(shiftY)
        // A sample is inside when all bilinear taps with non-zero weight are inside.
        xLo = max(0, -ix); xHi = min(width - 1, width - 1 - ix - (qx > 0 ? 1 : 0))
        yLo = max(0, -iy); yHi = min(height - 1, height - 1 - iy - (qy > 0 ? 1 : 0))
    }

    func covers(_ x: Int, _ y: Int) -> Bool {
        x >= xLo && x <= xHi && y >= yLo && y <= yHi
    }
}

public enum StackMethod: Int32, CaseIterable {
    /// Rounded per-channel mean: floor((sum + n/2) / n).
    case mean = 0
    /// Per-channel median; for an even count the mean of the two middle
    /// values, rounded half up.
    case median = 1
}

/// Where every frame contributed, plus how many samples each output pixel used.
public struct StackCoverage {
    /// The rectangle covered by all frames (width or height 0 when empty).
    public var fullX = 0, fullY = 0, fullWidth = 0, fullHeight = 0
    /// Fewest samples any output pixel was stacked from.
    public var minSamples = 0
}

// MARK: - Kernel

/// Reusable scratch plus the row kernels. Not thread-safe; one per element.
final class StackKernel {
    static let chunkPixels = 256
    private var capacityFrames = 0
    private var capacityBytes = 0
    private var scratch = UnsafeMutablePointer<UInt8>.allocate(capacity: 1)
    private var sums = UnsafeMutablePointer<UInt16>.allocate(capacity: 1)
    private var samples = UnsafeMutablePointer<UInt8>.allocate(capacity: 1)
    private var network: SelectionNetwork? = nil

    init() {}
    deinit {
        scratch.deallocate(); sums.deallocate(); samples.deallocate()
    }

    private func reserve(frames: Int, pixelStride: Int) {
        let bytes = Self.chunkPixels * pixelStride
        if frames > capacityFrames || bytes > capacityBytes {
            capacityFrames = max(frames, capacityFrames)
            capacityBytes = max(bytes, capacityBytes)
            scratch.deallocate(); sums.deallocate(); samples.deallocate()
            scratch = .allocate(capacity: capacityFrames * capacityBytes)
            sums = .allocate(capacity: capacityBytes)
            samples = .allocate(capacity: capacityFrames * 4 + 8)
        }
        if network?.n != frames {
            network = SelectionNetwork(n: frames, ranks: [(frames - 1) / 2, frames / 2])
        }
    }

    /// Stack `taps` (sources of `width`×`height` pixels, `pixelStride` bytes per
    /// pixel, `rowBytes` per row) into `out` (same size and pixel layout).
    /// `sampleCounts[k]` receives the number of output pixels stacked from k
    /// samples (k = 0...taps.count; the array must hold taps.count + 1 entries).
    /// At least one tap should cover every pixel (the reference frame, shift 0);
    /// a pixel no frame covers is written as 0. Returns nil, writing
    /// nothing, when there is no tap or `out` is not a `width` x `height`
    /// picture of the frames' pixel stride (the caller reports the error:
    /// a host application is not aborted over a stream's geometry).
    func stack(taps: UnsafeBufferPointer<StackTap>, width: Int, height: Int, rowBytes: Int,
                      pixelStride ps: Int, method: StackMethod, out: RGBImageView,
                      sampleCounts: UnsafeMutablePointer<Int>) -> StackCoverage? {
        let n = taps.count
        guard n >= 1 && out.pixelStride == ps && out.width == width && out.height == height else { return nil }
        reserve(frames: n, pixelStride: ps)
        for k in 0...n { sampleCounts[k] = 0 }
        var cov = StackCoverage()
        var fx0 = 0, fx1 = width - 1, fy0 = 0, fy1 = height - 1
        for t in taps {
            fx0 = max(fx0, t.xLo); fx1 = min(fx1, t.xHi); fy0 = max(fy0, t.yLo); fy1 = min(fy1, t.yHi)
        }
        if fx0 <= fx1 && fy0 <= fy1 {
            cov.fullX = fx0; cov.fullY = fy0; cov.fullWidth = fx1 - fx0 + 1; cov.fullHeight = fy1 - fy0 + 1
        }
        let rowCap = capacityBytes
        for y in 0..<height {
            let orow = out.row(y)
            var xa = 0, xb = -1
            if y >= fy0 && y <= fy1 { xa = fx0; xb = fx1 }
            if xa > xb {
                for x in 0..<width { scalarPixel(taps, x, y, rowBytes, ps, method, orow + x * ps, sampleCounts) }
                continue
            }
            for x in 0..<xa { scalarPixel(taps, x, y, rowBytes, ps, method, orow + x * ps, sampleCounts) }
            var cx = xa
            while cx <= xb {
                let len = min(Self.chunkPixels, xb - cx + 1)
                let bytes = len * ps
                let dst = orow + cx * ps
                if method == .median {
                    for k in 0..<n {
                        let t = taps[k]
                        warpRow(t.source + (y + t.iy) * rowBytes + (cx + t.ix) * ps, rowBytes, ps,
                                t.qx, t.qy, scratch + k * rowCap, bytes)
                    }
                    combineMedian(n, rowCap, bytes, dst)
                } else {
                    for k in 0..<n {
                        let t = taps[k]
                        warpRow(t.source + (y + t.iy) * rowBytes + (cx + t.ix) * ps, rowBytes, ps,
                                t.qx, t.qy, scratch, bytes)
                        accumulate(scratch, bytes, first: k == 0)
                    }
                    divide(n, bytes, dst)
                }
                cx += len
            }
            sampleCounts[n] += xb - xa + 1
            if xb + 1 < width {
                for x in (xb + 1)..<width { scalarPixel(taps, x, y, rowBytes, ps, method, orow + x * ps, sampleCounts) }
            }
        }
        for k in 0...n where sampleCounts[k] > 0 { cov.minSamples = k; break }
        return cov
    }

    // MARK: vector path

    /// Bilinear resampling of `bytes` bytes with weights in sixteenths; exact
    /// copy when the offset is whole. Matches `scalarPixel` bit for bit.
    @inline(__always)
    private func warpRow(_ s0: UnsafePointer<UInt8>, _ rowBytes: Int, _ ps: Int, _ qx: Int, _ qy: Int,
                         _ dst: UnsafeMutablePointer<UInt8>, _ bytes: Int) {
        if qx == 0 && qy == 0 {
            dst.update(from: s0, count: bytes)
        } else if qy == 0 {
            let b = UInt16(qx), a = 16 - b
            let s1 = s0 + ps
            for i in 0..<bytes {
                dst[i] = UInt8(truncatingIfNeeded: (UInt16(s0[i]) &* a &+ UInt16(s1[i]) &* b &+ 8) &>> 4)
            }
        } else if qx == 0 {
            let b = UInt16(qy), a = 16 - b
            let s1 = s0 + rowBytes
            for i in 0..<bytes {
                dst[i] = UInt8(truncatingIfNeeded: (UInt16(s0[i]) &* a &+ UInt16(s1[i]) &* b &+ 8) &>> 4)
            }
        } else {
            let x1 = UInt16(qx), x0 = 16 - x1, y1 = UInt16(qy), y0 = 16 - y1
            let w00 = x0 * y0, w10 = x1 * y0, w01 = x0 * y1, w11 = x1 * y1
            let s1 = s0 + ps, s2 = s0 + rowBytes, s3 = s2 + ps
            for i in 0..<bytes {
                let v = UInt16(s0[i]) &* w00 &+ UInt16(s1[i]) &* w10 &+ UInt16(s2[i]) &* w01
                    &+ UInt16(s3[i]) &* w11 &+ 128
                dst[i] = UInt8(truncatingIfNeeded: v &>> 8)
            }
        }
    }

    @inline(__always)
    private func accumulate(_ src: UnsafeMutablePointer<UInt8>, _ bytes: Int, first: Bool) {
        let s = sums
        if first {
            for i in 0..<bytes { s[i] = UInt16(src[i]) }
        } else {
            for i in 0..<bytes { s[i] = s[i] &+ UInt16(src[i]) }
        }
    }

    /// floor((sum + n/2) / n) through a 32.32 reciprocal (exact for sums < 2^16).
    @inline(__always)
    private func divide(_ n: Int, _ bytes: Int, _ dst: UnsafeMutablePointer<UInt8>) {
        let half = UInt64(n / 2)
        let m = ((UInt64(1) << 32) + UInt64(n) - 1) / UInt64(n)
        let s = sums
        for i in 0..<bytes {
            dst[i] = UInt8(truncatingIfNeeded: ((UInt64(s[i]) &+ half) &* m) &>> 32)
        }
    }

    @inline(__always)
    private func combineMedian(_ n: Int, _ rowCap: Int, _ bytes: Int, _ dst: UnsafeMutablePointer<UInt8>) {
        network!.apply(scratch, rowStride: rowCap, length: bytes)
        let lo = scratch + ((n - 1) / 2) * rowCap
        if n & 1 == 1 {
            dst.update(from: lo, count: bytes)
        } else {
            let hi = scratch + (n / 2) * rowCap
            for i in 0..<bytes {
                let a = lo[i], b = hi[i]
                dst[i] = (a | b) &- ((a ^ b) &>> 1)   // ceil((a + b) / 2)
            }
        }
    }

    // MARK: scalar path (borders)

    @inline(__always)
    private func scalarPixel(_ taps: UnsafeBufferPointer<StackTap>, _ x: Int, _ y: Int, _ rowBytes: Int,
                             _ ps: Int, _ method: StackMethod, _ dst: UnsafeMutablePointer<UInt8>,
                             _ counts: UnsafeMutablePointer<Int>) {
        let cap = capacityFrames
        var cnt = 0
        for t in taps where t.covers(x, y) {
            let p = t.source + (y + t.iy) * rowBytes + (x + t.ix) * ps
            let x1 = t.qx, x0 = 16 - x1, y1 = t.qy, y0 = 16 - y1
            for c in 0..<ps {
                var v = Int(p[c]) * x0 * y0
                if x1 > 0 { v += Int(p[c + ps]) * x1 * y0 }
                if y1 > 0 { v += Int(p[c + rowBytes]) * x0 * y1 }
                if x1 > 0 && y1 > 0 { v += Int(p[c + rowBytes + ps]) * x1 * y1 }
                samples[c * cap + cnt] = UInt8(truncatingIfNeeded: (v + 128) >> 8)
            }
            cnt += 1
        }
        counts[cnt] += 1
        if cnt == 0 {
            for c in 0..<ps { dst[c] = 0 }
            return
        }
        for c in 0..<ps {
            let v = samples + c * cap
            if method == .mean {
                var s = 0
                for i in 0..<cnt { s += Int(v[i]) }
                dst[c] = UInt8(truncatingIfNeeded: (s + cnt / 2) / cnt)
            } else {
                // insertion sort of at most `frames` bytes
                if cnt > 1 {
                    for i in 1..<cnt {
                        let key = v[i]
                        var j = i - 1
                        while j >= 0 && v[j] > key { v[j + 1] = v[j]; j -= 1 }
                        v[j + 1] = key
                    }
                }
                if cnt & 1 == 1 {
                    dst[c] = v[cnt / 2]
                } else {
                    dst[c] = UInt8(truncatingIfNeeded: (Int(v[cnt / 2 - 1]) + Int(v[cnt / 2]) + 1) >> 1)
                }
            }
        }
    }
}
