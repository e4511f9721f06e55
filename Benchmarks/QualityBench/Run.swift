// SPDX-License-Identifier: LGPL-2.1-or-later
// One run of the keyer over a clip, in process through DepthMatter, and its
// score against the clip's truth; the diagnostics and picture dumps a run
// writes on request.
@_spi(Bench) import DepthMatteKit
import DMContract
import BenchSupport

/// `dumpTo`: write every frame's matte as raw GRAY8 to "\(dumpTo)-NN.gray"
/// (QB_CLIP with QB_DUMPDIR; Benchmarks/real-diag.py reads them).
func run(_ c: Clip, refine: MatteRefine, mode: KeyingMode = .face, subjectOnly: Bool = true, cutoff: Double? = nil,
         dumpTo: String? = nil) -> Score {
    let m = makeMatter()
    var s = DMDepthMatteSettings.defaults
    s.refine = refine.rawValue
    s.mode = mode.rawValue
    s.subject_only = subjectOnly ? 1 : 0
    if let cutoff { s.cutoff = cutoff }
    s.output = ElementOutput.matte.rawValue
    s.frame_duration = 1 / c.fps
    var out = [UInt8](repeating: 0, count: VW * VH * 4)
    var scorer = MatteScorer()
    var sc = Score()
    let nFrames = c.video.count
    for i in 0..<nFrames {
        let (res, ms) = process(m, s, c, frame: i, into: &out)
        // QB_GRIDDIAG: the lock grid's surfaces (area >= 0.1 %) per frame, and
        // whether the depth-only finder accepts each
        if env("QB_GRIDDIAG") != nil && refine == .guided { printGridDiagnosis(c, frame: i) }
        if let dumpPrefix, i == dumpFrame && c.dw == dumpDepthWidth && dumpMisregistration == "\(c.mis)" {
            dumpPictures(c, frame: i, matte: out, prefix: dumpPrefix, refine: refine)
        }
        if let dumpTo {
            var g = [UInt8](repeating: 0, count: VW * VH)
            for p in 0..<(VW * VH) { g[p] = out[4 * p] }
            writeFile("\(dumpTo)-\(i < 10 ? "0" : "")\(i).gray", g)
        }
        sc.ms += ms
        let fm = scorer.score(c, frame: i, matte: out, refine: refine, into: &sc)
        sc.add(fm, index: i)
        sc.addWalk(truth: c.truth[i], matte: out, iou: fm.iou)
        if perFrame { print("  frame \(i) dw \(c.dw) IoU \(f(fm.iou, 4)) SAD \(f(fm.sad / 1000, 2)) motion \(f(Double(m.refiner.motion.dx), 3)),\(f(Double(m.refiner.motion.dy), 3)) \(m.refiner.motion.applied) \(f(Double(m.refiner.motion.after / max(m.refiner.motion.before, 1e-12)), 3)) worse \(m.refiner.motion.worse) lock \(res.lockSource.name) cutoff \(f(res.cutoff, 3)) kept \(m.segmentation.keptCount)/\(m.segmentation.nearCount) floor \(m.segmentation.floorCount) thin \(sc.thinKept)/\(sc.thin) shadows \(m.refiner.lastShadowSides.rawValue)") }
    }
    sc.finish(frames: nFrames)
    return sc
}

/// A fresh keyer with the segmentation's and the refiner's experiment knobs
/// the environment sets.
func makeMatter() -> DepthMatter {
    let m = DepthMatter()
    if let v = env("QB_RAMP").flatMap({ Float($0) }) { m.segmentation.rampSteps = v }
    if env("QB_NOCUT") != nil { m.segmentation.colourCut = false }
    if env("QB_NORAMPHOLES") != nil { m.segmentation.rampHoles = false }
    if env("QB_NOHOLEFRAG") != nil { m.segmentation.holeFragments = false }
    if let v = env("QB_EDGESTRIP").flatMap({ Float($0) }) { m.segmentation.edgeStrip = v }
    if let v = env("QB_NOISESTEPS").flatMap({ Float($0) }) { m.segmentation.noiseSteps = v }
    tuning(&m.refiner)
    if let v = env("QB_JOINC").flatMap({ Float($0) }) { m.segmentation.joinColourStep = v }
    if let v = env("QB_FRAG").flatMap({ Float($0) }) { m.segmentation.fragmentArea = v }
    return m
}

