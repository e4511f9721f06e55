"""Every video file the pipelines/ scripts write plays with GStreamer's own
installed decoders (playbin to fakesinks, to EOS), and its H.264 is a
profile stock players and browsers decode (not High 4:4:4)."""
import os
import subprocess

import numpy as np
import pytest

from harness import Gst

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PLAYABLE = {"constrained-baseline", "baseline", "main", "high"}


def script(name, *args, timeout=300):
    r = subprocess.run(["bash", os.path.join(ROOT, "pipelines", name), *map(str, args)],
                       capture_output=True, text=True, timeout=timeout)
    assert r.returncode == 0, f"{name} failed:\n{r.stdout[-2000:]}\n{r.stderr[-2000:]}"
    return r


def h264_profile(path):
    p = Gst.parse_launch(f"filesrc location={path} ! qtdemux ! h264parse ! fakesink name=s")
    p.set_state(Gst.State.PAUSED)
    p.get_state(30 * Gst.SECOND)
    caps = p.get_by_name("s").get_static_pad("sink").get_current_caps()
    p.set_state(Gst.State.NULL)
    assert caps is not None, f"{path}: no H.264 stream"
    return caps.get_structure(0).get_string("profile")


def play_to_eos(path):
    """Plays `path` with playbin into fakesinks; returns the video frames
    rendered (an error fails the test)."""
    p = Gst.ElementFactory.make("playbin", None)
    p.set_property("uri", Gst.filename_to_uri(path))
    sink = Gst.ElementFactory.make("fakesink", None)
    sink.set_property("sync", False)
    sink.set_property("signal-handoffs", True)
    frames = []
    sink.connect("handoff", lambda *a: frames.append(1))
    p.set_property("video-sink", sink)
    p.set_property("audio-sink", Gst.ElementFactory.make("fakesink", None))
    p.set_state(Gst.State.PLAYING)
    msg = p.get_bus().timed_pop_filtered(120 * Gst.SECOND, Gst.MessageType.EOS | Gst.MessageType.ERROR)
    p.set_state(Gst.State.NULL)
    assert msg is not None, f"{path}: no EOS within 120 s"
    if msg.type == Gst.MessageType.ERROR:
        err, dbg = msg.parse_error()
        pytest.fail(f"{path}: {err.message} ({dbg})")
    return len(frames)


def picture(path):
    subprocess.run(["gst-launch-1.0", "-q", "videotestsrc", "num-buffers=1", "pattern=smpte", "!",
                    "video/x-raw,width=320,height=240", "!", "pngenc", "!", "filesink", f"location={path}"],
                   check=True)
    return path


@pytest.mark.parametrize("name", ["demo.sh", "background-image.sh", "alpha-compositor.sh", "vampire.sh"])
def test_script_output_plays_with_stock_decoders(tmp_path, name):
    if name == "demo.sh":
        script(name, tmp_path, 30)
        out, frames = tmp_path / "demo.mp4", 30
        assert (tmp_path / "demo.png").stat().st_size > 1000
    elif name == "background-image.sh":
        out, frames = tmp_path / "bg.mp4", 150
        script(name, picture(tmp_path / "bg.png"), out)
    elif name == "vampire.sh":
        out, frames = tmp_path / "v.mp4", 30
        script(name, out, 30)
    else:
        out, frames = tmp_path / "a.mp4", 150
        script(name, out)
    profile = h264_profile(out)
    assert profile in PLAYABLE, f"{name} writes H.264 {profile}"
    assert play_to_eos(str(out)) == frames


def test_readme_facedetect_lines_run_clean():
    # every README command line with facedetect runs it with display=false
    # (no ellipse burnt into the keyed picture) and silences OpenCV's
    # missing-cascade errors; the headline line's chain, with rgbdtestsrc in
    # place of the cameras, prints nothing and keys the subject
    readme = open(os.path.join(ROOT, "README.md")).read().splitlines()
    lines = [ln for ln in readme if "gst-launch-1.0" in ln and "facedetect" in ln]
    assert lines, "no README line with facedetect"
    for ln in lines:
        assert "facedetect display=false" in ln and ln.startswith("OPENCV_LOG_LEVEL=SILENT "), ln
    # (as a user types it: without the test run's GST_DEBUG, which would
    # print facedetect's own log lines about those cascades)
    env = {k: v for k, v in os.environ.items() if k != "GST_DEBUG"}
    env["OPENCV_LOG_LEVEL"] = "SILENT"
    r = subprocess.run(["gst-launch-1.0", "-q", "rgbdtestsrc", "num-buffers=10", "!", "videoconvert", "!",
                        "facedetect", "display=false", "!", "depthmatte", "name=m", "output=matte", "!",
                        "videoconvert", "!", "video/x-raw,format=GRAY8", "!", "fdsink", "fd=1",
                        "rgbdtestsrc", "stream=depth", "num-buffers=10", "!", "m.depth"],
                       capture_output=True, env=env, timeout=60)
    assert r.returncode == 0 and r.stderr == b"", r.stderr.decode()[-2000:]
    matte = np.frombuffer(r.stdout, np.uint8)
    assert matte.size == 10 * 640 * 360
    share = (matte.reshape(10, 360, 640)[-1] > 128).mean()
    assert 0.05 < share < 0.6, share
