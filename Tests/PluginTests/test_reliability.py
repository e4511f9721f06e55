# SPDX-License-Identifier: LGPL-2.1-or-later
"""Reliability: state changes, threads, property ranges and leaks, for every
element of the plugin (depthmatte, rgbdtestsrc, sparkle, framestack,
depthview). Bad and odd input is in test_reliability_input.py; stream
faults, seeks and flushes in test_reliability_streams.py.

Everything here runs in CI; the long runs (valgrind, 100,000-frame soak) are
scripts/leakcheck and scripts/soak, documented in docs/robustness.md.
"""
import os
import random
import subprocess
import sys
import textwrap
import threading
import time

import pytest
from gi.repository import GObject, Gst

from harness import SECOND, run

ELEMENTS = ("depthmatte", "rgbdtestsrc", "sparkle", "framestack", "depthview")


# ---- state changes ----------------------------------------------------------------

STATE_CHILD = textwrap.dedent(r"""
    import sys, gi
    gi.require_version("Gst", "1.0")
    from gi.repository import Gst, GLib
    Gst.init(None)
    GLib.log_set_always_fatal(GLib.LogLevelFlags.LEVEL_CRITICAL | GLib.LogLevelFlags.LEVEL_WARNING
                              | GLib.LogLevelFlags.LEVEL_ERROR)
    S = Gst.State
    UP = [S.READY, S.PAUSED, S.PLAYING]
    DOWN = [S.PAUSED, S.READY, S.NULL]
    name, desc, cycles = sys.argv[1], sys.argv[2], int(sys.argv[3])

    def settle(e):
        r = e.get_state(5 * Gst.SECOND)[0]
        assert r in (Gst.StateChangeReturn.SUCCESS, Gst.StateChangeReturn.NO_PREROLL), r

    # 1. the element on its own (as gst-check's generic/states does)
    e = Gst.ElementFactory.make(name)
    if name == "depthmatte":
        for p in ("video", "depth", "background"):
            e.request_pad_simple(p)
    for i in range(cycles):
        for s in UP + DOWN:
            assert e.set_state(s) != Gst.StateChangeReturn.FAILURE
    for s in UP:                      # up, then straight down to NULL
        e.set_state(s)
    e.set_state(S.NULL)
    del e

    # 2. in a running pipeline, with data flowing
    p = Gst.parse_launch(desc)
    bus = p.get_bus()
    for i in range(cycles):
        for s in UP + DOWN:
            assert p.set_state(s) != Gst.StateChangeReturn.FAILURE, (i, s)
            settle(p)
        if i % 10 == 0:              # skip states: NULL -> PLAYING -> NULL
            p.set_state(S.PLAYING); settle(p); p.set_state(S.NULL)
    bad = []
    while (m := bus.pop_filtered(Gst.MessageType.ERROR | Gst.MessageType.WARNING)) is not None:
        bad.append(m.parse_error()[1] if m.type == Gst.MessageType.ERROR else m.parse_warning()[1])
    assert not bad, bad
    print("ok", cycles)
""")

STATE_PIPELINES = {
    "depthmatte": "depthmatte name=m ! fakesink "
                  "rgbdtestsrc ! video/x-raw,width=32,height=24 ! m.video "
                  "rgbdtestsrc stream=depth ! video/x-raw,width=16,height=12 ! m.depth "
                  "videotestsrc ! video/x-raw,width=8,height=8 ! m.background",
    "rgbdtestsrc": "rgbdtestsrc ! video/x-raw,width=32,height=24 ! fakesink",
    "sparkle": "videotestsrc ! video/x-raw,format=BGRA,width=32,height=24 ! sparkle interval=0 ! fakesink",
    "framestack": "videotestsrc ! video/x-raw,width=32,height=24 ! framestack frames=2 ! fakesink",
    "depthview": "rgbdtestsrc stream=depth ! video/x-raw,width=32,height=24 ! depthview ! fakesink",
}


@pytest.mark.parametrize("element", ELEMENTS)
def test_state_changes_100_cycles(element):
    r = subprocess.run([sys.executable, "-c", STATE_CHILD, element, STATE_PIPELINES[element], "100"],
                       capture_output=True, text=True, timeout=120,
                       env={**os.environ, "G_DEBUG": "fatal-warnings,fatal-criticals"})
    assert r.returncode == 0 and "ok 100" in r.stdout, r.stderr[-3000:]


