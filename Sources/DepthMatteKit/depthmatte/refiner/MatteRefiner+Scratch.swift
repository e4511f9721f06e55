// SPDX-License-Identifier: LGPL-2.1-or-later
/// The refiner's working memory: every buffer of one guided pass, allocated
/// by hand so the pass gets plain base pointers (no `withUnsafe…` per
/// buffer), grown (never shrunk) when the sizes or the band count grow and
/// freed with the refiner. No heap allocation per frame once the sizes (and
/// the thread count) are stable. Nothing in it outlives a frame except the
/// size-keyed tables (`rangeKey`, `outputKey`); the previous matte is the
/// refiner's own (`MatteRefiner.previous`).
final class RefineScratch {
    /// The three-state mask (`DepthLabel` raw values), the filled label and
    /// the hole fill's spare plane, one byte per depth pixel.
    var label = ScratchBuffer<UInt8>(), filled = ScratchBuffer<UInt8>(), spare = ScratchBuffer<UInt8>()
    /// A component's pixels (`MatteRefiner.takeHeldParts`), one Int32 per depth pixel.
    var members = ScratchBuffer<Int32>()
    /// Every float plane of one frame (`RefineLayout`): one pointer per plane
    /// for the worker bands, one allocation when the sizes or the band count grow.
    var planes = ScratchBuffer<Float>()
    /// Running column sums of the box means: four rows of the depth width per band.
    var columnSums = ScratchBuffer<Double>()
    /// Video column sums for the guide: two rows of the video width per band.
    var videoSums = ScratchBuffer<UInt32>()
    /// The video columns and rows bounding each output-grid cell, for
    /// `rangeKey` = (video width, video height, grid width, grid height).
    var columnRange = ScratchBuffer<Int32>(), rowRange = ScratchBuffer<Int32>()
    var rangeKey = (0, 0, 0, 0)
    /// Per output-grid column: the nearest depth column, the two bilinear
    /// columns (3 Int32) and the weight of the second (`outputWeights`), for
    /// `outputKey` = (grid width, depth width, k).
    var outputColumns = ScratchBuffer<Int32>(), outputWeights = ScratchBuffer<Float>()
    var outputKey = (0, 0, 0)
    /// The same for `DMKernels`' output kernel, eight columns per step: per
    /// step the three columns of its first pixel, per column (three rows
    /// `outputColumns`' width apart) its offsets from them; `outputSteps`:
    /// every step's offsets are within 0 ... 7 (one 8-float load serves it).
    var outputBases = ScratchBuffer<Int32>(), outputOffsets = ScratchBuffer<Int32>()
    var outputSteps = false
    /// Camera motion (`MatteRefiner.followCamera`): one output-grid plane to shift from.
    var motion = ScratchBuffer<Float>()
    /// Per 16 output-grid pixels of a row: 1 where phase `output` left one
    /// for 2.8 (`RefinePass.edgeBlocks`).
    var edgeBlocks = ScratchBuffer<UInt8>()
    /// Per band, the rows and columns the fit must reach (`RefinePass.modelReach`).
    var reach = ScratchBuffer<Int32>()

    init() {}

    deinit {
        label.free(); filled.free(); spare.free(); members.free(); planes.free(); columnSums.free(); videoSums.free()
        columnRange.free(); rowRange.free(); outputColumns.free(); outputWeights.free(); motion.free()
        outputBases.free(); outputOffsets.free()
        edgeBlocks.free(); reach.free()
    }

    /// Grow the buffers for a depth map of `n` pixels `dw` wide, an output
    /// grid of `gn` pixels, `bands` bands and a video `videoWidth` wide.
    func reserve(n: Int, depthWidth dw: Int, gn: Int, bands: Int, videoWidth: Int) {
        if label.count < n { label.reserve(n); filled.reserve(n); spare.reserve(n); members.reserve(n) }
        planes.reserve(RefineLayout.floats(n: RefineLayout.planeStride(n), gn: RefineLayout.planeStride(gn), bands: bands))
        columnSums.reserve(bands * 4 * dw)
        videoSums.reserve(bands * 2 * videoWidth)
        reach.reserve(4 * bands)
    }

    /// The video columns and rows bounding each cell of a `gw` × `gh` grid
    /// (kept while the sizes stay; as `MatteRefiner.gridRanges`).
    func gridRanges(_ v: RGBImageView, width gw: Int, height gh: Int) {
        if rangeKey != (v.width, v.height, gw, gh) {
            rangeKey = (v.width, v.height, gw, gh)
            columnRange.reserve(gw + 1); rowRange.reserve(gh + 1)
            MatteRefiner.gridRanges(v, width: gw, height: gh, columnPlane: columnRange.base, rowPlane: rowRange.base)
        }
    }

    /// The output phase's column positions (as it once computed them per
    /// pixel), kept while `outputKey` stays.
    func outputColumns(gridWidth gw: Int, depthWidth dw: Int, k: Int) {
        if outputKey != (gw, dw, k) {
            outputKey = (gw, dw, k)
            outputColumns.reserve(3 * gw); outputWeights.reserve(gw)
            let invK = 1 / Float(k)
            for x in 0..<gw {
                let fx = max(0, (Float(x) + 0.5) * invK - 0.5)
                let x0 = min(Int(fx), dw - 1)
                outputColumns[3 * x] = Int32(min(Int(fx + 0.5), dw - 1))
                outputColumns[3 * x + 1] = Int32(x0)
                outputColumns[3 * x + 2] = Int32(min(x0 + 1, dw - 1))
                outputWeights[x] = fx - Float(x0)
            }
            outputBases.reserve(3 * (gw / 8 + 1)); outputOffsets.reserve(3 * gw)
            outputSteps = true
            var x = 0
            while x + 8 <= gw {
                for c in 0..<3 {
                    let first = outputColumns[3 * x + c]
                    outputBases[3 * (x / 8) + c] = first
                    for j in 0..<8 {
                        let d = outputColumns[3 * (x + j) + c] - first
                        outputOffsets[c * gw + x + j] = d
                        if d < 0 || d > 7 { outputSteps = false }
                    }
                }
                x += 8
            }
        }
    }
}

/// A buffer of `count` zero-initialised values that only grows: `reserve`
/// replaces it by a larger zeroed one (its values are not kept). Freed by
/// its owner (`RefineScratch.deinit`).
struct ScratchBuffer<Element: ExpressibleByIntegerLiteral> {
    private(set) var base = UnsafeMutablePointer<Element>.allocate(capacity: 1)
    private(set) var count = 0

    init() { base.initialize(to: 0) }

    mutating func reserve(_ n: Int) {
        if count >= n { return }
        base.deallocate()
        base = .allocate(capacity: n)
        base.initialize(repeating: 0, count: n)
        count = n
    }

    func free() { base.deallocate() }

    @inline(__always) subscript(_ i: Int) -> Element {
        get { base[i] }
        nonmutating set { base[i] = newValue }
    }
}
