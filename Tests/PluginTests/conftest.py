# SPDX-License-Identifier: LGPL-2.1-or-later
"""Pipeline tests against the built plugin.

Run through scripts/test, which points GST_PLUGIN_PATH at .build/release and
GST_REGISTRY at a throw-away file, so the tests see exactly this build and
nothing installed per user.
"""
import os
import sys

import gi

gi.require_version("Gst", "1.0")
gi.require_version("GstVideo", "1.0")
from gi.repository import Gst  # noqa: E402

sys.path.insert(0, os.path.dirname(__file__))
Gst.init(None)

# Criticals in the plugin must fail the run (in the spirit of gst_check_init).
from gi.repository import GLib  # noqa: E402

GLib.log_set_always_fatal(GLib.LogLevelFlags.LEVEL_CRITICAL | GLib.LogLevelFlags.LEVEL_ERROR)


def pytest_sessionstart(session):
    if Gst.ElementFactory.find("depthmatte") is None:
        raise RuntimeError(
            "depthmatte not found: run through scripts/test, or set GST_PLUGIN_PATH to .build/release")
