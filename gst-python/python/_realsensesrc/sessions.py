# SPDX-License-Identifier: LGPL-2.1-or-later
"""realsensesrc's sessions (from READY to NULL): a librealsense recording
through its playback device, or a live camera through rs.pipeline; and
librealsense's own alignment, the fallback when depthalign is not
registered."""
import os
import threading

import gi

gi.require_version("Gst", "1.0")
from gi.repository import Gst  # noqa: E402

from _realsensesrc.common import StartError, format_map, rs  # noqa: E402


class Session:
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


class Playback(Session):
    """A librealsense recording through its playback device, not in real time."""
    live = False

    def open(self):
        loc = self.settings["location"]
        if not os.path.exists(loc):
            raise StartError(Gst.ResourceError.NOT_FOUND,
                             f"Could not open recording \"{loc}\" for reading: no such file",
                             f"os.path.exists({loc!r}) is False")
        if not os.access(loc, os.R_OK) or os.path.isdir(loc):
            raise StartError(Gst.ResourceError.OPEN_READ,
                             f"Could not open recording \"{loc}\" for reading", "not a readable file")
        try:
            self.ctx = rs.context()
            self.dev = self.ctx.load_device(loc)
            self.pb = self.dev.as_playback()
            self.pb.set_real_time(False)
        except Exception as e:  # librealsense raises RuntimeError with its reason
            raise StartError(Gst.ResourceError.OPEN_READ,
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
            raise StartError(Gst.ResourceError.OPEN_READ,
                             f"Recording \"{loc}\" has no {' and no '.join(missing)} stream",
                             "realsensesrc needs one depth and one colour stream")
        try:
            self.depth_scale = self.depth_sensor.as_depth_sensor().get_depth_scale()
        except Exception:
            self.depth_scale = 0.001
        setup_streams(self, tag=os.path.splitext(os.path.basename(loc))[0])

    def start(self):
        self.stopping = False
        self.stopped = threading.Event()
        self.aligner = Aligner(self) if self.element._align_method == "librealsense" else None
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
            raise StartError(Gst.ResourceError.READ, f"Could not start playing \"{self.settings['location']}\": {e}",
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
            self.element._error(StartError(Gst.StreamError.FAILED, "realsensesrc: frame handling failed",
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


class Camera(Session):
    """A live camera through rs.pipeline, read by a Python thread."""
    live = True

    def open(self):
        s = self.settings
        self.ctx = rs.context()
        try:
            devices = list(self.ctx.query_devices())
        except Exception as e:
            raise StartError(Gst.ResourceError.OPEN_READ, f"librealsense could not list devices: {e}", repr(e))
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
                raise StartError(Gst.ResourceError.NOT_FOUND,
                                 "No RealSense camera found (set location to play a recording instead)",
                                 "librealsense's context lists no devices: check the USB connection and "
                                 "udev permissions (librealsense's 99-realsense-libusb.rules)")
            raise StartError(Gst.ResourceError.NOT_FOUND,
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
            raise StartError(Gst.ResourceError.SETTINGS,
                             f"Camera {self.serial} offers no depth + colour streams for the requested "
                             f"size/rate: {e}", repr(e))
        self.depth_profile = self.profile.get_stream(rs.stream.depth).as_video_stream_profile()
        self.color_profile = self.profile.get_stream(rs.stream.color).as_video_stream_profile()
        self.depth_scale = self.profile.get_device().first_depth_sensor().get_depth_scale()
        setup_streams(self, tag=self.serial)

    def start(self):
        self.stopping = False
        self.aligner = Aligner(self) if self.element._align_method == "librealsense" else None
        try:
            self.pipe.start(self.cfg)
        except Exception as e:
            raise StartError(Gst.ResourceError.OPEN_READ, f"Could not start camera {self.serial}: {e}", repr(e))
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
                el._error(StartError(Gst.ResourceError.READ,
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


class Aligner:
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


def setup_streams(session, tag):
    el = session.element
    fmts = format_map()
    cfmt = fmts.get(session.color_profile.format())
    if cfmt is None or cfmt == "GRAY16_LE":
        raise StartError(Gst.StreamError.FORMAT,
                         f"Colour stream format {session.color_profile.format()} has no GStreamer raw video equivalent",
                         domain=Gst.stream_error_quark())
    if session.depth_profile.format() != rs.format.z16:
        raise StartError(Gst.StreamError.FORMAT,
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
