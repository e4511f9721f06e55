// SPDX-License-Identifier: LGPL-2.1-or-later
extension SubjectSegmentation {
    /// One frame's sizes, thresholds in depth units and settings: what the
    /// passes of `apply` share (each pass is a method on it).
    struct Frame {
        let w: Int, h: Int, n: Int
        /// A pixel index's row and column without a division.
        let rows: RowIndex
        /// The cutoff in depth units (rounded as `DepthThreshold` does).
        let limit: UInt32
        let scale: Double, fscale: Float
        /// `step` and `bodyStep` in depth units: a + b · v.
        let stepA: Float, stepB: Float, bodyA: Float, bodyB: Float
        /// Rows either side for the floor slope; the slope is fitted over
        /// ±t rows (t = 2s) and must reach `slopeK` · d over 2s rows.
        let s: Int, t: Int, slopeK: Float
        /// Colours either side of a contact are sampled this many pixels
        /// away from it (past a 1-2 px misregistration).
        let off: Int
        /// The video registered to the depth (any size) and the scale from
        /// depth to video pixels.
        let video: RGBImageView?, vw: Int, vh: Int, sxv: Double, syv: Double
        /// Surfaces of at most this many pixels are fragments (`fragmentArea`).
        let fragment: Int32
        /// Holes up to this many pixels from the subject count as its own.
        let holeReach: UInt16
        // the settings the passes read (see SubjectSegmentation's properties)
        let edgeStrip: Float, rampSteps: Float, floorSpan: Float, noiseSteps: Float
        let colourCut: Bool, joinColourStep: Float, maxJoinRounds: Int, holeFragments: Bool
        /// `restore.reach`: how far in front of the subject a part may lie.
        let restoreReach: Float

        init(_ seg: SubjectSegmentation, depth: Depth16View, scale: Double, cutoff: Double, video: RGBImageView?) {
            let w = depth.width, h = depth.height
            self.w = w; self.h = h; n = w * h
            rows = RowIndex(width: w)
            limit = DepthThreshold.limit(cutoff: cutoff, scale: scale)
            self.scale = scale
            let fscale = Float(scale)
            self.fscale = fscale
            // step in depth units: a + b · v
            stepA = seg.step.base / fscale; stepB = seg.step.gain
            bodyA = seg.bodyStep.base / fscale; bodyB = seg.bodyStep.gain
            let floor = seg.camera.floorTest(w, h)   // diff over 2s rows >= slopeK · d
            s = floor.s; t = floor.t; slopeK = floor.slopeK
            // colour of a depth pixel: the video pixel at its centre
            self.video = video
            let vw = video?.width ?? 0, vh = video?.height ?? 0
            self.vw = vw; self.vh = vh
            sxv = Double(vw) / Double(w); syv = Double(vh) / Double(h)
            off = max(2, w / 160)
            fragment = Int32(max(4, Int(seg.fragmentArea * Float(n))))
            holeReach = UInt16(max(2, w / 64))
            edgeStrip = seg.edgeStrip; rampSteps = seg.rampSteps; floorSpan = seg.floorSpan; noiseSteps = seg.noiseSteps
            colourCut = seg.colourCut; joinColourStep = seg.joinColourStep; maxJoinRounds = seg.maxJoinRounds
            holeFragments = seg.holeFragments; restoreReach = seg.restore.reach
        }

        /// Two depths closer than a step `base + gain · depth` (depth units).
        @inline(__always) func within(_ a: UInt16, _ b: UInt16, _ base: Float, _ gain: Float) -> Bool {
            abs(Float(a) - Float(b)) < base + gain * Float(min(a, b))
        }

        /// The colour of a depth pixel (clamped to the picture): the video
        /// pixel at its centre. Only with a video.
        @inline(__always) func colour(_ x: Int, _ y: Int) -> SIMD4<Float> {
            let cx = min(max(x, 0), w - 1), cy = min(max(y, 0), h - 1)
            let vx = min(Int((Double(cx) + 0.5) * sxv), vw - 1), vy = min(Int((Double(cy) + 0.5) * syv), vh - 1)
            let p = video!.row(vy) + vx * video!.pixelStride
            return SIMD4(Float(p[video!.r]), Float(p[video!.g]), Float(p[video!.b]), 0)
        }
    }

    /// The per-pixel maps of steps 1-3 (depth-map size).
    struct PixelMaps {
        /// The output depth: a copy of the input, sharpened in step 1b.
        let o: UnsafeMutablePointer<UInt16>
        /// Per pixel: 0 near, -1 not; after step 3 its surface.
        let lab: UnsafeMutablePointer<Int32>
        /// Union-find parents.
        let p: UnsafeMutablePointer<Int32>
        /// Bits: 1 tested, 2 floor-like, 4 flooded, 8 floor, 16 depth edge.
        let fl: UnsafeMutablePointer<UInt8>
        /// One row: a step (bit 0) or a colour cut (bit 1) between each
        /// pixel and the one below it.
        let sd: UnsafeMutablePointer<UInt8>
        /// Step 1b's copy: the depth before sharpening.
        let sharp: UnsafeMutablePointer<UInt16>
        /// Per row: its first and last reading (`edgeStrip`).
        let ends: UnsafeMutablePointer<Int32>
    }

    /// What steps 4-6 read and write: the per-pixel maps and the
    /// per-surface tables (`c` surfaces, `cap` entries each).
    struct SurfaceMaps {
        let lab: UnsafePointer<Int32>, seed: UnsafePointer<UInt8>
        let o: UnsafeMutablePointer<UInt16>
        /// The decision's labels (step 6).
        let decision: UnsafeMutablePointer<UInt8>
        let fl: UnsafePointer<UInt8>
        /// The depth before step 1b sharpened it.
        let original: UnsafePointer<UInt16>
        let ends: UnsafePointer<Int32>
        /// Holes reached from the subject: the depth they carry, and their
        /// distance from it (0 = not reached).
        let hd: UnsafeMutablePointer<UInt16>, hs: UnsafeMutablePointer<UInt16>
        /// Per surface: area, contacts with the subject, whether it touches a
        /// picture side, kept (1 the subject, 2 kept with it).
        let ar: UnsafeMutablePointer<Int32>, adj: UnsafeMutablePointer<Int32>
        let side: UnsafeMutablePointer<UInt8>, kk: UnsafeMutablePointer<UInt8>
        /// Four planes of `cap` sums per surface (see the passes).
        let front: UnsafeMutablePointer<Float>
        let c: Int, cap: Int
    }
}
