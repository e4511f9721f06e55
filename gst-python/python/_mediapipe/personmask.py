# SPDX-License-Identifier: LGPL-2.1-or-later
"""The personmask element: a person mask from mediapipe's selfie segmentation.

A BaseTransform that is never in place: packed RGB of any size in, GRAY8 out
at the model's input size (general 256x256, landscape 256x144) or at the
width/height properties. The mask covers the whole frame, stretched to the
output size (the output's pixel-aspect-ratio says so: its display aspect is
the frame's); 255 = person. Timestamps, duration and framerate are the
input's.

Per frame: a downscaled RGB copy at the model's input size (so that mediapipe
neither resizes a large frame nor upsamples its mask to it), one model run,
the float mask to bytes, and a resize only when the output size is not the
model's. numpy/cv2 only, no per-pixel Python."""
import math
import threading

import gi

gi.require_version("Gst", "1.0")
gi.require_version("GstBase", "1.0")
gi.require_version("GstVideo", "1.0")
from gi.repository import GObject, Gst, GstBase, GstVideo  # noqa: E402

from .common import (RGB_CAPS_STR, FrameError, FrameLayout, cv2, mp_selfie_segmentation, np,  # noqa: E402
                     post_frame_error, register_enum)

# model_selection of mp.solutions.selfie_segmentation: (nick, input width, input height)
MODELS = {0: ("general", 256, 256), 1: ("landscape", 256, 144)}
MODEL_TYPE = register_enum("GstPersonMaskModel", [
    (0, "General model: 256x256 input, for people near the camera", "general"),
    (1, "Landscape model: 256x144 input, cheaper", "landscape"),
])

SINK_CAPS = Gst.Caps.from_string(RGB_CAPS_STR)
SRC_CAPS = Gst.Caps.from_string(
    "video/x-raw, format=(string)GRAY8, width=(int)[1, 2147483647], height=(int)[1, 2147483647], "
    "framerate=(fraction)[0/1, 2147483647/1]")