# ---- threads: properties changed at high rate while PLAYING -----------------------

def _frames_out(element):
    """A list that grows by one for every buffer `element` sends out."""
    seen = []
    element.get_static_pad("src").add_probe(Gst.PadProbeType.BUFFER,
                                            lambda pad, info: (seen.append(1), Gst.PadProbeReturn.OK)[1])
    return seen


def _hammer(element, values, frames, sets=2000, guard=120):
    """Set random values from `values` (name -> list) on `element` from two
    threads as fast as they can go, until they made `sets` changes and 20
    frames went out of the element meanwhile (`frames`: from _frames_out);
    `guard` seconds only catch a hang."""
    end = time.monotonic() + guard
    start = len(frames)
    count = [0]

    def done():
        return count[0] >= sets and len(frames) - start >= 20

    def work(seed):
        rng = random.Random(seed)
        names = list(values)
        while not done() and time.monotonic() < end:
            n = rng.choice(names)
            element.set_property(n, rng.choice(values[n]))
            count[0] += 1

    threads = [threading.Thread(target=work, args=(s,)) for s in (1, 2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert done(), f"{count[0]} changes and {len(frames) - start} frames in {guard} s"
    return count[0]


def test_depthmatte_properties_from_other_threads_no_torn_values():
    p = Gst.parse_launch(
        "depthmatte name=m mode=fixed ! fakesink "
        "rgbdtestsrc ! video/x-raw,width=32,height=24 ! m.video "
        "rgbdtestsrc stream=depth ! video/x-raw,width=16,height=12 ! m.depth")
    m = p.get_by_name("m")
    cutoffs = [0.5, 1.25, 3.0, 77.0]
    seen = []

    def on_msg(bus, msg):
        s = msg.get_structure()
        if s and s.get_name() == "depthmatte":
            seen.append(s.get_value("cutoff"))

    bus = p.get_bus()
    bus.enable_sync_message_emission()
    bus.connect("sync-message::element", on_msg)
    frames = _frames_out(m)
    p.set_state(Gst.State.PLAYING)
    try:
        _hammer(m, {"cutoff": cutoffs, "blur-radius": [0.0, 0.5, 3.0, 100.0],
                    "gamma": [0.01, 0.5, 10.0], "depth-scale": [1e-6, 0.001, 1.0],
                    "background-color": [0, 0xffffffff, 0x80123456],
                    "output": ["composite", "matte", "alpha"], "cutoff-offset": [-10.0, 0.0, 10.0]}, frames)
        assert p.get_bus().pop_filtered(Gst.MessageType.ERROR) is None
        assert len(seen) >= 20  # one report a keyed frame
        assert set(seen) <= set(cutoffs) | {1.0}, set(seen) - set(cutoffs)
    finally:
        p.set_state(Gst.State.NULL)


@pytest.mark.parametrize("element,desc,values", [
    ("sparkle", "videotestsrc ! video/x-raw,format=BGRA,width=32,height=24 ! sparkle name=e ! fakesink",
     {"draw": [True, False], "grid-step": [1, 7, 1024], "interval": [0, 1, 10 ** 9],
      "max-sparkles": [0, 1, 1000], "threshold": [0.0, 0.5, 1.0], "size": [0.001, 0.5],
      "life": [Gst.MSECOND, 60 * SECOND], "color": [0, 0xffffffff], "seed": [0, 2 ** 32 - 1],
      "measure": ["mean-rgb", "rec709-luma"]}),
    ("framestack", "videotestsrc ! video/x-raw,width=32,height=24 ! framestack name=e frames=3 ! fakesink",
     {"method": ["mean", "median"], "align": ["none", "translation"], "max-shift": [0.0, 1.5, 1024.0],
      "post-messages": [True, False]}),
    ("rgbdtestsrc", "rgbdtestsrc name=e stream=depth ! video/x-raw,width=32,height=24 ! fakesink",
     {"seed": [0, 7, 2 ** 32 - 1], "depth-scale": [1e-6, 0.001, 1.0], "noise": [True, False],
      "holes": [True, False], "flying-pixels": [True, False], "misregistration": [-8, 0, 8],
      "motion": [True, False]}),
    ("depthview", "rgbdtestsrc stream=depth ! video/x-raw,width=32,height=24 ! depthview name=e ! fakesink",
     {"depth-kind": ["depth", "disparity"], "depth-scale": [1e-6, 0.001, 10.0], "depth-near": [0.01, 1000.0],
      "depth-far": [0.01, 1000.0], "depth-range-min": [0.0, 1.0, 1000.0], "depth-range-max": [0.0, 3.0],
      "depth-colormap": ["grey", "turbo"], "hole-color": [0, 0xffffffff]}),
])
def test_properties_from_other_threads(element, desc, values):
    p = Gst.parse_launch(desc)
    e = p.get_by_name("e")
    frames = _frames_out(e)
    p.set_state(Gst.State.PLAYING)
    try:
        assert p.get_state(60 * SECOND)[0] == Gst.StateChangeReturn.SUCCESS
        _hammer(e, values, frames)
        assert p.get_bus().pop_filtered(Gst.MessageType.ERROR) is None
        pos = p.query_position(Gst.Format.TIME)
        assert pos[0] and pos[1] > 0
    finally:
        p.set_state(Gst.State.NULL)


# ---- every property at its minimum, maximum and out of range ---------------------

def _edge_values(spec):
    """(in-range values, out-of-range values) for a numeric param spec."""
    t = spec.value_type
    if t in (GObject.TYPE_DOUBLE, GObject.TYPE_FLOAT):
        lo, hi = spec.minimum, spec.maximum
        return [lo, hi, (lo + hi) / 2], [lo - 1.0, hi + 1.0, float("nan"), float("inf"), float("-inf")]
    if t in (GObject.TYPE_INT, GObject.TYPE_INT64, GObject.TYPE_UINT, GObject.TYPE_UINT64):
        lo, hi = spec.minimum, spec.maximum
        c_lo = {GObject.TYPE_INT: -2 ** 31, GObject.TYPE_INT64: -2 ** 63}.get(t, 0)
        c_hi = {GObject.TYPE_INT: 2 ** 31 - 1, GObject.TYPE_UINT: 2 ** 32 - 1,
                GObject.TYPE_INT64: 2 ** 63 - 1, GObject.TYPE_UINT64: 2 ** 64 - 1}[t]
        out = [v for v in (lo - 1, hi + 1) if c_lo <= v <= c_hi]
        return [lo, hi], out
    return None, None


def _own(element):
    """Every property the element itself installs (its property table)."""
    e = Gst.ElementFactory.make(element)
    return [p.name for p in e.list_properties()
            if p.owner_type == e.__gtype__ and p.flags & GObject.ParamFlags.WRITABLE]


# properties the element documents as writable (all of them: its own table)
OWN = {name: _own(name) for name in ELEMENTS}


@pytest.mark.parametrize("element", ELEMENTS)
def test_every_property_min_max_and_out_of_range(element):
    e = Gst.ElementFactory.make(element)
    checked = 0
    for name in OWN[element]:
        spec = e.find_property(name)
        assert spec is not None, name
        ok, bad = _edge_values(spec)
        if ok is None:
            if spec.value_type == GObject.TYPE_BOOLEAN:
                for v in (True, False):
                    e.set_property(name, v)
                    assert e.get_property(name) == v
            elif spec.value_type.is_a(GObject.TYPE_ENUM):
                klass = spec.enum_class
                for v in klass.__enum_values__.values():
                    e.set_property(name, v)
                    assert int(e.get_property(name)) == int(v)
                before = int(e.get_property(name))
                with pytest.warns(Warning):
                    e.set_property(name, 9999)
                assert int(e.get_property(name)) == before
            checked += 1
            continue
        for v in ok:
            e.set_property(name, v)
            assert e.get_property(name) == pytest.approx(v), (name, v)
        for v in bad:
            before = e.get_property(name)
            with pytest.warns(Warning, match="out of range"):
                e.set_property(name, v)
            assert e.get_property(name) == before, (name, v)
        checked += 1
    assert checked == len(OWN[element])


@pytest.mark.parametrize("element", ["depthmatte", "sparkle", "framestack", "rgbdtestsrc", "depthview"])
@pytest.mark.parametrize("edge", ["minimum", "maximum"])
def test_pipeline_runs_with_every_property_at_an_edge(element, edge):
    """All numeric properties at their minimum (or maximum) at once, data
    flowing: no crash, no error."""
    descs = {
        "depthmatte": "depthmatte name=e ! fakesink "
                      "rgbdtestsrc num-buffers=4 ! video/x-raw,width=24,height=16 ! e.video "
                      "rgbdtestsrc stream=depth num-buffers=4 ! video/x-raw,width=12,height=8 ! e.depth",
        "sparkle": "rgbdtestsrc num-buffers=4 ! video/x-raw,format=BGRA,width=24,height=16 ! sparkle name=e ! "
                   "fakesink",
        "framestack": "rgbdtestsrc num-buffers=4 ! video/x-raw,width=24,height=16 ! framestack name=e ! fakesink",
        "rgbdtestsrc": "rgbdtestsrc name=e num-buffers=4 stream=depth ! video/x-raw,width=24,height=16 ! fakesink",
        "depthview": "rgbdtestsrc num-buffers=4 stream=depth ! video/x-raw,width=24,height=16 ! depthview name=e ! "
                     "fakesink",
    }
    p = Gst.parse_launch(descs[element])
    e = p.get_by_name("e")
    for name in OWN[element]:
        spec = e.find_property(name)
        if name == "frames" and edge == "maximum":
            e.set_property(name, 8)       # 128 frames of memory is fine but slow to fill
            continue
        if hasattr(spec, "minimum") and spec.value_type != GObject.TYPE_BOOLEAN:
            e.set_property(name, getattr(spec, edge))
    errors, _ = run(p)
    assert errors == []


# ---- leaks (quick; the full valgrind run is scripts/leakcheck) ----------------------

def test_leaks_tracer_finds_no_live_objects():
    env = {**os.environ, "GST_TRACERS": "leaks", "GST_DEBUG": "*:1,GST_TRACER:7"}
    desc = ("depthmatte name=m ! sparkle interval=0 ! framestack frames=2 ! fakesink "
            "rgbdtestsrc num-buffers=6 ! video/x-raw,format=BGRA,width=32,height=24 ! m.video "
            "rgbdtestsrc stream=depth num-buffers=6 ! video/x-raw,width=16,height=12 ! m.depth "
            "videotestsrc num-buffers=6 ! video/x-raw,width=8,height=8 ! m.background")
    r = subprocess.run(["gst-launch-1.0", "-q"] + desc.split(), capture_output=True, text=True, env=env,
                       timeout=60)
    assert r.returncode == 0, r.stderr[-2000:]
    assert "object-alive" in r.stderr, "the leaks tracer did not load"
    leaks = [line for line in r.stderr.splitlines() if "object-alive, type-name=(string)G" in line]
    assert not leaks, "\n".join(leaks[:20])


# ---- the worker pool's threads -----------------------------------------------------

def test_worker_threads_are_named():
    # the row bands' threads carry a name (top -H, perf, gdb show it)
    p = Gst.parse_launch("depthmatte name=m n-threads=3 ! fakesink "
                         "rgbdtestsrc num-buffers=5 ! video/x-raw,width=1280,height=720 ! m.video "
                         "rgbdtestsrc stream=depth num-buffers=5 ! video/x-raw,width=640,height=360 ! m.depth")
    p.set_state(Gst.State.PLAYING)
    try:
        m = p.get_bus().timed_pop_filtered(20 * SECOND, Gst.MessageType.EOS | Gst.MessageType.ERROR)
        assert m is not None and m.type == Gst.MessageType.EOS
        names = set()
        for t in os.listdir("/proc/self/task"):
            try:
                names.add(open(f"/proc/self/task/{t}/comm").read().strip())
            except OSError:
                pass
        assert {"dm-worker-1", "dm-worker-2"} <= names, names
    finally:
        p.set_state(Gst.State.NULL)
