// SPDX-License-Identifier: LGPL-2.1-or-later
/// The guided pass (docs/quality.md step 2, refine=guided, sub-steps 2.3–2.7) on raw
/// planes: its phases, the layout of its planes, and the driver that runs
/// one phase's bands. The phases' pixel work is in the `MatteRefiner+…`
/// files named after them.

/// The phases of one guided pass, in order. Every phase is split into
/// `bands` parts with disjoint outputs (rows, or whole planes for the box
/// means) that the pool runs side by side; a phase starts when the previous
/// one has finished on every band.
enum RefinePhase: Int, CaseIterable {
    /// Box means of the filled label over `band` and over `band + interiorMargin`
    /// (2.3: trusted and interior pixels are where they are 0 or 1).
    case labelMeans
    /// The guide on the output grid: the video averaged over each grid cell
    /// (`MatteRefiner.areaRGB`).
    case gridGuide
    /// 2.3: trust weights, the guide at depth resolution and the products of
    /// the two-colour model (`RefinePass.trust`).
    case trust
    /// Box means of the two-colour products.
    case sideMeans
    /// 2.3: the decision of the untrusted pixels (`RefinePass.decide`).
    case decide
    /// 2.4: the decisions applied and the fit's products (`RefinePass.products`).
    case products
    /// Box means of the fit's products.
    case productMeans
    /// 2.4: the 3×3 solve of every window, and its fit confidence (`RefinePass.solve`).
    case solve
    /// Box means of the confidence-weighted coefficients.
    case coefficientMeans
    /// 2.4: their division by the summed confidence (`RefinePass.normalise`) and
    /// the fit at depth resolution for the range clamp (`RefinePass.lowFit`).
    case lowFit
    /// 2.4–2.7 on the output grid: coefficients upsampled and applied,
    /// range clamp, contrast, temporal smoothing, snap (`RefinePass.output`).
    case output
    /// 2.8 on the output grid: the edge's contrast (`RefinePass.edge`).
    case edge
}

/// The guide's colour channels, in plane order (values in [0, 1]).
enum GuideChannel: Int, CaseIterable {
    case r, g, b
}

/// The products of the two-colour model (phase `trust`), in plane order: the
/// weight of trusted subject (`subject…`) and trusted background
/// (`background…`) pixels, and that weight times R, G and B.
enum SideProduct: Int, CaseIterable {
    case subject, subjectR, subjectG, subjectB
    case background, backgroundR, backgroundG, backgroundB
}

/// The products of the weighted guided filter (phase `products`), in plane
/// order: the fit weight w times 1, the colour, the label p and their
/// products (`wpp` only for the fit confidence). Once the decisions are
/// applied every w is 1: the plane `w` is neither written nor averaged.
enum FitProduct: Int, CaseIterable {
    case w, wR, wG, wB, wp, wRp, wGp, wBp, wRR, wRG, wRB, wGG, wGB, wBB, wpp
}

/// The coefficients of each window's linear model α = a·I + b (phase
/// `solve`), in plane order, each times the window's fit confidence c, and c.
enum Coefficient: Int, CaseIterable {
    case aR, aG, aB, b, confidence
}

/// Consecutive planes `stride` floats apart, one per case of `Role`.
struct PlaneSet<Role: RawRepresentable> where Role.RawValue == Int {
    let base: UnsafeMutablePointer<Float>
    let stride: Int
    @inline(__always) subscript(_ role: Role) -> UnsafeMutablePointer<Float> { base + role.rawValue * stride }
    /// The plane of the role with raw value `i`.
    @inline(__always) func plane(_ i: Int) -> UnsafeMutablePointer<Float> { base + i * stride }
}

