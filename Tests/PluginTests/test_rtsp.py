"""pipelines/serve-rtsp with real clients in separate processes: the decoded
picture is the keyed composite; two clients share the media; one client
killed does not stop the other; a client joining later is served. The media
has the learned person prior (personmask) when it is registered, and not with
--no-learned or DM_LEARNED=0."""
import contextlib
import os
import signal
import subprocess
import sys
import threading
import time

import numpy as np
import pytest

from app_helpers import close, colour_in, read_lines_until, still_regions
from learned_check import check_default, check_depth_only, logging_env, made

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
SERVER = os.path.join(ROOT, "pipelines", "serve-rtsp")
CLIENT = os.path.join(os.path.dirname(__file__), "rtsp_client.py")
W, H = 640, 360
MAGENTA = (255, 0, 255)


class Client:
    """A client process; its stdout lines are collected by a thread."""

    def __init__(self, url, seconds, *opts):
        self.p = subprocess.Popen([sys.executable, CLIENT, url, str(seconds), *opts],
                                  stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        self.lines = []
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self):
        for ln in self.p.stdout:
            self.lines.append(ln.strip())

    def frames(self):
        return [float(x.split()[1]) for x in list(self.lines) if x.startswith("frame ")]

    def decoder(self):
        return [x.split()[1] for x in list(self.lines) if x.startswith("decoder ")]

    def wait_frames(self, n, timeout):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline and len(self.frames()) < n and self.p.poll() is None:
            time.sleep(0.05)
        return len(self.frames())

    def finish(self, timeout):
        try:
            self.p.wait(timeout=timeout)
        finally:
            self.kill()
        self.reader.join(timeout=5)

    def kill(self):
        if self.p.poll() is None:
            self.p.kill()
            self.p.wait()


