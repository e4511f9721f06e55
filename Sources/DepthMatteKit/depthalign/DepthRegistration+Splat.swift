// SPDX-License-Identifier: LGPL-2.1-or-later
// DepthRegistration, Method.splat: each sample's footprint.

extension RegistrationJob {
    /// Project this band's depth rows into the padded SoA planes `su`, `sv`,
    /// `sz` (colour pixel and colour-axis z; z = 0 where invalid) and note
    /// each row's smallest and largest v.
    func projectFootprints(band: Int) {
        forEachRow(band: band) { projectFootprintRow($0, distortion: $1) }
    }

    @inline(__always)
    func projectFootprintRow(_ y: Int, distortion: Int) {
        // SIMD4 (one SSE register) with validity as sign bits: Swift lowers
        // SIMD masks and SIMD8 on baseline x86-64 to lane shuffles, and its
        // plain loops here to scalar code.
        typealias F = SIMD4<Float>
        typealias I = SIMD4<Int32>
        @inline(__always) func rbits(_ f: F) -> I { unsafeBitCast(f, to: I.self) }
        @inline(__always) func rfloat(_ i: I) -> F { unsafeBitCast(i, to: F.self) }
        let base = y * dw
        let ax = self.ax! + base, ay = self.ay! + base, az = self.az! + base
        let o = (y + 1) * ps + 1
        let U = su! + o, V = sv! + o, Z = sz! + o
        let src = UnsafeRawPointer(depth.base + y * depth.stride)
        let tx = F(repeating: self.tx), ty = F(repeating: self.ty), tz = F(repeating: self.tz)
        let fx = F(repeating: self.fx), fy = F(repeating: self.fy), ppx = F(repeating: self.ppx), ppy = F(repeating: self.ppy)
        let k1 = F(repeating: self.k1), k2 = F(repeating: self.k2), k3 = F(repeating: self.k3)
        let p1 = F(repeating: self.p1), p2 = F(repeating: self.p2)
        let r2max = F(repeating: self.r2max), zNear = F(repeating: self.zNear)
        let one = F(repeating: 1), two = F(repeating: 2), half = F(repeating: 0.5)
        let limit = I(repeating: Int32(bitPattern: Float(1e6).bitPattern)), absMask = I(repeating: 0x7FFF_FFFF)
        let inf = rbits(F(repeating: .infinity)), ninf = rbits(F(repeating: -.infinity))
        var vmin = F(repeating: .infinity), vmax = F(repeating: -.infinity)
        var x = 0
        while x < dw {
            let s: SIMD4<UInt16>
            if x + 4 <= dw {
                s = src.loadUnaligned(fromByteOffset: 2 * x, as: SIMD4<UInt16>.self)   // x86-64: little-endian
            } else {
                var t = SIMD4<UInt16>(repeating: 0)
                for j in 0..<(dw - x) { t[j] = src.loadUnaligned(fromByteOffset: 2 * (x + j), as: UInt16.self) }
                s = t
            }
            let d = F(I(truncatingIfNeeded: s))
            // (the ray planes are padded so the last row's tail may load past dw)
            let qx = d * UnsafeRawPointer(ax + x).loadUnaligned(as: F.self) + tx
            let qy = d * UnsafeRawPointer(ay + x).loadUnaligned(as: F.self) + ty
            let qz = d * UnsafeRawPointer(az + x).loadUnaligned(as: F.self) + tz
            // each term is negative exactly when its condition holds
            var ok = rbits(half - d) & rbits(zNear - qz)
            let m0 = ok &>> 31
            // (qz > zNear keeps the division finite for the lanes that count)
            let inv = one / rfloat((rbits(qz) & m0) | (rbits(one) & ~m0))
            var xn = qx * inv, yn = qy * inv
            let r2 = xn * xn + yn * yn
            ok &= rbits(r2 - r2max)
            if distortion != 0 {
                let f = one + r2 * (k1 + r2 * (k2 + r2 * k3))
                let xb = distortion == 2 ? xn * f : xn, yb = distortion == 2 ? yn * f : yn
                let xy2 = two * xb * yb
                let dx = p1 * xy2 + p2 * (r2 + two * xb * xb)
                let dy = p2 * xy2 + p1 * (r2 + two * yb * yb)
                xn = (distortion == 2 ? xb : xn * f) + dx
                yn = (distortion == 2 ? yb : yn * f) + dy
            }
            let u = xn * fx + ppx, v = yn * fy + ppy
            // |u|, |v| < 1e6 compared as integers (also refuses NaN)
            ok &= (rbits(u) & absMask) &- limit
            ok &= (rbits(v) & absMask) &- limit
            let valid = ok &>> 31
            let uo = rfloat(rbits(u) & valid), vo = rfloat(rbits(v) & valid), zo = rfloat(rbits(qz) & valid)
            if x + 4 <= dw {
                UnsafeMutableRawPointer(U + x).storeBytes(of: uo, as: F.self)
                UnsafeMutableRawPointer(V + x).storeBytes(of: vo, as: F.self)
                UnsafeMutableRawPointer(Z + x).storeBytes(of: zo, as: F.self)
            } else {
                for j in 0..<(dw - x) { U[x + j] = uo[j]; V[x + j] = vo[j]; Z[x + j] = zo[j] }
            }
            let vlo = rfloat(rbits(vo) | (inf & ~valid)), vhi = rfloat(rbits(vo) | (ninf & ~valid))
            let a = rbits(vlo - vmin) &>> 31
            vmin = rfloat((rbits(vlo) & a) | (rbits(vmin) & ~a))
            let b = rbits(vmax - vhi) &>> 31
            vmax = rfloat((rbits(vhi) & b) | (rbits(vmax) & ~b))
            x += 4
        }
        rowMin![y] = min(min(vmin[0], vmin[1]), min(vmin[2], vmin[3]))
        rowMax![y] = max(max(vmax[0], vmax[1]), max(vmax[2], vmax[3]))
    }

