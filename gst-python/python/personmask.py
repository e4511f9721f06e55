# SPDX-License-Identifier: LGPL-2.1-or-later
"""personmask: a person mask (GRAY8, 255 = person) from mediapipe's selfie segmentation.

    ... ! videoconvert ! personmask ! videoscale ! video/x-raw,width=640,height=480 ! ...

Input is packed RGB (RGB, BGR, RGBA, BGRA, ARGB, ABGR, RGBx, BGRx, xRGB, xBGR) of
any size; output is the mask of the whole frame at the model's input size (general
256x256, landscape 256x144) or at the width/height properties, with the input's
timestamps and framerate. `interval` runs the model on every N-th frame only.

Loaded by GStreamer's Python plugin loader (Debian: gstreamer1.0-python3-plugin-loader),
which imports `*.py` from the `python/` subfolder of every folder on GST_PLUGIN_PATH
(and of ~/.local/share/gstreamer-1.0/plugins). Needs mediapipe 0.10.14 for the
loader's Python (/usr/bin/python3; scripts/setup installs it): without it this file
registers nothing and prints one line saying so.

The element itself is _mediapipe/personmask.py (the package beside this file).
"""
import sys

import gi

gi.require_version("Gst", "1.0")
from gi.repository import Gst  # noqa: E402

from _mediapipe.common import IMPORT_ERROR, unavailable  # noqa: E402

if IMPORT_ERROR is None:
    from _mediapipe.personmask import PersonMask

    __gstelementfactory__ = ("personmask", Gst.Rank.NONE, PersonMask)
else:
    print(unavailable("personmask"), file=sys.stderr)
