// SPDX-License-Identifier: LGPL-2.1-or-later
import XCTest
@_spi(Bench) @testable import DepthMatteKit

/// rgbdtestsrc's scenes beyond the portrait and its extra artefacts:
/// each scene puts a surface nearer than the default cutoff (face + 0.25 m)
/// that is not in the truth; the walk-in moves the subject across the edge.
final class SceneKindTests: XCTestCase {
    private func scene(_ kind: SceneKind, _ t: Double = 0, _ configure: (inout SceneSettings) -> Void = { _ in }) -> RGBDScene {
        var s = SceneSettings(.defaults)
        s.scene = kind
        configure(&s)
        return RGBDScene(settings: s, time: t)
    }
    private func depth(_ scene: RGBDScene, _ w: Int, _ h: Int) -> [UInt16] {
        var d = [UInt16](repeating: 0, count: w * h)
        d.withUnsafeMutableBytes { scene.renderDepth(base: $0.baseAddress!, width: w, height: h, stride: 2 * w) }
        return d
    }
    private func truth(_ scene: RGBDScene, _ w: Int, _ h: Int) -> [UInt8] {
        var t = [UInt8](repeating: 0, count: w * h)
        t.withUnsafeMutableBufferPointer { scene.renderTruth(Gray8View(base: $0.baseAddress!, width: w, height: h, stride: w)) }
        return t
    }
    /// Pixels that are nearer than face + 0.25 m but not the subject.
    private func nearNonSubject(_ s: RGBDScene, _ w: Int = 160, _ h: Int = 90) -> Int {
        let d = depth(s, w, h), t = truth(s, w, h)
        let limit = UInt16((s.pose.subjectDepth + 0.25) * 1000)
        var n = 0
        for i in 0..<(w * h) where d[i] > 0 && d[i] <= limit && t[i] == 0 { n += 1 }
        return n
    }

    func testPortraitIsTheDefaultAndHasNoNearSurfaceButTheSubject() {
        XCTAssertEqual(SceneSettings(.defaults).scene, .portrait)
        XCTAssertEqual(nearNonSubject(scene(.portrait, 4)), 0)
    }

    func testEachSceneHasASurfaceNearerThanTheCutoffOutsideTheTruth() {
        for kind in [SceneKind.chair, .slopingFloor, .doorFrame, .enterLeft] {
            let t = kind == .enterLeft ? 5.0 : 4.0
            XCTAssertGreaterThan(nearNonSubject(scene(kind, t)), 300, "\(kind)")
        }
    }

    func testChairIsBehindTheShouldersAndDoorAtTheLeftEdge() {
        let chair = scene(.chair, 0)
        let zs = chair.pose.subjectDepth
        // beside the torso, at the chair's depth; the torso in front of it
        let side = chair.sample(u: 0.5 + SceneLayout.focalX * 0.25 / (zs + 0.16), v: 0.8)
        XCTAssertEqual(side.object, .surface)
        XCTAssertEqual(side.depth, zs + 0.16, accuracy: 0.04)
        XCTAssertTrue(chair.sample(u: 0.5, v: 0.8).isSubject)
        let door = scene(.doorFrame, 0)
        XCTAssertEqual(door.sample(u: 0.02, v: 0.5).object, .surface)
        XCTAssertEqual(door.sample(u: 0.02, v: 0.5).depth, 1.0, accuracy: 0.02)
        XCTAssertNotEqual(door.sample(u: 0.2, v: 0.5).object, .surface)
    }

    func testFloorMeetsTheTorsoAtTheBottomAndRecedesUpwards() {
        let s = scene(.slopingFloor, 0)
        let zs = s.pose.subjectDepth
        let bottom = s.sample(u: 0.1, v: 0.999), higher = s.sample(u: 0.1, v: 0.8)
        XCTAssertEqual(bottom.object, .surface)
        XCTAssertEqual(bottom.depth, zs + 0.10, accuracy: 0.02)
        XCTAssertGreaterThan(higher.depth, bottom.depth + 0.2)
        XCTAssertEqual(s.sample(u: 0.1, v: 0.05).object, .wall)
    }

