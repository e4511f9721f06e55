# SPDX-License-Identifier: LGPL-2.1-or-later
"""mpfacedetect: faces from mediapipe's BlazeFace, attached as the stock `facedetect` does.

    ... ! videoconvert ! mpfacedetect ! ... (what reads face ROI metas, e.g. depthmatte's video pad)

In line on the colour path: packed RGB (RGB, BGR, RGBA, BGRA, ARGB, ABGR, RGBx,
BGRx, xRGB, xBGR) of any size passes through unchanged; each face found becomes a
GstVideoRegionOfInterestMeta of roi_type "face" in the buffer's pixel coordinates,
and each frame with faces posts an element message "mpfacedetect".

Loaded by GStreamer's Python plugin loader (Debian: gstreamer1.0-python3-plugin-loader),
which imports `*.py` from the `python/` subfolder of every folder on GST_PLUGIN_PATH
(and of ~/.local/share/gstreamer-1.0/plugins). Needs mediapipe 0.10.14 for the
loader's Python (/usr/bin/python3; scripts/setup installs it): without it this file
registers nothing and prints one line saying so.

The element itself is _mediapipe/mpfacedetect.py (the package beside this file).
"""
import sys

import gi

gi.require_version("Gst", "1.0")
from gi.repository import Gst  # noqa: E402

from _mediapipe.common import IMPORT_ERROR, unavailable  # noqa: E402

if IMPORT_ERROR is None:
    from _mediapipe.mpfacedetect import MpFaceDetect

    __gstelementfactory__ = ("mpfacedetect", Gst.Rank.NONE, MpFaceDetect)
else:
    print(unavailable("mpfacedetect"), file=sys.stderr)
