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

try:
    import pyrealsense2 as rs
    _RS_IMPORT_ERROR = None
except Exception as e:  # the element still registers and explains itself at start
    rs = None
    _RS_IMPORT_ERROR = e

VIDEO_CAPS = Gst.Caps.from_string(
    "video/x-raw, format=(string){ RGB, BGR, RGBA, BGRA, YUY2, UYVY, GRAY8 }, "
    "width=(int)[1, 2147483647], height=(int)[1, 2147483647], framerate=(fraction)[0/1, 2147483647/1]")
DEPTH_CAPS = Gst.Caps.from_string(
    "video/x-raw, format=(string)GRAY16_LE, "
    "width=(int)[1, 2147483647], height=(int)[1, 2147483647], framerate=(fraction)[0/1, 2147483647/1]")

G_MAXINT = 2147483647


def _format_map():
    if rs is None:
        return {}
    return {rs.format.rgb8: "RGB", rs.format.bgr8: "BGR", rs.format.rgba8: "RGBA",
            rs.format.bgra8: "BGRA", rs.format.yuyv: "YUY2", rs.format.uyvy: "UYVY",
            rs.format.y8: "GRAY8", rs.format.z16: "GRAY16_LE"}


def _model_name(model):
    return {rs.distortion.none: "none", rs.distortion.brown_conrady: "brown-conrady",
            rs.distortion.inverse_brown_conrady: "inverse-brown-conrady"}.get(model, str(model).split(".")[-1])


def _intrinsics_json(intr):
    return {"width": intr.width, "height": intr.height, "fx": intr.fx, "fy": intr.fy,
            "ppx": intr.ppx, "ppy": intr.ppy, "model": _model_name(intr.model),
            "coeffs": [float(c) for c in intr.coeffs]}


def calibration_dict(depth_profile, color_profile, depth_scale):
    """The calibration JSON (see README "RealSense"): rotation row-major, lengths in metres."""
    ext = depth_profile.get_extrinsics_to(color_profile)
    r = list(ext.rotation)  # librealsense: column-major
    row_major = [r[0], r[3], r[6], r[1], r[4], r[7], r[2], r[5], r[8]]
    return {"depth": _intrinsics_json(depth_profile.as_video_stream_profile().get_intrinsics()),
            "color": _intrinsics_json(color_profile.as_video_stream_profile().get_intrinsics()),
            "depth_to_color": {"rotation": [float(v) for v in row_major],
                               "translation": [float(v) for v in ext.translation]},
            "depth_scale": float(depth_scale)}


def _default_stride(fmt, width):
    bpp = {"RGB": 3, "BGR": 3, "RGBA": 4, "BGRA": 4, "YUY2": 2, "UYVY": 2, "GRAY8": 1, "GRAY16_LE": 2}[fmt]
    return bpp, (width * bpp + 3) & ~3