    func testSelfieTorsoFillsTheBottomEdgeLeaningBackNearerThanTheFace() {
        // an upright 3:4 portrait: the torso is the truth along the whole
        // bottom row; its depth falls from behind the face at the collar to
        // nearer than the face at the bottom edge; a chair back beside the
        // neck, nearer than the default cutoff (face + 0.25 m); the face
        // reads 0.33 m, as a phone's at arm's length
        let s = scene(.selfie, 3) { $0.squarePixels = true }
        let w = 240, h = 320
        XCTAssertFalse(s.pose.handRaised)
        let face = SceneExtras.selfieDepth * SceneExtras.selfieReadings
        XCTAssertEqual(face, 0.33, accuracy: 1e-9)
        let d = depth(s, w, h), t = truth(s, w, h)
        let m = { (x: Int, y: Int) in Double(d[y * w + x]) / 1000 }
        XCTAssertEqual(m(w / 2, 120), face, accuracy: 0.005, "face centre")
        for x in 0..<w { XCTAssertGreaterThan(t[(h - 1) * w + x], 127, "bottom row, x \(x)") }
        XCTAssertGreaterThan(m(w / 2, 244), face + 0.03, "collar")
        XCTAssertLessThan(m(w / 2, h - 1), face - 0.015, "bottom edge")
        // the head high in the picture: its box's top in the top eighth
        let box = s.faceBox(width: w, height: h)!
        XCTAssertLessThan(box.y, h / 8)
        XCTAssertEqual(s.sample(x: 5, y: 220, width: w, height: h).object, .surface, "chair back")
        XCTAssertLessThan(m(5, 220), face + 0.25)
        XCTAssertGreaterThan(m(5, 220), face + 0.1)
        // `distanceScale` scales the readings on top of the selfie's own
        let far = depth(scene(.selfie, 3) { $0.squarePixels = true; $0.distanceScale = 2 }, w, h)
        XCTAssertEqual(Double(far[120 * w + w / 2]) / 1000, 2 * face, accuracy: 0.01)
    }

    func testEnterLeftWalksInStandsAndWalksOut() {
        XCTAssertLessThan(scene(.enterLeft, 0).pose.headX, -0.9)
        XCTAssertEqual(scene(.enterLeft, 5).pose.headX, 0.15, accuracy: 1e-9)
        XCTAssertGreaterThan(scene(.enterLeft, 9.9).pose.headX, 1.2)
        // the truth follows: at 1 s only the left part of the picture has subject
        let t = truth(scene(.enterLeft, 1), 160, 90)
        var minX = 160, maxX = -1
        for y in 0..<90 { for x in 0..<160 where t[y * 160 + x] > 127 { minX = min(minX, x); maxX = max(maxX, x) } }
        XCTAssertEqual(minX, 0)
        XCTAssertLessThan(maxX, 60)
    }

    func testQuantizationPutsDepthOnDisparitySteps() {
        let s = scene(.portrait, 0) { $0.quantization = true }
        let d = depth(s, 160, 90)
        let q = SceneLayout.quantization
        for i in stride(from: 0, to: d.count, by: 37) where d[i] > 0 {
            let z = Double(d[i]) / 1000
            let k = 1 / (q * z)                        // disparity steps: whole numbers (to the mm rounding)
            XCTAssertLessThan(abs(k - k.rounded()), 0.5 * 0.001 / (q * z * z) + 0.02, "z \(z)")
        }
        // the wall at about 2.8 m: steps of about 2.2 cm, so few distinct values
        var values = Set<UInt16>()
        for x in 100..<160 { values.insert(d[5 * 160 + x]) }
        XCTAssertLessThan(values.count, 12)
    }

    func testCorrelatedNoiseIsCorrelatedBetweenNeighbours() {
        let clean = depth(scene(.portrait, 0), 160, 90)
        let noisy = depth(scene(.portrait, 0) { $0.correlatedNoise = true }, 160, 90)
        var same = 0.0, cross = 0.0, var0 = 0.0
        for y in 0..<20 { for x in 100..<159 {
            let e = Double(noisy[y * 160 + x]) - Double(clean[y * 160 + x])
            let e1 = Double(noisy[y * 160 + x + 1]) - Double(clean[y * 160 + x + 1])
            same += e * e1; var0 += e * e; cross += 1
        } }
        XCTAssertGreaterThan(var0 / cross, 4, "noise present (mm²)")
        XCTAssertGreaterThan(same / var0, 0.5, "neighbours correlated")
        // off by default
        XCTAssertFalse(SceneSettings(.defaults).correlatedNoise)
        XCTAssertFalse(SceneSettings(.defaults).quantization)
    }

