// SPDX-License-Identifier: LGPL-2.1-or-later
// DepthRegistration's per-frame job: its buffers, the projection by depth
// rows and the mesh drawing by colour rows (Method.mesh), and the SIMD
// helpers both methods use.

/// One frame's work and the buffers it uses; the bands of the two passes
/// (projection by depth rows, drawing by colour rows) run on the pool.
struct RegistrationJob {
    // per calibration
    var dw = 0, dh = 0, cw = 0, ch = 0
    var ax: UnsafeMutablePointer<Float>?, ay: UnsafeMutablePointer<Float>?, az: UnsafeMutablePointer<Float>?
    var tx: Float = 0, ty: Float = 0, tz: Float = 0
    var fx: Float = 1, fy: Float = 1, ppx: Float = 0, ppy: Float = 0
    var k1: Float = 0, k2: Float = 0, p1: Float = 0, p2: Float = 0, k3: Float = 0
    var model = DistortionModel.none
    var r2max: Float = 0
    var zNear: Float = 0
    // per frame
    var depth = Depth16View(base: UnsafeRawPointer(bitPattern: 1)!, width: 0, height: 0, stride: 0)
    var out: UnsafeMutableRawPointer?
    var outStride = 0
    var jump: Float = 1.05
    var bands = 1
    // scratch
    var pu: UnsafeMutablePointer<Float>?, pv: UnsafeMutablePointer<Float>?, pz: UnsafeMutablePointer<Float>?
    var rowMin: UnsafeMutablePointer<Float>?, rowMax: UnsafeMutablePointer<Float>?
    var zbuf: UnsafeMutablePointer<Float>?
    // splat: per sample its colour pixel and z (0 = invalid), in planes with
    // a row of padding all round (row y at (y + 1) · ps + 1); per band five
    // rows of footprints (columns, rows, z); the footprints' half sizes
    var ps = 0
    var su: UnsafeMutablePointer<Float>?, sv: UnsafeMutablePointer<Float>?, sz: UnsafeMutablePointer<Float>?
    var footScratch: UnsafeMutablePointer<Int32>?
    var boundScratch: UnsafeMutablePointer<Float>?
    var hx: Float = 0.47, hy: Float = 0.47
    // how far footprints grow beyond the boundaries: none along a row (the
    // halfway boundaries tile it exactly); a little between rows, whose
    // boundaries bend with the distortion and differ from column to column
    var footEpsX: Float = 0, footEpsY: Float = 0.05

    // MARK: projection

    /// `row(y, distortion)` for each depth row of `band`, the lens model as
    /// a literal (0 none, 1 Brown-Conrady, 2 inverse Brown-Conrady) so that
    /// each model gets its own inlined row loop.
    @inline(__always)
    func forEachRow(band: Int, _ row: (_ y: Int, _ distortion: Int) -> Void) {
        let y0 = dh * band / bands, y1 = dh * (band + 1) / bands
        for y in y0..<y1 {
            switch model {
            case .none: row(y, 0)
            case .brownConrady: row(y, 1)
            case .inverseBrownConrady: row(y, 2)
            }
        }
    }

    func project(band: Int) {
        forEachRow(band: band) { projectRow($0, distortion: $1) }
    }

    @inline(__always)
    func projectRow(_ y: Int, distortion: Int) {
        let ax = self.ax!, ay = self.ay!, az = self.az!, pu = self.pu!, pv = self.pv!, pz = self.pz!
        let src = (depth.base + y * depth.stride).assumingMemoryBound(to: UInt16.self)
        let tx = self.tx, ty = self.ty, tz = self.tz, fx = self.fx, fy = self.fy, ppx = self.ppx, ppy = self.ppy
        let k1 = self.k1, k2 = self.k2, p1 = self.p1, p2 = self.p2, k3 = self.k3
        let r2max = self.r2max, zNear = self.zNear
        let base = y * dw
        var vmin = Float.infinity, vmax = -Float.infinity
        for x in 0..<dw {
            let i = base + x
            let d = Float(UInt16(littleEndian: src[x]))
            let qx = d * ax[i] + tx, qy = d * ay[i] + ty, qz = d * az[i] + tz
            let valid0 = d > 0 && qz > zNear
            let inv = valid0 ? 1 / qz : 0
            var xn = qx * inv, yn = qy * inv
            let r2 = xn * xn + yn * yn
            let valid1 = valid0 && r2 < r2max
            if distortion == 1 {
                let f = 1 + r2 * (k1 + r2 * (k2 + r2 * k3))
                let dx = xn * f + 2 * p1 * xn * yn + p2 * (r2 + 2 * xn * xn)
                let dy = yn * f + 2 * p2 * xn * yn + p1 * (r2 + 2 * yn * yn)
                xn = dx; yn = dy
            } else if distortion == 2 {
                let f = 1 + r2 * (k1 + r2 * (k2 + r2 * k3))
                let xf = xn * f, yf = yn * f
                xn = xf + 2 * p1 * xf * yf + p2 * (r2 + 2 * xf * xf)
                yn = yf + 2 * p2 * xf * yf + p1 * (r2 + 2 * yf * yf)
            }
            let u = xn * fx + ppx, v = yn * fy + ppy
            // (the bound also refuses NaN from absurd coefficients)
            let valid = valid1 && abs(u) < 1e6 && abs(v) < 1e6
            pu[i] = valid ? u : 0
            pv[i] = valid ? v : 0
            pz[i] = valid ? qz : 0
            vmin = min(vmin, valid ? v : .infinity)
            vmax = max(vmax, valid ? v : -.infinity)
        }
        rowMin![y] = vmin
        rowMax![y] = vmax
    }

