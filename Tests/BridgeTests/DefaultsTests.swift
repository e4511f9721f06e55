// SPDX-License-Identifier: LGPL-2.1-or-later
/// The kit against the contract's enums: each C enum is one value list
/// (DM_ENUM_TYPEDEF in dmcommon.h) that makes the C enum, its count and the
/// registered GEnum; each kit mirror must have exactly those values, so the
/// kit's reading of an enum property never falls back. (The defaults need no
/// check: the kit reads them from the same tables, DMContract's
/// dm_<element>_settings_init.)
@_spi(Bench) @testable import DepthMatteKit
import DMContract
import XCTest

final class DefaultsTests: XCTestCase {
    /// `E` has a case for each of the contract's values 0 ..< count, and no other.
    private func assertMirrors<E: PropertyEnum>(_: E.Type, _ count: Int,
                                                file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertGreaterThan(count, 1, "\(E.self)", file: file, line: line)
        for v in 0..<count {
            XCTAssertNotNil(E(rawValue: Int32(v)), "\(E.self) has no case for the contract's value \(v)", file: file, line: line)
        }
        XCTAssertEqual(E.allCases.count, count, "\(E.self) has cases the contract does not", file: file, line: line)
    }

    /// Every kit mirror with its contract list's count, by element.
    private static let mirrors: [(any PropertyEnum.Type, Int)] = [
        // depthmatte
        (KeyingMode.self, DMModeCount), (ElementOutput.self, DMOutputCount), (MatteRefine.self, DMRefineCount),
        (BackgroundEffect.self, DMBackgroundEffectCount), (PersonPrior.self, DMPersonPriorCount),
        (LockStrategy.self, DMLockStrategyCount),
        // depthview and depthmatte's depth rows
        (DepthKind.self, DMDepthKindCount), (DepthColormap.self, DMColormapCount),
        // rgbdtestsrc, sparkle
        (SceneKind.self, DMSceneCount), (BrightnessMeasure.self, DMSparkleMeasureCount),
        // framestack
        (StackMethod.self, DMFrameStackMethodCount), (StackAlign.self, DMFrameStackAlignCount),
        (StackMode.self, DMFrameStackModeCount),
    ]

    func testEachKitEnumMirrorsItsContractList() {
        XCTAssertEqual(Self.mirrors.count, 13, "a mirror left out of the table")
        for (mirror, count) in Self.mirrors {
            assertMirrors(mirror, count)
        }
    }

    /// The list's order is the values': the first and last names of a list are 0 and count - 1.
    func testTheListOrderIsTheValues() {
        XCTAssertEqual(Int(DM_MODE_FACE.rawValue), 0)
        XCTAssertEqual(Int(DM_MODE_BANDPASS.rawValue), DMModeCount - 1)
        XCTAssertEqual(Int(DM_SCENE_SELFIE.rawValue), DMSceneCount - 1)
        XCTAssertEqual(Int(DM_EFFECT_BLUR.rawValue), DMBackgroundEffectCount - 1)
    }
}
