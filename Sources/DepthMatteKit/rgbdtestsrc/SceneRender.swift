// SPDX-License-Identifier: LGPL-2.1-or-later
/// Rendering `RGBDScene` into pictures: colour (anti-aliased edges), depth
/// (hard edges, optional sensor artefacts) and the ground-truth matte (the
/// subject's coverage of each pixel, the same coverage the colour render
/// blends with). Each pixel samples the scene at its centre.

/// Hash-based pseudo-random numbers: a pure function of its inputs.
enum SceneHash {
    /// splitmix64 finaliser.
    @inline(__always) static func mix(_ v: UInt64) -> UInt64 {
        var z = v &+ 0x9E37_79B9_7F4A_7C15
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    @inline(__always) static func hash(_ key: UInt64, _ x: Int, _ y: Int) -> UInt64 {
        mix(key ^ mix(UInt64(UInt32(truncatingIfNeeded: x)) << 32 | UInt64(UInt32(truncatingIfNeeded: y))))
    }
    /// Uniform in (0, 1) from 16 bits of `h` starting at `shift`.
    @inline(__always) static func unit(_ h: UInt64, _ shift: UInt64) -> Double {
        (Double((h >> shift) & 0xffff) + 0.5) / 65536
    }
    /// Approximately standard normal: the sum of four uniforms, centred and scaled.
    @inline(__always) static func gaussian(_ h: UInt64) -> Double {
        let s = (h & 0xffff) + ((h >> 16) & 0xffff) + ((h >> 32) & 0xffff) + (h >> 48)
        return (Double(s) - 131_070) / 37_837.2
    }
}

@inline(__always) func sceneByte(_ v: Double) -> UInt8 {
    let c = v + 0.5
    return UInt8(c < 0 ? 0 : (c > 255 ? 255 : c))
}

/// Coverage of a pixel by a shape at signed distance `sdRay` (ray units) from
/// the pixel centre, for pixels `invPixel` per ray unit.
@inline(__always) func sceneCoverage(_ sdRay: Double, _ invPixel: Double) -> Double {
    let a = 0.5 - sdRay * invPixel
    return a < 0 ? 0 : (a > 1 ? 1 : a)
}

extension RGBDScene {
    /// Ray units per pixel (the mean of the horizontal and vertical sizes).
    @inline(__always) func pixelSize(_ width: Int, _ height: Int) -> Double {
        0.5 * (1 / (focalX(width, height) * Double(width)) + 1 / (SceneLayout.focalY * Double(height)))
    }

    @inline(__always) func rayX(_ px: Int, _ width: Int, _ height: Int) -> Double {
        ((Double(px) + 0.5) / Double(width) - 0.5) / focalX(width, height)
    }
    @inline(__always) static func rayY(_ py: Int, _ height: Int) -> Double {
        ((Double(py) + 0.5) / Double(height) - 0.5) / SceneLayout.focalY
    }

    // MARK: - colour

