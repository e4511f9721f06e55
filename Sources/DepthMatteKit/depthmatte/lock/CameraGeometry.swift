// SPDX-License-Identifier: LGPL-2.1-or-later
import Glibc

/// What the floor tests assume of the camera, in one place: how steeply a
/// surface must recede upwards to be floor, and the focal length that turns
/// that angle into a depth change per row. The lock's floor cells and floor
/// pieces, the segmentation's floor, the legs' growth, the arms-length seed
/// and the fusion's floor all read it.
@_spi(Bench) public struct CameraGeometry: Equatable, Sendable {
    /// tan of the angle between a surface and the image plane (top away)
    /// from which it is floor-like: 0.7 ≈ 35°.
    public var floorSlope: Float = 0.7
    /// The focal length in picture diagonals. A camera's field of view is
    /// close to constant along the diagonal; 0.6225 is 70° across a 16:9
    /// picture's width (77.5° on its diagonal). A Kinect's 4:3 focal length
    /// is 0.82 widths, a phone's upright 3:4 portrait about 1.05; 0.714
    /// widths for every shape made an upright portrait's or a 4:3 floor's
    /// per-row slope look up to 30 % shallower than it is. A 60–90° camera
    /// changes the slope test by at most ±40 %.
    public var focalDiagonal: Float = 0.6225

    public init() {}

    /// The camera of diagonal field of view `degrees` (`field-of-view`;
    /// 0: the default above).
    public init(diagonalFieldOfView degrees: Double) {
        if degrees > 0 {
            let half = degrees / 2 * Double.pi / 180
            focalDiagonal = Float(0.5 / tan(half))
        }
    }

    /// The focal length (in cells or pixels) of a `w` x `h` picture.
    @inline(__always) func focal(_ w: Int, _ h: Int) -> Float {
        focalDiagonal * (Float(w * w + h * h)).squareRoot()
    }

    /// The share of its depth a floor-like surface loses over `rows` rows
    /// downwards on a `w` x `h` grid: `floorSlope` · rows / `focal`.
    @inline(__always) func floorDrop(overRows rows: Float, _ w: Int, _ h: Int) -> Float {
        floorSlope * rows / focal(w, h)
    }

    /// The floor test of a `w` x `h` depth grid
    /// (`SubjectSegmentation.recedesUpwards`), as the segmentation, the
    /// legs and the fusion's floor bleed run it.
    func floorTest(_ w: Int, _ h: Int) -> FloorTest {
        let s = max(1, w / 160)
        return FloorTest(s: s, t: 2 * s, slopeK: floorDrop(overRows: Float(2 * s), w, h))
    }
}

/// The floor test's span on one grid: the depth is fitted over rows ±`t`
/// (`t` = 2`s`, `s` one row per 160 columns) and a floor's falls by at
/// least `slopeK` · d over 2`s` rows downwards.
struct FloorTest: Equatable {
    let s: Int, t: Int, slopeK: Float
}
