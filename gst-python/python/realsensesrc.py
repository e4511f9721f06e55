# SPDX-License-Identifier: LGPL-2.1-or-later
"""realsensesrc: colour and depth from an Intel RealSense camera or a librealsense recording.

Why an element of its own: a RealSense on Linux exposes depth as V4L2 `Z16`, a
format `v4l2src` (GStreamer 1.22) has no mapping for, so it cannot read it.
librealsense (the `pyrealsense2` wheel from PyPI) talks to the camera through its
own USB backend and also plays its recordings; this element wraps it.

Loaded by GStreamer's Python plugin loader (Debian: gstreamer1.0-python3-plugin-loader),
which imports `*.py` from the `python/` subfolder of every folder on GST_PLUGIN_PATH
(and of ~/.local/share/gstreamer-1.0/plugins).

Shape: a bin with two `appsrc` (format=time, timestamps from the device's own
frame clock) behind the ghost pads `video` and `depth`. librealsense runs in its
own threads: for a recording, the playback device (non-real-time, every frame,
back-pressure through blocking appsrc queues); for a camera, an `rs.pipeline`
read by a small Python thread. Per frame the Python work is one copy of the frame
into a GstBuffer; no per-pixel Python.

Registration (align=true): through our Swift `depthalign` element when it is
registered (`depthalign calibration=<calibration-file>` inside the bin), else
librealsense's own `rs.align(rs.stream.color)` in the frame callback. The
read-only property `align-method` says which one is in use.
"""
import json
import os
import shutil
import tempfile
import threading
import weakref

import gi

gi.require_version("Gst", "1.0")
from gi.repository import GLib, GObject, Gst  # noqa: E402,F401

# the element's helpers: the _realsensesrc package beside this file
from _realsensesrc.common import RS_IMPORT_ERROR, StartError, calibration_dict, default_stride, rs  # noqa: E402
from _realsensesrc.sessions import Camera, Playback  # noqa: E402

VIDEO_CAPS = Gst.Caps.from_string(
    "video/x-raw, format=(string){ RGB, BGR, RGBA, BGRA, YUY2, UYVY, GRAY8 }, "
    "width=(int)[1, 2147483647], height=(int)[1, 2147483647], framerate=(fraction)[0/1, 2147483647/1]")
DEPTH_CAPS = Gst.Caps.from_string(
    "video/x-raw, format=(string)GRAY16_LE, "
    "width=(int)[1, 2147483647], height=(int)[1, 2147483647], framerate=(fraction)[0/1, 2147483647/1]")

G_MAXINT = 2147483647


class _Stream:
    """One output: its appsrc, caps, timestamps, frame count."""

    def __init__(self, appsrc, name):
        self.appsrc, self.name = appsrc, name
        self.fmt = None
        self.width = self.height = 0
        self.fps = 0
        self.duration = Gst.CLOCK_TIME_NONE
        self.pushed = 0
        self.eos = False

    def set_format(self, fmt, width, height, fps):
        self.fmt, self.width, self.height, self.fps = fmt, width, height, fps
        self.duration = Gst.util_uint64_scale_int(Gst.SECOND, 1, fps) if fps > 0 else Gst.CLOCK_TIME_NONE
        caps = Gst.Caps.from_string(
            f"video/x-raw,format={fmt},width={width},height={height},framerate={fps}/1,"
            "pixel-aspect-ratio=1/1,interlace-mode=progressive")
        self.appsrc.set_property("caps", caps)


