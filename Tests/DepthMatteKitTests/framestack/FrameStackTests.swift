// SPDX-License-Identifier: LGPL-2.1-or-later
// FrameStack: the measured claims on synthetic frames, plus exact
// results of the kernels against straightforward reference code.
import XCTest
@_spi(Bench) @testable import DepthMatteKit

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// MARK: - Synthetic frames

private struct FSRandom {
    var s: UInt64
    init(_ seed: UInt64) { s = seed &* 2862933555777941757 &+ 3037000493 }
    mutating func next() -> UInt64 { s = s &* 6364136223846793005 &+ 1442695040888963407; return s >> 33 }
    mutating func unit() -> Double { Double(next() % (1 << 30)) / Double(1 << 30) }
    mutating func int(_ r: ClosedRange<Int>) -> Int { r.lowerBound + Int(next() % UInt64(r.count)) }
    /// Approximately normal (sum of 12 uniforms), mean 0, sd 1.
    mutating func gauss() -> Double { var s = 0.0; for _ in 0..<12 { s += unit() }; return s - 6 }
}

/// An owned packed 4-byte picture (BGRA layout unless told otherwise).
private final class FSImage {
    let width: Int, height: Int, stride: Int
    let bytes: UnsafeMutablePointer<UInt8>
    let r: Int, g: Int, b: Int, a: Int
    init(_ w: Int, _ h: Int, r: Int = 2, g: Int = 1, b: Int = 0, a: Int = 3, padding: Int = 0) {
        width = w; height = h; stride = w * 4 + padding
        self.r = r; self.g = g; self.b = b; self.a = a
        bytes = .allocate(capacity: stride * h)
        bytes.initialize(repeating: 0xAB, count: stride * h)
    }
    deinit { bytes.deallocate() }
    var view: RGBImageView {
        RGBImageView(base: bytes, width: width, height: height, stride: stride, pixelStride: 4, r: r, g: g, b: b, a: a)
    }
    subscript(x: Int, y: Int, c: Int) -> UInt8 {
        get { bytes[y * stride + x * 4 + c] }
        set { bytes[y * stride + x * 4 + c] = newValue }
    }
    func fill(_ f: (Int, Int, Int) -> UInt8) {
        for y in 0..<height { for x in 0..<width { for c in 0..<4 { self[x, y, c] = f(x, y, c) } } }
    }
}

/// A smooth random texture evaluated analytically, so a frame whose content
/// is displaced by a known sub-pixel amount is exact: I(x, y) = S(x - sx, y - sy).
private struct Texture {
    struct Wave { var amp, fx, fy, phase: Double }
    var waves: [[Wave]] = []
    init(seed: UInt64) {
        var r = FSRandom(seed)
        for _ in 0..<3 {
            var ch: [Wave] = []
            for _ in 0..<7 {
                let lambda = 9 + 30 * r.unit(), theta = r.unit() * 2 * Double.pi, f = 2 * Double.pi / lambda
                ch.append(Wave(amp: 8 + 10 * r.unit(), fx: f * cos(theta), fy: f * sin(theta), phase: 6.283 * r.unit()))
            }
            waves.append(ch)
        }
    }
    func value(_ x: Double, _ y: Double, _ c: Int) -> Double {
        var v = 128.0
        for w in waves[c] { v += w.amp * sin(w.fx * x + w.fy * y + w.phase) }
        return v
    }
    /// BGRA frame with content displaced by (sx, sy), optional noise.
    func frame(_ w: Int, _ h: Int, sx: Double, sy: Double, noise: Double = 0, rng: inout FSRandom) -> FSImage {
        let img = FSImage(w, h)
        for y in 0..<h {
            for x in 0..<w {
                for c in 0..<3 {
                    let v = value(Double(x) - sx, Double(y) - sy, c) + (noise > 0 ? noise * rng.gauss() : 0)
                    img[x, y, [2, 1, 0][c]] = UInt8(max(0, min(255, v.rounded())))
                }
                img[x, y, 3] = 255
            }
        }
        return img
    }
}