    // MARK: drawing

    func raster(band: Int) {
        let r0 = ch * band / bands, r1 = ch * (band + 1) / bands
        if r0 >= r1 { return }
        let zbuf = self.zbuf!
        (zbuf + r0 * cw).initialize(repeating: .infinity, count: (r1 - r0) * cw)
        let rowMin = self.rowMin!, rowMax = self.rowMax!
        let lo = Float(r0) - 1, hi = Float(r1)
        for y in 0..<(dh - 1) {
            let a = min(rowMin[y], rowMin[y + 1]), b = max(rowMax[y], rowMax[y + 1])
            if b < lo || a > hi { continue }
            drawCellRow(y, r0: r0, r1: r1)
        }
        // to GRAY16
        let out = self.out!
        for r in r0..<r1 {
            let z = zbuf + r * cw
            let o = (out + r * outStride).assumingMemoryBound(to: UInt16.self)
            for c in 0..<cw {
                let v = z[c]
                let q = v < 65535 ? v + 0.5 : (v == .infinity ? 0 : 65535)
                o[c] = UInt16(littleEndian: UInt16(q))
            }
        }
    }

    /// The cells between depth rows y and y + 1, drawn into colour rows r0..<r1.
    @inline(__always)
    func drawCellRow(_ y: Int, r0: Int, r1: Int) {
        let pu = self.pu!, pv = self.pv!, pz = self.pz!, zbuf = self.zbuf!
        let cw = self.cw, jump = self.jump
        let top = y * dw, bottom = top + dw
        let fr0 = Float(r0), fr1 = Float(r1 - 2)   // a 2x2 block at row r fits when r0 <= r <= r1 - 2
        let fcMax = Float(cw - 2)
        for x in 0..<(dw - 1) {
            let z00 = pz[top + x], z10 = pz[top + x + 1], z01 = pz[bottom + x], z11 = pz[bottom + x + 1]
            let zlo = min(min(z00, z10), min(z01, z11)), zhi = max(max(z00, z10), max(z01, z11))
            if zhi == 0 { continue }
            let u00 = pu[top + x], u10 = pu[top + x + 1], u01 = pu[bottom + x], u11 = pu[bottom + x + 1]
            let v00 = pv[top + x], v10 = pv[top + x + 1], v01 = pv[bottom + x], v11 = pv[bottom + x + 1]
            let c00 = Corner(u00, v00, z00), c10 = Corner(u10, v10, z10)
            let c01 = Corner(u01, v01, z01), c11 = Corner(u11, v11, z11)
            guard zlo > 0 && zhi <= zlo * jump else {
                partialCell(c00, c10, c01, c11, zlo: zlo, zhi: zhi, r0: r0, r1: r1)
                continue
            }
            let umin = min(min(u00, u10), min(u01, u11)), umax = max(max(u00, u10), max(u01, u11))
            let vmin = min(min(v00, v10), min(v01, v11)), vmax = max(max(v00, v10), max(v01, v11))
            // first pixel centre at or right of / below the cell's box
            let cl = ceilF(umin), rt = ceilF(vmin)
            if cl > umax || rt > vmax { continue }   // no pixel centre inside
            let e1x = u10 - u00, e1y = v10 - v00
            let e2x = u11 - u00, e2y = v11 - v00
            let e3x = u01 - u00, e3y = v01 - v00
            let cA = e1x * e2y - e1y * e2x
            let cB = e2x * e3y - e2y * e3x
            if umax < cl + 2 && vmax < rt + 2 && cl >= 0 && cl <= fcMax && rt >= fr0 && rt <= fr1
                && cA > 1e-6 && cB > 1e-6 {
                // the cell's pixel centres are among a 2x2 block: one SIMD step
                let px = SIMD4<Float>(cl, cl + 1, cl, cl + 1), py = SIMD4<Float>(rt, rt, rt + 1, rt + 1)
                let qx = px - u00, qy = py - v00
                let k2 = qx * e2y - qy * e2x            // cross(q, e2)
                let ia = 1 / cA, ib = 1 / cB
                let alpha = k2 * ia                     // weight of c10 in A
                let beta = (qy * e1x - qx * e1y) * ia   // cross(e1, q): weight of c11 in A
                let gamma = (qx * e3y - qy * e3x) * ib  // cross(q, e3): weight of c11 in B
                let delta = -k2 * ib                    // cross(e2, q): weight of c01 in B
                let one = SIMD4<Float>(repeating: 1)
                let mA = lanesMin(lanesMin(alpha, beta), one - alpha - beta)
                let mB = lanesMin(lanesMin(gamma, delta), one - gamma - delta)
                let zA = z00 + alpha * (z10 - z00) + beta * (z11 - z00)
                let zB = z00 + gamma * (z11 - z00) + delta * (z01 - z00)
                let eps = SIMD4<Float>(repeating: -1e-4), inf = SIMD4<Float>(repeating: .infinity)
                let z = select(mA .>= eps, zA, select(mB .>= eps, zB, inf))
                let o = UnsafeMutableRawPointer(zbuf + Int(rt) * cw + Int(cl))
                let a = o.loadUnaligned(as: SIMD2<Float>.self)
                o.storeBytes(of: lanesMin(a, z.lowHalf), as: SIMD2<Float>.self)
                let o2 = o + 4 * cw
                let b = o2.loadUnaligned(as: SIMD2<Float>.self)
                o2.storeBytes(of: lanesMin(b, z.highHalf), as: SIMD2<Float>.self)
            } else {
                triangle(c00, c10, c11, r0: r0, r1: r1)
                triangle(c00, c11, c01, r0: r0, r1: r1)
            }
        }
    }

