# SPDX-License-Identifier: LGPL-2.1-or-later
"""GstController on every element: a control source bound to a property moves
it with stream time, and the element's output follows (messages or pixels).
The elements must sync their own control bindings per buffer; depthmatte, a
GstVideoAggregator, once did not (only its pads were synced)."""
import numpy as np
import pytest
import gi

gi.require_version("GstController", "1.0")
from gi.repository import Gst, GstController, GstVideo  # noqa: E402

from harness import SECOND, bus_messages  # noqa: E402


def ramp(element, prop, points):
    """An absolute linear ramp of `prop` through (seconds, value) points."""
    cs = GstController.InterpolationControlSource()
    cs.set_property("mode", GstController.InterpolationMode.LINEAR)
    for t, v in points:
        assert cs.set(int(t * SECOND), float(v))
    binding = GstController.DirectControlBinding.new_absolute(element, prop, cs)
    assert element.add_control_binding(binding)
    return cs


def run(desc, setup, sink="sink"):
    """Run `desc` to EOS; returns (samples as (pts, ndarray rows), element messages)."""
    p = Gst.parse_launch(desc)
    keep = setup(p)  # noqa: F841  (control sources must outlive the run)
    appsink = p.get_by_name(sink)
    p.set_state(Gst.State.PLAYING)
    frames = []
    while (s := appsink.emit("try-pull-sample", 20 * SECOND)) is not None:
        buf = s.get_buffer()
        info = GstVideo.VideoInfo.new_from_caps(s.get_caps())
        ok, mi = buf.map(Gst.MapFlags.READ)
        rows = np.frombuffer(mi.data, np.uint8)[: info.stride[0] * info.height].reshape(info.height, -1).copy()
        buf.unmap(mi)
        frames.append((buf.pts, rows, info))
    msgs = bus_messages(p)
    p.set_state(Gst.State.NULL)
    return frames, msgs


def depthmatte_ramp(mode, n, prop, points):
    """depthmatte in `mode` keying n frames of rgbdtestsrc while `prop` follows
    a ramp through `points`: the depthmatte messages."""
    desc = (f"depthmatte name=m mode={mode} ! appsink name=sink sync=false "
            f"rgbdtestsrc num-buffers={n} ! video/x-raw,format=BGRx,width=160,height=90,framerate=30/1 ! m.video "
            f"rgbdtestsrc stream=depth num-buffers={n} ! video/x-raw,width=80,height=45,framerate=30/1 ! m.depth")
    _, msgs = run(desc, lambda p: ramp(p.get_by_name("m"), prop, points))
    return [m for m in msgs if m.get_name() == "depthmatte"]


def test_depthmatte_cutoff_follows_a_ramp():
    """cutoff ramped 0.5 -> 3.0 m over one second in mode=fixed;
    every frame's message reports the ramp's value at its time."""
    n = 31
    msgs = depthmatte_ramp("fixed", n, "cutoff", [(0, 0.5), (1, 3.0)])
    assert len(msgs) == n
    for m in msgs:
        t = m.get_value("stream-time") / SECOND
        assert m.get_value("cutoff") == pytest.approx(0.5 + 2.5 * min(t, 1.0), abs=1e-6)
    # and the matte with it: at 3 m the wall (about 2.5 m) is keyed in
    assert msgs[-1].get_value("coverage") > msgs[0].get_value("coverage") + 0.3


def test_depthmatte_focus_follows_a_ramp():
    """The depth-maps sample's slider, driven in time: focus in mode=highpass."""
    msgs = depthmatte_ramp("highpass", 16, "focus", [(0, 0.6), (0.5, 2.6)])
    got = [m.get_value("cutoff") for m in msgs]
    want = [0.6 + 4.0 * min(m.get_value("stream-time") / SECOND, 0.5) for m in msgs]
    assert got == pytest.approx(want, abs=1e-6)
    assert msgs[-1].get_value("coverage") > msgs[0].get_value("coverage")


