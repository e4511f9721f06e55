# SPDX-License-Identifier: LGPL-2.1-or-later
"""GST_DEBUG=<element>:N shows what a user debugging a pipeline needs: each element logs in its own category, named like the element,
the caps every pad negotiated (INFO), depthmatte's pad requests, worker
threads and lock changes (INFO); and nothing per frame below LOG, so the
number of lines at level 4 does not grow with the number of frames."""
import os
import re
import subprocess

import pytest

ELEMENTS = ("depthmatte", "rgbdtestsrc", "sparkle", "framestack", "depthview")


def run(frames, level):
    desc = (
        "depthmatte name=m ! framestack name=fs frames=2 ! fakesink "
        f"rgbdtestsrc name=cs num-buffers={frames} ! video/x-raw,width=160,height=90,framerate=30/1 ! "
        "sparkle name=sp ! m.video "
        f"rgbdtestsrc name=ds stream=depth num-buffers={frames} ! "
        "video/x-raw,width=80,height=45,framerate=30/1 ! tee name=t "
        "t. ! queue ! m.depth t. ! queue ! depthview name=dv ! fakesink "
        f"videotestsrc num-buffers={frames} ! video/x-raw,width=160,height=90,framerate=30/1 ! m.background")
    env = {k: v for k, v in os.environ.items() if k not in ("G_DEBUG", "GST_DEBUG_FILE")}
    env["GST_DEBUG"] = ",".join(f"{e}:{level}" for e in ELEMENTS)
    env["GST_DEBUG_NO_COLOR"] = "1"
    r = subprocess.run(["gst-launch-1.0", "-q"] + desc.split(), capture_output=True, text=True, env=env,
                       timeout=60)
    assert r.returncode == 0, r.stderr[-3000:]
    return r.stderr.splitlines()


def lines_of(log, category):
    # the category column of the default log format: "... INFO  depthmatte file.c:12:func:<obj> msg"
    pat = re.compile(rf"\s{category}\s+\S+\.c:\d+:")
    return [l for l in log if pat.search(l)]


def test_caps_pads_threads_and_lock_are_logged():
    log = run(30, 5)
    pads = {
        "depthmatte": [("m", "video"), ("m", "depth"), ("m", "background"), ("m", "src")],
        "rgbdtestsrc": [("cs", "src"), ("ds", "src")],
        "sparkle": [("sp", "sink"), ("sp", "src")],
        "framestack": [("fs", "sink"), ("fs", "src")],
        "depthview": [("dv", "sink"), ("dv", "src")],
    }
    for category, want in pads.items():
        own = lines_of(log, category)
        assert own, f"no {category} lines at all"
        for element, pad in want:
            hit = [l for l in own if f"<{element}:{pad}> negotiated caps video/x-raw" in l and " INFO " in l]
            assert hit, f"no INFO negotiated-caps line for {element}:{pad} in category {category}"
    dm = lines_of(log, "depthmatte")
    for text in ("requested the video pad", "requested the depth pad", "requested the background pad",
                 "worker threads per frame"):
        assert any(text in l and " INFO " in l for l in dm), text
    # the lock's first source, with the face box that set it (rgbdtestsrc attaches one)
    lock = [l for l in dm if re.search(r"lock none -> face at .*: face box \d+x\d+ at \(\d+,\d+\)", l)]
    assert lock and " INFO " in lock[0], "\n".join(dm)


def test_level_4_does_not_grow_with_frames():
    short, long = run(10, 4), run(60, 4)
    for category in ELEMENTS:
        a, b = lines_of(short, category), lines_of(long, category)
        assert a, f"no {category} lines at level 4"
        assert len(a) == len(b), (category, len(a), len(b), b[len(a):][:5])


def test_log_level_has_per_frame_summaries():
    log = run(10, 6)
    frames = [l for l in lines_of(log, "depthmatte") if " LOG " in l and "face boxes, lock" in l]
    assert len(frames) >= 10, len(frames)