@contextlib.contextmanager
def serving(*args, env=None):
    """serve-rtsp on a free port (--port 0) with `args`: (process, URL, log lines)."""
    p = subprocess.Popen([SERVER, "--port", "0", "--address", "127.0.0.1", *args],
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
    log = []
    try:
        ln = read_lines_until(p.stdout, lambda ln: ln.startswith("serving "), log)
        url = ln.split()[1] if ln else None
        assert url, "server did not start:\n" + "".join(log)
        t = threading.Thread(target=lambda: log.extend(p.stdout), daemon=True)
        t.start()
        yield p, url, log
    finally:
        p.send_signal(signal.SIGINT)
        try:
            p.wait(timeout=5)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()


@pytest.fixture
def server():
    """serve-rtsp: synthetic still scene, magenta background."""
    with serving("--size", f"{W}x{H}", "--depth-size", "320x180", "--still", "--background-color", "0xffff00ff",
                 "--preset", "ultrafast") as s:
        yield s


def test_shared_media_two_clients_one_leaves(server, tmp_path):
    p, url, log = server
    subject, background = still_regions(W, H)
    clients = []
    try:
        a = Client(url, 9, "--tcp", "--save", str(tmp_path / "a.npy"))
        clients.append(a)
        assert a.wait_frames(10, 15) >= 10, a.lines
        b = Client(url, 0, "--udp")
        clients.append(b)
        assert b.wait_frames(30, 10) >= 30, b.lines
        # both receive at the same time
        assert len(a.frames()) >= 40
        # b dies without a TEARDOWN
        b.kill()
        killed = time.monotonic()
        # a client joining after that is served by the same running media
        c = Client(url, 2.5, "--tcp", "--save", str(tmp_path / "c.npy"))
        clients.append(c)
        a.finish(20)
        c.finish(20)
    finally:
        for cl in clients:
            cl.kill()

    assert a.p.returncode == 0 and c.p.returncode == 0, (a.lines[-3:], c.lines[-3:])
    assert p.poll() is None, "server died:\n" + "".join(log)
    for cl in (a, b, c):
        assert cl.decoder() == ["openh264dec"], cl.lines[:3]
    after = [t for t in a.frames() if t > killed + 0.5]
    span = a.frames()[-1] - (killed + 0.5)
    # a keeps receiving after b went away: frames all through the rest of its
    # session (no gap over a second), at a rate a shared, loaded CI machine
    # still sustains (the server encodes live at 30 fps)
    gaps = np.diff([killed + 0.5] + after)
    assert span > 2 and len(after) >= 0.4 * 30 * span and gaps.max() < 1.0, (len(after), span, gaps.max())
    # c joined the running media and was served (on a loaded machine a 2.5 s
    # client may see its first frames late: ask for a steady handful)
    assert len(c.frames()) >= 10 and np.diff(c.frames()).max() < 1.0, c.frames()

    # the decoded picture is the composite: magenta where the scene is background
    for f in ("a.npy", "c.npy"):
        img = np.load(tmp_path / f).astype(int)
        assert img.shape == (H, W, 3)
        assert close(colour_in(img, background), MAGENTA, 16), colour_in(img, background)
        # the subject is not magenta (and is not uniform colour either)
        sub = img[subject]
        assert (np.abs(sub - MAGENTA).sum(axis=1) > 120).mean() > 0.95
        assert sub.std(axis=0).max() > 10
    text = "".join(log)
    assert text.count("client connected") == 3 and "client closed" in text, text


def test_ffmpeg_client_decodes_every_frame_cleanly(server, tmp_path):
    # an ffmpeg-based player (ffplay, mpv, VLC's avcodec): every keyframe
    # decodes without concealment and no frame is corrupt; the last frame is
    # the keyed composite
    p, url, log = server
    raw = tmp_path / "last.rgb"
    r = subprocess.run(["ffmpeg", "-hide_banner", "-nostdin", "-rtsp_transport", "tcp", "-i", url,
                        "-vf", "select=gte(n\\,89)", "-frames:v", "1", "-f", "rawvideo", "-pix_fmt", "rgb24",
                        "-y", str(raw)], capture_output=True, text=True, timeout=90)
    err = r.stderr
    assert r.returncode == 0, err[-2000:]
    bad = [ln for ln in err.splitlines() if "corrupt decoded frame" in ln or "concealing" in ln
           or "error while decoding" in ln]
    assert bad == [], "\n".join(bad[:10])
    img = np.frombuffer(raw.read_bytes(), np.uint8).reshape(H, W, 3).astype(int)
    subject, background = still_regions(W, H)
    assert close(colour_in(img, background), MAGENTA, 16), colour_in(img, background)
    assert (np.abs(img[subject] - MAGENTA).sum(axis=1) > 120).mean() > 0.95
    assert p.poll() is None, "server died:\n" + "".join(log)


@pytest.mark.parametrize("off", [None, "--no-learned", "DM_LEARNED=0"])
def test_learned_prior_in_the_media(tmp_path, off):
    # rgbdtestsrc attaches its own faces: personmask on a tee of the colour,
    # no face detector; the media is made when the first client connects
    env = logging_env(tmp_path / "log")
    args = ["--size", f"{W}x{H}", "--depth-size", "320x180", "--still", "--preset", "ultrafast"]
    if off == "--no-learned":
        args.append(off)
    elif off:
        env["DM_LEARNED"] = "0"
    with serving(*args, env=env) as (p, url, log):
        c = Client(url, 3)
        try:
            assert c.wait_frames(10, 20) >= 10, c.lines
        finally:
            c.finish(20)
        assert p.poll() is None, "server died:\n" + "".join(log)
    text = "".join(log)
    elements = made(tmp_path / "log")
    assert elements["depthmatte"] == 1 and elements["rgbdtestsrc"] == 2, elements
    if off is None:
        check_default(text, elements, "serve-rtsp", detector=False)
    else:
        check_depth_only(text, elements, "serve-rtsp", why=off, detector=False)