def test_depthview_range_follows_a_ramp():
    """depth-range-max ramped 2 -> 8 m on a flat 2 m depth: grey falls from black
    (at the far end) towards white."""
    n = 10
    desc = ("videotestsrc num-buffers=10 pattern=black ! video/x-raw,format=GRAY16_LE,width=16,height=8,framerate=10/1 "
            "! identity name=fill ! depthview name=v depth-colormap=grey depth-range-min=1 "
            "! video/x-raw,format=BGRx ! appsink name=sink sync=false")

    def setup(p):
        def fill(_, buf):  # 2 m everywhere
            buf.fill(0, np.full(16 * 8, 2000, "<u2").tobytes())
        p.get_by_name("fill").connect("handoff", fill)
        return ramp(p.get_by_name("v"), "depth-range-max", [(0, 2.0), (0.9, 8.0)])
    frames, _ = run(desc, setup)
    assert len(frames) == n
    grey = [int(rows[0, 0]) for _, rows, _ in frames]
    for (pts, _, _), g in zip(frames, grey):
        far = 2.0 + 6.0 * min(pts / SECOND / 0.9, 1.0)
        assert g == pytest.approx(255 * (far - 2.0) / (far - 1.0), abs=2)
    assert grey[0] <= 2 and grey[-1] > 200


def test_rgbdtestsrc_depth_scale_follows_a_ramp():
    """depth-scale ramped 1 mm -> 2 mm per unit: the same scene's values halve."""
    n = 5
    desc = (f"rgbdtestsrc name=s stream=depth motion=false num-buffers={n} ! "
            "video/x-raw,width=32,height=18,framerate=4/1 ! appsink name=sink sync=false")
    frames, _ = run(desc, lambda p: ramp(p.get_by_name("s"), "depth-scale", [(0, 0.001), (1, 0.002)]))
    first = frames[0][1].view("<u2").astype(np.float64)
    for pts, rows, _ in frames:
        scale = 0.001 + 0.001 * pts / SECOND
        d = rows.view("<u2").astype(np.float64)
        assert np.median(d) == pytest.approx(np.median(first) * 0.001 / scale, rel=0.01)


def test_sparkle_max_sparkles_follows_a_ramp():
    """max-sparkles ramped 0 -> 200 on a white picture: the live glints follow."""
    desc = ("videotestsrc num-buffers=20 pattern=white ! video/x-raw,format=BGRx,width=64,height=48,framerate=10/1 "
            "! sparkle name=s interval=0 ! appsink name=sink sync=false")
    _, msgs = run(desc, lambda p: ramp(p.get_by_name("s"), "max-sparkles", [(0, 0), (1.9, 190)]))
    msgs = [m for m in msgs if m.get_name() == "sparkle"]
    assert len(msgs) == 20
    assert msgs[0].get_value("sparkles") == 0
    targets = [round(100 * m.get_value("stream-time") / SECOND) for m in msgs]
    got = [m.get_value("sparkles") for m in msgs]
    assert got[-1] >= 0.8 * targets[-1] > 100
    assert all(a <= b + 2 for a, b in zip(got, got[1:]))   # grows with the ramp


def test_framestack_max_shift_follows_a_ramp():
    """max-shift ramped 0 -> 16 px in sliding mode on a picture that moves 2 px per
    frame: with no search range nothing is registered as shifted, later the
    measured shifts appear."""
    desc = ("videotestsrc num-buffers=12 pattern=smpte horizontal-speed=2 ! "
            "video/x-raw,format=BGRx,width=96,height=64,framerate=10/1 ! "
            "framestack name=f mode=sliding frames=3 ! appsink name=sink sync=false")
    _, msgs = run(desc, lambda p: ramp(p.get_by_name("f"), "max-shift", [(0, 0), (0.5, 0), (0.6, 16)]))
    msgs = [m for m in msgs if m.get_name() == "framestack"]
    assert len(msgs) == 12

    def biggest(m):
        return max(abs(v) for v in m.get_value("shift-x"))
    early = [biggest(m) for m in msgs if m.get_value("timestamp") < 0.5 * SECOND]
    late = [biggest(m) for m in msgs if m.get_value("timestamp") >= 0.7 * SECOND]
    assert max(early) < 0.5
    assert min(late) > 1.5


