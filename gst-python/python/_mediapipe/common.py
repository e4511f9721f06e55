# SPDX-License-Identifier: LGPL-2.1-or-later
"""What personmask and mpfacedetect share: mediapipe, cv2 and numpy (or why
they could not be imported), the packed RGB formats, a buffer's pixels as a
numpy view, the downscaled RGB copy the models see, and enum registration."""
import ctypes
import ctypes.util
import sys
import warnings

import gi

gi.require_version("Gst", "1.0")
gi.require_version("GstVideo", "1.0")
from gi.repository import GObject, Gst, GstVideo  # noqa: E402

try:
    import numpy as np
    import cv2
    import mediapipe as mp
    from mediapipe.python.solutions import face_detection as mp_face_detection
    from mediapipe.python.solutions import selfie_segmentation as mp_selfie_segmentation
    IMPORT_ERROR = None
    # mediapipe 0.10.14 calls protobuf's SymbolDatabase.GetPrototype(), which protobuf 4.25
    # marks deprecated with a UserWarning on stderr; the call works, the warning is noise
    warnings.filterwarnings("ignore", message=r"SymbolDatabase\.GetPrototype\(\) is deprecated",
                            category=UserWarning)
except Exception as e:  # the element files then register nothing and say why
    np = cv2 = mp = mp_face_detection = mp_selfie_segmentation = None
    IMPORT_ERROR = e

# byte offsets of (r, g, b) inside a pixel, and the pixel size, of the packed RGB formats
LAYOUTS = {
    "RGB": ((0, 1, 2), 3), "BGR": ((2, 1, 0), 3),
    "RGBA": ((0, 1, 2), 4), "BGRA": ((2, 1, 0), 4), "ARGB": ((1, 2, 3), 4), "ABGR": ((3, 2, 1), 4),
    "RGBx": ((0, 1, 2), 4), "BGRx": ((2, 1, 0), 4), "xRGB": ((1, 2, 3), 4), "xBGR": ((3, 2, 1), 4),
}
RGB_CAPS_STR = ("video/x-raw, format=(string){ " + ", ".join(LAYOUTS) + " }, "
                "width=(int)[1, 2147483647], height=(int)[1, 2147483647], "
                "framerate=(fraction)[0/1, 2147483647/1]")


def unavailable(element):
    """The one line an element file prints when it registers nothing."""
    what = f"{type(IMPORT_ERROR).__name__}: {IMPORT_ERROR}".splitlines()[0]
    return (f"{element}: not registered: mediapipe, cv2 or numpy cannot be imported by this Python "
            f"({sys.version_info.major}.{sys.version_info.minor}, {what}); run scripts/setup to "
            f"install mediapipe 0.10.14 for /usr/bin/python3")


class _GEnumValue(ctypes.Structure):
    _fields_ = [("value", ctypes.c_int), ("value_name", ctypes.c_char_p), ("value_nick", ctypes.c_char_p)]


_enum_tables = []  # GObject keeps pointers into these tables for the life of the process


def register_enum(type_name, values):
    """Register a GEnum type `type_name` from (value, name, nick) triples and return
    its GType. PyGObject cannot declare new enum types, so this calls
    g_enum_register_static; a type already registered is returned as it is."""
    try:
        return GObject.type_from_name(type_name)
    except RuntimeError:
        pass
    lib = ctypes.CDLL(ctypes.util.find_library("gobject-2.0") or "libgobject-2.0.so.0")
    lib.g_enum_register_static.restype = ctypes.c_size_t
    lib.g_enum_register_static.argtypes = [ctypes.c_char_p, ctypes.c_void_p]
    table = (_GEnumValue * (len(values) + 1))(
        *[_GEnumValue(v, name.encode(), nick.encode()) for v, name, nick in values], _GEnumValue(0, None, None))
    name = type_name.encode()
    _enum_tables.append((table, name))
    lib.g_enum_register_static(name, ctypes.addressof(table))
    return GObject.type_from_name(type_name)


class FrameError(Exception):
    """A buffer that does not hold the frame its caps describe."""


def post_frame_error(element, err):
    """Post `err` (a FrameError) as the element's stream error."""
    element.message_full(Gst.MessageType.ERROR, Gst.stream_error_quark(), int(Gst.StreamError.FORMAT),
                         "Buffer does not match its caps", str(err), __file__, "transform", 0)


class FrameLayout:
    """The negotiated packed RGB format of a pad: size, pixel size, default row stride."""

    def __init__(self, caps):
        info = GstVideo.VideoInfo.new_from_caps(caps)
        self.format = info.finfo.name
        self.width, self.height = info.width, info.height
        self.stride = info.stride[0]
        self.channels, self.pixel_size = LAYOUTS[self.format]

    def view(self, buf, data):
        """The pixels of `buf` (mapped as `data`) as an (height, width, pixel size) uint8 view.
        A GstVideoMeta on the buffer gives the stride and offset when present."""
        stride, offset = self.stride, 0
        meta = GstVideo.buffer_get_video_meta(buf)
        if meta is not None:
            stride, offset = meta.stride[0], meta.offset[0]
        need = stride * (self.height - 1) + self.width * self.pixel_size
        if offset + need > len(data):
            raise FrameError(f"a {self.width}x{self.height} {self.format} buffer of {len(data)} bytes is too "
                             f"small (stride {stride}, offset {offset}: {offset + need} bytes needed)")
        rows = np.frombuffer(data, np.uint8, count=need, offset=offset)
        return np.lib.stride_tricks.as_strided(
            rows, shape=(self.height, self.width, self.pixel_size), strides=(stride, self.pixel_size, 1),
            writeable=False)

    def small_rgb(self, view, width, height, area=False):
        """A contiguous RGB copy of `view` at width x height. With `area`, an area
        average (the best input for BlazeFace: 3-4 more faces found on the real
        frames than bilinear); else, for large frames, a bilinear resize to twice
        the size and an exact 2:1 area average (about 1 ms from 1080p, close to a
        full area resize in quality, which costs 4-8 ms), and bilinear below that."""
        h, w = view.shape[:2]
        if (w, h) == (width, height):
            small = view
        elif area:
            small = cv2.resize(view, (width, height), interpolation=cv2.INTER_AREA)
        elif w >= 2 * width and h >= 2 * height:
            small = cv2.resize(view, (2 * width, 2 * height), interpolation=cv2.INTER_LINEAR)
            small = cv2.resize(small, (width, height), interpolation=cv2.INTER_AREA)
        else:
            small = cv2.resize(view, (width, height), interpolation=cv2.INTER_LINEAR)
        if self.channels == (0, 1, 2) and self.pixel_size == 3:
            return np.ascontiguousarray(small)
        return np.ascontiguousarray(small[..., list(self.channels)])
