// swift-tools-version:5.9
// SPDX-License-Identifier: LGPL-2.1-or-later
// depthmatte: a GStreamer plugin that keys live video by depth.
//
// Targets (see README "Layout"):
//   CGStreamer     system library (pkg-config gstreamer-video-1.0 and its Requires: chain)
//   CJsonGlib      system library (pkg-config json-glib-1.0): the shim reads calibration files with it
//   DMContract     C headers only (<stdint.h>): the shim/Swift contract, each element's
//                  property table and settings struct, read by the shim, the bridge and the kit
//   GstShim        C only: plugin definition, GObject types, pads, properties, vfunc trampolines
//   CLiteRT        C only: the LiteRT inference runtime loaded with dlopen, compiled models and
//                  their process-wide pools (the learned elements' models run in-process)
//   DMKernels      C only: CPU-specific kernels the kit calls (AVX2 behind a run-time check)
//   DepthMatteKit  pure Swift (no GStreamer, no Foundation): the image algorithms
//   GstDepthMatte  Swift bridge: @_cdecl entry points the shim calls
//   GstDepthMattePlugin  the plugin's link settings (static Swift runtime)
// The benchmarks are a package of their own (Benchmarks/), built on request.
import PackageDescription

let package = Package(
    name: "depthmatte",
    products: [
        // libgstdepthmatte.so; GStreamer derives the plugin name "depthmatte" from it.
        .library(name: "gstdepthmatte", type: .dynamic, targets: ["GstDepthMattePlugin"]),
        // The pure-Swift algorithms, for the benchmarks package (Benchmarks/).
        .library(name: "DepthMatteKit", targets: ["DepthMatteKit"]),
    ],
    targets: [
        .systemLibrary(
            name: "CGStreamer",
            pkgConfig: "gstreamer-video-1.0",
            providers: [.apt(["libgstreamer1.0-dev", "libgstreamer-plugins-base1.0-dev"])]
        ),
        .systemLibrary(
            name: "CJsonGlib",
            pkgConfig: "json-glib-1.0",
            providers: [.apt(["libjson-glib-dev"])]
        ),
        .target(
            name: "DMContract"
        ),
        .target(
            name: "GstShim",
            dependencies: ["CGStreamer", "CJsonGlib", "DMContract"],
            // a folder per element, plus common/ (the class plumbing they share)
            cSettings: [.headerSearchPath("common"), .unsafeFlags(["-O2", "-Wall"])]
        ),
        .target(
            name: "CLiteRT",
            cSettings: [.unsafeFlags(["-O2", "-Wall"])],
            linkerSettings: [.linkedLibrary("dl"), .linkedLibrary("pthread")]
        ),
        .target(
            name: "DMKernels",
            // (no FP contraction: the kernels repeat the Swift fallback's arithmetic to the bit)
            cSettings: [.unsafeFlags(["-O2", "-Wall", "-ffp-contract=off"])]
        ),
        .target(
            name: "DepthMatteKit",
            dependencies: ["DMContract", "DMKernels"]
        ),
        .target(
            name: "GstDepthMatte",
            dependencies: ["DMContract", "DepthMatteKit", "CLiteRT"]
        ),
        .target(
            name: "GstDepthMattePlugin",
            dependencies: ["GstShim", "GstDepthMatte"],
            // Link the Swift runtime in so the plugin loads from any folder
            // (the default RUNPATH points into the toolchain).
            linkerSettings: [.unsafeFlags(["-static-stdlib"])]
        ),
        .testTarget(
            name: "DepthMatteKitTests",
            dependencies: ["DepthMatteKit", "DMContract"]
        ),
        // The kit's enums against the shim's property tables; links the bridge.
        .testTarget(
            name: "BridgeTests",
            dependencies: ["GstDepthMatte", "GstShim", "DMContract", "DepthMatteKit", "CLiteRT"]
        ),
    ]
)