/// Where each float plane of a pass starts in the scratch arena, in planes
/// (of `RefineLayout.planeStride(depth pixels)` floats). Nothing in the arena
/// outlives the frame.
enum RefineLayout {
    /// The filled label (0 or 1), then the decided matte.
    static let fill = 0
    /// Fit weight: 1 trusted (then decided), `untrustedWeight` untrusted.
    static let weight = fill + 1
    /// Box mean of `fill` over `band`.
    static let boxed = weight + 1
    /// Box mean of `fill` over `interiorMargin + band` (must follow `boxed`:
    /// phase `labelMeans` writes both as consecutive planes).
    static let interior = boxed + 1
    /// The decision of each untrusted pixel.
    static let decision = interior + 1
    /// The guide at depth resolution (`GuideChannel`).
    static let guide = decision + 1
    /// The products (`SideProduct`, then `FitProduct`).
    static let products = guide + GuideChannel.allCases.count
    /// `FitProduct` without `w` in four groups of four planes' room, each
    /// interleaved (four floats per pixel; `RefinePass.productGroup`).
    static let productGroups = 4
    /// The fit at depth resolution (`lowFit`), in the room of the second
    /// product group, which is never stored: the first stays whole for the
    /// fit's completion before 2.8 (`RefinePass.modelReach`).
    static let low = products + 4
    /// The products' window means (planar, `FitProduct` order).
    static let productMeans = products + 4 * productGroups
    /// The coefficients: aR, aG, aB, b interleaved in the room of four planes
    /// (`RefinePass.coefficientGroup`), then the confidence.
    static let coefficients = productMeans + FitProduct.allCases.count
    /// The coefficients' window means.
    static let coefficientMeans = coefficients + Coefficient.allCases.count
    /// Four scratch planes per band (the box means' horizontal pass).
    static let bandScratch = coefficientMeans + Coefficient.allCases.count
    /// Planes on the output grid, after the band scratch planes: the guide there.
    static let gridPlanes = GuideChannel.allCases.count + 2
    /// Grid planes after the guide, for 2.8: the matte of 2.4–2.7
    /// (`RefinePass.raw`), and whether it is an interior pixel's label
    /// (`RefinePass.settled`, 1: 2.8 leaves it as it is).
    static let rawGridPlane = GuideChannel.allCases.count
    static let settledGridPlane = rawGridPlane + 1

    /// Floats in the arena for these plane strides: the planes at depth
    /// resolution, four scratch planes per band, the grid's planes.
    static func floats(n: Int, gn: Int, bands: Int) -> Int { (bandScratch + 4 * bands) * n + gridPlanes * gn }
    /// Floats from one plane to the next for `count` pixels: a multiple of 4
    /// KiB plus one cache line. The pixel loops read or write up to 15 planes
    /// at once; at 640x360 (4K video) planes exactly 900 KiB apart mapped onto
    /// the same cache sets and the products and solve ran ten times slower.
    static func planeStride(_ count: Int) -> Int { (count + 1023) / 1024 * 1024 + 16 }
}

/// Four floats at `p` (any alignment): the refiner's 4-pixel steps.
typealias F4 = SIMD4<Float>
@inline(__always) func loadF4(_ p: UnsafeMutablePointer<Float>) -> F4 { UnsafeRawPointer(p).loadUnaligned(as: F4.self) }
@inline(__always) func storeF4(_ v: F4, _ p: UnsafeMutablePointer<Float>) {
    UnsafeMutableRawPointer(p).storeBytes(of: v, as: F4.self)
}

