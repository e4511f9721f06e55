// SPDX-License-Identifier: LGPL-2.1-or-later
// The learned elements' kit side outside GStreamer.
//   learned-bench time    the sampler's cost: 1920x1080 RGBx to 256x256 and 256x144
//                         stretched, to 192x192 and 128x128 letterboxed: the float
//                         baseline (OldSampler.swift), the taps reading every pixel
//                         and the taps at step 2, interleaved (ROUNDS=5 rounds of 40),
//                         thread CPU time
//   learned-bench serve   a line server for Benchmarks/learned-parity.py: one
//                         command a line on stdin, one answer a line on stdout;
//                         LEARNED_SAMPLER=old|full|new picks the fill (default new)
//     fill IN W H STRIDE R G B PIXELSIZE TW TH MIN MAX stretch|letterbox OUT  -> "left top right bottom"
//     detect short|full REGRESSORS SCORES MINSCORE LEFT TOP RIGHT BOTTOM        -> "x y w h score ..."
//     merge NFULL x y w h s ... NSHORT x y w h s ...                            -> "x y w h score ..."
//     mask PROB W H OUTW OUTH OUT                                              -> "ok"
//     fingerprint IN W H STRIDE R G B PIXELSIZE                                -> an opaque line
// Files are raw: uint8 frames, float32 little-endian tensors.
#if canImport(Glibc)
import Glibc
#endif
import BenchSupport
@_spi(Bench) import DepthMatteKit

func loadBytes(_ path: String) -> [UInt8] {
    guard let f = fopen(path, "rb") else { fatalError("cannot open \(path)") }
    defer { fclose(f) }
    fseek(f, 0, SEEK_END); let n = ftell(f); fseek(f, 0, SEEK_SET)
    var data = [UInt8](repeating: 0, count: n)
    _ = data.withUnsafeMutableBytes { fread($0.baseAddress, 1, n, f) }
    return data
}

func writeFile(_ path: String, _ bytes: UnsafeRawBufferPointer) {
    guard let f = fopen(path, "wb") else { fatalError("cannot write \(path)") }
    fwrite(bytes.baseAddress, 1, bytes.count, f); fclose(f)
}

func floats(_ path: String) -> [Float] {
    let b = loadBytes(path)
    return b.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
}

func faces(_ d: [FaceDetection]) -> String {
    d.map { "\($0.x) \($0.y) \($0.width) \($0.height) \($0.score)" }.joined(separator: " ")
}

/// Seconds of this thread's CPU time: a figure that other processes on the box do not stretch.
func cpuNow() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) * 1e-9
}

/// Median thread CPU seconds of `body` over `runs` runs after 3 warm-up runs.
func cpuMedian(runs: Int, _ body: () -> Void) -> Double {
    for _ in 0..<3 { body() }
    var t: [Double] = []
    for _ in 0..<runs { let a = cpuNow(); body(); t.append(cpuNow() - a) }
    return median(t)
}

func time() {
    let w = 1920, h = 1080, stride = w * 4
    var frame = [UInt8](repeating: 0, count: stride * h)
    for i in frame.indices { frame[i] = UInt8(truncatingIfNeeded: i &* 2654435761 >> 13) }
    let sampler = ModelInputSampler(), full = ModelInputSampler(), old = OldSampler()
    full.maxStep = 1
    var tensor = [Float](repeating: 0, count: 256 * 256 * 3)
    let rounds = Int(env("ROUNDS") ?? "") ?? 5, runs = 40
    frame.withUnsafeBufferPointer { buf in
        let f = PackedRGBFrame(base: buf.baseAddress!, width: w, height: h, stride: stride,
                               red: 0, green: 1, blue: 2, pixelSize: 4)
        let of = OldFrame(base: buf.baseAddress!, width: w, height: h, stride: stride,
                          red: 0, green: 1, blue: 2, pixelSize: 4)
        // the memory floor: one 8-byte load per 64-byte line of every row, of every 2nd row
        var sink: UInt64 = 0
        for rowStep in [1, 2] {
            let t = cpuMedian(runs: 40) {
                let words = UnsafeRawPointer(buf.baseAddress!)
                for y in Swift.stride(from: 0, to: h, by: rowStep) {
                    let row = words + y * stride
                    for x in Swift.stride(from: 0, to: stride, by: 64) { sink &+= row.load(fromByteOffset: x, as: UInt64.self) }
                }
            }
            print("touching every line of every \(rowStep == 1 ? "" : "2nd ")row: \(formatted(t * 1000)) ms")
        }
        if sink == 42 { print("") }
        for (tw, th, fit, range) in [(256, 256, ModelInputSampler.Fit.stretch, Float(0)...1),
                                     (256, 144, .stretch, 0...1),
                                     (192, 192, .letterbox, -1...1), (128, 128, .letterbox, -1...1)] {
            // interleaved: each round times the three in turn, the figure is the median of the rounds' medians
            var tOld: [Double] = [], tFull: [Double] = [], tNew: [Double] = []
            for _ in 0..<rounds {
                tOld.append(cpuMedian(runs: runs) { tensor.withUnsafeMutableBufferPointer {
                    _ = old.fill(of, into: $0.baseAddress!, width: tw, height: th, range: range, fit: fit) } })
                tFull.append(cpuMedian(runs: runs) { tensor.withUnsafeMutableBufferPointer {
                    _ = full.fill(f, into: $0.baseAddress!, width: tw, height: th, range: range, fit: fit) } })
                tNew.append(cpuMedian(runs: runs) { tensor.withUnsafeMutableBufferPointer {
                    _ = sampler.fill(f, into: $0.baseAddress!, width: tw, height: th, range: range, fit: fit) } })
            }
            let o = median(tOld), u = median(tFull), n = median(tNew)
            print("sampler 1920x1080 RGBx -> \(tw)x\(th) \(fit): float footprints \(formatted(o * 1000)) ms, "
                  + "taps every pixel \(formatted(u * 1000)) ms (x\(formatted(o / u))), "
                  + "taps step 2 \(formatted(n * 1000)) ms (x\(formatted(o / n)))")
        }
    }
}

