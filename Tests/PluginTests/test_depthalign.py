# SPDX-License-Identifier: LGPL-2.1-or-later
"""depthalign on a camera pair with its own pose, intrinsics and resolution:
rgbdtestsrc renders what the depth camera of a calibration sees, depthalign
with the same calibration brings it back to the colour camera's view, and
depthmatte keys the colour with it. Unregistered depth puts the matte beside
the subject; registered depth gives the matte of depth drawn registered."""
import json
import math
import subprocess

import numpy as np
import pytest
from gi.repository import Gst, GstVideo
from harness import launch_failing

SECOND = Gst.SECOND
CW, CH = 320, 180          # colour
DW, DH = 212, 120          # depth (wider field of view, lower resolution)


def intrinsics(w, h, hfov_deg, model="none", coeffs=(0, 0, 0, 0, 0)):
    f = (w / 2) / math.tan(math.radians(hfov_deg) / 2)
    return {"width": w, "height": h, "fx": f, "fy": f, "ppx": (w - 1) / 2, "ppy": (h - 1) / 2,
            "model": model, "coeffs": list(coeffs)}


def rotation_yaw(deg):
    c, s = math.cos(math.radians(deg)), math.sin(math.radians(deg))
    return [c, 0, s, 0, 1, 0, -s, 0, c]


def write_calibration(path, **over):
    cal = {"depth": intrinsics(DW, DH, 86), "color": intrinsics(CW, CH, 64),
           "depth_to_color": {"rotation": rotation_yaw(1.0), "translation": [-0.05, 0.0, 0.0]},
           "depth_scale": 0.001}
    for k, v in over.items():
        cal[k] = v
    path.write_text(json.dumps(cal))
    return str(path)


@pytest.fixture
def calibration(tmp_path):
    return write_calibration(tmp_path / "pair.json")


def mattes(depth_branch, n=6):
    """Matte (0-1) of depthmatte over rgbdtestsrc colour (CWxCH) and `depth_branch`."""
    desc = (f"depthmatte name=m mode=fixed cutoff=1.6 refine=none output=matte ! "
            f"video/x-raw,format=BGRx ! appsink name=sink sync=false "
            f"rgbdtestsrc num-buffers={n} motion=false ! video/x-raw,format=BGRx,width={CW},height={CH},"
            f"framerate=10/1 ! m.video {depth_branch} ! m.depth")
    p = Gst.parse_launch(desc)
    sink = p.get_by_name("sink")
    p.set_state(Gst.State.PLAYING)
    out = []
    while (s := sink.emit("try-pull-sample", 20 * SECOND)) is not None:
        info = GstVideo.VideoInfo.new_from_caps(s.get_caps())
        ok, mi = s.get_buffer().map(Gst.MapFlags.READ)
        rows = np.frombuffer(mi.data, np.uint8)[: info.stride[0] * info.height].reshape(info.height, -1)
        out.append(rows[:, : info.width * 4].reshape(info.height, info.width, 4)[..., 1] / 255.0)
        s.get_buffer().unmap(mi)
    err = p.get_bus().pop_filtered(Gst.MessageType.ERROR)
    p.set_state(Gst.State.NULL)
    assert err is None, err.parse_error()
    assert len(out) == n
    return out


def iou(a, b):
    a, b = a > 0.5, b > 0.5
    return (a & b).sum() / max(1, (a | b).sum())


def centre_x(m):
    return np.nonzero(m > 0.5)[1].mean()


def test_registered_depth_gives_the_matte_of_registered_depth(calibration):
    registered = mattes(f"rgbdtestsrc num-buffers=6 motion=false stream=depth ! "
                        f"video/x-raw,width={CW},height={CH},framerate=10/1")
    aligned = mattes(f"rgbdtestsrc num-buffers=6 motion=false stream=depth calibration={calibration} ! "
                     f"video/x-raw,framerate=10/1 ! depthalign calibration={calibration}")
    unaligned = mattes(f"rgbdtestsrc num-buffers=6 motion=false stream=depth calibration={calibration} ! "
                       f"video/x-raw,framerate=10/1 ! videoscale method=nearest-neighbour ! "
                       f"video/x-raw,width={CW},height={CH}")
    good = min(iou(a, r) for a, r in zip(aligned, registered))
    bad = max(iou(u, r) for u, r in zip(unaligned, registered))
    shift = abs(centre_x(unaligned[-1]) - centre_x(registered[-1]))
    print(f"IoU registered {good:.3f}, unregistered {bad:.3f}, unregistered centre off by {shift:.1f} px")
    assert good > 0.95
    assert bad < 0.85
    assert shift > 3
    assert abs(centre_x(aligned[-1]) - centre_x(registered[-1])) < 1.0


