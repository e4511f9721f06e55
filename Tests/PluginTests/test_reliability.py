"""Reliability: bad and odd input, stream faults, state changes,
threads, leaks and property ranges, for every element of the plugin
(depthmatte, rgbdtestsrc, sparkle, framestack, depthview).

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

import numpy as np
import pytest
from gi.repository import GLib, GObject, Gst, GstVideo

from harness import LAYOUT, SECOND, pixel_size, pixels, playing, pull_all, rgb_frame

ELEMENTS = ("depthmatte", "rgbdtestsrc", "sparkle", "framestack", "depthview")


# ---- helpers -------------------------------------------------------------------

def run(desc, timeout=20, on_playing=None):
    """Play `desc` to EOS or error. Returns (errors, warnings) as lists of
    (element name, GError, debug)."""
    p = Gst.parse_launch(desc) if isinstance(desc, str) else desc
    bus = p.get_bus()
    errors, warnings = [], []
    try:
        assert p.set_state(Gst.State.PLAYING) != Gst.StateChangeReturn.FAILURE
        if on_playing:
            on_playing(p)
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            assert left > 0, f"no EOS/error within {timeout} s: {desc}"
            msg = bus.timed_pop_filtered(int(left * SECOND), Gst.MessageType.EOS | Gst.MessageType.ERROR
                                         | Gst.MessageType.WARNING)
            if msg is None:
                continue
            if msg.type == Gst.MessageType.WARNING:
                e, d = msg.parse_warning()
                warnings.append((msg.src.get_name(), e, d))
                continue
            if msg.type == Gst.MessageType.ERROR:
                e, d = msg.parse_error()
                errors.append((msg.src.get_name(), e, d))
            break
    finally:
        p.set_state(Gst.State.NULL)
    return errors, warnings


def drain_bus(p):
    """(error texts, warning texts) of every message waiting on p's bus."""
    errors, warnings = [], []
    bus = p.get_bus()
    while (m := bus.pop_filtered(Gst.MessageType.ERROR | Gst.MessageType.WARNING)) is not None:
        if m.type == Gst.MessageType.ERROR:
            errors.append(m.parse_error()[0].message)
        else:
            warnings.append(m.parse_warning()[0].message)
    return errors, warnings


def padded_buffer(arr, pts, duration, fmt, pad_bytes, sentinel=0xAB):
    """A buffer whose rows carry `pad_bytes` extra bytes (filled with
    `sentinel`), described by a GstVideoMeta."""
    h, w = arr.shape[:2]
    row = arr.reshape(h, -1).view(np.uint8)
    stride = row.shape[1] + pad_bytes
    data = np.full((h, stride), sentinel, np.uint8)
    data[:, : row.shape[1]] = row
    buf = Gst.Buffer.new_wrapped(data.tobytes())
    buf.pts, buf.dts, buf.duration = pts, pts, duration
    vfmt = GstVideo.VideoFormat.from_string(fmt)
    GstVideo.buffer_add_video_meta_full(buf, GstVideo.VideoFrameFlags.NONE, vfmt, w, h, 1,
                                        [0, 0, 0, 0], [stride, 0, 0, 0])
    return buf


