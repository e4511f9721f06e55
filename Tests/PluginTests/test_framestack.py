# SPDX-License-Identifier: LGPL-2.1-or-later
"""framestack in real pipelines: exact stacks for both methods and modes,
timestamps and framerates, EOS partial stacks, caps changes mid-stack,
flushes, alignment with borders, and the per-output message."""
import warnings

import numpy as np
import pytest
from gi.repository import Gst

from harness import LAYOUT, SECOND, AppPipeline, appsrc, make_buffer, pixel_size, pixels

MS = Gst.MSECOND
NONE = Gst.CLOCK_TIME_NONE
FORMATS = ["RGBA", "BGRA", "RGBx", "BGRx", "ARGB", "ABGR", "xRGB", "xBGR", "RGB", "BGR"]


class Stack(AppPipeline):
    """appsrc -> framestack -> appsink, fed with raw byte frames (h, w, pixel_size)."""

    def __init__(self, props="", fmt="BGRx", size=(20, 12), fps="10/1"):
        self.fmt, self.size = fmt, size
        super().__init__(f"{appsrc('src', fmt, size, fps)} ! framestack name=fs {props} ! "
                         "appsink name=sink sync=false emit-signals=false max-buffers=1000")
        self.src = self.pipeline.get_by_name("src")
        self.fs = self.pipeline.get_by_name("fs")
        self.play()

    def push(self, arr, pts, duration):
        self.src.emit("push-buffer", make_buffer(np.ascontiguousarray(arr), pts, duration))

    def set_size(self, size):
        self.size = size
        w, h = size
        self.src.set_property("caps", Gst.Caps.from_string(
            f"video/x-raw,format={self.fmt},width={w},height={h},framerate=10/1"))

    def end(self):
        self.src.emit("end-of-stream")

    def pull(self, timeout=5):
        """(pixels (h, w, ps), caps structure, pts, duration) of the next output."""
        sample = self.pull_sample(timeout)
        buf = sample.get_buffer()
        return pixels(sample), sample.get_caps().get_structure(0), buf.pts, buf.duration

    def messages(self):
        return super().messages("framestack")


def array(s, field):
    """A GstValueArray field as a list (no gst-python overrides needed)."""
    ok, a = s.get_array(field)
    assert ok, field
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        return [a.get_nth(i) for i in range(a.n_values)]


def random_frames(n, size, ps, seed):
    rng = np.random.default_rng(seed)
    w, h = size
    return [rng.integers(0, 256, (h, w, ps), dtype=np.uint8) for _ in range(n)]