class PersonMask(GstBase.BaseTransform):
    __gtype_name__ = "GstPersonMask"
    __gstmetadata__ = (
        "Person mask (mediapipe selfie segmentation)",
        "Filter/Analyzer/Video",
        "Segments the people in packed RGB video with mediapipe's selfie segmentation and outputs "
        "their mask (GRAY8, 255 = person) over the whole frame at the model's input size",
        "depthmatte project")

    __gsttemplates__ = (
        Gst.PadTemplate.new("sink", Gst.PadDirection.SINK, Gst.PadPresence.ALWAYS, SINK_CAPS),
        Gst.PadTemplate.new("src", Gst.PadDirection.SRC, Gst.PadPresence.ALWAYS, SRC_CAPS),
    )

    __gproperties__ = {
        "model": (MODEL_TYPE, "Model",
                  "Selfie segmentation model: general (256x256 input) or landscape (256x144 input, "
                  "cheaper); sets the default output size", 0, GObject.ParamFlags.READWRITE),
        "width": (int, "Width", "Width of the output mask in pixels (0 = the model's input width)",
                  0, 16384, 0, GObject.ParamFlags.READWRITE),
        "height": (int, "Height", "Height of the output mask in pixels (0 = the model's input height)",
                   0, 16384, 0, GObject.ParamFlags.READWRITE),
        "interval": (int, "Interval", "Run the model on every N-th frame and repeat the last mask on the "
                     "frames between (frames, 1 = every frame)", 1, 30, 1, GObject.ParamFlags.READWRITE),
    }

    def __init__(self):
        super().__init__()
        self._lock = threading.Lock()
        # the model as its enum value object: what get_property hands back
        self._settings = {"model": self.find_property("model").default_value, "width": 0, "height": 0,
                          "interval": 1}
        self._segmenter = None
        self._segmenter_model = None
        self._in = None
        self._out_size = None
        self._out_stride = 0
        self._mask = None
        self._frame = 0
        self.get_static_pad("src").add_probe(Gst.PadProbeType.QUERY_UPSTREAM | Gst.PadProbeType.PULL, self._add_latency)

    # ---------------------------------------------------------------- properties
    def do_get_property(self, prop):
        with self._lock:
            return self._settings[prop.name]

    def do_set_property(self, prop, value):
        with self._lock:
            self._settings[prop.name] = value
        if prop.name in ("model", "width", "height"):
            self.reconfigure_src()

    def _output_size(self):
        with self._lock:
            s = dict(self._settings)
        _, mw, mh = MODELS[int(s["model"])]
        return s["width"] or mw, s["height"] or mh

    # ---------------------------------------------------------------- caps
    def do_transform_caps(self, direction, caps, filter_caps):
        out = Gst.Caps.new_empty()
        if direction == Gst.PadDirection.SINK:
            width, height = self._output_size()
            for i in range(caps.get_size()):
                s = caps.get_structure(i)
                o = Gst.Structure.new_from_string(
                    f"video/x-raw, format=(string)GRAY8, width=(int){width}, height=(int){height}, "
                    "pixel-aspect-ratio=(fraction)[1/2147483647, 2147483647/1]")
                if s.has_field("framerate"):
                    o.set_value("framerate", s.get_value("framerate"))
                out.append_structure(o)
        else:
            for i in range(caps.get_size()):
                s = caps.get_structure(i)
                o = SINK_CAPS.get_structure(0).copy()
                if s.has_field("framerate"):
                    o.set_value("framerate", s.get_value("framerate"))
                out.append_structure(o)
        if filter_caps is not None:
            out = filter_caps.intersect_full(out, Gst.CapsIntersectMode.FIRST)
        return out

    def do_fixate_caps(self, direction, caps, othercaps):
        if direction != Gst.PadDirection.SINK:
            return othercaps.fixate()
        s = caps.get_structure(0)
        _, in_w = s.get_int("width")
        _, in_h = s.get_int("height")
        ok, par_n, par_d = s.get_fraction("pixel-aspect-ratio")
        if not ok:
            par_n, par_d = 1, 1
        width, height = self._output_size()
        # the mask's display aspect is the frame's: par_out = par_in * (in_w / w) / (in_h / h)
        num, den = par_n * in_w * height, par_d * in_h * width
        g = math.gcd(num, den) or 1
        num, den = num // g, den // g
        while num > 2147483647 or den > 2147483647:
            num, den = max(1, num // 2), max(1, den // 2)
        want = f"video/x-raw, format=(string)GRAY8, width=(int){width}, height=(int){height}, " \
               f"pixel-aspect-ratio=(fraction){num}/{den}"
        ok, fps_n, fps_d = s.get_fraction("framerate")
        if ok:
            want += f", framerate=(fraction){fps_n}/{fps_d}"
        fixed = Gst.Caps.from_string(want).intersect(othercaps)
        if fixed.is_empty():
            return othercaps.fixate()
        return fixed.fixate()

    def do_get_unit_size(self, caps):
        info = GstVideo.VideoInfo.new_from_caps(caps)
        return True, info.size

    def do_set_caps(self, incaps, outcaps):
        self._in = FrameLayout(incaps)
        out = GstVideo.VideoInfo.new_from_caps(outcaps)
        self._out_size = (out.width, out.height)
        self._out_stride = out.stride[0]
        self._mask = None
        self._frame = 0
        return True

    # ---------------------------------------------------------------- latency
    def _add_latency(self, pad, info):
        """A live LATENCY query, on its way back downstream, gets one frame
        added: the model's mask of a frame leaves a few milliseconds after the
        frame itself, so a live aggregator downstream (depthmatte's person
        pad) must wait that long to pair the two by time."""
        query = info.get_query()
        if query is not None and query.type == Gst.QueryType.LATENCY:
            live, lo, hi = query.parse_latency()
            if live:
                extra = self._frame_duration()
                query.set_latency(live, lo + extra, hi if hi == Gst.CLOCK_TIME_NONE else hi + extra)
        return Gst.PadProbeReturn.OK

    def _frame_duration(self):
        caps = self.sinkpad.get_current_caps()
        if caps is not None:
            ok, n, d = caps.get_structure(0).get_fraction("framerate")
            if ok and n > 0:
                return Gst.util_uint64_scale_int(Gst.SECOND, d, n)
        return Gst.SECOND // 30

    # ---------------------------------------------------------------- state
    def do_start(self):
        with self._lock:
            model = int(self._settings["model"])
        self._segmenter_for(model)
        self._mask = None
        self._frame = 0
        return True

    def do_stop(self):
        if self._segmenter is not None:
            self._segmenter.close()
            self._segmenter = None
            self._segmenter_model = None
        self._mask = None
        return True

    def _segmenter_for(self, model):
        if self._segmenter is None or self._segmenter_model != model:
            if self._segmenter is not None:
                self._segmenter.close()
            self._segmenter = mp_selfie_segmentation.SelfieSegmentation(model_selection=model)
            self._segmenter_model = model
        return self._segmenter

    # ---------------------------------------------------------------- frames
    def do_transform(self, inbuf, outbuf):
        with self._lock:
            model, interval = int(self._settings["model"]), self._settings["interval"]
        if self._mask is None or self._frame % interval == 0 or self._segmenter_model != model:
            try:
                self._mask = self._run_model(inbuf, model)
            except FrameError as e:
                post_frame_error(self, e)
                return Gst.FlowReturn.ERROR
        self._frame += 1

        out_w, out_h = self._out_size
        with outbuf.map(Gst.MapFlags.WRITE) as mo:
            dst = np.frombuffer(mo.data, np.uint8, count=self._out_stride * out_h).reshape(out_h, self._out_stride)
            dst[:, :out_w] = self._mask
        return Gst.FlowReturn.OK

    def _run_model(self, inbuf, model):
        _, model_w, model_h = MODELS[model]
        with inbuf.map(Gst.MapFlags.READ) as mi:
            small = self._in.small_rgb(self._in.view(inbuf, mi.data), model_w, model_h)
        prob = self._segmenter_for(model).process(small).segmentation_mask
        mask = cv2.convertScaleAbs(prob, alpha=255.0)  # [0, 1] float to 0..255, rounded and saturated
        if mask.shape[1] != self._out_size[0] or mask.shape[0] != self._out_size[1]:
            mask = cv2.resize(mask, self._out_size, interpolation=cv2.INTER_LINEAR)
        return mask


GObject.type_register(PersonMask)
