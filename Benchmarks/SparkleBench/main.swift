// SPDX-License-Identifier: LGPL-2.1-or-later
// sparkle-bench: what the sparkle element costs at 1920x1080 BGRA, judged
// against a plain frame copy measured in the same run.
//
//   swift run -c release sparkle-bench [repeats]
//
// Prints the median of `repeats` timings (default 301) for:
//   copy            memcpy of one 1920x1080 BGRA frame (8.3 MB)
//   meter           one brightness reading with the default grid and a few
//                   other grid steps, three ways: warm (the same frame re-read),
//                   fresh (the frame just written, as upstream does: the
//                   realistic case), cold (caches swept, the frame in DRAM)
//   glints          update + draw of 64 live glints (max-sparkles 64, full
//                   brightness, default size), no reading on those frames
// and each as a percentage of the copy.
import BenchSupport
@_spi(Bench) import DepthMatteKit
#if canImport(Glibc)
import Glibc
#endif

let width = 1920, height = 1080, ps = 4
let rowBytes = width * ps
let bytes = rowBytes * height
let repeats = CommandLine.arguments.count > 1 ? max(11, Int(CommandLine.arguments[1]) ?? 301) : 301


/// Median seconds of `body` over `repeats` runs, with `before` (untimed) ahead of each.
func time(_ before: () -> Void = {}, _ body: () -> Void) -> Double {
    var samples: [Double] = []
    samples.reserveCapacity(repeats)
    for _ in 0..<3 { before(); body() }
    for _ in 0..<repeats {
        before()
        let t0 = now()
        body()
        samples.append(now() - t0)
    }
    return median(samples)
}

let src = UnsafeMutablePointer<UInt8>.allocate(capacity: bytes)
let dst = UnsafeMutablePointer<UInt8>.allocate(capacity: bytes)
var rng = SplitMix64(seed: 1)
for i in 0..<bytes { src[i] = UInt8(truncatingIfNeeded: rng.next()) }
for i in 0..<bytes { dst[i] = 0 }
let evictBytes = 64 << 20
let evict = UnsafeMutablePointer<UInt8>.allocate(capacity: evictBytes)
for i in 0..<evictBytes { evict[i] = UInt8(truncatingIfNeeded: i) }
var sink: UInt64 = 0
func evictCaches() {
    var s: UInt64 = 0
    var i = 0
    while i < evictBytes { evict[i] &+= 1; s &+= UInt64(evict[i]); i += 64 }
    sink &+= s
}

let view = RGBImageView(base: src, width: width, height: height, stride: rowBytes, pixelStride: ps,
                        r: 2, g: 1, b: 0, a: 3)  // BGRA
let defaults = SparkleSettings(.defaults)
var reading = 0.0

let copy = time { dst.update(from: src, count: bytes) }
let freshView = RGBImageView(base: dst, width: width, height: height, stride: rowBytes, pixelStride: ps,
                         r: 2, g: 1, b: 0, a: 3)
/// (warm, fresh, cold) medians of one reading with grid step `step`.
func meter(step: Int) -> (Double, Double, Double) {
    // warm: the same frame read again and again (its sampled lines stay cached)
    let warm = time { reading += BrightnessMeter.measure(view, step: step, measure: .meanRGB) }
    // fresh: the frame was just written (as upstream does), then read once
    let fresh = time({ dst.update(from: src, count: bytes) }) {
        reading += BrightnessMeter.measure(freshView, step: step, measure: .meanRGB)
    }
    // cold: caches swept by 64 MB first, the frame comes from DRAM
    let cold = time(evictCaches) { reading += BrightnessMeter.measure(view, step: step, measure: .meanRGB) }
    return (warm, fresh, cold)
}
let steps = [defaults.gridStep] + [1, 8, 16, 48, 64].filter { $0 != defaults.gridStep }
let meters = steps.map { meter(step: $0) }

// Glints: a white opaque frame (brightness 1, so target = max-sparkles), the
// effect run for 2 s of 30 fps stream time so the glints are at all phases.
for i in 0..<bytes { dst[i] = 0x60 }
for i in stride(from: 3, to: bytes, by: 4) { dst[i] = 0xFF }
let frame = RGBImageView(base: dst, width: width, height: height, stride: rowBytes, pixelStride: ps,
                         r: 2, g: 1, b: 0, a: 3)
var bright = defaults
bright.threshold = 0
bright.interval = 1_000_000_000_000  // measure once, on the first frame
let white = UnsafeMutablePointer<UInt8>.allocate(capacity: rowBytes)
for i in 0..<rowBytes { white[i] = 0xFF }
let whiteRow = RGBImageView(base: white, width: width, height: 1, stride: rowBytes, pixelStride: ps,
                            r: 2, g: 1, b: 0, a: 3)
let effect = SparkleEffect()
var t: Int64 = 0
_ = effect.process(whiteRow, settings: bright, streamTime: 0, frameDuration: nil)
for _ in 0..<60 { t += 33_333_333; _ = effect.process(frame, settings: bright, streamTime: t, frameDuration: nil) }
var live = 0
let glints = time {
    t += 33_333_333
    live = effect.process(frame, settings: bright, streamTime: t, frameDuration: nil).sparkles
}

/// Microseconds with one decimal, right-aligned.
func ms(_ s: Double) -> String {
    let v = Int((s * 1e7).rounded())
    let text = "\(v / 10).\(v % 10) us"
    return String(repeating: " ", count: max(0, 9 - text.count)) + text
}
func pct(_ s: Double) -> String {
    let v = Int((s / copy * 10000).rounded())
    let text = "\(v / 100).\(v % 100 < 10 ? "0" : "")\(v % 100) %"
    return String(repeating: " ", count: max(0, 8 - text.count)) + text
}
print("sparkle-bench: 1920x1080 BGRA, median of \(repeats) runs")
print("  frame copy (8.3 MB)          \(ms(copy))")
print("  meter: one reading             warm                fresh               cold")
for (step, m) in zip(steps, meters) {
    let label = "grid-step \(step)\(step == defaults.gridStep ? " (default)" : "")"
    let pad = String(repeating: " ", count: max(0, 28 - label.count))
    print("    \(label)\(pad) \(ms(m.0)) \(pct(m.0))   \(ms(m.1)) \(pct(m.1))   \(ms(m.2)) \(pct(m.2))")
}
print("      (percentages are of the frame copy; warm = same frame re-read, fresh = frame")
print("       just written as upstream would, cold = caches swept, frame from DRAM)")
print("  glints: update + draw, \(live) live, size \(defaults.size)   \(ms(glints))   \(pct(glints)) of a copy")
print("  (the meter runs once per interval: at 30 fps and 200 ms, 1 frame in 6)")
if reading < 0 || sink == 1 { print(reading) }