# Every element in a pipeline where it sees buffers (the element is named "e").
EVERY = {
    "depthmatte": "depthmatte name=e ! fakesink rgbdtestsrc num-buffers=6 ! video/x-raw,width=32,height=18 ! e.video "
                  "rgbdtestsrc stream=depth num-buffers=6 ! video/x-raw,width=16,height=9 ! e.depth",
    "rgbdtestsrc": "rgbdtestsrc name=e num-buffers=6 stream=depth ! video/x-raw,width=16,height=9 ! fakesink",
    "sparkle": "videotestsrc num-buffers=6 ! video/x-raw,format=BGRx,width=32,height=18 ! sparkle name=e ! fakesink",
    "framestack": "videotestsrc num-buffers=6 ! video/x-raw,format=BGRx,width=32,height=18 ! framestack name=e "
                  "mode=sliding frames=2 ! fakesink",
    "depthview": "rgbdtestsrc num-buffers=6 stream=depth ! video/x-raw,width=16,height=9 ! depthview name=e ! fakesink",
    "depthalign": "rgbdtestsrc num-buffers=6 stream=depth calibration={cal} ! depthalign name=e calibration={cal} ! "
                  "fakesink",
}


def controlled_value(spec):
    """A value inside the property's range, away from its default."""
    lo, hi = spec.minimum, spec.maximum
    if spec.value_type.name in ("gdouble", "gfloat"):
        hi = min(hi, lo + 100.0)
        v = lo + 0.37 * (hi - lo)
        return v if abs(v - spec.default_value) > 1e-9 else lo + 0.61 * (hi - lo)
    hi = min(hi, lo + 1000)
    v = lo + (hi - lo) // 3
    return v if v != spec.default_value else lo + (hi - lo) // 2


@pytest.mark.parametrize("element", list(EVERY))
def test_every_controllable_property_follows_its_control_source(element, tmp_path):
    """Each controllable numeric property of each element, bound to a control
    source holding one value: after the element saw buffers, the property reads
    that value (the element synced its bindings). Enum and boolean properties
    are controllable too; they are bound the same way."""
    from gi.repository import GObject
    from test_depthalign import write_calibration
    cal = write_calibration(tmp_path / "pair.json")
    p = Gst.parse_launch(EVERY[element].format(cal=cal))
    e = p.get_by_name("e")
    want, keep = {}, []
    for spec in e.list_properties():
        if spec.owner_type != e.__gtype__ or not spec.flags & Gst.PARAM_CONTROLLABLE:
            continue
        t = spec.value_type
        control = None
        if t.is_a(GObject.TYPE_ENUM):
            # GstDirectControlBinding maps a control value 0..1 onto the
            # enum's values in order, in absolute mode too
            values = sorted(int(x) for x in spec.enum_class.__enum_values__)
            v = next(x for x in values if x != int(spec.default_value))
            control = values.index(v) / (len(values) - 1)
        elif t == GObject.TYPE_BOOLEAN:
            v = int(not spec.default_value)
        elif t in (GObject.TYPE_DOUBLE, GObject.TYPE_FLOAT, GObject.TYPE_INT, GObject.TYPE_UINT,
                   GObject.TYPE_INT64, GObject.TYPE_UINT64):
            v = controlled_value(spec)
        else:
            continue
        cs = GstController.InterpolationControlSource()
        cs.set_property("mode", GstController.InterpolationMode.NONE)
        assert cs.set(0, float(v if control is None else control))
        assert e.add_control_binding(GstController.DirectControlBinding.new_absolute(e, spec.name, cs))
        want[spec.name] = v
        keep.append(cs)
    assert want, "no controllable property"
    p.set_state(Gst.State.PLAYING)
    msg = p.get_bus().timed_pop_filtered(20 * SECOND, Gst.MessageType.EOS | Gst.MessageType.ERROR)
    p.set_state(Gst.State.NULL)
    assert msg is not None and msg.type == Gst.MessageType.EOS, msg and msg.parse_error()
    for name, v in want.items():
        got = e.get_property(name)
        got = int(got) if not isinstance(got, float) else got
        assert got == pytest.approx(v, rel=1e-6, abs=1e-9), (element, name, got, v)
