// SPDX-License-Identifier: LGPL-2.1-or-later
/// The kit against the shim's property tables: every value of each C enum an
/// ENUM row registers has a kit case, so the kit's reading of an enum
/// property never falls back. (The defaults need no check: the kit reads
/// them from the same tables, DMContract's dm_<element>_settings_init.)
@_spi(Bench) @testable import DepthMatteKit
import DMContract
import XCTest

final class DefaultsTests: XCTestCase {
    /// Every value of each C enum has a kit case with the same raw value.
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
        for p in [DM_PERSON_FUSE, DM_PERSON_ALONE, DM_PERSON_IGNORE] {
            XCTAssertNotNil(PersonPrior(rawValue: Int32(p.rawValue)))
        }
        for l in [DM_LOCK_ROBUST, DM_LOCK_ORIGINAL] { XCTAssertNotNil(LockStrategy(rawValue: Int32(l.rawValue))) }
        for k in [DM_DEPTH_KIND_DEPTH, DM_DEPTH_KIND_DISPARITY] { XCTAssertNotNil(DepthKind(rawValue: Int32(k.rawValue))) }
        for c in [DM_COLORMAP_GREY, DM_COLORMAP_TURBO] { XCTAssertNotNil(DepthColormap(rawValue: Int32(c.rawValue))) }
        for s in [DM_SCENE_PORTRAIT, DM_SCENE_CHAIR, DM_SCENE_SLOPING_FLOOR, DM_SCENE_DOOR_FRAME, DM_SCENE_ENTER_LEFT,
                  DM_SCENE_THIN_ROD, DM_SCENE_CARRY_BINDER, DM_SCENE_SELFIE] {
            XCTAssertNotNil(SceneKind(rawValue: Int32(s.rawValue)))
        }
        for m in [DM_SPARKLE_MEASURE_MEAN_RGB, DM_SPARKLE_MEASURE_REC709_LUMA] {
            XCTAssertNotNil(BrightnessMeasure(rawValue: Int32(m.rawValue)))
        }
        for m in [DM_FS_METHOD_MEAN, DM_FS_METHOD_MEDIAN] { XCTAssertNotNil(StackMethod(rawValue: Int32(m.rawValue))) }
        for a in [DM_FS_ALIGN_NONE, DM_FS_ALIGN_TRANSLATION] { XCTAssertNotNil(StackAlign(rawValue: Int32(a.rawValue))) }
        for m in [DM_FS_MODE_BATCH, DM_FS_MODE_SLIDING] { XCTAssertNotNil(StackMode(rawValue: Int32(m.rawValue))) }
    }
}