    /// A cell that is not four valid, agreeing corners: if exactly three
    /// corners are valid and agree (the fourth missing, or alone on the other
    /// side of a step), draw their triangle.
    @inline(never)
    func partialCell(_ c00: Corner, _ c10: Corner, _ c01: Corner, _ c11: Corner, zlo: Float, zhi: Float,
                     r0: Int, r1: Int) {
        // which corner to leave out: the invalid one, else the farthest, else the nearest
        let zs = SIMD4<Float>(c00.z, c10.z, c01.z, c11.z)
        let valid = (zs .> 0)
        var count = 0
        for k in 0..<4 where valid[k] { count += 1 }
        if count < 3 { return }
        var drop = -1
        if count == 3 {
            for k in 0..<4 where !valid[k] { drop = k }
        } else {
            for pass in 0..<2 {
                let cand = pass == 0 ? zhi : zlo
                var k = 0
                while zs[k] != cand { k += 1 }
                var lo = Float.infinity, hi: Float = 0
                for j in 0..<4 where j != k { lo = min(lo, zs[j]); hi = max(hi, zs[j]) }
                if hi <= lo * jump { drop = k; break }
            }
            if drop < 0 { return }
        }
        var lo = Float.infinity, hi: Float = 0
        for j in 0..<4 where j != drop { lo = min(lo, zs[j]); hi = max(hi, zs[j]) }
        if hi > lo * jump { return }
        // counter-clockwise (in the picture, y down: clockwise on screen) as the quad's two halves
        switch drop {
        case 0: triangle(c10, c11, c01, r0: r0, r1: r1)
        case 1: triangle(c00, c11, c01, r0: r0, r1: r1)
        case 2: triangle(c00, c10, c11, r0: r0, r1: r1)
        default: triangle(c00, c10, c01, r0: r0, r1: r1)
        }
    }