class _StartError(Exception):
    """An error to post as a GStreamer element error: (domain quark, code, text, debug)."""

    def __init__(self, code, text, debug=None, domain=None):
        super().__init__(text)
        self.domain = domain if domain is not None else Gst.resource_error_quark()
        self.code, self.text, self.debug = code, text, debug


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
            raise _StartError(Gst.CoreError.MISSING_PLUGIN, "Could not create the depthalign element",
                              "Gst.ElementFactory.make('depthalign') returned None although it is registered",
                              domain=Gst.core_error_quark())
        align.set_property("calibration", self._calib_file)
        self.add(align)
        self._internal.append(align)
        if not self.dsrc.link(align):
            raise _StartError(Gst.CoreError.NEGOTIATION, "Could not link the depth appsrc to depthalign",
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
                    raise _StartError(Gst.CoreError.MISSING_PLUGIN,
                                      "The Python module pyrealsense2 (librealsense) is not installed",
                                      f"import pyrealsense2 failed: {_RS_IMPORT_ERROR}; install it with "
                                      "'/usr/bin/python3 -m pip install --break-system-packages pyrealsense2' "
                                      "(or run scripts/setup)", domain=Gst.core_error_quark())
                session = (_Playback if settings["location"] else _Camera)(self, settings)
                session.open()
                self._session = session
                self._setup_depth_branch(settings)
            except _StartError as e:
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
            except _StartError as e:
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
        bpp, want = _default_stride(stream.fmt, stream.width)
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


class _Session:
    """Common parts of a camera or playback session (lives from READY to NULL)."""
    live = False

    def __init__(self, element, settings):
        self.element = element
        self.settings = settings
        self.num_buffers = settings["num-buffers"]
        self.stopping = False
        self._t0 = None
        self._rt0 = 0
        self._ts_lock = threading.Lock()

    def configure_appsrcs(self):
        for st in (self.element.video, self.element.depth):
            st.pushed = 0
            st.eos = False
            a = st.appsrc
            if self.live:
                # Drop the oldest frames rather than block the camera when downstream is slow.
                a.set_property("block", False)
                a.set_property("max-bytes", 0)
                a.set_property("max-buffers", 3)
                a.set_property("leaky-type", 2)  # downstream: drop old buffers
                a.set_property("min-latency", int(st.duration) if st.duration != Gst.CLOCK_TIME_NONE else 0)
            else:
                # Back-pressure: a full queue blocks librealsense's playback thread.
                a.set_property("block", True)
                a.set_property("max-bytes", 0)
                a.set_property("max-buffers", 4)
                a.set_property("leaky-type", 0)
        self._t0 = None

    def pts_for(self, ts_ms):
        """PTS of a frame from its device timestamp: relative to the session's first frame
        (both pads share the base); a camera adds the running time at which that first frame
        arrived, so live buffers are not late."""
        with self._ts_lock:
            if self._t0 is None:
                self._t0 = ts_ms
                if self.live:
                    clock = self.element.get_clock()
                    if clock is not None:
                        self._rt0 = max(0, clock.get_time() - self.element.get_base_time())
            rel = ts_ms - self._t0
        pts = self._rt0 + int(round(rel * 1e6))
        return max(0, pts)

    def all_ended(self):
        pass

    def request_stop(self):
        self.stopping = True


class _Playback(_Session):
    """A librealsense recording through its playback device, not in real time."""
    live = False

    def open(self):
        loc = self.settings["location"]
        if not os.path.exists(loc):
            raise _StartError(Gst.ResourceError.NOT_FOUND,
                              f"Could not open recording \"{loc}\" for reading: no such file",
                              f"os.path.exists({loc!r}) is False")
        if not os.access(loc, os.R_OK) or os.path.isdir(loc):
            raise _StartError(Gst.ResourceError.OPEN_READ,
                              f"Could not open recording \"{loc}\" for reading", "not a readable file")
        try:
            self.ctx = rs.context()
            self.dev = self.ctx.load_device(loc)
            self.pb = self.dev.as_playback()
            self.pb.set_real_time(False)
        except Exception as e:  # librealsense raises RuntimeError with its reason
            raise _StartError(Gst.ResourceError.OPEN_READ,
                              f"Could not read \"{loc}\" as a librealsense recording: {e}", repr(e))
        self.depth_sensor = self.color_sensor = None
        self.depth_profile = self.color_profile = None
        for s in self.dev.query_sensors():
            for p in s.get_stream_profiles():
                if p.stream_type() == rs.stream.depth and self.depth_profile is None:
                    self.depth_sensor, self.depth_profile = s, p.as_video_stream_profile()
                elif p.stream_type() == rs.stream.color and self.color_profile is None:
                    self.color_sensor, self.color_profile = s, p.as_video_stream_profile()
        missing = [n for n, p in (("depth", self.depth_profile), ("colour", self.color_profile)) if p is None]
        if missing:
            raise _StartError(Gst.ResourceError.OPEN_READ,
                              f"Recording \"{loc}\" has no {' and no '.join(missing)} stream",
                              "realsensesrc needs one depth and one colour stream")
        try:
            self.depth_scale = self.depth_sensor.as_depth_sensor().get_depth_scale()
        except Exception:
            self.depth_scale = 0.001
        _setup_streams(self, tag=os.path.splitext(os.path.basename(loc))[0])

    def start(self):
        self.stopping = False
        self.stopped = threading.Event()
        self.aligner = _Aligner(self) if self.element._align_method == "librealsense" else None
        self._watch = threading.Thread(target=self._watch_end, name="realsensesrc-eos", daemon=True)
        self._sensors = [self.depth_sensor] if self.depth_sensor == self.color_sensor else \
            [self.depth_sensor, self.color_sensor]
        self.pb.set_status_changed_callback(self._on_status)
        self._playing_seen = False
        try:
            self.pb.pause()
            if len(self._sensors) == 1:
                self.depth_sensor.open([self.depth_profile, self.color_profile])
            else:
                self.depth_sensor.open(self.depth_profile)
                self.color_sensor.open(self.color_profile)
            self._open = True
            for s in self._sensors:
                s.start(self._on_frame)
            self.pb.resume()
        except Exception as e:
            raise _StartError(Gst.ResourceError.READ, f"Could not start playing \"{self.settings['location']}\": {e}",
                              repr(e))
        self._watch.start()

    def _on_status(self, status):
        if status == rs.playback_status.playing:
            self._playing_seen = True
        elif status == rs.playback_status.stopped and self._playing_seen:
            self.stopped.set()

    def _watch_end(self):
        # The playback device stops after handing out its last frame (the frame callbacks
        # are called synchronously from its reader thread); then both pads get EOS.
        while not self.stopping:
            if self.stopped.wait(0.05):
                break
            if self._playing_seen and self.pb.current_status() == rs.playback_status.stopped:
                break
        if self.stopping:
            return
        if self.aligner:
            self.aligner.flush()
        el = self.element
        for st in (el.video, el.depth):
            el.end_stream(st)

    def _on_frame(self, frame):
        if self.stopping:
            return
        try:
            el = self.element
            kind = frame.get_profile().stream_type()
            if kind == rs.stream.color:
                vf = frame.as_video_frame()
                el.push_frame(el.video, vf.get_data(), vf.get_stride_in_bytes(), frame.get_timestamp())
                if self.aligner:
                    self.aligner.color(frame)
            elif kind == rs.stream.depth:
                if self.aligner:
                    self.aligner.depth(frame)
                else:
                    df = frame.as_video_frame()
                    el.push_frame(el.depth, df.get_data(), df.get_stride_in_bytes(), frame.get_timestamp())
        except Exception as e:  # never let a traceback escape into librealsense's thread
            self.element._error(_StartError(Gst.StreamError.FAILED, "realsensesrc: frame handling failed",
                                            repr(e), domain=Gst.stream_error_quark()))
            self.stopping = True

    def all_ended(self):
        self.stopping = True  # ignore frames after num-buffers

    def request_stop(self):
        self.stopping = True

    def stop(self):
        self.stopping = True
        if getattr(self, "_open", False):
            for s in self._sensors:
                try:
                    s.stop()
                except Exception:
                    pass
            for s in self._sensors:
                try:
                    s.close()
                except Exception:
                    pass
            self._open = False
        w = getattr(self, "_watch", None)
        if w is not None and w.is_alive() and w is not threading.current_thread():
            w.join(2)

    def close(self):
        self.stop()
        self.pb = self.dev = self.ctx = None


class _Camera(_Session):
    """A live camera through rs.pipeline, read by a Python thread."""
    live = True

    def open(self):
        s = self.settings
        self.ctx = rs.context()
        try:
            devices = list(self.ctx.query_devices())
        except Exception as e:
            raise _StartError(Gst.ResourceError.OPEN_READ, f"librealsense could not list devices: {e}", repr(e))
        serials = []
        chosen = None
        for d in devices:
            try:
                sn = d.get_info(rs.camera_info.serial_number)
            except Exception:
                sn = "?"
            serials.append(sn)
            if chosen is None and (not s["serial"] or s["serial"] == sn):
                chosen = d
        if chosen is None:
            if not devices:
                raise _StartError(Gst.ResourceError.NOT_FOUND,
                                  "No RealSense camera found (set location to play a recording instead)",
                                  "librealsense's context lists no devices: check the USB connection and "
                                  "udev permissions (librealsense's 99-realsense-libusb.rules)")
            raise _StartError(Gst.ResourceError.NOT_FOUND,
                              f"No RealSense camera with serial \"{s['serial']}\" (found: {', '.join(serials)})")
        self.serial = chosen.get_info(rs.camera_info.serial_number)
        self.pipe = rs.pipeline(self.ctx)
        cfg = rs.config()
        cfg.enable_device(self.serial)
        fps = s["framerate"]
        cfg.enable_stream(rs.stream.depth, s["depth-width"], s["depth-height"], rs.format.z16, fps)
        cfg.enable_stream(rs.stream.color, s["color-width"], s["color-height"], rs.format.any, fps)
        try:
            if not cfg.can_resolve(rs.pipeline_wrapper(self.pipe)):
                raise RuntimeError("no matching stream profiles")
            self.cfg = cfg
            self.profile = cfg.resolve(rs.pipeline_wrapper(self.pipe))
        except Exception as e:
            raise _StartError(Gst.ResourceError.SETTINGS,
                              f"Camera {self.serial} offers no depth + colour streams for the requested "
                              f"size/rate: {e}", repr(e))
        self.depth_profile = self.profile.get_stream(rs.stream.depth).as_video_stream_profile()
        self.color_profile = self.profile.get_stream(rs.stream.color).as_video_stream_profile()
        self.depth_scale = self.profile.get_device().first_depth_sensor().get_depth_scale()
        _setup_streams(self, tag=self.serial)

    def start(self):
        self.stopping = False
        self.aligner = _Aligner(self) if self.element._align_method == "librealsense" else None
        try:
            self.pipe.start(self.cfg)
        except Exception as e:
            raise _StartError(Gst.ResourceError.OPEN_READ, f"Could not start camera {self.serial}: {e}", repr(e))
        self.started = True
        self.thread = threading.Thread(target=self._loop, name="realsensesrc-camera", daemon=True)
        self.thread.start()

    def _loop(self):
        el = self.element
        timeout = self.settings["timeout"]
        while not self.stopping:
            try:
                ok, fs = self.pipe.try_wait_for_frames(timeout)
            except Exception as e:
                ok, fs = False, e
            if self.stopping:
                break
            if not ok:
                el._error(_StartError(Gst.ResourceError.READ,
                                      f"No frames from RealSense camera {self.serial} within {timeout} ms",
                                      repr(fs) if isinstance(fs, Exception) else None))
                break
            c = fs.get_color_frame()
            d = fs.get_depth_frame()
            if c:
                el.push_frame(el.video, c.get_data(), c.get_stride_in_bytes(), c.get_timestamp())
            if d:
                if self.aligner and c:
                    d = self.aligner.align_frameset(fs)
                if d:
                    el.push_frame(el.depth, d.get_data(), d.get_stride_in_bytes(), d.get_timestamp())
            if el.video.eos and el.depth.eos:
                break

    def stop(self):
        self.stopping = True
        t = getattr(self, "thread", None)
        if t is not None and t is not threading.current_thread():
            t.join(self.settings["timeout"] / 1000 + 1)
        if getattr(self, "started", False):
            try:
                self.pipe.stop()
            except Exception:
                pass
            self.started = False

    def close(self):
        self.stop()
        self.pipe = self.ctx = None


class _Aligner:
    """librealsense's rs.align(color) as the fallback when depthalign is not registered.

    rs.align wants a frameset; playback delivers frames one by one, so a processing
    block wraps each depth frame with a colour frame (only the colour frame's profile
    matters to the alignment) into a composite frame."""

    def __init__(self, session):
        self.session = session
        self.align = rs.align(rs.stream.color)
        self.color_frame = None
        self.pending = []
        self._lock = threading.Lock()
        self._block = rs.processing_block(self._compose)
        self._queue = rs.frame_queue(2)
        self._block.start(self._queue)

    def _compose(self, frame, source):
        source.frame_ready(source.allocate_composite_frame([frame, self.color_frame]))

    def align_frameset(self, fs):
        return self.align.process(fs).get_depth_frame()

    def color(self, frame):
        with self._lock:
            if self.color_frame is None:
                frame.keep()
                self.color_frame = frame
                pending, self.pending = self.pending, []
            else:
                pending = []
        for d in pending:
            self._push(d)

    def depth(self, frame):
        with self._lock:
            if self.color_frame is None:
                frame.keep()
                self.pending.append(frame)
                return
        self._push(frame)

    def _push(self, frame):
        self._block.invoke(frame)
        fs = self._queue.wait_for_frame(5000).as_frameset()
        d = self.align_frameset(fs)
        el = self.session.element
        # keep the depth frame's own timestamp (the aligned frame carries it too)
        el.push_frame(el.depth, d.get_data(), d.get_stride_in_bytes(), frame.get_timestamp())

    def flush(self):
        self.pending = []


def _setup_streams(session, tag):
    el = session.element
    fmts = _format_map()
    cfmt = fmts.get(session.color_profile.format())
    if cfmt is None or cfmt == "GRAY16_LE":
        raise _StartError(Gst.StreamError.FORMAT,
                          f"Colour stream format {session.color_profile.format()} has no GStreamer raw video equivalent",
                          domain=Gst.stream_error_quark())
    if session.depth_profile.format() != rs.format.z16:
        raise _StartError(Gst.StreamError.FORMAT,
                          f"Depth stream format {session.depth_profile.format()} is not Z16",
                          domain=Gst.stream_error_quark())
    ci = session.color_profile.get_intrinsics()
    di = session.depth_profile.get_intrinsics()
    el._depth_scale = float(session.depth_scale)
    el.notify("depth-scale")
    el._write_calibration(session.depth_profile, session.color_profile, session.depth_scale, tag)
    el.video.set_format(cfmt, ci.width, ci.height, session.color_profile.fps())
    aligned_here = el._settings["align"] and Gst.ElementFactory.find("depthalign") is None
    if aligned_here:
        el.depth.set_format("GRAY16_LE", ci.width, ci.height, session.depth_profile.fps())
    else:
        el.depth.set_format("GRAY16_LE", di.width, di.height, session.depth_profile.fps())


GObject.type_register(RealSenseSrc)
__gstelementfactory__ = ("realsensesrc", Gst.Rank.NONE, RealSenseSrc)
