# SPDX-License-Identifier: LGPL-2.1-or-later
"""sparkle in real pipelines: brightness readings, the bus messages and their
interval, the brightness -> glint count mapping, reproducibility, alpha gating,
and the pure-meter mode."""
import math

import numpy as np
import pytest
from gi.repository import Gst

from harness import LAYOUT, SECOND, AppPipeline, appsrc, make_buffer, pixel_size, pixels, rgb_frame

W, H = 160, 120
FORMATS = ["RGBA", "BGRA", "ARGB", "ABGR", "RGBx", "BGRx", "xRGB", "xBGR", "RGB", "BGR"]
ALPHA_FORMATS = ["RGBA", "BGRA", "ARGB", "ABGR"]
MS = Gst.MSECOND


def mean_rgb(rgb):
    return sum(rgb) / (3 * 255)


def rec709(rgb):
    r, g, b = rgb
    return (0.2126 * r + 0.7152 * g + 0.0722 * b) / 255


def target(brightness, max_sparkles, threshold):
    """The documented mapping (round half away from zero)."""
    f = min(1.0, max(0.0, (brightness - threshold) / (1 - threshold)))
    return int(math.floor(max_sparkles * f + 0.5))


class Sparkle(AppPipeline):
    """appsrc -> sparkle -> appsink, pushed and pulled one frame at a time."""

    def __init__(self, props="", fmt="BGRx", size=(W, H), fps=30):
        self.fmt, self.size, self.fps = fmt, size, fps
        self.n = 0
        super().__init__(f"{appsrc('src', fmt, size, f'{fps}/1')} ! sparkle name=s {props} ! "
                         "appsink name=sink sync=false max-buffers=10000")
        self.element = self.pipeline.get_by_name("s")
        self.src = self.pipeline.get_by_name("src")
        self.play()

    def pts(self, n):
        return Gst.util_uint64_scale(n, SECOND, self.fps)

    def push(self, frame):
        """frame: an (h, w, pixel_size) uint8 array or an (r, g, b) colour."""
        if not isinstance(frame, np.ndarray):
            frame = rgb_frame(self.fmt, self.size[0], self.size[1], frame)
        pts = self.pts(self.n)
        self.src.emit("push-buffer", make_buffer(frame, pts, self.pts(self.n + 1) - pts))
        self.n += 1

    def pull(self, timeout=5):
        return pixels(self.pull_sample(timeout))

    def run(self, frames):
        """Push and pull each frame; returns the output frames."""
        out = []
        for f in frames:
            self.push(f)
            out.append(self.pull())
        return out

    def messages(self):
        return super().messages("sparkle", src=self.element)


def run_sparkle(frames, **kw):
    s = Sparkle(**kw)
    try:
        out = s.run(frames)
        return out, s.messages()
    finally:
        s.stop()


def alpha_frame(fmt, rgb, alpha):
    """A frame of an alpha format: flat colour rgb, alpha from an (H, W) array."""
    f = rgb_frame(fmt, alpha.shape[1], alpha.shape[0], rgb)
    f[..., LAYOUT[fmt][3]] = alpha
    return f


# ---- the meter -------------------------------------------------------------------


@pytest.mark.parametrize("fmt", FORMATS)
def test_flat_frame_brightness_every_format(fmt):
    colour = (200, 100, 50)
    out, msgs = run_sparkle([colour], fmt=fmt, props="draw=false")
    assert len(msgs) == 1
    assert abs(msgs[0].get_value("brightness") - mean_rgb(colour)) < 1e-3
    assert out[0].shape == (H, W, pixel_size(fmt))


@pytest.mark.parametrize("colour", [(0, 0, 0), (255, 255, 255), (128, 128, 128), (13, 77, 190),
                                    (255, 0, 0), (0, 255, 0), (0, 0, 255), (1, 2, 3)])
@pytest.mark.parametrize("measure", ["mean-rgb", "rec709-luma"])
def test_flat_frame_brightness_values(colour, measure):
    want = mean_rgb(colour) if measure == "mean-rgb" else rec709(colour)
    # an odd size, so the grid does not divide it evenly
    _, msgs = run_sparkle([colour] * 3, fmt="RGBA", size=(97, 61),
                          props=f"measure={measure} interval=0 grid-step=5")
    assert len(msgs) == 3
    for m in msgs:
        assert abs(m.get_value("brightness") - want) < 1e-3
        assert abs(m.get_value("brightness") - want) < 1e-12  # exact up to rounding, in fact


