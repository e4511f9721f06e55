#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""depthmatte in a Python (PyGObject) application: a starting point to copy.

Builds  source(s) -> depthmatte -> display and/or H.264 MP4 recording,
changes the keying while PLAYING from typed or scripted commands, prints the
subject lock from depthmatte's per-frame element messages, and can sweep the
focus distance with a GstController control binding.

Needs Debian's python3-gi, gir1.2-gstreamer-1.0, gir1.2-gst-plugins-base-1.0
(no pip packages) and the depthmatte plugin (installed, or GST_PLUGIN_PATH).
Run it with Debian's /usr/bin/python3, which is the one that has `gi`.

The learned person prior: when personmask and mpfacedetect have their models
(the LiteRT runtime and models that scripts/setup installs), personmask gives
depthmatte's person pad a person probability from a tee of the colour,
and mpfacedetect finds the face for the lock where the stock facedetect would
(camera, recording; rgbdtestsrc attaches its faces itself). --no-learned (or
DM_LEARNED=0) keys from depth alone, with facedetect. One line on stderr says
which.

Sources (one of):
  (default)                       rgbdtestsrc, the synthetic RGB-D scene, live
  --camera DEV --depth-device DEV V4L2 colour (+ a face detector) and GRAY16_LE depth
  --recording PREFIX              a session written by pipelines/record.sh
                                  (PREFIX-colour.mkv + PREFIX-depth.mov)
Outputs:
  (default)                       the display: autovideosink ($DM_SINK, a sink
                                  description, when set); with no display
                                  ($DISPLAY, $WAYLAND_DISPLAY unset)
                                  fakesink sync=true and a line saying so
  --record out.mp4                H.264 (constrained-baseline, I420) in MP4,
                                  playable by stock decoders (openh264dec too)
  --sink "ELEMENT ..."            any sink description instead of the display
                                  ("fakesink", "none" for no display)
  --dump-at SECONDS FILE.png      write the composite at that stream time (repeatable)

Commands (typed on stdin, or from --script FILE with "at SECONDS COMMAND"):
  set PROP VALUE | PROP VALUE     any depthmatte property, e.g.
                                    cutoff-offset 0.4
                                    mode nearest
                                    background-color 0xff00ff00
                                    refine original
  background IMAGE.png|.jpg       show a picture behind the subject (replaces
                                  the current one; relinks the background pad);
                                  a picture that does not decode is an error
                                  and the current background stays
  background none                 back to background-color
  status                          print the last lock report
  eos | quit                      finish (the recording is closed properly;
                                  Ctrl-C and SIGTERM do the same)
  at SECONDS COMMAND              run COMMAND before the colour frame at that
                                  stream time is keyed
Lines starting with # are ignored; a line that is not a command prints an
error line and the app goes on. Times are stream times in seconds, those of
the frames (--dump-at and --duration too): on a loaded machine, which renders
behind the clock, a timed command still meets the frames it names.

