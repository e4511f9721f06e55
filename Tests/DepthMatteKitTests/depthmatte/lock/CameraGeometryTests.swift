// SPDX-License-Identifier: LGPL-2.1-or-later
import DMContract
import XCTest
@_spi(Bench) @testable import DepthMatteKit

/// `field-of-view` reaches every floor test through one `CameraGeometry`.
final class CameraGeometryTests: XCTestCase {
    /// 0 is the built-in camera (70° across a 16:9 width); 77.5° on the
    /// diagonal is nearly the same; a wider view has a shorter focal length.
    func testFieldOfViewSetsTheFocalLength() {
        XCTAssertEqual(CameraGeometry(diagonalFieldOfView: 0), CameraGeometry())
        XCTAssertEqual(CameraGeometry().focalDiagonal, 0.6225)
        XCTAssertEqual(CameraGeometry(diagonalFieldOfView: 77.5).focalDiagonal, 0.6225, accuracy: 0.001)
        XCTAssertLessThan(CameraGeometry(diagonalFieldOfView: 100).focalDiagonal, 0.45)
        XCTAssertGreaterThan(CameraGeometry(diagonalFieldOfView: 40).focalDiagonal, 1.3)
        // the focal length of a 16:9 picture 1920 wide: 70° across it
        let f = CameraGeometry().focal(1920, 1080)
        XCTAssertEqual(Double(f), 960 / 0.7002, accuracy: 2)
    }

    /// The plan reads the property.
    func testThePlanReadsFieldOfView() {
        var s = DMDepthMatteSettings()
        dm_depthmatte_settings_init(&s)
        XCTAssertEqual(MattePlan(s).camera, CameraGeometry())
        s.field_of_view = 100
        XCTAssertEqual(MattePlan(s).camera, CameraGeometry(diagonalFieldOfView: 100))
    }

    /// The lock's floor cells follow the camera: a surface receding upwards
    /// by 12 mm a row at 1.5 m is floor through a long lens (40°), where a
    /// row spans little, and not through a wide one (100°).
    func testTheLockFloorTestFollowsTheCamera() {
        let w = 160, h = 90
        let d = TestDepth(width: w, height: h)
        for y in 0..<h { for x in 0..<w { d[x, y] = UInt16(1500 + (h - 1 - y) * 12) } }
        func floorCells(_ degrees: Double) -> Int {
            var c = DepthComponents()
            c.camera = CameraGeometry(diagonalFieldOfView: degrees)
            c.analyse(depth: d.view, scale: 0.001, maxWidth: w)
            return c.floorLike[0..<(c.width * c.height)].filter { $0 != 0 }.count
        }
        let n = w * h
        XCTAssertGreaterThan(floorCells(40), n / 2)
        XCTAssertEqual(floorCells(100), 0)
    }
}
