// SPDX-License-Identifier: LGPL-2.1-or-later
import XCTest
@_spi(Bench) import DepthMatteKit
import DMContract

/// The plain depth cut is the floor of the depth-only matte, on the
/// subject's own use case: rgbdtestsrc's `selfie` (an upright 3:4 portrait
/// with square pixels and a filtered map, as an iPhone's TrueDepth gives;
/// the face reads 0.33 m), keyed by the default chain and by the plain cut
/// (`subjectOnly` false). The torso leaning back recedes upwards as steeply
/// as a floor and fills the bottom edge from side to side; the chair back
/// beside the neck is nearer than the cutoff and not the subject.
final class ArmsLengthSelfieTests: XCTestCase {
    static let W = 240, H = 320

    /// The selfie's frames (25 fps), their face boxes, and the last
    /// frame's truth and chair back (pixels where the scene shows it).
    final class Clip {
        var video: [TestRGB] = [], depth: [TestDepth] = [], faces: [[Box]] = []
        var truth = [UInt8](repeating: 0, count: W * H), chair = [Bool](repeating: false, count: W * H)

        init(frames: Int) {
            var ss = SceneSettings(.defaults)
            ss.scene = .selfie; ss.squarePixels = true; ss.filtered = true
            var scene = RGBDScene(settings: ss, time: 0)
            for i in 0..<frames {
                scene = RGBDScene(settings: ss, time: Double(i) * 0.04)
                let v = TestRGB(width: W, height: H), d = TestDepth(width: W, height: H)
                scene.renderVideo(v.view)
                scene.renderDepth(base: d.bytes, width: W, height: H, stride: d.stride)
                video.append(v); depth.append(d); faces.append(scene.detectedFaces(width: W, height: H))
            }
            truth.withUnsafeMutableBufferPointer { scene.renderTruth(Gray8View(base: $0.baseAddress!, width: W, height: H, stride: W)) }
            for y in 0..<H { for x in 0..<W { chair[y * W + x] = scene.sample(x: x, y: y, width: W, height: H).object == .surface } }
        }
    }
    static let clip = Clip(frames: 3)

    struct Keyed {
        var iou = 0.0
        /// Truth pixels in the bottom quarter (the chest) left out.
        var chestMissing = 0
        /// Pixels keyed where the scene shows the chair back.
        var chairKeyed = 0
    }

    /// The clip keyed, with the scene's face box on each frame or none (the
    /// stock Haar cascade finds no face in the real selfie: the lock falls
    /// to the nearest body); the last matte against the truth.
    static func key(subjectOnly: Bool, faces: Bool) -> Keyed {
        var s = DMDepthMatteSettings.defaults
        s.output = ElementOutput.matte.rawValue; s.n_threads = 1; s.frame_duration = 0.04
        s.subject_only = subjectOnly ? 1 : 0
        let m = DepthMatter(), c = clip
        let out = TestRGB(width: W, height: H)
        for i in c.video.indices {
            _ = m.process(plan: MattePlan(s), video: c.video[i].view, depth: c.depth[i].view,
                          background: nil, output: out.view, faces: faces ? c.faces[i] : [])
        }
        var k = Keyed()
        var both = 0, either = 0
        for y in 0..<H {
            for x in 0..<W {
                let a = out[x, y].r >= 128, t = c.truth[y * W + x] >= 128
                if a && t { both += 1 }
                if a || t { either += 1 }
                if t && !a && y >= 3 * H / 4 { k.chestMissing += 1 }
                if a && c.chair[y * W + x] { k.chairKeyed += 1 }
            }
        }
        k.iou = Double(both) / Double(max(either, 1))
        return k
    }

    func testDefaultKeepsTheLeaningChestAndIsNoWorseThanThePlainCut() {
        for faces in [false, true] {
            let d = Self.key(subjectOnly: true, faces: faces), p = Self.key(subjectOnly: false, faces: faces)
            // the plain cut keys the chair back too (about 12,000 pixels: IoU 0.76)
            XCTAssertGreaterThan(p.chairKeyed, 5000, "faces \(faces): plain")
            // (IoU 0.63 without `SubjectRestore.bodyWidth`: the chest left out
            // as floor below its top; 0.999 with it)
            XCTAssertGreaterThanOrEqual(d.iou, p.iou, "faces \(faces): default against plain")
            XCTAssertGreaterThan(d.iou, 0.98, "faces \(faces)")
            XCTAssertLessThan(d.chestMissing, 100, "faces \(faces): chest left out")
            XCTAssertLessThan(d.chairKeyed, 50, "faces \(faces): chair keyed")
        }
    }
}