    /// Render the colour picture; returns the face box (pixels of `out`) when
    /// the face is visible.
    ///
    /// Works in tiles of 8 x 8 pixels: each object's distance at the tile
    /// centre tells whether it misses the tile, covers it completely (then
    /// nothing behind it is drawn) or has an edge in it (then every pixel is
    /// blended with its coverage). The result is the same as testing every
    /// object at every pixel.
    @discardableResult
    public func renderVideo(_ out: RGBImageView) -> Box? {
        let w = out.width, h = out.height
        guard w > 0, h > 0 else { return nil }
        if let f = fitted(w, h) { return f.renderVideo(out) }
        let g = geo
        let invPix = 1 / pixelSize(w, h), margin = 2 / invPix
        let zd = SceneLayout.distractorDepth, zs = g.zs, zh = g.zHand
        let ps = out.pixelStride, ro = out.r, go = out.g, bo = out.b
        // Alpha, or the padding byte of xRGB-style formats: opaque 255 (as
        // videotestsrc does; some converters copy the padding into alpha).
        let ao = out.a >= 0 ? out.a : (ps == 4 ? 6 - ro - go - bo : -1)
        let tile = 8
        let falseFace = settings.falseFace
        withUnsafeTemporaryAllocation(of: Double.self, capacity: 2 * w + h) { table in
          withUnsafeTemporaryAllocation(of: SceneGeometry.WallColumn.self, capacity: w) { wallColumns in
            let cols = table.baseAddress!, wall = cols + w, rows = cols + 2 * w
            let wallColumn = wallColumns.baseAddress!
            videoRays(w, h, cols: cols, wall: wall, rows: rows, wallColumn: wallColumn)
            for ty in Swift.stride(from: 0, to: h, by: tile) {
                let ty1 = min(ty + tile, h)
                let yc = 0.5 * (rows[ty] + rows[ty1 - 1]), hy = 0.5 * (rows[ty1 - 1] - rows[ty])
                for tx in Swift.stride(from: 0, to: w, by: tile) {
                    let tx1 = min(tx + tile, w)
                    let xc = 0.5 * (cols[tx] + cols[tx1 - 1]), hx = 0.5 * (cols[tx1 - 1] - cols[tx])
                    // reach: 1.5 x the tile's half diagonal (slack for the
                    // approximate distances) plus the anti-aliasing margin
                    let reach = 1.5 * (hx * hx + hy * hy).squareRoot() + margin
                    var plantMode = g.inPlant(xc, yc, reach)
                        ? Self.tileMode(g.plant(xc, yc, cull: 1.01 * reach * zd).sd / zd, reach) : .miss
                    // a scene's chair, floor or door lies in front of the plant: per pixel
                    if g.hasExtras && plantMode == .full { plantMode = .edge }
                    let bodyMode = g.inBody(xc, yc, reach) ? Self.tileMode(g.body(xc, yc).sd / zs, reach) : .miss
                    let handMode = g.inHand(xc, yc, reach) ? Self.tileMode(g.hand(xc, yc).sd / zh, reach) : .miss

                    for py in ty..<ty1 {
                        let y = rows[py]
                        let row = out.row(py)
                        for px in tx..<tx1 {
                            let x = cols[px]
                            var c: SceneColor
                            if handMode == .full {
                                c = g.handColor(g.hand(x, y))
                            } else {
                                if bodyMode == .full {
                                    c = g.bodyColor(g.body(x, y))
                                } else {
                                    if plantMode == .full {
                                        c = g.plantColor(g.plant(x, y, cull: margin * zd))
                                    } else {
                                        c = backdropColor(g, x, y, wallColumn: wallColumn[px], wall: wall[px],
                                                          plantEdge: plantMode == .edge, falseFace: falseFace,
                                                          margin: margin, invPix: invPix)
                                    }
                                    if bodyMode == .edge && g.inBody(x, y, margin) {
                                        let b = g.body(x, y)
                                        let a = sceneCoverage(b.sd / zs, invPix)
                                        if a > 0 { c = g.bodyColor(b).over(c, a) }
                                    }
                                }
                                if handMode == .edge && g.inHand(x, y, margin) {
                                    let k = g.hand(x, y)
                                    let a = sceneCoverage(k.sd / zh, invPix)
                                    if a > 0 { c = g.handColor(k).over(c, a) }
                                }
                            }
                            let p = row + px * ps
                            p[ro] = sceneByte(c.r); p[go] = sceneByte(c.g); p[bo] = sceneByte(c.b)
                            if ao >= 0 { p[ao] = 255 }
                        }
                    }
                }
            }
          }
        }
        return faceBox(width: w, height: h)
    }

    /// Per column of a `w` x `h` picture its ray x (panned), the wall's
    /// depth there and its wall column; per row its ray y.
    private func videoRays(_ w: Int, _ h: Int, cols: UnsafeMutablePointer<Double>, wall: UnsafeMutablePointer<Double>,
                           rows: UnsafeMutablePointer<Double>, wallColumn: UnsafeMutablePointer<SceneGeometry.WallColumn>) {
        for px in 0..<w {
            cols[px] = rayX(px, w, h) + panOffset
            wall[px] = SceneGeometry.wallDepth(cols[px])
            (wallColumn + px).initialize(to: SceneGeometry.wallColumn(cols[px] * wall[px]))
        }
        for py in 0..<h { rows[py] = Self.rayY(py, h) }
    }