/// Keys frame `i` of the clip into `out` (RGBA, the matte in every channel):
/// the keyer's result and the milliseconds it took.
func process(_ m: DepthMatter, _ s: DMDepthMatteSettings, _ c: Clip, frame i: Int, into out: inout [UInt8]) -> (MatteResult, Double) {
    var video = c.video[i]
    var res = MatteResult()
    let t = ContinuousClock().measure {
        res = c.depth[i].withUnsafeBytes { dp in
            video.withUnsafeMutableBufferPointer { vp in
                out.withUnsafeMutableBufferPointer { op in
                    m.process(plan: MattePlan(s),
                              video: RGBImageView(base: vp.baseAddress!, width: VW, height: VH, stride: 4 * VW, pixelStride: 4, r: 0, g: 1, b: 2, a: 3),
                              depth: Depth16View(base: dp.baseAddress!, width: c.dw, height: c.dh, stride: 2 * c.dw),
                              background: nil,
                              output: RGBImageView(base: op.baseAddress!, width: VW, height: VH, stride: 4 * VW, pixelStride: 4, r: 0, g: 1, b: 2, a: 3),
                              faces: c.faces[i])
                }
            }
        }
    }
    let tc = t.components
    return (res, (Double(tc.seconds) + Double(tc.attoseconds) * 1e-18) * 1000)
}

/// Prints the lock grid's surfaces of frame `i` (area >= 0.1 %) and whether
/// the depth-only finder accepts each.
func printGridDiagnosis(_ c: Clip, frame i: Int) {
    var gc = DepthComponents()
    c.depth[i].withUnsafeBytes { dp in gc.analyse(depth: Depth16View(base: dp.baseAddress!, width: c.dw, height: c.dh, stride: 2 * c.dw), scale: 0.001) }
    let fnd = NearestBodyFinder()
    var line = "  grid \(gc.width)x\(gc.height) comps \(gc.count):"
    for k in 0..<gc.count where gc.areaFraction(k) >= 0.001 {
        line += " [\(k) a\(f(gc.areaFraction(k), 4)) d\(f(gc.headDepth(k), 2))/\(f(gc.middleDepth(k), 2))/\(f(gc.bottomDepth(k), 2)) r\(gc.minRow[k])-\(gc.maxRow[k]) c\(gc.minCol[k])-\(gc.maxCol[k]) \(fnd.accepts(gc, k) ? "OK" : "-")]"
    }
    print(line)
}

/// Writes frame `i`'s matte, truth, colour and depth as PGM/PPM files named
/// after `prefix` (the dump prefix argument).
func dumpPictures(_ c: Clip, frame i: Int, matte out: [UInt8], prefix: String, refine: MatteRefine) {
    var pgm = Array("P5 \(VW) \(VH) 255\n".utf8)
    for p in 0..<(VW * VH) { pgm.append(out[4 * p]) }
    writeFile("\(prefix)-\(refine).pgm", pgm)
    var t2 = Array("P5 \(VW) \(VH) 255\n".utf8); t2 += c.truth[i]
    writeFile("\(prefix)-truth.pgm", t2)
    var v2 = Array("P6 \(VW) \(VH) 255\n".utf8)
    for p in 0..<(VW * VH) { v2 += [c.video[i][4 * p], c.video[i][4 * p + 1], c.video[i][4 * p + 2]] }
    writeFile("\(prefix)-video.ppm", v2)
    var d2 = Array("P5 \(c.dw) \(c.dh) 65535\n".utf8)
    for p in 0..<(c.dw * c.dh) { let v = c.depth[i][p]; d2 += [UInt8(v >> 8), UInt8(v & 255)] }
    writeFile("\(prefix)-depth.pgm", d2)
}

