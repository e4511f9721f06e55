// SPDX-License-Identifier: LGPL-2.1-or-later
/// The kit's settings defaults against the shim's property tables: each
/// element's C defaults (dm_<element>_settings_init, from the same table that
/// installs the GObject properties gst-inspect-1.0 shows) converted by the
/// bridge must equal the kit type's own defaults, so a default lives in one
/// place in effect and a drift fails here.
import DepthMatteKit
import DMContract
@testable import GstDepthMatte
import XCTest

final class DefaultsTests: XCTestCase {
    func testDepthMatteDefaultsMatchThePropertyTable() {
        var c = DMDepthMatteSettings()
        dm_depthmatte_settings_init(&c)
        XCTAssertEqual(DepthMatteSettings(c), DepthMatteSettings())
        XCTAssertEqual(c.post_messages, 1)
    }

    func testRGBDTestSrcDefaultsMatchThePropertyTable() {
        var c = DMRGBDTestSrcSettings()
        dm_rgbdtestsrc_settings_init(&c)
        XCTAssertEqual(SceneSettings(c), SceneSettings())
        XCTAssertEqual(c.stream, Int32(DM_STREAM_VIDEO.rawValue))
        XCTAssertEqual(c.is_live, 0)
    }

    func testSparkleDefaultsMatchThePropertyTable() {
        var c = DMSparkleSettings()
        dm_sparkle_settings_init(&c)
        XCTAssertEqual(SparkleSettings(c), SparkleSettings())
    }

    func testFrameStackDefaultsMatchThePropertyTable() {
        var c = DMFrameStackSettings()
        dm_framestack_settings_init(&c)
        XCTAssertEqual(FrameStackSettings(c), FrameStackSettings())
    }

    func testDepthViewDefaultsMatchThePropertyTable() {
        var c = DMDepthViewSettings()
        dm_depthview_settings_init(&c)
        XCTAssertEqual(DepthViewSettings(c), DepthViewSettings())
    }

    /// Every value of each C enum has a kit case (no silent fallback).
    func testEveryCEnumValueHasAKitCase() {
        for m in [DM_MODE_FACE, DM_MODE_FIXED, DM_MODE_NEAREST, DM_MODE_HIGHPASS, DM_MODE_BANDPASS] {
            XCTAssertNotNil(KeyingMode(rawValue: Int32(m.rawValue)))
        }
        for o in [DM_OUTPUT_COMPOSITE, DM_OUTPUT_MATTE, DM_OUTPUT_ALPHA, DM_OUTPUT_DEPTH] {
            XCTAssertNotNil(ElementOutput(rawValue: Int32(o.rawValue)))
        }
        for r in [DM_REFINE_GUIDED, DM_REFINE_ORIGINAL, DM_REFINE_NONE] {
            XCTAssertNotNil(MatteRefine(rawValue: Int32(r.rawValue)))
        }
        for e in [DM_EFFECT_NONE, DM_EFFECT_DESATURATE, DM_EFFECT_COMIC, DM_EFFECT_BLUR] {
            XCTAssertNotNil(BackgroundEffect(rawValue: Int32(e.rawValue)))
        }
        for l in [DM_LOCK_ROBUST, DM_LOCK_ORIGINAL] { XCTAssertNotNil(LockStrategy(rawValue: Int32(l.rawValue))) }
        for k in [DM_DEPTH_KIND_DEPTH, DM_DEPTH_KIND_DISPARITY] { XCTAssertNotNil(DepthKind(rawValue: Int32(k.rawValue))) }
        for c in [DM_COLORMAP_GREY, DM_COLORMAP_TURBO] { XCTAssertNotNil(DepthColormap(rawValue: Int32(c.rawValue))) }
    }
}