    /// Draw a triangle (a, b, c in the quad's winding; back-facing ones are
    /// culled) into colour rows r0..<r1 with the z-buffer.
    @inline(never)
    func triangle(_ a: Corner, _ b: Corner, _ c: Corner, r0: Int, r1: Int) {
        let e1x = b.u - a.u, e1y = b.v - a.v, e2x = c.u - a.u, e2y = c.v - a.v
        let area = e1x * e2y - e1y * e2x
        if !(area > 1e-6) { return }
        let ia = 1 / area
        let umin = min(a.u, min(b.u, c.u)), umax = max(a.u, max(b.u, c.u))
        let vmin = min(a.v, min(b.v, c.v)), vmax = max(a.v, max(b.v, c.v))
        let cl = max(0, Int(ceilF(umin))), cr = min(cw - 1, Int(floorF(umax)))
        let rt = max(r0, Int(ceilF(vmin))), rb = min(r1 - 1, Int(floorF(vmax)))
        if cl > cr || rt > rb { return }
        let zbuf = self.zbuf!
        let eps: Float = -1e-4, one: Float = 1 + 1e-4
        let dz1 = b.z - a.z, dz2 = c.z - a.z
        for r in rt...rb {
            let qy = Float(r) - a.v
            let row = zbuf + r * cw
            for col in cl...cr {
                let qx = Float(col) - a.u
                let s = (qx * e2y - qy * e2x) * ia
                let t = (qy * e1x - qx * e1y) * ia
                if s >= eps && t >= eps && s + t <= one {
                    let z = a.z + s * dz1 + t * dz2
                    if z < row[col] { row[col] = z }
                }
            }
        }
    }
}

/// One depth row's footprints in the band's scratch: colour columns
/// cl..<cr, rows rt..<rb, z at (cl, rt) | (cr − 1, rt) << 16 and at
/// (cl, rb − 1) | (cr − 1, rb − 1) << 16.
struct Footprints {
    var cl, cr, rt, rb, zTop, zBottom: UnsafeMutablePointer<Int32>
}

/// Rows of `Footprints` per band.
let footRows = 6

/// One line of boundaries between neighbouring samples (`boundaries`).
struct Boundaries {
    var end, start, slope: UnsafeMutablePointer<Float>
}

/// Rows of `Boundaries` per band: along the row, and two between rows.
let boundRows = 9

typealias R4 = SIMD4<Float>
typealias RI4 = SIMD4<Int32>
@inline(__always) func rbits(_ f: R4) -> RI4 { unsafeBitCast(f, to: RI4.self) }
@inline(__always) func rfloat(_ i: RI4) -> R4 { unsafeBitCast(i, to: R4.self) }
/// m ? a : b lane by lane, m all ones or all zeros per lane (bit operations)
@inline(__always) func rpick(_ m: RI4, _ a: R4, _ b: R4) -> R4 { rfloat((rbits(a) & m) | (rbits(b) & ~m)) }
@inline(__always) func rload(_ p: UnsafeMutablePointer<Float>) -> R4 { UnsafeRawPointer(p).loadUnaligned(as: R4.self) }
@inline(__always) func rstore(_ v: R4, _ p: UnsafeMutablePointer<Float>) { UnsafeMutableRawPointer(p).storeBytes(of: v, as: R4.self) }
@inline(__always) func rstore(_ v: RI4, _ p: UnsafeMutablePointer<Int32>) { UnsafeMutableRawPointer(p).storeBytes(of: v, as: RI4.self) }

/// A projected depth sample: colour pixel (u, v) and colour-axis depth z (0 = none).
struct Corner {
    var u: Float, v: Float, z: Float
    @inline(__always) init(_ u: Float, _ v: Float, _ z: Float) { self.u = u; self.v = v; self.z = z }
}

/// floor and ceil for |x| < 2^22 without a libm call (baseline x86-64 has no
/// rounding instruction).
@inline(__always) func floorF(_ x: Float) -> Float {
    let i = Float(Int32(x))
    return i > x ? i - 1 : i
}
@inline(__always) func ceilF(_ x: Float) -> Float {
    let i = Float(Int32(x))
    return i < x ? i + 1 : i
}

/// m ? a : b, lane by lane, with bit operations (no per-lane branches).
@inline(__always) func select(_ m: SIMDMask<SIMD4<Int32>>, _ a: SIMD4<Float>, _ b: SIMD4<Float>) -> SIMD4<Float> {
    let mi = unsafeBitCast(m, to: SIMD4<UInt32>.self)
    let ai = unsafeBitCast(a, to: SIMD4<UInt32>.self), bi = unsafeBitCast(b, to: SIMD4<UInt32>.self)
    return unsafeBitCast((ai & mi) | (bi & ~mi), to: SIMD4<Float>.self)
}
@inline(__always) func lanesMin(_ a: SIMD4<Float>, _ b: SIMD4<Float>) -> SIMD4<Float> { select(a .< b, a, b) }
@inline(__always) func lanesMin(_ a: SIMD2<Float>, _ b: SIMD2<Float>) -> SIMD2<Float> {
    SIMD2(a.x < b.x ? a.x : b.x, a.y < b.y ? a.y : b.y)
}
