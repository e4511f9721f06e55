# SPDX-License-Identifier: LGPL-2.1-or-later
"""personmask's full-body fallback (full-body=auto): the property as registered
and documented; a person the selfie model sees keeps the selfie model's mask
and a frame with no one keeps it too (the pose models change nothing there);
and, in a process of its own, a data folder without the pose models: the
element says so once in an INFO message and its masks are those of
full-body=off; a far figure with its back turned, which the selfie model
half sees, keyed whole. Frames are drawn here (no data set needed).

scripts/test points DEPTHMATTE_DATA_DIR at the unpacked runtime and models."""
import json
import os
import shutil
import subprocess
import sys

import cv2
import numpy as np
import pytest
from gi.repository import Gst

from harness import launch, pixels, pull_all

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
MODEL_DIR = os.environ.get("DEPTHMATTE_DATA_DIR") or os.path.join(
    os.environ.get("XDG_DATA_HOME") or os.path.expanduser("~/.local/share"), "depthmatte")
POSE_FILES = ("models/pose_detection.tflite", "models/pose_landmark_full.tflite")


@pytest.fixture(scope="module", autouse=True)
def _models_present():
    missing = [f for f in ("libLiteRt.so", "models/selfie_segmentation.tflite") + POSE_FILES
               if not os.path.isfile(os.path.join(MODEL_DIR, f))]
    if missing:
        pytest.fail(f"the learned runtime and models are not in {MODEL_DIR} ({', '.join(missing)} missing): "
                    "scripts/setup unpacks them and scripts/test sets DEPTHMATTE_DATA_DIR")


def room(path, person=True, scale=1.0, back=False, light=1.0):
    """A 640x480 PNG of a wall and a floor and, with `person`, a standing figure
    (head, shirt with arms, trousers, shoes) 380 * scale px tall at x = 320,
    its back turned (the head all hair) with `back`; every value v becomes
    v * light + (1 - light) * 60 (a dim room)."""
    img = np.zeros((480, 640, 3), np.uint8)
    img[:] = (170, 160, 150)  # BGR
    img[360:] = (100, 110, 120)
    if person:
        def p(x, y):
            return int(320 + x * scale), int(40 + y * scale)
        skin, hair, shirt, trousers = (140, 172, 224), (20, 30, 40), (150, 60, 40), (60, 50, 50)
        for s in (-1, 1):
            cv2.line(img, p(s * 20, 200), p(s * 24, 300), trousers, int(30 * scale))
            cv2.line(img, p(s * 24, 300), p(s * 26, 390), trousers, int(26 * scale))
            cv2.ellipse(img, p(s * 32, 395), (int(20 * scale), int(9 * scale)), 0, 0, 360, (20, 20, 20), -1)
            cv2.line(img, p(s * 45, 72), p(s * 60, 150), shirt, int(20 * scale))
            cv2.line(img, p(s * 60, 150), p(s * 58, 215), skin, int(16 * scale))
        cv2.fillPoly(img, [np.array([p(-45, 66), p(45, 66), p(38, 200), p(-38, 200)])], shirt)
        cv2.rectangle(img, p(-8, 55), p(8, 66), skin, -1)
        cv2.ellipse(img, p(0, 30), (int(22 * scale), int(28 * scale)), 0, 0, 360, skin, -1)
        cv2.ellipse(img, p(0, 14), (int(22 * scale), int(14 * scale)), 0, 180, 360, hair, -1)
        if back:
            cv2.ellipse(img, p(0, 30), (int(22 * scale), int(28 * scale)), 0, 0, 360, hair, -1)
    img = (img.astype(np.float32) * light + (1 - light) * 60).astype(np.uint8)
    cv2.imwrite(str(path), img)
    return path


def masks(path, full_body):
    desc = (f"filesrc location={path} ! pngdec ! videoconvert ! video/x-raw,format=RGB ! imagefreeze num-buffers=2 ! "
            f"personmask full-body={full_body} ! appsink name=sink sync=false")
    p = launch(desc)
    p.set_state(Gst.State.PLAYING)
    try:
        samples = pull_all(p, timeout=60)
    finally:
        p.set_state(Gst.State.NULL)
    assert len(samples) == 2, desc
    return [pixels(s)[..., 0].copy() for s in samples]


def test_the_property_is_registered_and_documented():
    m = Gst.ElementFactory.make("personmask", None)
    spec = m.find_property("full-body")
    assert spec.value_type.name == "GstPersonMaskFullBody"
    assert [v.value_nick for v in spec.enum_class.__enum_values__.values()] == ["off", "auto"]
    assert m.get_property("full-body").value_nick == "auto"
    assert "pose" in spec.blurb and "1%" in spec.blurb
    m.set_property("full-body", "off")
    assert m.get_property("full-body").value_nick == "off"
    with open(os.path.join(ROOT, "docs", "personmask.md")) as f:
        doc = f.read()
    assert "| `full-body` | enum GstPersonMaskFullBody | `off`: Off: the selfie model alone; `auto`:" in doc
    assert "**Full bodies** (`full-body=auto`, the default)" in doc


