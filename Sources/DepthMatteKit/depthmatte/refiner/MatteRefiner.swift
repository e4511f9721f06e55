// SPDX-License-Identifier: LGPL-2.1-or-later
/// refine=guided: an edge-aware matte from depth and colour, README
/// step 2 (after step 1, the subject lock, has given the cutoff; steps 3 and
/// 4, the bicubic upscale and the blend, are `MatteCompositor`'s). Its
/// sub-steps, numbered as in the README, each in the file named after it:
///
///  2.1 three-state mask at depth resolution: the frame's decision
///      (`SubjectDecision`): subject, background, unknown (no reading and no
///      decision, not "far"); `refine(depth:)` makes it by the plain cut
///      (subject 0 < d <= cutoff, background d > cutoff, unknown d == 0);
///  2.2 hole fill: unknown pixels take the label of their nearest valid
///      neighbours, one pixel per pass from every side, subject winning
///      ties: the occlusion shadow and hair holes sit beside near objects
///      (`MatteRefiner+HoleFill`); a row run of holes between a subject and
///      a background reading (an occlusion shadow) is background except
///      `shadowMargin` pixels next to the subject, and counts as background
///      readings from then on (`shadowFill`, `shadowReadings`);
///  2.3 confidence and decision: a pixel is trusted only if it had a reading
///      and every filled label within `band` depth pixels agrees with it
///      (`backgroundBand`, 1, for background readings: the subject grows into
///      the background at a real sensor's edges, not the other way).
///      Holes, flying pixels on edges and the 1–2 px misregistration between
///      depth and colour all fall into the untrusted band
///      (`MatteRefiner+Trust`). Untrusted pixels are decided first: the side
///      (subject or background) whose nearest trusted colour within
///      `decisionRadius` is nearer wins (soft: d_bg / (d_fg + d_bg)); a
///      striped or multi-coloured wall has no useful mean colour. Where one
///      side has no trusted pixel in reach, a pixel whose colour matches the
///      other side's nearest trusted colour to within the noise
///      (`matchWidening`) searches on for it; otherwise the window mean
///      colours are compared (`MatteRefiner+Decide`);
///  2.4 a weighted guided filter (He et al., "Guided Image Filtering"; the
///      "fast" variant: coefficients at depth resolution) with the colour
///      frame's RGB as guide: the linear model α = a·I + b of every window is
///      fitted to the trusted labels and those decisions, so the matte edge
///      follows the colour edge inside the band (`MatteRefiner+Products`,
///      `MatteRefiner+Solve`, the box means of `MatteRefiner+BoxMean`). The
///      coefficients of the windows covering a pixel are averaged weighted
///      by how much of each window's label variance its colour model explains
///      (`fitWeighting`; `MatteRefiner+LowFit`). The smoothed coefficients
///      ā, b̄ are upsampled bilinearly to the output grid (up to 2× depth
///      resolution) and applied to the colour there (the video averaged over
///      each grid cell, `MatteRefiner+AreaGuide`), each value clamped to the
///      range of the four depth-resolution values around it (`rangeClamp`):
///      the fine colour places the edge but cannot dig thin dark lines out of
///      a subject region (`MatteRefiner+Output`);
///  2.5 a contrast of 1.5 around 0.5: the linear colour model leaves 0.9 on
///      shaded cloth and 0.1 on wall near the edge; 2 (after 2.6) where the
///      coarse fit has no edge (`flatContrast`);
///  2.6 temporal smoothing with the previous matte, weighted by how much a
///      pixel changed: small changes (noise, flicker on a still subject) are
///      averaged, large ones (motion, a new cutoff) are followed at once (no
///      ghost trail); where the colour did not change, a change of the matte
///      is depth noise and is held (`colourNoise`, `temporalLeak`); the same
///      at depth resolution before the fit: a decided label whose colour and
///      neighbourhood did not change is averaged with the previous one
///      (`labelHold`, applied in 2.4's `products`);
///  2.7 values within half an 8-bit level of 0 or 1 are snapped, so the
///      fused upscale and blend keeps its uniform fast path away from the edge;
///  2.8 where the colour model explains the labels poorly, the matte moves
///      towards its [1 2 1] smoothing with a contrast of 1.15 around 0.5, each
///      value kept on its side (`edgeContrast`; `RefinePass.edge`).
///
/// For step 3 it also leaves the colour model's gain per grid pixel in
/// `detail` (`colourDetail`): the compositor applies it to each video pixel
/// of the edge (`MatteDetail`).
///
/// Interior pixels (a filled label uniform within `band + interiorMargin`)
/// keep their label through 2.4–2.7: the colour model decides only near the edge.
///
/// The knobs named above (`band`, `shadowMargin`, `colourDetail`, ...) are
/// `tuning`'s (`MatteRefiner.Tuning`).
///
/// All buffers are kept between frames (`RefineScratch`) and only grow: no
/// heap allocation per frame once the sizes (and the thread count) are stable.
///
/// Threads: with a `WorkerPool`, every sub-step after the hole fill
/// is split into bands (`RefinePhase`, `RefinePass`): rows of the depth or
/// output grid, or whole planes for the box means (each band with its own
/// scratch plane and column sums). Every output value is computed by the same
/// expression in the same order whatever the band count, so the matte is
/// bit-identical for any `threads`.
@_spi(Bench) public struct MatteRefiner {
    /// The knobs (`MatteRefiner+Tuning`); everything else here is state
    /// kept between frames or the last frame's results.
    @_spi(Bench) public var tuning = Tuning()
    /// See `Tuning.heldParts`: the state it keeps between frames.
    var held = HeldPartState()
    /// The decaying counts of `Tuning.shadowSide` .auto: runs left and right of the
    /// subject, direct steps left and right.
    var shadowVotes = SIMD4<Float>(repeating: 0)
    /// The shadow sides the last frame used.
    @_spi(Bench) public private(set) var lastShadowSides: ShadowSides = .both
    /// Per output-grid pixel (gR, gG, gB, offset), 4 floats, or zeros where
    /// the colour model has no say (valid after `refine` with `Tuning.colourDetail`).
    private(set) var detail = FloatPlane()
    /// Per grid row of `detail`, the first and last column the colour model
    /// wrote (elsewhere the row is 0): the next frame clears only those.
    private var detailSpans: [Int32] = []
    private var detailSpanKey = (0, 0)

