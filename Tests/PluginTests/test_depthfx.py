# SPDX-License-Identifier: LGPL-2.1-or-later
"""depthmatte's depth encodings: depth-kind=disparity and GRAY8
normalised maps on the depth pad give the same matte as GRAY16 millimetres for
the same scene."""
import numpy as np
import pytest
from gi.repository import Gst

from harness import Keyer, SECOND, make_buffer, rgb_frame

W, H = 64, 48
DW, DH = 32, 24
FG = (200, 100, 50)


def scene_metres(near=1.0, far=4.0, hole=True):
    """Left half near, right half far, a hole block top-left (0 = no reading)."""
    m = np.full((DH, DW), far)
    m[:, : DW // 2] = near
    if hole:
        m[:4, :4] = 0
    return m


def encode(m, how, scale=0.001, near=1.0, far=4.0):
    if how == "depth":
        return np.round(m / scale).astype("<u2"), "GRAY16_LE"
    if how == "disparity":
        with np.errstate(divide="ignore"):
            d = np.where(m > 0, np.round(1 / np.where(m > 0, m, 1) / scale), 0)
        return d.astype("<u2"), "GRAY16_LE"
    if how == "depth-be":          # 16-bit PNG depth images decode to GRAY16_BE
        return np.round(m / scale).astype(">u2"), "GRAY16_BE"
    if how == "disparity-be":
        with np.errstate(divide="ignore"):
            d = np.where(m > 0, np.round(1 / np.where(m > 0, m, 1) / scale), 0)
        return d.astype(">u2"), "GRAY16_BE"
    if how == "gray8-depth":       # v = 255 (m - near) / (far - near)
        return np.round(255 * (np.clip(m, near, far) - near) / (far - near)).astype(np.uint8), "GRAY8"
    if how == "gray8-disparity":   # v = 255 (1/m - 1/far) / (1/near - 1/far)
        inv = 1 / np.clip(m, near, far)
        return np.round(255 * (inv - 1 / far) / (1 / near - 1 / far)).astype(np.uint8), "GRAY8"
    raise ValueError(how)


def key(props, raw, fmt, n=2, video=None):
    """Push n frames (video: an (h, w, 3) array or FG) with depth `raw` in `fmt`; return the last RGBA output."""
    desc = (f"depthmatte name=m {props} ! appsink name=sink sync=false max-buffers=100 "
            f"appsrc name=vsrc format=time caps=video/x-raw,format=RGBA,width={W},height={H},framerate=30/1 ! m.video "
            f"appsrc name=dsrc format=time caps=video/x-raw,format={fmt},width={DW},height={DH},framerate=30/1 ! m.depth")
    p = Gst.parse_launch(desc)
    vsrc, dsrc, sink = p.get_by_name("vsrc"), p.get_by_name("dsrc"), p.get_by_name("sink")
    p.set_state(Gst.State.PLAYING)
    try:
        out = None
        dur = SECOND // 30
        for i in range(n):
            vsrc.emit("push-buffer", make_buffer(rgb_frame("RGBA", W, H, FG if video is None else video), i * dur, dur))
            dsrc.emit("push-buffer", make_buffer(raw, i * dur, dur))
            sample = sink.emit("try-pull-sample", 5 * SECOND)
            if sample is None:
                msg = p.get_bus().timed_pop_filtered(0, Gst.MessageType.ERROR)
                raise AssertionError(f"no output: {msg.parse_error() if msg else None}")
            buf = sample.get_buffer()
            ok, mi = buf.map(Gst.MapFlags.READ)
            out = np.frombuffer(mi.data, np.uint8).copy().reshape(H, W, 4)
            buf.unmap(mi)
        return out
    finally:
        p.set_state(Gst.State.NULL)


BASE = "mode=fixed cutoff=2.0 blur-radius=0 output=matte depth-near=1 depth-far=4"
ENCODINGS = [("depth", ""), ("disparity", "depth-kind=disparity"),
             ("gray8-depth", ""), ("gray8-disparity", "depth-kind=disparity"),
             ("depth-be", ""), ("disparity-be", "depth-kind=disparity")]


@pytest.mark.parametrize("how,props", ENCODINGS)
def test_every_encoding_gives_the_same_matte(how, props):
    m = scene_metres(hole=not how.startswith("gray8"))
    ref = key(BASE, *encode(m, "depth"))
    got = key(f"{BASE} {props}", *encode(m, how))
    assert np.array_equal(got, ref)
    # and the matte is the scene: near half white, far half black
    assert got[H // 2, 4, 0] == 255 and got[H // 2, W - 4, 0] == 0


def test_gray8_is_accepted_on_the_depth_pad():
    tmpl = Gst.ElementFactory.find("depthmatte").get_static_pad_templates()
    depth = [t for t in tmpl if t.name_template == "depth"][0]
    caps = depth.get_caps().to_string()
    assert "GRAY16_LE" in caps and "GRAY16_BE" in caps and "GRAY8" in caps


def test_big_endian_depth_with_the_default_refine_matches_little_endian():
    # the byte order must not matter to refine=guided either (values above
    # 255 mm differ in both bytes, so a missed swap cannot pass)
    m = scene_metres()
    base = "mode=fixed cutoff=2.0 output=matte"
    video = np.zeros((H, W, 3), np.uint8)
    video[:, : W // 2] = FG
    video[:, W // 2:] = (30, 160, 90)
    ref = key(base, *encode(m, "depth"), n=3, video=video)
    got = key(base, *encode(m, "depth-be"), n=3, video=video)
    assert np.array_equal(got, ref)
    assert got[H // 2, 4, 0] == 255 and got[H // 2, W - 4, 0] == 0


def test_encoding_properties_round_trip():
    m = Gst.ElementFactory.make("depthmatte")
    assert m.get_property("depth-kind") == 0
    m.set_property("depth-kind", "disparity")
    assert m.get_property("depth-kind") == 1
    for name, val, default in (("depth-near", 0.3, 0.5), ("depth-far", 9.0, 5.0)):
        assert m.get_property(name) == pytest.approx(default)
        m.set_property(name, val)
        assert m.get_property(name) == pytest.approx(val)


# ---- focus modes -------------------------------------------------------------

def columns_scene(metres):
    """Depth made of vertical bands, one per value, each DW // len(metres) wide."""
    bw = DW // len(metres)
    m = np.zeros((DH, DW))
    for i, v in enumerate(metres):
        m[:, i * bw:(i + 1) * bw] = v
    return m


def band_levels(out, n):
    bw = W // n
    return [int(out[H // 2, i * bw + bw // 2, 0]) for i in range(n)]


FOCUS = "blur-radius=0 gamma=1 output=matte"


def test_highpass_ramp_in_the_pipeline():
    m = columns_scene([0.8, 1.0, 1.125, 1.25, 2.0, 0.0, 1.0625, 3.0])
    out = key(f"mode=highpass focus=1.0 slope=4 {FOCUS}", *encode(m, "depth"))
    lv = band_levels(out, 8)
    assert lv[:6] + [lv[7]] == [255, 255, 128, 0, 0, 0, 0]
    assert abs(lv[6] - 191) <= 1          # 0.75


def test_bandpass_ramp_in_the_pipeline():
    m = columns_scene([1.0, 1.7, 1.825, 1.95, 2.0, 2.05, 2.175, 2.3])
    out = key(f"mode=bandpass focus=2.0 slope=4 focus-width=0.05 {FOCUS}", *encode(m, "depth"))
    lv = band_levels(out, 8)
    assert lv[0] == 0 and lv[1] == 0 and lv[7] == 0
    assert lv[3] == lv[4] == lv[5] == 255
    assert abs(lv[2] - 128) <= 1 and abs(lv[6] - 128) <= 1


@pytest.mark.parametrize("mode", ["highpass", "bandpass"])
def test_focus_modes_same_matte_for_disparity(mode):
    m = columns_scene([0.5, 1.0, 1.25, 2.0])
    props = f"mode={mode} focus=1.0 slope=4 {FOCUS}"
    a = key(props, *encode(m, "depth"))
    b = key(props + " depth-kind=disparity", *encode(m, "disparity"))
    assert np.array_equal(a, b)


def test_focus_changes_live():
    m = columns_scene([1.0, 2.0])
    k = Keyer(f"mode=highpass focus=1.5 slope=10 {FOCUS}", fmt="RGBA", size=(W, H), depth_size=(DW, DH))
    try:
        raw, _ = encode(m, "depth")
        k.push_video(0, FG); k.push_depth(0, raw, raw=True)
        assert band_levels(k.pull()[0], 2) == [255, 0]
        k.m.set_property("focus", 2.5)
        k.push_video(1, FG); k.push_depth(1, raw, raw=True)
        assert band_levels(k.pull()[0], 2) == [255, 255]
    finally:
        k.stop()


def test_focus_properties_round_trip():
    m = Gst.ElementFactory.make("depthmatte")
    for name, default, val in (("focus", 1.0, 2.5), ("slope", 4.0, 10.0), ("focus-width", 0.05, 0.1)):
        assert m.get_property(name) == pytest.approx(default)
        m.set_property(name, val)
        assert m.get_property(name) == pytest.approx(val)
    m.set_property("mode", "bandpass")
    assert m.get_property("mode") == 4


# ---- output=depth --------------------------------------------------------------

def test_output_depth_grey_exact_and_hole_colour():
    m = columns_scene([1.0, 2.0, 3.0, 0.0])
    out = key("output=depth depth-colormap=grey depth-range-min=1 depth-range-max=3 hole-color=0xff10ff20",
              *encode(m, "depth"))
    bw = W // 4
    px = [tuple(int(v) for v in out[H // 2, i * bw + bw // 2, :3]) for i in range(4)]
    assert px == [(255, 255, 255), (128, 128, 128), (0, 0, 0), (0x10, 0xff, 0x20)]
    assert out.shape[:2] == (H, W)                  # video size, not depth size


@pytest.mark.parametrize("how,props", ENCODINGS)
def test_output_depth_same_picture_for_every_encoding(how, props):
    m = columns_scene([1.0, 2.0, 3.0, 4.0])
    base = "output=depth depth-colormap=turbo depth-range-min=1 depth-range-max=4 depth-near=1 depth-far=4"
    ref = key(base, *encode(m, "depth"))
    got = key(f"{base} {props}", *encode(m, how))
    # 16-bit encodings are exact; GRAY8 maps quantise depth to 1/255 of the range
    tol = 8 if how.startswith("gray8") else 0
    assert np.abs(got.astype(int) - ref.astype(int)).max() <= tol


def test_output_depth_properties_round_trip():
    m = Gst.ElementFactory.make("depthmatte")
    assert m.get_property("depth-colormap") == 1 and m.get_property("hole-color") == 0xff000000
    m.set_property("output", "depth")
    m.set_property("depth-colormap", "grey")
    assert m.get_property("depth-colormap") == 0
    for name, val in (("depth-range-min", 0.5), ("depth-range-max", 4.0), ("hole-color", 0xff00ff00)):
        m.set_property(name, val)
        assert m.get_property(name) == pytest.approx(val)


# ---- background effects -------------------------------------------------------

def textured(seed=1):
    rng = np.random.default_rng(seed)
    img = rng.integers(0, 256, (H, W, 3), dtype=np.uint8)
    img[:, :, 0] = np.repeat(rng.integers(0, 256, (H // 8, W // 8), dtype=np.uint8), 8, 0).repeat(8, 1)
    return img


@pytest.mark.parametrize("effect", ["comic", "blur", "desaturate"])
def test_effects_leave_the_foreground_untouched(effect):
    video = textured()
    m = scene_metres(hole=False)      # left half 1 m, right half 4 m
    out = key(f"mode=fixed refine=original cutoff=2 blur-radius=0 gamma=1 background-effect={effect} effect-radius=16",
              *encode(m, "depth"), video=video)
    fg = slice(0, W // 2 - 4)
    bg = slice(W // 2 + 4, W)
    assert np.array_equal(out[:, fg, :3], video[:, fg])          # subject: the video, bit for bit
    assert np.abs(out[:, bg, :3].astype(int) - video[:, bg]).mean() > 5   # background: changed
    if effect == "desaturate":
        assert np.array_equal(out[:, bg, 0], out[:, bg, 1]) and np.array_equal(out[:, bg, 1], out[:, bg, 2])
    if effect == "comic":   # posterised to 4 levels or black edge lines
        assert set(np.unique(out[:, bg, :3])) <= {0, 85, 170, 255}


def test_blur_has_no_subject_halo():
    # subject bright white on the left, background mid grey: blurring must not
    # pull white into the background next to the subject
    video = np.full((H, W, 3), 100, np.uint8)
    video[:, : W // 2] = 255
    m = scene_metres(hole=False)
    args = ("mode=fixed refine=original cutoff=2 blur-radius=0 gamma=1 background-effect=blur effect-radius=24",
            *encode(m, "depth"))
    out = key(*args, video=video, n=3)
    assert np.abs(out[:, W // 2 + 4:, :3].astype(int) - 100).max() <= 1


def test_effect_ignored_with_background_colour_only_when_none():
    m = scene_metres(hole=False)
    out = key("mode=fixed cutoff=2 blur-radius=0 gamma=1 background-effect=none background-color=0xff0000ff",
              *encode(m, "depth"), video=textured())
    assert tuple(int(v) for v in out[H // 2, W - 3, :3]) == (0, 0, 255)


def test_effect_properties_round_trip():
    m = Gst.ElementFactory.make("depthmatte")
    assert m.get_property("background-effect") == 0
    for i, name in enumerate(["none", "desaturate", "comic", "blur"]):
        m.set_property("background-effect", name)
        assert m.get_property("background-effect") == i
    m.set_property("effect-radius", 40.0)
    assert m.get_property("effect-radius") == 40.0


def test_blur_grows_with_depth_behind_the_subject():
    # stripes everywhere; subject at 1 m on the left quarter, wall at 2.2 m (top)
    # and 5 m (bottom) on the right: the far wall comes out smoother
    video = np.zeros((H, W, 3), np.uint8)
    video[:, (np.arange(W) // 8) % 2 == 0] = 255
    m = np.full((DH, DW), 5.0)
    m[: DH // 2, :] = 2.2
    m[:, : DW // 4] = 1.0
    args = ("mode=fixed cutoff=2 blur-radius=0 gamma=1 background-effect=blur effect-radius=12",
            *encode(m, "depth"))
    out = key(*args, video=video)
    near_wall = out[4: H // 2 - 4, W // 2: W - 4, 0].astype(float)
    far_wall = out[H // 2 + 4: H - 4, W // 2: W - 4, 0].astype(float)
    # radius 12: just behind the subject a third (no blur at 1/4 resolution), far the full radius
    assert far_wall.std() < near_wall.std() / 2
    flat = key(args[0] + " effect-depth-growth=false", *args[1:], video=video)
    a = flat[4: H // 2 - 4, W // 2: W - 4, 0].astype(float)
    b = flat[H // 2 + 4: H - 4, W // 2: W - 4, 0].astype(float)
    assert abs(a.std() - b.std()) < 3