/// One frame of refine=guided on raw planes, run phase by phase
/// (`RefinePhase`) by `run(band:)` on the pool's threads. Each value is
/// computed by the same expression in the same order as with one band, so
/// the result does not depend on the band count.
struct RefinePass {
    var phase = RefinePhase.labelMeans
    /// Plane strides (floats) at depth resolution and on the output grid.
    let n: Int, gn: Int, bands: Int
    /// Single planes at depth resolution (see `RefineLayout`).
    let fill, weight, boxed, interior, decision: UnsafeMutablePointer<Float>
    /// The guide at depth resolution, and on the output grid.
    let L, grid: PlaneSet<GuideChannel>
    /// The products of phase `trust` and their window means.
    let side, sideMeans: PlaneSet<SideProduct>
    /// The products of phase `products` and their window means.
    let P, M: PlaneSet<FitProduct>
    /// The coefficients and their window means.
    let C, CM: PlaneSet<Coefficient>
    /// The fit at depth resolution (phase `lowFit`): the range the output is clamped to.
    let low: UnsafeMutablePointer<Float>
    /// Four scratch planes per band.
    let tmp: UnsafeMutablePointer<Float>
    /// Running column sums of the box means: four rows of the depth width per band.
    let sums: UnsafeMutablePointer<Double>
    /// Per band: two rows of video-width sums for the guide (`areaRGB`).
    let videoSums: UnsafeMutablePointer<UInt32>
    /// The three-state mask (`DepthLabel` raw values).
    let label: UnsafePointer<UInt8>
    let dw: Int, dh: Int, k: Int, gw: Int, gh: Int
    let video: RGBImageView
    /// The video columns and rows bounding each grid cell (`gridRanges`).
    let columns: UnsafePointer<Int32>, rows: UnsafePointer<Int32>
    let previous: UnsafeMutablePointer<Float>, out: UnsafeMutablePointer<Float>
    /// On the output grid, for 2.8 (`edgeContrast` > 0): the matte of phase
    /// `output`, and 1 where it is an interior pixel's label.
    let raw: UnsafeMutablePointer<Float>, settled: UnsafeMutablePointer<Float>
    /// The guide where 2.6 last evaluated each grid pixel (R, G, B planes `gw·gh` apart).
    let previousGuide: UnsafeMutablePointer<Float>
    /// Per output-grid column: nearest, first and second bilinear depth column; the second's weight.
    let outputColumns: UnsafePointer<Int32>, outputWeights: UnsafePointer<Float>
    /// For 2.8: per 16 grid pixels of a row (`edgeBlocksPerRow` a row), 1 where
    /// `output` left a pixel that is not an interior pixel's label (0: phase
    /// `edge` has nothing to do there).
    let edgeBlocks: UnsafeMutablePointer<UInt8>
    /// Four per band: the depth rows and columns phase `output` reads the fit
    /// at, then those 2.8 reads the confidence at (`RefinePass.modelReach`).
    let reachBuffer: UnsafeMutablePointer<Int32>
    /// The coefficient means are computed on rows 0 ..< `fitRows`, columns
    /// 0 ..< `fitColumns` (the box means, the solve and the rest on what
    /// they reach): every value `output` and `edge` read (`RefinePass.modelReach`).
    var fitRows = 0, fitColumns = 0
    /// Phase `coefficientMeans` computes the confidence's mean alone (the
    /// completion for 2.8, `RefinePass.modelReach`).
    var confidenceOnly = false
    /// `RefineScratch.outputBases`, `outputOffsets`; nil: the output kernel cannot serve these sizes.
    let outputBases: UnsafePointer<Int32>?, outputOffsets: UnsafePointer<Int32>
    @inline(__always) static func edgeBlocksPerRow(_ gw: Int) -> Int { (gw + 15) >> 4 }
    // parameters (`MatteRefiner.Tuning`'s, copied by `take`)
    var band = 0, interiorRadius = 0, radius = 0, decisionRadius = 0
    /// 2.3: background readings are trusted when the label is uniform within
    /// this (`MatteRefiner.Tuning.backgroundBand`; boxed into the `decision` plane,
    /// free until phase `decide`, when it differs from `band`).
    var backgroundBand = 0
    var untrustedWeight: Float = 0, eps: Float = 0, contrast: Float = 1, base: Float = 0, gain: Float = 0
    var blend = false, rangeClamp = false, matchWidening = false
    /// 2.3's thin-part rule (`MatteRefiner.Tuning.thinParts`).
    var thinParts = false
    /// 2.6: colour noise on the grid and the hysteresis margin (`colourNoise`, `temporalHold`).
    var colourNoise: Float = 0, hold: Float = 0, leak: Float = 0
    /// 2.6: the colour change allowed per unit of the guide's slope (`colourSlack`).
    var colourSlack: Float = 0
    /// Squared colour distance within which a pixel matches a side (`matchWidening`).
    var matchNoise: Float = 0
    /// > 0: the coefficient means are weighted by each window's fit (`fitWeighting`).
    var fitFloor: Float = 0
    /// Step 3's colour detail per grid pixel (gR, gG, gB, offset), or nil (`colourDetail`).
    var detail: UnsafeMutablePointer<Float>? = nil
    /// With `detail`: per grid row, the first and last column whose detail
    /// the model wrote last frame; `output` clears those and records its own.
    var detailSpans: UnsafeMutablePointer<Int32>? = nil
    var detailGainLimit: Float = 1e9
    var detailMinSpread: Float = 0
    /// 2.6 at depth resolution (`labelHold`): the previous label, the guide
    /// and the label's mean over `band` where it was last followed (5 planes
    /// `dw·dh` apart), or nil; whether to
    /// blend with them, and the new label's weight where the guide is still;
    /// the change of the label's mean over `band` that is followed at once.
    var labelPrevious: UnsafeMutablePointer<Float>? = nil
    var labelShift: Float = 1
    var labelBlend = false
    var labelBase: Float = 1
    /// 2.5 where the coarse fit has no edge, applied after 2.6 (`flatContrast`).
    var flatContrast: Float = 1.5
    /// 2.8 (`edgeContrast`, `edgeGate`, `edgeKeepSide`).
    var edgeContrast: Float = 0, edgeGate: Float = 0, edgeKeepSide = true
    /// `DMKernels`' AVX2 kernels (`MatteRefiner.Tuning.kernels` and the CPU has AVX2).
    var avx2 = false

