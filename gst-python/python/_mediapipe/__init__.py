# SPDX-License-Identifier: LGPL-2.1-or-later
"""Helpers of the personmask and mpfacedetect elements (../personmask.py,
../mpfacedetect.py): the mediapipe import, the packed RGB formats, frames as
numpy views, registered enums, and the two element classes.

A package rather than modules beside the element files: GStreamer's Python
plugin loader imports every `*.py` file in a `python/` plugin folder as a
plugin and passes over folders, while it puts the folder itself on sys.path,
so the element files import this package by name. Its name starts with an
underscore so that it never stands for the `mediapipe` wheel itself."""