def test_a_person_the_selfie_model_sees_keeps_its_mask(tmp_path):
    path = room(tmp_path / "person.png")
    auto, off = masks(path, "auto"), masks(path, "off")
    # the selfie model sees the figure: well over 1 % of its plane
    assert (off[0] >= 128).mean() > 0.05
    for a, o in zip(auto, off):
        assert np.array_equal(a, o)


def test_a_frame_with_no_one_keeps_the_selfie_mask(tmp_path):
    path = room(tmp_path / "empty.png", person=False)
    auto, off = masks(path, "auto"), masks(path, "off")
    assert (off[0] >= 128).mean() < 0.01
    for a, o in zip(auto, off):
        assert np.array_equal(a, o)


def test_a_far_figure_with_its_back_turned_gets_the_pose_segmentation(tmp_path):
    """A figure 133 px tall, back turned, in a dim room: the selfie model keys
    under 1 % of its plane, about half of him; the pose models key the whole
    figure, and nothing beyond it."""
    path = room(tmp_path / "far.png", scale=0.35, back=True, light=0.5)
    figure = (cv2.imread(str(path)) != cv2.imread(str(room(tmp_path / "none.png", person=False, light=0.5)))).any(2)

    def iou(mask):
        m = cv2.resize(mask, (640, 480), interpolation=cv2.INTER_LINEAR) >= 128
        return (m & figure).sum() / (m | figure).sum()
    off, auto = masks(path, "off"), masks(path, "auto")
    assert (off[0] >= 128).mean() < 0.01
    assert iou(off[0]) < 0.7
    assert iou(auto[0]) > 0.85 and iou(auto[1]) > 0.85


CHILD = r"""
import hashlib, json, sys
import gi
gi.require_version("Gst", "1.0")
from gi.repository import Gst
Gst.init(None)
p = Gst.parse_launch(sys.argv[1])
sink = p.get_by_name("sink")
sink.set_property("wait-on-eos", False)
p.set_state(Gst.State.PLAYING)
bus, out = p.get_bus(), {"infos": [], "warnings": [], "errors": [], "masks": [], "gap": []}
kinds = Gst.MessageType.INFO | Gst.MessageType.WARNING | Gst.MessageType.ERROR | Gst.MessageType.EOS
while True:
    m = bus.timed_pop_filtered(60 * Gst.SECOND, kinds)
    if m is None or m.type == Gst.MessageType.EOS:
        break
    if m.type == Gst.MessageType.INFO:
        out["infos"].append(m.src.get_name() + ": " + m.parse_info()[0].message)
    elif m.type == Gst.MessageType.WARNING:
        out["warnings"].append(m.src.get_name() + ": " + m.parse_warning()[0].message)
    else:
        out["errors"].append(m.src.get_name() + ": " + m.parse_error()[0].message)
        break
while (s := sink.emit("try-pull-sample", 0)) is not None:
    b = s.get_buffer()
    ok, mi = b.map(Gst.MapFlags.READ)
    out["masks"].append(hashlib.md5(bytes(mi.data)).hexdigest())
    out["gap"].append(bool(b.has_flags(Gst.BufferFlags.GAP)))
    b.unmap(mi)
p.set_state(Gst.State.NULL)
print(json.dumps(out))
"""


def run_child(desc, data_dir, tmp_path):
    env = dict(os.environ, DEPTHMATTE_DATA_DIR=str(data_dir), XDG_DATA_HOME=str(tmp_path / "no-xdg"),
               GST_REGISTRY=os.environ.get("GST_REGISTRY", str(tmp_path / "registry.bin")))
    r = subprocess.run([sys.executable, "-c", CHILD, desc], capture_output=True, text=True, env=env, timeout=300)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout.strip().splitlines()[-1])


def test_without_the_pose_models_it_says_so_once_and_masks_as_off(tmp_path):
    data = tmp_path / "data"
    shutil.copytree(MODEL_DIR, data)
    for f in POSE_FILES:
        (data / f).unlink()
    # a far, small figure: under 1 % of the selfie model's plane or not, the masks must be off's
    path = room(tmp_path / "far.png", scale=0.3)
    pipe = (f"filesrc location={path} ! pngdec ! videoconvert ! video/x-raw,format=RGB ! imagefreeze num-buffers=3 ! "
            "personmask full-body={} ! appsink name=sink sync=false")
    auto = run_child(pipe.format("auto"), data, tmp_path)
    off = run_child(pipe.format("off"), data, tmp_path)
    assert auto["errors"] == [] and auto["warnings"] == [], auto
    (info,) = [i for i in auto["infos"] if "full-body" in i]
    assert info.startswith("personmask") and "pose_detection.tflite is in none of" in info, info
    assert not [i for i in off["infos"] if "full-body" in i], off
    assert auto["gap"] == [False] * 3
    assert auto["masks"] == off["masks"]
