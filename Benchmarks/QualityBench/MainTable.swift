// SPDX-License-Identifier: LGPL-2.1-or-later
// The main table: the portrait scene at each depth size and misregistration,
// keyed with each refine mode, against the targets the default must meet.
@_spi(Bench) import DepthMatteKit
import BenchSupport

/// QB_DEPTH=848x480,640x480 runs other depth sizes (e.g. a RealSense's or a
/// Kinect's 4:3 map, registered to the 16:9 colour frame)
let depthSizes: [(Int, Int)] = env("QB_DEPTH").map { $0.split(separator: ",").compactMap { d -> (Int, Int)? in
    let p = d.split(separator: "x"); guard p.count == 2, let w = Int(p[0]), let h = Int(p[1]) else { return nil }; return (w, h)
} } ?? [(640, 360), (320, 180)]

/// Prints the main table (none of its rows with QB_NOMAIN or QB_SENSOR=only);
/// whether the default met the targets on every clip.
func mainTable() -> Bool {
    print("quality-bench: \(nFrames) frames per clip (\(seconds) s at \(fps) fps from t = 4 s: the hand is raised at 5-9 s), video \(VW)x\(VH)")
    print("artefacts: noise, holes, flying pixels, misregistration (depth px); lock: mode=face, robust")
    print("| depth | misreg | refine | SAD | MSE | Grad | IoU | IoU min | dtSSD | SAD/orig | Grad/orig | dtSSD/orig | distractor in | hand out | hand out > 2 px inside | ms/frame |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    var allMet = true
    for (dw, dh) in env("QB_NOMAIN") != nil || sensorOnly ? [] : depthSizes {
        for mis in [1, 2] {
            var ss = SceneSettings(.defaults)
            ss.noise = true; ss.holes = true; ss.flyingPixels = true; ss.misregistration = mis
            ss.seed = UInt32(mis)
            let clip = render(ss, dw: dw, dh: dh, start: startTime)
            truthGrad = []
            let orig = run(clip, refine: .original)
            for mode in [MatteRefine.original, .none, .guided] {
                let r = mode == .original ? orig : run(clip, refine: mode)
                let name = mode == .guided ? "guided (default)" : "\(mode)"
                print("| \(dw)x\(dh) | \(mis) | \(name) | \(f(r.sad, 2)) | \(f(r.mse, 3)) | \(f(r.grad, 2)) | \(f(r.iou, 4)) | \(f(r.iouMin, 4)) | \(f(r.dt, 3)) | "
                      + "\(f(r.sad / orig.sad, 2)) | \(f(r.grad / orig.grad, 2)) | \(f(r.dt / orig.dt, 2)) | \(r.distractor) | \(r.handOut) | \(r.handOutDeep) | \(f(r.ms, 1)) |")
                if mode == .guided {
                    let met = r.sad <= 0.3 * orig.sad && r.grad <= 0.3 * orig.grad && r.iou >= 0.99 && r.dt <= 0.5 * orig.dt && r.distractor == 0 && r.handOutDeep == 0
                    if !met { allMet = false }
                }
            }
        }
    }
    return allMet
}