    func testSquarePixelsDrawAnUprightPortraitUnsqueezed() {
        XCTAssertFalse(SceneSettings(.defaults).squarePixels)
        let a = scene(.portrait) { $0.motion = false }
        let b = scene(.portrait) { $0.motion = false; $0.squarePixels = true }
        // at 16:9 nothing changes
        XCTAssertEqual(depth(a, 160, 90), depth(b, 160, 90))
        XCTAssertEqual(a.faceBox(width: 320, height: 180), b.faceBox(width: 320, height: 180))
        // 3:4: the head keeps its shape (0.16 x 0.224 m: width / height 0.71)
        // and its height; squeezed, it is 42 % as wide
        let fs = a.faceBox(width: 480, height: 640)!, fq = b.faceBox(width: 480, height: 640)!
        let f16 = a.faceBox(width: 1138, height: 640)!
        XCTAssertEqual(Double(fq.width) / Double(fq.height), 0.714, accuracy: 0.03)
        XCTAssertEqual(fq.height, f16.height)
        XCTAssertEqual(Double(fs.width) / Double(fs.height), 0.714 * 480 / 1138, accuracy: 0.03)
        // the truth, the depth and the scene sample agree on the face centre
        let cx = fq.x + fq.width / 2, cy = fq.y + fq.height / 2
        XCTAssertTrue(b.sample(x: cx, y: cy, width: 480, height: 640).isSubject)
        let t = truth(b, 480, 640), d = depth(b, 480, 640)
        XCTAssertEqual(t[cy * 480 + cx], 255)
        XCTAssertEqual(Double(d[cy * 480 + cx]) / 1000, b.pose.subjectDepth, accuracy: 0.06)
        // and just outside the head's box, at eye height, is wall
        XCTAssertEqual(t[cy * 480 + fq.x + fq.width + 4], 0)
        XCTAssertGreaterThan(Double(d[cy * 480 + fq.x + fq.width + 4]) / 1000, 2.5)
        // the door jamb stays along the left edge of the narrower picture
        let door = scene(.doorFrame) { $0.motion = false; $0.squarePixels = true }
        let dd = depth(door, 240, 320)
        for y in [10, 160, 310] { XCTAssertEqual(Double(dd[y * 240 + 2]) / 1000, 1.0, accuracy: 0.03) }
        // (0.10 m at 1 m: 41 pixels; the wall beyond it above the shoulders)
        for y in [10, 100] { XCTAssertGreaterThan(Double(dd[y * 240 + 50]) / 1000, 2.5) }
        XCTAssertEqual(door.sample(x: 2, y: 160, width: 240, height: 320).object, .surface)
    }

    func testPanMovesEveryPictureTogether() {
        XCTAssertFalse(SceneSettings(.defaults).pan)
        let a = scene(.portrait, 0) { $0.motion = false; $0.pan = true }
        let b = scene(.portrait, 2) { $0.motion = false; $0.pan = true }
        // the view turns right by 0.05 ray units: the face moves left by 0.05 x focalX of the width
        let fa = a.faceBox(width: 1280, height: 720)!, fb = b.faceBox(width: 1280, height: 720)!
        XCTAssertEqual(Double(fa.x - fb.x), 0.05 * SceneLayout.focalX * 1280, accuracy: 2)
        // truth and depth moved the same way: the face centre is subject in both
        let u = (Double(fb.x) + 0.5 * Double(fb.width)) / 1280, v = (Double(fb.y) + 0.5 * Double(fb.height)) / 720
        XCTAssertTrue(b.sample(u: u, v: v).isSubject)
        let t = truth(b, 160, 90), d = depth(b, 160, 90)
        let px = Int(u * 160), py = Int(v * 90)
        XCTAssertEqual(t[py * 160 + px], 255)
        XCTAssertEqual(Double(d[py * 160 + px]) / 1000, b.pose.subjectDepth, accuracy: 0.06)
    }

    func testFilteredDepthFillsHolesAndTurnsAStepIntoARampOnUnalignedRows() {
        // rgbdtestsrc filtered=true's filter: rows padded by an odd byte count
        // (unaligned samples), a 1000 -> 2000 mm step with a hole beside it
        let d = TestDepth(width: 12, height: 5, padding: 1, paddingByte: 0x5a, fill: 1000)
        d.fill(x0: 6, y0: 0, x1: 12, y1: 5, 2000)
        d[4, 2] = 0
        RGBDScene.filterDepth(base: d.bytes, width: d.width, height: d.height, stride: d.stride, radius: 1)
        for y in 0..<5 {
            let row = (0..<12).map { d[$0, y] }
            XCTAssertFalse(row.contains(0), "row \(y): \(row)")
            XCTAssertEqual(row.first, 1000, "far from the step: unchanged")
            XCTAssertEqual(row.last, 2000)
            for x in 0..<11 { XCTAssertLessThanOrEqual(row[x], row[x + 1], "row \(y) rises monotonically: \(row)") }
            XCTAssertLessThan(Int(row[6]) - Int(row[5]), 500, "the 1000 mm step became a ramp: \(row)")
            XCTAssertEqual(d.bytes[y * d.stride + 24], 0x5a, "padding untouched")
        }
    }
}