    /// The colour behind the body and the hand at ray (x, y): the wall (its
    /// column `wallColumn`, depth `wall`) with the poster's face, the
    /// plant's edge (`plantEdge`: the tile has one) and a scene's extras.
    @inline(__always)
    private func backdropColor(_ g: SceneGeometry, _ x: Double, _ y: Double, wallColumn: SceneGeometry.WallColumn,
                               wall: Double, plantEdge: Bool, falseFace: Bool, margin: Double, invPix: Double) -> SceneColor {
        let zd = SceneLayout.distractorDepth
        var c = SceneGeometry.wallColor(wallColumn, y * wall)
        if falseFace, let f = Self.posterFaceColor(x * wall, y * wall) { c = f }
        if plantEdge && g.inPlant(x, y, margin) {
            let p = g.plant(x, y, cull: margin * zd)
            let a = sceneCoverage(p.sd / zd, invPix)
            if a > 0 { c = g.plantColor(p).over(c, a) }
        }
        if g.hasExtras, let e = g.extras.hit(x, y, behind: wall) {
            let a = sceneCoverage(e.sd, invPix)
            if a > 0 { c = g.extras.color(x, y, part: e.part, depth: e.depth).over(c, a) }
        } else if g.hasExtras && g.extras.kind.hasChair {
            // anti-aliased outside the chair's outline too
            let cz = g.extras.chairZ
            let sd = sceneRoundBoxSD(x * cz, y * cz - (SceneExtras.chairTop + 1.0), SceneExtras.chairHalfWidth, 1.0, 0.06) / cz
            let a = sceneCoverage(sd, invPix)
            if a > 0 { c = g.extras.color(x, y, part: 1, depth: cz).over(c, a) }
        }
        return c
    }

    /// The printed face on the poster (wall-plane metres), nil outside it.
    @inline(__always) static func posterFaceColor(_ x: Double, _ y: Double) -> SceneColor? {
        let f = RGBDScene.posterFace
        let rx = x - f.x, ry = y - f.y
        guard sceneInEllipse(rx, ry, f.a, f.b) else { return nil }
        let nx = rx / f.a
        if ry < -0.06 + 0.035 * nx * nx { return SceneColor(50, 35, 25) }          // hair
        let ex = abs(rx) - 0.03
        if sceneInEllipse(ex, ry + 0.012, 0.014, 0.007) {
            return ex * ex + (ry + 0.012) * (ry + 0.012) < 0.004 * 0.004 ? SceneColor(20, 15, 15) : SceneColor(235, 235, 230)
        }
        if sceneInEllipse(ex, ry + 0.032, 0.017, 0.004) { return SceneColor(50, 35, 25) }   // eyebrows
        if sceneInEllipse(rx, ry - 0.055, 0.025, 0.008) { return SceneColor(165, 70, 75) }  // mouth
        let k2 = nx * nx + (ry / f.b) * (ry / f.b)
        return SceneColor(214, 168, 140).scaled(1 - 0.2 * k2 * k2)
    }

    enum TileMode { case miss, edge, full }

    /// How an object at distance `sdRay` (ray units) from a tile's centre
    /// meets a tile whose pixels are all within `reach` of the centre.
    @inline(__always) static func tileMode(_ sdRay: Double, _ reach: Double) -> TileMode {
        sdRay > reach ? .miss : (sdRay < -reach ? .full : .edge)
    }

    // MARK: - ground truth

    /// Render the ground-truth matte: 255 × the subject's coverage of each pixel.
    public func renderTruth(_ out: Gray8View) {
        let w = out.width, h = out.height
        guard w > 0, h > 0 else { return }
        if let f = fitted(w, h) { return f.renderTruth(out) }
        let g = geo
        let invPix = 1 / pixelSize(w, h), margin = 2 / invPix
        withUnsafeTemporaryAllocation(of: Double.self, capacity: w) { cols in
            for px in 0..<w { cols[px] = rayX(px, w, h) + panOffset }
            for py in 0..<h {
                let y = Self.rayY(py, h)
                let row = out.row(py)
                for px in 0..<w {
                    let x = cols[px]
                    var a = 0.0
                    if g.inBody(x, y, margin) { a = sceneCoverage(g.body(x, y).sd / g.zs, invPix) }
                    if g.inHand(x, y, margin) {
                        let ah = sceneCoverage(g.hand(x, y).sd / g.zHand, invPix)
                        a = ah + (1 - ah) * a
                    }
                    row[px] = sceneByte(255 * a)
                }
            }
        }
    }

