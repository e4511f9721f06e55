#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""live-starts.py: a live depthmatte started again and again in one process.

  Benchmarks/live-starts.py [STARTS] [LATENCY_NS]
      (default 1000 starts and latency 0; the plugin from GST_PLUGIN_PATH,
       e.g. this checkout's .build/release)

Each start is test_sync's live pair: rgbdtestsrc is-live=true colour and
depth (160x120 at 30/1; 5 frames, then 30, alternating) into depthmatte
mode=fixed and an appsink (sync=false), pulled until EOS or 3 s without a
sample. A start is counted as
  stalled   no EOS (the pipeline never ran, or stopped)
  short     fewer outputs than colour frames (outputs swallowed)
  extra     more (the last colour frame repeated by the aggregator's
            timeout when the colour's EOS comes after its latency)
and each such start is printed with its output times. Races at the start of
a live run show up only now and then: run it on a loaded box (a build
alongside) and compare builds by their counts over the same number of
starts (docs/robustness.md, "Live starts").
"""
import sys

import gi

gi.require_version("Gst", "1.0")
from gi.repository import Gst  # noqa: E402


def start(n, latency):
    p = Gst.parse_launch(
        f"rgbdtestsrc is-live=true num-buffers={n} ! video/x-raw,width=160,height=120,framerate=30/1 ! "
        "queue ! m.video "
        f"rgbdtestsrc is-live=true stream=depth num-buffers={n} ! "
        "video/x-raw,width=160,height=120,framerate=30/1 ! queue ! m.depth "
        f"depthmatte name=m mode=fixed latency={latency} ! appsink name=s sync=false")
    sink = p.get_by_name("s")
    p.set_state(Gst.State.PLAYING)
    pts = []
    while (sample := sink.emit("try-pull-sample", 3 * Gst.SECOND)) is not None:
        pts.append(sample.get_buffer().pts)
    eos = sink.get_property("eos")
    p.set_state(Gst.State.NULL)
    return pts, eos


def main():
    starts = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
    latency = int(sys.argv[2]) if len(sys.argv) > 2 else 0
    Gst.init(None)
    counts = {"stalled": 0, "short": 0, "extra": 0}
    for i in range(starts):
        n = 30 if i % 2 else 5
        pts, eos = start(n, latency)
        kind = "stalled" if not eos else "short" if len(pts) < n else "extra" if len(pts) > n else None
        if kind:
            counts[kind] += 1
            print(f"start {i}: {kind}, {len(pts)} outputs of {n}, at ms {[round(t / 1e6) for t in pts]}",
                  flush=True)
    print(f"{starts} starts (latency {latency} ns): " + ", ".join(f"{k} {v}" for k, v in counts.items()))


if __name__ == "__main__":
    main()
