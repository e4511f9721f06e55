// SPDX-License-Identifier: LGPL-2.1-or-later
// Rendering a clip of an rgbdtestsrc scene in process: colour, depth, truth,
// face boxes and the object map the hand and distractor figures read, with
// the camera effects quality-bench's knobs add (exposure blur, colour noise,
// auto exposure, a depth lag, a band of holes, a mirrored picture).
@_spi(Bench) import DepthMatteKit
import BenchSupport
#if canImport(Glibc)
import Glibc  // log, cos, pow
#endif

/// A clip to key: its frames' colour (RGBA), depth, truth and face boxes.
struct Clip {
    var video: [[UInt8]] = [], depth: [[UInt16]] = [], truth: [[UInt8]] = [], faces: [[Box]] = []
    var objects: [[UInt8]] = []  // per output pixel: 1 distractor, 2 hand/arm, 0 other
    /// Per frame, 255 where the truth is known (empty: known everywhere).
    /// Pixels of unknown truth are left out of every metric; dtSSD also
    /// leaves out pixels unknown in the previous frame.
    var known: [[UInt8]] = []
    var dw = 0, dh = 0, mis = 0
    var fps = 10.0
}

/// QB_EXPOSURE=s: the colour (and the truth, as coverage) integrated over an
/// exposure of s seconds centred on the frame time (motion blur: a person
/// walking past an indoor camera at 1/30 s), from 7 renders; the depth stays
/// instantaneous.
let exposure = env("QB_EXPOSURE").flatMap { Double($0) } ?? 0
let exposureSteps = 7
/// The mean of `exposureSteps` renders of `count` bytes over the exposure.
func integrated(_ s: SceneSettings, t: Double, count: Int, _ draw: (RGBDScene, UnsafeMutablePointer<UInt8>) -> Void) -> [UInt8] {
    var acc = [Int](repeating: 0, count: count), one = [UInt8](repeating: 0, count: count)
    for k in 0..<exposureSteps {
        let sc = RGBDScene(settings: s, time: t + exposure * (Double(k) / Double(exposureSteps - 1) - 0.5))
        one.withUnsafeMutableBufferPointer { draw(sc, $0.baseAddress!) }
        for i in 0..<count { acc[i] += Int(one[i]) }
    }
    return acc.map { UInt8(($0 + exposureSteps / 2) / exposureSteps) }
}

/// QB_VNOISE=sigma: fresh Gaussian noise of sigma 8-bit levels on every
/// colour channel of every frame (a small sensor's colour in dim indoor
/// light: a Kinect v1 or a webcam reads 3-6 levels).
let videoNoise = env("QB_VNOISE").flatMap { Double($0) } ?? 0
func addNoise(_ v: inout [UInt8], sigma: Double, seed: UInt64) {
    var x = seed &* 0x9E37_79B9_7F4A_7C15
    func uniform() -> Double {
        x = x &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return (Double(x >> 11) + 0.5) / Double(1 << 53)
    }
    for i in 0..<v.count where i % 4 != 3 {
        // Box-Muller (the cosine half)
        let g = (-2 * log(uniform())).squareRoot() * cos(2 * Double.pi * uniform())
        v[i] = UInt8(max(0, min(255, (Double(v[i]) + sigma * g).rounded())))
    }
}

/// QB_AE=s: the colour camera's auto exposure: each frame's gain moves 30 %
/// of the way towards (mid-grey 118 / the frame's mean luma)^s, as a
/// webcam's or a Kinect v1's does when a dark person enters or leaves the
/// picture (s = 1 a plain exposure control, larger s exaggerates it; 0, the
/// default: a fixed exposure, as before).
let autoExposure = env("QB_AE").flatMap { Double($0) } ?? 0
func applyAutoExposure(_ v: inout [UInt8], gain: inout Double, strength: Double) {
    var sum = 0.0
    for i in stride(from: 0, to: v.count, by: 4) {
        sum += 0.299 * Double(v[i]) + 0.587 * Double(v[i + 1]) + 0.114 * Double(v[i + 2])
    }
    let mean = max(sum / Double(v.count / 4), 1)
    gain += 0.3 * (pow(118 / mean, strength) - gain)
    for i in 0..<v.count where i % 4 != 3 { v[i] = UInt8(max(0, min(255, (Double(v[i]) * gain).rounded()))) }
}

/// QB_MIRROR: every clip flipped left to right.
let mirrored = env("QB_MIRROR") != nil
func mirror<T>(_ a: inout [T], width: Int, pixel: Int) {
    let row = width * pixel
    for r in stride(from: 0, to: a.count, by: row) {
        for x in 0..<(width / 2) {
            for c in 0..<pixel { a.swapAt(r + x * pixel + c, r + (width - 1 - x) * pixel + c) }
        }
    }
}

