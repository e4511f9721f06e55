# SPDX-License-Identifier: LGPL-2.1-or-later
"""Helpers shared by test_app.py, test_rtsp.py and rtsp_client.py: decode
pictures to RGB arrays with GStreamer, read a child's output lines up to a
marker, sure subject / background regions of the still scene."""
import time

import numpy as np
from gi.repository import Gst


def pull_rgb(desc, count=1, timeout=20):
    """Frames of `desc` ! videoconvert ! RGB appsink as (h, w, 3) arrays."""
    pl = Gst.parse_launch(f"{desc} ! videoconvert ! video/x-raw,format=RGB ! "
                          "appsink name=s sync=false max-buffers=1000")
    sink = pl.get_by_name("s")
    pl.set_state(Gst.State.PLAYING)
    frames = []
    try:
        while count is None or len(frames) < count:
            smp = sink.emit("try-pull-sample", timeout * Gst.SECOND)
            if smp is None:
                break
            frames.append(rgb_array(smp).astype(int))
    finally:
        pl.set_state(Gst.State.NULL)
    return frames


def rgb_array(smp):
    """An RGB sample as an (h, w, 3) uint8 array (a row is the buffer size / h bytes)."""
    s = smp.get_caps().get_structure(0)
    w, h = s.get_value("width"), s.get_value("height")
    buf = smp.get_buffer()
    ok, mi = buf.map(Gst.MapFlags.READ)
    data = np.frombuffer(mi.data, np.uint8).copy()
    buf.unmap(mi)
    return data.reshape(h, len(data) // h)[:, : w * 3].reshape(h, w, 3)


def read_lines_until(stream, found, lines, seconds=20):
    """Read lines of `stream` into `lines` until one satisfies `found`, the
    stream ends or `seconds` pass; returns that line, or None."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        ln = stream.readline()
        if not ln:
            break
        lines.append(ln)
        if found(ln):
            return ln
    return None


def load_png(path):
    return pull_rgb(f"filesrc location={path} ! pngdec")[0]


def solid_png(path, argb):
    pl = Gst.parse_launch(
        f"videotestsrc pattern=solid-color foreground-color={argb:#x} num-buffers=1 ! "
        f"video/x-raw,width=160,height=90 ! videoconvert ! pngenc ! filesink location={path}")
    pl.set_state(Gst.State.PLAYING)
    msg = pl.get_bus().timed_pop_filtered(10 * Gst.SECOND, Gst.MessageType.EOS | Gst.MessageType.ERROR)
    pl.set_state(Gst.State.NULL)
    assert msg is not None and msg.type == Gst.MessageType.EOS


def still_regions(W=640, H=360):
    """Boolean masks of sure subject and sure background pixels of the still scene (--still),
    from rgbdtestsrc's ground truth, eroded away from the edge."""
    truth = pull_rgb(f"rgbdtestsrc stream=truth motion=false num-buffers=1 ! video/x-raw,width={W},height={H}")[0]
    t = truth[..., 0] > 127
    m = 12
    pad = np.pad(t, m, mode="edge")
    near = np.zeros_like(t)
    far = np.ones_like(t)
    for dy in range(-m, m + 1, 4):
        for dx in range(-m, m + 1, 4):
            win = pad[m + dy: m + dy + H, m + dx: m + dx + W]
            near |= win
            far &= win
    subject = far   # subject all around
    background = ~near
    assert subject.sum() > 2000 and background.sum() > 50000
    return subject, background


def colour_in(img, mask):
    return np.median(img[mask], axis=0)


def close(c, rgb, tol=6):
    return np.all(np.abs(np.asarray(c) - np.asarray(rgb)) <= tol)
