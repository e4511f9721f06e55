# SPDX-License-Identifier: LGPL-2.1-or-later
"""pipelines/serve-rtsp with real clients in separate processes: the decoded
picture is the keyed composite; two clients share the media; one client
killed does not stop the other; a client joining later is served. The media
has the learned person prior (personmask) when it is registered, and not with
--no-learned or DM_LEARNED=0. It listens on 127.0.0.1 unless told otherwise,
asks for a user and password with --auth-file, and refuses a bad --set at
start."""
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
from harness import wait_until
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


def interrupt(p):
    """Stop the server as Ctrl-C does; killed if it has not ended 5 s later."""
    p.send_signal(signal.SIGINT)
    try:
        p.wait(timeout=5)
    except subprocess.TimeoutExpired:
        p.kill()
        p.wait()


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
        interrupt(p)


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
        a = Client(url, 0, "--tcp", "--save", str(tmp_path / "a.npy"))
        clients.append(a)
        wait_until(lambda: len(a.frames()) >= 10, f"a's first 10 frames {a.lines[-3:]}")
        b = Client(url, 0, "--udp")
        clients.append(b)
        # both receive at the same time
        wait_until(lambda: len(b.frames()) >= 30, f"b's first 30 frames {b.lines[-3:]}")
        # b dies without a TEARDOWN
        b.kill()
        at_kill = len(a.frames())
        # a client joining after that is served by the same running media
        c = Client(url, 0, "--tcp", "--frames", "30", "--save", str(tmp_path / "c.npy"))
        clients.append(c)
        c.finish(120)
        # a keeps receiving after b went away (and after c's 30 frames)
        wait_until(lambda: len(a.frames()) >= at_kill + 60, f"a's 60 frames after b left {a.lines[-3:]}")
        a.p.terminate()
        a.finish(120)
    finally:
        for cl in clients:
            cl.kill()

    assert a.p.returncode == 0 and c.p.returncode == 0, (a.lines[-3:], c.lines[-3:])
    assert p.poll() is None, "server died:\n" + "".join(log)
    for cl in (a, b, c):
        assert cl.decoder() == ["openh264dec"], cl.lines[:3]
    assert len(c.frames()) == 30, c.lines[-3:]

    # the decoded picture is the composite: magenta where the scene is background
    for f in ("a.npy", "c.npy"):
        img = np.load(tmp_path / f).astype(int)
        assert img.shape == (H, W, 3)
        assert close(colour_in(img, background), MAGENTA, 16), colour_in(img, background)
        # the subject is not magenta (and is not uniform colour either)
        sub = img[subject]
        assert (np.abs(sub - MAGENTA).sum(axis=1) > 120).mean() > 0.95
        assert sub.std(axis=0).max() > 10
    wait_until(lambda: "client closed" in "".join(log), "the server's 'client closed' line")
    text = "".join(log)
    assert text.count("client connected") == 3, text


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
        c = Client(url, 0, "--frames", "10")
        c.finish(120)
        assert len(c.frames()) == 10, c.lines
        assert p.poll() is None, "server died:\n" + "".join(log)
    text = "".join(log)
    elements = made(tmp_path / "log")
    assert elements["depthmatte"] == 1 and elements["rgbdtestsrc"] == 2, elements
    if off is None:
        check_default(text, elements, "serve-rtsp", detector=False)
    else:
        check_depth_only(text, elements, "serve-rtsp", why=off, detector=False)


# ---- who can watch: the listen address, authentication, settings checked at start

def local_addresses():
    """This machine's IPv4 addresses other than loopback (SIOCGIFADDR per interface)."""
    import fcntl
    import socket
    import struct
    found = []
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        for _, name in socket.if_nameindex():
            try:
                raw = fcntl.ioctl(s.fileno(), 0x8915, struct.pack("256s", name.encode()[:15]))
            except OSError:
                continue  # no IPv4 address
            addr = socket.inet_ntoa(raw[20:24])
            if not addr.startswith("127."):
                found.append(addr)
    return found


def listening(port):
    """The local addresses of the TCP sockets listening on `port` (/proc/net/tcp, tcp6)."""
    import ipaddress
    addrs = []
    for table, size in (("/proc/net/tcp", 4), ("/proc/net/tcp6", 16)):
        if not os.path.exists(table):
            continue
        with open(table) as f:
            next(f)
            for row in f:
                local, state = row.split()[1], row.split()[3]
                hexaddr, hexport = local.split(":")
                if state == "0A" and int(hexport, 16) == port:   # 0A: LISTEN
                    raw = bytes.fromhex(hexaddr)
                    # the kernel prints each 32-bit word in host order
                    raw = b"".join(raw[i:i + 4][::-1] for i in range(0, size, 4))
                    addrs.append(str(ipaddress.ip_address(raw)))
    return addrs


