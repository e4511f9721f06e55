// SPDX-License-Identifier: LGPL-2.1-or-later
import XCTest
@_spi(Bench) @testable import DepthMatteKit

/// The synthetic RGB-D scene behind rgbdtestsrc: layout, registration between
/// colour, depth and truth, determinism and each depth artefact.
final class SceneTests: XCTestCase {

    // MARK: helpers

    /// A colour render into BGRx (or another layout) with `pad` bytes of row padding.
    private func video(_ scene: RGBDScene, _ w: Int, _ h: Int, pixelStride: Int = 4,
                       r: Int = 2, g: Int = 1, b: Int = 0, a: Int = -1, pad: Int = 0,
                       fill: UInt8 = 0) -> (bytes: [UInt8], stride: Int, face: Box?) {
        let stride = w * pixelStride + pad
        var bytes = [UInt8](repeating: fill, count: stride * h)
        let face = bytes.withUnsafeMutableBufferPointer { p in
            scene.renderVideo(RGBImageView(base: p.baseAddress!, width: w, height: h, stride: stride,
                                           pixelStride: pixelStride, r: r, g: g, b: b, a: a))
        }
        return (bytes, stride, face)
    }

    /// Depth samples (sensor units) read back through `Depth16View`.
    private func depth(_ scene: RGBDScene, _ w: Int, _ h: Int) -> [UInt16] {
        let stride = 2 * w + 6                       // padded rows
        var bytes = [UInt8](repeating: 0xAB, count: stride * h + 1)
        bytes.withUnsafeMutableBytes { raw in
            // start at an odd address: the depth pointer may be unaligned
            scene.renderDepth(base: raw.baseAddress! + 1, width: w, height: h, stride: stride)
        }
        return bytes.withUnsafeBytes { raw in
            let v = Depth16View(base: raw.baseAddress! + 1, width: w, height: h, stride: stride)
            var out = [UInt16]()
            out.reserveCapacity(w * h)
            for y in 0..<h { for x in 0..<w { out.append(v.at(x, y)) } }
            return out
        }
    }

    private func truth(_ scene: RGBDScene, _ w: Int, _ h: Int) -> [UInt8] {
        var bytes = [UInt8](repeating: 7, count: w * h)
        bytes.withUnsafeMutableBufferPointer { p in
            scene.renderTruth(Gray8View(base: p.baseAddress!, width: w, height: h, stride: w))
        }
        return bytes
    }

    private func scene(_ t: Double, _ configure: (inout SceneSettings) -> Void = { _ in }) -> RGBDScene {
        var s = SceneSettings(.defaults)
        configure(&s)
        return RGBDScene(settings: s, time: t)
    }

    private let times: [Double] = [0, 2.3, 4.5, 6, 8.7, 11, 14, 17.2]

    // MARK: layout

    func testPoseStaysInItsRangesAndFollowsTheTimeline() {
        var t = 0.0
        var seenNear = false, seenFar = false
        while t < 60 {
            let p = ScenePose.at(t)
            XCTAssert(SceneLayout.subjectDepthRange.contains(p.subjectDepth), "t=\(t) depth \(p.subjectDepth)")
            XCTAssert(abs(p.headX) <= 0.1 + 1e-9)
            if p.subjectDepth < 0.9 { seenNear = true }
            if p.subjectDepth > 1.3 { seenFar = true }
            t += 0.05
        }
        XCTAssert(seenNear && seenFar, "the subject steps nearer and farther")
        XCTAssertEqual(ScenePose.at(0).subjectDepth, 1.0)
        XCTAssertEqual(ScenePose.at(2).subjectDepth, 1.0)
        XCTAssertEqual(ScenePose.at(5).subjectDepth, 1.25)
        XCTAssertFalse(ScenePose.at(0).handRaised)
        XCTAssertTrue(ScenePose.at(6).handRaised)
        XCTAssertTrue(ScenePose.at(0).faceVisible)
        XCTAssertFalse(ScenePose.at(12.5).faceVisible)
        XCTAssertNotEqual(ScenePose.at(1.5).headX, ScenePose.at(0).headX, "the subject moves sideways")
    }