    init(scratch s: RefineScratch, n: Int, gn: Int, bands: Int,
         dw: Int, dh: Int, k: Int, gw: Int, gh: Int, video: RGBImageView,
         previous: UnsafeMutablePointer<Float>, previousGuide: UnsafeMutablePointer<Float>, out: UnsafeMutablePointer<Float>) {
        let F = s.planes.base
        self.n = n; self.gn = gn; self.bands = bands
        fill = F + RefineLayout.fill * n
        weight = F + RefineLayout.weight * n
        boxed = F + RefineLayout.boxed * n
        interior = F + RefineLayout.interior * n
        decision = F + RefineLayout.decision * n
        L = PlaneSet(base: F + RefineLayout.guide * n, stride: n)
        side = PlaneSet(base: F + RefineLayout.products * n, stride: n)
        sideMeans = PlaneSet(base: F + RefineLayout.productMeans * n, stride: n)
        P = PlaneSet(base: F + RefineLayout.products * n, stride: n)
        M = PlaneSet(base: F + RefineLayout.productMeans * n, stride: n)
        C = PlaneSet(base: F + RefineLayout.coefficients * n, stride: n)
        CM = PlaneSet(base: F + RefineLayout.coefficientMeans * n, stride: n)
        low = F + RefineLayout.low * n
        tmp = F + RefineLayout.bandScratch * n
        grid = PlaneSet(base: F + (RefineLayout.bandScratch + 4 * bands) * n, stride: gn)
        raw = grid.base + RefineLayout.rawGridPlane * gn
        settled = grid.base + RefineLayout.settledGridPlane * gn
        sums = s.columnSums.base; videoSums = s.videoSums.base; label = UnsafePointer(s.label.base)
        self.dw = dw; self.dh = dh; self.k = k; self.gw = gw; self.gh = gh
        self.video = video; columns = UnsafePointer(s.columnRange.base); rows = UnsafePointer(s.rowRange.base)
        self.previous = previous; self.out = out; self.previousGuide = previousGuide
        outputColumns = UnsafePointer(s.outputColumns.base); outputWeights = UnsafePointer(s.outputWeights.base)
        edgeBlocks = s.edgeBlocks.base; reachBuffer = s.reach.base
        fitRows = dh; fitColumns = dw
        outputBases = s.outputSteps ? UnsafePointer(s.outputBases.base) : nil
        outputOffsets = UnsafePointer(s.outputOffsets.base)
    }

    /// Group g of the products (phase `products`): four floats per pixel.
    @inline(__always) func productGroup(_ g: Int) -> UnsafeMutablePointer<Float> { P.base + 4 * g * n }
    /// aR, aG, aB, b of phase `solve`, four floats per pixel (the confidence is `C[.confidence]`).
    @inline(__always) var coefficientGroup: UnsafeMutablePointer<Float> { C.base }

    /// Rows `[count·b/bands, count·(b+1)/bands)`.
    @inline(__always) func share(_ count: Int, _ b: Int) -> Range<Int> {
        (count * b / bands)..<(count * (b + 1) / bands)
    }