def median_of(frames):
    s = np.sort(np.stack(frames).astype(np.int32), axis=0)
    n = len(frames)
    if n % 2:
        return s[n // 2].astype(np.uint8)
    return ((s[n // 2 - 1] + s[n // 2] + 1) // 2).astype(np.uint8)


def mean_of(frames):
    n = len(frames)
    return ((np.stack(frames).astype(np.int32).sum(axis=0) + n // 2) // n).astype(np.uint8)


@pytest.fixture
def stacks():
    made = []

    def make(*args, **kw):
        st = Stack(*args, **kw)
        made.append(st)
        return st
    yield make
    for st in made:
        st.stop()


# ---- exact results ---------------------------------------------------------------

@pytest.mark.parametrize("fmt", FORMATS)
def test_every_format_batch_median_is_exact(stacks, fmt):
    st = stacks("frames=3 align=none method=median", fmt=fmt)
    frames = random_frames(3, st.size, pixel_size(fmt), seed=1)
    for k, f in enumerate(frames):
        st.push(f, k * 100 * MS, 100 * MS)
    img, s, pts, dur = st.pull()
    assert s.get_value("format") == fmt
    assert (s.get_value("width"), s.get_value("height")) == st.size
    assert tuple(s.get_fraction("framerate"))[1:] == (10, 3)
    assert (pts, dur) == (0, 300 * MS)
    np.testing.assert_array_equal(img, median_of(frames))


@pytest.mark.parametrize("method,n,ref", [("median", 4, median_of), ("mean", 5, mean_of), ("mean", 4, mean_of)])
def test_batch_methods_round_exactly(stacks, method, n, ref):
    st = stacks(f"frames={n} align=none method={method}")
    frames = random_frames(n, st.size, 4, seed=n)
    for k, f in enumerate(frames):
        st.push(f, k * 100 * MS, 100 * MS)
    img, _, _, _ = st.pull()
    np.testing.assert_array_equal(img, ref(frames))


def test_median_removes_passer_by_mean_keeps_a_ghost(stacks):
    w, h = 24, 16
    bg = random_frames(1, (w, h), 4, seed=3)[0]
    frames = []
    for k in range(5):
        f = bg.copy()
        if k in (1, 3):                       # present in 2 of 5 frames
            f[4:12, 6 + 4 * k: 14 + 4 * k] = (255, 0, 255, 255)
        frames.append(f)
    med = stacks("frames=5 align=none method=median", size=(w, h))
    mean = stacks("frames=5 align=none method=mean", size=(w, h))
    for k, f in enumerate(frames):
        med.push(f, k * 100 * MS, 100 * MS)
        mean.push(f, k * 100 * MS, 100 * MS)
    np.testing.assert_array_equal(med.pull()[0], bg)
    assert np.abs(mean.pull()[0].astype(int) - bg).max() > 40


@pytest.mark.parametrize("method,ref", [("median", median_of), ("mean", mean_of)])
def test_sliding_window_exact_timestamps_and_rate(stacks, method, ref):
    st = stacks(f"frames=3 align=none method={method} mode=sliding", fps="25/1")
    frames = random_frames(6, st.size, 4, seed=9)
    for k, f in enumerate(frames):
        st.push(f, SECOND + k * 40 * MS, 40 * MS)
        img, s, pts, dur = st.pull()
        assert tuple(s.get_fraction("framerate"))[1:] == (25, 1)
        assert (pts, dur) == (SECOND + k * 40 * MS, 40 * MS)
        np.testing.assert_array_equal(img, ref(frames[max(0, k - 2): k + 1]))
    msgs = st.messages()
    assert [m.get_value("frames") for m in msgs] == [1, 2, 3, 3, 3, 3]
    assert array(msgs[-1], "frame-timestamps") == [SECOND + k * 40 * MS for k in (3, 4, 5)]


# ---- timestamps, EOS, caps ---------------------------------------------------------

def test_batch_timestamps_and_partial_stack_at_eos(stacks):
    st = stacks("frames=4 align=none method=median", fps="25/1")
    frames = random_frames(10, st.size, 4, seed=4)
    for k, f in enumerate(frames):
        st.push(f, 2 * SECOND + k * 40 * MS, 40 * MS)
    st.end()
    out = [st.pull() for _ in range(3)]
    assert st.pull_eos()
    assert [(o[2], o[3]) for o in out] == [
        (2 * SECOND, 160 * MS), (2 * SECOND + 160 * MS, 160 * MS), (2 * SECOND + 320 * MS, 80 * MS)]
    assert all(tuple(o[1].get_fraction("framerate"))[1:] == (25, 4) for o in out)
    np.testing.assert_array_equal(out[0][0], median_of(frames[0:4]))
    np.testing.assert_array_equal(out[1][0], median_of(frames[4:8]))
    np.testing.assert_array_equal(out[2][0], median_of(frames[8:10]))   # partial: 2 frames
    assert [m.get_value("frames") for m in st.messages()] == [4, 4, 2]


def test_batch_duration_without_buffer_durations(stacks):
    st = stacks("frames=3 align=none")
    for k in range(3):
        st.push(random_frames(1, st.size, 4, seed=k)[0], k * 100 * MS, NONE)
    _, _, pts, dur = st.pull()
    assert (pts, dur) == (0, 300 * MS)     # the frames' spacing, times N


def test_unknown_input_rate_gives_unknown_output_rate(stacks):
    st = stacks("frames=2 align=none", fps="0/1")
    for k in range(2):
        st.push(random_frames(1, st.size, 4, seed=k)[0], k * 100 * MS, 100 * MS)
    _, s, _, _ = st.pull()
    assert tuple(s.get_fraction("framerate"))[1:] == (0, 1)


def test_size_change_mid_stack_pushes_partial_then_restarts(stacks):
    st = stacks("frames=3 align=none method=median")
    big = random_frames(2, (20, 12), 4, seed=5)
    small = random_frames(3, (8, 6), 4, seed=6)
    for k, f in enumerate(big):
        st.push(f, k * 100 * MS, 100 * MS)
    st.set_size((8, 6))
    for k, f in enumerate(small):
        st.push(f, (2 + k) * 100 * MS, 100 * MS)
    img1, s1, pts1, dur1 = st.pull()
    img2, s2, pts2, dur2 = st.pull()
    assert (s1.get_value("width"), s1.get_value("height")) == (20, 12)
    assert (pts1, dur1) == (0, 200 * MS)
    np.testing.assert_array_equal(img1, median_of(big))
    assert (s2.get_value("width"), s2.get_value("height")) == (8, 6)
    assert (pts2, dur2) == (200 * MS, 300 * MS)
    np.testing.assert_array_equal(img2, median_of(small))
    assert [m.get_value("frames") for m in st.messages()] == [2, 3]


def test_flush_drops_collected_frames(stacks):
    st = stacks("frames=3 align=none method=median")
    old = random_frames(2, st.size, 4, seed=7)
    new = random_frames(3, st.size, 4, seed=8)
    for k, f in enumerate(old):
        st.push(f, k * 100 * MS, 100 * MS)
    # let the two buffers reach framestack before flushing
    Gst.Bus.timed_pop_filtered(st.bus, 200 * MS, Gst.MessageType.ERROR)
    sinkpad = st.fs.get_static_pad("sink")
    assert sinkpad.send_event(Gst.Event.new_flush_start())
    assert sinkpad.send_event(Gst.Event.new_flush_stop(False))
    seg = Gst.Segment()
    seg.init(Gst.Format.TIME)
    assert sinkpad.send_event(Gst.Event.new_segment(seg))
    for k, f in enumerate(new):
        st.push(f, (5 + k) * 100 * MS, 100 * MS)
    img, _, pts, _ = st.pull()
    assert pts == 500 * MS
    np.testing.assert_array_equal(img, median_of(new))


# ---- alignment, borders and the message -------------------------------------------

def texture(w, h, seed):
    rng = np.random.default_rng(seed)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float64)
    out = np.full((h, w, 3), 128.0)
    for c in range(3):
        for _ in range(7):
            lam, th, ph = 9 + 30 * rng.random(), 2 * np.pi * rng.random(), 2 * np.pi * rng.random()
            f = 2 * np.pi / lam
            out[..., c] += (8 + 10 * rng.random()) * np.sin(f * np.cos(th) * xx + f * np.sin(th) * yy + ph)
    return np.clip(np.rint(out), 0, 255).astype(np.uint8)


def test_translation_alignment_borders_and_message(stacks):
    w, h, m = 96, 72, 8
    canvas = texture(w + 2 * m, h + 2 * m, seed=11)
    shifts = [(0, 0), (3, -2), (-4, 1), (2, 4), (-1, -3)]   # content displacement, px

    def frame(dx, dy):
        rgb = canvas[m - dy: m - dy + h, m - dx: m - dx + w]
        f = np.full((h, w, 4), 255, np.uint8)
        f[..., LAYOUT["BGRx"][0]], f[..., 1], f[..., LAYOUT["BGRx"][2]] = rgb[..., 0], rgb[..., 1], rgb[..., 2]
        return f

    reference = frame(0, 0)
    st = stacks("frames=5 method=median align=translation max-shift=8", size=(w, h))
    for k, (dx, dy) in enumerate(shifts):
        f = frame(dx, dy)
        if k in (1, 3):                                   # a passer-by in 2 of 5
            f[20:50, 10 + 10 * k: 30 + 10 * k, :3] = (0, 255, 0)
        st.push(f, k * 200 * MS, 200 * MS)
    img, _, pts, dur = st.pull()
    assert (pts, dur) == (0, SECOND)
    (msg,) = st.messages()
    sx, sy = array(msg, "shift-x"), array(msg, "shift-y")
    assert np.allclose(sx, [s[0] for s in shifts], atol=0.1), sx
    assert np.allclose(sy, [s[1] for s in shifts], atol=0.1), sy
    assert array(msg, "registered") == [True] * 5
    assert array(msg, "frame-timestamps") == [k * 200 * MS for k in range(5)]
    # region every frame covers, and per-pixel sample counts
    xs = [dx for dx, _ in shifts]
    ys = [dy for _, dy in shifts]
    full = (max(0, -min(xs)), max(0, -min(ys)))
    full_w = w - max(0, max(xs)) - full[0]
    full_h = h - max(0, max(ys)) - full[1]
    assert (msg.get_value("full-x"), msg.get_value("full-y"),
            msg.get_value("full-width"), msg.get_value("full-height")) == (full[0], full[1], full_w, full_h)
    yy, xx = np.mgrid[0:h, 0:w]
    count = sum(((xx + dx >= 0) & (xx + dx < w) & (yy + dy >= 0) & (yy + dy < h)).astype(int) for dx, dy in shifts)
    counts = array(msg, "sample-counts")
    assert counts == [int((count == k).sum()) for k in range(6)]
    assert msg.get_value("min-samples") == int(count.min())
    assert msg.get_value("border-pixels") == int((count < 5).sum())
    # the passer-by is gone and the borders are the scene, not dark or smeared
    diff = np.abs(img[..., :3].astype(int) - reference[..., :3])
    inside = count >= 3        # where the passer-by is in fewer than half the samples
    assert diff[inside].max() <= 2
    assert diff[:, :4].max() <= 2 and diff[:, -4:].max() <= 2      # left/right borders
    assert diff[:3].max() <= 2 and diff[-4:].max() <= 2            # top/bottom borders


def test_message_fields_and_types(stacks):
    st = stacks("frames=2 align=none")
    for k in range(2):
        st.push(random_frames(1, st.size, 4, seed=k)[0], k * 100 * MS, 100 * MS)
    st.pull()
    (s,) = st.messages()
    for name, typ in [("timestamp", int), ("stream-time", int), ("running-time", int), ("duration", int),
                      ("frames", int), ("min-samples", int), ("border-pixels", int),
                      ("full-x", int), ("full-y", int), ("full-width", int), ("full-height", int)]:
        assert isinstance(s.get_value(name), typ), name
    assert len(array(s, "shift-x")) == len(array(s, "shift-y")) == len(array(s, "registered")) == 2
    assert sum(array(s, "sample-counts")) == 20 * 12
    st.fs.set_property("post-messages", False)
    for k in range(2):
        st.push(random_frames(1, st.size, 4, seed=k)[0], (2 + k) * 100 * MS, 100 * MS)
    st.pull()
    assert st.messages() == []


def test_properties_are_documented_with_ranges():
    fs = Gst.ElementFactory.make("framestack")
    p = {s.name: s for s in fs.list_properties()}
    assert (p["frames"].minimum, p["frames"].maximum, p["frames"].default_value) == (1, 128, 20)
    assert (p["max-shift"].minimum, p["max-shift"].default_value) == (0.0, 64.0)
    assert fs.get_property("method").value_nick == "median"
    assert fs.get_property("align").value_nick == "translation"
    assert fs.get_property("mode").value_nick == "batch"
    for name in ("frames", "method", "align", "max-shift", "mode", "post-messages"):
        assert p[name].blurb


def test_batch_mode_reports_added_latency():
    pipe = Gst.parse_launch("videotestsrc is-live=true ! video/x-raw,format=BGRx,width=32,height=24,"
                            "framerate=10/1 ! framestack frames=5 align=none ! fakesink name=sink")
    try:
        pipe.set_state(Gst.State.PLAYING)
        assert pipe.get_state(5 * SECOND)[0] == Gst.StateChangeReturn.SUCCESS
        q = Gst.Query.new_latency()
        assert pipe.get_by_name("sink").get_static_pad("sink").peer_query(q)
        live, lo, hi = q.parse_latency()
        assert live and lo >= 400 * MS
    finally:
        pipe.set_state(Gst.State.NULL)
