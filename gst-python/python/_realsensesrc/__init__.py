# SPDX-License-Identifier: LGPL-2.1-or-later
"""Helpers of the realsensesrc element (../realsensesrc.py): the librealsense
import, the calibration JSON, and the camera and recording sessions.

A package rather than modules beside realsensesrc.py: GStreamer's Python
plugin loader imports every `*.py` file in a `python/` plugin folder as a
plugin and passes over folders, while it puts the folder itself on sys.path,
so realsensesrc.py imports this package by name."""
