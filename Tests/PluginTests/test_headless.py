# SPDX-License-Identifier: LGPL-2.1-or-later
"""Watching on a machine with no display: every pipelines/ script that shows
its output, and the Python app without --sink or --record, runs (Debian's
autovideosink picks dfbvideosink there, which crashes gst-launch-1.0 with
exit 139). With DISPLAY and WAYLAND_DISPLAY unset they run into
fakesink sync=true and say in one line on stderr what to pass instead;
DM_SINK, when set, is the sink in every one of them; with a display
autovideosink stays. The scripts run as a user types them and are stopped
with Ctrl-C (SIGINT to the process group) once their pipeline is PLAYING."""
import glob
import os
import re
import signal
import subprocess
import sys
import time

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
APP = os.path.join(ROOT, "examples", "python", "depthmatte_app.py")
NO_DISPLAY = re.compile(r"no display \(DISPLAY and WAYLAND_DISPLAY unset\): showing nothing; .*DM_SINK=")


def headless_env(folder, **extra):
    """This process's environment without a display or DM_SINK; GStreamer's
    state changes logged to folder/gst-<pid>.log."""
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY", "DM_SINK")}
    os.makedirs(folder, exist_ok=True)
    env.update(GST_DEBUG="GST_STATES:4", GST_DEBUG_NO_COLOR="1",
               GST_DEBUG_FILE=os.path.join(str(folder), "gst-%p.log"), **extra)
    return env


def playing(folder):
    """Whether a logged process's top-level pipeline reached PLAYING."""
    for path in glob.glob(os.path.join(str(folder), "gst-*.log")):
        with open(path, errors="replace") as f:
            if re.search(r"<pipeline\d+> completed state change to PLAYING", f.read()):
                return True
    return False


def run_until(cmd, env, ready, timeout=60, after=2.0):
    """Starts `cmd` in a process group of its own, waits until ready() (then
    `after` seconds more) or the process ends, stops it like Ctrl-C and
    returns (exit status, stderr, whether it was ready)."""
    p = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                         start_new_session=True)
    ok = False
    try:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline and p.poll() is None:
            if ready():
                ok = True
                break
            time.sleep(0.1)
        if ok:
            time.sleep(after)
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGINT)
        _, err = p.communicate(timeout=30)
    finally:
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait()
    return p.returncode, err, ok


# the scripts that show their output, with arguments that need no camera
WATCH = {
    "depth-view.sh": [],
    "depth-output.sh": [],
    "focus.sh": [],
    "background-effect.sh": ["blur"],
    "live-denoise.sh": ["/dev/no-such-camera"],
}


@pytest.mark.parametrize("name", list(WATCH))
def test_watch_script_runs_without_a_display(tmp_path, name):
    log = tmp_path / "log"
    rc, err, ok = run_until(["bash", os.path.join(ROOT, "pipelines", name), *WATCH[name]], headless_env(log),
                            lambda: playing(log))
    assert ok, f"{name} never reached PLAYING (exit {rc}):\n{err[-2000:]}"
    assert rc == 0, f"{name} exit {rc}:\n{err[-2000:]}"
    lines = [ln for ln in err.splitlines() if NO_DISPLAY.search(ln)]
    assert len(lines) == 1 and lines[0].startswith(f"{name}: "), err[-2000:]


@pytest.mark.parametrize("name", list(WATCH))
def test_watch_script_shows_into_dm_sink(tmp_path, name):
    frames = tmp_path / "f%05d.jpg"
    env = headless_env(tmp_path / "log", DM_SINK=f"jpegenc ! multifilesink location={frames}")
    rc, err, ok = run_until(["bash", os.path.join(ROOT, "pipelines", name), *WATCH[name]], env,
                            lambda: len(glob.glob(str(tmp_path / "f*.jpg"))) >= 3, after=0)
    assert ok, f"{name} wrote no frames into DM_SINK (exit {rc}):\n{err[-2000:]}"
    assert rc == 0, f"{name} exit {rc}:\n{err[-2000:]}"
    assert not NO_DISPLAY.search(err), err


def test_record_and_replay_without_a_display(tmp_path):
    # record.sh shows while it records, replay.sh shows the replay: both
    # run to their end with nothing shown
    prefix = str(tmp_path / "s")
    env = headless_env(tmp_path / "log", DM_FRAMES="20")
    r = subprocess.run(["bash", os.path.join(ROOT, "pipelines", "record.sh"), "test", "-", prefix],
                       capture_output=True, text=True, timeout=180, env=env)
    assert r.returncode == 0, r.stderr[-2000:]
    assert len(NO_DISPLAY.findall(r.stderr)) == 1, r.stderr[-2000:]
    assert os.path.getsize(prefix + "-keyed.mp4") > 1000
    r = subprocess.run(["bash", os.path.join(ROOT, "pipelines", "replay.sh"), prefix, "30"],
                       capture_output=True, text=True, timeout=180, env=headless_env(tmp_path / "log2"))
    assert r.returncode == 0, r.stderr[-2000:]
    assert len(NO_DISPLAY.findall(r.stderr)) == 1, r.stderr[-2000:]


