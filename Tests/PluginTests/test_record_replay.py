# SPDX-License-Identifier: LGPL-2.1-or-later
"""pipelines/record.sh then pipelines/replay.sh, through the scripts, with
only what scripts/setup installs: the recording must play back (its
colour track a profile the installed decoders take, not H.264 High 4:4:4),
the replayed composite
must match keying the original frames, and the depth must come back
bit-exact, as record.sh promises."""
import contextlib
import os
import signal
import subprocess
import sys

import numpy as np
import pytest
from gi.repository import Gst, GstVideo

from harness import wait_until
from learned_check import AVAILABLE, check_default, check_depth_only, logging_env, made

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FRAMES = 12
W, H = 320, 180  # record.sh's test source: colour
DW, DH = 160, 90  # and depth
# a fixed cutoff: the comparison is about the files, not the face lock
KEY = ["mode=fixed", "cutoff=1.6"]


def script(name, *args, env=None):
    e = {k: v for k, v in os.environ.items() if k != "G_DEBUG"}
    e.update(env or {})
    r = subprocess.run(["bash", os.path.join(ROOT, "pipelines", name), *args], capture_output=True,
                       text=True, timeout=120, env=e)
    assert r.returncode == 0, f"{name} failed:\n{r.stdout[-3000:]}\n{r.stderr[-3000:]}"
    return r


def pull_all(desc, timeout=30):
    """Every frame an appsink named sink receives, as (h, w, c) arrays."""
    p = Gst.parse_launch(desc)
    sink = p.get_by_name("sink")
    p.set_state(Gst.State.PLAYING)
    frames = []
    while True:
        sample = sink.emit("try-pull-sample", timeout * Gst.SECOND)
        if sample is None:
            break
        info = GstVideo.VideoInfo.new_from_caps(sample.get_caps())
        buf = sample.get_buffer()
        ok, mi = buf.map(Gst.MapFlags.READ)
        assert ok
        ps = info.finfo.pixel_stride[0]
        dtype = np.uint16 if ps == 2 and info.finfo.n_components == 1 else np.uint8
        data = np.frombuffer(mi.data, np.uint8)[: info.stride[0] * info.height].copy()
        buf.unmap(mi)
        rows = data.reshape(info.height, info.stride[0])[:, : info.width * ps]
        frames.append(rows.view(dtype).reshape(info.height, info.width, -1))
    msg = p.get_bus().pop_filtered(Gst.MessageType.ERROR)
    p.set_state(Gst.State.NULL)
    assert msg is None, msg.parse_error()
    return frames


