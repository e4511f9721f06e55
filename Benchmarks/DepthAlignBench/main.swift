// SPDX-License-Identifier: LGPL-2.1-or-later
// depthalign-bench: DepthRegistration on the box-and-wall scene (848×480
// depth → 1280×720 colour, 5 cm baseline, 1° yaw, brown-conrady colour),
// timed (median of ≥ 50 runs, 1 and 2 threads) and scored against the true
// registered depth; writes the frames, the truth, our outputs and the
// calibration to a folder for Benchmarks/depthalign_vs_librealsense.py.
//
//   swift build -c release --product depthalign-bench
//   .build/release/depthalign-bench [out-dir] [runs]
//
// Scores, over the colour pixels: "within 1 %" = output within 1 % of the
// truth where the truth is valid; "holes" = output 0 where the truth is
// valid (both % of valid-truth pixels); "invented" = output valid where the
// truth is 0 (% of all pixels).
@_spi(Bench) import DepthMatteKit
import DMContract
import Glibc

func now() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) * 1e3 + Double(ts.tv_nsec) * 1e-6
}

/// CPU time of the whole process (all threads), ms.
func cpuNow() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts)
    return Double(ts.tv_sec) * 1e3 + Double(ts.tv_nsec) * 1e-6
}

func write(_ path: String, _ bytes: UnsafeRawBufferPointer) {
    guard let f = fopen(path, "wb") else { print("cannot write \(path)"); exit(1) }
    _ = fwrite(bytes.baseAddress!, 1, bytes.count, f)
    fclose(f)
}
func write(_ path: String, _ text: String) {
    var t = text
    t.withUTF8 { write(path, UnsafeRawBufferPointer($0)) }
}
func write(_ path: String, _ values: [UInt16]) {
    values.withUnsafeBytes { write(path, $0) }   // x86-64: already little-endian
}

struct Score {
    var within = 0.0, holes = 0.0, invented = 0.0
    init(_ out: [UInt16], _ truth: [UInt16]) {
        var valid = 0, ok = 0, hole = 0, inv = 0
        for i in 0..<truth.count {
            let t = Int(truth[i]), o = Int(out[i])
            if t > 0 {
                valid += 1
                if o == 0 { hole += 1 } else if 100 * abs(o - t) <= t { ok += 1 }
            } else if o > 0 { inv += 1 }
        }
        within = 100 * Double(ok) / Double(max(valid, 1))
        holes = 100 * Double(hole) / Double(max(valid, 1))
        invented = 100 * Double(inv) / Double(truth.count)
    }
}

func fmt(_ x: Double, _ p: Int) -> String {
    var m = 1.0
    for _ in 0..<p { m *= 10 }
    let v = (x * m).rounded() / m
    var s = "\(v)"
    if let dot = s.firstIndex(of: ".") {
        let decimals = s.distance(from: dot, to: s.endIndex) - 1
        if decimals < p { s += String(repeating: "0", count: p - decimals) }
    }
    return s
}
func pad(_ s: String, _ n: Int) -> String { s.count >= n ? s : s + String(repeating: " ", count: n - s.count) }

let args = CommandLine.arguments
let dir = args.count > 1 ? args[1] : "/tmp/depthalign-bench"
let runs = args.count > 2 ? max(1, Int(args[2]) ?? 60) : 60
mkdir(dir, 0o755)

let calibration = RegistrationScene.rig()
let scene = RegistrationScene.boxAndWall
let dw = calibration.depth.width, dh = calibration.depth.height
let cw = calibration.color.width, ch = calibration.color.height

var t0 = now()
let truth = scene.renderTruth(calibration)
// frame 0 noise-free, frames 1-3 with structured-light noise (σ = 0.0015·z² m)
let frames: [(name: String, depth: [UInt16])] = [
    ("clean", scene.renderDepth(calibration)),
    ("noisy1", scene.renderDepth(calibration, noise: 0.0015, seed: 1)),
    ("noisy2", scene.renderDepth(calibration, noise: 0.0015, seed: 2)),
    ("noisy3", scene.renderDepth(calibration, noise: 0.0015, seed: 3)),
]
print("scene rendered in \(fmt(now() - t0, 0)) ms: depth \(dw)x\(dh) -> colour \(cw)x\(ch), "
      + "truth valid \(fmt(100 * Double(truth.filter { $0 > 0 }.count) / Double(truth.count), 1)) %")

write(dir + "/calibration.json", calibration.json)
write(dir + "/truth.raw", truth)
for f in frames { write(dir + "/depth_\(f.name).raw", f.depth) }

let reg = DepthRegistration()
var out = [UInt16](repeating: 0, count: cw * ch)
func run(_ depth: [UInt16], threads: Int) {
    _ = depth.withUnsafeBytes { d in
        out.withUnsafeMutableBytes { o in
            reg.register(depth: Depth16View(base: d.baseAddress!, width: dw, height: dh, stride: 2 * dw),
                         calibration: calibration, into: o.baseAddress!, width: cw, height: ch, stride: 2 * cw,
                         maxRelativeJump: DMDepthAlignSettings.defaults.max_jump, threads: threads)
        }
    }
}

t0 = now()
run(frames[0].depth, threads: 1)
print("first frame (rays for the calibration + buffers): \(fmt(now() - t0, 2)) ms")

var manifest = "{\n  \"depth\": [\(dw), \(dh)], \"color\": [\(cw), \(ch)], \"runs\": \(runs),\n"
manifest += "  \"frames\": [\(frames.map { "\"\($0.name)\"" }.joined(separator: ", "))],\n  \"ours\": [\n"
print("")
print(pad("threads", 8) + pad("frame", 8) + pad("ms (median)", 12) + pad("within 1 %", 12) + pad("holes %", 9) + pad("invented %", 12) + "cpu ms (median, all threads)")
var rows: [String] = []
for threads in [1, 2] {
    var all: [Double] = []
    var sw = 0.0, sh = 0.0, si = 0.0
    for f in frames {
        var times: [Double] = [], cpu: [Double] = []
        for _ in 0..<runs {
            let c = cpuNow(), a = now()
            run(f.depth, threads: threads)
            times.append(now() - a)
            cpu.append(cpuNow() - c)
        }
        times.sort()
        cpu.sort()
        all += times
        let s = Score(out, truth)
        sw += s.within; sh += s.holes; si += s.invented
        print(pad("\(threads)", 8) + pad(f.name, 8) + pad(fmt(times[times.count / 2], 3), 12)
              + pad(fmt(s.within, 2), 12) + pad(fmt(s.holes, 2), 9) + pad(fmt(s.invented, 3), 12)
              + fmt(cpu[cpu.count / 2], 3))
        if threads == 1 { write(dir + "/ours_\(f.name).raw", out) }
    }
    all.sort()
    let k = Double(frames.count)
    let median = all[all.count / 2]
    rows.append("    {\"method\": \"depthalign (\(threads) thread\(threads > 1 ? "s" : ""))\", \"ms\": \(median), "
                + "\"within\": \(sw / k), \"holes\": \(sh / k), \"invented\": \(si / k)}")
    print(pad("\(threads)", 8) + pad("all", 8) + pad(fmt(median, 3), 12) + pad(fmt(sw / k, 2), 12)
          + pad(fmt(sh / k, 2), 9) + fmt(si / k, 3))
}
manifest += rows.joined(separator: ",\n") + "\n  ]\n}\n"
write(dir + "/manifest.json", manifest)
print("\nwrote \(dir)/{calibration.json, truth.raw, depth_*.raw, ours_*.raw, manifest.json}")
