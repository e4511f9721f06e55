// SPDX-License-Identifier: LGPL-2.1-or-later
extension MatteRefiner {
    /// The tuning knobs of the refiner (docs/quality.md step 2), apart from its state.
    /// `refine` reads them once per frame: the pass driver copies them into
    /// `RefinePass` before any band runs, so the per-pixel code never reads
    /// through this struct. Benchmarks and tests set them with
    /// `refiner.tuning.x = ...`.
    @_spi(Bench) public struct Tuning: Sendable {
        /// Window radius of the guided filter, in depth pixels (depth maps are at
        /// most 400 px wide here, so about 2.5 % of the picture width or more).
        /// Chosen by quality-bench (4, 6, 8 tried): 6 with the nearest-colour
        /// decision below gives the best IoU and the fewest hand pixels lost.
        @_spi(Bench) public var radius = 6
        /// Guided-filter regularisation (colour in [0, 1]): colour steps well
        /// above sqrt(eps) ≈ 0.03 are followed, flatter texture (and sensor
        /// noise) is smoothed; 1e-3 is the usual feathering value in He et al.
        @_spi(Bench) public var eps: Float = 1e-3
        /// Half-width, in depth pixels, of the untrusted band around the depth edge.
        @_spi(Bench) public var band = 2
        /// 2.3, trust of background readings: a background
        /// reading is trusted when the filled label is background within this
        /// many depth pixels (subject readings: within `band`). A real sensor's
        /// subject grows into the background at its edges (edge fattening of a
        /// matcher's window, flying pixels, a misregistration that shifts it),
        /// so the untrusted band belongs mostly on the subject's side; a
        /// background reading one pixel from the subject's label is already
        /// wall, and the colour model beside the edge learns from it.
        /// 1: real-bench IoU 0.9243 (Aloe, 1.8 m) and 0.9454 (Motorcycle,
        /// 2.67 m), where 0 (trust every background reading) gives 0.891
        /// (docs/steady-edges.md).
        @_spi(Bench) public var backgroundBand = 1
        /// Weight of untrusted pixels in the fit (small, not zero: a window with no
        /// trusted pixel falls back to the filled mask).
        var untrustedWeight: Float = 1e-3
        /// Passes of the hole fill (depth pixels reached from a valid neighbour);
        /// unknown pixels farther away count as background.
        var fillPasses = 16
        /// 2.2, occlusion shadows: a run of holes along a row between
        /// a subject reading and a background reading is the wall beside a near
        /// object that the projector (or the second camera) cannot see, so it is
        /// filled as background, not split between the two sides; 2.3's colour
        /// decision still takes its pixels near the subject that look like it.
        @_spi(Bench) public var shadowFill = true
        /// The pixels of such a run next to the subject that the ordinary fill
        /// still decides (subject winning ties): the depth edge may sit this far
        /// from the colour edge (misregistration, fattening).
        @_spi(Bench) public var shadowMargin = 4
        /// 2.2 (with `shadowFill`): the pixels of an occlusion shadow run that
        /// the shadow fill made background (all but the `shadowMargin` next to
        /// the subject) count as background READINGS from then on: trusted in
        /// 2.3 and interior when far enough from the edge, like the wall they
        /// are. Before, every hole stayed untrusted and never interior, so deep
        /// in a wide shadow the colour model alone decided, and on a
        /// multi-coloured wall it keyed in wall that matches the subject's
        /// colours. real-bench IoU +0.0013 to +0.0018 (docs/steady-edges.md);
        /// quality-bench `3 5`: SAD lower on every portrait and sensor clip.
        @_spi(Bench) public var shadowReadings = true
        /// 2.2: the side of a near object its occlusion shadow falls
        /// on. A projector-camera pair (or a stereo pair) leaves it on one side
        /// only: on the left in the reference camera's picture for a Kinect v1,
        /// a RealSense D400 and Middlebury's left views, on the right when the
        /// picture is mirrored. Holes on the other side are no shadow but a part
        /// of the subject with no reading (a dark, IR-absorbing binder sticking
        /// out past the torso, black hair): as shadows they became background
        /// readings and the colour never had a say. `.auto` measures it
        /// (`shadowRuns`): on the shadow side nearly every step from the subject
        /// to the background crosses a run of holes, on the other side only a
        /// dark part's rows do; a side is taken once its share of such runs is
        /// `shadowSideRatio` times the other's. Until then, and with `.both`,
        /// every run counts (as before).
        @_spi(Bench) public var shadowSide: ShadowSide = .auto
        /// See `shadowSide`.
        var shadowSideRatio: Float = 2
        /// See `shadowSide`: runs (decaying by 0.8 a frame) before a side is taken.
        var shadowSideRuns: Float = 20
        /// 2.2 (`MatteRefiner+HeldParts`): a component of holes mostly
        /// bordered by the subject whose edge to the room moves with it (a dark,
        /// IR-absorbing part the subject carries, with no reading at all) becomes
        /// subject readings; a pocket of holes behind the subject stays holes.
        /// quality-bench, the binder with no reading (`QB_ABSORB=1`), fully in
        /// view: carryBinder IoU 0.99 (0.88 without).
        var heldParts = true
        /// See `heldParts`: the smallest component, as a share of the depth map.
        var heldPartArea: Float = 0.005
        /// See `heldParts`: the least share of subject readings on its border.
        var heldPartShare: Float = 0.5
        /// See `heldParts`: the least share of its edge to the room that changed.
        var heldPartMotion: Float = 0.25
        /// See `heldParts`: ... and how many times the room's own changed share.
        var heldPartRatio: Float = 4
        /// See `heldParts`: a change of luma (0-1) that counts as moved.
        var heldPartChange: Float = 8.0 / 255
        /// See `heldParts`: the least difference of mean luma (0-1) between the
        /// component and the room's readings next to it.
        var heldPartContrast: Float = 0.1
        /// See `heldParts`: the room measured around a component, depth pixels.
        var heldPartMargin = 8
        /// 2.6, temporal smoothing: the weight of the new matte is
        /// min(1, temporalBase + temporalGain·|Δ|), Δ its change from the previous one.
        @_spi(Bench) public var temporalBase: Float = 0.35
        /// See `temporalBase`: a change of (1 − temporalBase) / temporalGain or
        /// more is followed at once.
        @_spi(Bench) public var temporalGain: Float = 3
        /// 2.6, colour evidence: the colour frame's noise on the output grid
        /// (each grid value is a mean over 4 or more video pixels: a camera's
        /// 2–3 levels of noise per pixel, 1–1.5 levels there, 3σ ≈ 4 levels).
        /// Where the guide changed by less than this since the last frame (the
        /// largest channel change), nothing moved there and a change of the
        /// matte can only come from the depth's noise: it is held (see
        /// `temporalHold`). A change of twice this or more is motion: the matte
        /// follows at once. Between the two, both ramp. 0 turns the hold off.
        /// On (4/255): on real structured-light depth
        /// (`Benchmarks/real-bench`, whose sensor model flips edge pixels as
        /// real matchers do) a still pair flipped 2,200–3,100 pixels by more
        /// than 0.2 without it, about 140 with it (leak 0.35), and the swaying
        /// clip's dtSSD fell from 1.16x to 1.01x of the original chain; the cost
        /// on the synthetic portraits is about +2 % SAD (a uniform shirt's edge
        /// moving in depth is followed through the leak). docs/steady-edges.md.
        @_spi(Bench) public var colourNoise: Float = 4.0 / 255
        /// 2.6, colour evidence on a moving picture: the colour change that
        /// still counts as "nothing moved" grows by this times the guide's slope
        /// there (its change per grid pixel). After a pan is followed
        /// (`cameraMotion`) the previous guide lies within a fraction of a
        /// pixel of the new one, and across a colour edge that fraction alone
        /// changes the colour by far more than the noise: without the slack the
        /// matte follows the depth's noise exactly along the edges. A real
        /// move of a pixel or more changes an edge's colour by its whole step,
        /// twice the slack's allowance at 0.5. Used only on frames whose camera
        /// motion was followed. A held edge moves only as far as the motion
        /// estimate says, so the slack is worth what the estimate is worth:
        /// at 0.5 (docs/quality.md) the real Motorcycle pan's dtSSD falls
        /// from 0.98x to 0.90x of the original chain and the synthetic pan
        /// keeps its figures; at 1 the synthetic pan's held edge lags
        /// behind its frame-to-frame estimate errors (dtSSD +8 %).
        @_spi(Bench) public var colourSlack: Float = 0.5
        /// 2.6, hysteresis: where the colour did not change, the matte keeps its
        /// previous value unless the new one differs by more than this (a
        /// decisive change of the evidence, e.g. an edge pixel whose depth now
        /// reads clearly the other side and whose colour side agrees; interior
        /// pixels follow their label at once anyway).
        @_spi(Bench) public var temporalHold: Float = 0.5
        /// 2.6: a held pixel still moves this fraction of the way to the new
        /// value each frame, so a change the colour cannot see (a uniform
        /// shirt's edge moving in depth) is reached within a few frames while
        /// one noisy frame moves it by at most this much. 0.25 (with
        /// `labelHold` 0.2): real-bench still clips' dtSSD 0.34x the original
        /// chain's (Aloe), 0.46-0.47x (Motorcycle) (docs/steady-edges.md).
        @_spi(Bench) public var temporalLeak: Float = 0.25
        /// Output grid = depth resolution × this (at most; never above the video).
        @_spi(Bench) public var maxUpscale = 2
        /// Pixels whose filled label is uniform within `band + interiorMargin`
        /// depth pixels keep that label (the colour model decides only near the edge).
        @_spi(Bench) public var interiorMargin = 4
        /// Untrusted pixels take the label whose nearest trusted colour within
        /// this many depth pixels is nearer (0: compare with the window means).
        @_spi(Bench) public var decisionRadius = 6
        /// Contrast around 0.5 applied to the filtered matte (1 = none): the
        /// linear colour model leaves values like 0.9 on shaded cloth and 0.1 on
        /// the wall near the edge; 1.5 maps [1/6, 5/6] onto [0, 1]. Edges stay
        /// soft over about 2/3 of their filtered width.
        @_spi(Bench) public var contrast: Float = 1.5
        /// Clamp each output-grid value to the range of the four depth-resolution
        /// values around it (α = ā·I + b̄ with the guide averaged to depth
        /// resolution): the fine colour only places the edge within the local
        /// range and cannot dig a thin dark line (fingers, eyes) out of a region
        /// the coarse model calls foreground. quality-bench (4 s at 10 fps): 3
        /// hand pixels > 2 px inside the outline keyed out per clip (30 without).
        @_spi(Bench) public var rangeClamp = true
        /// An untrusted pixel with trusted colours of only one side within
        /// `decisionRadius` keeps its filled label, unless its colour matches
        /// that side's nearest trusted colour to within the noise (squared RGB
        /// distance <= `eps`): then the search widens (2x, 3x) for the other
        /// side, and the nearest-colour decision p moves the filled label f only
        /// as far as it is clear: f + c·(p − f), c = |d_bg − d_fg| / (d_bg + d_fg).
        @_spi(Bench) public var matchWidening = true
        /// 2.3, thin parts: an untrusted pixel with no trusted subject
        /// pixel within `decisionRadius` (a rod, a cable, a strand one or two
        /// depth pixels wide is all within the band) and whose colour does not
        /// match the nearest trusted background colour is decided against the
        /// colours of the subject READINGS (untrusted) within `band` + 1 depth
        /// pixels: where depth says a thin part is there, colour places it,
        /// instead of the part keeping only the half of it the misregistered
        /// depth overlaps. No subject reading near: no thin part (colour alone
        /// does not invent one).
        @_spi(Bench) public var thinParts = true
        /// The coefficients of the windows covering a pixel are averaged weighted
        /// by how well each window's linear model fits its labels (a weighted
        /// aggregation of the overlapping local models instead of the plain box
        /// mean of He et al.): ā = Σ c_k a_k / Σ c_k with
        /// c_k = 1 − s_k · (var_k(p) − X_k) / (var_k(p) + fitFloor), where X_k is
        /// the part of the window's label variance its colour model explains
        /// (var − X = E_k, the mean squared residual) and s_k = tr Σ_k / (tr Σ_k + eps)
        /// says whether the window's colours vary enough to have explained it.
        /// A window whose labels its colours cannot separate (skin between two
        /// wall colours whose mean is nearly skin) counts little; a uniform
        /// window, one whose edge the colour follows, and a flat-colour window
        /// (no colour evidence: its edge stays a soft ramp) count fully.
        /// `fitFloor` keeps a window of nearly uniform labels counting fully.
        /// quality-bench (4 s at 10 fps, with a floor of 1e-3): 8-11 hand
        /// pixels keyed out per clip (28-30 with the plain box mean).
        @_spi(Bench) public var fitWeighting = true
        /// 2.8: where the colour model leaves the labels unexplained (fit
        /// confidence c < 1, `fitWeighting`), the output grid moves by
        /// u = min(1, (1 − c)·`edgeGate`) towards its [1 2 1]/4 smoothing with
        /// this contrast around 0.5 (0: off). On real depth the colour model
        /// leaves grey patches where a window mixes subject and background
        /// colours it cannot separate, and the quarter-resolution labels leave
        /// a ragged, noisy edge: the smoothing evens the edge, the contrast
        /// sends the greys to their side. 1.15: real-bench Motorcycle fast pan
        /// SAD 6.54 (6.84 off) and dtSSD 0.95x the original chain's; a larger
        /// contrast lowers SAD further and raises the still clip's flicker
        /// (docs/steady-edges.md).
        @_spi(Bench) public var edgeContrast: Float = 1.15
        /// 2.8's gain on the fit's uncertainty 1 − c (0: everywhere; without
        /// `fitWeighting` there is no confidence and 2.8 acts everywhere).
        @_spi(Bench) public var edgeGate: Float = 2
        /// 2.8 keeps each value on its side of 0.5 and at least half its
        /// distance from it: the smoothing alone would key out a thin part the
        /// colour cannot separate from its background (a finger between two
        /// wall colours), which colour and depth both say is there.
        @_spi(Bench) public var edgeKeepSide = true
        /// Added to a window's label variance in `fitWeighting`'s c_k: the larger,
        /// the less a partly explained window is discounted (0.25 is the largest
        /// variance of a 0/1 label). 0.03: on real structured-light depth
        /// (`Benchmarks/real-bench`) the weights of 1e-3 follow the sensor's label
        /// noise from frame to frame; with 0.03 the Motorcycle pan's SAD is 7.48
        /// (8.11 at 1e-3) and the synthetic hand keeps a thin finger
        /// (`fingerMatte`).
        @_spi(Bench) public var fitFloor: Float = 0.03
        /// Step 3's colour detail: the output grid is coarser than the
        /// video (2x the depth resolution at most), so its edge is a ramp of 3–4
        /// video pixels that moves in whole grid cells. Where the colour model
        /// decided a grid pixel (not clamped, not saturated), its gain
        /// G = contrast·ā and offset G·Ī (Ī: the guide averaged over the cell)
        /// go to `detail`; the compositor adds G·I − G·Ī at every video pixel of
        /// the edge, so the edge lands where the full-resolution colour puts it
        /// and moves with it by fractions of a pixel.
        @_spi(Bench) public var colourDetail = true
        /// The largest gain |G| (per unit of colour, summed over R, G, B) the detail may carry.
        @_spi(Bench) public var detailGainLimit: Float = 2
        /// The detail goes only where the four depth-resolution fit values around
        /// a grid pixel span at least this much (an edge of the coarse fit; with
        /// `rangeClamp`): inside a region the coarse fit calls one side, the fine
        /// colour's texture would only add flicker and dig dark details out of
        /// it. real-bench still clip dtSSD 0.70-0.76x the original chain's
        /// (0.83-0.88x with the detail everywhere).
        @_spi(Bench) public var detailMinSpread: Float = 0.5
        /// 2.5 where the coarse fit has no edge (the four depth-resolution fit
        /// values around a grid pixel span less than `detailMinSpread`): the
        /// contrast there, applied after 2.6 (so the temporal smoothing sees the
        /// milder value and the noise is not amplified before it). Such pixels
        /// lie in a region the coarse model calls one side, and values like 0.3
        /// there are the colour model's imprint of texture near the edge (a
        /// patterned wall behind leaves), not coverage. 2: real-bench SAD 16 %
        /// lower than with `contrast` there, quality-bench portrait SAD
        /// 0.70-0.77 (with `labelHold`). Equal to `contrast`: off.
        @_spi(Bench) public var flatContrast: Float = 2
        /// 2.6 at depth resolution, before the fit: where
        /// the guide at depth resolution did not change by more than
        /// `colourNoise` since the label there was last followed, and the
        /// label's mean over `band` did not shift (`labelShift`), the decided
        /// label (2.3) is blended with the previous one, the new one weighted
        /// this much (1 = off; needs `colourNoise` > 0). A real sensor's fresh
        /// noise every frame flips edge labels; held only at the output (2.6),
        /// every flip still moved the fit and the window models around it.
        /// 0.2 (with `temporalLeak` 0.25): real-bench still clip dtSSD
        /// 0.46-0.48x the original chain's (0.70-0.76x at 1), 3-19 label flips
        /// per frame pair. Lag: kept off the moving edge by `labelShift` and the
        /// colour (`LabelHoldTests`).
        @_spi(Bench) public var labelHold: Float = 0.2
        /// See `labelHold`: a change of the label's mean over `band` (a
        /// (2·band+1)² window) of this much or more since the label was last
        /// followed is followed at once: a new cutoff or an edge that moved
        /// shifts it coherently (the drift of a slow one adds up until it does),
        /// while the depth's noise flips single pixels (1/25 each with `band` 2).
        /// 0.15: the synthetic pan's worst IoU 0.9963 (0.3 holds its edge back:
        /// 0.9938).
        @_spi(Bench) public var labelShift: Float = 0.15
        /// 2.6, camera motion (`MatteRefiner+Motion`): when one
        /// translation of the picture explains the change since the last frame
        /// (a pan, a hand-held camera), the temporal state (2.6 on the output
        /// grid, `labelHold` at depth resolution) is moved with it first, so the
        /// hold works while the camera moves as it does on a still one.
        @_spi(Bench) public var cameraMotion = true
        /// `DMKernels`' AVX2 kernels where the CPU has AVX2 (the box means of
        /// the fit, the solve, the label means, the output grid and 2.8); false:
        /// the Swift kernels. The matte is the same
        /// to the bit either way.
        @_spi(Bench) public var kernels = true
        /// The fit of 2.4 in every window; false: only where the output
        /// grid and 2.8 read it (`RefinePass.modelReach`). The matte is the
        /// same to the bit either way.
        @_spi(Bench) public var fitEverywhere = false
        /// The shift is used only when the luma residual with it is below this
        /// fraction of the residual without it (the picture really moved as one).
        @_spi(Bench) public var motionGain: Float = 0.9
        /// ... and when it is at most this many depth pixels per frame (faster
        /// motion is followed at once by 2.6 anyway).
        var motionRange: Float = 2
        /// Luma residuals (0–1) beyond this count less in the estimate (a person
        /// moving over a still room does not drag it).
        @_spi(Bench) public var motionOutlier: Float = 0.05