/// Paint a box with its own striped pattern (a "passer-by").
private func paintBox(_ img: FSImage, x0: Int, y0: Int, w: Int, h: Int, tone: Int) {
    for y in max(0, y0)..<min(img.height, y0 + h) {
        for x in max(0, x0)..<min(img.width, x0 + w) {
            let on = ((x - x0) / 4 + (y - y0) / 6) & 1 == 0
            img[x, y, 0] = on ? 20 : UInt8(200 + tone % 50)
            img[x, y, 1] = on ? UInt8(240 - tone % 40) : 60
            img[x, y, 2] = on ? 90 : 10
        }
    }
}

/// Push keeping the picture alive until the stacker copied it (a temporary's
/// lifetime may otherwise end right after `.view` is read).
@discardableResult
private func push(_ st: FrameStacker, _ img: FSImage, pts: UInt64 = FrameStacker.noTime,
                  duration: UInt64 = FrameStacker.noTime, _ s: FrameStackSettings) -> Bool {
    withExtendedLifetime(img) { st.push(img.view, pts: pts, duration: duration, settings: s) }
}

private func settings(frames: Int, method: StackMethod = .median, align: StackAlign = .none,
                      maxShift: Double = 16, mode: StackMode = .batch) -> FrameStackSettings {
    var s = FrameStackSettings(.defaults)
    s.frames = frames; s.method = method; s.align = align; s.maxShift = maxShift; s.mode = mode
    return s
}

// MARK: - Tests

final class FrameStackTests: XCTestCase {

    // MARK: selection network

    func testSelectionNetworkSortsEveryInputSize() {
        var rng = FSRandom(1)
        for n in 1...40 {
            let full = SelectionNetwork(n: n)
            let med = SelectionNetwork(n: n, ranks: [(n - 1) / 2, n / 2])
            XCTAssertLessThanOrEqual(med.count, full.count)
            for _ in 0..<30 {
                let values = (0..<n).map { _ in UInt8(rng.next() % 256) }
                let sorted = values.sorted()
                for (net, ranks) in [(full, Array(0..<n)), (med, [(n - 1) / 2, n / 2])] {
                    let buf = UnsafeMutablePointer<UInt8>.allocate(capacity: n * 2)
                    defer { buf.deallocate() }
                    for i in 0..<n { buf[2 * i] = values[i]; buf[2 * i + 1] = 255 &- values[i] }
                    net.apply(buf, rowStride: 2, length: 2)
                    for r in ranks {
                        XCTAssertEqual(buf[2 * r], sorted[r], "n=\(n) rank \(r)")
                        XCTAssertEqual(buf[2 * r + 1], values.map { 255 &- $0 }.sorted()[r])
                    }
                }
            }
        }
    }

    // MARK: exact stacking against reference code

