# SPDX-License-Identifier: LGPL-2.1-or-later
"""realsensesrc (gst-python/python/realsensesrc.py) against synthetic librealsense
recordings made at test time (realsense_fixtures.py): pads, properties, every
frame with the recording's timestamps, depth values, calibration JSON, depth
registered to colour through depthmatte, and errors.

Needs pyrealsense2 and Debian's gst-python loader (scripts/setup installs both)
and `$REPO/gst-python` on GST_PLUGIN_PATH (scripts/test adds it)."""
import json
import os
import subprocess
import sys
import time

import numpy as np
import pytest
from gi.repository import Gst, GstVideo

try:
    import pyrealsense2 as rs
except ImportError:  # pragma: no cover - scripts/setup installs it
    rs = None

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
GST_PYTHON_DIR = os.path.join(ROOT, "gst-python")
SECOND = Gst.SECOND

if rs is None:
    pytest.skip("pyrealsense2 is not installed (scripts/setup installs it)", allow_module_level=True)
if Gst.Registry.get().find_plugin("python") is None:
    pytest.skip("the GStreamer Python plugin loader is not installed "
                "(Debian: gstreamer1.0-python3-plugin-loader; scripts/setup installs it)",
                allow_module_level=True)

import realsense_fixtures as fx  # noqa: E402
from harness import launch  # noqa: E402


@pytest.fixture(scope="module", autouse=True)
def _element_present():
    if Gst.ElementFactory.find("realsensesrc") is None:
        pytest.fail(f"realsensesrc not found although pyrealsense2 and the python loader are installed: "
                    f"is {GST_PYTHON_DIR} on GST_PLUGIN_PATH (scripts/test adds it)? "
                    f"GST_PLUGIN_PATH={os.environ.get('GST_PLUGIN_PATH')}")


@pytest.fixture(scope="module")
def scene(tmp_path_factory):
    path = str(tmp_path_factory.mktemp("realsense") / ("synthetic" + fx.recording_suffix()))
    return fx.make_recording(path, frames=36)


def subprocess_env(tmp_path):
    env = dict(os.environ)
    paths = [p for p in env.get("GST_PLUGIN_PATH", "").split(os.pathsep) if p]
    if GST_PYTHON_DIR not in paths:
        paths.append(GST_PYTHON_DIR)
    env["GST_PLUGIN_PATH"] = os.pathsep.join(paths)
    env["GST_REGISTRY"] = str(tmp_path / "registry.bin")
    return env


def frame_array(sample):
    buf = sample.get_buffer()
    info = GstVideo.VideoInfo.new_from_caps(sample.get_caps())
    ok, mi = buf.map(Gst.MapFlags.READ)
    assert ok
    raw = np.frombuffer(mi.data, np.uint8).copy()
    buf.unmap(mi)
    ps = info.finfo.pixel_stride[0]
    rows = raw[: info.stride[0] * info.height].reshape(info.height, info.stride[0])[:, : info.width * ps]
    return rows, info, buf.pts, buf.duration


