// SPDX-License-Identifier: LGPL-2.1-or-later
// framestack-bench: time to stack 20 frames at 1920×1080 BGRA (align by
// translation + median) against the time to copy those 20 frames, in the same
// run, on one core. Also prints the registration error on these frames.
//
//   swift run -c release framestack-bench [frames] [width] [height]
//
// The frames are synthetic: a smooth random texture (sums of sinusoids,
// evaluated analytically at each frame's known sub-pixel displacement), light
// noise, and striped boxes that move between frames covering ~20% of the picture.
import BenchSupport
@_spi(Bench) import DepthMatteKit
#if canImport(Glibc)
import Glibc
#endif


struct LCG {
    var s: UInt64
    mutating func next() -> UInt64 { s = s &* 6364136223846793005 &+ 1442695040888963407; return s >> 33 }
    mutating func unit() -> Double { Double(next() % (1 << 30)) / Double(1 << 30) }
}

let args = CommandLine.arguments
let nFrames = args.count > 1 ? Int(args[1]) ?? 20 : 20
let W = args.count > 2 ? Int(args[2]) ?? 1920 : 1920
let H = args.count > 3 ? Int(args[3]) ?? 1080 : 1080
let ps = 4, stride = W * ps

/// One texture component: amplitude, frequency (radians/px) in x and y, phase.
struct Wave { var amp, fx, fy, phase: Double }
var rng = LCG(s: 12345)
var waves: [[Wave]] = []
for _ in 0..<3 {
    var ch: [Wave] = []
    for _ in 0..<8 {
        let lambda = 14 + 70 * rng.unit(), theta = rng.unit() * 2 * Double.pi
        let f = 2 * Double.pi / lambda
        ch.append(Wave(amp: 10 + 12 * rng.unit(), fx: f * cos(theta), fy: f * sin(theta), phase: rng.unit() * 6.283))
    }
    waves.append(ch)
}

/// Render frame content displaced by (sx, sy): I(x, y) = S(x - sx, y - sy).
func render(_ dst: UnsafeMutablePointer<UInt8>, sx: Double, sy: Double, seed: UInt64, boxes: Int) {
    var colS = [Double](repeating: 0, count: W), colC = colS
    var rowS = [Double](repeating: 0, count: H), rowC = rowS
    var acc = [Double](repeating: 128, count: W * H)
    for c in 0..<3 {
        for i in 0..<(W * H) { acc[i] = 128 }
        for w in waves[c] {
            for x in 0..<W { let a = w.fx * (Double(x) - sx); colS[x] = sin(a); colC[x] = cos(a) }
            for y in 0..<H { let b = w.fy * (Double(y) - sy) + w.phase; rowS[y] = w.amp * sin(b); rowC[y] = w.amp * cos(b) }
            for y in 0..<H {
                let rs = rowS[y], rc = rowC[y], o = y * W
                for x in 0..<W { acc[o + x] += colS[x] * rc + colC[x] * rs }
            }
        }
        let off = [2, 1, 0][c]   // BGRA
        var r = LCG(s: seed &* 31 &+ UInt64(c))
        for y in 0..<H {
            for x in 0..<W {
                let noise = Double(Int(r.next() % 5) - 2)
                dst[y * stride + x * ps + off] = UInt8(max(0, min(255, (acc[y * W + x] + noise).rounded())))
            }
        }
    }
    for y in 0..<H { for x in 0..<W { dst[y * stride + x * ps + 3] = 255 } }
    // moving boxes (not displaced with the scene)
    var r = LCG(s: seed &+ 99)
    for b in 0..<boxes {
        let bw = W / 5, bh = H / 4
        let x0 = Int(r.next() % UInt64(W - bw)), y0 = Int(r.next() % UInt64(H - bh))
        for y in y0..<(y0 + bh) {
            for x in x0..<(x0 + bw) {
                let v: UInt8 = ((x / 9 + y / 13 + b) & 1) == 0 ? 30 : 230
                let p = dst + y * stride + x * ps
                p[0] = v; p[1] = 255 - v; p[2] = v / 2
            }
        }
    }
}

