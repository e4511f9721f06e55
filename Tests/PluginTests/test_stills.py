# SPDX-License-Identifier: LGPL-2.1-or-later
"""Still images straight from pngdec (framerate 0/1, no imagefreeze) on any
pad: keyed correctly and without a single GLib WARNING or CRITICAL.

Each pipeline runs in gst-launch-1.0 in a subprocess with G_DEBUG unset, as a
new user would run it, so a critical is printed (not fatal) and read from
stderr. The compositor prints none for the same input; neither may we.
"""
import os
import re
import struct
import subprocess
import zlib

import numpy as np
import pytest

W, H = 64, 48
VIDEO_RGB = (200, 40, 30)
BACKGROUND_RGB = (20, 60, 220)
BLACK = (0, 0, 0)  # background-color's default
NEAR_MM, FAR_MM = 800, 3000  # left half the subject, right half the wall
KEY = "mode=fixed cutoff=1.5 refine=none"
GLIB_PROBLEM = re.compile(r"\b(CRITICAL|WARNING) \*\*")


def write_png(path, arr):
    """A PNG from (h, w) uint16 (16-bit grey) or (h, w, 3) uint8 (RGB)."""
    h, w = arr.shape[:2]
    if arr.dtype == np.uint16:
        depth, ctype, raw = 16, 0, arr.astype(">u2")
    else:
        depth, ctype, raw = 8, 2, arr.astype(np.uint8)
    rows = b"".join(b"\x00" + raw[y].tobytes() for y in range(h))

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    path.write_bytes(b"\x89PNG\r\n\x1a\n"
                     + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, depth, ctype, 0, 0, 0))
                     + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b""))


def depth_mm():
    d = np.full((H, W), FAR_MM, np.uint16)
    d[:, : W // 2] = NEAR_MM
    return d


@pytest.fixture
def files(tmp_path):
    write_png(tmp_path / "v.png", np.broadcast_to(np.array(VIDEO_RGB, np.uint8), (H, W, 3)).copy())
    write_png(tmp_path / "bg.png", np.broadcast_to(np.array(BACKGROUND_RGB, np.uint8), (H, W, 3)).copy())
    write_png(tmp_path / "d.png", depth_mm())
    (tmp_path / "d.raw").write_bytes(depth_mm().astype("<u2").tobytes())
    return tmp_path


def still_video(d):
    return f"filesrc location={d}/v.png ! pngdec ! videoconvert ! video/x-raw,format=BGRx ! m.video"


def live_video(d):
    # a 30/1 stream of the same colour (BGRx from videotestsrc is exact)
    argb = 0xFF000000 | (VIDEO_RGB[0] << 16) | (VIDEO_RGB[1] << 8) | VIDEO_RGB[2]
    return (f"videotestsrc num-buffers=3 pattern=solid-color foreground-color={argb} ! "
            f"video/x-raw,format=BGRx,width={W},height={H},framerate=30/1 ! m.video")


def png_depth(d):
    return f"filesrc location={d}/d.png ! pngdec ! m.depth"


def raw_depth(d):
    # the same depth, not a still: one 30/1 frame from raw millimetres
    return (f"filesrc location={d}/d.raw ! rawvideoparse format=gray16-le width={W} height={H} "
            f"framerate=30/1 ! m.depth")


def png_background(d):
    return f"filesrc location={d}/bg.png ! pngdec ! m.background"


CASES = {
    # (video, depth, background or None, expected right-half colour)
    "depth-png": (still_video, png_depth, None, BLACK),
    "background-png": (still_video, raw_depth, png_background, BACKGROUND_RGB),
    "depth-and-background-png": (still_video, png_depth, png_background, BACKGROUND_RGB),
    "stream-video-depth-png": (live_video, png_depth, None, BLACK),
    "stream-video-background-png": (live_video, raw_depth, png_background, BACKGROUND_RGB),
    "stream-video-both-png": (live_video, png_depth, png_background, BACKGROUND_RGB),
}


@pytest.mark.parametrize("case", list(CASES))
def test_still_inputs_key_without_glib_warnings(files, case):
    video, depth, background, right = CASES[case]
    out = files / "out.raw"
    desc = (f"depthmatte name=m {KEY} ! filesink location={out} "
            f"{video(files)} {depth(files)} " + (background(files) if background else ""))
    env = {k: v for k, v in os.environ.items() if k != "G_DEBUG"}
    r = subprocess.run(["gst-launch-1.0", "-q"] + desc.split(), capture_output=True, text=True,
                       env=env, timeout=60)
    problems = [l for l in (r.stdout + r.stderr).splitlines() if GLIB_PROBLEM.search(l)]
    assert not problems, "\n".join(problems)
    assert r.returncode == 0, r.stderr
    data = np.frombuffer(out.read_bytes(), np.uint8)
    frame = W * H * 4
    assert data.size >= frame and data.size % frame == 0, data.size
    for f in data.reshape(-1, H, W, 4):
        rgb = f[..., [2, 1, 0]].astype(int)  # BGRx
        left, rightside = rgb[:, : W // 2 - 4], rgb[:, W // 2 + 4:]
        assert np.abs(left - VIDEO_RGB).max() <= 1, (case, left.reshape(-1, 3)[0])
        assert np.abs(rightside - right).max() <= 1, (case, rightside.reshape(-1, 3)[0])
