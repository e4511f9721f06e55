# SPDX-License-Identifier: LGPL-2.1-or-later
"""depthview: negotiation (GRAY16_LE / GRAY8 in, packed RGB out, same size),
exact colours for the grey map, hole colour, fixed and automatic ranges,
disparity and GRAY8 encodings, and refused caps."""
import numpy as np
import pytest
from gi.repository import GLib, Gst, GstVideo

from harness import LAYOUT, SECOND, make_buffer

W, H = 8, 4


def run(props, depth, in_fmt="GRAY16_LE", out_fmt="RGBA", out_size=None):
    """Push one depth frame (2-D array) through depthview; return the (h, w, 4) output and caps."""
    h, w = depth.shape
    p = Gst.parse_launch(
        f"appsrc name=src format=time caps=video/x-raw,format={in_fmt},width={w},height={h},framerate=30/1 ! "
        f"depthview name=v {props} ! video/x-raw,format={out_fmt} ! appsink name=sink sync=false")
    src, sink = p.get_by_name("src"), p.get_by_name("sink")
    p.set_state(Gst.State.PLAYING)
    try:
        src.emit("push-buffer", make_buffer(depth, 0, SECOND // 30))
        src.emit("end-of-stream")
        sample = sink.emit("try-pull-sample", 5 * SECOND)
        if sample is None:
            msg = p.get_bus().timed_pop_filtered(0, Gst.MessageType.ERROR)
            raise AssertionError(f"no output: {msg.parse_error() if msg else None}")
        info = GstVideo.VideoInfo.new_from_caps(sample.get_caps())
        buf = sample.get_buffer()
        ok, mi = buf.map(Gst.MapFlags.READ)
        data = np.frombuffer(mi.data, np.uint8).copy()
        buf.unmap(mi)
        img = data[: info.stride[0] * info.height].reshape(info.height, info.stride[0])[:, : info.width * 4]
        return img.reshape(info.height, info.width, 4), sample.get_caps().get_structure(0)
    finally:
        p.set_state(Gst.State.NULL)


def rgba(img, fmt, y, x):
    r, g, b, a = LAYOUT[fmt]
    px = img[y, x]
    return (int(px[r]), int(px[g]), int(px[b]), int(px[a]) if a is not None else None)


@pytest.mark.parametrize("out_fmt", ["RGBA", "BGRA", "RGBx", "BGRx"])
def test_grey_levels_and_hole_exact(out_fmt):
    # 1 m .. 3 m range: 1 m -> 255, 2 m -> 128 (round 127.5 half up), 3 m and beyond -> 0
    d = np.array([[1000, 2000, 3000, 4000, 500, 0, 1500, 2500]] * H, "<u2")
    img, s = run("depth-colormap=grey depth-range-min=1 depth-range-max=3 hole-color=0x80ff0010", d, out_fmt=out_fmt)
    assert (s.get_value("width"), s.get_value("height"), s.get_value("format")) == (W, H, out_fmt)
    has_a = LAYOUT[out_fmt][3] is not None
    levels = [rgba(img, out_fmt, 1, x)[:3] for x in range(W)]
    assert levels[0] == (255, 255, 255)
    assert levels[1] == (128, 128, 128)
    assert levels[2] == (0, 0, 0) and levels[3] == (0, 0, 0)
    assert levels[4] == (255, 255, 255)                      # nearer than depth-range-min clamps
    assert levels[5] == (0xff, 0x00, 0x10)                   # hole colour
    assert levels[6] == (191, 191, 191) and levels[7] == (64, 64, 64)
    if has_a:
        assert rgba(img, out_fmt, 1, 5)[3] == 0x80 and rgba(img, out_fmt, 1, 0)[3] == 255


def test_turbo_near_red_far_blue_and_hole():
    d = np.array([[1000, 3000, 0, 2000, 2750]], "<u2")
    img, _ = run("depth-range-min=1 depth-range-max=3 hole-color=0xff00ff00", d)
    near, far, hole, mid, farish = (rgba(img, "RGBA", 0, x) for x in range(5))
    assert near[0] > 100 and near[2] < 20          # turbo(1): dark red
    assert max(far[:3]) < 60                       # turbo(0): near black (dark blue-violet)
    assert farish[2] > 200 and farish[0] < 100     # turbo(0.125): blue
    assert hole == (0, 255, 0, 255)
    assert mid[1] > 200                            # turbo(0.5): green-yellow


def test_automatic_range_uses_percentiles():
    # half the frame at 1 m, half at 2 m, one stray far reading that must not set the range
    d = np.full((20, 20), 1000, "<u2")
    d[:, 10:] = 2000
    d[0, 0] = 60000
    img, _ = run("depth-colormap=grey", d)
    assert tuple(img[5, 2, :3]) == (255, 255, 255)
    assert tuple(img[5, 15, :3]) == (0, 0, 0)


def test_disparity_gives_the_same_picture_as_depth():
    metres = np.array([[1.0, 2.0, 4.0, 0.0]])
    depth = np.round(metres * 1000).astype("<u2")
    with np.errstate(divide="ignore"):
        disp = np.where(metres > 0, np.round(1 / np.where(metres > 0, metres, 1) / 0.001), 0).astype("<u2")
    a, _ = run("depth-colormap=grey depth-range-min=1 depth-range-max=4", depth)
    b, _ = run("depth-colormap=grey depth-range-min=1 depth-range-max=4 depth-kind=disparity depth-scale=0.001", disp)
    assert np.array_equal(a, b)


def test_big_endian_depth_gives_the_same_picture():
    # 16-bit PNG depth images (RGB-D datasets) decode to GRAY16_BE
    metres = np.array([[1.0, 2.0, 4.0, 0.0]])
    le = np.round(metres * 1000).astype("<u2")
    a, _ = run("depth-colormap=grey depth-range-min=1 depth-range-max=4", le)
    b, _ = run("depth-colormap=grey depth-range-min=1 depth-range-max=4", le.astype(">u2"), in_fmt="GRAY16_BE")
    assert np.array_equal(a, b)
    assert tuple(a[0, 0, :3]) == (255, 255, 255) and tuple(a[0, 2, :3]) == (0, 0, 0)


def test_gray8_maps():
    v = np.array([[0, 255, 51]], np.uint8)
    # depth: metres = near + (far - near) v/255 -> 1, 3, 1.4; range 1..3 -> 255, 0, 204
    img, s = run("depth-colormap=grey depth-near=1 depth-far=3 depth-range-min=1 depth-range-max=3", v, in_fmt="GRAY8")
    assert [int(img[0, x, 0]) for x in range(3)] == [255, 0, 204]
    # disparity: v=255 is near (1 m), v=0 far (3 m)
    img, _ = run("depth-colormap=grey depth-kind=disparity depth-near=1 depth-far=3 depth-range-min=1 depth-range-max=3",
                 v, in_fmt="GRAY8")
    assert [int(img[0, x, 0]) for x in range(2)] == [0, 255]


def test_negotiates_from_rgbdtestsrc_and_keeps_size():
    p = Gst.parse_launch("rgbdtestsrc stream=depth num-buffers=2 ! video/x-raw,width=320,height=240 ! "
                         "depthview ! videoconvert ! video/x-raw,format=I420 ! appsink name=sink sync=false")
    sink = p.get_by_name("sink")
    p.set_state(Gst.State.PLAYING)
    try:
        sample = sink.emit("try-pull-sample", 5 * SECOND)
        assert sample is not None
        s = sample.get_caps().get_structure(0)
        assert (s.get_value("width"), s.get_value("height")) == (320, 240)
    finally:
        p.set_state(Gst.State.NULL)


def test_refuses_colour_input():
    with pytest.raises(GLib.Error, match="could not link"):
        Gst.parse_launch("videotestsrc ! video/x-raw,format=RGBA ! depthview ! fakesink")


def test_properties_round_trip():
    v = Gst.ElementFactory.make("depthview")
    for name, val in (("depth-scale", 0.0001), ("depth-near", 0.3), ("depth-far", 8.0), ("depth-range-min", 0.5),
                      ("depth-range-max", 4.0), ("hole-color", 0xff123456)):
        v.set_property(name, val)
        assert v.get_property(name) == pytest.approx(val)
    v.set_property("depth-kind", "disparity")
    assert v.get_property("depth-kind") == 1
    v.set_property("depth-colormap", "grey")
    assert v.get_property("depth-colormap") == 0