    /// The working memory of a pass (shared by copies of this refiner until
    /// one of them refines: then it takes its own).
    private(set) var scratch = RefineScratch()
    /// The previous matte on the output grid (2.6).
    private var previous = FloatPlane()
    /// The guide's colour on the output grid where 2.6 last saw it (three
    /// planes of the grid, R, G, B; written where the matte is evaluated).
    private var previousGuide = FloatPlane()
    private var havePrevious = false
    /// The label at depth resolution after 2.3 and the guide there (`Tuning.labelHold`).
    private var previousLabel = FloatPlane()
    /// The last frame's camera-motion estimate (depth pixels; `applied`: used).
    @_spi(Bench) public private(set) var motion = MotionEstimator()
    /// The labels of `refine(depth:)`'s plain cut.
    private let plainCut = DecisionBuffer()
    /// The depth rows and columns 2.8 read last frame (`RefinePass.edgeReach`).
    private var edgeReach = (rows: 0, columns: 0)
    /// The guide's luma at depth resolution, last frame (`Tuning.cameraMotion`).
    private var previousLuma = FloatPlane()

    init() {}

    /// Forget the previous matte (flush, restart, a mode change).
    mutating func reset() { havePrevious = false; held.frame &+= 2 }

    /// The refined matte of the plain cut of `depth` at `cutoff` (metres)
    /// (`DecisionBuffer.cut`) into `out`; see `refine(decision:)`.
    mutating func refine(depth: Depth16View, scale: Double, cutoff: Double, video: RGBImageView,
                         temporal: Bool = true, pool: WorkerPool? = nil, threads: Int = 1,
                         into out: inout FloatPlane) {
        let decision = plainCut.cut(depth, scale: scale, cutoff: cutoff)
        refine(decision: decision, video: video, temporal: temporal, pool: pool, threads: threads, into: &out)
    }

