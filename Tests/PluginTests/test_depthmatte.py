# SPDX-License-Identifier: LGPL-2.1-or-later
"""depthmatte in real pipelines: negotiation, pixels, the face lock, messages, errors."""
import numpy as np
import pytest
from gi.repository import Gst, GLib

from harness import Keyer, channel, LAYOUT, SECOND, refused_caps_error

W, H = 160, 120          # video
DW, DH = 80, 60          # depth (registered, half resolution)
FG = (200, 100, 50)      # subject colour
BG_COLOR = 0xFF102030    # background-color property
BG_RGB = (0x10, 0x20, 0x30)


def scene_depth(subject_m=0.8, wall_m=2.0, distractor_m=None):
    """Left half of the depth map is the subject, right half the wall; an
    optional distractor block sits in the top right quarter."""
    d = np.full((DH, DW), wall_m)
    d[:, : DW // 2] = subject_m
    if distractor_m is not None:
        d[: DH // 3, 3 * DW // 4:] = distractor_m
    return d


FACE = (W // 8, H // 4, W // 4, H // 3)   # on the subject half, in video pixels

# Pixels far from the subject edge (more than 3 blur sigmas in depth pixels).
SUBJECT_PX = (H // 2, 10)
WALL_PX = (H - 10, W - 10)
DISTRACTOR_PX = (5, W - 8)


def run_frames(k, n, depth, faces=FACE, rgb=FG):
    out = []
    for _ in range(n):
        i = k.frame
        k.push_video(i, rgb, faces=[faces] if faces else [])
        k.push_depth(i, depth)
        out.append(k.pull())
        k.frame += 1
    return out


@pytest.mark.parametrize("fmt", ["RGBA", "BGRA", "RGBx", "BGRx", "ARGB", "ABGR", "xRGB", "xBGR", "RGB", "BGR"])
def test_each_video_format_negotiates_and_keys(fmt):
    k = Keyer(f"background-color={BG_COLOR}", fmt=fmt, size=(W, H), depth_size=(DW, DH))
    try:
        img, caps, _ = run_frames(k, 1, scene_depth())[0]
        s = caps.get_structure(0)
        assert s.get_value("format") == fmt
        assert (s.get_value("width"), s.get_value("height")) == (W, H)
        y, x = SUBJECT_PX
        assert [int(channel(img, fmt, c)[y, x]) for c in "rgb"] == list(FG)
        y, x = WALL_PX
        assert [int(channel(img, fmt, c)[y, x]) for c in "rgb"] == list(BG_RGB)
        if img.shape[2] == 4:
            # composite is opaque; padding bytes (RGBx...) are 255 like videotestsrc's
            pad = ({0, 1, 2, 3} - set(LAYOUT[fmt][:3])).pop()
            assert img[..., pad].min() == 255
    finally:
        k.stop()


def test_output_follows_video_size_and_rate_with_smaller_depth():
    k = Keyer(size=(W, H), depth_size=(DW // 2, DH // 2), fps=25)
    try:
        k.push_video(0, FG, faces=[FACE])
        d = np.full((DH // 2, DW // 2), 2.0)
        d[:, : DW // 4] = 0.8
        k.push_depth(0, d)
        img, caps, pts = k.pull()
        s = caps.get_structure(0)
        assert (s.get_value("width"), s.get_value("height")) == (W, H)
        assert tuple(s.get_fraction("framerate"))[1:] == (25, 1)
        assert img.shape[:2] == (H, W)
        assert pts == 0
    finally:
        k.stop()


def test_depth_at_half_rate_gives_one_output_per_video_frame():
    k = Keyer(f"background-color={BG_COLOR}", size=(W, H), depth_size=(DW, DH), fps=30, depth_fps=15)
    try:
        n = 8
        for i in range(n // 2 + 1):
            k.push_depth(i, scene_depth())
        pts = []
        for i in range(n):
            k.push_video(i, FG, faces=[FACE])
            img, _, p = k.pull()
            pts.append(p)
            y, x = WALL_PX
            assert [int(channel(img, "BGRx", c)[y, x]) for c in "rgb"] == list(BG_RGB)
        assert pts == [Gst.util_uint64_scale(i, SECOND, 30) for i in range(n)]
    finally:
        k.stop()


def test_background_pad_replaces_background_with_aspect_fill():
    # a 2:1 background into a 4:3 output: scaled to the output height, centre-cropped
    bw, bh = 100, 50
    bg = np.zeros((bh, bw, 3), np.uint8)
    bg[:] = (10, 200, 30)
    bg[:, 80:] = (0, 255, 0)       # right-most fifth is bright green
    k = Keyer(size=(W, H), depth_size=(DW, DH), background=("RGBA", (bw, bh)))
    try:
        k.push_background(0, "RGBA", (bw, bh), bg)
        img, _, _ = run_frames(k, 1, scene_depth())[0]
        r, g, b = (channel(img, "BGRx", c).astype(int) for c in "rgb")
        y = H - 10
        # scale 120/50 = 2.4: output x = 2.4*src_x - 40, so src column 80 lands at x = 152
        assert (r[y, 156], g[y, 156], b[y, 156]) == (0, 255, 0)
        assert (r[y, 140], g[y, 140], b[y, 140]) == (10, 200, 30)
        # the subject is kept over the background pad
        assert (r[SUBJECT_PX], g[SUBJECT_PX], b[SUBJECT_PX]) == FG
    finally:
        k.stop()


def test_cutoff_follows_face_depth_and_holds_without_face():
    # pins the original sample's lock (first box, held); test_subject_lock.py covers the default
    k = Keyer(f"background-color={BG_COLOR} lock-strategy=original", size=(W, H), depth_size=(DW, DH))
    try:
        outs = []
        # subject at 0.8 m: cutoff 1.05, distractor at 1.35 m is keyed out
        outs += run_frames(k, 2, scene_depth(0.8, distractor_m=1.35))
        # subject steps back to 1.2 m: cutoff 1.45, the distractor is now in front of it
        outs += run_frames(k, 2, scene_depth(1.2, distractor_m=1.35))
        # the face disappears and the subject steps back to 0.9 m: the cutoff holds at 1.45
        outs += run_frames(k, 2, scene_depth(0.9, distractor_m=1.35), faces=None)
        msgs = k.messages()
        assert len(msgs) == 6
        cut = [m.get_value("cutoff") for m in msgs]
        assert cut == pytest.approx([1.05, 1.05, 1.45, 1.45, 1.45, 1.45], abs=1e-9)
        assert [m.get_value("face-found") for m in msgs] == [True] * 4 + [False] * 2
        assert [m.get_value("face-depth") for m in msgs] == pytest.approx([0.8, 0.8, 1.2, 1.2, 0, 0], abs=1e-9)
        dist = [tuple(int(channel(o[0], "BGRx", c)[DISTRACTOR_PX]) for c in "rgb") for o in outs]
        assert dist[0] == BG_RGB and dist[1] == BG_RGB
        assert dist[2] == FG and dist[5] == FG
    finally:
        k.stop()


def test_cutoff_before_any_face_and_fixed_mode():
    k = Keyer("cutoff=1.5 lock-strategy=original", size=(W, H), depth_size=(DW, DH))
    try:
        run_frames(k, 1, scene_depth(), faces=None)
        run_frames(k, 1, scene_depth())
        k.m.set_property("mode", "fixed")          # changed while PLAYING
        run_frames(k, 1, scene_depth())
        msgs = k.messages()
        cut = [m.get_value("cutoff") for m in msgs]
        assert cut == pytest.approx([1.5, 1.05, 1.5])
        # every frame was cut at the lock's cutoff (the original lock keys without a subject too)
        assert [m.get_value("keyed-cutoff") for m in msgs] == pytest.approx(cut)
    finally:
        k.stop()


def test_keyed_cutoff_is_zero_where_nothing_is_keyed():
    # mode=nearest over an empty room: no subject, subject-only keys nothing at 0 m
    # while the lock's cutoff stays the property's
    k = Keyer("mode=nearest cutoff=1.5", size=(W, H), depth_size=(DW, DH))
    try:
        run_frames(k, 2, np.full((DH, DW), 3.0), faces=None)
        msgs = k.messages()
        assert [m.get_value("lock") for m in msgs] == ["fixed", "fixed"]
        assert [m.get_value("cutoff") for m in msgs] == pytest.approx([1.5, 1.5])
        assert [m.get_value("keyed-cutoff") for m in msgs] == [0, 0]
        assert [m.get_value("coverage") for m in msgs] == [0, 0]
    finally:
        k.stop()


def test_output_matte_values():
    k = Keyer("output=matte", size=(W, H), depth_size=(DW, DH))
    try:
        img, caps, _ = run_frames(k, 1, scene_depth())[0]
        r, g, b = (channel(img, "BGRx", c) for c in "rgb")
        assert (r == g).all() and (g == b).all()
        assert r[SUBJECT_PX] == 255 and r[WALL_PX] == 0
        # the edge is soft: a ramp, monotone from subject to wall
        row = r[H // 2].astype(int)
        assert 0 < row[W // 2 + 2] < 255
        assert (np.diff(row) <= 0).all()
    finally:
        k.stop()


def test_output_alpha_gets_alpha_format_and_values():
    k = Keyer("output=alpha", fmt="BGRx", size=(W, H), depth_size=(DW, DH))
    try:
        img, caps, _ = run_frames(k, 1, scene_depth())[0]
        assert caps.get_structure(0).get_value("format") == "BGRA"
        a = channel(img, "BGRA", "a")
        assert a[SUBJECT_PX] == 255 and a[WALL_PX] == 0
        # colour untouched everywhere, also where alpha is 0
        for c, v in zip("rgb", FG):
            assert (channel(img, "BGRA", c) == v).all()
    finally:
        k.stop()


def test_message_fields_and_switch():
    k = Keyer(size=(W, H), depth_size=(DW, DH))
    # coverage bounds below are the original chain's soft edge
    k.m.set_property("refine", "original")
    try:
        run_frames(k, 3, scene_depth())
        msgs = k.messages()
        assert len(msgs) == 3
        for i, m in enumerate(msgs):
            assert m.get_value("running-time") == i * (SECOND // 30)
            assert isinstance(m.get_value("face-found"), bool)
            assert m.get_value("face-depth") == pytest.approx(0.8)
            assert m.get_value("cutoff") == pytest.approx(1.05)
            # subject is the left half; the soft edge adds a little
            assert 0.48 < m.get_value("coverage") < 0.62
        k.m.set_property("post-messages", False)
        run_frames(k, 2, scene_depth())
        assert k.messages() == []
    finally:
        k.stop()


def test_face_depth_is_median_ignoring_holes():
    d = scene_depth(0.8)
    fx, fy, fw, fh = FACE
    # holes and one far outlier inside the face box (depth coordinates = video / 2)
    d[fy // 2 + 4: fy // 2 + 12, fx // 2 + 4: fx // 2 + 10] = 0
    d[fy // 2 + 6, fx // 2 + 6: fx // 2 + 9] = 3.0
    k = Keyer(size=(W, H), depth_size=(DW, DH))
    try:
        run_frames(k, 1, d)
        m = k.messages()[0]
        assert m.get_value("face-depth") == pytest.approx(0.8)
    finally:
        k.stop()


def test_rgb_on_depth_pad_is_refused_with_clear_error():
    desc = ("depthmatte name=m ! fakesink "
            "appsrc name=vsrc format=time caps=video/x-raw,format=BGRx,width=16,height=16,framerate=30/1 ! m.video "
            "appsrc name=dsrc format=time caps=video/x-raw,format=RGB,width=16,height=16,framerate=30/1 ! m.depth")
    src, err, debug = refused_caps_error(desc, "dsrc", 16 * 16 * 3)
    assert src == "m"
    assert "depth" in err.message
    assert "GRAY16_LE" in debug and "RGB" in debug


def test_missing_depth_pad_passes_video_through_with_warning():
    desc = (f"depthmatte name=m background-color={BG_COLOR} ! appsink name=sink sync=false "
            f"videotestsrc num-buffers=3 pattern=solid-color foreground-color=0xff336699 ! "
            f"video/x-raw,format=BGRx,width=32,height=24 ! m.video")
    p = Gst.parse_launch(desc)
    try:
        p.set_state(Gst.State.PLAYING)
        sink = p.get_by_name("sink")
        frames = []
        while (s := sink.emit("try-pull-sample", 5 * SECOND)) is not None:
            ok, mi = s.get_buffer().map(Gst.MapFlags.READ)
            frames.append(np.frombuffer(mi.data, np.uint8).reshape(24, 32, 4).copy())
            s.get_buffer().unmap(mi)
        assert len(frames) == 3
        assert (frames[0][..., 2] == 0x33).all() and (frames[0][..., 1] == 0x66).all()
        warn = p.get_bus().pop_filtered(Gst.MessageType.WARNING)
        assert warn is not None and "depth" in warn.parse_warning()[0].message.lower()
    finally:
        p.set_state(Gst.State.NULL)


def test_depth_ending_early_is_held():
    k = Keyer(f"background-color={BG_COLOR}", size=(W, H), depth_size=(DW, DH))
    try:
        k.push_depth(0, scene_depth())
        k.dsrc.emit("end-of-stream")
        for i in range(4):
            k.push_video(i, FG, faces=[FACE])
            img, _, _ = k.pull()
            assert tuple(int(channel(img, "BGRx", c)[WALL_PX]) for c in "rgb") == BG_RGB
            assert tuple(int(channel(img, "BGRx", c)[SUBJECT_PX]) for c in "rgb") == FG
        k.vsrc.emit("end-of-stream")
        assert k.pull_eos()
    finally:
        k.stop()


def test_properties_documented_with_ranges():
    m = Gst.ElementFactory.make("depthmatte", None)
    assert Gst.ElementFactory.find("depthmatte").get_metadata("klass") == "Filter/Editor/Video/Compositor"
    expect = {"mode": "face", "cutoff": 1.0, "cutoff-offset": 0.25, "blur-radius": 5.0, "gamma": 0.5,
              "depth-scale": 0.001, "background-color": 0xFF000000, "output": "composite", "post-messages": True,
              "n-threads": 0, "field-of-view": 0.0}
    for name, default in expect.items():
        spec = m.find_property(name)
        assert spec is not None, name
        assert spec.blurb and len(spec.blurb) > 10
        assert spec.flags & Gst.PARAM_MUTABLE_PLAYING, name
        v = m.get_property(name)
        if hasattr(v, "value_nick"):
            v = v.value_nick
        assert v == default, name
    m.set_property("gamma", 2.0)
    with pytest.warns(Warning, match="out of range"):
        m.set_property("gamma", -1.0)  # outside the param spec range: refused, value kept
    assert m.get_property("gamma") == 2.0


@pytest.mark.parametrize("threads", [1, 2, 3])
def test_threads_give_identical_output(threads):
    """Rows split across threads must give the same bytes as one thread."""
    outs = []
    for n in (1, threads):
        k = Keyer(f"n-threads={n} background-color={BG_COLOR}", size=(W, H), depth_size=(DW, DH))
        try:
            d = scene_depth(distractor_m=1.35)
            d[10:30, 5:25] = 0.9    # a second near blob: more edge
            outs.append(run_frames(k, 1, d)[0][0])
        finally:
            k.stop()
    assert np.array_equal(outs[0], outs[1])


def test_latency_adds_at_most_one_frame():
    """In a live pipeline depthmatte reports upstream latency + at most one output frame."""
    import time
    src = ("rgbdtestsrc is-live=true ! video/x-raw,width=64,height=36,framerate=30/1 ! ")
    alone = Gst.parse_launch(src + "fakesink name=s")
    keyed = Gst.parse_launch(
        "depthmatte name=m ! fakesink "
        + src + "m.video "
        "rgbdtestsrc is-live=true stream=depth ! video/x-raw,width=32,height=18,framerate=30/1 ! m.depth")
    lat = []
    for p, name in ((alone, "s"), (keyed, "m")):
        p.set_state(Gst.State.PLAYING)
        p.get_state(5 * SECOND)
        time.sleep(0.3)
        el = p.get_by_name(name)
        pad = el.get_static_pad("sink" if name == "s" else "src")
        q = Gst.Query.new_latency()
        assert (pad.peer_query(q) if name == "s" else pad.query(q))
        live, lo, hi = q.parse_latency()
        assert live
        lat.append(lo)
        p.set_state(Gst.State.NULL)
    frame = SECOND // 30
    assert lat[0] <= lat[1] <= lat[0] + frame + 1


def _panned_scene(shift, w=320, h=240, dw=160, dh=120):
    """A textured disc (1 m) before a textured wall (2 m), the camera panned so
    the picture shows the scene at (x + shift, y): video (2 x 2 samples per
    pixel) and registered depth at half the resolution."""
    ys, xs = np.mgrid[0:h, 0:w].astype(np.float64)
    acc = np.zeros((h, w, 3))
    for oy, ox in ((0.25, 0.25), (0.75, 0.25), (0.25, 0.75), (0.75, 0.75)):
        X, Y = xs + ox + shift, ys + oy
        t = 0.5 + 0.2 * np.sin(X / 3.1 + 0.7 * np.sin(Y / 5.3)) + 0.15 * np.cos(Y / 2.3 - X / 7.9)
        disc = (X - 150) ** 2 + (Y - 120) ** 2 < 70 ** 2
        acc += np.where(disc[..., None], np.stack([0.9 * t, 0.4 * t, 0.3 + 0 * t], -1),
                        np.stack([0.35 * t, 0.6 * t, 0.55 * t], -1))
    rgb = np.clip(acc / 4 * 255, 0, 255).astype(np.uint8)
    dys, dxs = np.mgrid[0:dh, 0:dw].astype(np.float64)
    near = (dxs * 2 + 1 + shift - 150) ** 2 + (dys * 2 + 1 - 120) ** 2 < 70 ** 2
    return rgb, np.where(near, 1.0, 2.0)


@pytest.mark.parametrize("step", [0.0, 0.6])
def test_camera_motion_is_reported_and_only_when_the_picture_moves(step):
    """refine=guided follows a pan of the whole picture: the message
    says so, with the picture's shift in video pixels; a still camera never."""
    k = Keyer("mode=fixed cutoff=1.5", size=(320, 240), depth_size=(160, 120))
    try:
        for i in range(8):
            rgb, depth = _panned_scene(step * i)
            k.push_video(i, rgb)
            k.push_depth(i, depth)
            k.pull()
        msgs = k.messages()
        assert len(msgs) == 8
        moving = [m.get_value("camera-moving") for m in msgs]
        shifts = [(m.get_value("camera-shift-x"), m.get_value("camera-shift-y")) for m in msgs]
        assert not moving[0]
        if step == 0:
            assert not any(moving) and all(s == (0, 0) for s in shifts)
        else:
            # the content moves left by `step` video pixels per frame
            assert all(moving[1:]), moving
            for sx, sy in shifts[1:]:
                assert sx == pytest.approx(-step, abs=0.05) and abs(sy) < 0.05
    finally:
        k.stop()


# ---- warnings that name a likely mistake, and none for a good result --------------

def warnings_and_reports(desc):
    """Run `desc` (with depthmatte name=m) to EOS: its WARNING texts and depthmatte's reports."""
    p = Gst.parse_launch(desc)
    p.set_state(Gst.State.PLAYING)
    warnings, reports = [], []
    try:
        while True:
            m = p.get_bus().timed_pop(120 * SECOND)  # 120 s only catch a hang
            assert m is not None, "no EOS"
            if m.type == Gst.MessageType.EOS:
                break
            assert m.type != Gst.MessageType.ERROR, m.parse_error()
            if m.type == Gst.MessageType.WARNING:
                warnings.append(m.parse_warning()[0].message)
            elif m.type == Gst.MessageType.ELEMENT and m.get_structure().get_name() == "depthmatte":
                reports.append(m.get_structure())
    finally:
        p.set_state(Gst.State.NULL)
    return warnings, reports


SCENE = ("rgbdtestsrc num-buffers=8 motion=false ! video/x-raw,width=160,height=90 ! m.video "
         "rgbdtestsrc num-buffers=8 motion=false stream=depth ! video/x-raw,width=160,height=90 ! m.depth ")


@pytest.mark.parametrize("scale, warned", [(1.0, True), (0.001, False)])
def test_a_lock_beyond_any_depth_camera_warns_once_naming_depth_scale(scale, warned):
    # millimetre depth read as metres (depth-scale=1): readings of about 1 km
    warnings, reports = warnings_and_reports(f"depthmatte name=m depth-scale={scale} ! fakesink {SCENE}")
    far = [w for w in warnings if "beyond any depth camera's range" in w]
    assert len(reports) == 8
    if warned:
        assert len(far) == 1 and "depth-scale (1 metres per depth unit)" in far[0] and "0.001" in far[0], warnings
    else:
        assert all(0 < r.get_value("face-depth") < 3 for r in reports)  # a lock at about 1 m
        assert far == [], warnings


@pytest.mark.parametrize("depth", [False, True])
def test_a_person_pad_without_a_depth_pad_keys_by_the_mask_without_a_warning(depth):
    person = ("rgbdtestsrc num-buffers=8 motion=false stream=truth ! video/x-raw,width=160,height=90 ! "
              "videoconvert ! video/x-raw,format=GRAY8 ! m.person ")
    desc = f"depthmatte name=m ! fakesink {person}" + (SCENE if depth else SCENE.split(" m.video ")[0] + " m.video ")
    warnings, reports = warnings_and_reports(desc)
    assert warnings == []
    assert len(reports) == 8
    # keyed: part of the picture is the person, the rest background
    assert all(0.05 < r.get_value("coverage") < 0.9 for r in reports), [r.get_value("coverage") for r in reports]


def test_no_depth_and_no_person_warns_that_the_video_passes_unkeyed():
    warnings, _ = warnings_and_reports(f"depthmatte name=m ! fakesink {SCENE.split(' m.video ')[0]} m.video ")
    assert warnings == ["No depth frame: passing the video through unkeyed."]
