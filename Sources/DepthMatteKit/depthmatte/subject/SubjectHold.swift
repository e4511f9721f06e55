// SPDX-License-Identifier: LGPL-2.1-or-later
/// Still things that were left out stay out until the rules keep them for
/// `frames` frames in a row: after `SubjectSegmentation` and
/// `SubjectRestore` have decided which near pixels are the subject's, a
/// near pixel left out in the last frame whose depth has not changed since
/// is kept only when the new decision has held that long. Leaving a pixel
/// out, and any decision on a pixel whose depth moved, is taken at once.
///
/// The pieces the segmentation cuts the near pixels into change with the
/// sensor's noise: a table in front of a seated subject splits into a
/// different pair of pieces from one frame to the next and is behind what
/// it touches in one and not in the next; a chair level with the seed is in
/// front of it by a millimetre in one frame and behind it in the next. Each
/// decision is right within the noise, and together they key the table in
/// one frame and not in the next: an empty office, or a room with people
/// sitting still, flickers where nothing moved. Real Kinect clips
/// (Benchmarks/rgbd-bench, "hold": flicker on the pixels whose truth holds):
/// an office 0.71 with the hold, 2.46 without (docs/quality.md).
///
/// Only left-out pixels are held: holding kept pixels too (either state
/// holds against one frame of the other) kept the table or chair of the
/// frames where it was first keyed (IoU 0.090 and 0.386 with kept pixels
/// alone held, 0.110 and 0.403 with both).
/// A person who walks in, turns or raises a hand moves in depth and is
/// keyed at once; a still part the rules come to keep is keyed a frame
/// later (at 30 frames/s, 33 ms).
///
/// Cost: one pass over the depth-resolution map; three planes kept between
/// frames.
struct SubjectHold {
    /// A pixel is still when its depth changed by less than this (metres,
    /// `base + gain · depth`: a structured-light sensor's noise grows with
    /// the distance).
    var still = DepthStep(base: 0.02, gain: 0.02)
    /// Frames in a row a still pixel left out must be kept before it is
    /// (1: no hold).
    var frames: UInt8 = 2
    /// Whether the pass runs at all.
    var enabled = true

    /// Pixels held out in the last call.
    private(set) var heldCount = 0

    /// Per pixel of the last frame: its depth, and its decision (0: not
    /// near, 1: left out, 2: kept). A pixel that was not near has no
    /// decision to hold: the cutoff, not the noise of the pieces, moved it.
    private var lastDepth: [UInt16] = []
    private var lastDecision: [UInt8] = []
    /// Per pixel: frames in a row a held-out pixel has been kept by the rules.
    private var pending: [UInt8] = []

    init() {}

    /// Forget the last frame (a frame that was not segmented, a new stream).
    mutating func reset() { lastDepth.removeAll(keepingCapacity: true) }

    /// Hold out the still pixels left out last frame in `labels` (the
    /// segmentation's decision: a near pixel left out is
    /// `SubjectSegmentation.leftOut`). `original`: the depth as it came;
    /// `limit`: the cutoff in depth units; `scale`: metres per depth unit.
    /// Returns the pixels held out (`heldCount`).
    @discardableResult
    mutating func apply(original: Depth16View, labels out: UnsafeMutablePointer<UInt8>, limit: UInt32,
                        scale: Float) -> Int {
        heldCount = 0
        let w = original.width, h = original.height, n = w * h
        guard enabled, n > 0, scale > 0 else { reset(); return 0 }
        let fresh = lastDepth.count != n
        if fresh {
            lastDepth = [UInt16](repeating: 0, count: n)
            lastDecision = [UInt8](repeating: 0, count: n)
            pending = [UInt8](repeating: 0, count: n)
        }
        let a = still.base / scale, g = still.gain
        var held = 0
        lastDepth.withUnsafeMutableBufferPointer { ldp in
        lastDecision.withUnsafeMutableBufferPointer { lkp in
        pending.withUnsafeMutableBufferPointer { pdp in
            let ld = ldp.baseAddress!, lk = lkp.baseAddress!, pd = pdp.baseAddress!
            let lim16 = SIMD8<UInt16>(repeating: UInt16(min(limit, 65535))), leftOut = SubjectSegmentation.leftOut
            for y in 0..<h {
                let row = original.base + y * original.stride
                @inline(__always) func decide(_ x: Int) {
                    let i = y &* w &+ x
                    let d = UInt16(littleEndian: row.loadUnaligned(fromByteOffset: 2 &* x, as: UInt16.self))
                    // near: 0 < d <= limit (limit <= 65535); the decision
                    // without a branch, the hold's test only for a near
                    // pixel kept now and left out last frame (few of them)
                    let near = UInt32(d) &- 1 < limit, kept = out[i] != leftOut
                    let p = ld[i]
                    ld[i] = d
                    if !(near && kept && !fresh && lk[i] == 1) { lk[i] = near ? (kept ? 2 : 1) : 0; pd[i] = 0; return }
                    if abs(Float(d) - Float(p)) < a + g * Float(min(d, p)) && pd[i] + 1 < frames {
                        pd[i] += 1
                        lk[i] = 1
                        out[i] = leftOut
                        held += 1
                    } else {
                        lk[i] = 2; pd[i] = 0
                    }
                }
                var x = 0
                // eight pixels at a time where the hold's test applies to
                // none of them (the same decision, with vectors; the
                // decision bytes as a word, `lowBytes`)
                while x &+ 8 <= w {
                    let i = y &* w &+ x
                    let d = original.eight(x, y)
                    let near = d &- 1 .< lim16
                    if !any(near) {
                        // (none near: the decision is 0 for all eight)
                        UnsafeMutableRawPointer(ld + i).storeBytes(of: d, as: SIMD8<UInt16>.self)
                        UnsafeMutableRawPointer(lk + i).storeBytes(of: 0, as: UInt64.self)
                        UnsafeMutableRawPointer(pd + i).storeBytes(of: 0, as: UInt64.self)
                        x &+= 8; continue
                    }
                    let o = SIMD8<UInt16>(truncatingIfNeeded: UnsafeRawPointer(out + i).loadUnaligned(as: SIMD8<UInt8>.self))
                    let nearKept = near .& (o .!= SIMD8<UInt16>(repeating: UInt16(leftOut))), none = SIMD8<UInt16>(repeating: 0)
                    let last = UInt64(littleEndian: UnsafeRawPointer(lk + i).loadUnaligned(as: UInt64.self))
                    if !fresh && none.replacing(with: 0xff, where: nearKept).lowBytes & bytesEqual(last, 1) != 0 {
                        for k in x ..< x &+ 8 { decide(k) }
                    } else {
                        UnsafeMutableRawPointer(ld + i).storeBytes(of: d, as: SIMD8<UInt16>.self)
                        let decision = none.replacing(with: 1, where: near).replacing(with: 2, where: nearKept)
                        UnsafeMutableRawPointer(lk + i).storeBytes(of: UInt64(littleEndian: decision.lowBytes), as: UInt64.self)
                        UnsafeMutableRawPointer(pd + i).storeBytes(of: 0, as: UInt64.self)
                    }
                    x &+= 8
                }
                while x < w { decide(x); x &+= 1 }
            }
        }}}
        heldCount = held
        return held
    }
}