Printed lines (stdout, one per event):
  lock   t=0.000 lock=face face-found=true cutoff=1.2590   on every change of lock / face-found
  status t=1.000 cutoff=1.2588 lock=face face-found=true coverage=0.136 person=true   every --status-interval s
                                            (person: the person probability took part in the frame's matte)
  cmd    t=1.002 cutoff-offset 0.4                          a command was applied
  dump   t=0.500 out.png                                    a frame was written
  error  ...                                                a command failed

Examples:
  depthmatte_app.py
  depthmatte_app.py --record out.mp4 --duration 10 --script examples/python/demo-script.txt
  depthmatte_app.py --mode highpass --animate-focus 0.9:2.0:5
  echo "background-color 0xff0000ff" | depthmatte_app.py --sink fakesink --duration 3
"""
import argparse
import os
import threading
import shlex
import signal
import sys

try:
    import gi
except ImportError:
    sys.exit(f"depthmatte_app: this python ({sys.executable}) has no gi (PyGObject): run it with Debian's "
             "/usr/bin/python3, which has python3-gi (or run the file itself: its first line names it)")

gi.require_version("Gst", "1.0")
gi.require_version("GstVideo", "1.0")
gi.require_version("GstController", "1.0")
from gi.repository import GLib, Gst, GstController, GstVideo  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "pipelines"))
import recording  # noqa: E402  (pipelines/recording.py: the one reader of record.sh's files)
import apptools  # noqa: E402  (pipelines/apptools.py: property checks, display sink, failure reasons)

DECODERS = {".png": "pngdec", ".jpg": "jpegdec", ".jpeg": "jpegdec"}


def log(kind, t, text):
    print(f"{kind:<6} t={t:.3f} {text}", flush=True)


def shown_value(v, typed):
    """A property's value as applied, written as the command was where that
    is the same value (0xff00ff00, not 4278255360)."""
    if hasattr(v, "value_nick"):
        return v.value_nick
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        try:
            t = int(typed, 0) if typed.lower().startswith("0x") else float(typed)
            if t == v:
                return typed
        except ValueError:
            pass
    return v


def learned_prior(a):
    """Whether the learned elements go in (registered and not turned off), and
    the one line that says so."""
    learned, why = False, None
    if a.no_learned or os.environ.get("DM_LEARNED") == "0":
        why = "--no-learned" if a.no_learned else "DM_LEARNED=0"
    elif (why := apptools.learned_unready()) is None:
        learned = True
    if not (a.camera or a.recording):
        face = "faces from rgbdtestsrc"
    elif a.no_facedetect:
        face = "no face detector"
    else:
        face = ("mpfacedetect" if learned else "facedetect (OpenCV)") + " for the face lock"
    if learned:
        return True, (f"depthmatte_app: learned person prior: personmask into m.person, {face} "
                      "(--no-learned: depth only)")
    return False, f"depthmatte_app: depth only ({why}): {face}"


def describe(a, learned=False):
    """The pipeline for the arguments `a`; `learned`: mpfacedetect in place of
    facedetect and personmask on a tee of the colour into depthmatte's person pad."""
    w, h = a.size.split("x")
    dw, dh = a.depth_size.split("x")
    video = f"video/x-raw,width={w},height={h},framerate={a.fps}/1"
    depth = f"video/x-raw,width={dw},height={dh},framerate={a.fps}/1"
    # the colour into depthmatte, with the learned prior also into personmask
    to_video = ("tee name=m_colour ! queue ! m.video m_colour. ! queue ! personmask ! m.person" if learned
                else "queue ! m.video")
    if a.camera:
        if not a.depth_device:
            sys.exit("--camera needs --depth-device (a GRAY16_LE depth node registered to the colour)")
        face = ("" if a.no_facedetect else "mpfacedetect ! " if learned
                else "facedetect display=false ! videoconvert ! ")
        inputs = (f"v4l2src device={a.camera} ! videoconvert ! {face}"
                  f"video/x-raw,format=BGRx ! {to_video} "
                  f"v4l2src device={a.depth_device} ! video/x-raw,format=GRAY16_LE ! queue ! m.depth ")
    elif a.recording:
        inputs = recording.inputs(a.recording, a.fps, facedetect=not a.no_facedetect, learned=learned) + " "
    else:
        still = " motion=false" if a.still else ""
        colour = to_video if learned else "m.video"
        inputs = (f"rgbdtestsrc is-live=true{still} ! {video} ! {colour} "
                  f"rgbdtestsrc is-live=true stream=depth{still} ! {depth} ! m.depth ")
    # A recording is not live: sync to the clock so timed commands line up.
    pace = "identity sync=true ! " if a.recording else ""
    outs = []
    if a.record:
        outs.append("queue ! videoconvert ! video/x-raw,format=I420 ! "
                    "x264enc tune=zerolatency speed-preset=veryfast key-int-max=30 ! "
                    "video/x-h264,profile=constrained-baseline ! h264parse ! "
                    f"mp4mux ! filesink location={shlex.quote(a.record)}")
    if a.sink is not None:
        sink = a.sink
    elif a.record:
        sink = "none"
    else:
        sink = apptools.display_sink("depthmatte_app", "pass --sink 'jpegenc ! multifilesink location=frame%05d.jpg' "
                                     "(or set DM_SINK) or --record out.mp4")
    if sink != "none":
        outs.append(f"queue ! videoconvert ! {sink}")
    if not outs:
        outs.append("fakesink")
    tee = " ".join(f"t. ! {o}" for o in outs)
    return f"depthmatte name=m ! {pace}tee name=t {tee} {inputs}"


def check_picture(path, decoder):
    """Raises ValueError unless the picture at `path` gives a frame through
    `decoder` (a broken or truncated file gives none, and no error either),
    naming what went wrong."""
    pl = Gst.Pipeline.new("picture-check")
    src = Gst.ElementFactory.make("filesrc")
    src.set_property("location", path)
    dec = Gst.ElementFactory.make(decoder)
    sink = Gst.ElementFactory.make("appsink")
    sink.set_property("sync", False)
    for e in (src, dec, sink):
        pl.add(e)
    src.link(dec)
    dec.link(sink)
    try:
        pl.set_state(Gst.State.PAUSED)
        bus = pl.get_bus()
        msg = bus.timed_pop_filtered(10 * Gst.SECOND, Gst.MessageType.ASYNC_DONE | Gst.MessageType.ERROR)
        if msg is not None and msg.type == Gst.MessageType.ERROR:
            raise ValueError(f"background: {path}: {apptools.error_text(msg)}")
        if msg is None or sink.emit("try-pull-preroll", 0) is None:
            warning = bus.pop_filtered(Gst.MessageType.WARNING)
            why = apptools.error_text(warning) if warning else "a broken or truncated file?"
            raise ValueError(f"background: {path}: {decoder} decoded no picture from it ({why})")
    finally:
        pl.set_state(Gst.State.NULL)


class App:
    def __init__(self, args):
        self.args = args
        self.loop = GLib.MainLoop()
        self.learned, line = learned_prior(args)
        print(line, file=sys.stderr, flush=True)
        self.pipeline = Gst.parse_launch(describe(args, self.learned))
        self.matte = self.pipeline.get_by_name("m")
        sets = [apptools.split_setting(p) for p in args.set] + ([("mode", args.mode)] if args.mode else [])
        for name, value in sets:
            apptools.set_checked(self.matte, name, value)

        self.bg_elements = []   # the current background branch, if any
        self.bg_pad = None      # depthmatte's background request pad
        if args.background:
            self.set_background(args.background)

        self.last = None        # last lock report (dict)
        self.last_change = None
        self.next_status = 0.0
        self.pending = []       # (seconds, command) sorted
        self.pending_lock = threading.Lock()
        self.dumps = sorted((float(t), f) for t, f in args.dump_at)
        self.eos_sent = False
        self.stdin_buf = b""
        self.exit_code = 0

        if args.animate_focus:
            self.animate_focus(args.animate_focus)
        if args.script:
            with open(args.script) as f:
                for line in f:
                    self.command(line)

        bus = self.pipeline.get_bus()
        bus.add_signal_watch()
        bus.connect("message", self.on_message)
        self.ended = False      # --duration reached: frames after it are dropped
        self.matte.get_static_pad("src").add_probe(Gst.PadProbeType.BUFFER, self.on_buffer)
        self.matte.get_static_pad("video").add_probe(Gst.PadProbeType.BUFFER, self.on_video)
        if not args.no_stdin:
            GLib.io_add_watch(GLib.IOChannel.unix_new(sys.stdin.fileno()),
                              GLib.PRIORITY_DEFAULT, GLib.IOCondition.IN | GLib.IOCondition.HUP,
                              self.on_stdin)
        GLib.timeout_add(10, self.tick)
        # Ctrl-C, and SIGTERM (kill, timeout, systemd) finish like quit: the
        # recording gets its index and plays
        for sig in (signal.SIGINT, signal.SIGTERM):
            GLib.unix_signal_add(GLib.PRIORITY_DEFAULT, sig, self.finish)

    # ---- pipeline ---------------------------------------------------------

    def running_time(self):
        clock = self.pipeline.get_clock()
        if clock is None:
            return 0.0
        return max(0, clock.get_time() - self.pipeline.get_base_time()) / Gst.SECOND

    def set_background(self, path, at=None):
        """Replace the background branch (filesrc ! decoder ! imagefreeze -> m.background),
        its frames starting at running time `at` seconds (default: now). A picture
        that does not decode raises ValueError and the current background stays.
        Returns an Event set when its first frame reaches depthmatte."""
        if path in ("none", ""):
            self.drop_background()
            return None
        ext = os.path.splitext(path)[1].lower()
        if ext not in DECODERS:
            raise ValueError(f"background: {path}: only {', '.join(DECODERS)} pictures")
        if not os.path.exists(path):
            raise ValueError(f"background: {path}: no such file")
        check_picture(path, DECODERS[ext])
        self.drop_background()
        src = Gst.ElementFactory.make("filesrc")
        src.set_property("location", path)
        dec = Gst.ElementFactory.make(DECODERS[ext])
        conv = Gst.ElementFactory.make("videoconvert")
        freeze = Gst.ElementFactory.make("imagefreeze")
        elements = [src, dec, conv, freeze]
        for e in elements:
            self.pipeline.add(e)
        src.link(dec)
        dec.link(conv)
        conv.link(freeze)
        pad = self.matte.request_pad_simple("background")
        srcpad = freeze.get_static_pad("src")
        # The new branch's own running time starts at 0: shift it to the
        # frame it is for (or now), so its frames are not taken as late.
        if at is not None:
            srcpad.set_offset(int(at * Gst.SECOND))
        elif self.pipeline.get_state(0)[1] == Gst.State.PLAYING:
            srcpad.set_offset(int(self.running_time() * Gst.SECOND))
        arrived = threading.Event()
        pad.add_probe(Gst.PadProbeType.BUFFER, lambda *_: (arrived.set(), Gst.PadProbeReturn.REMOVE)[1])
        if srcpad.link(pad) != Gst.PadLinkReturn.OK:
            raise RuntimeError("background: could not link to depthmatte's background pad")
        for e in reversed(elements):
            e.sync_state_with_parent()
        self.bg_elements, self.bg_pad = elements, pad
        return arrived

    def drop_background(self):
        if self.bg_pad is None:
            return
        # Releasing the request pad first flushes it, which unblocks the old
        # branch's streaming thread; then the branch can be shut down.
        self.matte.release_request_pad(self.bg_pad)
        for e in self.bg_elements:
            e.set_state(Gst.State.NULL)
            self.pipeline.remove(e)
        self.bg_elements, self.bg_pad = [], None

    def animate_focus(self, spec):
        """Ramp depthmatte's focus linearly FROM -> TO metres over SECONDS of stream time."""
        try:
            start, end, seconds = (float(x) for x in spec.split(":"))
        except ValueError:
            sys.exit("--animate-focus FROM:TO:SECONDS, e.g. 0.9:2.0:5")
        cs = GstController.InterpolationControlSource()
        cs.set_property("mode", GstController.InterpolationMode.LINEAR)
        cs.set(0, start)
        cs.set(int(seconds * Gst.SECOND), end)
        # absolute: control values are metres (a plain DirectControlBinding
        # would map 0..1 onto the property's whole 0..1000 m range)
        binding = GstController.DirectControlBinding.new_absolute(self.matte, "focus", cs)
        self.matte.add_control_binding(binding)
        self.focus_source = cs  # keep a reference

    # ---- commands ---------------------------------------------------------

    def command(self, line, now=None):
        line = line.strip()
        if not line or line.startswith("#"):
            return
        words = line.split()
        if words[0] == "at":
            try:
                when = float(words[1]) if len(words) >= 3 else None
            except ValueError:
                when = None
            if when is None or not when >= 0:
                log("error", self.running_time(), f"usage: at SECONDS COMMAND: {line}")
                return
            with self.pending_lock:
                self.pending.append((when, " ".join(words[2:])))
                self.pending.sort(key=lambda p: p[0])
            return
        self.run(words)

    def run(self, words, t=None, at=None):
        """Run one command; `t`: the stream time to print (default: now); `at`: the
        running time of the frame it is for. Returns an Event to wait for, or None."""
        if t is None:
            t = self.running_time()
        try:
            cmd = words[0]
            if cmd in ("eos", "quit"):
                log("cmd", t, cmd)
                self.finish()
            elif cmd == "status":
                log("status", t, self.describe_report(self.last) if self.last else "no report yet")
            elif cmd == "background":
                arrived = self.set_background(" ".join(words[1:]), at)
                log("cmd", t, " ".join(words))
                return arrived
            else:
                if cmd == "set":
                    words = words[1:]
                if len(words) != 2:
                    raise ValueError("expected PROPERTY VALUE")
                name, value = words
                apptools.set_checked(self.matte, name, value)
                log("cmd", t, f"{name} {shown_value(self.matte.get_property(name), value)}")
        except (ValueError, RuntimeError, TypeError) as e:
            log("error", t, f"{' '.join(words)}: {e}")
        return None

    def on_stdin(self, channel, condition):
        # os.read, not sys.stdin.readline: Python's buffered reader could keep
        # lines the watch would not be woken for.
        data = os.read(sys.stdin.fileno(), 4096)
        if not data:   # stdin closed: keep running
            return False
        self.stdin_buf += data
        *lines, self.stdin_buf = self.stdin_buf.split(b"\n")
        for line in lines:
            text = line.decode(errors="replace")
            try:
                self.command(text)
            except Exception as e:  # a typo must not stop the reader
                log("error", self.running_time(), f"{text.strip()}: {e}")
        return True

    def on_video(self, pad, info):
        """Streaming thread, before depthmatte takes the colour frame: the timed
        commands due by this frame's time run (on the main loop) before it goes
        on, and a new background's first frame reaches depthmatte first."""
        buf = info.get_buffer()
        if buf.pts == Gst.CLOCK_TIME_NONE:
            return Gst.PadProbeReturn.OK
        t = buf.pts / Gst.SECOND
        with self.pending_lock:
            due = []
            while self.pending and self.pending[0][0] <= t + 1e-6:
                due.append(self.pending.pop(0)[1])
        if not due:
            return Gst.PadProbeReturn.OK
        segment = pad.get_sticky_event(Gst.EventType.SEGMENT, 0)
        rt = segment.parse_segment().to_running_time(Gst.Format.TIME, buf.pts) if segment else buf.pts
        done, waits = threading.Event(), []

        def run_due():
            for cmd in due:
                w = self.run(cmd.split(), t, rt / Gst.SECOND)
                if w is not None:
                    waits.append(w)
            done.set()
            return False
        GLib.idle_add(run_due)
        # bounded: a main loop that has quit, or a picture that never flows,
        # must not hold the colour forever
        if done.wait(10):
            for w in waits:
                w.wait(10)
        return Gst.PadProbeReturn.OK

    def tick(self):
        # --duration ends at the frame of that stream time (on_buffer); a
        # source that stops delivering frames still stops 10 s later
        if self.args.duration and self.running_time() >= self.args.duration + 10:
            self.finish()
        return True

    def finish(self, *_):
        if not self.eos_sent:
            self.eos_sent = True
            self.pipeline.send_event(Gst.Event.new_eos())
            # a live pipeline that cannot drain must still stop
            GLib.timeout_add_seconds(5, self.quit)
        return True

    def quit(self, *_):
        self.loop.quit()
        return False

    # ---- reports ----------------------------------------------------------

    @staticmethod
    def describe_report(r):
        return (f"cutoff={r['cutoff']:.4f} lock={r['lock']} face-found={str(r['face-found']).lower()} "
                f"coverage={r['coverage']:.3f} person={str(r['person']).lower()}")

    def on_message(self, bus, msg):
        t = msg.type
        if t == Gst.MessageType.ELEMENT:
            s = msg.get_structure()
            if s is not None and s.get_name() == "depthmatte" and msg.src == self.matte:
                self.on_report(s)
        elif t == Gst.MessageType.EOS:
            self.loop.quit()
        elif t == Gst.MessageType.ERROR:
            err, dbg = msg.parse_error()
            print(f"error  {msg.src.get_name()}: {err.message}\n{dbg}", file=sys.stderr, flush=True)
            self.exit_code = 1
            self.loop.quit()

    def on_report(self, s):
        r = {
            "t": s.get_value("running-time") / Gst.SECOND,
            "cutoff": s.get_value("cutoff"),
            "lock": s.get_value("lock"),
            "face-found": s.get_value("face-found"),
            "coverage": s.get_value("coverage"),
            "person": bool(s.get_value("person")),
        }
        self.last = r
        change = (r["lock"], r["face-found"])
        if change != self.last_change:
            self.last_change = change
            log("lock", r["t"], f"lock={r['lock']} face-found={str(r['face-found']).lower()} "
                f"cutoff={r['cutoff']:.4f}")
        if self.args.status_interval > 0 and r["t"] >= self.next_status:
            self.next_status = r["t"] + self.args.status_interval
            log("status", r["t"], self.describe_report(r))

    # ---- frame dumps ------------------------------------------------------

    def on_buffer(self, pad, info):
        buf = info.get_buffer()
        if self.ended:
            return Gst.PadProbeReturn.DROP
        if buf.pts == Gst.CLOCK_TIME_NONE:
            return Gst.PadProbeReturn.OK
        t = buf.pts / Gst.SECOND
        if self.args.duration and t + 1e-6 >= self.args.duration:
            # the frame at --duration is the first one not kept: the outputs
            # end here (an EOS sent to the sources would first play out what
            # the queues hold, seconds of a recording)
            self.ended = True
            pad.get_peer().send_event(Gst.Event.new_eos())
            GLib.idle_add(self.finish)
            return Gst.PadProbeReturn.DROP
        if self.dumps:
            if t + 1e-6 >= self.dumps[0][0]:
                _, path = self.dumps.pop(0)
                sample = Gst.Sample.new(buf.copy_deep(), pad.get_current_caps(), None, None)
                GLib.idle_add(self.write_png, sample, path, t)
        return Gst.PadProbeReturn.OK

    def write_png(self, sample, path, t):
        png = GstVideo.video_convert_sample(sample, Gst.Caps.from_string("image/png"), 5 * Gst.SECOND)
        buf = png.get_buffer()
        ok, info = buf.map(Gst.MapFlags.READ)
        with open(path, "wb") as f:
            f.write(info.data)
        buf.unmap(info)
        log("dump", t, path)
        return False

    def start(self):
        if self.pipeline.set_state(Gst.State.PLAYING) == Gst.StateChangeReturn.FAILURE:
            why = apptools.failure_reason(self.pipeline.get_bus())
            print(f"error  could not start the pipeline: {why}", file=sys.stderr)
            self.pipeline.set_state(Gst.State.NULL)
            return 1
        self.loop.run()
        self.pipeline.set_state(Gst.State.NULL)
        return self.exit_code


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter,
                                epilog="See the module docstring for the command language.")
    src = p.add_argument_group("input")
    src.add_argument("--camera", metavar="DEV", help="V4L2 colour device, e.g. /dev/video0")
    src.add_argument("--depth-device", metavar="DEV", help="V4L2 GRAY16_LE depth device, e.g. /dev/video2")
    src.add_argument("--recording", metavar="PREFIX", help="replay PREFIX-colour.mkv + PREFIX-depth.mov (record.sh)")
    src.add_argument("--no-facedetect", action="store_true", help="camera/recording: no facedetect in the chain")
    src.add_argument("--size", default="640x360", help="rgbdtestsrc video size (default 640x360)")
    src.add_argument("--depth-size", default="320x180", help="rgbdtestsrc depth size (default 320x180)")
    src.add_argument("--fps", type=int, default=30)
    src.add_argument("--still", action="store_true", help="rgbdtestsrc: the scene held at its t = 0 pose")
    key = p.add_argument_group("keying")
    key.add_argument("--mode", help="depthmatte mode: face, fixed, nearest, highpass, bandpass")
    key.add_argument("--no-learned", action="store_true",
                     help="depth only: no personmask/mpfacedetect even when registered (also DM_LEARNED=0)")
    key.add_argument("--set", action="append", default=[], metavar="PROP=VALUE",
                     help="any depthmatte property before start (repeatable)")
    key.add_argument("--background", metavar="IMAGE", help="background picture (.png/.jpg)")
    key.add_argument("--animate-focus", metavar="FROM:TO:SECONDS",
                     help="ramp focus (metres) over stream time with a control binding (highpass/bandpass)")
    out = p.add_argument_group("output")
    out.add_argument("--record", metavar="OUT.mp4", help="record H.264/MP4 (no display unless --sink)")
    out.add_argument("--sink", help='sink description instead of the display ("fakesink", "none")')
    out.add_argument("--dump-at", nargs=2, action="append", default=[], metavar=("SECONDS", "FILE"),
                     help="write the output frame at that stream time as PNG (repeatable)")
    ctl = p.add_argument_group("control")
    ctl.add_argument("--script", metavar="FILE", help="commands, one a line (at SECONDS COMMAND)")
    ctl.add_argument("--no-stdin", action="store_true", help="do not read commands from stdin")
    ctl.add_argument("--duration", type=float, default=0, help="stop after SECONDS (0 = run until eos/quit)")
    ctl.add_argument("--status-interval", type=float, default=1.0,
                     help="seconds between periodic status lines (0 = only changes)")
    return p.parse_args(argv)


def main(argv=None):
    args = parse_args(argv)
    Gst.init(None)
    if Gst.ElementFactory.find("depthmatte") is None:
        sys.exit("depthmatte plugin not found: run scripts/setup or set GST_PLUGIN_PATH")
    try:
        app = App(args)
    except (recording.RecordingError, ValueError) as e:
        sys.exit(f"depthmatte_app: {e}")
    return app.start()


if __name__ == "__main__":
    sys.exit(main())