/// `faceMiss` k > 0: the face detector misses every k-th frame (from frame
/// k - 1; QB_FACEMISS=k for every clip).
func render(_ s: SceneSettings, dw: Int, dh: Int, start: Double, frames: Int = nFrames, fps: Double = fps,
            smooth: Int? = env("QB_DEPTHSMOOTH").flatMap { Int($0) },
            faceMiss: Int = env("QB_FACEMISS").flatMap { Int($0) } ?? 0, band edgeHoles: Int = edgeHoles) -> Clip {
    var c = Clip(); c.dw = dw; c.dh = dh; c.mis = s.misregistration; c.fps = fps
    var gain = 1.0
    for i in 0..<frames {
        let t = start + Double(i) / fps
        let scene = RGBDScene(settings: s, time: t)
        var v = [UInt8](repeating: 0, count: VW * VH * 4)
        _ = v.withUnsafeMutableBufferPointer {
            scene.renderVideo(RGBImageView(base: $0.baseAddress!, width: VW, height: VH, stride: 4 * VW, pixelStride: 4, r: 0, g: 1, b: 2, a: 3))
        }
        if exposure > 0 {
            v = integrated(s, t: t, count: v.count) {
                $0.renderVideo(RGBImageView(base: $1, width: VW, height: VH, stride: 4 * VW, pixelStride: 4, r: 0, g: 1, b: 2, a: 3))
            }
        }
        if autoExposure > 0 { applyAutoExposure(&v, gain: &gain, strength: autoExposure) }
        if videoNoise > 0 { addNoise(&v, sigma: videoNoise, seed: UInt64(i + 1)) }
        var d = [UInt16](repeating: 0, count: dw * dh)
        // QB_DEPTHLAG=s: the depth taken s seconds before the colour (an
        // unsynchronised sensor pair: a Kinect v1's depth and colour are up
        // to half a frame apart)
        let depthScene = depthLag == 0 ? scene : RGBDScene(settings: s, time: t - depthLag)
        d.withUnsafeMutableBytes { depthScene.renderDepth(base: $0.baseAddress!, width: dw, height: dh, stride: 2 * dw) }
        if edgeHoles != 0 {
            // QB_EDGEHOLES=n (or a row's ", band -n"): the n columns at the right
            // edge (left: -n) have no reading, as a registered depth map's strip
            // the depth camera does not see
            for y in 0..<dh { for k in 0..<abs(edgeHoles) { d[y * dw + (edgeHoles > 0 ? dw - 1 - k : k)] = 0 } }
        }
        if let r = smooth, r > 0 {
            // QB_DEPTHSMOOTH=r: every clip as a filtered map of radius r (rgbdtestsrc filtered=true: r = width / 320)
            d.withUnsafeMutableBytes { RGBDScene.filterDepth(base: $0.baseAddress!, width: dw, height: dh, stride: 2 * dw, radius: r) }
        }
        var tr = [UInt8](repeating: 0, count: VW * VH)
        tr.withUnsafeMutableBufferPointer { scene.renderTruth(Gray8View(base: $0.baseAddress!, width: VW, height: VH, stride: VW)) }
        if exposure > 0 { tr = integrated(s, t: t, count: tr.count) { $0.renderTruth(Gray8View(base: $1, width: VW, height: VH, stride: VW)) } }
        var ob = [UInt8](repeating: 0, count: VW * VH)
        for y in stride(from: 0, to: VH, by: 2) {
            for x in stride(from: 0, to: VW, by: 2) {
                let smp = scene.sample(x: x, y: y, width: VW, height: VH)
                switch smp.object {
                case .distractor, .surface: ob[y * VW + x] = 1
                case .thinPart:
                    // 4: the thin rod, where the truth covers it fully
                    if tr[y * VW + x] == 255 { ob[y * VW + x] = 4 }
                case .hand, .arm:
                    // 2: fully covered; 3: and more than 2 px inside the outline
                    var deep = y >= 2 && y < VH - 2 && x >= 2 && x < VW - 2
                    if deep { for j in -2...2 { for i in -2...2 where tr[(y + j) * VW + x + i] != 255 { deep = false } } }
                    ob[y * VW + x] = tr[y * VW + x] == 255 ? (deep ? 3 : 2) : 0
                default: break
                }
            }
        }
        let miss = faceMiss > 0 && i % faceMiss == faceMiss - 1
        var faces = miss ? [] : scene.detectedFaces(width: VW, height: VH)
        if mirrored {
            // QB_MIRROR: every picture flipped left to right (a walk the other
            // way, the occlusion shadow on the right of near objects)
            mirror(&v, width: VW, pixel: 4); mirror(&d, width: dw, pixel: 1)
            mirror(&tr, width: VW, pixel: 1); mirror(&ob, width: VW, pixel: 1)
            faces = faces.map { Box(x: VW - $0.x - $0.width, y: $0.y, width: $0.width, height: $0.height) }
        }
        c.video.append(v); c.depth.append(d); c.truth.append(tr); c.faces.append(faces)
        c.objects.append(ob)
    }
    return c
}
