#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""A separate RTSP client process for test_rtsp.py.

  rtsp_client.py URL SECONDS [--tcp|--udp] [--frames N] [--save FRAME.npy]

Receives and decodes (rtspsrc ! decodebin ! RGB appsink) for SECONDS (0 = no
time limit), until N frames are decoded with --frames, or until SIGTERM (then
it finishes as at the end: saves, prints, exits 0), printing "decoder NAME" once and "frame MONOTONIC_SECONDS" per decoded
frame (CLOCK_MONOTONIC is system-wide, so the test can compare it with when it
killed another client); with --save, the last frame as an (h, w, 3) array.
"""
import argparse
import signal
import sys
import time

import gi

gi.require_version("Gst", "1.0")
from gi.repository import Gst  # noqa: E402
import numpy as np  # noqa: E402

from app_helpers import rgb_array  # noqa: E402

a = argparse.ArgumentParser()
a.add_argument("url")
a.add_argument("seconds", type=float)
a.add_argument("--udp", action="store_true")
a.add_argument("--tcp", action="store_true", help="(the default)")
a.add_argument("--save")
a.add_argument("--frames", type=int, default=0, help="stop after N decoded frames (0 = no limit)")
args = a.parse_args()
stop = []
signal.signal(signal.SIGTERM, lambda *_: stop.append(True))
Gst.init(None)
proto = "udp" if args.udp else "tcp"
pl = Gst.parse_launch(
    f"rtspsrc location={args.url} protocols={proto} latency=100 ! decodebin name=d ! videoconvert ! "
    "video/x-raw,format=RGB ! appsink name=s sync=false max-buffers=4 drop=true")


def on_element(bin, sub, element):
    f = element.get_factory()
    if f is not None and "Decoder" in f.get_klass():
        print(f"decoder {f.get_name()}", flush=True)


pl.get_by_name("d").connect("deep-element-added", on_element)
sink = pl.get_by_name("s")
pl.set_state(Gst.State.PLAYING)
start = time.monotonic()
last = None
n = 0
while (args.seconds == 0 or time.monotonic() - start < args.seconds) and not stop \
        and (args.frames == 0 or n < args.frames):
    smp = sink.emit("try-pull-sample", Gst.SECOND // 2)
    if smp is None:
        msg = pl.get_bus().pop_filtered(Gst.MessageType.ERROR)
        if msg is not None:
            print(f"error {msg.parse_error()[0].message}", flush=True)
            sys.exit(2)
        continue
    n += 1
    print(f"frame {time.monotonic():.3f}", flush=True)
    last = smp
if args.save and last is not None:
    np.save(args.save, rgb_array(last))
pl.set_state(Gst.State.NULL)
print(f"frames {n}", flush=True)