print("framestack-bench: \(nFrames) frames of \(W)x\(H) BGRA, one core")
print("generating frames...")
let frames = (0..<nFrames).map { _ in UnsafeMutablePointer<UInt8>.allocate(capacity: stride * H) }
var truth: [(Double, Double)] = []
for k in 0..<nFrames {
    let s = k == 0 ? (0.0, 0.0) : (rng.unit() * 40 - 20, rng.unit() * 40 - 20)
    truth.append(s)
    render(frames[k], sx: s.0, sy: s.1, seed: UInt64(k + 1), boxes: 2)
}
let copyDst = UnsafeMutablePointer<UInt8>.allocate(capacity: stride * H)
let out = UnsafeMutablePointer<UInt8>.allocate(capacity: stride * H)
func view(_ p: UnsafeMutablePointer<UInt8>) -> RGBImageView {
    RGBImageView(base: p, width: W, height: H, stride: stride, pixelStride: ps, r: 2, g: 1, b: 0, a: 3)
}

// copy: 20 frame copies, best of 5 runs
var copyTime = Double.infinity
for _ in 0..<5 {
    let t0 = now()
    for k in 0..<nFrames { copyDst.update(from: frames[k], count: stride * H) }
    copyTime = min(copyTime, now() - t0)
}

func run(method: StackMethod, align: StackAlign, stacker: FrameStacker) -> (push: Double, render: Double) {
    var s = FrameStackSettings(.defaults)
    s.frames = nFrames; s.method = method; s.align = align; s.maxShift = 32; s.mode = .batch
    let t0 = now()
    for k in 0..<nFrames { stacker.push(view(frames[k]), settings: s) }
    let t1 = now()
    _ = stacker.render(into: view(out), method: method)
    return (t1 - t0, now() - t1)
}

let stacker = FrameStacker()
_ = run(method: .median, align: .translation, stacker: stacker)   // warm-up (allocates slots)
var best = (push: Double.infinity, render: Double.infinity)
for _ in 0..<3 {
    let r = run(method: .median, align: .translation, stacker: stacker)
    if r.push + r.render < best.push + best.render { best = r }
}
var errSum = 0.0, errMax = 0.0
for k in 1..<nFrames {
    let e = ((stacker.shiftX[k] - truth[k].0) * (stacker.shiftX[k] - truth[k].0)
             + (stacker.shiftY[k] - truth[k].1) * (stacker.shiftY[k] - truth[k].1)).squareRoot()
    errSum += e; errMax = max(errMax, e)
}
let mean = run(method: .mean, align: .translation, stacker: stacker)
let noAlign = run(method: .median, align: .none, stacker: stacker)

/// Sliding mode: time per output (one new frame registered, `window` frames
/// resampled and combined), averaged over the frames after the window filled.
func slidingPerOutput(window: Int, method: StackMethod) -> Double {
    let st = FrameStacker()
    var s = FrameStackSettings(.defaults)
    s.frames = window; s.method = method; s.align = .translation; s.maxShift = 32; s.mode = .sliding
    var total = 0.0, n = 0
    for k in 0..<nFrames {
        let t0 = now()
        st.push(view(frames[k]), settings: s)
        _ = st.render(into: view(out), method: method)
        if k >= window { total += now() - t0; n += 1 }
    }
    return n > 0 ? total / Double(n) : .nan
}
let slide5 = slidingPerOutput(window: 5, method: .median)
let slide10 = slidingPerOutput(window: min(10, nFrames - 1), method: .median)
let slide5mean = slidingPerOutput(window: 5, method: .mean)

func ms(_ t: Double) -> String {
    let v = (t * 10000).rounded() / 10
    return "\(v) ms"
}
let total = best.push + best.render
print("copy \(nFrames) frames:                   \(ms(copyTime))")
print("stack \(nFrames) frames (align + median): \(ms(total))  [ingest+register \(ms(best.push)), median \(ms(best.render))]")
print("ratio stack / copy:                 \(((total / copyTime) * 10).rounded() / 10)x")
print("  align + mean:                     \(ms(mean.push + mean.render))  [median/mean stage \(ms(mean.render))]")
print("  no align + median:                \(ms(noAlign.push + noAlign.render))")
print("registration error vs known shifts (frames 2...\(nFrames), 2 moving boxes each): mean \((errSum / Double(nFrames - 1) * 1000).rounded() / 1000) px, max \((errMax * 1000).rounded() / 1000) px")
print("sliding mode, per output (align + stack of the window):")
print("  window 5 median:  \(ms(slide5))   window 10 median: \(ms(slide10))   window 5 mean: \(ms(slide5mean))")
print(total < 1.0 ? "target (< 1 s on one core): met" : "target (< 1 s on one core): NOT met")