    // MARK: - depth

    /// What the depth render needs from one ray.
    struct DepthHit {
        var depth: Double
        /// 0 subject body, 1 hand/arm, 2 plant, 3 wall
        var layer: Int
        /// hair on the top of the head (holes there)
        var hairTop: Bool
        /// No outline of a visible object passes within `edgeReach` of the ray
        /// (outlines hidden behind the hit object do not count).
        var clear: Bool
        /// an IR-absorbing surface (the binder): few readings
        var absorbing = false
    }

    /// The clean depth through ray (x, y); `wallZ` is the wall depth there.
    @inline(__always) func depthHit(_ x: Double, _ y: Double, wallZ: Double, edgeReach r: Double = 0) -> DepthHit {
        let g = geo
        var clear = true
        if g.inHand(x, y, r) {
            let k = g.hand(x, y)
            if abs(k.sd) <= r * g.zHand { clear = false }
            if k.sd < 0 { return DepthHit(depth: g.handDepth(k), layer: 1, hairTop: false, clear: clear) }
        }
        if g.inBody(x, y, r) {
            let b = g.body(x, y)
            if abs(b.sd) <= r * g.zs { clear = false }
            if b.sd < 0 {
                var hairTop = false
                if b.part == .head && b.py < -0.07 {
                    let nx = b.px / SceneGeometry.headA
                    hairTop = !g.faceVisible || b.py < -0.058 + 0.035 * nx * nx
                }
                return DepthHit(depth: g.bodyDepth(b), layer: 0, hairTop: hairTop, clear: clear, absorbing: b.part == .binder)
            }
        }
        if g.hasExtras, let e = g.extras.hit(x, y, behind: wallZ) {
            if e.part != 3 && abs(e.sd) <= r { clear = false }
            return DepthHit(depth: e.depth, layer: 2, hairTop: false, clear: clear)
        }
        if g.inPlant(x, y, r) {
            let zd = SceneLayout.distractorDepth
            let p = g.plant(x, y, cull: 0.01 + 1.01 * r * zd)
            if abs(p.sd) <= r * zd { clear = false }
            if p.sd < 0 { return DepthHit(depth: g.plantDepth(p), layer: 2, hairTop: false, clear: clear) }
        }
        return DepthHit(depth: wallZ, layer: 3, hairTop: false, clear: clear)
    }

    /// Structured-light occlusion: the projector (baseline to the right) cannot
    /// see a surface at depth `d` through ray (x, y) when a nearer layer covers
    /// the line towards it. Seen from the camera that line runs along the row,
    /// reaching depth z at x + baseline * (1/z - 1/d).
    @inline(__always) func inShadow(_ x: Double, _ y: Double, _ hit: DepthHit) -> Bool {
        let g = geo, b = SceneLayout.baseline, d = hit.depth
        if hit.layer != 1 && g.handRaised {
            let xs = x + b * (1 / g.zHand - 1 / d)
            if g.inHand(xs, y, 0) && g.hand(xs, y).sd < 0 { return true }
        }
        if hit.layer >= 2 {
            let xs = x + b * (1 / (g.zs + 0.03) - 1 / d)
            if g.inBody(xs, y, 0) && g.body(xs, y).sd < 0 { return true }
        }
        if hit.layer == 3 {
            let zd = SceneLayout.distractorDepth
            let xs = x + b * (1 / zd - 1 / d)
            if g.inPlant(xs, y, 0) && g.plant(xs, y, cull: 0.01).sd < 0 { return true }
        }
        return false
    }