    func testWallIsFartherThanTwoAndAHalfMetres() {
        let s = scene(0)
        for (u, v) in [(0.02, 0.05), (0.98, 0.05), (0.98, 0.95), (0.5, 0.05), (0.85, 0.5)] {
            let smp = s.sample(u: u, v: v)
            XCTAssertEqual(smp.object, .wall, "u=\(u) v=\(v)")
            XCTAssert(smp.depth > 2.5 && smp.depth < 3.2, "wall depth \(smp.depth)")
        }
        let d = depth(s, 32, 18)
        XCTAssert(d[0] > 2500 && d[31] > 2500)
    }

    func testDistractorLiesBetweenSubjectAndWallBeyondTheDefaultCutoff() {
        // the pot's centre
        let p = SceneLayout.project(x: -0.80, y: 0.55, z: SceneLayout.distractorDepth)
        let s = scene(0).sample(u: p.u, v: p.v)
        XCTAssertEqual(s.object, .distractor)
        XCTAssert(SceneLayout.distractorDepthRange.contains(s.depth))
        // farther than the farthest subject point + the default cutoff offset (0.25 m)
        let farthestSubject = SceneLayout.subjectDepthRange.upperBound + SceneLayout.torsoBehind + 0.04
        XCTAssert(SceneLayout.distractorDepthRange.lowerBound > farthestSubject + 0.25)
        // and nearer than the wall
        XCTAssert(SceneLayout.distractorDepthRange.upperBound < 2.5)
        // a leaf is rendered as the distractor too
        let leaf = SceneLayout.project(x: -0.82, y: -0.25, z: SceneLayout.distractorDepth)
        XCTAssertEqual(scene(0).sample(u: leaf.u, v: leaf.v).object, .distractor)
    }

    func testHeadIsRoundedAndTorsoIsJustBehindTheFace() {
        let sc = scene(0)
        let z = sc.pose.subjectDepth
        let c = SceneLayout.project(x: sc.pose.headX, y: sc.pose.headY, z: z)
        let centre = sc.sample(u: c.u, v: c.v)
        XCTAssertEqual(centre.object, .head)
        XCTAssertEqual(centre.depth, z, accuracy: 1e-9)
        let side = SceneLayout.project(x: sc.pose.headX + 0.07, y: sc.pose.headY, z: z)
        let sideSample = sc.sample(u: side.u, v: side.v)
        XCTAssertEqual(sideSample.object, .head)
        XCTAssert(sideSample.depth > centre.depth + 0.02, "the head's sides are farther than its centre")
        let chest = SceneLayout.project(x: sc.pose.headX, y: sc.pose.headY + 0.35, z: z)
        let chestSample = sc.sample(u: chest.u, v: chest.v)
        XCTAssertEqual(chestSample.object, .torso)
        XCTAssertEqual(chestSample.depth, z + SceneLayout.torsoBehind, accuracy: 0.005)
    }

    func testRaisedHandIsNearerThanTheFaceAndPartOfTheTruth() {
        let sc = scene(6)
        XCTAssert(sc.pose.handRaised)
        let zh = sc.pose.subjectDepth - SceneLayout.handForward
        let hc = SceneLayout.project(x: sc.pose.headX + 0.19, y: sc.pose.headY - 0.02, z: zh)
        let hand = sc.sample(u: hc.u, v: hc.v)
        XCTAssertEqual(hand.object, .hand)
        XCTAssertEqual(hand.depth, zh, accuracy: 0.002)
        XCTAssert(hand.isSubject)
        let w = 160, h = 90
        let m = truth(sc, w, h)
        XCTAssertEqual(m[Int(hc.v * Double(h)) * w + Int(hc.u * Double(w))], 255)
        // with the hand down the same place is wall
        let down = scene(0)
        let hc0 = SceneLayout.project(x: down.pose.headX + 0.19, y: down.pose.headY - 0.02,
                                      z: down.pose.subjectDepth - SceneLayout.handForward)
        XCTAssertEqual(down.sample(u: hc0.u, v: hc0.v).object, .wall)
        // the hand stays outside the face box, so the face depth is the face's
        let face = try! XCTUnwrap(sc.faceBox(width: w, height: h))
        let hx = Int(hc.u * Double(w)), hy = Int(hc.v * Double(h))
        XCTAssertFalse(hx >= face.x && hx < face.x + face.width && hy >= face.y && hy < face.y + face.height)
    }

