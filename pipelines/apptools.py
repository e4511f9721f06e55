# SPDX-License-Identifier: LGPL-2.1-or-later
"""What the Python tools (examples/python/depthmatte_app.py, pipelines/serve-rtsp)
share, as the shell scripts share pipelines/common.sh: property values checked
against the element's own property specs, the display sink on a machine with
or without a display, and the reason a pipeline gives when it fails.

Importing it sets OPENCV_LOG_LEVEL=SILENT unless it is set: Debian's OpenCV
lacks the optional nose/mouth/eye cascades facedetect tries to load at start;
it works without them but prints an error line for each (set
OPENCV_LOG_LEVEL=INFO to see them). Import it before Gst.init()."""
import os
import re
import subprocess
import sys

os.environ.setdefault("OPENCV_LOG_LEVEL", "SILENT")

import gi  # noqa: E402

gi.require_version("Gst", "1.0")
from gi.repository import GObject, Gst  # noqa: E402


def check_value(spec, value):
    """Raises ValueError unless `value` (text, as typed) is one the property
    `spec` takes: an enum's nick, name or number, a number within the
    property's range, a boolean. The message names the property and what it
    takes."""
    if hasattr(spec, "enum_class"):
        values = spec.enum_class.__enum_values__.values()
        names = {v.value_nick for v in values} | {v.value_name for v in values} | {str(int(v)) for v in values}
        if value not in names:
            raise ValueError(f"{spec.name} takes one of {', '.join(sorted(v.value_nick for v in values))}")
    elif spec.value_type == GObject.TYPE_BOOLEAN:
        if value.lower() not in ("true", "false", "yes", "no", "1", "0"):
            raise ValueError(f"{spec.name} takes true or false")
    elif hasattr(spec, "minimum") and hasattr(spec, "maximum"):
        try:
            v = float(int(value, 0)) if value.lower().startswith("0x") else float(value)
        except ValueError:
            raise ValueError(f"{spec.name} takes a number") from None
        if not spec.minimum <= v <= spec.maximum:
            raise ValueError(f"{spec.name} takes {spec.minimum:g} to {spec.maximum:g}")


def check_settings(factory, settings):
    """Raises ValueError unless every PROP=VALUE text of `settings` names a
    property of the element `factory` makes and a value it takes, checked
    against the element type's own property specs (no element is made)."""
    found = Gst.ElementFactory.find(factory)
    loaded = found.load() if found is not None else None
    if loaded is None:
        raise ValueError(f"{factory} not found")
    specs = {spec.name: spec for spec in GObject.list_properties(loaded.get_element_type())}
    for text in settings:
        name, value = split_setting(text)
        if name not in specs:
            raise ValueError(f"{factory} has no property {name}")
        check_value(specs[name], value)


def set_checked(element, name, value):
    """Sets the property `name` of `element` from the text `value`, or raises
    ValueError (the element unchanged) naming the property and the values it
    takes."""
    spec = element.find_property(name)
    if spec is None:
        raise ValueError(f"{element.get_factory().get_name()} has no property {name}")
    check_value(spec, value)
    Gst.util_set_object_arg(element, name, value)


def split_setting(text):
    """PROP=VALUE as (PROP, VALUE), or ValueError."""
    name, eq, value = text.partition("=")
    if not eq or not name:
        raise ValueError(f"{text}: expected PROPERTY=VALUE")
    return name, value


def display_sink(tool, instead):
    """The sink description that shows the output: $DM_SINK when set (as in
    the pipelines/ scripts), else autovideosink when there is a display
    ($DISPLAY or $WAYLAND_DISPLAY), else `fakesink sync=true` (the pipeline
    still runs at real time and shows nothing), said in one line on stderr
    that names what to pass `instead`. With no display Debian's
    autovideosink picks dfbvideosink, which crashes the process."""
    if os.environ.get("DM_SINK"):
        return os.environ["DM_SINK"]
    if os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"):
        return "autovideosink"
    print(f"{tool}: no display (DISPLAY and WAYLAND_DISPLAY unset): showing nothing; {instead}",
          file=sys.stderr, flush=True)
    return "fakesink sync=true"


def error_text(msg):
    """An ERROR or WARNING message as 'element: message (debug)'."""
    if msg.type == Gst.MessageType.ERROR:
        err, dbg = msg.parse_error()
    else:
        err, dbg = msg.parse_warning()
    src = msg.src.get_name() if msg.src is not None else "pipeline"
    return f"{src}: {err.message}" + (f" ({dbg})" if dbg else "")


def failure_reason(bus):
    """Why a state change failed: the first ERROR message waiting on `bus`,
    else a plain 'no reason given'."""
    msg = bus.pop_filtered(Gst.MessageType.ERROR)
    return error_text(msg) if msg is not None else "no element said why"


LEARNED_PROBE = ["gst-launch-1.0", "videotestsrc", "num-buffers=1", "!", "video/x-raw,width=64,height=48", "!",
                 "videoconvert", "!", "mpfacedetect", "!", "personmask", "!", "fakesink"]


def learned_unready():
    """None when personmask and mpfacedetect have their models (one frame
    through both in a process of its own, unlogged: the runtime found, loaded
    and self-tested, as the elements do at start), else their reason in one line."""
    env = {k: v for k, v in os.environ.items() if k not in ("GST_DEBUG", "GST_DEBUG_FILE")}
    try:
        r = subprocess.run(LEARNED_PROBE, capture_output=True, text=True, env=env, timeout=120)
    except (OSError, subprocess.TimeoutExpired) as e:
        return f"personmask/mpfacedetect do not run ({e})"
    out = r.stdout + r.stderr
    m = re.search(r"has no (\w+) model: (.*?)\. (Its masks|Frames pass)", out)
    if m:
        return f"no {m.group(1)} model: {m.group(2)}"
    if r.returncode != 0:
        return "personmask/mpfacedetect do not run: " + (out.strip().splitlines() or ["no output"])[-1]
    return None