    /// Draw the footprints of the samples that reach this band's colour rows
    /// into the output with a z-buffer (nearest wins).
    ///
    /// A sample's footprint reaches, on each side, halfway to the neighbour
    /// on that side when the two agree within the jump (so the footprints of
    /// a surface tile the picture without gaps however the parallax stretches
    /// it), else `hx`/`hy` (under half a colour pixel: a step is never
    /// bridged, an occlusion shadow stays empty).
    /// Footprints grow by `footEpsY` between rows so the seams, which bend
    /// with the distortion, leave no pixel centre out.
    ///
    /// The output is the z-buffer: 0 (empty) compares as the largest value
    /// by comparing z − 1 wrapped, so no conversion pass is needed.
    func rasterFootprints(band: Int) {
        let r0 = ch * band / bands, r1 = ch * (band + 1) / bands
        if r0 >= r1 { return }
        let out = self.out!, stride = outStride, cw = self.cw
        for r in r0..<r1 { (out + r * stride).initializeMemory(as: UInt16.self, repeating: 0, count: cw) }
        let rowMin = self.rowMin!, rowMax = self.rowMax!
        // A footprint reaches at most halfway to the next row's sample, or
        // the step default beyond its own: rows whose neighbourhood misses
        // the band are skipped (the same rows in every band, so the bands'
        // results do not depend on the split).
        let margin = hy + footEpsY + 1
        let lo = Float(r0) - margin, hi = Float(r1) + margin
        let n = dw + 8
        let foot = footScratch! + band * footRows * n
        let f = Footprints(cl: foot, cr: foot + n, rt: foot + 2 * n, rb: foot + 3 * n, zTop: foot + 4 * n, zBottom: foot + 5 * n)
        let b = boundScratch! + band * boundRows * n
        let across = Boundaries(end: b, start: b + n, slope: b + 2 * n)
        let down = [Boundaries(end: b + 3 * n, start: b + 4 * n, slope: b + 5 * n),
                    Boundaries(end: b + 6 * n, start: b + 7 * n, slope: b + 8 * n)]
        var last = -2   // the latest boundary below a row computed into down[(y + 1) & 1]
        for y in 0..<dh {
            let y0 = max(y - 1, 0), y1 = min(y + 1, dh - 1)
            if max(rowMax[y0], max(rowMax[y], rowMax[y1])) < lo || min(rowMin[y0], min(rowMin[y], rowMin[y1])) > hi { continue }
            if last != y - 1 { verticalBoundaries(below: y - 1, into: down[y & 1]) }
            verticalBoundaries(below: y, into: down[(y + 1) & 1])
            last = y
            horizontalBoundaries(y, into: across)
            footprintRow(y, r0: r0, r1: r1, across: across, above: down[y & 1], below: down[(y + 1) & 1], f)
            drawFootprints(f)
        }
    }