func formatted(_ x: Double) -> String {
    let v = (x * 1000).rounded() / 1000
    return "\(v)"
}

func serve() {
    // LEARNED_SAMPLER: new (the kit's, default), full (the kit's reading every pixel), old (OldSampler.swift)
    let which = env("LEARNED_SAMPLER") ?? "new"
    let sampler = ModelInputSampler(), old = OldSampler()
    if which == "full" { sampler.maxStep = 1 }
    while let line = readLine() {
        let a = line.split(separator: " ").map(String.init)
        guard let cmd = a.first else { continue }
        switch cmd {
        case "fill", "fingerprint":
            let data = loadBytes(a[1])
            let n = a[2...8].map { Int($0)! }
            data.withUnsafeBufferPointer { buf in
                let f = PackedRGBFrame(base: buf.baseAddress!, width: n[0], height: n[1], stride: n[2],
                                       red: n[3], green: n[4], blue: n[5], pixelSize: n[6])
                if cmd == "fingerprint" { print(FrameFingerprint(f)); return }
                let tw = Int(a[9])!, th = Int(a[10])!
                var t = [Float](repeating: 0, count: tw * th * 3)
                let range = Float(a[11])!...Float(a[12])!, fit: ModelInputSampler.Fit = a[13] == "letterbox" ? .letterbox : .stretch
                let box = t.withUnsafeMutableBufferPointer {
                    which == "old"
                        ? old.fill(OldFrame(base: buf.baseAddress!, width: n[0], height: n[1], stride: n[2], red: n[3],
                                            green: n[4], blue: n[5], pixelSize: n[6]),
                                   into: $0.baseAddress!, width: tw, height: th, range: range, fit: fit)
                        : sampler.fill(f, into: $0.baseAddress!, width: tw, height: th, range: range, fit: fit)
                }
                t.withUnsafeBytes { writeFile(a[14], $0) }
                print("\(box.left) \(box.top) \(box.right) \(box.bottom)")
            }
        case "detect":
            let model = a[1] == "short" ? BlazeFace.Model.shortRange : .fullRange
            let reg = floats(a[2]), sc = floats(a[3])
            let v = a[4...8].map { Float($0)! }
            let d = BlazeFace.detect(model, regressors: reg, scores: sc, minScore: v[0],
                                     letterbox: Letterbox(left: v[1], top: v[2], right: v[3], bottom: v[4]))
            print(faces(d))
        case "merge":
            var i = 1
            func list() -> [FaceDetection] {
                let n = Int(a[i])!; i += 1
                return (0..<n).map { _ in
                    defer { i += 5 }
                    return FaceDetection(x: Float(a[i])!, y: Float(a[i + 1])!, width: Float(a[i + 2])!,
                                         height: Float(a[i + 3])!, score: Float(a[i + 4])!)
                }
            }
            let full = list(), short = list()
            print(faces(BlazeFace.mergeBoth(full: full, short: short)))
        case "mask":
            let p = floats(a[1])
            let w = Int(a[2])!, h = Int(a[3])!, ow = Int(a[4])!, oh = Int(a[5])!
            var out = [UInt8](repeating: 0, count: ow * oh)
            out.withUnsafeMutableBufferPointer {
                PersonProbability.write(p, width: w, height: h, to: $0.baseAddress!, outWidth: ow, outHeight: oh, outStride: ow)
            }
            out.withUnsafeBytes { writeFile(a[6], $0) }
            print("ok")
        default:
            print("error unknown command \(cmd)")
        }
        fflush(stdout)
    }
}

switch CommandLine.arguments.dropFirst().first {
case "serve": serve()
default: time()
}
