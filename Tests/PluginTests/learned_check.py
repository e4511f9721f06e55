# SPDX-License-Identifier: LGPL-2.1-or-later
"""The learned person prior as the pipelines/ scripts, the Python app and
serve-rtsp use it: whether personmask and mpfacedetect have their models here,
the one stderr line a run prints about it, and the elements a run really made
(GStreamer's GST_ELEMENT_FACTORY log, one file per process, so a script's
several gst-* processes each leave theirs).

Without the LiteRT runtime and models the learned elements have no model, and
the checks of a default run expect the stock path and its line instead."""
import collections
import glob
import os
import re
import sys

from gi.repository import Gst

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "pipelines"))
import apptools  # noqa: E402  (pipelines/apptools.py: the scripts' own readiness check)

LEARNED = ("personmask", "mpfacedetect")
AVAILABLE = apptools.learned_unready() is None
FACEDETECT = Gst.ElementFactory.find("facedetect") is not None


def logging_env(folder, env=None):
    """`env` (default: this process's) with every element made logged to folder/gst-<pid>.log."""
    os.makedirs(folder, exist_ok=True)
    e = dict(os.environ if env is None else env)
    e.update(GST_DEBUG="GST_ELEMENT_FACTORY:4", GST_DEBUG_NO_COLOR="1",
             GST_DEBUG_FILE=os.path.join(str(folder), "gst-%p.log"))
    return e


def made(folder):
    """How many elements of each factory the logged processes made."""
    n = collections.Counter()
    for path in glob.glob(os.path.join(str(folder), "gst-*.log")):
        with open(path, errors="replace") as f:
            n.update(m.group(1) for m in re.finditer(r'creating element "([^"]+)"', f.read()))
    return n


def prior_line(stderr, name):
    """The one line `name` printed about the learned prior."""
    lines = [ln for ln in stderr.splitlines()
             if ln.startswith(f"{name}: ") and (": learned person prior:" in ln or ": depth only (" in ln)]
    assert len(lines) == 1, f"{name}: expected one line about the learned prior:\n{stderr[-3000:]}"
    return lines[0]


def check_default(stderr, elements, name, detector=True):
    """A run without DM_LEARNED=0: the learned elements when they have their models
    (mpfacedetect too when the run has a face detector), else the stock path."""
    line = prior_line(stderr, name)
    if AVAILABLE:
        assert line.startswith(f"{name}: learned person prior:") and "personmask into m.person" in line, line
        assert elements["personmask"] >= 1, elements
        assert (elements["mpfacedetect"] >= 1) == detector, elements
        assert elements["facedetect"] == 0, elements
    else:
        assert line.startswith(f"{name}: depth only (no "), line
        assert elements["personmask"] == elements["mpfacedetect"] == 0, elements


def check_depth_only(stderr, elements, name, why="DM_LEARNED=0", detector=True):
    """A run with the learned elements turned off: depth only, and the stock
    facedetect when the run has a face detector and it is installed."""
    line = prior_line(stderr, name)
    assert line.startswith(f"{name}: depth only ({why})"), line
    assert elements["personmask"] == elements["mpfacedetect"] == 0, elements
    assert (elements["facedetect"] >= 1) == (detector and FACEDETECT), elements
