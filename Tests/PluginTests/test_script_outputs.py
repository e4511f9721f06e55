# SPDX-License-Identifier: LGPL-2.1-or-later
"""Every video file the pipelines/ scripts write plays with GStreamer's own
installed decoders (playbin to fakesinks, to EOS), and its H.264 is a
profile stock players and browsers decode (not High 4:4:4). The README's
command lines run as written. The scripts that key with a face lock use the
learned person prior (personmask, mpfacedetect) when it is registered and
the stock facedetect with DM_LEARNED=0: the ones on rgbdtestsrc run as they
are, the camera ones with their gst-launch-1.0 line captured and run again
with rgbdtestsrc in place of the cameras."""
import os
import re
import shlex
import subprocess

import numpy as np
import pytest

from harness import Gst
from learned_check import AVAILABLE, check_default, check_depth_only, logging_env, made

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PLAYABLE = {"constrained-baseline", "baseline", "main", "high"}


def script(name, *args, timeout=300, env=None):
    r = subprocess.run(["bash", os.path.join(ROOT, "pipelines", name), *map(str, args)],
                       capture_output=True, text=True, timeout=timeout, env=env)
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
    # (the stock element, not mpfacedetect)
    lines = [ln for ln in readme if "gst-launch-1.0" in ln and re.search(r"(?<![\w-])facedetect\b", ln)]
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


def depthmatte_messages(stdout):
    """The person field of each depthmatte element message gst-launch-1.0 -m printed."""
    return [m.group(1) == "true" for m in re.finditer(r"depthmatte, .*?person=\(boolean\)(true|false)", stdout)]