    // MARK: face box

    func testFaceBoxLiesOnTheSubjectInTheTruth() {
        let w = 160, h = 90
        for t in times {
            let sc = scene(t)
            let v = video(sc, w, h)
            guard let face = v.face else { XCTFail("no face at t=\(t)"); continue }
            XCTAssertEqual(face, sc.faceBox(width: w, height: h))
            XCTAssert(face.width >= 8 && face.height >= 8, "face box \(face)")
            let m = truth(sc, w, h)
            // the central half of the box is subject
            var inside = 0, total = 0
            for y in (face.y + face.height / 4)..<(face.y + 3 * face.height / 4) {
                for x in (face.x + face.width / 4)..<(face.x + 3 * face.width / 4) {
                    total += 1
                    if m[y * w + x] == 255 { inside += 1 }
                }
            }
            XCTAssertEqual(inside, total, "t=\(t)")
            // and the box hugs the head: its top row is mostly not subject at the corners
            XCTAssertLessThan(m[face.y * w + face.x], 128)
        }
    }

    func testFaceDepthIsTheSubjectsDepth() {
        let vw = 160, vh = 90, dw = 80, dh = 45
        var sampler = FaceDepthSampler()
        for t in times {
            let sc = scene(t)
            guard let face = sc.faceBox(width: vw, height: vh) else { XCTFail(); continue }
            let d = depth(sc, dw, dh)
            let median: Double? = d.withUnsafeBytes { raw in
                sampler.medianDepth(Depth16View(base: raw.baseAddress!, width: dw, height: dh, stride: 2 * dw),
                                    box: face, videoWidth: vw, videoHeight: vh)
            }
            let metres = try! XCTUnwrap(median) * 0.001
            XCTAssertEqual(metres, sc.pose.subjectDepth, accuracy: 0.03, "t=\(t)")
            XCTAssert(metres > 0.8 && metres < 1.45)
        }
    }

    func testFaceIsHiddenWhileTurnedAway() {
        let sc = scene(12.5)
        XCTAssertNil(sc.faceBox(width: 64, height: 36))
        XCTAssertNil(video(sc, 64, 36).face)
        // the head is still there: in the truth and in depth
        let c = SceneLayout.project(x: sc.pose.headX, y: sc.pose.headY, z: sc.pose.subjectDepth)
        XCTAssertEqual(sc.sample(u: c.u, v: c.v).object, .head)
    }

    // MARK: registration and determinism

    func testColourDepthAndTruthAreRegisteredAtDifferentSizes() {
        let vw = 128, vh = 72, dw = 64, dh = 36
        for t in times {
            let sc = scene(t)
            let m = truth(sc, vw, vh)
            let d = depth(sc, dw, dh)
            var subject = 0, near = 0, background = 0, far = 0
            for y in 0..<vh {
                for x in 0..<vw {
                    let dv = Double(d[(y * dh / vh) * dw + x * dw / vw]) * 0.001
                    if m[y * vw + x] == 255 {
                        subject += 1
                        if dv < SceneLayout.distractorDepthRange.lowerBound { near += 1 }
                    } else if m[y * vw + x] == 0 {
                        background += 1
                        if dv > 1.5 { far += 1 }
                    }
                }
            }
            XCTAssert(subject > 500, "t=\(t)")
            XCTAssertGreaterThan(Double(near) / Double(subject), 0.97, "t=\(t)")
            XCTAssertGreaterThan(Double(far) / Double(background), 0.97, "t=\(t)")
        }
    }