/// Scores a run's mattes frame by frame: the matte and the truth of the
/// previous frame (for dtSSD) and the gradient's scratch buffers.
struct MatteScorer {
    var a: [Float], prev: [Float], prevT: [Float], tmp: [Float], gx: [Float], mag: [Float]

    init() {
        a = [Float](repeating: 0, count: VW * VH)
        (prev, prevT, tmp, gx, mag) = (a, a, a, a, a)
    }

    /// Frame `i`'s per-pixel sums; the distractor, hand and thin-rod counts
    /// and the gradient error go into `sc` directly.
    mutating func score(_ c: Clip, frame i: Int, matte out: [UInt8], refine: MatteRefine, into sc: inout Score) -> FrameMetrics {
        var fm = FrameMetrics()
        let tr = c.truth[i], ob = c.objects[i]
        let known = c.known.isEmpty ? nil : c.known[i], knownBefore = c.known.isEmpty || i == 0 ? nil : c.known[i - 1]
        for p in 0..<(VW * VH) {
            let v = Float(out[4 * p]) / 255, vt = Float(tr[p]) / 255
            a[p] = v
            if let known, known[p] == 0 {
                // unknown truth: not scored
            } else if i > 0 && (knownBefore.map { $0[p] != 0 } ?? true) {
                fm.add(v, vt, previous: prev[p], prevT[p])
            } else {
                fm.add(v, vt)
            }
            if ob[p] == 1 && v > 0.5 { sc.distractor += 1 }
            if ob[p] == 3 && v < 0.5 { sc.handOutDeep += 1 }
            if ob[p] == 4 { sc.thin += 1; if v >= 0.5 { sc.thinKept += 1 } }
            if ob[p] >= 2 && ob[p] <= 3 && v < 0.5 { sc.handOut += 1; if perFrame { print("    hand out: \(refine) frame \(i) x \(p % VW) y \(p / VW) a \(v) truth \(vt)\(ob[p] == 3 ? " deep" : "")") } }
            prev[p] = v; prevT[p] = vt
        }
        sc.grad += gradientError(truth: tr, frame: i, known: known) / 1000
        return fm
    }

    /// The squared difference of the matte's gradient magnitude (in `a`) and
    /// the truth's, summed over the pixels of known truth.
    mutating func gradientError(truth tr: [UInt8], frame i: Int, known: [UInt8]?) -> Double {
        if truthGrad.count <= i {
            var tf = tr.map { Float($0) / 255 }
            gradient.magnitude(tf, VW, VH, tmp: &tmp, gx: &gx, out: &mag)
            tf = mag
            truthGrad.append(tf)
        }
        gradient.magnitude(a, VW, VH, tmp: &tmp, gx: &gx, out: &mag)
        var ge = 0.0
        let tg = truthGrad[i]
        for p in 0..<(VW * VH) where known.map({ $0[p] != 0 }) ?? true { let q = Double(mag[p] - tg[p]); ge += q * q }
        return ge
    }
}

extension Score {
    /// One frame's walk figures: a frame with no truth counts as empty (and
    /// as keyed if more than 0.1 % of the matte is keyed); one whose truth
    /// touches neither side of the picture counts as fully in view, with its
    /// IoU.
    mutating func addWalk(truth tr: [UInt8], matte out: [UInt8], iou: Double) {
        var truthIn = 0, atSide = false, keyed = 0
        for y in 0..<VH {
            let r = y * VW
            if tr[r] >= 128 || tr[r + VW - 1] >= 128 { atSide = true }
            for x in 0..<VW { if tr[r + x] >= 128 { truthIn += 1 }; if out[4 * (r + x)] >= 128 { keyed += 1 } }
        }
        if truthIn == 0 {
            empty += 1
            if keyed * 1000 > VW * VH { emptyKeyed += 1 }
        } else if !atSide {
            full += 1; fullIoU += iou; fullMin = min(fullMin, iou)
        }
    }
}
