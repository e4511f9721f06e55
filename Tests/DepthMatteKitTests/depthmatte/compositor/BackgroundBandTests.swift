// SPDX-License-Identifier: LGPL-2.1-or-later
import XCTest
@_spi(Bench) @testable import DepthMatteKit

/// docs/quality.md step 2.3 (`MatteRefiner.Tuning.backgroundBand`): a real sensor's
/// subject grows into the background at its edges (edge fattening, flying
/// pixels, misregistration), never the other way, so a background reading
/// one pixel from the subject's label is trusted, while subject readings
/// stay untrusted within `band` (2) of the edge.
final class BackgroundBandTests: XCTestCase {
    /// The synthetic scene with every depth artefact of a real sensor
    /// (quantisation, correlated noise, jittering edges, flying pixels,
    /// misregistration 2, at 2.5x the distance): the mean over frames of
    /// Σ |α − truth| on the output grid, the truth's coverage averaged over
    /// each grid cell.
    static func error(backgroundBand: Int, frames: Int = 4) -> Double {
        var s = SceneSettings(.defaults)
        s.motion = true; s.noise = true; s.holes = true; s.flyingPixels = true; s.misregistration = 2
        s.quantization = true; s.correlatedNoise = true; s.edgeJitter = true; s.distanceScale = 2.5; s.seed = 5
        let vw = 640, vh = 360
        let v = TestRGB(width: vw, height: vh, layout: .bgra), d = TestDepth(width: 160, height: 90)
        var truth = [UInt8](repeating: 0, count: vw * vh)
        var r = MatteRefiner()
        r.tuning.backgroundBand = backgroundBand
        var m = FloatPlane()
        var sum = 0.0
        for f in 0..<frames {
            let scene = RGBDScene(settings: s, time: 1 + Double(f) / 10)
            _ = scene.renderVideo(v.view)
            scene.renderDepth(base: UnsafeMutableRawPointer(d.bytes), width: d.width, height: d.height, stride: d.stride)
            truth.withUnsafeMutableBufferPointer { scene.renderTruth(Gray8View(base: $0.baseAddress!, width: vw, height: vh, stride: vw)) }
            r.refine(depth: d.view, scale: 0.001, cutoff: 3.125, video: v.view, into: &m)
            let cell = vw / m.width
            for gy in 0..<m.height {
                for gx in 0..<m.width {
                    var t = 0
                    for j in 0..<cell { for i in 0..<cell { t += Int(truth[(gy * cell + j) * vw + gx * cell + i]) } }
                    sum += abs(Double(m[gx, gy]) - Double(t) / Double(255 * cell * cell))
                }
            }
        }
        return sum / Double(frames)
    }

    func testBackgroundReadingsBesideTheSubjectAreTrusted() {
        let one = Self.error(backgroundBand: 1), two = Self.error(backgroundBand: 2)
        print("Σ|α − truth| per frame on the grid: backgroundBand 1 \(one), 2 \(two)")
        XCTAssertLessThan(one, 0.9 * two)
    }
}
