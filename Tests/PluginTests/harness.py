"""Small helpers to push synthetic frames through depthmatte and read back the
output pixels and bus messages."""
import numpy as np
from gi.repository import Gst, GstVideo

SECOND = Gst.SECOND

# byte offsets (r, g, b, a) inside a pixel for the packed RGB formats
LAYOUT = {
    "RGBA": (0, 1, 2, 3), "BGRA": (2, 1, 0, 3), "ARGB": (1, 2, 3, 0), "ABGR": (3, 2, 1, 0),
    "RGBx": (0, 1, 2, None), "BGRx": (2, 1, 0, None), "xRGB": (1, 2, 3, None), "xBGR": (3, 2, 1, None),
    "RGB": (0, 1, 2, None), "BGR": (2, 1, 0, None),
}


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


class Keyer:
    """appsrc(video) + appsrc(depth) [+ appsrc(background)] -> depthmatte -> appsink."""

    def __init__(self, props="", fmt="BGRx", size=(64, 48), depth_size=(32, 24), fps=30,
                 depth_fps=None, background=None, post_messages=True, out_caps=None):
        self.fmt, self.size, self.depth_size = fmt, size, depth_size
        self.fps = fps
        self.frame = 0  # next frame index for run_frames-style pushing
        self.depth_fps = depth_fps or fps
        w, h = size
        dw, dh = depth_size
        desc = (f"depthmatte name=m {props} ! "
                + (f"{out_caps} ! " if out_caps else "")
                + "appsink name=sink sync=false emit-signals=false max-buffers=1000 "
                f"appsrc name=vsrc format=time caps=video/x-raw,format={fmt},width={w},height={h},"
                f"framerate={fps}/1 ! m.video "
                f"appsrc name=dsrc format=time caps=video/x-raw,format=GRAY16_LE,width={dw},height={dh},"
                f"framerate={self.depth_fps}/1 ! m.depth ")
        if background is not None:
            bfmt, (bw, bh) = background
            desc += (f"appsrc name=bsrc format=time caps=video/x-raw,format={bfmt},width={bw},height={bh},"
                     f"framerate={fps}/1 ! m.background ")
        self.pipeline = Gst.parse_launch(desc)
        self.m = self.pipeline.get_by_name("m")
        self.m.set_property("post-messages", post_messages)
        self.vsrc = self.pipeline.get_by_name("vsrc")
        self.dsrc = self.pipeline.get_by_name("dsrc")
        self.bsrc = self.pipeline.get_by_name("bsrc")
        self.sink = self.pipeline.get_by_name("sink")
        self.bus = self.pipeline.get_bus()
        self.pipeline.set_state(Gst.State.PLAYING)

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
        sample = self.sink.emit("try-pull-sample", timeout * SECOND)
        if sample is None:
            err = self.error()
            raise AssertionError(f"no output frame (bus error: {err})")
        buf = sample.get_buffer()
        caps = sample.get_caps()
        info = GstVideo.VideoInfo.new_from_caps(caps)
        ok, mi = buf.map(Gst.MapFlags.READ)
        assert ok
        data = np.frombuffer(mi.data, np.uint8).copy()
        buf.unmap(mi)
        ps = info.finfo.pixel_stride[0]
        stride = info.stride[0]
        img = data[: stride * info.height].reshape(info.height, stride)[:, : info.width * ps]
        return img.reshape(info.height, info.width, ps), caps, buf.pts

    def pull_eos(self, timeout=5):
        return self.sink.emit("try-pull-sample", timeout * SECOND) is None and self.sink.get_property("eos")

    def messages(self, name="depthmatte"):
        out = []
        while True:
            msg = self.bus.pop_filtered(Gst.MessageType.ELEMENT)
            if msg is None:
                return out
            s = msg.get_structure()
            if s is not None and s.get_name() == name:
                out.append(s)

    def error(self, timeout=0):
        msg = self.bus.timed_pop_filtered(timeout * SECOND, Gst.MessageType.ERROR)
        return msg.parse_error() if msg else None

    def stop(self):
        self.pipeline.set_state(Gst.State.NULL)


def channel(img, fmt, c):
    """Channel 'r', 'g', 'b' or 'a' of an output frame of format fmt."""
    r, g, b, a = LAYOUT[fmt]
    return img[..., {"r": r, "g": g, "b": b, "a": a}[c]]
