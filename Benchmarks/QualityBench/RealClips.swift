// SPDX-License-Identifier: LGPL-2.1-or-later
// Real depth: QB_CLIP=dir[,dir...] runs clips made by
// Benchmarks/real-clip.py (real colour and real structured-light disparity
// turned into sensor-like depth; docs/steady-edges.md, "Real structured-light
// depth") instead of the rgbdtestsrc tables: the original chain and the
// default (guided, mode=fixed at each cutoff the clip lists), the sensor
// table's columns. QB_DUMPDIR=dir also writes every matte there
// (<clip>-c<K>-<refine>-NN.gray) for Benchmarks/real-diag.py.
@_spi(Bench) import DepthMatteKit
import BenchSupport
#if canImport(Glibc)
import Glibc  // exit
#endif

/// Prints the real clips' table for the clip folders in `clipDirs`
/// (comma-separated), then exits.
func realClipsTable(_ clipDirs: String) -> Never {
    let dumpDir = env("QB_DUMPDIR")
    var header = false
    for dir in clipDirs.split(separator: ",").map(String.init) {
        let (c, name, cutoffs) = loadRealClip(dir)
        if !header {
            print("real structured-light depth: colour \(VW)x\(VH) (real), depth \(c.dw)x\(c.dh) (first clip; *-full: at the colour's resolution) sampled from real GT disparity, quantisation + correlated noise + noise + holes + real shadows + edge fattening, misregistration 1.5 depth px, mode=fixed, \(c.video.count) frames at \(f(c.fps, 0)) fps")
            print("| clip | cutoff m | refine | SAD | Grad | IoU | IoU min | dtSSD | SAD/orig | IoU/orig | dtSSD/orig | off > 0.2 per frame (max) | truth moves | ms/frame |")
            print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
            header = true
        }
        for (k, cutoff) in cutoffs.enumerated() {
            scoreRealClip(c, name: name, dir: dir, cutoffIndex: k, cutoff: cutoff, dumpDir: dumpDir)
        }
    }
    print("truth: coverage of the GT's subject mask sampled bilinearly at the colour's exact sub-pixel transform, "
          + "4x4 samples per pixel thresholded at 0.5; pixels whose GT neighbours are not all known are left out of every metric")
    print("targets (the pan, at the cutoff behind the whole subject): SAD <= 0.25x, IoU >= 0.95, dtSSD <= 0.60x the original")
    if env("QB_NOORACLE") == nil {
        print("oracle rows: the truth of frame 0 held for every frame, the truth moved 1 px right, blurred "
              + "(Gaussian sigma 1 px), and turned binary at 0.5; dtSSD compares frame-to-frame changes pixel by pixel")
    }
    exit(0)
}

/// A clip folder's meta.txt: each line's first word and the words after it.
func clipMeta(_ dir: String) -> [String: [String]] {
    var m: [String: [String]] = [:]
    let text = String(decoding: readFile(dir + "/meta.txt") ?? [], as: UTF8.self)
    for line in text.split(separator: "\n") {
        let w = line.split(separator: " ").map(String.init)
        if w.count >= 2 { m[w[0]] = Array(w[1...]) }
    }
    return m
}

