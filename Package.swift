// swift-tools-version:5.9
// depthmatte: a GStreamer plugin that keys live video by depth.
//
// Targets (see README "Layout"):
//   CGStreamer     system library (pkg-config gstreamer-video-1.0 and its Requires: chain)
//   GstShim        C only: plugin definition, GObject types, pads, properties, vfunc trampolines
//   DepthMatteKit  pure Swift (no GStreamer, no Foundation): the image algorithms
//   GstDepthMatte  Swift bridge: @_cdecl entry points the shim calls
import PackageDescription

let package = Package(
    name: "depthmatte",
    products: [
        // libgstdepthmatte.so; GStreamer derives the plugin name "depthmatte" from it.
        .library(name: "gstdepthmatte", type: .dynamic, targets: ["GstDepthMatte"]),
    ],
    targets: [
        .systemLibrary(
            name: "CGStreamer",
            pkgConfig: "gstreamer-video-1.0",
            providers: [.apt(["libgstreamer1.0-dev", "libgstreamer-plugins-base1.0-dev"])]
        ),
        .target(
            name: "GstShim",
            dependencies: ["CGStreamer"],
            cSettings: [.unsafeFlags(["-O2", "-Wall"])]
        ),
        .target(
            name: "DepthMatteKit"
        ),
        .target(
            name: "GstDepthMatte",
            dependencies: ["GstShim", "DepthMatteKit"],
            // Link the Swift runtime in so the plugin loads from any folder
            // (the default RUNPATH points into the toolchain).
            linkerSettings: [.unsafeFlags(["-static-stdlib"])]
        ),
        // Benchmark of the sparkle meter and glints against a 1080p frame copy:
        //   swift run -c release sparkle-bench
        .executableTarget(
            name: "sparkle-bench",
            dependencies: ["DepthMatteKit"],
            path: "Sources/SparkleBench"
        ),
        // Times align + median of 20 1080p frames against copying them.
        .executableTarget(
            name: "framestack-bench",
            dependencies: ["DepthMatteKit"],
            path: "Sources/FrameStackBench"
        ),
        // Per-frame cost of the keyer against a frame copy, threads, 4K,
        // allocations, memory, and whole pipelines against the stock chroma key:
        //   swift run -c release depthmatte-bench
        .target(name: "AllocCounter", path: "Sources/AllocCounter"),
        .target(name: "BenchSupport", path: "Sources/BenchSupport"),
        .executableTarget(
            name: "depthmatte-bench",
            dependencies: ["DepthMatteKit", "AllocCounter"],
            path: "Sources/DepthMatteBench"
        ),
        // Subject-lock strategies on rgbdtestsrc scenes with false faces,
        // face loss and no face metas (SAD / IoU / dtSSD against the truth):
        //   swift run -c release lock-bench
        .executableTarget(
            name: "lock-bench",
            dependencies: ["DepthMatteKit", "BenchSupport"],
            path: "Sources/LockBench"
        ),
        // Matte quality of the refine modes on rgbdtestsrc scenes with realistic
        // depth artefacts (SAD / MSE / gradient / IoU / dtSSD against the truth):
        //   swift run -c release quality-bench
        .executableTarget(
            name: "quality-bench",
            dependencies: ["DepthMatteKit", "BenchSupport"],
            path: "Sources/QualityBench"
        ),
        // depthalign's registration against the true registered depth and
        // (Benchmarks/depthalign-bench.sh) librealsense's rs.align on the same frames.
        .executableTarget(name: "depthalign-bench", dependencies: ["DepthMatteKit"], path: "Benchmarks/DepthAlignBench"),
        .testTarget(
            name: "DepthMatteKitTests",
            dependencies: ["DepthMatteKit"]
        ),
    ]
)
