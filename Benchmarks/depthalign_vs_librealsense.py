#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""librealsense's rs.align(rs.stream.color) on the frames depthalign-bench wrote,
scored with the same metric, next to depthalign's figures.

    Benchmarks/depthalign_vs_librealsense.py [dir] [runs]

`dir` (default /tmp/depthalign-bench) holds calibration.json, truth.raw,
depth_<name>.raw (little-endian uint16) and manifest.json (sizes, frame names
and depthalign's results). The frames go through a pyrealsense2
software_device (one depth and one colour sensor with our intrinsics, the
depth->colour extrinsics registered between the streams), a syncer, then
rs.align. Needs `pip install --break-system-packages pyrealsense2` for
Debian's /usr/bin/python3.

Scores over the colour pixels: "within 1 %" = output within 1 % of the truth
where the truth is valid; "holes" = output 0 where the truth is valid (both %
of valid-truth pixels); "invented" = output valid where the truth is 0 (% of
all pixels).
"""
import json
import statistics
import sys
import time

import numpy as np
import pyrealsense2 as rs

folder = sys.argv[1] if len(sys.argv) > 1 else "/tmp/depthalign-bench"
runs = int(sys.argv[2]) if len(sys.argv) > 2 else 60

cal = json.load(open(f"{folder}/calibration.json"))
manifest = json.load(open(f"{folder}/manifest.json"))
dw, dh = manifest["depth"]
cw, ch = manifest["color"]
truth = np.fromfile(f"{folder}/truth.raw", dtype="<u2").reshape(ch, cw)

MODELS = {"none": rs.distortion.none, "brown-conrady": rs.distortion.brown_conrady,
          "inverse-brown-conrady": rs.distortion.inverse_brown_conrady}


def intrinsics(c):
    i = rs.intrinsics()
    i.width, i.height = c["width"], c["height"]
    i.fx, i.fy, i.ppx, i.ppy = c["fx"], c["fy"], c["ppx"], c["ppy"]
    i.model = MODELS[c["model"]]
    i.coeffs = list(c["coeffs"])
    return i


def score(out, truth):
    valid = truth > 0
    o = out.astype(np.int64)
    t = truth.astype(np.int64)
    ok = valid & (o > 0) & (100 * np.abs(o - t) <= t)
    holes = valid & (o == 0)
    invented = (~valid) & (o > 0)
    n = max(int(valid.sum()), 1)
    return 100.0 * ok.sum() / n, 100.0 * holes.sum() / n, 100.0 * invented.sum() / truth.size


# --- a software device with our two cameras -------------------------------
dev = rs.software_device()
depth_sensor = dev.add_sensor("Depth")
color_sensor = dev.add_sensor("Color")

vs = rs.video_stream()
vs.type, vs.index, vs.uid = rs.stream.depth, 0, 0
vs.width, vs.height, vs.fps, vs.bpp, vs.fmt = dw, dh, 30, 2, rs.format.z16
vs.intrinsics = intrinsics(cal["depth"])
depth_profile = depth_sensor.add_video_stream(vs)

cs = rs.video_stream()
cs.type, cs.index, cs.uid = rs.stream.color, 0, 1
cs.width, cs.height, cs.fps, cs.bpp, cs.fmt = cw, ch, 30, 3, rs.format.rgb8
cs.intrinsics = intrinsics(cal["color"])
color_profile = color_sensor.add_video_stream(cs)

scale = cal["depth_scale"]
depth_sensor.add_read_only_option(rs.option.depth_units, scale)

ext = rs.extrinsics()
R = np.array(cal["depth_to_color"]["rotation"], dtype=float).reshape(3, 3)   # row-major in our JSON
ext.rotation = list(R.T.reshape(9))                                           # librealsense: column-major
ext.translation = list(cal["depth_to_color"]["translation"])
depth_profile.register_extrinsics_to(color_profile, ext)

dev.create_matcher(rs.matchers.dlr_c)   # as librealsense's software-device example
sync = rs.syncer()
depth_sensor.open(depth_profile)
color_sensor.open(color_profile)
depth_sensor.start(sync)
color_sensor.start(sync)

color_pixels = np.zeros((ch, cw, 3), dtype=np.uint8)
align = rs.align(rs.stream.color)
frame_number = 0


def inject(depth):
    global frame_number
    frame_number += 1
    ts = frame_number * 1000.0 / 30
    d = rs.software_video_frame()
    d.pixels = depth
    d.bpp, d.stride = 2, 2 * dw
    d.timestamp, d.domain, d.frame_number = ts, rs.timestamp_domain.hardware_clock, frame_number
    d.profile = depth_profile.as_video_stream_profile()
    d.depth_units = scale
    depth_sensor.on_video_frame(d)
    c = rs.software_video_frame()
    c.pixels = color_pixels
    c.bpp, c.stride = 3, 3 * cw
    c.timestamp, c.domain, c.frame_number = ts, rs.timestamp_domain.hardware_clock, frame_number
    c.profile = color_profile.as_video_stream_profile()
    color_sensor.on_video_frame(c)


def frameset(depth):
    """Inject the depth frame (and a blank colour frame) until the syncer
    hands back a pair with both."""
    for _ in range(20):
        inject(depth)
        ok, fs = sync.try_wait_for_frames(200)
        if ok and fs.get_depth_frame() and fs.get_color_frame():
            return fs
    raise RuntimeError("the syncer never paired depth and colour")


rows = []
times = []
sums = np.zeros(3)
print(f"librealsense {rs.__version__}: rs.align(rs.stream.color), {dw}x{dh} -> {cw}x{ch}, {runs} runs per frame")
for name in manifest["frames"]:
    depth = np.fromfile(f"{folder}/depth_{name}.raw", dtype="<u2").reshape(dh, dw)
    fs = frameset(depth)
    aligned = align.process(fs)          # first call builds librealsense's tables
    out = np.asanyarray(aligned.get_depth_frame().get_data()).copy()
    del aligned
    t = []
    for _ in range(runs):
        a = time.perf_counter()
        aligned = align.process(fs)
        aligned.get_depth_frame()
        t.append((time.perf_counter() - a) * 1e3)
        del aligned
    times += t
    s = score(out, truth)
    sums += s
    np.asarray(out, dtype="<u2").tofile(f"{folder}/librealsense_{name}.raw")
    print(f"  {name:8s} {statistics.median(t):7.3f} ms   within 1 %: {s[0]:6.2f}   holes: {s[1]:5.2f}   invented: {s[2]:6.3f}")

k = len(manifest["frames"])
rs_ms = statistics.median(times)
rs_row = {"method": f"librealsense {rs.__version__} rs.align", "ms": rs_ms,
          "within": sums[0] / k, "holes": sums[1] / k, "invented": sums[2] / k}

print()
print(f"{'method':34s} {'ms/frame':>9s} {'within 1 %':>11s} {'holes %':>8s} {'invented %':>11s} {'time / librealsense':>20s}")
for r in [rs_row] + manifest["ours"]:
    print(f"{r['method']:34s} {r['ms']:9.3f} {r['within']:11.2f} {r['holes']:8.2f} {r['invented']:11.3f} {r['ms'] / rs_ms:20.2f}")
print("\n(medians over all frames and runs; scores averaged over the frames; the machine is shared, "
      "so the two programs' times are comparable only when run back to back)")