    /// The refined matte of `decision` on the output grid into `out`. With
    /// a `pool`, the work is split into up to `threads` bands (the result
    /// does not depend on it).
    mutating func refine(decision: SubjectDecision, video: RGBImageView,
                         temporal: Bool = true, pool: WorkerPool? = nil, threads: Int = 1,
                         into out: inout FloatPlane) {
        let t = tuning
        let dw = decision.width, dh = decision.height, n = dw * dh
        let k = max(1, min(t.maxUpscale, video.width / max(dw, 1), video.height / max(dh, 1)))
        let gw = dw * k, gh = dh * k, gn = gw * gh
        out.resize(width: gw, height: gh)
        let blend = temporal && havePrevious && previous.width == gw && previous.height == gh
        if previous.width != gw || previous.height != gh {
            previous.resize(width: gw, height: gh)
            previousGuide.resize(width: gw, height: 3 * gh)
        }
        havePrevious = true
        let labelOn = t.labelHold < 1 && t.colourNoise > 0
        let labelBlend = blend && labelOn && previousLabel.width == dw && previousLabel.height == 5 * dh
        if labelOn && (previousLabel.width != dw || previousLabel.height != 5 * dh) {
            previousLabel.resize(width: dw, height: 5 * dh)
        }
        let haveLuma = t.cameraMotion && temporal && previousLuma.width == dw && previousLuma.height == dh
        if t.cameraMotion && !haveLuma { previousLuma.resize(width: dw, height: dh) }
        var motion = MotionEstimator()
        if n == 0 { return }
        // more bands than depth rows would only idle
        let bands = pool == nil ? 1 : max(1, min(threads, dh))
        if !isKnownUniquelyReferenced(&scratch) { scratch = RefineScratch() }
        let s = scratch
        s.reserve(n: n, depthWidth: dw, gn: gn, bands: bands, videoWidth: video.width)
        if t.cameraMotion { s.motion.reserve(gn) }
        s.edgeBlocks.reserve(gh * RefinePass.edgeBlocksPerRow(gw))

        // 2.1 and 2.2 (serial: each pass of the fill reads the whole previous pass)
        labelAndFill(decision, video: video, temporal: temporal, scratch: s)
        s.gridRanges(video, width: gw, height: gh)
        s.outputColumns(gridWidth: gw, depthWidth: dw, k: k)

        // 2.3–2.7, phase by phase, each phase's bands on the pool
        previousLuma.pixels.withUnsafeMutableBufferPointer { prevLuma in
        previousLabel.pixels.withUnsafeMutableBufferPointer { prevLabel in
        previous.pixels.withUnsafeMutableBufferPointer { prev in
        previousGuide.pixels.withUnsafeMutableBufferPointer { prevGuide in
        if t.colourDetail {
            detail.resize(width: 4 * gw, height: gh)
            if detailSpanKey != (gw, gh) {
                // (a new size: every row is cleared once)
                detailSpanKey = (gw, gh)
                detailSpans = [Int32](repeating: Int32(gw - 1), count: 2 * gh)
                for y in 0..<gh { detailSpans[2 * y] = 0 }
            }
        }
        detailSpans.withUnsafeMutableBufferPointer { spans in
        detail.pixels.withUnsafeMutableBufferPointer { D in
        out.pixels.withUnsafeMutableBufferPointer { O in
            var pass = RefinePass(scratch: s, n: RefineLayout.planeStride(n), gn: RefineLayout.planeStride(gn),
                                  bands: bands, dw: dw, dh: dh, k: k, gw: gw, gh: gh, video: video,
                                  previous: prev.baseAddress!, previousGuide: prevGuide.baseAddress!, out: O.baseAddress!)
            pass.take(t)
            pass.blend = blend
            pass.detail = t.colourDetail ? D.baseAddress : nil
            if t.colourDetail { pass.detailSpans = spans.baseAddress! }
            if labelOn { pass.labelPrevious = prevLabel.baseAddress; pass.labelBlend = labelBlend }
            for i in 0..<n { pass.fill[i] = Float(s.filled[i]) }
            withUnsafeMutablePointer(to: &pass) { ctx in
                func run(_ phase: RefinePhase) {
                    ctx.pointee.phase = phase
                    WorkerPool.run(pool, bands: bands, context: UnsafeMutableRawPointer(ctx)) { raw, b in
                        raw.assumingMemoryBound(to: RefinePass.self).pointee.run(band: b)
                    }
                }
                for phase in RefinePhase.allCases {
                    // (2.8 off: its phase would only wait on the pool)
                    if phase == .edge && ctx.pointee.edgeContrast <= 0 { continue }
                    if phase == .sideMeans && !ctx.pointee.needsSideMeans { continue }
                    if phase == .products && t.cameraMotion {
                        // (2.6, camera motion: the guide at depth resolution is
                        // there, the temporal state not yet read)
                        MatteRefiner.followCamera(&motion, guide: ctx.pointee.L, dw: dw, dh: dh, k: k,
                                                  previousLuma: prevLuma.baseAddress!, haveLuma: haveLuma,
                                                  label: labelBlend ? prevLabel.baseAddress : nil,
                                                  grid: blend ? prev.baseAddress : nil,
                                                  gridGuide: blend && t.colourNoise > 0 ? prevGuide.baseAddress : nil,
                                                  scratch: s.motion.base, outlier: t.motionOutlier, gain: t.motionGain,
                                                  range: t.motionRange)
                        // (the slack is for the residual of a followed pan)
                        ctx.pointee.colourSlack = motion.applied ? t.colourSlack : 0
                    }
                    run(phase)
                    // (the fit only where it is read: `RefinePass.modelReach`)
                    if phase == .labelMeans { ctx.pointee.takeModelReach(everywhere: t.fitEverywhere, last: edgeReach) }
                    if phase == .output {
                        edgeReach = ctx.pointee.edgeReach
                        if ctx.pointee.needsCompletion() { run(.productMeans); run(.solve); run(.coefficientMeans) }
                    }
                }
            }
        }}}}}}}
        self.motion = motion
    }

