# SPDX-License-Identifier: LGPL-2.1-or-later
"""Small helpers to push synthetic frames through the plugin's elements and read
back the output pixels and bus messages."""
import contextlib
import subprocess
import time

import numpy as np
from gi.repository import GLib, Gst, GstVideo

SECOND = Gst.SECOND

# byte offsets (r, g, b, a) inside a pixel for the packed RGB formats
LAYOUT = {
    "RGBA": (0, 1, 2, 3), "BGRA": (2, 1, 0, 3), "ARGB": (1, 2, 3, 0), "ABGR": (3, 2, 1, 0),
    "RGBx": (0, 1, 2, None), "BGRx": (2, 1, 0, None), "xRGB": (1, 2, 3, None), "xBGR": (3, 2, 1, None),
    "RGB": (0, 1, 2, None), "BGR": (2, 1, 0, None),
}


def wait_until(condition, what, guard=120):
    """Poll `condition()` until it is true. `guard` seconds only catch a hang
    (a condition that never comes): on a busy machine the wait is as long as
    the condition takes; `what` says in the failure what did not happen."""
    end = time.monotonic() + guard
    while not condition():
        assert time.monotonic() < end, f"{what}: not within {guard} s"
        time.sleep(0.01)


def pixel_size(fmt):
    return 3 if fmt in ("RGB", "BGR") else 4


def rgb_frame(fmt, width, height, rgb):
    """A frame of `fmt` filled per pixel from an (h, w, 3) uint8 array or a colour tuple."""
    ps = pixel_size(fmt)
    r, g, b, a = LAYOUT[fmt]
    data = np.zeros((height, width, ps), np.uint8)
    src = np.broadcast_to(np.asarray(rgb, np.uint8), (height, width, 3))
    data[..., r], data[..., g], data[..., b] = src[..., 0], src[..., 1], src[..., 2]
    for i in range(ps):
        if i not in (r, g, b):
            data[..., i] = 255
    return data


def stride_of(width, ps):
    return (width * ps + 3) & ~3  # GStreamer's default row alignment


def to_bytes(arr, row_bytes):
    """Rows padded to GStreamer's default 4-byte stride."""
    h = arr.shape[0]
    flat = arr.reshape(h, -1)
    stride = (flat.shape[1] * flat.itemsize + 3) & ~3
    out = np.zeros((h, stride), np.uint8)
    out[:, : flat.shape[1] * flat.itemsize] = flat.view(np.uint8).reshape(h, -1)
    return out.tobytes()


def make_buffer(arr, pts, duration, faces=()):
    buf = Gst.Buffer.new_wrapped(to_bytes(arr, None))
    buf.pts = pts
    buf.dts = pts
    buf.duration = duration
    for (x, y, w, h) in faces:
        GstVideo.buffer_add_video_region_of_interest_meta(buf, "face", x, y, w, h)
    return buf


def depth_frame(width, height, metres, scale=0.001):
    d = np.broadcast_to(np.asarray(metres, np.float64), (height, width))
    return np.round(d / scale).clip(0, 65535).astype("<u2")


