# SPDX-License-Identifier: LGPL-2.1-or-later
"""Reliability, bad and odd input: caps an element cannot take, odd sizes,
row strides and formats, buffers smaller than their caps claim, and extreme
values, for every element of the plugin. The other reliability tests:
test_reliability.py (state changes, threads, property ranges, leaks) and
test_reliability_streams.py (stream faults, seeks and flushes).
"""
import numpy as np
import pytest
from gi.repository import Gst, GstVideo

from harness import SECOND, depth_bytes, pixel_size, pixels, plain_buffer, playing, pull_all, rgb_bytes, video_caps


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