# The camera scripts: their gst-launch-1.0 line captured by a stand-in on
# PATH (there is no camera here); the sink in it follows the same rule.
CAMERA = {
    "live-facedetect.sh": [],
    "live-facedetect.sh v4l2": ["v4l2", "/dev/video0", "/dev/video2", "pair.json"],
    "openni2.sh": ["pair.json"],
    "depth-view.sh v4l2": ["v4l2", "/dev/video2"],
}


@pytest.mark.parametrize("display", [None, "DISPLAY", "WAYLAND_DISPLAY", "DM_SINK"])
@pytest.mark.parametrize("case", list(CAMERA))
def test_camera_scripts_pick_the_display_sink(tmp_path, case, display):
    stand_in = tmp_path / "bin"
    stand_in.mkdir()
    (stand_in / "gst-launch-1.0").write_text('#!/bin/sh\nprintf \'%s\\n\' "$@" > "$DM_TEST_ARGV"\n')
    (stand_in / "gst-launch-1.0").chmod(0o755)
    env = headless_env(tmp_path / "log", DM_LEARNED="0", DM_TEST_ARGV=str(tmp_path / "argv"))
    env["PATH"] = f"{stand_in}:{env['PATH']}"
    if display == "DM_SINK":
        env["DM_SINK"] = "jpegenc ! multifilesink location=f%05d.jpg"
    elif display:
        env[display] = ":99" if display == "DISPLAY" else "wayland-9"
    r = subprocess.run(["bash", os.path.join(ROOT, "pipelines", case.split()[0]), *CAMERA[case]],
                       capture_output=True, text=True, timeout=60, env=env)
    assert r.returncode == 0, r.stderr
    desc = " ".join((tmp_path / "argv").read_text().splitlines())
    if display is None:
        assert "autovideosink" not in desc and "videoconvert ! fakesink sync=true" in desc, desc
        assert len(NO_DISPLAY.findall(r.stderr)) == 1, r.stderr
    elif display == "DM_SINK":
        assert "videoconvert ! jpegenc ! multifilesink location=f%05d.jpg" in desc and "autovideosink" not in desc
        assert not NO_DISPLAY.search(r.stderr), r.stderr
    else:
        assert "videoconvert ! autovideosink" in desc and "fakesink" not in desc, desc
        assert not NO_DISPLAY.search(r.stderr), r.stderr


# ---- the Python app

def test_app_runs_without_a_display(tmp_path):
    log = tmp_path / "log"
    r = subprocess.run([sys.executable, APP, "--no-stdin", "--still", "--duration", "2", "--status-interval", "0.5"],
                       capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL, env=headless_env(log))
    assert r.returncode == 0, r.stderr[-2000:]
    assert playing(log)
    lines = [ln for ln in r.stderr.splitlines() if "no display" in ln]
    assert len(lines) == 1 and lines[0].startswith("depthmatte_app: no display") and "--sink" in lines[0], r.stderr
    # it ran at real time: a status line for each half second of the two
    assert len([ln for ln in r.stdout.splitlines() if ln.startswith("status")]) >= 4, r.stdout


def test_app_shows_into_dm_sink(tmp_path):
    env = headless_env(tmp_path / "log", DM_SINK=f"jpegenc ! multifilesink location={tmp_path / 'f%05d.jpg'}")
    r = subprocess.run([sys.executable, APP, "--no-stdin", "--still", "--duration", "1"],
                       capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL, env=env)
    assert r.returncode == 0, r.stderr[-2000:]
    assert "no display" not in r.stderr
    assert len(glob.glob(str(tmp_path / "f*.jpg"))) >= 10


@pytest.mark.parametrize("display", ["DISPLAY", "WAYLAND_DISPLAY"])
def test_app_uses_autovideosink_with_a_display(monkeypatch, display):
    # (the description only: there is no display here to show it on)
    import importlib.util
    spec = importlib.util.spec_from_file_location("depthmatte_app", APP)
    app = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(app)
    for k in ("DISPLAY", "WAYLAND_DISPLAY", "DM_SINK"):
        monkeypatch.delenv(k, raising=False)
    monkeypatch.setenv(display, ":99")
    assert "videoconvert ! autovideosink" in app.describe(app.parse_args([]))
    assert "autovideosink" not in app.describe(app.parse_args(["--sink", "fakesink"]))
    monkeypatch.setenv("DM_SINK", "fakesink name=mine")
    assert "videoconvert ! fakesink name=mine" in app.describe(app.parse_args([]))