class RealSenseSrc(Gst.Bin):
    __gtype_name__ = "GstRealSenseSrc"
    __gstmetadata__ = (
        "RealSense source",
        "Source/Video",
        "Colour and depth (GRAY16_LE, device depth units) from an Intel RealSense camera through "
        "librealsense, or from a librealsense recording (location)",
        "depthmatte project")

    __gsttemplates__ = (
        Gst.PadTemplate.new("video", Gst.PadDirection.SRC, Gst.PadPresence.ALWAYS, VIDEO_CAPS),
        Gst.PadTemplate.new("depth", Gst.PadDirection.SRC, Gst.PadPresence.ALWAYS, DEPTH_CAPS),
    )

    __gproperties__ = {
        "serial": (str, "Serial", "Serial number of the camera to open (empty = the first one found); "
                   "ignored when location is set", "", GObject.ParamFlags.READWRITE),
        "location": (str, "Location", "Play this librealsense recording (.db3 as current librealsense "
                     "writes it; older versions wrote .bag) instead of a camera: not live, every frame delivered, EOS at its end",
                     None, GObject.ParamFlags.READWRITE),
        "align": (bool, "Align", "Register depth to the colour camera: the depth pad then has the colour "
                  "frame's size and viewpoint (via the depthalign element when registered, else "
                  "librealsense's rs.align; see align-method)", True, GObject.ParamFlags.READWRITE),
        "align-method": (str, "Align method", "What registers depth to colour in this session: "
                         "\"depthalign\", \"librealsense\" or \"none\" (known from READY on)",
                         "none", GObject.ParamFlags.READABLE),
        "depth-scale": (float, "Depth scale", "Metres per depth unit of the depth pad, from the camera or "
                        "recording (0 until READY); hand it to depthmatte's depth-scale",
                        0.0, 1.0, 0.0, GObject.ParamFlags.READABLE),
        "calibration-file": (str, "Calibration file", "Path of the calibration JSON (depth and colour "
                             "intrinsics, depth->colour extrinsics with a row-major rotation, depth_scale) "
                             "written from the stream profiles at READY; the format depthalign reads",
                             None, GObject.ParamFlags.READABLE),
        "num-buffers": (int, "Number of buffers", "Frames per pad to send before EOS (-1 = unlimited)",
                        -1, G_MAXINT, -1, GObject.ParamFlags.READWRITE),
        **{f"{stream}-{axis}": (int, f"{nick} {axis}", f"Camera only: {nick.lower()} stream {axis} in pixels "
                                "(0 = device default)", 0, 16384, 0, GObject.ParamFlags.READWRITE)
           for stream, nick in (("color", "Colour"), ("depth", "Depth")) for axis in ("width", "height")},
        "framerate": (int, "Frame rate", "Camera only: frames per second of both streams (0 = device default)",
                      0, 300, 0, GObject.ParamFlags.READWRITE),
        "timeout": (int, "Timeout", "Camera only: milliseconds to wait for a frame before posting an error",
                    1, 600000, 5000, GObject.ParamFlags.READWRITE),
    }

    def __init__(self):
        super().__init__()
        self._settings = {"serial": "", "location": None, "align": True, "num-buffers": -1,
                          "color-width": 0, "color-height": 0, "depth-width": 0, "depth-height": 0,
                          "framerate": 0, "timeout": 5000}
        self._lock = threading.Lock()
        self._depth_scale = 0.0
        self._align_method = "none"
        # made when a calibration is first written (not at construction:
        # gst-inspect-1.0 builds an instance and its interpreter never
        # finalises, leaving the folder behind)
        self._calib_dir = None
        self._calib_file = None
        self._session = None
        self._internal = []  # elements added at READY, removed at NULL

        self.vsrc = self._make_appsrc("video_src")
        self.dsrc = self._make_appsrc("depth_src")
        self.video = _Stream(self.vsrc, "video")
        self.depth = _Stream(self.dsrc, "depth")
        for pad_name in ("video", "depth"):
            ghost = Gst.GhostPad.new_no_target_from_template(pad_name, self.get_pad_template(pad_name))
            self.add_pad(ghost)
        self.get_static_pad("video").set_target(self.vsrc.get_static_pad("src"))

    # ---------------------------------------------------------------- properties
    def do_get_property(self, prop):
        name = prop.name
        if name == "depth-scale":
            return self._depth_scale
        if name == "calibration-file":
            return self._calib_file
        if name == "align-method":
            return self._align_method
        with self._lock:
            return self._settings[name]

    def do_set_property(self, prop, value):
        with self._lock:
            self._settings[prop.name] = value

    # ---------------------------------------------------------------- plumbing
    def _make_appsrc(self, name):
        src = Gst.ElementFactory.make("appsrc", name)
        src.set_property("format", Gst.Format.TIME)
        src.set_property("do-timestamp", False)
        src.set_property("emit-signals", False)
        self.add(src)
        return src

    def _error(self, err):
        self.message_full(Gst.MessageType.ERROR, err.domain, int(err.code), err.text, err.debug,
                          __file__, "realsensesrc", 0)

    def _setup_depth_branch(self, settings):
        """Decide how depth is registered and link the depth ghost pad accordingly."""
        ghost = self.get_static_pad("depth")
        if not settings["align"]:
            self._align_method = "none"
            ghost.set_target(self.dsrc.get_static_pad("src"))
            return
        if Gst.ElementFactory.find("depthalign") is None:
            self._align_method = "librealsense"
            ghost.set_target(self.dsrc.get_static_pad("src"))
            return
        align = Gst.ElementFactory.make("depthalign", "depthalign")
        if align is None:
            raise StartError(Gst.CoreError.MISSING_PLUGIN, "Could not create the depthalign element",
                             "Gst.ElementFactory.make('depthalign') returned None although it is registered",
                             domain=Gst.core_error_quark())
        align.set_property("calibration", self._calib_file)
        self.add(align)
        self._internal.append(align)
        if not self.dsrc.link(align):
            raise StartError(Gst.CoreError.NEGOTIATION, "Could not link the depth appsrc to depthalign",
                             domain=Gst.core_error_quark())
        align.sync_state_with_parent()
        ghost.set_target(align.get_static_pad("src"))
        self._align_method = "depthalign"

    def _teardown_depth_branch(self):
        self.get_static_pad("depth").set_target(None)
        for e in self._internal:
            e.set_state(Gst.State.NULL)
            self.remove(e)
        self._internal = []

    def _write_calibration(self, depth_profile, color_profile, depth_scale, tag):
        calib = calibration_dict(depth_profile, color_profile, depth_scale)
        safe = "".join(c if c.isalnum() or c in "-_" else "_" for c in tag) or "device"
        if self._calib_dir is None:
            self._calib_dir = tempfile.mkdtemp(prefix="realsensesrc-")
            weakref.finalize(self, shutil.rmtree, self._calib_dir, True)
        path = os.path.join(self._calib_dir, f"{safe}-calibration.json")
        with open(path + ".tmp", "w") as f:
            json.dump(calib, f, indent=1)
        os.replace(path + ".tmp", path)
        self._calib_file = path
        self.notify("calibration-file")

    # ---------------------------------------------------------------- state
    def do_change_state(self, transition):
        if transition == Gst.StateChange.NULL_TO_READY:
            with self._lock:
                settings = dict(self._settings)
            try:
                if rs is None:
                    raise StartError(Gst.CoreError.MISSING_PLUGIN,
                                     "The Python module pyrealsense2 (librealsense) is not installed",
                                     f"import pyrealsense2 failed: {RS_IMPORT_ERROR}; install it with "
                                     "'/usr/bin/python3 -m pip install --break-system-packages pyrealsense2' "
                                     "(or run scripts/setup)", domain=Gst.core_error_quark())
                session = (Playback if settings["location"] else Camera)(self, settings)
                session.open()
                self._session = session
                self._setup_depth_branch(settings)
            except StartError as e:
                self._close_session()
                self._teardown_depth_branch()
                self._error(e)
                return Gst.StateChangeReturn.FAILURE
        elif transition == Gst.StateChange.READY_TO_PAUSED:
            for s in (self.vsrc, self.dsrc):
                s.set_property("is-live", self._session.live)
            self._session.configure_appsrcs()
        elif transition == Gst.StateChange.PAUSED_TO_READY:
            # appsrc goes flushing in the base class below; stop first so that no
            # callback is blocked in a push (blocking pushes return on flush).
            if self._session:
                self._session.request_stop()

        ret = Gst.Bin.do_change_state(self, transition)
        if ret == Gst.StateChangeReturn.FAILURE:
            return ret

        if transition == Gst.StateChange.READY_TO_PAUSED:
            try:
                self._session.start()
            except StartError as e:
                self._error(e)
                return Gst.StateChangeReturn.FAILURE
            if self._session.live:
                ret = Gst.StateChangeReturn.NO_PREROLL
        elif transition == Gst.StateChange.PLAYING_TO_PAUSED and self._session and self._session.live:
            ret = Gst.StateChangeReturn.NO_PREROLL
        elif transition == Gst.StateChange.PAUSED_TO_READY:
            if self._session:
                self._session.stop()
        elif transition == Gst.StateChange.READY_TO_NULL:
            self._close_session()
            self._teardown_depth_branch()
        return ret

    def _close_session(self):
        if self._session is not None:
            self._session.close()
            self._session = None

    # ---------------------------------------------------------------- frames
    def push_frame(self, stream, data, stride, ts_ms):
        """Copy one frame (bytes-like, rows of `stride` bytes) into a buffer on `stream`'s appsrc."""
        if stream.eos:
            return
        session = self._session
        if session is None or session.stopping:
            return
        pts = session.pts_for(ts_ms)
        if pts is None:
            return
        bpp, want = default_stride(stream.fmt, stream.width)
        if stride == want:
            buf = Gst.Buffer.new_wrapped(bytes(data))
        else:  # repack rows to GStreamer's default 4-byte aligned stride
            mv = memoryview(data).cast("B")
            row = stream.width * bpp
            out = bytearray(want * stream.height)
            for y in range(stream.height):  # per row, not per pixel
                out[y * want: y * want + row] = mv[y * stride: y * stride + row]
            buf = Gst.Buffer.new_wrapped(bytes(out))
        buf.pts = pts
        buf.dts = Gst.CLOCK_TIME_NONE
        buf.duration = stream.duration
        buf.offset = stream.pushed
        stream.pushed += 1
        # action signals, not GstApp methods: if an appsrc was wrapped before GstApp's
        # typelib was loaded in this process, its Python class lacks push_buffer()
        stream.appsrc.emit("push-buffer", buf)
        limit = session.num_buffers
        if limit >= 0 and stream.pushed >= limit:
            self.end_stream(stream)

    def end_stream(self, stream):
        if not stream.eos:
            stream.eos = True
            stream.appsrc.emit("end-of-stream")
        if self.video.eos and self.depth.eos and self._session is not None:
            self._session.all_ended()


GObject.type_register(RealSenseSrc)
__gstelementfactory__ = ("realsensesrc", Gst.Rank.NONE, RealSenseSrc)