def plain_buffer(data, pts, duration=SECOND // 30):
    buf = Gst.Buffer.new_wrapped(bytes(data))
    buf.pts, buf.dts, buf.duration = pts, pts, duration
    return buf


def video_caps(fmt, w, h, fps=30):
    return f"video/x-raw,format={fmt},width={w},height={h},framerate={fps}/1"


def default_stride(w, ps):
    return (w * ps + 3) & ~3


def depth_bytes(w, h, value):
    d = np.full((h, default_stride(w, 2)), 0, np.uint8)
    d[:, : 2 * w] = np.full((h, w), value, "<u2").view(np.uint8)
    return d.tobytes()


def rgb_bytes(fmt, w, h, rgb):
    ps = pixel_size(fmt)
    out = np.zeros((h, default_stride(w, ps)), np.uint8)
    out[:, : w * ps] = rgb_frame(fmt, w, h, rgb).reshape(h, -1)
    return out.tobytes()


# ---- bad caps: a clear not-negotiated error naming the pad ---------------------

def _first_error(p, push=None, timeout=5):
    bus = p.get_bus()
    try:
        p.set_state(Gst.State.PLAYING)
        if push:
            push(p)
        msg = bus.timed_pop_filtered(timeout * SECOND, Gst.MessageType.ERROR)
        assert msg is not None, "no error posted"
        e, d = msg.parse_error()
        return msg.src.get_name(), e, d
    finally:
        p.set_state(Gst.State.NULL)


def test_depthmatte_video_pad_refuses_gray_with_clear_error():
    p = Gst.parse_launch(
        "depthmatte name=m ! fakesink "
        f"appsrc name=v format=time caps={video_caps('GRAY8', 16, 16)} ! m.video "
        f"appsrc name=d format=time caps={video_caps('GRAY16_LE', 8, 8)} ! m.depth")
    src, e, d = _first_error(p, lambda p: p.get_by_name("v").emit("push-buffer", plain_buffer(bytes(256), 0)))
    assert src == "m"
    assert e.matches(Gst.CoreError.quark(), Gst.CoreError.NEGOTIATION)
    assert "video" in e.message
    assert "'video'" in d and "BGRx" in d and "GRAY8" in d


@pytest.mark.parametrize("element,offered,accepted", [("sparkle", "GRAY8", "BGRx"), ("framestack", "GRAY8", "BGRx"),
                                                      ("depthview", "BGRx", "GRAY16_LE")])
def test_filter_refuses_gray_with_clear_error(element, offered, accepted):
    p = Gst.parse_launch(f"appsrc name=v format=time caps={video_caps(offered, 16, 16)} ! "
                         f"{element} name=e ! fakesink")
    size = 256 if offered == "GRAY8" else 1024
    src, e, d = _first_error(p, lambda p: p.get_by_name("v").emit("push-buffer", plain_buffer(bytes(size), 0)))
    assert src == "e", (src, e.message, d)
    assert e.matches(Gst.CoreError.quark(), Gst.CoreError.NEGOTIATION)
    assert "sink" in e.message
    assert accepted in d and offered in d


@pytest.mark.parametrize("stream,fmt,want", [("depth", "BGRx", "GRAY16_LE"), ("video", "GRAY16_LE", "BGRx"),
                                             ("truth", "RGB", "GRAY8")])
def test_rgbdtestsrc_refuses_wrong_format_with_clear_error(stream, fmt, want):
    # linked without a caps check, so the refusal happens at run time
    p = Gst.Pipeline()
    src = Gst.ElementFactory.make("rgbdtestsrc", "e")
    src.set_property("stream", stream)
    src.set_property("num-buffers", 1)
    sink = Gst.ElementFactory.make("appsink")
    sink.set_property("caps", Gst.Caps.from_string(f"video/x-raw,format={fmt}"))
    p.add(src)
    p.add(sink)
    assert src.get_static_pad("src").link_full(sink.get_static_pad("sink"),
                                               Gst.PadLinkCheck.NOTHING) == Gst.PadLinkReturn.OK
    src, e, d = _first_error(p)
    assert src == "e"
    assert e.matches(Gst.CoreError.quark(), Gst.CoreError.NEGOTIATION)
    assert f"stream={stream}" in e.message and want in d


# ---- odd sizes, strides, formats -------------------------------------------------

ODD_SIZES = [(1, 1), (3, 3), (7, 5), (1921, 1081)]


@pytest.mark.parametrize("w,h", ODD_SIZES)
@pytest.mark.parametrize("stream,fmt", [("video", "RGB"), ("video", "xBGR"), ("depth", "GRAY16_LE"),
                                        ("truth", "GRAY8")])
def test_rgbdtestsrc_odd_sizes(stream, fmt, w, h):
    if (w, h) == (1921, 1081) and fmt == "xBGR":
        pytest.skip("one large packed-RGB case is enough")
    with playing(f"rgbdtestsrc stream={stream} num-buffers=2 ! video/x-raw,format={fmt},width={w},"
                 f"height={h} ! appsink name=sink sync=false") as p:
        samples = pull_all(p)
        assert len(samples) == 2
        img = pixels(samples[0])
        assert img.shape[:2] == (h, w)


@pytest.mark.parametrize("w,h,dw,dh", [(1, 1, 1, 1), (3, 3, 1, 1), (3, 3, 7, 5), (7, 5, 3, 3),
                                       (1921, 1081, 641, 361), (33, 17, 66, 34)])
@pytest.mark.parametrize("fmt", ["RGB", "BGRA"])
def test_depthmatte_odd_sizes_and_depth_larger_than_video(fmt, w, h, dw, dh):
    if w > 1000 and fmt == "BGRA":
        pytest.skip("one large case is enough")
    with playing(
        "depthmatte name=m ! appsink name=sink sync=false "
        f"rgbdtestsrc num-buffers=3 ! video/x-raw,format={fmt},width={w},height={h} ! m.video "
        f"rgbdtestsrc stream=depth num-buffers=3 ! video/x-raw,width={dw},height={dh} ! m.depth") as p:
        samples = pull_all(p)
        assert len(samples) == 3
        assert pixels(samples[-1]).shape == (h, w, pixel_size(fmt))
        assert p.get_bus().pop_filtered(Gst.MessageType.ERROR) is None


@pytest.mark.parametrize("w,h", ODD_SIZES)
@pytest.mark.parametrize("element", ["sparkle grid-step=1 interval=0 threshold=0",
                                     "framestack frames=2", "framestack frames=3 mode=sliding method=mean",
                                     "depthview"])
def test_filters_odd_sizes(element, w, h):
    src = ("rgbdtestsrc stream=depth num-buffers=4 ! video/x-raw,format=GRAY16_LE" if element == "depthview"
           else "rgbdtestsrc num-buffers=4 ! video/x-raw,format=RGB")
    out = " ! video/x-raw,format=RGBx ! videoconvert ! video/x-raw,format=RGB" if element == "depthview" else ""
    with playing(f"{src},width={w},height={h} ! {element}{out} ! appsink name=sink sync=false") as p:
        samples = pull_all(p)
        assert len(samples) >= 2
        assert pixels(samples[-1]).shape == (h, w, 3)
        assert p.get_bus().pop_filtered(Gst.MessageType.ERROR) is None


def _push_through(desc, buffers, srcs):
    """Push lists of buffers into named appsrcs (interleaved), then EOS; pull
    all output."""
    with playing(desc) as p:
        n = max(len(b) for b in buffers)
        for i in range(n):
            for name, bufs in zip(srcs, buffers):
                if i < len(bufs):
                    assert p.get_by_name(name).emit("push-buffer", bufs[i]) == Gst.FlowReturn.OK
        for name in srcs:
            p.get_by_name(name).emit("end-of-stream")
        samples = pull_all(p, timeout=5)
        err = p.get_bus().pop_filtered(Gst.MessageType.ERROR)
        return samples, err


@pytest.mark.parametrize("pad", [13, 64])
def test_depthmatte_honours_row_padding(pad):
    """Video and depth with extra row padding (GstVideoMeta strides) key
    exactly like tightly packed rows, and padding is never read as pixels."""
    w, h, dw, dh = 21, 11, 9, 5
    rng = np.random.default_rng(1)
    video = [rng.integers(0, 256, (h, w, 3), np.uint8) for _ in range(2)]
    depth = [rng.integers(500, 1500, (dh, dw)).astype("<u2") for _ in range(2)]
    desc = ("depthmatte name=m mode=fixed cutoff=1.0 blur-radius=1 ! "
            "appsink name=sink sync=false "
            f"appsrc name=v format=time caps={video_caps('RGB', w, h)} ! m.video "
            f"appsrc name=d format=time caps={video_caps('GRAY16_LE', dw, dh)} ! m.depth")
    dur = SECOND // 30

    def bufs(padding):
        return ([padded_buffer(v, i * dur, dur, "RGB", padding) for i, v in enumerate(video)],
                [padded_buffer(d, i * dur, dur, "GRAY16_LE", padding) for i, d in enumerate(depth)])

    tight, err = _push_through(desc, bufs(0), ["v", "d"])
    assert err is None and len(tight) == 2
    padded, err = _push_through(desc, bufs(pad), ["v", "d"])
    assert err is None and len(padded) == 2
    for a, b in zip(tight, padded):
        assert np.array_equal(pixels(a), pixels(b))


@pytest.mark.parametrize("element", ["sparkle grid-step=1 interval=0 threshold=0 size=0.3 seed=3",
                                     "framestack frames=2 align=translation"])
def test_filters_honour_row_padding(element):
    """Same output with or without row padding; sparkle (in place) leaves the
    padding bytes alone."""
    w, h = 23, 13
    rng = np.random.default_rng(2)
    frames = [rng.integers(100, 256, (h, w, 4), np.uint8) for _ in range(4)]
    desc = (f"appsrc name=v format=time caps={video_caps('BGRA', w, h)} ! {element} ! "
            "appsink name=sink sync=false")
    dur = SECOND // 30
    tight, err = _push_through(desc, [[padded_buffer(f, i * dur, dur, "BGRA", 0) for i, f in enumerate(frames)]],
                               ["v"])
    assert err is None
    padded, err = _push_through(desc, [[padded_buffer(f, i * dur, dur, "BGRA", 17) for i, f in enumerate(frames)]],
                                ["v"])
    assert err is None
    assert len(tight) == len(padded) >= 2
    for a, b in zip(tight, padded):
        assert np.array_equal(pixels(a), pixels(b))
    if element.startswith("sparkle"):
        buf = padded[-1].get_buffer()
        ok, mi = buf.map(Gst.MapFlags.READ)
        data = np.frombuffer(mi.data, np.uint8).reshape(h, w * 4 + 17)
        assert (data[:, w * 4:] == 0xAB).all()
        buf.unmap(mi)


# ---- buffers smaller than their caps claim ------------------------------------

def _short_buffer_case(desc, good, short, srcs, expect_output):
    """Push a short buffer; the element must refuse it with an error or a
    warning (never read past it) and the pipeline must not hang."""
    with playing(desc) as p:
        bus = p.get_bus()
        for name, b in zip(srcs, good):
            p.get_by_name(name).emit("push-buffer", b)
        for name, b in zip(srcs, short):
            if b is not None:
                p.get_by_name(name).emit("push-buffer", b)
        for name in srcs:
            p.get_by_name(name).emit("end-of-stream")
        msgs = []
        while True:
            msg = bus.timed_pop_filtered(10 * SECOND, Gst.MessageType.ERROR | Gst.MessageType.EOS
                                         | Gst.MessageType.WARNING)
            assert msg is not None, "pipeline hung on a short buffer"
            if msg.type == Gst.MessageType.EOS:
                break
            msgs.append(msg)
            if msg.type == Gst.MessageType.ERROR:
                break
        assert msgs, "a short buffer went by without an error or a warning"
        texts = []
        for m in msgs:
            e, d = m.parse_error() if m.type == Gst.MessageType.ERROR else m.parse_warning()
            texts.append(f"{e.message} {d}")
        return texts


@pytest.mark.parametrize("which", ["video", "depth", "background"])
def test_depthmatte_short_buffer_is_refused(which):
    w, h = 32, 24
    dur = SECOND // 30
    desc = ("depthmatte name=m ! fakesink "
            f"appsrc name=v format=time caps={video_caps('BGRx', w, h)} ! m.video "
            f"appsrc name=d format=time caps={video_caps('GRAY16_LE', w, h)} ! m.depth "
            f"appsrc name=b format=time caps={video_caps('BGRx', w, h)} ! m.background")
    good = [plain_buffer(rgb_bytes("BGRx", w, h, (1, 2, 3)), 0, dur), plain_buffer(depth_bytes(w, h, 900), 0, dur),
            plain_buffer(rgb_bytes("BGRx", w, h, (9, 9, 9)), 0, dur)]
    full = {"video": rgb_bytes("BGRx", w, h, (1, 2, 3)), "depth": depth_bytes(w, h, 900),
            "background": rgb_bytes("BGRx", w, h, (9, 9, 9))}
    short = [plain_buffer(full[k][: len(full[k]) // 2], dur, dur) if k == which
             else plain_buffer(full[k], dur, dur) for k in ("video", "depth", "background")]
    texts = _short_buffer_case(desc, good, short, ["v", "d", "b"], True)
    assert any(which in t for t in texts), texts


@pytest.mark.parametrize("element", ["sparkle", "framestack frames=2"])
def test_filter_short_buffer_is_refused(element):
    w, h = 32, 24
    dur = SECOND // 30
    desc = f"appsrc name=v format=time caps={video_caps('BGRx', w, h)} ! {element} ! fakesink"
    full = rgb_bytes("BGRx", w, h, (100, 100, 100))
    texts = _short_buffer_case(desc, [plain_buffer(full, 0, dur)], [plain_buffer(full[:100], dur, dur)], ["v"],
                               False)
    if element.startswith("framestack"):
        # an error that says what was wrong, not just "could not map"
        assert any("100 bytes" in t and "3072" in t for t in texts), texts
    else:
        # GstVideoFilter warns and passes the buffer on untouched
        assert any("invalid video buffer" in t for t in texts), texts


# ---- odd values -----------------------------------------------------------------

def _key_one(depth_value, props="", faces=()):
    w, h = 16, 12
    desc = (f"depthmatte name=m {props} ! appsink name=sink sync=false "
            f"appsrc name=v format=time caps={video_caps('RGBA', w, h)} ! m.video "
            f"appsrc name=d format=time caps={video_caps('GRAY16_LE', w, h)} ! m.depth")
    v = plain_buffer(rgb_bytes("RGBA", w, h, (200, 100, 50)), 0)
    for f in faces:
        GstVideo.buffer_add_video_region_of_interest_meta(v, "face", *f)
    with playing(desc) as p:
        p.get_by_name("v").emit("push-buffer", v)
        p.get_by_name("d").emit("push-buffer", plain_buffer(depth_bytes(w, h, depth_value), 0))
        for n in ("v", "d"):
            p.get_by_name(n).emit("end-of-stream")
        samples = pull_all(p, timeout=5)
        msgs = []
        while (m := p.get_bus().pop_filtered(Gst.MessageType.ELEMENT)) is not None:
            if m.get_structure().get_name() == "depthmatte":
                msgs.append(m.get_structure())
        return samples, msgs


@pytest.mark.parametrize("value", [0, 65535])
@pytest.mark.parametrize("props", ["", "mode=fixed cutoff=100 depth-scale=1e-6", "mode=fixed cutoff=0",
                                   "blur-radius=0 gamma=0.01", "blur-radius=100 gamma=10",
                                   "depth-scale=1 cutoff=100 output=matte", "output=alpha"])
def test_depthmatte_flat_extreme_depth(value, props):
    samples, msgs = _key_one(value, props, faces=[(4, 3, 8, 6)])
    assert len(samples) == 1 and len(msgs) == 1
    s = msgs[0]
    cov = s.get_value("coverage")
    assert 0.0 <= cov <= 1.0
    # 0 = no reading: never the subject, never a face depth
    if value == 0:
        assert cov == 0.0 and not s.get_value("face-found")
    img = pixels(samples[0])
    assert img.shape == (12, 16, 4)


@pytest.mark.parametrize("bg", [("I420", 320, 240), ("GRAY8", 1, 1), ("RGB", 7, 3), ("NV12", 2, 2),
                                ("BGRA", 1920, 1080)])
def test_depthmatte_background_of_another_size_and_format(bg):
    fmt, bw, bh = bg
    with playing(
        "depthmatte name=m mode=fixed cutoff=0.5 ! video/x-raw,format=RGBA ! appsink name=sink sync=false "
        "rgbdtestsrc num-buffers=2 ! video/x-raw,format=RGBA,width=16,height=12 ! m.video "
        "rgbdtestsrc stream=depth num-buffers=2 ! video/x-raw,width=8,height=6 ! m.depth "
        f"videotestsrc num-buffers=2 pattern=solid-color foreground-color=0xff00ff00 ! "
        f"video/x-raw,format={fmt},width={bw},height={bh} ! m.background") as p:
        samples = pull_all(p)
        assert len(samples) == 2
        img = pixels(samples[-1])
        # everything is behind 0.5 m: the frame is the (green) background
        g = img[..., 1].astype(int)
        assert img.shape == (12, 16, 4)
        if fmt != "GRAY8":
            assert (g > 200).all() and (img[..., 0] < 60).all()


# ---- stream faults ----------------------------------------------------------------

def test_depthmatte_video_ending_early_ends_the_output():
    errors, _ = run("depthmatte ! fakesink "
                    "rgbdtestsrc num-buffers=5 ! video/x-raw,width=16,height=12 ! m.video "
                    "rgbdtestsrc stream=depth num-buffers=500 ! video/x-raw,width=8,height=6 ! m.depth "
                    "videotestsrc num-buffers=2 ! video/x-raw,width=4,height=4 ! m.background "
                    .replace("depthmatte", "depthmatte name=m"))
    assert errors == []


@pytest.mark.parametrize("ended", ["depth", "background"])
def test_depthmatte_other_input_ending_early_is_held(ended):
    n = {"video": 30, "depth": 30, "background": 30}
    n[ended] = 2
    with playing(
        "depthmatte name=m ! appsink name=sink sync=false "
        f"rgbdtestsrc num-buffers={n['video']} ! video/x-raw,width=16,height=12 ! m.video "
        f"rgbdtestsrc stream=depth num-buffers={n['depth']} ! video/x-raw,width=8,height=6 ! m.depth "
        f"videotestsrc num-buffers={n['background']} ! video/x-raw,width=4,height=4 ! m.background") as p:
        assert len(pull_all(p)) == 30
        assert p.get_bus().pop_filtered(Gst.MessageType.ERROR) is None


def test_depthmatte_live_depth_stall_keeps_output_flowing_with_warning():
    """A live depth input that stops delivering (no EOS) must not stop the
    output: the aggregator times out per its latency and keys with the last
    depth frame; the element warns once."""
    p = Gst.parse_launch(
        "depthmatte name=m latency=20000000 ! appsink name=sink sync=true max-buffers=1 drop=true "
        "rgbdtestsrc is-live=true ! video/x-raw,width=16,height=12,framerate=50/1 ! m.video "
        f"appsrc name=d is-live=true format=time do-timestamp=true caps={video_caps('GRAY16_LE', 8, 6, 50)} "
        "! queue ! m.depth")
    outputs = []
    sink = p.get_by_name("sink")
    sink.set_property("emit-signals", True)
    sink.connect("new-sample", lambda s: (outputs.append(s.emit("pull-sample")), Gst.FlowReturn.OK)[1])
    p.set_state(Gst.State.PLAYING)
    try:
        d = p.get_by_name("d")
        for _ in range(5):
            buf = Gst.Buffer.new_wrapped(depth_bytes(8, 6, 900))
            buf.duration = SECOND // 50
            d.emit("push-buffer", buf)
            time.sleep(0.02)
        n0 = len(outputs)
        time.sleep(1.0)        # depth stalls
        n1 = len(outputs)
        assert n1 - n0 >= 25, f"output stalled with the depth input: {n0} -> {n1}"
        errors, warns = drain_bus(p)
        assert errors == []
        assert any("depth input stalled" in w for w in warns), warns
    finally:
        p.set_state(Gst.State.NULL)


@pytest.mark.parametrize("which", ["video", "depth"])
def test_depthmatte_caps_change_mid_stream(which):
    """Video or depth size changes mid-stream: the output follows the video
    size, every frame comes out once (the base class holds one frame across
    a caps change), and keys with the new depth."""
    sizes = {"video": [(32, 24), (21, 9), (64, 48), (1, 1)], "depth": [(16, 12), (5, 3), (40, 30), (1, 1)]}
    desc = ("depthmatte name=m mode=fixed cutoff=1 ! appsink name=sink sync=false "
            f"appsrc name=v format=time caps={video_caps('RGB', 32, 24)} ! m.video "
            f"appsrc name=d format=time caps={video_caps('GRAY16_LE', 16, 12)} ! m.depth")
    p = Gst.parse_launch(desc)
    p.set_state(Gst.State.PLAYING)
    v, d, sink = p.get_by_name("v"), p.get_by_name("d"), p.get_by_name("sink")
    dur = SECOND // 30
    try:
        vw, vh, dw, dh = 32, 24, 16, 12
        expect = []
        i = 0
        for step in range(4):
            if which == "video":
                vw, vh = sizes["video"][step]
                v.set_property("caps", Gst.Caps.from_string(video_caps("RGB", vw, vh)))
            else:
                dw, dh = sizes["depth"][step]
                d.set_property("caps", Gst.Caps.from_string(video_caps("GRAY16_LE", dw, dh)))
            for _ in range(3):
                # near (kept, red) on even steps, far (background black) on odd ones
                d.emit("push-buffer", plain_buffer(depth_bytes(dw, dh, 800 if step % 2 == 0 else 3000),
                                                   i * dur, dur))
                v.emit("push-buffer", plain_buffer(rgb_bytes("RGB", vw, vh, (200, 10, 10)), i * dur, dur))
                expect.append(((vh, vw, 3), i * dur, step % 2 == 0))
                i += 1
        v.emit("end-of-stream")
        d.emit("end-of-stream")
        got = pull_all(p, timeout=5)
        assert p.get_bus().pop_filtered(Gst.MessageType.ERROR) is None
        assert len(got) == len(expect)
        for k, (sample, want) in enumerate(zip(got, expect)):
            img = pixels(sample)
            assert abs(sample.get_buffer().pts - want[1]) <= 20  # output times come from the frame rate
            centre = tuple(img[img.shape[0] // 2, img.shape[1] // 2])
            seen = (img.shape, centre == (200, 10, 10))
            ok = [(want[0], want[2])]
            # GstVideoAggregator (1.22, compositor too) shows the first frame
            # after a caps change in place of the last frame before it
            if k % 3 == 2 and k + 1 < len(expect):
                ok.append((expect[k + 1][0], expect[k + 1][2]))
            assert seen in ok, (k, seen, ok)
    finally:
        p.set_state(Gst.State.NULL)


SEEK_PIPELINES = {
    "depthmatte": "depthmatte name=m ! fakesink name=sink "
                  "rgbdtestsrc ! video/x-raw,width=32,height=24 ! m.video "
                  "rgbdtestsrc stream=depth ! video/x-raw,width=16,height=12 ! m.depth",
    "sparkle": "rgbdtestsrc ! video/x-raw,width=32,height=24 ! sparkle interval=0 ! fakesink name=sink",
    "framestack": "rgbdtestsrc ! video/x-raw,width=32,height=24 ! framestack frames=3 ! fakesink name=sink",
    "rgbdtestsrc": "rgbdtestsrc stream=depth ! video/x-raw,width=32,height=24 ! fakesink name=sink",
    "depthview": "rgbdtestsrc stream=depth ! video/x-raw,width=32,height=24 ! depthview ! fakesink name=sink",
}


@pytest.mark.parametrize("element", list(SEEK_PIPELINES))
def test_flushing_seeks(element):
    p = Gst.parse_launch(SEEK_PIPELINES[element])
    sink = p.get_by_name("sink")
    p.set_state(Gst.State.PAUSED)
    try:
        assert p.get_state(5 * SECOND)[0] == Gst.StateChangeReturn.SUCCESS
        p.set_state(Gst.State.PLAYING)
        for k, pos in enumerate([5, 1, 17, 3, 0, 9, 2, 11, 6, 4]):
            flags = Gst.SeekFlags.FLUSH | (Gst.SeekFlags.ACCURATE if k % 2 else Gst.SeekFlags.KEY_UNIT)
            assert p.seek_simple(Gst.Format.TIME, flags, pos * SECOND)
            assert p.get_state(5 * SECOND)[0] == Gst.StateChangeReturn.SUCCESS
            time.sleep(0.02)
        time.sleep(0.1)
        last = sink.get_property("last-sample")
        assert last is not None
        assert last.get_buffer().pts >= 4 * SECOND
        assert p.get_bus().pop_filtered(Gst.MessageType.ERROR) is None
    finally:
        p.set_state(Gst.State.NULL)


def test_depthmatte_pads_requested_and_released_while_playing():
    p = Gst.parse_launch(
        "depthmatte name=m ! fakesink sync=true "
        "rgbdtestsrc is-live=true ! video/x-raw,width=32,height=24,framerate=100/1 ! m.video")
    m = p.get_by_name("m")
    p.set_state(Gst.State.PLAYING)
    try:
        for cycle in range(6):
            added = []
            for pad_name, desc in (("depth", "rgbdtestsrc is-live=true stream=depth ! capsfilter "
                                             "caps=video/x-raw,width=16,height=12,framerate=100/1"),
                                   ("background", "videotestsrc is-live=true ! capsfilter "
                                                  "caps=video/x-raw,width=8,height=8,framerate=100/1")):
                if cycle % 2 and pad_name == "depth":
                    continue
                bin_ = Gst.parse_bin_from_description(desc, True)
                p.add(bin_)
                pad = m.request_pad_simple(pad_name)
                assert pad is not None
                assert bin_.get_static_pad("src").link(pad) == Gst.PadLinkReturn.OK
                bin_.sync_state_with_parent()
                added.append((bin_, pad))
            time.sleep(0.15)
            for bin_, pad in added:
                bin_.set_locked_state(True)
                bin_.set_state(Gst.State.NULL)
                src = bin_.get_static_pad("src")
                src.unlink(pad)
                m.release_request_pad(pad)
                p.remove(bin_)
            time.sleep(0.05)
        assert p.get_bus().pop_filtered(Gst.MessageType.ERROR) is None
        assert [pd.get_name() for pd in m.sinkpads] == ["video"]
    finally:
        p.set_state(Gst.State.NULL)


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

def _hammer(element, values, seconds=1.0):
    """Set random values from `values` (name -> list) on `element` from two
    threads as fast as they can go."""
    stop = time.monotonic() + seconds
    count = [0]

    def work(seed):
        rng = random.Random(seed)
        names = list(values)
        while time.monotonic() < stop:
            n = rng.choice(names)
            element.set_property(n, rng.choice(values[n]))
            count[0] += 1

    threads = [threading.Thread(target=work, args=(s,)) for s in (1, 2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
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
    p.set_state(Gst.State.PLAYING)
    try:
        n = _hammer(m, {"cutoff": cutoffs, "blur-radius": [0.0, 0.5, 3.0, 100.0],
                        "gamma": [0.01, 0.5, 10.0], "depth-scale": [1e-6, 0.001, 1.0],
                        "background-color": [0, 0xffffffff, 0x80123456],
                        "output": ["composite", "matte", "alpha"], "cutoff-offset": [-10.0, 0.0, 10.0]})
        assert n > 1000
        time.sleep(0.1)
        assert p.get_bus().pop_filtered(Gst.MessageType.ERROR) is None
        assert len(seen) > 20
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
    p.set_state(Gst.State.PLAYING)
    try:
        assert p.get_state(5 * SECOND)[0] == Gst.StateChangeReturn.SUCCESS
        assert _hammer(e, values) > 1000
        time.sleep(0.05)
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


FLUSH_CHILD = r"""
import random, sys, time, gi
gi.require_version("Gst", "1.0")
from gi.repository import Gst
Gst.init(None)
p = Gst.parse_launch("depthmatte name=m mode=face ! fakesink name=sink sync=false "
                     "rgbdtestsrc name=v ! video/x-raw,width=64,height=36 ! queue ! m.video "
                     "rgbdtestsrc name=d stream=depth ! video/x-raw,width=32,height=18 ! queue ! m.depth")
locks = []
def on_msg(bus, m):
    if m.type == Gst.MessageType.ELEMENT and m.get_structure().get_name() == "depthmatte":
        locks.append(m.get_structure().get_value("lock"))
    elif m.type == Gst.MessageType.ERROR:
        print("ERROR", m.parse_error()[0].message); sys.exit(3)
bus = p.get_bus()
p.set_state(Gst.State.PLAYING)
p.get_state(10 * Gst.SECOND)
rng = random.Random(1)
depth_src = p.get_by_name("d").get_static_pad("src")
for k in range(int(sys.argv[1])):
    pos = rng.randrange(0, 20) * Gst.SECOND
    ev = Gst.Event.new_seek(1.0, Gst.Format.TIME, Gst.SeekFlags.FLUSH, Gst.SeekType.SET, pos, Gst.SeekType.NONE, 0)
    if k % 2:
        depth_src.send_event(ev)     # one branch: the depth source alone
    else:
        p.send_event(ev)             # both branches
    while (m := bus.pop()) is not None:
        on_msg(bus, m)
    time.sleep(0.002)
# after the storm: the lock is found again from fresh frames
del locks[:]
time.sleep(0.5)
while (m := bus.pop()) is not None:
    on_msg(bus, m)
p.set_state(Gst.State.NULL)
print("locks", len(locks), locks[-1] if locks else None, locks.count("face"))
# the scene sways and steps in depth: a frame may hold the lock by tracking
# (the last one too); what must come back is a lock on the face itself
sys.exit(0 if "face" in locks else 4)
"""


def test_hundreds_of_flushing_seeks_on_one_branch_and_both():
    # flushes reset the lock on the streaming thread (at its next frame),
    # never under a frame being keyed: no crash, no CRITICAL (fatal here),
    # and the lock afterwards comes from fresh frames
    env = dict(os.environ, G_DEBUG="fatal-criticals")
    r = subprocess.run([sys.executable, "-c", FLUSH_CHILD, "300"], capture_output=True, text=True,
                       env=env, timeout=240)
    assert r.returncode == 0, (r.returncode, r.stdout[-1000:], r.stderr[-2000:])
    assert "locks" in r.stdout


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