def test_depth_camera_stream_has_the_calibrated_size(calibration):
    p = Gst.parse_launch(f"rgbdtestsrc num-buffers=1 stream=depth calibration={calibration} ! "
                         f"depthalign name=a calibration={calibration} ! appsink name=sink sync=false")
    p.set_state(Gst.State.PLAYING)
    s = p.get_by_name("sink").emit("try-pull-sample", 10 * SECOND)
    in_caps = p.get_by_name("a").get_static_pad("sink").get_current_caps().get_structure(0)
    p.set_state(Gst.State.NULL)
    out = s.get_caps().get_structure(0)
    assert (in_caps.get_value("width"), in_caps.get_value("height")) == (DW, DH)
    assert (out.get_value("width"), out.get_value("height")) == (CW, CH)
    assert out.get_value("format") == "GRAY16_LE"


@pytest.mark.parametrize("scene,tx", [("enter-left", -0.025), ("carry-binder", 0.025)])
def test_walk_keyed_through_depthalign_as_through_registered_depth(tmp_path, scene, tx):
    # the Kinect-like walk (4:3 320x240, square pixels, quantised, correlated
    # noise, holes; mode=nearest) with its depth from a camera 2.5 cm beside
    # the colour camera, brought back by depthalign: the registered map has
    # a band of holes along one side, which counts as outside the picture, so
    # the floor beside it "reaches a side" and is cut (read as picture, the
    # floor is keyed: fully-in-view IoU 0.91). Fully in view: the truth
    # touching neither side.
    from harness import pixels, pull_all
    w, h = 320, 240
    cal = write_calibration(tmp_path / "walk.json", depth=intrinsics(w, h, 62), color=intrinsics(w, h, 62),
                            depth_to_color={"rotation": [1, 0, 0, 0, 1, 0, 0, 0, 1], "translation": [tx, 0.0, 0.0]})
    n = 40
    src = (f"rgbdtestsrc scene={scene} noise=true holes=true flying-pixels=true seed=5 square-pixels=true "
           f"quantization=true correlated-noise=true face-meta=false num-buffers={n}")
    caps = f"framerate=4/1"

    def run(launch):
        p = Gst.parse_launch(launch)
        p.set_state(Gst.State.PLAYING)
        try:
            out = [pixels(x)[:, :, 0] / 255 for x in pull_all(p)]
            assert p.get_bus().pop_filtered(Gst.MessageType.ERROR) is None
        finally:
            p.set_state(Gst.State.NULL)
        assert len(out) == n
        return out
    truth = run(f"{src} stream=truth ! video/x-raw,width={w},height={h},{caps} ! appsink name=sink sync=false")
    alpha = run(f"depthmatte name=m output=matte mode=nearest ! video/x-raw,format=RGBA ! appsink name=sink sync=false "
                f"{src} ! video/x-raw,format=RGBA,width={w},height={h},{caps} ! m.video "
                f"{src} stream=depth calibration={cal} ! video/x-raw,{caps} ! depthalign calibration={cal} ! m.depth")
    full = np.array([iou(a, t) for a, t in zip(alpha, truth)
                     if (t > 0.5).any() and not (t[:, 0] > 0.5).any() and not (t[:, -1] > 0.5).any()])
    print(scene, tx, "fully in view", len(full), full.round(3))
    assert len(full) >= 15
    assert full.mean() >= 0.98 and full.min() >= 0.93, full


def first_error(desc):
    p = Gst.parse_launch(desc)
    p.set_state(Gst.State.PLAYING)
    m = p.get_bus().timed_pop_filtered(10 * SECOND, Gst.MessageType.ERROR | Gst.MessageType.EOS)
    p.set_state(Gst.State.NULL)
    assert m is not None and m.type == Gst.MessageType.ERROR, "no error"
    return (m.src.get_name(), *m.parse_error())


def test_no_calibration_is_a_clear_error():
    src, err, _ = first_error("rgbdtestsrc num-buffers=1 stream=depth ! depthalign name=a ! fakesink")
    assert src == "a" and err.matches(Gst.ResourceError.quark(), Gst.ResourceError.NOT_FOUND)
    assert "no calibration file" in err.message