def test_readme_learned_headline_runs():
    # the headline's learned shape: mpfacedetect, a tee into m.video and
    # through personmask into m.person; its chain with rgbdtestsrc in place of
    # the cameras runs, and the person probability takes part in every frame
    if not AVAILABLE:
        pytest.fail("personmask/mpfacedetect have no models: scripts/setup installs the LiteRT runtime and models")
    readme = open(os.path.join(ROOT, "README.md")).read().splitlines()
    i = next(i for i, ln in enumerate(readme) if ln.startswith("gst-launch-1.0") and "mpfacedetect" in ln)
    block = " ".join(readme[i:i + 4])
    assert "videoconvert ! video/x-raw,format=RGB ! mpfacedetect ! tee name=t" in readme[i], readme[i]
    assert "t. ! queue ! m.video" in block and "t. ! queue ! personmask ! m.person" in block, block
    r = subprocess.run(["gst-launch-1.0", "-m", "rgbdtestsrc", "num-buffers=10", "!", "videoconvert", "!",
                        "video/x-raw,format=RGB", "!", "mpfacedetect", "!", "tee", "name=t",
                        "t.", "!", "queue", "!", "m.video", "t.", "!", "queue", "!", "personmask", "!", "m.person",
                        "depthmatte", "name=m", "!", "videoconvert", "!", "fakesink",
                        "rgbdtestsrc", "stream=depth", "num-buffers=10", "!", "m.depth"],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr[-2000:]
    person = depthmatte_messages(r.stdout)
    assert len(person) == 10 and all(person), person


@pytest.mark.parametrize("learned", [True, False], ids=["learned", "DM_LEARNED=0"])
@pytest.mark.parametrize("name", ["background-effect.sh", "background-image.sh"])
def test_background_scripts_and_the_learned_prior(tmp_path, name, learned):
    # rgbdtestsrc attaches its own faces: personmask only, no face detector
    env = logging_env(tmp_path / "log")
    if not learned:
        env["DM_LEARNED"] = "0"
    if name == "background-effect.sh":
        out = tmp_path / "e.png"
        r = script(name, "blur", out, env=env)
        assert out.stat().st_size > 1000
    else:
        out = tmp_path / "bg.mp4"
        r = script(name, picture(tmp_path / "bg.png"), out, env=env)
        assert play_to_eos(str(out)) == 150
    elements = made(tmp_path / "log")
    assert elements["depthmatte"] >= 1 and elements["rgbdtestsrc"] == 2, elements
    if learned:
        check_default(r.stderr, elements, name, detector=False)
    else:
        check_depth_only(r.stderr, elements, name, detector=False)


# The camera scripts, with their gst-launch-1.0 line captured by a stand-in on
# PATH and then run with rgbdtestsrc in place of the cameras (depthalign,
# which needs the pair's calibration, replaced by identity).
CAMERA_SCRIPTS = {
    "live-facedetect.sh": ([], [("realsensesrc name=s ", ""), ("s.video", "{video}"), ("s.depth", "{depth}")]),
    "live-facedetect.sh v4l2": (["v4l2", "/dev/video0", "/dev/video2", "pair.json"], [
        ("v4l2src device=/dev/video0", "{video}"),
        ("v4l2src device=/dev/video2 ! video/x-raw,format=GRAY16_LE ! depthalign calibration=pair.json", "{depth}")]),
    "openni2.sh": (["pair.json"], [
        ("openni2src sourcetype=color", "{video}"),
        ("openni2src sourcetype=depth ! video/x-raw,format=GRAY16_LE ! depthalign calibration=pair.json",
         "{depth}")]),
}


@pytest.mark.parametrize("learned", [True, False], ids=["learned", "DM_LEARNED=0"])
@pytest.mark.parametrize("case", list(CAMERA_SCRIPTS))
def test_camera_scripts_and_the_learned_prior(tmp_path, case, learned):
    name = case.split()[0]
    args, subs = CAMERA_SCRIPTS[case]
    stand_in = tmp_path / "bin"
    stand_in.mkdir()
    (stand_in / "gst-launch-1.0").write_text('#!/bin/sh\nprintf \'%s\\n\' "$@" > "$DM_TEST_ARGV"\n')
    (stand_in / "gst-launch-1.0").chmod(0o755)
    env = logging_env(tmp_path / "log")
    env["PATH"] = f"{stand_in}:{env['PATH']}"
    env["DM_TEST_ARGV"] = str(tmp_path / "argv")
    if not learned:
        env["DM_LEARNED"] = "0"
    r = script(name, *args, env=env)
    argv = (tmp_path / "argv").read_text().splitlines()
    desc = " ".join(argv)
    for old, new in subs:
        assert old in desc, (old, desc)
        desc = desc.replace(old, new.format(video="rgbdtestsrc num-buffers=10",
                                            depth="rgbdtestsrc stream=depth num-buffers=10"))
    desc = desc.replace("autovideosink", "fakesink")
    run = subprocess.run(["gst-launch-1.0", "-m", *shlex.split(desc)], capture_output=True, text=True,
                         timeout=120, env=logging_env(tmp_path / "log"))
    assert run.returncode == 0, (desc, run.stderr[-2000:])
    elements = made(tmp_path / "log")
    person = depthmatte_messages(run.stdout)
    assert len(person) == 10, (desc, len(person))
    if learned:
        check_default(r.stderr, elements, name)
        assert all(person) == AVAILABLE, person
    else:
        check_depth_only(r.stderr, elements, name)
        assert not any(person), person


def commands(lines):
    """The shell commands of a README code block's lines (backslash continuations joined, comments dropped)."""
    out, cur = [], ""
    for ln in lines:
        if not cur and (not ln.strip() or ln.lstrip().startswith("#")):
            continue
        cur += ln.rstrip("\\").rstrip() + " " if ln.endswith("\\") else ln
        if not ln.endswith("\\"):
            out.append(cur.strip())
            cur = ""
    return out


def test_readme_first_block_runs_without_hardware(tmp_path):
    # the first command blocks a newcomer meets need no camera and no
    # display: the two commands (scripts), then the first gst-launch-1.0 block
    readme = open(os.path.join(ROOT, "README.md")).read()
    blocks = [b.splitlines() for b in re.findall(r"^```\n(.*?)^```", readme, re.S | re.M)]
    assert [c.split()[0] for c in commands(blocks[0])] == ["scripts/demo", "scripts/test"], blocks[0]
    block = next(b for b in blocks if any("gst-launch-1.0" in c for c in commands(b)))
    cmds = [c for c in commands(block) if "gst-launch-1.0" in c]
    assert cmds, block
    for c in cmds:
        for needs in ("v4l2src", "openni2src", "realsensesrc", "autovideosink"):
            assert needs not in c, (needs, c)
        r = subprocess.run(["bash", "-c", c], cwd=tmp_path, capture_output=True, text=True, timeout=300)
        assert r.returncode == 0, (c, r.stderr[-2000:])
    out = tmp_path / "keyed.mp4"
    assert h264_profile(out) in PLAYABLE
    assert play_to_eos(str(out)) == 150


def test_readme_calibration_files_ship_and_load():
    # every calibration file a README depthalign line names is in the
    # repository, and depthalign takes it: depth of its depth size in, depth
    # of its colour size out, mostly with readings
    readme = open(os.path.join(ROOT, "README.md")).read()
    files = sorted(set(re.findall(r"depthalign calibration=(\S+)", readme)))
    assert files
    for f in files:
        path = os.path.join(ROOT, f)
        assert os.path.isfile(path), f
        p = Gst.parse_launch(f"rgbdtestsrc stream=depth num-buffers=2 motion=false calibration={path} ! "
                             f"depthalign calibration={path} ! appsink name=s sync=false")
        p.set_state(Gst.State.PLAYING)
        smp = p.get_by_name("s").emit("try-pull-sample", 20 * Gst.SECOND)
        err = p.get_bus().pop_filtered(Gst.MessageType.ERROR)
        p.set_state(Gst.State.NULL)
        assert err is None and smp is not None, (f, err.parse_error() if err else "no frame")
        s = smp.get_caps().get_structure(0)
        assert (s.get_string("format"), s.get_value("width"), s.get_value("height")) == ("GRAY16_LE", 640, 480), f
        ok, mi = smp.get_buffer().map(Gst.MapFlags.READ)
        depth = np.frombuffer(mi.data, np.uint16).copy()
        smp.get_buffer().unmap(mi)
        assert (depth > 0).mean() > 0.5, (f, (depth > 0).mean())


@pytest.mark.parametrize("name,args", [
    ("demo.sh", ["{tmp}", 2]), ("focus.sh", ["highpass", 1.4, 4, "{tmp}/f.png"]),
    ("depth-output.sh", ["{tmp}/d.png"]), ("background-effect.sh", ["comic", "{tmp}/b.png"]),
    ("depth-view.sh", ["{tmp}/v.png"]), ("still-pair.sh", ["{tmp}/c.png", "{tmp}/d16.png", "{tmp}/o.png"])])
def test_a_script_that_writes_a_file_fails_on_a_warning(tmp_path, name, args):
    # gst-launch-1.0 exits 0 after an element's WARNING (a depth picture that
    # does not decode keys nothing): a script that writes a file prints the
    # warning and fails. A stand-in gst-launch-1.0 on PATH posts one.
    fake = tmp_path / "bin"
    fake.mkdir()
    (fake / "gst-launch-1.0").write_text(
        "#!/bin/sh\necho 'WARNING: from element /GstPipeline:pipeline0/GstDepthMatte:m: No depth frame'\n"
        "echo 'Additional debug info:'\necho 'the depth pad sent nothing'\necho 'Got EOS from element \"pipeline0\".'\n"
        "exit 0\n")
    (fake / "gst-launch-1.0").chmod(0o755)
    for f in ("c.png", "d16.png"):
        (tmp_path / f).write_bytes(b"\x89PNG")
    env = dict(os.environ, PATH=f"{fake}:{os.environ['PATH']}", DM_LEARNED="0")
    r = subprocess.run(["bash", os.path.join(ROOT, "pipelines", name),
                        *[str(a).format(tmp=tmp_path) for a in args]],
                       capture_output=True, text=True, timeout=120, env=env)
    assert r.returncode != 0, f"{name} exited 0 after a warning:\n{r.stdout}\n{r.stderr}"
    assert "No depth frame" in r.stderr and "the depth pad sent nothing" in r.stderr, r.stderr


@pytest.mark.parametrize("name, args, outputs", [
    ("background-image.sh", ["{tmp}/no-such-picture.jpg", "{tmp}/out.mp4"], ["out.mp4"]),
    ("record.sh", ["/dev/dm-no-camera", "/dev/dm-no-depth", "{tmp}/s"], ["s-keyed.mp4", "s-colour.mkv", "s-depth.mov"]),
])
def test_a_failed_script_leaves_no_output_file(tmp_path, name, args, outputs):
    env = {k: v for k, v in os.environ.items() if k != "G_DEBUG"}
    env.update(DM_SINK="fakesink", DM_LEARNED="0")
    r = subprocess.run(["bash", os.path.join(ROOT, "pipelines", name), *(a.format(tmp=tmp_path) for a in args)],
                       capture_output=True, text=True, timeout=300, env=env)
    assert r.returncode != 0, r.stderr[-2000:]
    for f in outputs:
        assert not (tmp_path / f).exists(), f
        assert f"{name}: removed {tmp_path / f} (the run failed)" in r.stderr, r.stderr[-2000:]