    /// Draw one depth row's footprints (from `footprintRow`) into the output.
    @inline(__always)
    func drawFootprints(_ f: Footprints) {
        let out = self.out!, stride = outStride
        // z-buffer: 0 (empty) is the largest as z − 1 wrapped; branch-free
        @inline(__always) func put(_ p: UnsafeMutableRawPointer, _ z: UInt16) {
            let o = p.load(as: UInt16.self)
            p.storeBytes(of: o &- 1 > z &- 1 ? UInt16(littleEndian: z) : o, as: UInt16.self)
        }
        for x in 0..<dw {
            let r0 = Int(f.rt[x]), c0 = Int(f.cl[x])
            let nr = Int(f.rb[x]) &- r0, nc = Int(f.cr[x]) &- c0
            let top = UInt32(bitPattern: f.zTop[x]), bottom = UInt32(bitPattern: f.zBottom[x])
            let z00 = UInt16(truncatingIfNeeded: top), z10 = UInt16(truncatingIfNeeded: top >> 16)
            let z01 = UInt16(truncatingIfNeeded: bottom), z11 = UInt16(truncatingIfNeeded: bottom >> 16)
            let p = out + (r0 &* stride &+ 2 &* c0)
            if UInt(bitPattern: nr &- 1) < 2 && UInt(bitPattern: nc &- 1) < 2 {
                // up to 2x2 pixels (upsampling by less than 2); branches, not
                // repeated writes: those would chain through memory
                put(p, z00)
                if nc == 2 { put(p + 2, z10) }
                if nr == 2 {
                    put(p + stride, z01)
                    if nc == 2 { put(p + stride + 2, z11) }
                }
            } else if nr > 0 && nc > 0 {
                // larger (upsampling by 2 or more, or a stretched surface):
                // bilinear between the four corners' values
                let a = Float(z00), b = Float(z10), c = Float(z01), d = Float(z11)
                let sc = nc > 1 ? 1 / Float(nc - 1) : 0, sr = nr > 1 ? 1 / Float(nr - 1) : 0
                for r in 0..<nr {
                    let t = Float(r) * sr
                    let left = a + (c - a) * t, right = b + (d - b) * t
                    for col in 0..<nc {
                        let z = left + (right - left) * (Float(col) * sc)
                        put(p + r * stride + 2 * col, UInt16(z + 0.5))
                    }
                }
            }
        }
    }

    /// Between each sample and the next along u (in row y) or v (between
    /// rows y and y + 1): where the first one's footprint ends and the
    /// second one's starts (both halfway when the two agree within the jump,
    /// else each the step default away from its own sample), and the slope
    /// of z (0 when they do not agree). Padding samples (z = 0) agree with none.
    @inline(__always)
    func boundaries(_ za: R4, _ zb: R4, _ pa: R4, _ pb: R4, _ h: R4) -> (end: R4, start: R4, slope: R4) {
        let k = R4(repeating: jump), minDist = R4(repeating: 1.0 / 64)
        let dist = pb - pa
        // (dist > 1/64 also keeps the division finite where it counts)
        let d1: R4 = zb * k - za, d2: R4 = za * k - zb, d3: R4 = dist - minDist
        let agree: RI4 = ~((rbits(d1) | rbits(d2) | rbits(d3)) &>> 31)
        let mid: R4 = 0.5 * (pa + pb)
        let slope = (zb - za) / rpick(agree, dist, R4(repeating: 1))
        return (rpick(agree, mid, pa + h), rpick(agree, mid, pb - h), rfloat(rbits(slope) & agree))
    }

    /// Boundaries along row y: entry x is between samples x − 1 and x (x = 0…dw).
    @inline(__always)
    func horizontalBoundaries(_ y: Int, into b: Boundaries) {
        let o = (y + 1) * ps   // the padding sample left of the row
        let U = su! + o, Z = sz! + o
        let h = R4(repeating: hx)
        var x = 0
        while x <= dw {
            // (the padded planes hold 16 more values, so the last steps may load past the row)
            let r = boundaries(rload(Z + x), rload(Z + x + 1), rload(U + x), rload(U + x + 1), h)
            rstore(r.end, b.end + x); rstore(r.start, b.start + x); rstore(r.slope, b.slope + x)
            x += 4
        }
    }

