// swift-tools-version:5.9
// SPDX-License-Identifier: LGPL-2.1-or-later
// depthmatte's benchmarks: their own package, built on request, so the
// plugin's build (scripts/setup) does not build them.
//   Benchmarks/run quality-bench 3 5        (builds in release, then runs)
// Each prints figures and ratios against a baseline measured in the same run.
import PackageDescription

let package = Package(
    name: "depthmatte-benchmarks",
    dependencies: [.package(name: "depthmatte", path: "..")],
    targets: [
        .target(name: "AllocCounter", path: "AllocCounter"),
        .target(name: "BenchSupport", path: "BenchSupport"),
        // Per-frame cost of the keyer against a frame copy, threads, 4K,
        // allocations, memory, and whole pipelines against the stock chroma key.
        bench("depthmatte-bench", "DepthMatteBench", extra: ["AllocCounter"]),
        // Subject-lock strategies on rgbdtestsrc scenes with false faces, face
        // loss and no face metas (SAD / IoU / dtSSD against the truth).
        bench("lock-bench", "LockBench"),
        // Matte quality of the refine modes on rgbdtestsrc scenes with realistic
        // depth artefacts (SAD / MSE / gradient / IoU / dtSSD against the truth).
        bench("quality-bench", "QualityBench"),
        // The sparkle meter and glints against a 1080p frame copy.
        bench("sparkle-bench", "SparkleBench"),
        // Align + median of 20 1080p frames against copying them.
        bench("framestack-bench", "FrameStackBench"),
        // depthalign's registration against the true registered depth of a
        // box-and-wall scene (and, through depthalign-bench.sh, librealsense's align).
        bench("depthalign-bench", "DepthAlignBench"),
        // The learned elements' kit side: the model-input sampler's speed, and a
        // line server that learned-parity.py drives (fill, decode, mask bytes).
        bench("learned-bench", "LearnedBench"),
    ]
)

/// A benchmark executable on the kit and BenchSupport.
func bench(_ name: String, _ path: String, extra: [Target.Dependency] = []) -> Target {
    .executableTarget(name: name,
                      dependencies: [.product(name: "DepthMatteKit", package: "depthmatte"), "BenchSupport"] + extra,
                      path: path)
}