    func testRendersAreDeterministic() {
        for t in [0.0, 6.0, 13.0] {
            let a = scene(t) { $0.noise = true; $0.holes = true; $0.flyingPixels = true; $0.seed = 9 }
            let b = scene(t) { $0.noise = true; $0.holes = true; $0.flyingPixels = true; $0.seed = 9 }
            XCTAssertEqual(video(a, 97, 55).bytes, video(b, 97, 55).bytes)
            XCTAssertEqual(depth(a, 49, 27), depth(b, 49, 27))
            XCTAssertEqual(truth(a, 97, 55), truth(b, 97, 55))
        }
        // another seed gives other artefacts
        let c = scene(6) { $0.noise = true; $0.seed = 1 }
        let d = scene(6) { $0.noise = true; $0.seed = 2 }
        XCTAssertNotEqual(depth(c, 49, 27), depth(d, 49, 27))
    }

    func testStillSceneIsFrozenButSensorNoiseStillChanges() {
        let a = scene(0) { $0.motion = false }, b = scene(7.3) { $0.motion = false }
        XCTAssertEqual(b.pose, ScenePose.at(0))
        XCTAssertEqual(video(a, 64, 36).bytes, video(b, 64, 36).bytes)
        XCTAssertEqual(truth(a, 64, 36), truth(b, 64, 36))
        XCTAssertEqual(depth(a, 32, 18), depth(b, 32, 18))
        let na = scene(0) { $0.motion = false; $0.noise = true }
        let nb = scene(7.3) { $0.motion = false; $0.noise = true }
        XCTAssertNotEqual(depth(na, 32, 18), depth(nb, 32, 18))
    }

    // MARK: pictures

    func testAnySizeRenders() {
        for (w, h) in [(1, 1), (3, 3), (2, 5), (7, 3), (33, 17)] {
            let sc = scene(6)
            let v = video(sc, w, h, pixelStride: 3, r: 0, g: 1, b: 2, pad: 3, fill: 0xEE)
            for y in 0..<h { for i in 0..<3 { XCTAssertEqual(v.bytes[y * v.stride + 3 * w + i], 0xEE, "padding untouched") } }
            let d = depth(sc, w, h)
            XCTAssert(d.allSatisfy { $0 > 700 }, "clean depth has no holes")
            XCTAssertEqual(truth(sc, w, h).count, w * h)
        }
        // 1x1 sees the centre of the view: the subject's chin
        XCTAssertEqual(scene(0).sample(u: 0.5, v: 0.5).object, .head)
    }

    func testPixelLayoutsGiveTheSameColours() {
        let sc = scene(6)
        let w = 40, h = 23
        let bgrx = video(sc, w, h)
        let rgb = video(sc, w, h, pixelStride: 3, r: 0, g: 1, b: 2)
        let argb = video(sc, w, h, r: 1, g: 2, b: 3, a: 0)
        let xbgr = video(sc, w, h, r: 3, g: 2, b: 1)
        for i in 0..<(w * h) {
            XCTAssertEqual(bgrx.bytes[4 * i + 2], rgb.bytes[3 * i])
            XCTAssertEqual(bgrx.bytes[4 * i + 1], argb.bytes[4 * i + 2])
            XCTAssertEqual(bgrx.bytes[4 * i], xbgr.bytes[4 * i + 1])
            XCTAssertEqual(argb.bytes[4 * i], 255, "alpha is opaque")
            XCTAssertEqual(bgrx.bytes[4 * i + 3], 255, "padding byte is opaque too")
            XCTAssertEqual(xbgr.bytes[4 * i], 255)
        }
    }