def plain_buffer(data, pts, duration=SECOND // 30):
    """A buffer of `data` at `pts` (dts the same)."""
    buf = Gst.Buffer.new_wrapped(bytes(data))
    buf.pts, buf.dts, buf.duration = pts, pts, duration
    return buf


def video_caps(fmt, w, h, fps=30):
    """Caps text of raw video."""
    return f"video/x-raw,format={fmt},width={w},height={h},framerate={fps}/1"


def depth_bytes(w, h, value):
    """A GRAY16_LE frame of `value` everywhere, rows at the default stride."""
    d = np.full((h, stride_of(w, 2)), 0, np.uint8)
    d[:, : 2 * w] = np.full((h, w), value, "<u2").view(np.uint8)
    return d.tobytes()


def rgb_bytes(fmt, w, h, rgb):
    """A frame of `fmt` in colour `rgb`, rows at the default stride."""
    ps = pixel_size(fmt)
    out = np.zeros((h, stride_of(w, ps)), np.uint8)
    out[:, : w * ps] = rgb_frame(fmt, w, h, rgb).reshape(h, -1)
    return out.tobytes()


def appsrc(name, fmt, size, framerate):
    """The launch text of a time-format appsrc of raw video: `framerate` as "n/d"."""
    w, h = size
    return (f"appsrc name={name} format=time caps=video/x-raw,format={fmt},width={w},height={h},"
            f"framerate={framerate}")


@contextlib.contextmanager
def pygobject_floating_bug():
    """PyGObject 3.42 (Debian 12) sinks the floating reference of a Python-defined
    element made from C, and GStreamer logs the critical "The created element should be
    floating, this is probably caused by faulty bindings" (harmless; reference counts
    are right). conftest.py makes criticals fatal: allow them only while making the
    pipeline."""
    old = GLib.log_set_always_fatal(GLib.LogLevelFlags.LEVEL_ERROR)
    try:
        yield
    finally:
        GLib.log_set_always_fatal(old)


def launch(desc):
    """Gst.parse_launch(desc), allowing the Python elements' floating-reference critical."""
    with pygobject_floating_bug():
        return Gst.parse_launch(desc)


@contextlib.contextmanager
def playing(desc):
    """`desc` (a launch line or a pipeline) set PLAYING; set to NULL on leaving."""
    p = Gst.parse_launch(desc) if isinstance(desc, str) else desc
    p.set_state(Gst.State.PLAYING)
    try:
        yield p
    finally:
        p.set_state(Gst.State.NULL)


def run(desc, timeout=20, on_playing=None):
    """Play `desc` to EOS or error. Returns (errors, warnings) as lists of
    (element name, GError, debug)."""
    p = Gst.parse_launch(desc) if isinstance(desc, str) else desc
    bus = p.get_bus()
    errors, warnings = [], []
    try:
        assert p.set_state(Gst.State.PLAYING) != Gst.StateChangeReturn.FAILURE
        if on_playing:
            on_playing(p)
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            assert left > 0, f"no EOS/error within {timeout} s: {desc}"
            msg = bus.timed_pop_filtered(int(left * SECOND), Gst.MessageType.EOS | Gst.MessageType.ERROR
                                         | Gst.MessageType.WARNING)
            if msg is None:
                continue
            if msg.type == Gst.MessageType.WARNING:
                e, d = msg.parse_warning()
                warnings.append((msg.src.get_name(), e, d))
                continue
            if msg.type == Gst.MessageType.ERROR:
                e, d = msg.parse_error()
                errors.append((msg.src.get_name(), e, d))
            break
    finally:
        p.set_state(Gst.State.NULL)
    return errors, warnings


def pull_all(p, sink="sink", timeout=10):
    """Every sample of p's appsink `sink` until EOS (or `timeout` s without one)."""
    s = p.get_by_name(sink)
    out = []
    while (sample := s.emit("try-pull-sample", timeout * SECOND)) is not None:
        out.append(sample)
    return out


def pixels(sample):
    """(h, w, pixel bytes) array of a sample, honouring GstVideoMeta strides."""
    buf, caps = sample.get_buffer(), sample.get_caps()
    info = GstVideo.VideoInfo.new_from_caps(caps)
    meta = GstVideo.buffer_get_video_meta(buf)
    stride = meta.stride[0] if meta else info.stride[0]
    offset = meta.offset[0] if meta else info.offset[0]
    ok, mi = buf.map(Gst.MapFlags.READ)
    assert ok
    data = np.frombuffer(mi.data, np.uint8).copy()
    buf.unmap(mi)
    ps = info.finfo.pixel_stride[0]
    h, w = info.height, info.width
    rows = np.stack([data[offset + y * stride: offset + y * stride + w * ps] for y in range(h)])
    return rows.reshape(h, w, ps)


def bus_messages(p, name=None, fail_on_error=True):
    """The structures of the ELEMENT messages waiting on p's bus (only those
    named `name` if given); with fail_on_error, asserts no ERROR is waiting."""
    bus = p.get_bus()
    out = []
    while (m := bus.pop()) is not None:
        if fail_on_error:
            assert m.type != Gst.MessageType.ERROR, m.parse_error()
        if m.type == Gst.MessageType.ELEMENT and (name is None or m.get_structure().get_name() == name):
            out.append(m.get_structure())
    return out


class AppPipeline:
    """A launch line ending in `appsink name=sink`, set PLAYING: pull its
    samples one at a time, read its element messages, stop it."""

    def __init__(self, desc):
        self.pipeline = Gst.parse_launch(desc)
        self.sink = self.pipeline.get_by_name("sink")
        self.bus = self.pipeline.get_bus()

    def play(self):
        self.pipeline.set_state(Gst.State.PLAYING)

    def pull_sample(self, timeout=5):
        """The next sample; fails with the bus error if there is none within `timeout` s."""
        sample = self.sink.emit("try-pull-sample", timeout * SECOND)
        if sample is None:
            raise AssertionError(f"no output frame (bus error: {self.error()})")
        return sample

    def pull_eos(self, timeout=5):
        return self.sink.emit("try-pull-sample", timeout * SECOND) is None and self.sink.get_property("eos")

    def messages(self, name, src=None):
        """The structures of the waiting ELEMENT messages named `name` (asserting
        they come from `src` if given)."""
        out = []
        while True:
            msg = self.bus.pop_filtered(Gst.MessageType.ELEMENT)
            if msg is None:
                return out
            s = msg.get_structure()
            if s is not None and s.get_name() == name:
                if src is not None:
                    assert msg.src == src
                out.append(s)

    def error(self, timeout=0):
        msg = self.bus.timed_pop_filtered(timeout * SECOND, Gst.MessageType.ERROR)
        return msg.parse_error() if msg else None

    def stop(self):
        self.pipeline.set_state(Gst.State.NULL)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop()


def refused_caps_error(desc, src, size):
    """Play `desc`, push one `size`-byte buffer from appsrc `src` and return the
    first ERROR as (element name, GError, debug), after asserting it is
    CORE/NEGOTIATION (a pad refusing the caps)."""
    p = Gst.parse_launch(desc)
    try:
        p.set_state(Gst.State.PLAYING)
        p.get_by_name(src).emit("push-buffer", plain_buffer(bytes(size), 0))
        msg = p.get_bus().timed_pop_filtered(5 * SECOND, Gst.MessageType.ERROR)
        assert msg is not None, "no error posted"
        err, debug = msg.parse_error()
        assert err.matches(Gst.CoreError.quark(), Gst.CoreError.NEGOTIATION), err.message
        return msg.src.get_name(), err, debug
    finally:
        p.set_state(Gst.State.NULL)


class Keyer(AppPipeline):
    """appsrc(video) + appsrc(depth) [+ appsrc(background)] -> depthmatte -> appsink."""

    def __init__(self, props="", fmt="BGRx", size=(64, 48), depth_size=(32, 24), fps=30,
                 depth_fps=None, background=None, post_messages=True, out_caps=None):
        self.fmt, self.size, self.depth_size = fmt, size, depth_size
        self.fps = fps
        self.frame = 0  # next frame index for run_frames-style pushing
        self.depth_fps = depth_fps or fps
        desc = (f"depthmatte name=m {props} ! "
                + (f"{out_caps} ! " if out_caps else "")
                + "appsink name=sink sync=false emit-signals=false max-buffers=1000 "
                f"{appsrc('vsrc', fmt, size, f'{fps}/1')} ! m.video "
                f"{appsrc('dsrc', 'GRAY16_LE', depth_size, f'{self.depth_fps}/1')} ! m.depth ")
        if background is not None:
            bfmt, bsize = background
            desc += f"{appsrc('bsrc', bfmt, bsize, f'{fps}/1')} ! m.background "
        super().__init__(desc)
        self.m = self.pipeline.get_by_name("m")
        self.m.set_property("post-messages", post_messages)
        self.vsrc = self.pipeline.get_by_name("vsrc")
        self.dsrc = self.pipeline.get_by_name("dsrc")
        self.bsrc = self.pipeline.get_by_name("bsrc")
        self.play()

    def push_video(self, n, rgb, faces=()):
        w, h = self.size
        dur = SECOND // self.fps
        self.vsrc.emit("push-buffer", make_buffer(rgb_frame(self.fmt, w, h, rgb), n * dur, dur, faces))

    def push_depth(self, n, metres_or_raw, raw=False):
        dw, dh = self.depth_size
        dur = SECOND // self.depth_fps
        arr = metres_or_raw if raw else depth_frame(dw, dh, metres_or_raw)
        self.dsrc.emit("push-buffer", make_buffer(np.asarray(arr, "<u2"), n * dur, dur))

    def push_background(self, n, fmt, size, rgb):
        dur = SECOND // self.fps
        self.bsrc.emit("push-buffer", make_buffer(rgb_frame(fmt, size[0], size[1], rgb), n * dur, dur))

    def end(self):
        for s in (self.vsrc, self.dsrc, self.bsrc):
            if s is not None:
                s.emit("end-of-stream")

    def pull(self, timeout=5):
        """The next output frame as an (h, w, pixel_size) array plus its caps and pts."""
        sample = self.pull_sample(timeout)
        return pixels(sample), sample.get_caps(), sample.get_buffer().pts

    def messages(self, name="depthmatte"):
        return super().messages(name)


def channel(img, fmt, c):
    """Channel 'r', 'g', 'b' or 'a' of an output frame of format fmt."""
    r, g, b, a = LAYOUT[fmt]
    return img[..., {"r": r, "g": g, "b": b, "a": a}[c]]


def launch_failing(args, timeout=20):
    """Run gst-launch-1.0 `args` on a pipeline that fails; return (exit
    status, stdout + stderr). gst-launch-1.0 1.22 itself now and then never
    exits after reporting a negotiation error (about 1 run in 10 here, with
    stock elements too): the source posts its own error and pushes EOS, the
    sink prerolls on the EOS, and gst-launch waits in its main loop for a
    state change that does not come. Once an error has been printed, such a
    run is killed and counts as failed with what it printed."""
    p = subprocess.Popen(["gst-launch-1.0", *args], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        out, _ = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        p.kill()
        out, _ = p.communicate()
        assert "ERROR: from element" in out, f"gst-launch-1.0 hung without an error:\n{out}"
    return p.returncode, out
