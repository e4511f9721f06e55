// SPDX-License-Identifier: LGPL-2.1-or-later
/// The element model (DepthMatteElement): the focus modes, output=depth and
/// the background effects, routed as the element routes them.
@_spi(Bench) @testable import DepthMatteKit
import DMContract
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
        var s = DMDepthMatteSettings.defaults
        s.mode = KeyingMode.bandpass.rawValue
        s.focus = 2.0; s.slope = 8; s.focus_width = 0.1; s.cutoff = 7
        let bandpass = FocusSettings(kind: .bandpass, focus: 2.0, slope: 8, halfWidth: 0.1)
        let k = MattePlan(s)
        XCTAssertEqual(k.cutoff, .focus(bandpass))
        XCTAssertNil(k.cutoff.subject)
        XCTAssertEqual(k.cutoff.preset, 2.0)
        XCTAssertEqual(k.cutoff.focusMask, bandpass)
        XCTAssertEqual(k.path, .focusMask(bandpass, BlurGamma(radius: s.blur_radius, gamma: s.gamma)))
        s.mode = KeyingMode.nearest.rawValue
        XCTAssertNil(MattePlan(s).cutoff.focusMask)
        XCTAssertEqual(MattePlan(s).cutoff.preset, 7)
        XCTAssertEqual(MattePlan(s).cutoff.subject?.mode, .nearest)
    }

    func testHighpassKeepsTheNearHalf() {
        let (video, depth) = scene()
        let out = TestRGB(width: 16, height: 8, layout: .bgrx)
        var s = DMDepthMatteSettings.defaults
        s.mode = KeyingMode.highpass.rawValue; s.focus = 1.5; s.slope = 100; s.blur_radius = 0; s.gamma = 1
        s.background_argb = 0xff00_00ff
        let r = DepthMatteElement().process(plan: MattePlan(s), video: video.view, depth: depth.view, background: nil,
                                             output: out.view, faces: [])
        XCTAssertEqual(r.cutoff, 1.5)
        assertPixel(out[2, 4], RGBA(200, 100, 50, 255), tolerance: 2)
        assertPixel(out[13, 4], RGBA(0, 0, 255, 255), tolerance: 2)
    }

    func testDepthOutputDrawsDepthWithoutKeying() {
        let (video, depth) = scene()
        let out = TestRGB(width: 16, height: 8, layout: .rgba)
        var s = DMDepthMatteSettings.defaults
        s.output = ElementOutput.depth.rawValue
        s.depth_colormap = DepthColormap.grey.rawValue
        s.range_min = 1; s.range_max = 3
        _ = DepthMatteElement().process(plan: MattePlan(s), video: video.view, depth: depth.view, background: nil,
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
        var s = DMDepthMatteSettings.defaults
        s.mode = KeyingMode.fixed.rawValue; s.cutoff = 2; s.refine = MatteRefine.none.rawValue; s.background_argb = 0xff00_ff00
        s.depth_kind = DepthKind.disparity.rawValue
        _ = DepthMatteElement().process(plan: MattePlan(s), video: video.view, depth: disparity.view, background: nil,
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

    /// An enum property's value with no kit case (GObject's enum ParamSpec
    /// never passes one) reads as the enum's first case: no trap.
    func testUnknownEnumValuesReadAsTheFirstCase() {
        var s = DMDepthMatteSettings.defaults
        s.output = ElementOutput.depth.rawValue
        s.depth_colormap = 9          // the default is turbo, the first case grey
        s.depth_kind = -1
        XCTAssertEqual(MattePlan(s).depthPicture?.colormap, .grey)
        XCTAssertEqual(MattePlan(s).encoding.kind, .depth)
        s.output = 42
        s.mode = 99; s.refine = -3; s.lock_strategy = 7; s.person_prior = 5; s.background_effect = 11
        let p = MattePlan(s)
        XCTAssertEqual(p.output, .composite)
        XCTAssertNil(p.depthPicture)
        XCTAssertEqual(p.cutoff.subject?.mode, .face)
        XCTAssertEqual(p.cutoff.subject?.strategy, .robust)
        XCTAssertEqual(p.path, .guided)
        XCTAssertEqual(p.person, .fuse)
        XCTAssertEqual(p.effect.effect, BackgroundEffect.none)
        var f = DMFrameStackSettings.defaults
        f.method = 9                  // the default is median, the first case mean
        XCTAssertEqual(FrameStackSettings(f).method, .mean)
    }

    /// The plan reads the depth pad's format with the element's depth rows:
    /// the keyer works on GRAY16_LE distance as it comes and on anything
    /// else in the normaliser's millimetres.
    func testThePlanSaysAtWhichScaleTheKeyerWorks() {
        var s = DMDepthMatteSettings.defaults
        s.depth_scale = 0.0002
        XCTAssertEqual(MattePlan(s).depthScale, 0.0002)
        XCTAssertEqual(MattePlan(s, bigEndian: true).depthScale, DepthNormalizer.scale)
        XCTAssertEqual(MattePlan(s, eightBit: true).depthScale, DepthNormalizer.scale)
        XCTAssertTrue(MattePlan(s, eightBit: true).encoding.eightBit)
        s.depth_kind = DepthKind.disparity.rawValue
        XCTAssertEqual(MattePlan(s).depthScale, DepthNormalizer.scale)
        XCTAssertEqual(MattePlan(s).encoding.scale, 0.0002)
    }
}