def test_record_then_replay_with_installed_decoders(tmp_path):
    prefix = str(tmp_path / "s")
    # depth only: the first colour frames through the learned elements come
    # too late for a live 12-frame take on a busy machine (the files, not the
    # prior, are under test here)
    script("record.sh", "test", "-", prefix, env={"DM_FRAMES": str(FRAMES), "DM_SINK": "fakesink", "DM_LEARNED": "0"})

    # the keyed MP4 plays with the installed decoders too
    r = subprocess.run(["gst-launch-1.0", "-q", "filesrc", f"location={prefix}-keyed.mp4", "!", "decodebin",
                        "!", "fakesink"], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr

    out = tmp_path / "replay.raw"
    script("replay.sh", prefix, "30", *KEY,
           env={"DM_SINK": f"video/x-raw,format=RGB ! filesink location={out}"})
    replay = np.frombuffer(out.read_bytes(), np.uint8)
    # the live capture's colour and depth start a few ms apart (each at its
    # own capture time): the output may end with one more frame, the last
    # colour frame repeated over its remaining time
    n = replay.size // (W * H * 3)
    assert replay.size % (W * H * 3) == 0 and n in (FRAMES, FRAMES + 1), (replay.size, n)
    replay = replay.reshape(n, H, W, 3).astype(int)

    # depth: bit-exact against the source's frames
    depth = pull_all(f"filesrc location={prefix}-depth.mov ! qtdemux ! pngdec ! "
                     "videoconvert ! video/x-raw,format=GRAY16_LE ! appsink name=sink sync=false")
    truth = pull_all(f"rgbdtestsrc stream=depth num-buffers={FRAMES} ! "
                     f"video/x-raw,width={DW},height={DH},framerate=30/1 ! appsink name=sink sync=false")
    assert len(depth) == len(truth) == FRAMES
    for i, (d, t) in enumerate(zip(depth, truth)):
        assert d.dtype == np.uint16 and d.shape == t.shape
        assert np.array_equal(d, t), f"depth frame {i}: {np.count_nonzero(d != t)} values differ"

    # the composite: as keying the original frames, up to the colour codec
    ref = pull_all(f"depthmatte name=m {' '.join(KEY)} ! videoconvert ! video/x-raw,format=RGB ! "
                   "appsink name=sink sync=false "
                   f"rgbdtestsrc num-buffers={FRAMES} ! video/x-raw,width={W},height={H},framerate=30/1 ! "
                   "videoconvert ! video/x-raw,format=BGRx ! m.video "
                   f"rgbdtestsrc stream=depth num-buffers={FRAMES} ! "
                   f"video/x-raw,width={DW},height={DH},framerate=30/1 ! m.depth")
    assert len(ref) == FRAMES
    err = np.array([[np.abs(replay[i] - r.astype(int)).mean() for r in ref] for i in range(FRAMES)])
    for i in range(FRAMES):
        diff = np.abs(replay[i] - ref[i].astype(int))
        # H.264 at quantizer 12 with 4:2:0 chroma: small everywhere but on
        # sharp colour edges (measured: mean 0.6-0.7, 0.2-0.4 % of pixels
        # off by more than 40); a wrong matte gives whole regions far off
        assert diff.mean() < 1.5, (i, diff.mean())
        assert np.mean(diff.max(axis=2) > 40) < 0.01, (i, np.mean(diff.max(axis=2) > 40))
        # and it is this frame, not a neighbour (the scene moves slowly: a
        # frame off measured 0.9-1.0)
        assert np.argmin(err[i]) == i, (i, err[i])


# Every tool that plays a recording reads it through pipelines/recording.py:
# record once, then play it with the Python app; serve-rtsp and the app name
# a missing recording.

@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    prefix = str(tmp_path_factory.mktemp("rec") / "s")
    # depth only, as in test_record_then_replay_with_installed_decoders: the
    # recording's files are what the tests below play
    script("record.sh", "test", "-", prefix, env={"DM_FRAMES": "90", "DM_SINK": "fakesink", "DM_LEARNED": "0"})
    assert os.path.isfile(prefix + "-depth.mov") and os.path.isfile(prefix + "-colour.mkv")
    return prefix


def test_serve_rtsp_names_a_missing_recording(tmp_path):
    r = subprocess.run([os.path.join(ROOT, "pipelines", "serve-rtsp"), "--port", "0", "--recording",
                        str(tmp_path / "none")], capture_output=True, text=True, timeout=30)
    assert r.returncode != 0 and "none-colour.mkv not found" in r.stderr, (r.returncode, r.stderr)


def test_app_plays_a_recording(recorded, tmp_path):
    app = os.path.join(ROOT, "examples", "python", "depthmatte_app.py")
    png = tmp_path / "d.png"
    r = subprocess.run([sys.executable, app, "--no-stdin", "--recording", recorded, "--no-facedetect", "--sink", "fakesink",
                        "--set", "mode=fixed", "--set", "cutoff=1.6", "--set", "background-color=0xffff00ff",
                        "--dump-at", "0.8", str(png), "--duration", "1.2"],
                       capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "dump" in r.stdout and png.stat().st_size > 0, r.stdout
    img = pull_all(f"filesrc location={png} ! pngdec ! videoconvert ! video/x-raw,format=RGB ! "
                   "appsink name=sink sync=false")[0].astype(int)
    assert img.shape == (H, W, 3)
    # keyed: the magenta background where the scene is far, the subject elsewhere
    magenta = (np.abs(img - (255, 0, 255)).sum(axis=2) < 40).mean()
    assert 0.2 < magenta < 0.95, magenta


def test_app_duration_on_a_recording_ends_at_that_stream_time(recorded, tmp_path):
    # --duration 1 of the 3 s recording: the MP4 holds the frames before 1 s
    # and none after (the queues' backlog is not played out)
    app = os.path.join(ROOT, "examples", "python", "depthmatte_app.py")
    mp4 = tmp_path / "out.mp4"
    r = subprocess.run([sys.executable, app, "--no-stdin", "--recording", recorded, "--no-facedetect",
                        "--set", "mode=fixed", "--record", str(mp4), "--duration", "1"],
                       capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL)
    assert r.returncode == 0, r.stdout + r.stderr
    p = Gst.parse_launch(f"filesrc location={mp4} ! qtdemux ! h264parse ! openh264dec ! appsink name=sink sync=false")
    sink = p.get_by_name("sink")
    p.set_state(Gst.State.PLAYING)
    pts = []
    while (sample := sink.emit("try-pull-sample", 30 * Gst.SECOND)) is not None:
        pts.append(sample.get_buffer().pts)
    p.set_state(Gst.State.NULL)
    assert len(pts) == 30 and max(pts) < Gst.SECOND, (len(pts), max(pts, default=None))


def test_app_names_a_missing_recording(tmp_path):
    app = os.path.join(ROOT, "examples", "python", "depthmatte_app.py")
    r = subprocess.run([sys.executable, app, "--no-stdin", "--recording", str(tmp_path / "none")],
                       capture_output=True, text=True, timeout=30, stdin=subprocess.DEVNULL)
    assert r.returncode != 0 and "none-colour.mkv not found" in r.stderr, (r.returncode, r.stderr)


def test_a_killed_recording_still_plays(tmp_path):
    # record.sh killed outright (no EOS, no chance to finish the files):
    # the keyed MP4, written in fragments, plays up to its last fragment
    prefix = str(tmp_path / "k")
    e = {k: v for k, v in os.environ.items() if k != "G_DEBUG"}
    e["DM_SINK"] = "fakesink"
    e["DM_LEARNED"] = "0"  # the fragments are under test, not the prior
    p = subprocess.Popen(["bash", os.path.join(ROOT, "pipelines", "record.sh"), "test", "-", prefix],
                         env=e, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    def fragments(path):
        with contextlib.suppress(OSError), open(path, "rb") as f:
            return f.read().count(b"moof")
        return 0
    try:
        # killed once both files hold two whole fragments (a second each)
        wait_until(lambda: fragments(prefix + "-keyed.mp4") >= 2 and fragments(prefix + "-depth.mov") >= 2,
                   "two fragments in each file")
    finally:
        os.killpg(p.pid, signal.SIGKILL)
        p.wait()
    frames = pull_all(f"filesrc location={prefix}-keyed.mp4 ! qtdemux ! h264parse ! openh264dec ! videoconvert ! "
                      "video/x-raw,format=RGB ! appsink name=sink sync=false")
    assert len(frames) >= 30, len(frames)
    depth = pull_all(f"filesrc location={prefix}-depth.mov ! qtdemux ! pngdec ! videoconvert ! "
                     "video/x-raw,format=GRAY16_LE ! appsink name=sink sync=false")
    assert len(depth) >= 30, len(depth)


def test_serve_rtsp_plays_a_recording(recorded, tmp_path):
    # Every frame of the recording reaches the client, keyed. A non-live
    # source must not go through the live path's leaky queue (about 10 of 90
    # frames arrived), and the depth file's demuxer must not push into a
    # decoder that the media's preroll has not activated yet (about half of
    # the runs stalled with no frame). Two servers in a row, since the stall
    # came and went.
    from test_rtsp import Client, serving
    for run in range(2):
        with serving("--recording", recorded, "--no-facedetect", "--background-color", "0xffff00ff",
                     "--preset", "ultrafast", "--set", "mode=fixed", "--set", "cutoff=1.6") as (_, url, _):
            last = tmp_path / f"last{run}.npy"
            # all 90 frames of the recording are served (91 when its depth
            # started a few ms before its colour: the last colour frame repeats)
            c = Client(url, 0, "--frames", "90", "--save", str(last))
            c.finish(120)
            n = len(c.frames())
            assert n == 90, (run, n, c.lines[-5:])
            img = np.load(last).astype(int)
            assert img.shape == (H, W, 3)
            magenta = (np.abs(img - (255, 0, 255)).sum(axis=2) < 60).mean()
            assert 0.2 < magenta < 0.95, (run, magenta)


# The learned person prior: record.sh, replay.sh and the app on a recording
# use mpfacedetect and personmask when they are registered, the stock
# facedetect and depth alone with DM_LEARNED=0 (the app: --no-learned).

@pytest.mark.parametrize("learned", [True, False], ids=["default", "DM_LEARNED=0"])
def test_record_and_replay_with_and_without_the_learned_prior(tmp_path, learned):
    prefix = str(tmp_path / "s")
    off = {} if learned else {"DM_LEARNED": "0"}
    env = logging_env(tmp_path / "record", {})
    r = script("record.sh", "test", "-", prefix, env={**env, **off, "DM_FRAMES": "12", "DM_SINK": "fakesink"})
    elements = made(tmp_path / "record")
    assert elements["matroskamux"] == 1 and elements["qtmux"] == 1, elements
    (check_default if learned else check_depth_only)(r.stderr, elements, "record.sh")

    out = tmp_path / "replay.raw"
    env = logging_env(tmp_path / "replay", {})
    r = script("replay.sh", prefix, "30",
               env={**env, **off, "DM_SINK": f"video/x-raw,format=RGB ! filesink location={out}"})
    elements = made(tmp_path / "replay")
    (check_default if learned else check_depth_only)(r.stderr, elements, "replay.sh")
    # every recorded frame keyed (one more when the depth started first; see above)
    assert out.stat().st_size // (W * H * 3) in (12, 13)


@pytest.mark.parametrize("flag", [[], ["--no-learned"]], ids=["default", "--no-learned"])
def test_app_plays_a_recording_with_a_face_detector(recorded, tmp_path, flag):
    app = os.path.join(ROOT, "examples", "python", "depthmatte_app.py")
    r = subprocess.run([sys.executable, app, "--no-stdin", "--recording", recorded, "--sink", "fakesink",
                        "--duration", "1.2", "--status-interval", "0.2", *flag],
                       capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL,
                       env=logging_env(tmp_path / "log"))
    assert r.returncode == 0, r.stdout + r.stderr
    elements = made(tmp_path / "log")
    person = [ln.split("person=")[1].split()[0] for ln in r.stdout.splitlines() if ln.startswith("status")]
    assert len(person) >= 3, r.stdout
    if flag:
        check_depth_only(r.stderr, elements, "depthmatte_app", why="--no-learned")
        assert set(person) == {"false"}, person
    else:
        check_default(r.stderr, elements, "depthmatte_app")
        # the person probability takes part once personmask's first mask is there
        assert ("true" in person) == AVAILABLE, person