def test_missing_calibration_file_names_the_file(tmp_path):
    path = tmp_path / "nowhere.json"
    src, err, _ = first_error(f"rgbdtestsrc num-buffers=1 stream=depth ! depthalign name=a calibration={path} ! "
                              "fakesink")
    assert src == "a" and err.matches(Gst.ResourceError.quark(), Gst.ResourceError.NOT_FOUND)
    assert str(path) in err.message


@pytest.mark.parametrize("over,field,why", [
    ({"color": {**intrinsics(CW, CH, 64), "fx": -3}}, "color.fx", "focal length must be > 0 pixels"),
    ({"color": {k: v for k, v in intrinsics(CW, CH, 64).items() if k != "fy"}}, "color.fy", "missing field"),
    ({"depth": {**intrinsics(DW, DH, 86), "width": "212"}}, "depth.width", "expected a number, found a string"),
    ({"depth": {**intrinsics(DW, DH, 86), "height": 119.5}}, "depth.height", "must be a whole number of pixels"),
    ({"depth_to_color": {"rotation": [1, 0, 0, 0, 1, 0], "translation": [0, 0, 0]}}, "depth_to_color.rotation",
     "expected 9 numbers, found 6"),
    ({"depth_to_color": {"rotation": [1, 0, 0, 0, 1, 0, 0, 0.1, 1], "translation": [0, 0, 0]}},
     "depth_to_color.rotation", "not a rotation"),
    ({"depth": {**intrinsics(DW, DH, 86), "model": "fisheye"}}, "depth.model", "unknown distortion model"),
    ({"depth_scale": 0}, "depth_scale", "must be > 0"),
])
def test_bad_calibration_field_names_the_file_and_field(tmp_path, over, field, why):
    path = write_calibration(tmp_path / "bad.json", **over)
    src, err, debug = first_error(f"rgbdtestsrc num-buffers=1 stream=depth ! depthalign name=a calibration={path} ! "
                                  "fakesink")
    assert src == "a" and err.matches(Gst.ResourceError.quark(), Gst.ResourceError.SETTINGS)
    assert err.message.startswith(f'The calibration file "{path}" is invalid: {field}: {why}'), err.message
    assert f"field '{field}' of {path}" in debug


def test_json_syntax_error_names_the_file_line_and_column(tmp_path):
    # json-glib's position (line, and column of the token's last character)
    # in the element's message
    write_calibration(tmp_path / "ok.json")
    text = json.dumps(json.loads((tmp_path / "ok.json").read_text()), indent=2)
    text = text.replace('"depth_scale": 0.001', '"depth_scale": NaN')
    lines = text.split("\n")
    line = next(i for i, t in enumerate(lines) if "NaN" in t)
    column = lines[line].index("NaN") + 3
    path = tmp_path / "nan.json"
    path.write_text(text)
    src, err, _ = first_error(f"rgbdtestsrc num-buffers=1 stream=depth ! depthalign name=a calibration={path} ! "
                              "fakesink")
    assert src == "a" and err.matches(Gst.ResourceError.quark(), Gst.ResourceError.SETTINGS)
    assert err.message.startswith(f'The calibration file "{path}" is invalid: invalid JSON at line {line + 1}, '
                                  f"column {column}: unexpected identifier `NaN'"), err.message


def test_truncated_json_is_an_error_not_a_crash(tmp_path):
    path = tmp_path / "cut.json"
    path.write_text('{"depth": {"width": 212, "height": ')
    src, err, _ = first_error(f"rgbdtestsrc num-buffers=1 stream=depth ! depthalign name=a calibration={path} ! "
                              "fakesink")
    assert src == "a" and str(path) in err.message
    assert "is invalid: invalid JSON at line 1, column 35: unexpected end of file" in err.message, err.message


def test_deeply_nested_json_is_an_error_not_a_crash(tmp_path):
    path = tmp_path / "deep.json"
    path.write_text("[" * 100000)
    src, err, _ = first_error(f"rgbdtestsrc num-buffers=1 stream=depth ! depthalign name=a calibration={path} ! "
                              "fakesink")
    assert src == "a" and err.matches(Gst.ResourceError.quark(), Gst.ResourceError.SETTINGS)
    assert "invalid JSON at line 1, column 65: nested more than 64 levels" in err.message, err.message


