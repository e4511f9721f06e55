# SPDX-License-Identifier: LGPL-2.1-or-later
"""Pipeline tests against the built plugin.

Run through scripts/test, which points GST_PLUGIN_PATH at .build/release and
GST_REGISTRY at a throw-away file, so the tests see exactly this build and
nothing installed per user.

The real RGB-D set. Tests that read the real photographs and clips (the
`shared/real-rgbd` folder beside the clone, or DM_REAL_RGBD) carry the
`real_rgbd` marker or ask for the `real_rgbd` fixture (the set's folder, a
pathlib.Path; asking for it applies the marker). Where the set is absent they
skip, and the run ends with one line saying how many skipped and why; with
CI=true (CI has the set) a missing set fails each of them instead.
"""
import os
import pathlib
import sys

import gi
import pytest

gi.require_version("Gst", "1.0")
gi.require_version("GstVideo", "1.0")
from gi.repository import Gst  # noqa: E402

sys.path.insert(0, os.path.dirname(__file__))
Gst.init(None)

# Criticals in the plugin must fail the run (in the spirit of gst_check_init).
from gi.repository import GLib  # noqa: E402

GLib.log_set_always_fatal(GLib.LogLevelFlags.LEVEL_CRITICAL | GLib.LogLevelFlags.LEVEL_ERROR)

ROOT = pathlib.Path(__file__).resolve().parents[2]
REAL_RGBD = pathlib.Path(os.environ.get("DM_REAL_RGBD") or (ROOT.parent / "shared" / "real-rgbd")).resolve()
REAL_RGBD_ABSENT = f"the real RGB-D set is not at {REAL_RGBD}"
# Tests that read the set without carrying the marker themselves.
REAL_RGBD_READERS = ("test_person_pad.py::test_the_learned_pipeline_keeps_the_whole_selfie",)


def pytest_configure(config):
    config.addinivalue_line("markers", "real_rgbd: reads the real RGB-D set (skips where it is absent; "
                                       "fails under CI=true)")


def pytest_sessionstart(session):
    if Gst.ElementFactory.find("depthmatte") is None:
        raise RuntimeError(
            "depthmatte not found: run through scripts/test, or set GST_PLUGIN_PATH to .build/release")


def pytest_collection_modifyitems(config, items):
    for item in items:
        nodeid = item.nodeid.split("/")[-1]
        if "real_rgbd" in getattr(item, "fixturenames", ()) or nodeid.startswith(REAL_RGBD_READERS):
            item.add_marker(pytest.mark.real_rgbd)


def real_rgbd_present():
    return (REAL_RGBD / "phone").is_dir()


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item):
    # before any fixture (a module fixture that opens the set included)
    if item.get_closest_marker("real_rgbd") is None or real_rgbd_present():
        return
    if os.environ.get("CI") == "true":
        pytest.fail(f"{REAL_RGBD_ABSENT} (CI=true: CI runs every test with the set)", pytrace=False)
    pytest.skip(REAL_RGBD_ABSENT)


@pytest.fixture(scope="session")
def real_rgbd():
    """The real RGB-D set's folder (phone/, video/); the test skips where it is absent."""
    return REAL_RGBD


def pytest_terminal_summary(terminalreporter):
    skipped = [r for r in terminalreporter.stats.get("skipped", [])
               if isinstance(r.longrepr, tuple) and REAL_RGBD_ABSENT in str(r.longrepr[2])]
    if skipped:
        terminalreporter.write_line(
            f"real-rgbd: {len(skipped)} tests skipped: {REAL_RGBD_ABSENT} (it sits beside the clone as "
            "shared/real-rgbd, or set DM_REAL_RGBD; CI=true makes a missing set a failure)")