def test_grid_step_samples_the_documented_grid():
    # Only the pixels at (step/2 + i*step, step/2 + j*step) are read: make
    # exactly those white and the rest black.
    step = 8
    rgb = np.zeros((H, W, 3), np.uint8)
    rgb[step // 2::step, step // 2::step] = 255
    _, msgs = run_sparkle([rgb_frame("RGB", W, H, rgb)], fmt="RGB", props=f"grid-step={step} draw=false")
    assert msgs[0].get_value("brightness") == pytest.approx(1.0, abs=1e-12)
    _, msgs = run_sparkle([rgb_frame("RGB", W, H, rgb)], fmt="RGB", props="grid-step=1 draw=false")
    assert msgs[0].get_value("brightness") == pytest.approx(1 / step ** 2, abs=1e-12)


def test_videotestsrc_solid_colour_brightness():
    p = Gst.parse_launch(
        "videotestsrc pattern=solid-color foreground-color=0xff336699 num-buffers=12 ! "
        "video/x-raw,format=RGBx,width=320,height=240,framerate=30/1 ! sparkle name=s draw=false ! fakesink")
    try:
        p.set_state(Gst.State.PLAYING)
        bus = p.get_bus()
        readings = []
        while True:
            msg = bus.timed_pop_filtered(5 * SECOND, Gst.MessageType.ELEMENT | Gst.MessageType.EOS
                                         | Gst.MessageType.ERROR)
            assert msg is not None and msg.type != Gst.MessageType.ERROR
            if msg.type == Gst.MessageType.EOS:
                break
            if msg.get_structure().get_name() == "sparkle":
                readings.append(msg.get_structure())
    finally:
        p.set_state(Gst.State.NULL)
    # 12 frames at 30 fps, 200 ms interval: frames 0 and 6
    assert [r.get_value("running-time") for r in readings] == [0, 200 * MS]
    for r in readings:
        assert abs(r.get_value("brightness") - mean_rgb((0x33, 0x66, 0x99))) < 1e-3


# ---- messages and interval ----------------------------------------------------------


def test_message_fields_and_default_interval():
    s = Sparkle(fmt="BGRx", fps=30)
    try:
        assert s.element.get_property("interval") == 200 * MS
        s.run([(200, 200, 200)] * 60)  # 2 s
        msgs = s.messages()
    finally:
        s.stop()
    assert len(msgs) == 10
    for k, m in enumerate(msgs):
        assert m.get_name() == "sparkle"
        for field, gtype in [("timestamp", "guint64"), ("stream-time", "guint64"), ("running-time", "guint64"),
                             ("duration", "guint64"), ("brightness", "gdouble"), ("sparkles", "gint")]:
            assert m.has_field(field), field
            assert m.get_field_type(field).name == gtype, field
        assert m.get_value("timestamp") == 200 * MS * k
        assert m.get_value("stream-time") == 200 * MS * k
        assert m.get_value("running-time") == 200 * MS * k
        assert m.get_value("duration") in (33333333, 33333334)
        assert abs(m.get_value("brightness") - 200 / 255) < 1e-3


@pytest.mark.parametrize("fps, interval_ms, frames, expected", [
    (30, 200, 60, 10),   # 2 s: every 6th frame
    (10, 200, 20, 10),   # same stream time at another rate: every 2nd frame
    (60, 200, 120, 10),
    (30, 0, 30, 30),     # 0: every frame
    (30, 50, 60, 40),    # due every 50 ms: 20 readings a second even at 30 fps
    (30, 1000, 90, 3),
])
def test_interval_counts_readings_by_stream_time(fps, interval_ms, frames, expected):
    _, msgs = run_sparkle([(90, 90, 90)] * frames, fps=fps, props=f"interval={interval_ms * MS}")
    assert len(msgs) == expected
    times = [m.get_value("stream-time") for m in msgs]
    assert times[0] == 0
    if interval_ms:
        # each reading is at the first frame at or after its due time
        frame = SECOND / fps
        for k, t in enumerate(times):
            assert k * interval_ms * MS - 1000 <= t < k * interval_ms * MS + frame


def test_post_messages_false_posts_nothing():
    _, msgs = run_sparkle([(90, 90, 90)] * 10, props="post-messages=false")
    assert msgs == []


# ---- the glints ---------------------------------------------------------------------


@pytest.mark.parametrize("max_sparkles, threshold", [(40, 0.2), (64, 0.25), (17, 0.0), (100, 0.6)])
def test_sparkle_count_follows_mapping(max_sparkles, threshold):
    for grey in [0, 40, 51, 60, 100, 128, 171, 200, 254, 255]:
        b = grey / 255
        _, msgs = run_sparkle([(grey, grey, grey)] * 45, fmt="BGRx",
                              props=f"max-sparkles={max_sparkles} threshold={threshold} life={300 * MS}")
        assert len(msgs) == 8
        for m in msgs:
            assert abs(m.get_value("brightness") - b) < 1e-3
            assert m.get_value("sparkles") == target(b, max_sparkles, threshold), (grey, m.to_string())


def test_sparkle_count_follows_brightness_changes():
    frames = [(255, 255, 255)] * 12 + [(160, 160, 160)] * 12 + [(20, 20, 20)] * 12 + [(255, 255, 255)] * 12
    _, msgs = run_sparkle(frames, props="max-sparkles=50 threshold=0.2")
    counts = [m.get_value("sparkles") for m in msgs]
    want = [target(f[0] / 255, 50, 0.2) for f in frames[::6]]
    assert counts == want  # [50, 50, 31, 31, 0, 0, 50, 50]


def test_glints_are_added_never_darken_and_are_reproducible():
    frames = [(100, 110, 120)] * 30
    a, _ = run_sparkle(frames, props="seed=7 max-sparkles=40 threshold=0")
    b, _ = run_sparkle(frames, props="seed=7 max-sparkles=40 threshold=0")
    c, _ = run_sparkle(frames, props="seed=8 max-sparkles=40 threshold=0")
    src = rgb_frame("BGRx", W, H, frames[0])
    changed = sum(int((f != src).any(axis=2).sum()) for f in a)
    assert changed > 1000  # the glints are visible
    for f in a:
        assert (f >= src).all()  # added, not pasted
    assert all(np.array_equal(x, y) for x, y in zip(a, b))  # same seed: byte-identical
    assert not all(np.array_equal(x, y) for x, y in zip(a, c))  # another seed differs


def test_restart_from_ready_repeats_the_sequence():
    frames = [(180, 180, 180)] * 15
    s = Sparkle(props="seed=3 max-sparkles=30")
    try:
        first = s.run(frames)
        s.pipeline.set_state(Gst.State.READY)
        s.pipeline.set_state(Gst.State.PLAYING)
        s.n = 0
        second = s.run(frames)
    finally:
        s.stop()
    assert any((f != first[0]).any() for f in first[1:])
    assert all(np.array_equal(x, y) for x, y in zip(first, second))


def test_flushing_seek_restarts_the_sequence():
    p = Gst.parse_launch(
        "videotestsrc pattern=solid-color foreground-color=0xffc8c8c8 ! "
        "video/x-raw,format=BGRx,width=160,height=120,framerate=30/1 ! sparkle seed=5 ! "
        "appsink name=sink sync=false max-buffers=2")
    sink = p.get_by_name("sink")

    def pull(n):
        out = []
        for _ in range(n):
            sample = sink.emit("try-pull-sample", 5 * SECOND)
            assert sample is not None
            buf = sample.get_buffer()
            out.append((buf.pts, bytes(buf.extract_dup(0, buf.get_size()))))
        return out

    try:
        p.set_state(Gst.State.PLAYING)
        first = pull(20)
        assert p.seek_simple(Gst.Format.TIME, Gst.SeekFlags.FLUSH | Gst.SeekFlags.ACCURATE, 0)
        second = pull(20)
    finally:
        p.set_state(Gst.State.NULL)
    # frames queued before the seek may still arrive: line up on pts 0
    start = next(i for i, (pts, _) in enumerate(second) if pts == 0)
    second = second[start:]
    assert len(second) >= 10
    assert first[: len(second)] == second


def test_below_threshold_frames_are_untouched():
    frames = [(50, 60, 70)] * 20
    out, msgs = run_sparkle(frames, props="threshold=0.3")
    assert all(m.get_value("sparkles") == 0 for m in msgs)
    src = rgb_frame("BGRx", W, H, frames[0])
    assert all(np.array_equal(f, src) for f in out)


def test_draw_false_is_a_pure_meter():
    rng = np.random.default_rng(1)
    frames = [rgb_frame("BGRA", W, H, rng.integers(150, 256, (H, W, 3), np.uint8)) for _ in range(20)]
    for f in frames:
        f[..., 3] = rng.integers(0, 256, (H, W), np.uint8)
    out, msgs = run_sparkle(frames, fmt="BGRA", props="draw=false max-sparkles=100 threshold=0")
    assert all(np.array_equal(x, y) for x, y in zip(out, frames))
    assert len(msgs) == 4
    assert all(m.get_value("brightness") > 0.5 for m in msgs)


def test_draw_can_be_switched_while_playing():
    s = Sparkle(props="draw=false threshold=0 max-sparkles=50")
    try:
        src = rgb_frame("BGRx", W, H, (120, 120, 120))
        before = s.run([src] * 10)
        s.element.set_property("draw", True)
        after = s.run([src] * 10)
    finally:
        s.stop()
    assert all(np.array_equal(f, src) for f in before)
    assert any(not np.array_equal(f, src) for f in after)


# ---- alpha gating --------------------------------------------------------------------


def alpha_pattern():
    """Alpha: a disc of 255, bands just above (128) and just below (127) half,
    a band of 1 and zero elsewhere."""
    yy, xx = np.mgrid[0:H, 0:W]
    a = np.zeros((H, W), np.uint8)
    a[(xx - 50) ** 2 + (yy - 60) ** 2 < 35 ** 2] = 255
    a[:, 100:115] = 128
    a[:, 115:130] = 127
    a[:, 130:140] = 1
    return a


@pytest.mark.parametrize("fmt", ALPHA_FORMATS)
def test_glints_only_where_alpha_above_half(fmt):
    alpha = alpha_pattern()
    src = alpha_frame(fmt, (140, 140, 140), alpha)
    out, msgs = run_sparkle([src] * 40, fmt=fmt, props="max-sparkles=200 threshold=0 size=0.1 seed=11")
    inside = alpha > 127
    a_off = LAYOUT[fmt][3]
    changed_inside = 0
    for f in out:
        changed = (f != src).any(axis=2)
        assert not changed[~inside].any(), "a glint touched a pixel with alpha <= 0.5"
        assert np.array_equal(f[..., a_off], alpha)  # alpha left untouched
        changed_inside += int(changed[inside].sum())
    assert changed_inside > 1000
    assert (out[-1][..., list(LAYOUT[fmt][:3])][alpha == 128] != 140).any()  # 128 counts as above half
    # ~30 % of the frame is above half: a few placements (16 random tries
    # each) may miss on one frame and are retried on the next
    counts = [m.get_value("sparkles") for m in msgs]
    want = target(140 / 255, 200, 0.0)
    assert max(counts) <= want and min(counts) >= want - 5, counts


def test_no_opaque_pixels_no_glints():
    src = alpha_frame("RGBA", (250, 250, 250), np.full((H, W), 127, np.uint8))
    out, msgs = run_sparkle([src] * 12, fmt="RGBA", props="threshold=0")
    assert all(np.array_equal(f, src) for f in out)
    assert [m.get_value("sparkles") for m in msgs] == [0, 0]
    assert abs(msgs[0].get_value("brightness") - 250 / 255) < 1e-3  # the meter reads all pixels


def test_formats_without_alpha_sparkle_everywhere():
    out, _ = run_sparkle([(140, 140, 140)] * 30, fmt="xRGB", props="max-sparkles=200 threshold=0 size=0.1")
    src = rgb_frame("xRGB", W, H, (140, 140, 140))
    changed = np.zeros((H, W), bool)
    for f in out:
        changed |= (f != src).any(axis=2)
        assert (f[..., 0] == 255).all()  # the padding byte is left alone
    # glints land all over the frame: every quarter has some
    for qy in (slice(0, H // 2), slice(H // 2, H)):
        for qx in (slice(0, W // 2), slice(W // 2, W)):
            assert changed[qy, qx].any()