def test_rgbdtestsrc_refuses_a_bad_calibration_the_same_way(tmp_path):
    path = write_calibration(tmp_path / "bad.json", depth_scale="0.001")
    src, err, debug = first_error(f"rgbdtestsrc name=s num-buffers=1 stream=depth calibration={path} ! fakesink")
    assert src == "s" and err.matches(Gst.ResourceError.quark(), Gst.ResourceError.SETTINGS)
    assert err.message == (f'The calibration file "{path}" is invalid: depth_scale: expected a number, '
                           "found a string."), err.message


def test_depth_of_another_size_is_refused_with_a_clear_message(calibration):
    src, err, _ = first_error(f"rgbdtestsrc num-buffers=1 stream=depth ! video/x-raw,width=160,height=90 ! "
                              f"depthalign name=a calibration={calibration} ! fakesink")
    assert src == "a" and err.matches(Gst.CoreError.quark(), Gst.CoreError.NEGOTIATION)
    assert "160x90" in err.message and f"{DW}x{DH}" in err.message and calibration in err.message


def test_depth_of_another_size_is_one_error(calibration):
    # negotiation retries the same caps: the user sees the error once
    rc, out = launch_failing(["rgbdtestsrc", "num-buffers=1", "stream=depth", "!",
                              "video/x-raw,width=160,height=90", "!", "depthalign", "name=a",
                              f"calibration={calibration}", "!", "fakesink"])
    assert rc != 0 and out.count("is for ") == 1, out


def test_identity_calibration_returns_the_input(tmp_path):
    """Same camera twice: every valid pixel comes back unchanged."""
    cam = intrinsics(64, 48, 60)
    path = tmp_path / "same.json"
    path.write_text(json.dumps({"depth": cam, "color": cam,
                                "depth_to_color": {"rotation": [1, 0, 0, 0, 1, 0, 0, 0, 1],
                                                   "translation": [0, 0, 0]}, "depth_scale": 0.001}))
    p = Gst.parse_launch(f"rgbdtestsrc num-buffers=1 stream=depth motion=false ! video/x-raw,width=64,height=48 ! "
                         f"tee name=t t. ! queue ! appsink name=raw sync=false "
                         f"t. ! queue ! depthalign calibration={path} ! appsink name=out sync=false")
    p.set_state(Gst.State.PLAYING)
    a = p.get_by_name("raw").emit("try-pull-sample", 10 * SECOND)
    b = p.get_by_name("out").emit("try-pull-sample", 10 * SECOND)

    def arr(s):
        ok, mi = s.get_buffer().map(Gst.MapFlags.READ)
        v = np.frombuffer(mi.data, "<u2").reshape(48, 64).copy()
        s.get_buffer().unmap(mi)
        return v
    raw, out = arr(a), arr(b)
    p.set_state(Gst.State.NULL)
    valid = raw > 0
    assert valid.mean() > 0.9
    same = np.abs(out.astype(int) - raw) <= 1
    print(f"identity: {same[valid].mean():.4f} of valid pixels unchanged")
    # all but one-pixel slivers of background between near samples (which a
    # z-buffered splat cannot tell from an upsampling gap) come back as they were
    assert same[valid].mean() > 0.995


def test_colour_into_depthalign_is_refused_with_the_shared_clear_error(calibration):
    """Linked without a caps check (as a decoder's pad would be), RGBA arrives at
    run time: one CORE/NEGOTIATION error from depthalign naming the pad, the
    offered and accepted formats and the fix."""
    p = Gst.Pipeline()
    src = Gst.ElementFactory.make("appsrc")
    src.set_property("caps", Gst.Caps.from_string("video/x-raw,format=RGBA,width=212,height=120,framerate=10/1"))
    src.set_property("format", Gst.Format.TIME)
    align = Gst.ElementFactory.make("depthalign", "a")
    align.set_property("calibration", calibration)
    sink = Gst.ElementFactory.make("fakesink")
    for e in (src, align, sink):
        p.add(e)
    assert src.get_static_pad("src").link_full(align.get_static_pad("sink"),
                                               Gst.PadLinkCheck.NOTHING) == Gst.PadLinkReturn.OK
    assert align.link(sink)
    p.set_state(Gst.State.PLAYING)
    buf = Gst.Buffer.new_wrapped(bytes(212 * 120 * 4))
    buf.pts, buf.duration = 0, SECOND // 10
    src.emit("push-buffer", buf)
    m = p.get_bus().timed_pop_filtered(10 * SECOND, Gst.MessageType.ERROR)
    p.set_state(Gst.State.NULL)
    assert m is not None
    assert m.src.get_name() == "a"
    err, debug = m.parse_error()
    assert err.matches(Gst.CoreError.quark(), Gst.CoreError.NEGOTIATION)
    assert "sink pad of a cannot take RGBA: it takes depth" in err.message and "GRAY16_LE" in err.message
    assert "videoconvert" not in err.message