        init() {}
    }
}

extension RefinePass {
    /// The knobs the bands read, copied from `t` (once per frame, before
    /// any band runs). The frame's state (`blend`, `detail`, the previous
    /// label) is set by `MatteRefiner.refine`.
    mutating func take(_ t: MatteRefiner.Tuning) {
        band = t.band; backgroundBand = t.backgroundBand; interiorRadius = t.interiorMargin + t.band
        radius = t.radius; untrustedWeight = t.untrustedWeight; eps = t.eps
        decisionRadius = t.decisionRadius; contrast = t.contrast; rangeClamp = t.rangeClamp
        matchWidening = t.matchWidening; matchNoise = t.eps; thinParts = t.thinParts
        fitFloor = t.fitWeighting ? t.fitFloor : 0
        base = t.temporalBase; gain = t.temporalGain
        colourNoise = t.colourNoise; hold = t.temporalHold; leak = t.temporalLeak
        // (the slack is set once the frame's camera motion is known: only a
        // followed pan uses it)
        colourSlack = 0
        detailGainLimit = t.detailGainLimit; detailMinSpread = t.detailMinSpread
        flatContrast = t.flatContrast
        edgeContrast = t.edgeContrast; edgeGate = t.edgeGate; edgeKeepSide = t.edgeKeepSide
        if fitFloor <= 0 { edgeGate = 0 }
        labelBase = t.labelHold; labelShift = t.labelShift
        avx2 = t.kernels && kernelsHaveAVX2
    }
}