    /// Band `b` of the current phase.
    func run(band b: Int) {
        switch phase {
        case .labelMeans:
            // `boxed` over `band`, `interior` over `interiorRadius`, and (when it
            // differs) the `decision` plane over `backgroundBand`, from one table
            // of the label's counts (each band its own, in its scratch planes)
            let table = UnsafeMutableRawPointer(tmp + b * 4 * n)
            let ys = share(dh, b)
            let reach = max(band, interiorRadius, backgroundBand)
            let rows = max(0, ys.lowerBound - reach)..<min(dh, ys.upperBound + reach)
            labelTable(table, rows: rows)
            labelMean(ys, radius: band, into: boxed, table: table, first: rows.lowerBound)
            labelMean(ys, radius: interiorRadius, into: interior, table: table, first: rows.lowerBound)
            if backgroundBand != band {
                labelMean(ys, radius: backgroundBand, into: decision, table: table, first: rows.lowerBound)
            }
            modelReach(ys, band: b)
        case .gridGuide:
            MatteRefiner.areaRGB(video, width: gw, height: gh, gridRows: share(gh, b), columns: columns, rows: rows,
                                 into: grid.base, planeStride: gn, columnSums: videoSums + b * 2 * video.width, avx2: avx2)
        case .trust:
            // the band's `tmp` is free in this phase (4·n floats; the ring needs dw)
            (tmp + b * 4 * n).withMemoryRebound(to: Int32.self, capacity: dw) { trust(share(dh, b), ring: $0) }
        case .sideMeans:
            boxMeans(b, src: side.base, step: n, dst: sideMeans.base, planes: SideProduct.allCases.count,
                     firstRadius: radius, radius: radius)  // (not run without `needsSideMeans`)
        case .decide:
            // untrusted pixels gather along the subject's edge, unevenly over the
            // rows: every bands-th row, not a block of rows, balances the bands
            decide(stride(from: b, to: dh, by: bands))
        case .products:
            products(share(dh, b))
        case .productMeans:
            // (the four groups of `products`, groups 1 to 3 made from group 0
            // as they are read; `wpp` only for the fit confidence; `w` is 1
            // everywhere, its mean too)
            var g = b
            while g < RefineLayout.productGroups {
                MatteRefiner.boxMean4(productGroup(0), into: M.plane(FitProduct.wR.rawValue + 4 * g), planeStride: n,
                                      lanes: g < 3 ? 4 : (fitFloor > 0 ? 2 : 1), width: dw, height: dh, radius: radius,
                                      tmp: tmp + b * 4 * n, sums: sums + b * 4 * dw, avx2: avx2, group: g,
                                      rows: solveRows, columns: solveColumns)
                g += bands
            }
        case .solve:
            solve(share(solveRows, b), columns: solveColumns)
        case .coefficientMeans:
            // (the group (aR, aG, aB, b), then the confidence only when the
            // coefficients are weighted by it)
            var j = confidenceOnly ? 1 + b : b
            while j < (fitFloor > 0 ? 2 : 1) {
                if j == 0 {
                    MatteRefiner.boxMean4(coefficientGroup, into: CM.base, planeStride: n, lanes: 4, width: dw, height: dh,
                                          radius: radius, tmp: tmp + b * 4 * n, sums: sums + b * 4 * dw, avx2: avx2,
                                          rows: fitRows, columns: fitColumns)
                } else {
                    MatteRefiner.boxMean(C[.confidence], into: CM[.confidence], width: dw, height: dh, radius: radius,
                                         tmp: tmp + b * 4 * n, sums: sums + b * 4 * dw, rows: fitRows, columns: fitColumns)
                }
                j += bands
            }
        case .lowFit:
            if fitFloor > 0 { normalise(share(fitRows, b)) }
            if rangeClamp { lowFit(share(fitRows, b)) }
        case .output:
            output(share(gh, b), band: b)
        case .edge:
            edge(share(gh, b))  // (not run with `edgeContrast` 0)
        }
    }

    /// 2.3's window means of the two sides (`sideMeans`) decide a pixel only
    /// where the nearest-colour search found a side missing; a search window
    /// (`decisionRadius`) that covers the mean's (`radius`) leaves that side
    /// without a trusted pixel in the mean's window too, and `meanSides` then
    /// keeps the label: the 8 products and their means are not needed.
    var needsSideMeans: Bool { !(decisionRadius > 0 && decisionRadius >= radius) }

    /// Planes `first + b`, `first + b + bands`, ... of `planes` (source `src + c·step`, result
    /// `dst + c·n`), with this band's own scratch plane and column sums; plane
    /// 0 over `firstRadius`, the others over `radius`.
    func boxMeans(_ b: Int, src: UnsafeMutablePointer<Float>, step: Int, dst: UnsafeMutablePointer<Float>,
                  planes: Int, firstRadius: Int, radius: Int, thirdRadius: Int? = nil, from first: Int = 0) {
        var c = first + b
        while c < planes {
            MatteRefiner.boxMean(src + c * step, into: dst + c * n, width: dw, height: dh,
                                 radius: c == 0 ? firstRadius : (c == 2 ? thirdRadius ?? radius : radius), tmp: tmp + b * 4 * n,
                                 sums: sums + b * 4 * dw)
            c += bands
        }
    }
}