    /// 2.1 and 2.2: the decision's labels into `s.label`, the occlusion
    /// shadows (as readings or for the fill), the held parts, and the
    /// filled label into `s.filled`.
    private mutating func labelAndFill(_ decision: SubjectDecision, video: RGBImageView,
                                       temporal: Bool, scratch s: RefineScratch) {
        let dw = decision.width, dh = decision.height, t = tuning
        s.label.base.update(from: decision.labels, count: dw * dh)
        // (with shadow readings, the shadow runs are marked in the mask itself
        // and the fill copies them; otherwise only the fill's copy gets them)
        let readings = t.shadowFill && t.shadowReadings
        let sides = t.shadowFill ? shadowSides(s.label.base, width: dw, height: dh) : .both
        lastShadowSides = sides
        if readings {
            MatteRefiner.shadowsAsReadings(labelPlane: s.label.base, width: dw, height: dh, shadowMargin: t.shadowMargin,
                                           sides: sides)
        }
        if readings && t.heldParts && temporal {
            // (the fill's spare plane is free until the fill: it holds the
            // components' marks)
            takeHeldParts(label: s.label.base, width: dw, height: dh, video: video, visited: s.spare.base,
                          members: s.members.base)
        }
        MatteRefiner.fillUnknown(labelPlane: s.label.base, filledPlane: s.filled.base, sparePlane: s.spare.base,
                                 width: dw, height: dh, passes: t.fillPasses, shadows: t.shadowFill && !readings,
                                 shadowMargin: t.shadowMargin, shadowSides: sides)
    }
}

/// `MatteRefiner.Tuning.shadowSide`.
@_spi(Bench) public enum ShadowSide: Sendable {
    /// From the holes themselves (`MatteRefiner.shadowRuns`).
    case auto
    case left, right
    /// Every run between the subject and the background (as before the edge strip).
    case both
}