    /// Noise correlated over patches: a normal value per 4 x 4 lattice cell,
    /// interpolated bilinearly, times 1.5, plus half a pixel's own (in units
    /// of sigma).
    @inline(__always) static func patchNoise(_ key: UInt64, _ x: Double, _ y: Double, pixel: UInt64) -> Double {
        let k2 = SceneHash.mix(key ^ 0xc0ffee)
        let fx = x * 0.25, fy = y * 0.25
        let ix = sceneFloor(fx), iy = sceneFloor(fy)
        let tx = fx - ix, ty = fy - iy
        let i = Int(ix), j = Int(iy)
        let a = SceneHash.gaussian(SceneHash.hash(k2, i, j)), b = SceneHash.gaussian(SceneHash.hash(k2, i + 1, j))
        let c = SceneHash.gaussian(SceneHash.hash(k2, i, j + 1)), e = SceneHash.gaussian(SceneHash.hash(k2, i + 1, j + 1))
        let top = a + (b - a) * tx, bottom = c + (e - c) * tx
        return 1.5 * (top + (bottom - top) * ty) + 0.5 * SceneHash.gaussian(SceneHash.mix(pixel ^ 0x9e37))
    }

    /// Render GRAY16_LE depth (units of `settings.depthScale`, 0 = no reading)
    /// into `height` rows of `stride` bytes at `base` (any alignment).
    public func renderDepth(base: UnsafeMutableRawPointer, width w: Int, height h: Int, stride: Int) {
        guard w > 0, h > 0 else { return }
        if let f = fitted(w, h) { return f.renderDepth(base: base, width: w, height: h, stride: stride) }
        let s = settings
        let scale = s.depthScale > 0 ? s.depthScale : 0.001
        let invScale = 1 / scale
        // Sensor artefacts change every frame even when the scene is still.
        let frameKey = UInt64(bitPattern: Int64((time * 1000).rounded()))
        let key = SceneHash.mix(SceneHash.mix(UInt64(s.seed)) ^ frameKey)
        let clusterKey = SceneHash.mix(SceneHash.mix(UInt64(s.seed) ^ 0x5eed) ^ UInt64(bitPattern: Int64((time * 5).rounded(.down))))
        let cell = 0.03, invCell = 1 / cell
        let fdx = 0.6 / (focalX(w, h) * Double(w)), fdy = 0.6 / (SceneLayout.focalY * Double(h))
        let shift = s.misregistration
        let k = SceneLayout.noiseCoefficient
        let random = s.noise || s.holes || s.flyingPixels || s.correlatedNoise
        // the readings' scale: `distanceScale`, and a selfie's own
        let worldScale = (s.distanceScale > 0 ? s.distanceScale : 1) * (s.scene == .selfie ? SceneExtras.selfieReadings : 1)

        // flying pixels: only rays with an outline within 1.5 sample offsets are resampled
        let edgeReach = s.flyingPixels ? 1.5 * (fdx * fdx + fdy * fdy).squareRoot() : 0
        withUnsafeTemporaryAllocation(of: Double.self, capacity: 2 * w) { table in
            let cols = table.baseAddress!, wall = cols + w
            for px in 0..<w {
                cols[px] = rayX(px - shift, w, h) + panOffset
                wall[px] = SceneGeometry.wallDepth(cols[px])
            }
            for py in 0..<h {
                let y = Self.rayY(py, h)
                for px in 0..<w {
                    let sx = px - shift                    // content moves right by `shift`
                    let x = cols[px]
                    let hit = depthHit(x, y, wallZ: wall[px], edgeReach: edgeReach)
                    var d = hit.depth
                    var hole = false
                    let rnd = random ? SceneHash.hash(key, sx, py) : 0   // noise
                    let rnd2 = random ? SceneHash.mix(rnd) : 0           // hair holes, flying mix
                    if s.holes {
                        if inShadow(x, y, hit) {
                            hole = true
                        } else if hit.hairTop && SceneHash.unit(rnd2, 0) < 0.5 {
                            hole = true
                        } else if hit.absorbing && SceneHash.unit(rnd2, 8) < s.absorbedShare {
                            hole = true
                        } else {
                            hole = clusterHole(x, y, key: clusterKey, cell: cell, invCell: invCell)
                        }
                    }
                    if !hole && s.flyingPixels && !hit.clear {
                        d = flyingDepth(x, y, d, fdx: fdx, fdy: fdy, draw: rnd2, edgeJitter: s.edgeJitter)
                    }
                    var v: UInt16 = 0
                    if !hole {
                        if worldScale != 1 { d *= worldScale }
                        if s.noise { d += k * d * d * SceneHash.gaussian(rnd) }
                        if s.correlatedNoise { d += k * d * d * Self.patchNoise(key, Double(sx), Double(py), pixel: rnd) }
                        if s.quantization && d > 0.05 {
                            let q = SceneLayout.quantization
                            d = 1 / (q * (1 / (q * d) + 0.5).rounded(.down))
                        }
                        let q = d * invScale + 0.5              // d > 0: truncation rounds
                        v = q < 1 ? 1 : (q >= 65535 ? 65535 : UInt16(q))
                    }
                    base.storeBytes(of: v.littleEndian, toByteOffset: py * stride + 2 * px, as: UInt16.self)
                }
            }
        }
        if s.filtered { Self.filterDepth(base: base, width: w, height: h, stride: stride, radius: max(1, w / 320)) }
    }