    /// Naive per-pixel reference of the kernel: same 1/16-pixel bilinear
    /// sampling, only covering frames, rounded mean / median.
    private func referenceStack(_ frames: [FSImage], shifts: [(Double, Double)], method: StackMethod) -> (FSImage, [Int]) {
        let w = frames[0].width, h = frames[0].height
        let out = FSImage(w, h)
        var counts = [Int](repeating: 0, count: frames.count + 1)
        for y in 0..<h {
            for x in 0..<w {
                var samples: [[Int]] = [[], [], [], []]
                for (k, f) in frames.enumerated() {
                    var ix = Int(shifts[k].0.rounded(.down)), qx = Int(((shifts[k].0 - Double(ix)) * 16).rounded())
                    var iy = Int(shifts[k].1.rounded(.down)), qy = Int(((shifts[k].1 - Double(iy)) * 16).rounded())
                    if qx == 16 { ix += 1; qx = 0 }
                    if qy == 16 { iy += 1; qy = 0 }
                    let sx = x + ix, sy = y + iy
                    guard sx >= 0, sy >= 0, sx + (qx > 0 ? 1 : 0) < w, sy + (qy > 0 ? 1 : 0) < h else { continue }
                    for c in 0..<4 {
                        func p(_ dx: Int, _ dy: Int) -> Int { Int(f[min(sx + dx, w - 1), min(sy + dy, h - 1), c]) }
                        let v = p(0, 0) * (16 - qx) * (16 - qy) + p(1, 0) * qx * (16 - qy)
                            + p(0, 1) * (16 - qx) * qy + p(1, 1) * qx * qy
                        samples[c].append((v + 128) >> 8)
                    }
                }
                let n = samples[0].count
                counts[n] += 1
                for c in 0..<4 {
                    let s = samples[c].sorted()
                    let v: Int
                    if method == .mean { v = (s.reduce(0, +) + n / 2) / n } else {
                        v = n % 2 == 1 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2] + 1) / 2
                    }
                    out[x, y, c] = UInt8(v)
                }
            }
        }
        return (out, counts)
    }

    private func assertSame(_ a: FSImage, _ b: FSImage, file: StaticString = #filePath, line: UInt = #line) {
        var bad = 0, first = ""
        for y in 0..<a.height { for x in 0..<a.width { for c in 0..<4 where a[x, y, c] != b[x, y, c] {
            if bad == 0 { first = "(\(x),\(y),\(c)): \(a[x, y, c]) vs \(b[x, y, c])" }
            bad += 1
        } } }
        XCTAssertEqual(bad, 0, "first difference \(first)", file: file, line: line)
    }

    func testKernelMatchesReferenceWithSubPixelShiftsAndBorders() {
        var rng = FSRandom(7)
        let w = 300, h = 23   // wider than one chunk, odd sizes
        for n in [1, 2, 5, 6, 9] {
            let frames = (0..<n).map { _ -> FSImage in
                let f = FSImage(w, h)
                f.fill { _, _, _ in UInt8(rng.next() % 256) }
                return f
            }
            let shifts: [(Double, Double)] = (0..<n).map { k in
                k == 0 ? (0, 0) : (rng.unit() * 8 - 4, rng.unit() * 6 - 3)
            }
            for method in [StackMethod.mean, .median] {
                let (expected, expCounts) = referenceStack(frames, shifts: shifts, method: method)
                let out = FSImage(w, h, padding: 12)
                let taps = (0..<n).map { StackTap(source: frames[$0].bytes, shiftX: shifts[$0].0, shiftY: shifts[$0].1, width: w, height: h) }
                var counts = [Int](repeating: -1, count: n + 1)
                let kernel = StackKernel()
                let cov = taps.withUnsafeBufferPointer { t in
                    counts.withUnsafeMutableBufferPointer { kernel.stack(taps: t, width: w, height: h, rowBytes: w * 4, pixelStride: 4, method: method, out: out.view, sampleCounts: $0.baseAddress!) }
                }
                assertSame(out, expected)
                XCTAssertEqual(counts, expCounts, "n=\(n) \(method)")
                XCTAssertEqual(cov?.minSamples, expCounts.firstIndex { $0 > 0 })
                // row padding untouched
                XCTAssertEqual(out.bytes[w * 4], 0xAB)
                withExtendedLifetime(frames) {}
            }
        }
    }

    func testAnOutputOfAnotherGeometryIsRefusedNotAborted() {
        // an output picture that does not fit the frames (another size, or
        // no frame at all) is refused and left untouched; the element posts
        // an error instead of the process aborting
        let w = 16, h = 8
        let f = FSImage(w, h)
        f.fill { _, _, _ in 50 }
        let taps = [StackTap(source: f.bytes, shiftX: 0, shiftY: 0, width: w, height: h)]
        var counts = [Int](repeating: 7, count: 2)
        for out in [FSImage(w + 2, h), FSImage(w, h - 1)] {
            out.fill { _, _, _ in 9 }
            let cov = taps.withUnsafeBufferPointer { t in
                counts.withUnsafeMutableBufferPointer { StackKernel().stack(taps: t, width: w, height: h, rowBytes: w * 4, pixelStride: 4, method: .median, out: out.view, sampleCounts: $0.baseAddress!) }
            }
            XCTAssertNil(cov)
            XCTAssertEqual(out[1, 1, 0], 9, "nothing written")
            XCTAssertEqual(counts, [7, 7])
        }
        let out = FSImage(w, h)
        let none = [StackTap]().withUnsafeBufferPointer { t in
            counts.withUnsafeMutableBufferPointer { StackKernel().stack(taps: t, width: w, height: h, rowBytes: w * 4, pixelStride: 4, method: .mean, out: out.view, sampleCounts: $0.baseAddress!) }
        }
        XCTAssertNil(none)
        // frames of two sizes are not registered (and not aborted on)
        let r = TranslationRegistrar().register(LumaPyramid(width: 32, height: 16), to: LumaPyramid(width: 16, height: 16), maxShift: 4)
        XCTAssertFalse(r.ok)
        XCTAssertEqual(SelectionNetwork(n: 0).n, 1)
        withExtendedLifetime(f) {}
    }

    func testBorderPixelsUseOnlyTheFramesCoveringThem() {
        // three flat frames, values 10, 20, 30; frame 1 displaced +4 px in x
        // (covers x < w-4), frame 2 displaced -3 px in y (covers y >= 3)
        let w = 40, h = 20
        let f = [10, 20, 30].map { v -> FSImage in let i = FSImage(w, h); i.fill { _, _, _ in UInt8(v) }; return i }
        let shifts: [(Double, Double)] = [(0, 0), (4, 0), (0, -3)]
        let taps = (0..<3).map { StackTap(source: f[$0].bytes, shiftX: shifts[$0].0, shiftY: shifts[$0].1, width: w, height: h) }
        let out = FSImage(w, h)
        var counts = [Int](repeating: 0, count: 4)
        let cov = taps.withUnsafeBufferPointer { t in
            counts.withUnsafeMutableBufferPointer { StackKernel().stack(taps: t, width: w, height: h, rowBytes: w * 4, pixelStride: 4, method: .median, out: out.view, sampleCounts: $0.baseAddress!) }
        }
        XCTAssertEqual(out[5, 10, 0], 20)        // all three: median 20
        XCTAssertEqual(out[w - 2, 10, 0], 20)    // frames 0, 2: (10 + 30 + 1) / 2
        XCTAssertEqual(out[5, 1, 0], 15)         // frames 0, 1: (10 + 20 + 1) / 2
        XCTAssertEqual(out[w - 2, 1, 0], 10)     // frame 0 only
        XCTAssertEqual(counts, [0, 4 * 3, 4 * 17 + 36 * 3, 36 * 17])
        withExtendedLifetime(f) {}
        XCTAssertEqual(cov?.minSamples, 1)
        XCTAssertEqual(cov.map { [$0.fullX, $0.fullY, $0.fullWidth, $0.fullHeight] }, [0, 3, 36, 17])
    }

    // MARK: registration (measured claim: mean error < 0.25 px)

    func testRegistrationErrorWithMovingObjectsCoveringThirtyPercent() {
        let w = 192, h = 144, n = 12
        let tex = Texture(seed: 42)
        var rng = FSRandom(3)
        var truth: [(Double, Double)] = [(0, 0)]
        let stacker = FrameStacker()
        let s = settings(frames: n, align: .translation, maxShift: 12)
        for k in 0..<n {
            let sh = k == 0 ? (0.0, 0.0) : (rng.unit() * 16 - 8, rng.unit() * 16 - 8)
            if k > 0 { truth.append(sh) }
            let img = tex.frame(w, h, sx: sh.0, sy: sh.1, noise: 2, rng: &rng)
            // three boxes of 10% of the frame each, at new places every frame
            for b in 0..<3 {
                let boxW = 58, boxH = 48   // 2784 px ≈ 10.07% of 192×144
                paintBox(img, x0: rng.int(0...(w - boxW)), y0: rng.int(0...(h - boxH)), w: boxW, h: boxH, tone: b * 37 + k)
            }
            push(stacker, img, s)
        }
        let out = FSImage(w, h)
        let r = stacker.render(into: out.view, method: .median)
        XCTAssertEqual(r.frames, n)
        var sum = 0.0, worst = 0.0
        for k in 1..<n {
            let e = ((stacker.shiftX[k] - truth[k].0) * (stacker.shiftX[k] - truth[k].0)
                     + (stacker.shiftY[k] - truth[k].1) * (stacker.shiftY[k] - truth[k].1)).squareRoot()
            sum += e; worst = max(worst, e)
            XCTAssertTrue(stacker.registered[k], "frame \(k) not registered")
        }
        let mean = sum / Double(n - 1)
        print("framestack registration: mean error \(mean) px, worst \(worst) px (\(n - 1) frames, 3 moving boxes ≈ 30%)")
        XCTAssertLessThan(mean, 0.25)
    }

    func testFlatFramesDoNotRegisterAndStayInPlace() {
        let w = 64, h = 48
        let stacker = FrameStacker()
        let s = settings(frames: 3, align: .translation)
        for v in [50, 60, 70] {
            let f = FSImage(w, h); f.fill { _, _, _ in UInt8(v) }
            push(stacker, f, s)
        }
        let out = FSImage(w, h)
        let r = stacker.render(into: out.view, method: .median)
        XCTAssertEqual(r.coverage.minSamples, 3)
        XCTAssertEqual(Array(stacker.shiftX.prefix(3)), [0, 0, 0])
        XCTAssertEqual(Array(stacker.registered.prefix(3)), [true, false, false])
        XCTAssertEqual(out[10, 10, 1], 60)
    }

    // MARK: median removes passers-by (measured claim)

    func testMedianRemovesObjectPresentInFewerThanHalfTheFrames() {
        let w = 96, h = 64, n = 9
        let tex = Texture(seed: 5)
        var rng = FSRandom(11)
        let background = tex.frame(w, h, sx: 0, sy: 0, rng: &rng)
        let stacker = FrameStacker()
        let s = settings(frames: n, method: .median, align: .none)
        for k in 0..<n {
            let f = tex.frame(w, h, sx: 0, sy: 0, rng: &rng)
            // a 30×40 box walking left to right 12 px per frame: each pixel is
            // covered in at most 3 of 9 frames
            paintBox(f, x0: -20 + 12 * k, y0: 12, w: 30, h: 40, tone: k)
            push(stacker, f, s)
        }
        let out = FSImage(w, h)
        _ = stacker.render(into: out.view, method: .median)
        assertSame(out, background)
    }

    func testAlignedMedianRemovesObjectFromShiftedFrames() {
        // camera moves by whole pixels; the box walks through; output is the
        // first frame's view of the background, borders included
        let w = 128, h = 96, n = 7
        let tex = Texture(seed: 9)
        var rng = FSRandom(13)
        let shifts: [(Double, Double)] = [(0, 0), (3, -2), (-4, 1), (2, 4), (-1, -5), (5, 2), (-3, -3)]
        let stacker = FrameStacker()
        let s = settings(frames: n, method: .median, align: .translation, maxShift: 8)
        for k in 0..<n {
            let f = tex.frame(w, h, sx: shifts[k].0, sy: shifts[k].1, rng: &rng)
            paintBox(f, x0: 10 + 16 * k, y0: 30, w: 24, h: 30, tone: k)
            push(stacker, f, s)
        }
        let out = FSImage(w, h)
        let r = stacker.render(into: out.view, method: .median)
        let reference = tex.frame(w, h, sx: 0, sy: 0, rng: &rng)
        for k in 0..<n {
            XCTAssertEqual(stacker.shiftX[k], shifts[k].0, accuracy: 0.05)
            XCTAssertEqual(stacker.shiftY[k], shifts[k].1, accuracy: 0.05)
        }
        // Inside the region all frames cover, the box is in at most 3 of 7
        // samples: exact background. (Near the borders fewer frames cover a
        // pixel, so the box may reach half of them there.)
        var interiorWorst = 0
        for y in r.coverage.fullY..<(r.coverage.fullY + r.coverage.fullHeight) {
            for x in r.coverage.fullX..<(r.coverage.fullX + r.coverage.fullWidth) {
                for c in 0..<3 { interiorWorst = max(interiorWorst, abs(Int(out[x, y, c]) - Int(reference[x, y, c]))) }
            }
        }
        XCTAssertLessThanOrEqual(interiorWorst, 1)
        // no dark borders: the corners come from the frames covering them
        var expectedMin = n
        for y in 0..<h { for x in 0..<w {
            let c = shifts.filter { x + Int($0.0) >= 0 && x + Int($0.0) < w && y + Int($0.1) >= 0 && y + Int($0.1) < h }.count
            expectedMin = min(expectedMin, c)
        } }
        XCTAssertEqual(r.coverage.minSamples, expectedMin)
        for (x, y) in [(0, 0), (w - 1, 0), (0, h - 1), (w - 1, h - 1)] {
            for c in 0..<3 { XCTAssertLessThanOrEqual(abs(Int(out[x, y, c]) - Int(reference[x, y, c])), 1) }
        }
    }

    // MARK: mean reduces noise by about sqrt(N) (measured claim)

    func testMeanReducesNoiseBySqrtN() {
        let w = 128, h = 96, n = 16, sigma = 8.0
        var rng = FSRandom(17)
        let stacker = FrameStacker()
        let s = settings(frames: n, method: .mean, align: .none)
        var inputVar = 0.0
        for _ in 0..<n {
            let f = FSImage(w, h)
            f.fill { _, _, c in c == 3 ? 255 : UInt8(max(0, min(255, (128 + sigma * rng.gauss()).rounded()))) }
            for y in 0..<h { for x in 0..<w { let d = Double(f[x, y, 1]) - 128; inputVar += d * d } }
            push(stacker, f, s)
        }
        inputVar /= Double(n * w * h)
        let out = FSImage(w, h)
        _ = stacker.render(into: out.view, method: .mean)
        var outVar = 0.0
        for y in 0..<h { for x in 0..<w { let d = Double(out[x, y, 1]) - 128; outVar += d * d } }
        outVar /= Double(w * h)
        let ratio = (inputVar / outVar).squareRoot()
        print("framestack mean of \(n): noise sd \(inputVar.squareRoot()) -> \(outVar.squareRoot()), reduction \(ratio)x (sqrt N = \(Double(n).squareRoot()))")
        XCTAssertEqual(ratio, Double(n).squareRoot(), accuracy: 0.15 * Double(n).squareRoot())
    }

    // MARK: modes and timestamps

    private func flat(_ v: Int, _ w: Int = 16, _ h: Int = 8) -> FSImage {
        let f = FSImage(w, h); f.fill { _, _, _ in UInt8(v) }; return f
    }

    func testBatchFullBatchNotRenderedIsReplaced() {
        let stacker = FrameStacker()
        let s = settings(frames: 3)
        var due: [Bool] = []
        for k in 0..<5 { due.append(push(stacker, flat(10 * (k + 1)), s)) }
        XCTAssertEqual(due, [false, false, true, false, false])
        XCTAssertEqual(stacker.pending, 2)   // frames 4 and 5 started a new batch
    }

    func testBatchModeTimestampsAndPartialStack() {
        let stacker = FrameStacker()
        let s = settings(frames: 3)
        let ms: UInt64 = 1_000_000
        let out = flat(0)
        var outputs: [(UInt8, UInt64, UInt64, Int)] = []
        for k in 0..<5 {
            if push(stacker, flat(10 * (k + 1)), pts: UInt64(k) * 100 * ms, duration: 100 * ms, s) {
                let r = stacker.render(into: out.view, method: .median)
                outputs.append((out[0, 0, 0], r.pts, r.duration, r.frames))
            }
        }
        XCTAssertEqual(stacker.pending, 2)
        let r = stacker.render(into: out.view, method: .median)   // EOS: partial
        outputs.append((out[0, 0, 0], r.pts, r.duration, r.frames))
        XCTAssertEqual(outputs.map { $0.0 }, [20, 45])
        XCTAssertEqual(outputs.map { $0.1 }, [0, 300 * ms])
        XCTAssertEqual(outputs.map { $0.2 }, [300 * ms, 200 * ms])
        XCTAssertEqual(outputs.map { $0.3 }, [3, 2])
        XCTAssertEqual(stacker.pending, 0)
    }

    func testSlidingModeStacksTheLastNFrames() {
        let stacker = FrameStacker()
        let s = settings(frames: 3, method: .median, mode: .sliding)
        let out = flat(0)
        var values: [UInt8] = [], pts: [UInt64] = [], durs: [UInt64] = [], counts: [Int] = []
        for (k, v) in [10, 20, 90, 40, 50, 60].enumerated() {
            XCTAssertTrue(push(stacker, flat(v), pts: UInt64(k) * 40, duration: 40, s))
            let r = stacker.render(into: out.view, method: .median)
            values.append(out[3, 3, 2]); pts.append(r.pts); durs.append(r.duration); counts.append(r.frames)
        }
        XCTAssertEqual(values, [10, 15, 20, 40, 50, 50])
        XCTAssertEqual(pts, [0, 40, 80, 120, 160, 200])
        XCTAssertEqual(durs, [40, 40, 40, 40, 40, 40])
        XCTAssertEqual(counts, [1, 2, 3, 3, 3, 3])
        XCTAssertEqual(Array(stacker.framePTS.prefix(3)), [120, 160, 200])
    }

    func testSlidingModeFollowsTheNewestFrame() {
        // content drifts 2 px right per frame; output must be in the newest
        // frame's coordinates (equal to the newest frame inside the full region)
        let w = 96, h = 72, n = 4
        let tex = Texture(seed: 21)
        var rng = FSRandom(2)
        let stacker = FrameStacker()
        let s = settings(frames: n, method: .median, align: .translation, maxShift: 16, mode: .sliding)
        let out = FSImage(w, h)
        for k in 0..<7 {
            let f = tex.frame(w, h, sx: Double(2 * k), sy: 0, rng: &rng)
            push(stacker, f, s)
            let r = stacker.render(into: out.view, method: .median)
            let m = min(k + 1, n)
            for j in 0..<m {
                // frame j of the window is (m-1-j) frames older: content 2 px further left
                XCTAssertEqual(stacker.shiftX[j], -2 * Double(m - 1 - j), accuracy: 0.05, "output \(k) frame \(j)")
            }
            var worst = 0
            for y in 0..<h { for x in 0..<w { for c in 0..<3 { worst = max(worst, abs(Int(out[x, y, c]) - Int(f[x, y, c]))) } } }
            XCTAssertLessThanOrEqual(worst, 1, "output \(k)")
            XCTAssertEqual(r.coverage.minSamples, 1)
        }
    }

    func testSizeChangeStartsOver() {
        let stacker = FrameStacker()
        let s = settings(frames: 3)
        push(stacker, flat(10, 16, 8), s)
        push(stacker, flat(20, 16, 8), s)
        XCTAssertEqual(stacker.pending, 2)
        push(stacker, flat(30, 8, 4), s)
        XCTAssertEqual(stacker.pending, 1)
        let out = flat(0, 8, 4)
        let r = stacker.render(into: out.view, method: .median)
        XCTAssertEqual(r.frames, 1)
        XCTAssertEqual(out[1, 1, 0], 30)
    }
}