    func testColourShowsDistinctSubjectAndBackground() {
        let sc = scene(0)
        let w = 160, h = 90
        let v = video(sc, w, h, pixelStride: 3, r: 0, g: 1, b: 2)
        func rgb(_ u: Double, _ vv: Double) -> (Int, Int, Int) {
            let i = Int(vv * Double(h)) * v.stride + 3 * Int(u * Double(w))
            return (Int(v.bytes[i]), Int(v.bytes[i + 1]), Int(v.bytes[i + 2]))
        }
        let shirt = rgb(0.45, 0.9)
        XCTAssert(shirt.2 > shirt.0 + 60, "blue shirt \(shirt)")
        let c = SceneLayout.project(x: 0, y: sc.pose.headY + 0.03, z: 1)
        let cheek = rgb(c.u + 0.03, c.v)
        XCTAssert(cheek.0 > cheek.2 + 40, "skin \(cheek)")
        // the wall has a visible pattern: many distinct colours along a row
        var colours = Set<Int>()
        for x in 0..<w {
            let i = 10 * v.stride + 3 * x
            colours.insert(Int(v.bytes[i]) << 16 | Int(v.bytes[i + 1]) << 8 | Int(v.bytes[i + 2]))
        }
        XCTAssertGreaterThan(colours.count, 3)
    }

    func testTruthIsBinaryInsideWithSoftEdges() {
        let m = truth(scene(6), 160, 90)
        let soft = m.filter { $0 > 0 && $0 < 255 }.count
        let full = m.filter { $0 == 255 }.count
        XCTAssert(full > 1000)
        XCTAssert(soft > 50 && soft < full / 4, "anti-aliased edge pixels: \(soft)")
    }

    func testDepthScale() {
        let w = 32, h = 18
        let mm = depth(scene(0), w, h)
        let tenth = depth(scene(0) { $0.depthScale = 0.0001 }, w, h)
        for i in 0..<(w * h) {
            XCTAssertEqual(Double(tenth[i]) / 10, Double(mm[i]), accuracy: 0.51)
        }
        let micro = depth(scene(0) { $0.depthScale = 1e-6 }, w, h)
        XCTAssert(micro.allSatisfy { $0 == 65535 }, "clamped, never 0")
        let metres = depth(scene(0) { $0.depthScale = 1 }, w, h)
        XCTAssert(metres.allSatisfy { $0 >= 1 && $0 <= 3 })
    }

    // MARK: artefacts

    func testNoiseGrowsWithDistanceAndKeepsTheMean() {
        let w = 96, h = 54
        let clean = depth(scene(3), w, h)
        let noisy = depth(scene(3) { $0.noise = true }, w, h)
        var wallDiffs = [Double](), subjectDiffs = [Double]()
        for i in 0..<(w * h) {
            let diff = Double(noisy[i]) - Double(clean[i])
            if clean[i] > 2500 { wallDiffs.append(diff) } else if clean[i] < 1200 { subjectDiffs.append(diff) }
        }
        func stats(_ a: [Double]) -> (mean: Double, sd: Double) {
            let m = a.reduce(0, +) / Double(a.count)
            return (m, (a.map { ($0 - m) * ($0 - m) }.reduce(0, +) / Double(a.count)).squareRoot())
        }
        let wall = stats(wallDiffs), subject = stats(subjectDiffs)
        XCTAssertEqual(wall.mean, 0, accuracy: 1.0)
        XCTAssertEqual(subject.mean, 0, accuracy: 0.3)
        // sigma = 1.5 mm * d^2: about 12 mm on the wall, 1.5 mm on the face
        XCTAssertEqual(wall.sd, 0.0015 * 2.8 * 2.8 * 1000, accuracy: 3)
        XCTAssertEqual(subject.sd, 1.6, accuracy: 0.8)
        XCTAssert(noisy.allSatisfy { $0 != 0 }, "noise makes no holes")
        XCTAssertGreaterThan(zip(clean, noisy).filter { $0 != $1 }.count, w * h / 2)
    }