    /// Whether ray (x, y) falls in a cluster hole: one cell in 25 of a
    /// `cell`-metre grid holds a small disc (`key`: the clusters' draw).
    @inline(__always)
    private func clusterHole(_ x: Double, _ y: Double, key clusterKey: UInt64, cell: Double, invCell: Double) -> Bool {
        let ci = sceneFloor(x * invCell), cj = sceneFloor(y * invCell)
        let ch = SceneHash.hash(clusterKey, Int(ci), Int(cj))
        if SceneHash.unit(ch, 0) < 0.04 {
            let cx = (ci + 0.25 + 0.5 * SceneHash.unit(ch, 16)) * cell
            let cy = (cj + 0.25 + 0.5 * SceneHash.unit(ch, 32)) * cell
            let r = cell * (0.1 + 0.15 * SceneHash.unit(ch, 48))
            return (x - cx) * (x - cx) + (y - cy) * (y - cy) < r * r
        }
        return false
    }

    /// A flying pixel at ray (x, y) of depth d: where the four samples
    /// (±fdx, ±fdy) around it span a step, the depth is mixed between the
    /// two sides (`draw`: this pixel's random bits), or taken from one side
    /// (`edgeJitter`).
    @inline(__always)
    private func flyingDepth(_ x: Double, _ y: Double, _ d: Double, fdx: Double, fdy: Double, draw rnd2: UInt64,
                             edgeJitter: Bool) -> Double {
        var d = d
        var lo = d, hi = d
        var samples = (0.0, 0.0, 0.0, 0.0)
        let wl = SceneGeometry.wallDepth(x - fdx), wr = SceneGeometry.wallDepth(x + fdx)
        samples.0 = depthHit(x - fdx, y - fdy, wallZ: wl).depth
        samples.1 = depthHit(x + fdx, y - fdy, wallZ: wr).depth
        samples.2 = depthHit(x - fdx, y + fdy, wallZ: wl).depth
        samples.3 = depthHit(x + fdx, y + fdy, wallZ: wr).depth
        lo = min(lo, samples.0, samples.1, samples.2, samples.3)
        hi = max(hi, samples.0, samples.1, samples.2, samples.3)
        if hi - lo > 0.1 {
            let mid = 0.5 * (lo + hi)
            var far = 0.0
            if samples.0 > mid { far += 0.25 }
            if samples.1 > mid { far += 0.25 }
            if samples.2 > mid { far += 0.25 }
            if samples.3 > mid { far += 0.25 }
            if edgeJitter {
                // either side: near when the far share, less a
                // fattening bias, plus a fresh draw is under half
                d = far - 0.15 + 0.35 * SceneHash.gaussian(rnd2) < 0.5 ? lo : hi
            } else {
                var f = far + 0.4 * (SceneHash.unit(rnd2, 16) - 0.5)
                f = f < 0.15 ? 0.15 : (f > 0.85 ? 0.85 : f)
                d = lo + (hi - lo) * f
            }
        }
        return d
    }
}