@contextlib.contextmanager
def server_process(*args):
    """serve-rtsp with exactly `args` (no --address given here): (process, the serving line, port)."""
    p = subprocess.Popen([SERVER, "--port", "0", "--still", "--size", "320x180", "--depth-size", "160x90",
                          "--preset", "ultrafast", "--no-learned", *args],
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    log = []
    try:
        ln = read_lines_until(p.stdout, lambda ln: ln.startswith("serving "), log)
        assert ln, "server did not start:\n" + "".join(log)
        port = int(ln.split()[1].split(":")[2].split("/")[0])
        threading.Thread(target=lambda: log.extend(p.stdout), daemon=True).start()
        yield p, ln.strip(), port
    finally:
        interrupt(p)


def test_listens_on_this_machine_only_by_default():
    import socket
    with server_process() as (p, line, port):
        assert listening(port) == ["127.0.0.1"], listening(port)
        assert f" on 127.0.0.1 port {port} (this machine only)" in line, line
        assert "no authentication" in line, line
        # this machine's other addresses (traffic to them stays on this machine) refuse
        for addr in local_addresses():
            with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
                s.settimeout(5)
                with pytest.raises(ConnectionRefusedError):
                    s.connect((addr, port))
        with socket.create_connection(("127.0.0.1", port), timeout=5):
            pass
    # asked for: every interface, and the line says so
    with server_process("--address", "0.0.0.0") as (p, line, port):
        assert listening(port) == ["0.0.0.0"], listening(port)
        assert "(every network interface: other machines can connect)" in line, line


def describe(port, authorization=None):
    """The status line of an RTSP DESCRIBE of the mount on 127.0.0.1 (and its WWW-Authenticate header)."""
    import socket
    req = f"DESCRIBE rtsp://127.0.0.1:{port}/depthmatte RTSP/1.0\r\nCSeq: 1\r\nAccept: application/sdp\r\n"
    if authorization:
        req += f"Authorization: {authorization}\r\n"
    with socket.create_connection(("127.0.0.1", port), timeout=20) as s:
        s.sendall((req + "\r\n").encode())
        data = b""
        while b"\r\n\r\n" not in data:
            chunk = s.recv(4096)
            if not chunk:
                break
            data += chunk
    head = data.decode(errors="replace").split("\r\n")
    auth = [h for h in head if h.lower().startswith("www-authenticate:")]
    return head[0], auth


def test_auth_file_asks_for_a_user_and_password(tmp_path):
    import base64
    users = tmp_path / "users"
    users.write_text("# who may watch\nalice:s3cret\n\nbob:pa:ss\n")
    with server_process("--auth-file", str(users)) as (p, line, port):
        assert "basic authentication on (2 users from" in line, line
        status, auth = describe(port)
        assert status == "RTSP/1.0 401 Unauthorized" and any("Basic" in a for a in auth), (status, auth)
        wrong = "Basic " + base64.b64encode(b"alice:wrong").decode()
        assert describe(port, wrong)[0] == "RTSP/1.0 401 Unauthorized"
        # a password may hold a colon (the line splits at the first)
        right = "Basic " + base64.b64encode(b"bob:pa:ss").decode()
        assert describe(port, right)[0] == "RTSP/1.0 200 OK"
        # a client without them is refused, with them it plays
        c = Client(f"rtsp://127.0.0.1:{port}/depthmatte", 5)
        c.finish(30)
        assert any("Unauthorized" in ln for ln in c.lines) and not c.frames(), c.lines
        c = Client(f"rtsp://alice:s3cret@127.0.0.1:{port}/depthmatte", 0, "--frames", "10")
        c.finish(120)
        assert len(c.frames()) == 10, c.lines
        assert p.poll() is None


@pytest.mark.parametrize("content, why", [("", "no user:password line"), ("alice\n", "line 1: expected user:password"),
                                          (None, "No such file")])
def test_a_bad_auth_file_stops_the_server(tmp_path, content, why):
    users = tmp_path / "users"
    if content is not None:
        users.write_text(content)
    r = subprocess.run([SERVER, "--port", "0", "--auth-file", str(users)], capture_output=True, text=True,
                       timeout=30)
    assert r.returncode != 0 and f"--auth-file {users}: {why}" in r.stderr, (r.returncode, r.stderr)
    assert "serving" not in r.stdout


@pytest.mark.parametrize("args, why", [
    (["--set", "mode=bogus"], "mode takes one of bandpass, face, fixed, highpass, nearest"),
    (["--set", "cutoff=500"], "cutoff takes 0 to 100"),
    (["--set", "no-such-property=1"], "depthmatte has no property no-such-property"),
    (["--set", "mode"], "mode: expected PROPERTY=VALUE"),
    (["--background-color", "green"], "background-color takes a number"),
    (["--port", "99999"], "--port 99999: a port is 0 to 65535"),
    (["--camera", "/dev/dm-no-camera", "--depth-device", "/dev/null"], "--camera /dev/dm-no-camera: no such device"),
    (["--camera", "/dev/null", "--depth-device", "/dev/dm-no-depth"], "--depth-device /dev/dm-no-depth: no such device"),
])
def test_a_bad_setting_stops_the_server_at_start(args, why):
    # (the media would fail for every client with 503 and no reason given)
    r = subprocess.run([SERVER, "--port", "0", *args], capture_output=True, text=True, timeout=30)
    assert r.returncode != 0 and f"serve-rtsp: {why}" in r.stderr, (r.returncode, r.stderr)
    assert "serving" not in r.stdout


def test_no_opencv_cascade_errors_when_the_media_is_made(tmp_path):
    # the media (made at the first client) has the stock facedetect with
    # --no-learned and a camera; Debian's OpenCV prints an [ERROR] line per
    # missing optional cascade unless OPENCV_LOG_LEVEL says otherwise
    from learned_check import FACEDETECT
    if not FACEDETECT:
        pytest.skip("facedetect not installed (gstreamer1.0-opencv)")
    env = {k: v for k, v in os.environ.items() if k != "OPENCV_LOG_LEVEL"}
    env = logging_env(tmp_path / "log", env)
    # /dev/null: a device that exists and is no camera; the media fails and
    # the server says why
    with serving("--camera", "/dev/null", "--depth-device", "/dev/null", "--no-learned",
                 env=env) as (p, url, log):
        c = Client(url, 3)
        c.finish(30)
        assert made(tmp_path / "log")["facedetect"] >= 1
        wait_until(lambda: "media error from v4l2src" in "".join(log), "the media's error on the server's log")
    text = "".join(log)
    assert "/dev/null" in text, text
    assert "haarcascade" not in text and "[ERROR" not in text, text
