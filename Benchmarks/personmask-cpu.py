#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""personmask's CPU per frame with its full-body fallback (full-body=auto)
against the selfie model alone (full-body=off), interleaved in one run.

  Benchmarks/personmask-cpu.py [PLUGIN_DIR] [ROUNDS]
      (default this checkout's .build/release and 4 rounds; the learned
       runtime and models from DEPTHMATTE_DATA_DIR, else this checkout's
       .build/depthmatte-data)

Frames are drawn by the pipeline tests' room() (Tests/PluginTests/
test_personmask_full_body.py), at 640x480 (the Kinect clips' size) and
stretched to 1920x1080:
  far     a figure 133 px tall (of 480), back turned, in a dim room: the
          selfie model keys under 1 % of its plane, the fallback fires and
          the pose models find him (detector and landmark model run)
  empty   the room alone: the fallback fires and the detector finds no one
  near    the figure 380 px tall: the selfie model sees him, the fallback
          does not fire (auto must cost what off costs)
Two frames per case that differ by one grey level everywhere alternate
(multifilesrc loop), so no frame repeats the last and every frame runs the
models. Per case, size and setting: CPU ms per frame (process user+system
time of a 200-frame run less a 40-frame run, over 160; median of the
rounds), and auto's extra over off.
"""
import os
import resource
import subprocess
import sys
import tempfile

import cv2
import gi
import numpy as np

gi.require_version("Gst", "1.0")
gi.require_version("GstVideo", "1.0")
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "Tests", "PluginTests"))
from test_personmask_full_body import room  # noqa: E402

CASES = {"far": dict(scale=0.35, back=True, light=0.5), "empty": dict(person=False), "near": dict()}
SIZES = ((640, 480), (1920, 1080))


def frames(folder, case, size):
    """Two raw RGB frames of `case` at `size` (the second one grey level up); the multifilesrc pattern."""
    png = room(os.path.join(folder, f"{case}.png"), **CASES[case])
    img = cv2.cvtColor(cv2.imread(str(png)), cv2.COLOR_BGR2RGB)
    img = cv2.resize(img, size, interpolation=cv2.INTER_LINEAR)
    pattern = os.path.join(folder, f"{case}-{size[0]}-%d.rgb")
    img.tofile(pattern % 0)
    np.minimum(img.astype(np.uint16) + 1, 255).astype(np.uint8).tofile(pattern % 1)
    return pattern


def desc(pattern, size, n, full_body):
    w, h = size
    return (f"multifilesrc location={pattern} index=0 stop-index=1 loop=true num-buffers={n} "
            f"caps=video/x-raw,format=RGB,width={w},height={h},framerate=30/1 ! rawvideoparse use-sink-caps=true ! "
            f"personmask full-body={full_body} ! fakesink sync=false")


def cpu(description, env):
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(["gst-launch-1.0", "-q"] + description.split(), env=env, check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)


def main():
    plugin = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, ".build", "release"))
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 4
    folder = tempfile.mkdtemp(prefix="personmask-cpu-")
    env = dict(os.environ, GST_PLUGIN_PATH=plugin, GST_REGISTRY=os.path.join(folder, "registry.bin"))
    env.setdefault("DEPTHMATTE_DATA_DIR", os.path.join(ROOT, ".build", "depthmatte-data"))
    patterns = {(c, s): frames(folder, c, s) for c in CASES for s in SIZES}
    ms = {}
    for _ in range(rounds):
        for (case, size), pattern in patterns.items():
            for fb in ("off", "auto"):
                hi = cpu(desc(pattern, size, 200, fb), env)
                lo = cpu(desc(pattern, size, 40, fb), env)
                ms.setdefault((case, size, fb), []).append((hi - lo) / 160 * 1000)
    med = lambda v: sorted(v)[len(v) // 2]
    print(f"personmask CPU ms per frame, median of {rounds} interleaved rounds (200 - 40 frames)")
    print(f"{'case':<8}{'size':>11}{'off':>9}{'auto':>9}{'extra':>9}")
    for (case, size) in patterns:
        off, auto = med(ms[(case, size, "off")]), med(ms[(case, size, "auto")])
        print(f"{case:<8}{size[0]:>6}x{size[1]:<4}{off:>9.2f}{auto:>9.2f}{auto - off:>+9.2f}")


if __name__ == "__main__":
    main()