def pull_all(pipeline, sink_names, timeout=20):
    """Every sample of each appsink until EOS (appsinks must have unlimited queues)."""
    sinks = {n: pipeline.get_by_name(n) for n in sink_names}
    out = {n: [] for n in sink_names}
    bus = pipeline.get_bus()
    assert pipeline.set_state(Gst.State.PLAYING) != Gst.StateChangeReturn.FAILURE, bus.pop_filtered(
        Gst.MessageType.ERROR).parse_error()
    deadline = time.monotonic() + timeout
    try:
        for n, sink in sinks.items():
            while time.monotonic() < deadline:
                s = sink.emit("try-pull-sample", SECOND // 2)
                if s is not None:
                    out[n].append(frame_array(s))
                    continue
                if sink.get_property("eos"):
                    break
                err = bus.pop_filtered(Gst.MessageType.ERROR)
                assert err is None, err.parse_error()
            else:
                raise AssertionError(f"{n}: no EOS within {timeout} s ({len(out[n])} frames)")
        err = bus.pop_filtered(Gst.MessageType.ERROR)
        assert err is None, err.parse_error()
    finally:
        pipeline.set_state(Gst.State.NULL)
    return out


def iou(a, b):
    return np.logical_and(a, b).sum() / max(1, np.logical_or(a, b).sum())


# ------------------------------------------------------------------ inspect

def test_gst_inspect_shows_pads_and_properties(tmp_path):
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    r = subprocess.run(["gst-inspect-1.0", "realsensesrc"], capture_output=True, text=True,
                       env=dict(subprocess_env(tmp_path), TMPDIR=str(tmp)), timeout=120)
    assert r.returncode == 0, r.stderr
    # inspecting leaves nothing behind (no empty realsensesrc-* folder)
    assert list(tmp.iterdir()) == []
    out = r.stdout
    assert "SRC template: 'video'" in out and "SRC template: 'depth'" in out
    assert "GRAY16_LE" in out
    for prop in ("serial", "location", "align", "align-method", "depth-scale", "calibration-file",
                 "num-buffers", "color-width", "color-height", "depth-width", "depth-height",
                 "framerate", "timeout"):
        assert f"\n  {prop} " in out, prop
    assert "Traceback" not in r.stderr


# ------------------------------------------------------------------ playback

def test_recording_every_frame_on_both_pads_with_its_timestamps(scene):
    p = launch(f"realsensesrc location={scene.path} align=false name=s "
               "s.video ! appsink name=v sync=false "
               "s.depth ! appsink name=d sync=false")
    out = pull_all(p, ["v", "d"])
    want_pts = scene.relative_pts_ns()
    assert len(out["v"]) == scene.frames and len(out["d"]) == scene.frames
    assert [f[2] for f in out["v"]] == want_pts
    assert [f[2] for f in out["d"]] == want_pts
    assert all(f[3] == SECOND // scene.fps for f in out["v"] + out["d"])
    vi, di = out["v"][0][1], out["d"][0][1]
    assert (vi.finfo.format, vi.width, vi.height, vi.fps_n, vi.fps_d) == (
        GstVideo.VideoFormat.RGB, scene.color.width, scene.color.height, 30, 1)
    assert (di.finfo.format, di.width, di.height, di.fps_n, di.fps_d) == (
        GstVideo.VideoFormat.GRAY16_LE, scene.depth.width, scene.depth.height, 30, 1)
    for n in range(scene.frames):
        rgb = out["v"][n][0].reshape(vi.height, vi.width, 3)
        assert np.array_equal(rgb, scene.color_rgb[n]), f"colour frame {n}"
        depth = out["d"][n][0].copy().view("<u2").reshape(di.height, di.width)
        assert np.array_equal(depth, scene.depth_mm[n]), f"depth frame {n}"


def test_num_buffers(scene):
    p = launch(f"realsensesrc location={scene.path} align=false num-buffers=5 name=s "
               "s.video ! appsink name=v sync=false s.depth ! appsink name=d sync=false")
    out = pull_all(p, ["v", "d"])
    assert len(out["v"]) == 5 and len(out["d"]) == 5


def test_recording_is_not_live(scene):
    p = launch(f"realsensesrc location={scene.path} align=false name=s "
               "s.video ! fakesink s.depth ! fakesink")
    try:
        assert p.set_state(Gst.State.PAUSED) == Gst.StateChangeReturn.ASYNC
        assert p.get_state(10 * SECOND)[0] == Gst.StateChangeReturn.SUCCESS
        q = Gst.Query.new_latency()
        assert p.query(q)
        live, _, _ = q.parse_latency()
        assert not live
    finally:
        p.set_state(Gst.State.NULL)


def test_depth_scale_and_calibration_file(scene):
    p = launch(f"realsensesrc location={scene.path} name=s s.video ! fakesink s.depth ! fakesink")
    s = p.get_by_name("s")
    try:
        assert s.get_property("calibration-file") is None
        assert p.set_state(Gst.State.READY) == Gst.StateChangeReturn.SUCCESS
        assert s.get_property("depth-scale") == pytest.approx(scene.depth_scale, rel=1e-6)
        path = s.get_property("calibration-file")
        assert path and os.path.isfile(path)
        with open(path) as f:
            calib = json.load(f)
    finally:
        p.set_state(Gst.State.NULL)
    for key, intr in (("depth", scene.depth), ("color", scene.color)):
        c = calib[key]
        assert (c["width"], c["height"]) == (intr.width, intr.height)
        for k in ("fx", "fy", "ppx", "ppy"):
            assert c[k] == pytest.approx(getattr(intr, k), abs=1e-4), (key, k)
        assert c["model"] == intr.model
        assert c["coeffs"] == pytest.approx(list(intr.coeffs), abs=1e-6)
    rot = np.array(calib["depth_to_color"]["rotation"])
    assert rot.shape == (9,)
    assert np.allclose(rot, scene.rotation.reshape(-1), atol=1e-6)  # row-major
    assert not np.allclose(rot, scene.rotation.T.reshape(-1), atol=1e-4)  # the check can tell
    assert np.allclose(calib["depth_to_color"]["translation"], scene.translation, atol=1e-6)
    assert calib["depth_scale"] == pytest.approx(scene.depth_scale, rel=1e-6)


# ------------------------------------------------------------------ registration through depthmatte

def matte_frames(scene, align):
    """realsensesrc -> depthmatte mode=fixed output=matte; the matte of every frame (bool, colour size)."""
    cutoff = (fx.BOX_Z + fx.WALL_Z) / 2  # between the box and the wall
    p = launch(f"realsensesrc location={scene.path} align={'true' if align else 'false'} name=s "
               f"depthmatte name=m mode=fixed cutoff={cutoff} output=matte refine=none blur-radius=0 ! "
               "appsink name=out sync=false "
               "s.video ! queue ! m.video s.depth ! queue ! m.depth")
    s, m = p.get_by_name("s"), p.get_by_name("m")
    assert p.set_state(Gst.State.READY) == Gst.StateChangeReturn.SUCCESS
    m.set_property("depth-scale", s.get_property("depth-scale"))  # the hand-over the README shows
    method = s.get_property("align-method")
    out = pull_all(p, ["out"])["out"]
    assert len(out) == scene.frames
    # the aggregator computes its own output PTS from the frame rate: within a nanosecond or so
    assert np.abs(np.array([f[2] for f in out]) - np.array(scene.relative_pts_ns())).max() <= 2
    mattes = []
    for rows, info, _, _ in out:
        ps = info.finfo.pixel_stride[0]
        img = rows.reshape(info.height, info.width, ps)
        mattes.append(img[..., 0] >= 128)
    return mattes, method


def test_align_puts_the_box_where_the_colour_frame_shows_it(scene):
    mattes, method = matte_frames(scene, align=True)
    expected = "depthalign" if Gst.ElementFactory.find("depthalign") else "librealsense"
    assert method == expected
    ious = [iou(m, scene.box_mask[n]) for n, m in enumerate(mattes)]
    print(f"align ({method}): IoU mean {np.mean(ious):.3f} min {np.min(ious):.3f}")
    assert min(ious) >= 0.9
    # black on the wall: no more than a thin edge band outside the box
    for n, m in enumerate(mattes):
        assert (m & ~scene.box_mask[n]).mean() < 0.01


def test_without_align_the_matte_is_shifted_by_parallax(scene):
    aligned, _ = matte_frames(scene, align=True)
    raw, method = matte_frames(scene, align=False)
    assert method == "none"
    ious_raw = [iou(m, scene.box_mask[n]) for n, m in enumerate(raw)]
    ious_aligned = [iou(m, scene.box_mask[n]) for n, m in enumerate(aligned)]
    print(f"IoU without align: mean {np.mean(ious_raw):.3f} max {np.max(ious_raw):.3f}; "
          f"with align: mean {np.mean(ious_aligned):.3f}")
    assert max(ious_raw) < 0.8
    assert np.mean(ious_aligned) - np.mean(ious_raw) > 0.15
    # the unregistered box sits to one side: its centroid moves by the parallax
    # (about fx * baseline / z = 460 * 0.05 / 0.85 = 27 colour pixels, less the FOV difference)
    dx = [np.nonzero(r)[1].mean() - np.nonzero(scene.box_mask[n])[1].mean() for n, r in enumerate(raw)]
    assert abs(np.mean(dx)) > 8


STUB_DEPTHALIGN = r'''
import sys, gi
gi.require_version("Gst", "1.0"); gi.require_version("GstBase", "1.0")
from gi.repository import Gst, GstBase, GObject
Gst.init(None)
seen = {}
CAPS = Gst.Caps.from_string("video/x-raw,format=GRAY16_LE")
class StubAlign(GstBase.BaseTransform):
    __gtype_name__ = "StubDepthAlign"
    __gstmetadata__ = ("stub", "Filter/Video", "stub depthalign", "test")
    __gsttemplates__ = (Gst.PadTemplate.new("sink", Gst.PadDirection.SINK, Gst.PadPresence.ALWAYS, CAPS),
                        Gst.PadTemplate.new("src", Gst.PadDirection.SRC, Gst.PadPresence.ALWAYS, CAPS))
    __gproperties__ = {"calibration": (str, "c", "c", None, GObject.ParamFlags.READWRITE)}
    def __init__(self):
        super().__init__(); self.set_passthrough(True); self.calibration = None
    def do_set_property(self, prop, value): self.calibration = value; seen["calibration"] = value
    def do_get_property(self, prop): return self.calibration
if Gst.ElementFactory.find("depthalign") is None:
    Gst.Element.register(None, "depthalign", Gst.Rank.NONE, StubAlign)
p = Gst.parse_launch(f"realsensesrc location={sys.argv[1]} name=s s.video ! fakesink s.depth ! fakesink")
s = p.get_by_name("s")
p.set_state(Gst.State.PLAYING)
msg = p.get_bus().timed_pop_filtered(30 * Gst.SECOND, Gst.MessageType.EOS | Gst.MessageType.ERROR)
print("method", s.get_property("align-method"))
print("calibration-file", s.get_property("calibration-file"))
print("depthalign-calibration", s.get_by_name("depthalign").get_property("calibration"))
print("end", msg.type.first_value_nick if msg else None)
p.set_state(Gst.State.NULL)
'''


def test_align_uses_depthalign_with_the_calibration_file_when_registered(scene, tmp_path):
    """With a depthalign element registered (a pass-through stand-in here, unless the real
    one is), realsensesrc routes depth through it with calibration=<calibration-file>."""
    r = subprocess.run([sys.executable, "-c", STUB_DEPTHALIGN, scene.path], capture_output=True, text=True,
                       env=subprocess_env(tmp_path), timeout=120)
    lines = dict(line.split(" ", 1) for line in r.stdout.splitlines() if " " in line)
    assert r.returncode == 0, r.stderr
    assert lines.get("method") == "depthalign", r.stdout + r.stderr
    assert lines["calibration-file"].endswith(".json")
    assert lines["depthalign-calibration"] == lines["calibration-file"]
    assert lines["end"] == "eos", r.stdout + r.stderr


# ------------------------------------------------------------------ errors

def expect_start_error(desc, timeout=15):
    p = launch(desc)
    t0 = time.monotonic()
    try:
        ret = p.set_state(Gst.State.PLAYING)
        if ret == Gst.StateChangeReturn.ASYNC:
            ret = p.get_state(timeout * SECOND)[0]
        msg = p.get_bus().timed_pop_filtered(timeout * SECOND, Gst.MessageType.ERROR)
    finally:
        p.set_state(Gst.State.NULL)
    assert time.monotonic() - t0 < timeout
    assert ret == Gst.StateChangeReturn.FAILURE
    assert msg is not None, "no error message"
    err, debug = msg.parse_error()
    assert msg.src.get_name() == "s"
    return err, debug


def test_missing_file_is_a_resource_not_found_error_naming_it(tmp_path):
    missing = str(tmp_path / "no-such-recording.db3")
    err, _ = expect_start_error(f"realsensesrc location={missing} name=s s.video ! fakesink s.depth ! fakesink")
    assert err.matches(Gst.resource_error_quark(), Gst.ResourceError.NOT_FOUND)
    assert missing in err.message


def test_invalid_file_is_a_resource_open_read_error(tmp_path):
    bad = tmp_path / "garbage.db3"
    bad.write_bytes(b"this is not a recording\n" * 100)
    err, _ = expect_start_error(f"realsensesrc location={bad} name=s s.video ! fakesink s.depth ! fakesink")
    assert err.matches(Gst.resource_error_quark(), Gst.ResourceError.OPEN_READ)
    assert str(bad) in err.message


def test_gst_launch_missing_file_says_so_without_traceback(tmp_path):
    missing = str(tmp_path / "gone.db3")
    r = subprocess.run(["gst-launch-1.0", "realsensesrc", f"location={missing}", "name=s", "s.video", "!",
                        "fakesink", "s.depth", "!", "fakesink"], capture_output=True, text=True,
                       env=subprocess_env(tmp_path), timeout=60)
    text = r.stdout + r.stderr
    assert r.returncode != 0
    assert missing in text and "Traceback" not in text


def test_no_camera_is_a_clear_resource_error_not_a_hang():
    if len(rs.context().query_devices()) > 0:
        pytest.skip("a RealSense camera is connected")
    err, _ = expect_start_error("realsensesrc name=s s.video ! fakesink s.depth ! fakesink")
    assert err.matches(Gst.resource_error_quark(), Gst.ResourceError.NOT_FOUND)
    assert "No RealSense camera found" in err.message


def test_unknown_serial_is_not_found():
    if len(rs.context().query_devices()) > 0:
        pytest.skip("a RealSense camera is connected")
    err, _ = expect_start_error("realsensesrc serial=123456789 name=s s.video ! fakesink s.depth ! fakesink")
    assert err.matches(Gst.resource_error_quark(), Gst.ResourceError.NOT_FOUND)


STOP_CHILD = r'''
import sys, time, gi
gi.require_version("Gst", "1.0")
from gi.repository import Gst
Gst.init(None)
for align in ("false", "true"):
    for i in range(3):
        p = Gst.parse_launch(f"realsensesrc location={sys.argv[1]} align={align} name=s "
                             "s.video ! fakesink sync=true s.depth ! fakesink sync=true")
        p.set_state(Gst.State.PLAYING)
        time.sleep(0.1 + 0.15 * i)
        p.set_state(Gst.State.NULL)
print("ok")
'''


def test_stopping_mid_recording_does_not_hang(scene, tmp_path):
    """NULL while librealsense's playback thread is blocked in a full appsrc queue."""
    r = subprocess.run([sys.executable, "-c", STOP_CHILD, scene.path], capture_output=True, text=True,
                       env=subprocess_env(tmp_path), timeout=60)
    assert r.returncode == 0 and r.stdout.strip() == "ok", r.stderr
    assert "Traceback" not in r.stderr


def test_replay_script_writes_an_mp4_that_openh264dec_plays(scene, tmp_path):
    out = tmp_path / "keyed.mp4"
    env = subprocess_env(tmp_path)
    # the ray-cast scene is a box before a wall, no person: keyed from depth
    # alone (the learned person prior, which keys people, finds nobody in it;
    # see the next test)
    env["DM_LEARNED"] = "0"
    r = subprocess.run(["bash", os.path.join(ROOT, "pipelines", "replay-realsense.sh"), scene.path, str(out),
                        "mode=fixed", f"cutoff={(fx.BOX_Z + fx.WALL_Z) / 2}"],
                       capture_output=True, text=True, env=env, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "depth-scale 0.001" in r.stdout
    assert "replay-realsense.sh: depth only (DM_LEARNED=0)" in r.stderr, r.stderr
    p = Gst.parse_launch(f"filesrc location={out} ! qtdemux ! h264parse ! openh264dec ! videoconvert ! "
                         "video/x-raw,format=GRAY8 ! appsink name=sink sync=false")
    frames = pull_all(p, ["sink"])["sink"]
    assert len(frames) == scene.frames
    rows, info, _, _ = frames[10]
    keyed = rows.reshape(info.height, info.width) > 40  # the red box over a black background
    assert iou(keyed, scene.box_mask[10]) > 0.9


def test_replay_script_uses_the_learned_prior_when_registered(scene, tmp_path):
    # the default run: mpfacedetect and personmask when they are registered
    # (else depth alone, as above), every frame written; what personmask makes
    # of a box is not the question here
    from learned_check import check_default, logging_env, made
    out = tmp_path / "keyed.mp4"
    env = logging_env(tmp_path / "log", subprocess_env(tmp_path))
    r = subprocess.run(["bash", os.path.join(ROOT, "pipelines", "replay-realsense.sh"), scene.path, str(out)],
                       capture_output=True, text=True, env=env, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    check_default(r.stderr, made(tmp_path / "log"), "replay-realsense.sh")
    p = Gst.parse_launch(f"filesrc location={out} ! qtdemux ! h264parse ! openh264dec ! fakesink name=sink")
    frames = []
    p.get_by_name("sink").get_static_pad("sink").add_probe(Gst.PadProbeType.BUFFER, lambda *a: frames.append(1)
                                                           or Gst.PadProbeReturn.OK)
    p.set_state(Gst.State.PLAYING)
    msg = p.get_bus().timed_pop_filtered(60 * SECOND, Gst.MessageType.EOS | Gst.MessageType.ERROR)
    p.set_state(Gst.State.NULL)
    assert msg is not None and msg.type == Gst.MessageType.EOS, msg.parse_error() if msg else "timeout"
    assert len(frames) == scene.frames


def test_replay_script_says_why_it_cannot_open_a_recording(tmp_path):
    bad = tmp_path / "bad.bag"
    bad.write_bytes(b"not a bag")
    r = subprocess.run(["bash", os.path.join(ROOT, "pipelines", "replay-realsense.sh"), str(bad), str(tmp_path / "o.mp4")],
                       capture_output=True, text=True, env=subprocess_env(tmp_path), timeout=120)
    assert r.returncode != 0
    # the reason from librealsense, not only that it failed
    assert f"cannot read {bad} as a librealsense recording: " in r.stderr and "ros reader" in r.stderr, r.stderr
    assert "should be floating" not in r.stderr


@pytest.mark.parametrize("ok", [True, False], ids=["recording", "unreadable"])
def test_replay_script_leaves_no_temporary_files(scene, tmp_path, ok):
    # without GST_REGISTRY the script makes a throw-away registry (and a file
    # for the reader's errors) in TMPDIR; both go however it ends
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    env = subprocess_env(tmp_path)
    del env["GST_REGISTRY"]
    env.update(TMPDIR=str(tmp), DM_LEARNED="0")
    if ok:
        rec = scene.path
    else:
        rec = str(tmp_path / "bad.bag")
        open(rec, "wb").write(b"not a bag")
    out = tmp_path / "keyed.mp4"
    r = subprocess.run(["bash", os.path.join(ROOT, "pipelines", "replay-realsense.sh"), rec, str(out),
                        "mode=fixed", f"cutoff={(fx.BOX_Z + fx.WALL_Z) / 2}"],
                       capture_output=True, text=True, env=env, timeout=300)
    assert (r.returncode == 0) == ok, r.stdout + r.stderr
    assert out.exists() == ok
    assert sorted(os.listdir(tmp)) == [], os.listdir(tmp)