    func testHolesShadowTheLeftOfTheSubjectAndSpeckleTheHair() {
        let w = 160, h = 90
        let sc = scene(0) { $0.holes = true }
        let d = depth(sc, w, h)
        let clean = depth(scene(0), w, h)
        let zeros = d.filter { $0 == 0 }.count
        XCTAssert(zeros > 100 && zeros < w * h / 10, "holes: \(zeros)")
        XCTAssertFalse(clean.contains(0))
        // Occlusion shadow: on a row through the chest, the wall just left of
        // the torso has no reading; the right side keeps its readings.
        let y = 80
        let row = (0..<w).map { clean[y * w + $0] }
        let left = row.firstIndex { $0 < 1500 }!, right = row.lastIndex { $0 < 1500 }!
        XCTAssertEqual(d[y * w + left - 1], 0)
        XCTAssertEqual(d[y * w + left - 2], 0)
        XCTAssertNotEqual(d[y * w + right + 2], 0)
        // shadow width ~ baseline * (1/z_subject - 1/z_wall) in pixels
        var band = 0
        var x = left - 1
        while x >= 0 && d[y * w + x] == 0 { band += 1; x -= 1 }
        let expected = SceneLayout.baseline * (1 / (sc.pose.subjectDepth + 0.03) - 1 / 2.75) * SceneLayout.focalX * Double(w)
        XCTAssertEqual(Double(band), expected, accuracy: 2.5)
        // hair on top of the head loses some readings
        let top = SceneLayout.project(x: sc.pose.headX, y: sc.pose.headY - 0.095, z: 1)
        var hair = 0
        for yy in Int(top.v * Double(h)) - 1...Int(top.v * Double(h)) + 1 {
            for xx in Int(top.u * Double(w)) - 3...Int(top.u * Double(w)) + 3 where d[yy * w + xx] == 0 { hair += 1 }
        }
        XCTAssertGreaterThan(hair, 2)
        // holes move from frame to frame
        XCTAssertNotEqual(depth(scene(0.5) { $0.holes = true; $0.motion = false }, w, h), depth(scene(0) { $0.holes = true; $0.motion = false }, w, h))
    }

    func testFlyingPixelsTakeIntermediateDepthsOnEdges() {
        let w = 160, h = 90
        let clean = depth(scene(0), w, h)
        let flying = depth(scene(0) { $0.flyingPixels = true }, w, h)
        // at t = 0 nothing in the scene lies between 1.10 m and 1.80 m
        func between(_ d: [UInt16]) -> Int { d.filter { $0 > 1150 && $0 < 1780 }.count }
        XCTAssertEqual(between(clean), 0)
        XCTAssertGreaterThan(between(flying), 40)
        // interiors are untouched
        let changed = zip(clean, flying).filter { $0 != $1 }.count
        XCTAssert(changed < w * h / 10, "only edge pixels change: \(changed)")
        // every changed pixel lies between the depths around it (the pixel's
        // footprint reaches past its neighbours' centres on thin stems)
        for y in 2..<(h - 2) {
            for x in 2..<(w - 2) where clean[y * w + x] != flying[y * w + x] {
                var lo = UInt16.max, hi = UInt16.min
                for dy in -2...2 { for dx in -2...2 { let v = clean[(y + dy) * w + x + dx]; lo = min(lo, v); hi = max(hi, v) } }
                XCTAssert(flying[y * w + x] >= lo && flying[y * w + x] <= hi, "(\(x),\(y))")
            }
        }
    }

    func testMisregistrationShiftsDepthByWholePixels() {
        let w = 64, h = 36
        let base = depth(scene(6), w, h)
        for n in [3, -2] {
            let shifted = depth(scene(6) { $0.misregistration = n }, w, h)
            for y in 0..<h {
                for x in max(0, n)..<min(w, w + n) {
                    XCTAssertEqual(shifted[y * w + x], base[y * w + x - n])
                }
            }
            XCTAssertNotEqual(shifted, base)
        }
        // colour and truth are not shifted
        XCTAssertEqual(truth(scene(6) { $0.misregistration = 3 }, w, h), truth(scene(6), w, h))
    }
}