    /// Boundaries between rows y and y + 1 (y = −1…dh − 1; padding beyond).
    @inline(__always)
    func verticalBoundaries(below y: Int, into b: Boundaries) {
        let o = (y + 1) * ps + 1
        let V = sv! + o, Z = sz! + o
        let h = R4(repeating: hy)
        var x = 0
        while x < dw {
            let r = boundaries(rload(Z + x), rload(Z + x + ps), rload(V + x), rload(V + x + ps), h)
            rstore(r.end, b.end + x); rstore(r.start, b.start + x); rstore(r.slope, b.slope + x)
            x += 4
        }
    }

    /// Depth row y's footprints: half-open colour column and row ranges
    /// (clipped to the picture and to rows r0..<r1; empty for invalid
    /// samples) and z at the corners of the range, each corner's z
    /// interpolated towards the horizontal and the vertical neighbour on its
    /// side when they agree (a plane through the three samples), so the
    /// colour pixels between samples get values between theirs.
    @inline(__always)
    func footprintRow(_ y: Int, r0: Int, r1: Int, across: Boundaries, above: Boundaries, below: Boundaries, _ f: Footprints) {
        let o = (y + 1) * ps + 1
        let U = su! + o, V = sv! + o, Z = sz! + o
        // ceil(x) as round-to-nearest(x + 0.49975) with the 1.5·2^23 trick
        // (a pixel centre within 2.5e-4 of an edge may go to either side;
        // both sides of a shared edge still agree), the eps folded in
        let magic = R4(repeating: 12582912), zMax = R4(repeating: 65535), zero = R4(repeating: 0)
        let kL = R4(repeating: 0.49975 - footEpsX), kR = R4(repeating: 0.49975 + footEpsX)
        let kT = R4(repeating: 0.49975 - footEpsY), kB = R4(repeating: 0.49975 + footEpsY)
        let cwF = R4(repeating: Float(self.cw)), r0F = R4(repeating: Float(r0)), r1F = R4(repeating: Float(r1))
        let oneF = R4(repeating: 1)
        @inline(__always) func fmin(_ a: R4, _ b: R4) -> R4 { rpick(rbits(a - b) &>> 31, a, b) }
        @inline(__always) func fmax(_ a: R4, _ b: R4) -> R4 { rpick(rbits(b - a) &>> 31, a, b) }
        @inline(__always) func int(_ m: R4) -> RI4 { rbits(m) &- 0x4B40_0000 }
        /// offset · the slope on the offset's side
        @inline(__always) func lean(_ offset: R4, _ before: R4, _ after: R4) -> R4 {
            offset * rpick(rbits(offset) &>> 31, before, after)
        }
        @inline(__always) func round(_ a: R4) -> RI4 { int(fmin(a, zMax) + magic) }
        var x = 0
        while x < dw {
            let u = rload(U + x), v = rload(V + x), z = rload(Z + x)
            let valid = rbits(zero - z) &>> 31                   // all ones where z > 0
            // first and one-past-last column and row, clipped (as floats + magic)
            let mc0 = fmax(rload(across.start + x) + kL, zero) + magic
            let mc1 = fmin(rload(across.end + x + 1) + kR, cwF) + magic
            let mr0 = fmax(rload(above.start + x) + kT, r0F) + magic
            let mr1 = fmin(rload(below.end + x) + kB, r1F) + magic
            rstore(int(mc0), f.cl + x); rstore(int(mc1), f.cr + x)
            rstore(int(mr0), f.rt + x); rstore(int(mr1) & valid, f.rb + x)   // (rows empty where invalid)
            // z at the first and last column and row of the footprint
            let sL = rload(across.slope + x), sR = rload(across.slope + x + 1)
            let sT = rload(above.slope + x), sB = rload(below.slope + x)
            let h0 = lean((mc0 - magic) - u, sL, sR), h1 = lean((mc1 - magic) - oneF - u, sL, sR)
            let v0 = lean((mr0 - magic) - v, sT, sB), v1 = lean((mr1 - magic) - oneF - v, sT, sB)
            let zt = z + v0, zb = z + v1
            rstore(round(zt + h0) | (round(zt + h1) &<< 16), f.zTop + x)
            rstore(round(zb + h0) | (round(zb + h1) &<< 16), f.zBottom + x)
            x += 4
        }
    }
}
