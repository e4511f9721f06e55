// SPDX-License-Identifier: LGPL-2.1-or-later
/// The element model (DepthMatteElement): the focus modes, output=depth and
/// the background effects, routed as the element routes them.
@testable import DepthMatteKit
import XCTest

final class DepthMatteElementTests: XCTestCase {
    /// Left half 1 m, right half 3 m.
    private func scene() -> (TestRGB, TestDepth) {
        let video = TestRGB(width: 16, height: 8, layout: .bgrx, fill: RGBA(200, 100, 50, 255))
        let depth = TestDepth(width: 8, height: 4, fill: 3000)
        depth.fill(x0: 0, y0: 0, x1: 4, y1: 4, 1000)
        return (video, depth)
    }

    func testFocusModesKeyWithTheFocusMaskAndReportFocusAsTheCutoff() {
        var s = DepthMatteSettings()
        s.mode = .bandpass
        s.focus = 2.0; s.slope = 8; s.focusWidth = 0.1; s.cutoff = 7
        let bandpass = FocusSettings(kind: .bandpass, focus: 2.0, slope: 8, halfWidth: 0.1)
        let k = s.plan(depthScale: 0.001)
        XCTAssertEqual(k.cutoff, .focus(bandpass))
        XCTAssertNil(k.cutoff.subject)
        XCTAssertEqual(k.cutoff.preset, 2.0)
        XCTAssertEqual(k.cutoff.focusMask, bandpass)
        XCTAssertEqual(k.path, .focusMask(bandpass, BlurGamma(radius: s.blurRadius, gamma: s.gamma)))
        s.mode = .nearest
        XCTAssertNil(s.plan(depthScale: 0.001).cutoff.focusMask)
        XCTAssertEqual(s.plan(depthScale: 0.001).cutoff.preset, 7)
        XCTAssertEqual(s.plan(depthScale: 0.001).cutoff.subject?.mode, .nearest)
    }

    func testHighpassKeepsTheNearHalf() {
        let (video, depth) = scene()
        let out = TestRGB(width: 16, height: 8, layout: .bgrx)
        var s = DepthMatteSettings()
        s.mode = .highpass; s.focus = 1.5; s.slope = 100; s.blurRadius = 0; s.gamma = 1
        s.backgroundARGB = 0xff00_00ff
        let r = DepthMatteElement().process(settings: s, video: video.view, depth: depth.view, background: nil,
                                             output: out.view, faces: [])
        XCTAssertEqual(r.cutoff, 1.5)
        assertPixel(out[2, 4], RGBA(200, 100, 50, 255), tolerance: 2)
        assertPixel(out[13, 4], RGBA(0, 0, 255, 255), tolerance: 2)
    }

    func testDepthOutputDrawsDepthWithoutKeying() {
        let (video, depth) = scene()
        let out = TestRGB(width: 16, height: 8, layout: .rgba)
        var s = DepthMatteSettings()
        s.output = .depth
        s.display.colormap = .grey
        s.display.rangeMin = 1; s.display.rangeMax = 3
        _ = DepthMatteElement().process(settings: s, video: video.view, depth: depth.view, background: nil,
                                         output: out.view, faces: [])
        assertPixel(out[2, 4], RGBA(255, 255, 255, 255), tolerance: 1)   // 1 m: nearest, white
        assertPixel(out[13, 4], RGBA(0, 0, 0, 255), tolerance: 1)        // 3 m: farthest, black
    }

    func testDisparityDepthIsDecodedBeforeKeying() {
        let (video, _) = scene()
        // disparity in 1/m per 0.001: 1000 = 1 m, 333 = 3 m
        let disparity = TestDepth(width: 8, height: 4, fill: 333)
        disparity.fill(x0: 0, y0: 0, x1: 4, y1: 4, 1000)
        let out = TestRGB(width: 16, height: 8, layout: .bgrx)
        var s = DepthMatteSettings()
        s.mode = .fixed; s.cutoff = 2; s.refine = .none; s.backgroundARGB = 0xff00_ff00
        s.encoding.kind = .disparity
        _ = DepthMatteElement().process(settings: s, video: video.view, depth: disparity.view, background: nil,
                                         output: out.view, faces: [])
        assertPixel(out[2, 4], RGBA(200, 100, 50, 255), tolerance: 2)
        assertPixel(out[13, 4], RGBA(0, 255, 0, 255), tolerance: 2)
    }

    func testBlurWeightsAreZeroOnTheSubjectAndGrowBehindIt() {
        let (_, depth) = scene()
        var weight = FloatPlane(), growth = FloatPlane()
        BackgroundEffects.depthWeights(depth: depth.view, scale: 0.001, cutoff: 1.5, focus: nil,
                                       weight: &weight, growth: &growth)
        XCTAssertEqual(weight[1, 1], 0)
        XCTAssertEqual(weight[6, 1], 1)
        XCTAssertEqual(growth[1, 1], 0)
        XCTAssertEqual(growth[6, 1], 1)       // 3 m is more than 1 m behind 1.5 m
        depth[6, 1] = 0
        BackgroundEffects.depthWeights(depth: depth.view, scale: 0.001, cutoff: 1.5, focus: nil,
                                       weight: &weight, growth: &growth)
        XCTAssertEqual(weight[6, 1], 1)       // holes count as background
    }
}