/// The clip in `dir` (without its truth, which is per cutoff), its name and
/// its cutoffs; sets the colour size (VW, VH) to the clip's. Exits if a file
/// is missing or the wrong size.
func loadRealClip(_ dir: String) -> (Clip, String, [Double]) {
    let m = clipMeta(dir)
    guard let w = m["width"].flatMap({ Int($0[0]) }), let h = m["height"].flatMap({ Int($0[0]) }),
          let dw = m["depth_width"].flatMap({ Int($0[0]) }), let dh = m["depth_height"].flatMap({ Int($0[0]) }),
          let n = m["frames"].flatMap({ Int($0[0]) }), let cutoffs = m["cutoffs"]?.compactMap({ Double($0) }) else {
        print("quality-bench: \(dir)/meta.txt missing or incomplete (make clips with Benchmarks/real-clip.py)"); exit(1)
    }
    let name = m["name"]?[0] ?? dir
    VW = w; VH = h
    var c = Clip(); c.dw = dw; c.dh = dh; c.fps = m["fps"].flatMap { Double($0[0]) } ?? 30
    for i in 0..<n {
        let nn = (i < 10 ? "0" : "") + "\(i)"
        guard let rgb = readFile("\(dir)/colour-\(nn).rgb"), rgb.count == w * h * 3,
              let d = readFile("\(dir)/depth-\(nn).gray16"), d.count == dw * dh * 2 else {
            print("quality-bench: \(dir): frame \(i) missing or the wrong size"); exit(1)
        }
        var v = [UInt8](repeating: 255, count: w * h * 4)
        for p in 0..<(w * h) { v[4 * p] = rgb[3 * p]; v[4 * p + 1] = rgb[3 * p + 1]; v[4 * p + 2] = rgb[3 * p + 2] }
        c.video.append(v)
        c.depth.append((0..<(dw * dh)).map { UInt16(d[2 * $0]) | UInt16(d[2 * $0 + 1]) << 8 })
        c.faces.append([]); c.objects.append([UInt8](repeating: 0, count: w * h))
        if let k = readFile("\(dir)/known-\(nn).gray"), k.count == w * h { c.known.append(k) }
    }
    if c.known.count != n { c.known = [] }
    return (c, name, cutoffs)
}

/// Keys the clip at cutoff number `k` (the original chain, then the default)
/// against that cutoff's truth and prints their rows, then the oracle rows
/// (QB_NOORACLE=1 skips them).
func scoreRealClip(_ clip: Clip, name: String, dir: String, cutoffIndex k: Int, cutoff: Double, dumpDir: String?) {
    var c = clip
    let (w, h, n) = (VW, VH, c.video.count)
    c.truth = (0..<n).map { i in readFile("\(dir)/truth-c\(k)-\(i < 10 ? "0" : "")\(i).gray") ?? [] }
    guard c.truth.allSatisfy({ $0.count == w * h }) else { print("quality-bench: \(dir): truth c\(k) missing"); exit(1) }
    truthGrad = []
    var orig = Score()
    for (rname, refine) in [("original", MatteRefine.original), ("guided (default)", .guided)] {
        let r = run(c, refine: refine, mode: .fixed, cutoff: cutoff,
                    dumpTo: dumpDir.map { "\($0)/\(name)-c\(k)-\(refine)" })
        if refine == .original { orig = r }
        print("| \(name) | \(f(cutoff, 3)) | \(rname) | \(f(r.sad, 2)) | \(f(r.grad, 2)) | \(f(r.iou, 4)) | \(f(r.iouMin, 4)) | \(f(r.dt, 3)) | "
              + "\(f(r.sad / orig.sad, 2)) | \(f(r.iou / orig.iou, 3)) | \(f(r.dt / orig.dt, 2)) | \(f(r.off, 0)) (\(r.offMax)) | \(f(r.truthMoves, 0)) | \(f(r.ms, 1)) |")
    }
    // What the targets mean: the truth itself, degraded the least a
    // matte from a depth map could be (no keyer runs; QB_NOORACLE=1 skips).
    if env("QB_NOORACLE") == nil {
        for o in TruthOracle.allCases {
            let r = o.score(c.truth, known: c.known, width: w, height: h)
            print("| \(name) | \(f(cutoff, 3)) | \(o.label) | \(f(r.sad, 2)) | | \(f(r.iou, 4)) | \(f(r.iouMin, 4)) | \(f(r.dt, 3)) | "
                  + "\(f(r.sad / orig.sad, 2)) | \(f(r.iou / orig.iou, 3)) | \(f(r.dt / orig.dt, 2)) | \(f(r.off, 0)) (\(r.offMax)) | \(f(r.truthMoves, 0)) | |")
        }
    }
}
