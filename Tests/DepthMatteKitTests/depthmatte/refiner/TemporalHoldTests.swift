// SPDX-License-Identifier: LGPL-2.1-or-later
import XCTest
@_spi(Bench) @testable import DepthMatteKit

/// docs/quality.md step 2.6 (steady edges): where the colour did not
/// change, the depth's noise does not move the matte; where it did, the
/// matte follows at once.
final class TemporalHoldTests: XCTestCase {
    /// The real-sensor scene (quarter-resolution depth, quantisation,
    /// correlated noise, jittering edges, holes, misregistration 2, the
    /// subject at 2.5 m) held still: the largest per-pixel change of the
    /// matte over `frames` frames at 30 fps, and how many pixels changed by > 0.2.
    static func stillFlips(hold: Float, frames: Int = 8) -> (flips: Int, soft: Int) {
        var r = MatteRefiner()
        r.tuning.colourNoise = 4.0 / 255; r.tuning.temporalHold = hold
        var prev: [Float] = []
        var flips = 0, soft = 0
        refineStill(&r, frames: frames) { cur in
            if !prev.isEmpty { for i in 0..<cur.count where abs(cur[i] - prev[i]) > 0.2 { flips += 1 } }
            soft += cur.filter { $0 > 0.05 && $0 < 0.95 }.count
            prev = cur
        }
        return (flips, soft)
    }

    /// The real-sensor scene (see `stillFlips`) held still through `r`: each
    /// frame's matte to `body`.
    static func refineStill(_ r: inout MatteRefiner, frames: Int, _ body: ([Float]) -> Void) {
        var s = SceneSettings(.defaults)
        s.motion = false; s.noise = true; s.holes = true; s.flyingPixels = true; s.misregistration = 2
        s.quantization = true; s.correlatedNoise = true; s.edgeJitter = true; s.distanceScale = 2.5; s.seed = 12
        let v = TestRGB(width: 640, height: 360, layout: .bgra), d = TestDepth(width: 160, height: 90)
        var m = FloatPlane()
        for f in 0..<frames {
            let scene = RGBDScene(settings: s, time: 1 + Double(f) / 30)
            _ = scene.renderVideo(v.view)
            scene.renderDepth(base: UnsafeMutableRawPointer(d.bytes), width: d.width, height: d.height, stride: d.stride)
            r.refine(depth: d.view, scale: 0.001, cutoff: 3.125, video: v.view, into: &m)
            body(Array(m.pixels.prefix(m.width * m.height)))
        }
    }

    func testStaticEdgeWithFreshSensorNoiseFlipsNoPixel() {
        let held = Self.stillFlips(hold: 0.5)
        XCTAssertEqual(held.flips, 0)
        XCTAssertGreaterThan(held.soft, 500, "the scene has soft edges to flip")
        // without the hold the same frames flip (the test means something)
        XCTAssertGreaterThan(Self.stillFlips(hold: 0).flips, 0)
    }

    /// A vertical edge at video x = `edge` (antialiased colour), its depth at a
    /// quarter of the resolution (the edge rounded to the depth grid, as a
    /// sensor quantises it) with fresh noise from `seed`.
    static func edgeFrame(_ edge: Double, seed: UInt64, video v: TestRGB, depth d: TestDepth) {
        let fg = RefineTests.fgColor, bg = RefineTests.bgColor
        for y in 0..<v.height {
            for x in 0..<v.width {
                let c = min(1, max(0, edge - Double(x)))   // coverage of the subject
                func mix(_ a: UInt8, _ b: UInt8) -> UInt8 { UInt8((Double(a) * c + Double(b) * (1 - c)).rounded()) }
                v[x, y] = RGBA(mix(fg.r, bg.r), mix(fg.g, bg.g), mix(fg.b, bg.b), 255)
            }
        }
        var h = seed &* 0x9E37_79B9_7F4A_7C15
        for y in 0..<d.height {
            for x in 0..<d.width {
                h = h &* 6364136223846793005 &+ 1442695040888963407
                let noise = Int(h >> 59) - 16                      // ±16 mm
                let near = (Double(x) + 0.5) * 4 < edge            // the depth grid quantises the edge
                d[x, y] = UInt16((near ? 900 : 3000) + noise)
            }
        }
    }

    /// Edge position (video px) of each output row's matte, from its area.
    static func position(_ m: FloatPlane, videoWidth: Int) -> Double {
        var s = 0.0
        for y in 0..<m.height { for x in 0..<m.width { s += Double(m[x, y]) } }
        return s / Double(m.height) * Double(videoWidth) / Double(m.width)
    }

    func testPanningEdgeIsNotHeldBackAndLeavesNoGhost() {
        // the colour moves under every edge pixel, so the hold must not keep
        // the matte back: the edge lands where the same chain without the
        // hold puts it, within a pixel of the colour's edge, every frame
        // (the matte still steps as the edge crosses an output cell)
        let v = TestRGB(width: 160, height: 40), d = TestDepth(width: 40, height: 10)
        var r = MatteRefiner(), free = MatteRefiner()
        r.tuning.colourNoise = 4.0 / 255
        var m = FloatPlane(), mf = FloatPlane()
        let speed = 0.35   // video px per frame: under a tenth of a depth pixel
        for f in 0..<24 {
            let edge = 60 + speed * Double(f)
            Self.edgeFrame(edge, seed: UInt64(f + 1), video: v, depth: d)
            r.refine(depth: d.view, scale: 0.001, cutoff: 1.5, video: v.view, into: &m)
            free.refine(depth: d.view, scale: 0.001, cutoff: 1.5, video: v.view, into: &mf)
            let p = Self.position(m, videoWidth: v.width)
            XCTAssertEqual(p, edge, accuracy: 1.0, "frame \(f): the matte's edge at \(p), the colour's at \(edge)")
            XCTAssertEqual(p, Self.position(mf, videoWidth: v.width), accuracy: 0.1, "frame \(f): held back")
        }
        // a fast move (40 px in one frame) and back: followed at once, no trail
        Self.edgeFrame(100, seed: 99, video: v, depth: d)
        r.refine(depth: d.view, scale: 0.001, cutoff: 1.5, video: v.view, into: &m)
        XCTAssertEqual(Self.position(m, videoWidth: v.width), 100, accuracy: 1.0)
        Self.edgeFrame(60, seed: 100, video: v, depth: d)
        r.refine(depth: d.view, scale: 0.001, cutoff: 1.5, video: v.view, into: &m)
        for y in 0..<m.height { for x in (66 / 2)..<m.width { XCTAssertLessThan(m[x, y], 0.05, "ghost at (\(x),\(y))") } }
    }
}