def test_big_endian_depth_gives_the_same_registration(calibration):
    """GRAY16_BE (what pngdec gives for 16-bit PNG depth) registers exactly
    like the same depth in GRAY16_LE."""
    def registered(convert):
        p = Gst.parse_launch(f"rgbdtestsrc num-buffers=2 stream=depth motion=false calibration={calibration} ! "
                             f"{convert}depthalign calibration={calibration} ! appsink name=sink sync=false")
        p.set_state(Gst.State.PLAYING)
        s = p.get_by_name("sink").emit("try-pull-sample", 10 * SECOND)
        ok, mi = s.get_buffer().map(Gst.MapFlags.READ)
        v = np.frombuffer(mi.data, "<u2").copy()
        s.get_buffer().unmap(mi)
        p.set_state(Gst.State.NULL)
        return v
    le = registered("")
    be = registered("videoconvert ! video/x-raw,format=GRAY16_BE ! ")
    assert (le > 0).mean() > 0.5
    assert np.array_equal(le, be)


def test_readme_first_example_runs_with_test_sources(calibration, tmp_path):
    """The README's first line as typed, with the hardware sources replaced by
    stand-ins of the same kind: a webcam's YUY2 (unnamed link into depthmatte)
    and a separate depth camera through depthalign; the MP4 decodes with the
    stock openh264dec."""
    import subprocess
    out = tmp_path / "out.mp4"
    line = ("gst-launch-1.0 -e videotestsrc num-buffers=15 ! video/x-raw,format=YUY2,width=320,height=180 ! "
            "videoconvert ! facedetect ! depthmatte name=m ! videoconvert ! video/x-raw,format=I420 ! x264enc ! "
            f"mp4mux ! filesink location={out} "
            f"rgbdtestsrc num-buffers=15 stream=depth calibration={calibration} ! "
            f"depthalign calibration={calibration} ! m.depth")
    if Gst.ElementFactory.find("facedetect") is None:
        line = line.replace("facedetect ! ", "")
    r = subprocess.run(line.split(), capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]
    p = Gst.parse_launch(f"filesrc location={out} ! qtdemux ! h264parse ! openh264dec ! appsink name=sink sync=false")
    p.set_state(Gst.State.PLAYING)
    n = 0
    while p.get_by_name("sink").emit("try-pull-sample", 10 * SECOND) is not None:
        n += 1
    p.set_state(Gst.State.NULL)
    assert n == 15


@pytest.mark.parametrize("translation, warned", [([26, 0, 0], True), ([-0.05, 0.0, 0.0], False)])
def test_a_baseline_over_a_metre_warns_that_translation_is_in_metres(tmp_path, translation, warned):
    cal = write_calibration(tmp_path / "pair.json",
                            depth_to_color={"rotation": rotation_yaw(1.0), "translation": translation})
    p = Gst.parse_launch(f"rgbdtestsrc num-buffers=3 stream=depth calibration={calibration_of(tmp_path)} ! "
                         f"depthalign calibration={cal} ! fakesink")
    p.set_state(Gst.State.PLAYING)
    msgs = []
    try:
        while (m := p.get_bus().timed_pop_filtered(120 * Gst.SECOND, Gst.MessageType.EOS | Gst.MessageType.ERROR
                                                   | Gst.MessageType.WARNING)) is not None:
            if m.type == Gst.MessageType.EOS:
                break
            assert m.type != Gst.MessageType.ERROR, m.parse_error()
            msgs.append(m.parse_warning()[0].message)
    finally:
        p.set_state(Gst.State.NULL)
    if warned:
        assert len(msgs) == 1 and "26.0 m from the colour camera" in msgs[0] and "in metres" in msgs[0], msgs
    else:
        assert msgs == []


def calibration_of(tmp_path):
    """A calibration with a 5 cm baseline, for the depth source's size."""
    return write_calibration(tmp_path / "source.json")
