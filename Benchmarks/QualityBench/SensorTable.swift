// SPDX-License-Identifier: LGPL-2.1-or-later
// Steady edges: real structured-light depth as the evaluation
// measured it (quarter-resolution depth, disparity quantisation and
// spatially correlated noise, noise, holes, flying pixels, misregistration
// 1-2, the world 2.5x farther: the subject at 2.5 m, where a disparity step
// is 1.75 cm and the noise 9 mm; fixed cutoff 3.1 m), 10 frames at 30 fps:
// a still clip (only the sensor noise changes) and a slow sub-pixel pan
// (0.76 video px, 0.19 depth px per frame). "off > 0.2" = colour pixels per
// frame pair whose matte change differs from the truth's by more than 0.2
// (on the still clip: pixels that flip); "truth moves" = pixels the truth
// itself changes by more than 0.2. QB_SENSOR=only runs this table alone;
// QB_NOSENSOR skips it.
@_spi(Bench) import DepthMatteKit
import BenchSupport

/// Prints the sensor table.
func sensorTable() {
    let scale = 2.5
    print("\nsensor (steady edges): colour 1280x720, depth 320x180, world x\(f(scale, 1)) (subject at 2.5 m), quantisation + correlated noise + noise + holes + edges jittering by a sample each frame, fixed cutoff \(f(scale * 1.25, 3)) m, 10 frames at 30 fps")
    print("| clip | misreg | refine | SAD | IoU | dtSSD | dtSSD/orig | off > 0.2 per frame (max) | truth moves | ms/frame |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for (name, pan, motion) in [("still", false, false), ("pan", true, false), ("sway", false, true)] {
        for mis in [1, 2] {
            var ss = SceneSettings(.defaults)
            ss.motion = motion; ss.pan = pan
            ss.noise = true; ss.holes = true; ss.flyingPixels = true; ss.misregistration = mis; ss.seed = UInt32(10 + mis)
            ss.quantization = true; ss.correlatedNoise = true; ss.distanceScale = scale; ss.edgeJitter = true
            let clip = render(ss, dw: 320, dh: 180, start: 1, frames: 10, fps: 30)
            truthGrad = []
            let orig = run(clip, refine: .original, mode: .fixed, cutoff: scale * 1.25)
            for (rname, refine) in [("original", MatteRefine.original), ("guided (default)", .guided)] {
                let r = refine == .original ? orig : run(clip, refine: refine, mode: .fixed, cutoff: scale * 1.25)
                print("| \(name) | \(mis) | \(rname) | \(f(r.sad, 2)) | \(f(r.iou, 4)) | \(f(r.dt, 3)) | \(f(r.dt / orig.dt, 2)) | "
                      + "\(f(r.off, 0)) (\(r.offMax)) | \(f(r.truthMoves, 0)) | \(f(r.ms, 1)) |")
            }
        }
    }
}
