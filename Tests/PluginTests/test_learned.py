# SPDX-License-Identifier: LGPL-2.1-or-later
"""personmask and mpfacedetect, the plugin's native learned elements (their
models run in-process through the LiteRT runtime that scripts/setup unpacks),
on the real photographs and clips of ../shared/real-rgbd, read in place: the
person mask against Apple's portrait matte, caps, sizes, timestamps and the
model interval; BlazeFace's face boxes as GstVideoRegionOfInterestMeta and
element messages, the pixels passed through untouched; frames of 1x1 and 8K;
and, in processes of their own, what a machine without the runtime, with a
corrupt model or with another library in the runtime's place sees.

scripts/test points DEPTHMATTE_DATA_DIR at the unpacked runtime and models."""
import json
import os
import shutil
import subprocess
import sys

import cv2
import numpy as np
import pytest
from gi.repository import GLib, Gst, GstVideo

from harness import SECOND, launch, make_buffer, pixels, pull_all, rgb_frame

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
DATA = os.path.normpath(os.path.join(ROOT, "..", "shared", "real-rgbd"))
PHONE = os.path.join(DATA, "phone")
VIDEO = os.path.join(DATA, "video")
SELFIE, MAN, WOMAN, BIKE = ("fidmaa_selfie_truedepth", "shu223_man_matte", "mpfextractor_woman_xsmax",
                            "juniorxsound_bike_x")
FORMATS = ("RGB", "BGR", "RGBA", "BGRA", "ARGB", "ABGR", "RGBx", "BGRx", "xRGB", "xBGR")
ROI_API = GstVideo.VideoRegionOfInterestMeta.get_info().api
MODEL_DIR = os.environ.get("DEPTHMATTE_DATA_DIR") or os.path.join(
    os.environ.get("XDG_DATA_HOME") or os.path.expanduser("~/.local/share"), "depthmatte")
LEARNED_FILES = ("libLiteRt.so", "models/selfie_segmentation.tflite", "models/selfie_segmentation_landscape.tflite",
                 "models/face_detection_short_range.tflite", "models/face_detection_full_range_sparse.tflite",
                 "models/pose_detection.tflite", "models/pose_landmark_full.tflite")


@pytest.fixture(scope="module", autouse=True)
def _models_present():
    missing = [f for f in LEARNED_FILES if not os.path.isfile(os.path.join(MODEL_DIR, f))]
    if missing:
        pytest.fail(f"the learned runtime and models are not in {MODEL_DIR} ({', '.join(missing)} missing): "
                    "scripts/setup unpacks them and scripts/test sets DEPTHMATTE_DATA_DIR")
    for name in ("personmask", "mpfacedetect"):
        assert Gst.ElementFactory.find(name) is not None, f"{name} is not in the depthmatte plugin"


def make(factory):
    return Gst.ElementFactory.make(factory, None)


def png(name, fmt="RGB", n=1):
    """A phone photo decoded in place, converted to `fmt` and repeated `n` times."""
    return (f"filesrc location={os.path.join(PHONE, name, 'color.png')} ! pngdec ! videoconvert ! "
            f"video/x-raw,format={fmt} ! imagefreeze num-buffers={n}")


def play(p, timeout=60):
    """Every appsink sample of `p` until EOS, and its element messages; no error allowed."""
    bus = p.get_bus()
    p.set_state(Gst.State.PLAYING)
    try:
        samples = pull_all(p, timeout=timeout)
        msgs = []
        while (m := bus.pop()) is not None:
            assert m.type != Gst.MessageType.ERROR, m.parse_error()
            if m.type == Gst.MessageType.ELEMENT:
                msgs.append(m.get_structure())
    finally:
        p.set_state(Gst.State.NULL)
    return samples, msgs


def masks_of(desc, timeout=60):
    samples, _ = play(launch(desc), timeout)
    assert samples, desc
    return [pixels(s)[..., 0] for s in samples], samples


def apple_mask(name):
    return cv2.imread(os.path.join(PHONE, name, "mask.png"), cv2.IMREAD_GRAYSCALE) >= 128


def iou_vs_apple(name, mask):
    """IoU at 0.5 of `mask` (any size, stretched over the frame) against Apple's person matte."""
    truth = apple_mask(name)
    ours = cv2.resize(mask, (truth.shape[1], truth.shape[0]), interpolation=cv2.INTER_LINEAR) >= 128
    return np.logical_and(ours, truth).sum() / np.logical_or(ours, truth).sum()


def caps_size(sample):
    s = sample.get_caps().get_structure(0)
    return s.get_string("format"), s.get_int("width")[1], s.get_int("height")[1]


# ------------------------------------------------------------------ inspect

def test_metadata_and_properties():
    for name in ("personmask", "mpfacedetect"):
        f = Gst.ElementFactory.find(name)
        assert f.get_metadata("klass") == "Filter/Analyzer/Video"
        assert f.get_plugin_name() == "depthmatte"
        assert f.get_metadata("description") and f.get_metadata("author")
    m = make("personmask")
    assert m.get_property("model").value_nick == "general"
    for prop, lo, hi, default in (("width", 0, 16384, 0), ("height", 0, 16384, 0), ("interval", 1, 30, 1)):
        spec = m.find_property(prop)
        assert (spec.minimum, spec.maximum, spec.default_value) == (lo, hi, default), prop
        assert spec.blurb, prop
    m.set_property("model", "landscape")
    assert m.get_property("model").value_nick == "landscape"
    assert [v.value_nick for v in m.find_property("model").enum_class.__enum_values__.values()] == \
        ["general", "landscape"]
    d = make("mpfacedetect")
    assert d.get_property("model").value_nick == "both"
    assert [v.value_nick for v in d.find_property("model").enum_class.__enum_values__.values()] == \
        ["short", "full", "both"]
    spec = d.find_property("min-confidence")
    assert (spec.minimum, spec.maximum, spec.default_value) == (0.0, 1.0, 0.5)
    assert d.get_property("post-messages") is True


# ------------------------------------------------------------------ personmask

@pytest.mark.parametrize("fmt", ["RGB", "BGRx"])
@pytest.mark.parametrize("name", [SELFIE, MAN])
def test_personmask_matches_apple_matte(name, fmt, real_rgbd):
    masks, samples = masks_of(f"{png(name, fmt)} ! personmask ! appsink name=sink sync=false")
    assert caps_size(samples[0]) == ("GRAY8", 256, 256)
    iou = iou_vs_apple(name, masks[0])
    print(f"personmask {name} {fmt}: IoU {iou:.4f}")
    assert iou >= 0.95, iou


def test_personmask_every_packed_format_gives_the_same_mask(real_rgbd):
    ref = None
    for fmt in FORMATS:
        masks, _ = masks_of(f"{png(SELFIE, fmt)} ! personmask ! appsink name=sink sync=false")
        if ref is None:
            ref = masks[0].astype(int)
        assert np.abs(masks[0].astype(int) - ref).max() <= 1, fmt


def test_personmask_keeps_timestamps_and_framerate(real_rgbd):
    p = launch(f"{png(SELFIE, n=3)} ! personmask name=m ! appsink name=sink sync=false")
    seen, in_caps = [], []

    def probe(pad, info):
        b = info.get_buffer()
        seen.append((b.pts, b.dts, b.duration))
        in_caps.append(pad.get_current_caps())
        return Gst.PadProbeReturn.OK

    p.get_by_name("m").get_static_pad("sink").add_probe(Gst.PadProbeType.BUFFER, probe)
    samples, _ = play(p)
    assert len(samples) == 3
    out = [(s.get_buffer().pts, s.get_buffer().dts, s.get_buffer().duration) for s in samples]
    assert out == seen
    assert len({ts[0] for ts in out}) == 3 and all(ts[2] not in (0, Gst.CLOCK_TIME_NONE) for ts in out)
    s = samples[0].get_caps().get_structure(0)
    assert s.get_fraction("framerate") == in_caps[0].get_structure(0).get_fraction("framerate")
    # the mask covers the whole 480x640 frame: its display aspect is the frame's
    _, par_n, par_d = s.get_fraction("pixel-aspect-ratio")
    assert 256 * par_n / (256 * par_d) == pytest.approx(480 / 640)


def test_personmask_landscape_model_is_256x144(real_rgbd):
    masks, samples = masks_of(f"{png(MAN)} ! personmask model=landscape ! appsink name=sink sync=false")
    assert caps_size(samples[0]) == ("GRAY8", 256, 144)
    assert iou_vs_apple(MAN, masks[0]) >= 0.95


@pytest.mark.parametrize("props,size", [("width=320 height=240", (320, 240)), ("width=100", (100, 256)),
                                        ("height=99", (256, 99)), ("width=250 height=101", (250, 101)),
                                        ("model=landscape width=64", (64, 144))])
def test_personmask_width_and_height(props, size, real_rgbd):
    masks, samples = masks_of(f"{png(SELFIE)} ! personmask {props} ! appsink name=sink sync=false")
    assert caps_size(samples[0]) == ("GRAY8", *size)
    assert masks[0].shape == (size[1], size[0])
    assert iou_vs_apple(SELFIE, masks[0]) >= 0.95


def test_personmask_output_can_be_scaled_back(real_rgbd):
    masks, samples = masks_of(f"{png(SELFIE)} ! personmask ! videoscale ! video/x-raw,width=480,height=640 ! "
                              "appsink name=sink sync=false")
    assert caps_size(samples[0]) == ("GRAY8", 480, 640)
    truth = apple_mask(SELFIE)
    ours = masks[0] >= 128
    assert np.logical_and(ours, truth).sum() / np.logical_or(ours, truth).sum() >= 0.95


def _alternating_frames(n):
    """Frames alternating between the selfie and the man, both at 480x640 RGB."""
    imgs = []
    for name in (SELFIE, MAN):
        bgr = cv2.imread(os.path.join(PHONE, name, "color.png"))
        imgs.append(cv2.resize(bgr, (480, 640), interpolation=cv2.INTER_AREA)[..., ::-1])
    return [rgb_frame("RGB", 480, 640, imgs[i % 2]) for i in range(n)]


@pytest.mark.parametrize("interval", [1, 2])
def test_personmask_interval_repeats_the_last_mask(interval, real_rgbd):
    p = launch("appsrc name=src format=time caps=video/x-raw,format=RGB,width=480,height=640,framerate=30/1 ! "
               f"personmask interval={interval} ! appsink name=sink sync=false")
    src = p.get_by_name("src")
    p.set_state(Gst.State.PLAYING)
    for i, frame in enumerate(_alternating_frames(4)):
        src.emit("push-buffer", make_buffer(frame, i * SECOND // 30, SECOND // 30))
    src.emit("end-of-stream")
    samples, _ = play(p)
    masks = [pixels(s)[..., 0] for s in samples]
    assert len(masks) == 4
    assert iou_vs_apple(SELFIE, masks[0]) >= 0.95
    if interval == 2:
        assert np.array_equal(masks[1], masks[0]) and np.array_equal(masks[3], masks[2])
    else:
        assert not np.array_equal(masks[1], masks[0])
        assert iou_vs_apple(MAN, masks[1]) >= 0.95
    assert [s.get_buffer().pts for s in samples] == [i * SECOND // 30 for i in range(4)]


def test_personmask_model_change_while_playing_renegotiates(real_rgbd):
    p = launch("appsrc name=src format=time caps=video/x-raw,format=RGB,width=480,height=640,framerate=30/1 ! "
               "personmask name=m ! appsink name=sink sync=false")
    src, sink = p.get_by_name("src"), p.get_by_name("sink")
    frames = _alternating_frames(2)
    p.set_state(Gst.State.PLAYING)
    sizes = []
    try:
        for i in range(4):
            if i == 2:
                p.get_by_name("m").set_property("model", "landscape")
            src.emit("push-buffer", make_buffer(frames[0], i * SECOND // 30, SECOND // 30))
            sample = sink.emit("try-pull-sample", 30 * SECOND)
            assert sample is not None, i
            sizes.append(caps_size(sample)[1:])
            assert pixels(sample)[..., 0].shape == tuple(reversed(sizes[-1]))
    finally:
        p.set_state(Gst.State.NULL)
    assert sizes == [(256, 256), (256, 256), (256, 144), (256, 144)]


# ------------------------------------------------------------------ mpfacedetect

def detect(desc_source, props="", timeout=60):
    """Run `desc_source ! mpfacedetect props ! fakesink` and return per frame the
    face boxes seen by a probe downstream ((n metas, first meta box)), the frame size,
    whether the bytes leaving the element equal those entering, and the messages."""
    p = launch(f"{desc_source} ! mpfacedetect name=d {props} ! fakesink name=out sync=false")
    before, frames = [], []

    def digest(buf):
        ok, mi = buf.map(Gst.MapFlags.READ)
        assert ok
        data = bytes(mi.data)
        buf.unmap(mi)
        return data

    def in_probe(pad, info):
        before.append(digest(info.get_buffer()))
        return Gst.PadProbeReturn.OK

    def out_probe(pad, info):
        b = info.get_buffer()
        n = b.get_n_meta(ROI_API)
        first = GstVideo.buffer_get_video_region_of_interest_meta_id(b, 0)
        box = None
        if first is not None:
            assert GLib.quark_to_string(first.roi_type) == "face"
            box = (first.x, first.y, first.w, first.h)
        frames.append(dict(n=n, box=box, pts=b.pts, same=digest(b) == before[len(frames)]))
        return Gst.PadProbeReturn.OK

    d = p.get_by_name("d")
    d.get_static_pad("sink").add_probe(Gst.PadProbeType.BUFFER, in_probe)
    p.get_by_name("out").get_static_pad("sink").add_probe(Gst.PadProbeType.BUFFER, out_probe)
    bus = p.get_bus()
    msgs = []
    p.set_state(Gst.State.PLAYING)
    try:
        while True:
            m = bus.timed_pop(timeout * SECOND)
            assert m is not None, f"no EOS within {timeout} s"
            assert m.type != Gst.MessageType.ERROR, m.parse_error()
            if m.type == Gst.MessageType.ELEMENT and m.get_structure().get_name() == "mpfacedetect":
                msgs.append(m.get_structure())
            elif m.type == Gst.MessageType.EOS:
                break
        caps = d.get_static_pad("src").get_current_caps().get_structure(0)
        size = (caps.get_int("width")[1], caps.get_int("height")[1])
    finally:
        p.set_state(Gst.State.NULL)
    return frames, size, msgs


def message_faces(s):
    faces = s.get_value("faces")
    return [(f.get_uint("x")[1], f.get_uint("y")[1], f.get_uint("width")[1], f.get_uint("height")[1],
             f.get_double("confidence")[1]) for f in faces]


@pytest.mark.parametrize("fmt", ["RGB", "BGRx"])
def test_mpfacedetect_finds_the_selfie_face_inside_the_person(fmt, real_rgbd):
    frames, size, msgs = detect(png(SELFIE, fmt, n=2))
    assert size == (480, 640) and len(frames) == 2
    truth = apple_mask(SELFIE)
    ys, xs = np.nonzero(truth)
    for f in frames:
        assert f["same"], "mpfacedetect changed the pixels"
        assert f["n"] == 1, f
        x, y, w, h = f["box"]
        cx, cy = x + w // 2, y + h // 2
        assert truth[cy, cx], (f["box"], "centre outside Apple's person mask")
        assert ys.min() <= cy <= (ys.min() + ys.max()) / 2, (f["box"], "centre below the top half of the person")
        assert xs.min() <= cx <= xs.max()
    # one message per frame with faces, boxes as the metas, with a confidence
    assert len(msgs) == 2
    assert [m.get_value("timestamp") for m in msgs] == [f["pts"] for f in frames]
    (face,) = message_faces(msgs[0])
    assert face[:4] == frames[0]["box"] and 0.5 <= face[4] <= 1.0


@pytest.mark.parametrize("name", [MAN, WOMAN])
def test_mpfacedetect_one_face_in_the_rear_camera_portraits(name, real_rgbd):
    frames, _, msgs = detect(png(name))
    assert [f["n"] for f in frames] == [1]
    assert frames[0]["same"]
    x, y, w, h = frames[0]["box"]
    assert apple_mask(name)[y + h // 2, x + w // 2]


@pytest.mark.parametrize("model", ["short", "full"])
def test_mpfacedetect_each_model_finds_the_selfie_face(model, real_rgbd):
    frames, _, _ = detect(png(SELFIE), f"model={model}")
    assert [f["n"] for f in frames] == [1]
    x, y, w, h = frames[0]["box"]
    assert apple_mask(SELFIE)[y + h // 2, x + w // 2]


def test_mpfacedetect_without_messages_still_attaches_metas(real_rgbd):
    frames, _, msgs = detect(png(MAN), "post-messages=false")
    assert [f["n"] for f in frames] == [1] and msgs == []


def test_mpfacedetect_min_confidence_drops_faces(real_rgbd):
    frames, _, msgs = detect(png(MAN), "min-confidence=1.0")
    assert [f["n"] for f in frames] == [0] and msgs == []


def test_mpfacedetect_metas_survive_a_shared_buffer(real_rgbd):
    """A buffer shared by a tee is not writable: the element still attaches its
    metas (to the copy BaseTransform makes) on both branches."""
    p = launch(f"{png(MAN, n=2)} ! tee name=t "
               "t. ! queue ! mpfacedetect ! appsink name=sink sync=false "
               "t. ! queue ! mpfacedetect ! appsink name=sink2 sync=false")
    p.set_state(Gst.State.PLAYING)
    try:
        for sink in ("sink", "sink2"):
            samples = pull_all(p, sink=sink, timeout=60)
            assert [s.get_buffer().get_n_meta(ROI_API) for s in samples] == [1, 1], sink
    finally:
        p.set_state(Gst.State.NULL)


def test_mpfacedetect_turning_man_clip(real_rgbd):
    """A man turns a full circle: one face while it shows, never two boxes."""
    src = (f"multifilesrc location={os.path.join(VIDEO, 'uva_cv2_person_turn', 'color_%04d.png')} "
           "caps=image/png,framerate=15/1 ! pngdec ! videoconvert ! video/x-raw,format=BGRx")
    frames, _, msgs = detect(src)
    counts = [f["n"] for f in frames]
    assert len(frames) == 34
    assert max(counts) == 1 and sum(counts) >= 18, counts
    assert len(msgs) == sum(counts)
    assert all(f["same"] for f in frames)


@pytest.mark.parametrize("clip", ["azure_kinect_desk_gesture", "piv_lab_people_walk"])
def test_mpfacedetect_boxes_stay_inside_the_frame(clip, real_rgbd):
    src = (f"multifilesrc location={os.path.join(VIDEO, clip, 'color_%04d.png')} "
           "caps=image/png,framerate=15/1 ! pngdec ! videoconvert ! video/x-raw,format=RGB")
    frames, (w, h), msgs = detect(src, "model=both min-confidence=0.3")
    assert sum(f["n"] for f in frames) == sum(len(message_faces(m)) for m in msgs)
    for m in msgs:
        for (x, y, bw, bh, c) in message_faces(m):
            assert bw > 0 and bh > 0 and x + bw <= w and y + bh <= h and 0.3 <= c <= 1.0


def test_mpfacedetect_short_buffer_is_a_stream_error():
    p = launch("appsrc name=src format=time caps=video/x-raw,format=RGB,width=64,height=48,framerate=30/1 ! "
               "mpfacedetect ! fakesink")
    p.set_state(Gst.State.PLAYING)
    try:
        buf = Gst.Buffer.new_wrapped(bytes(100))
        buf.pts, buf.duration = 0, SECOND // 30
        p.get_by_name("src").emit("push-buffer", buf)
        msg = p.get_bus().timed_pop_filtered(30 * SECOND, Gst.MessageType.ERROR | Gst.MessageType.EOS)
    finally:
        p.set_state(Gst.State.NULL)
    assert msg is not None and msg.type == Gst.MessageType.ERROR
    err, debug = msg.parse_error()
    assert err.matches(Gst.stream_error_quark(), Gst.StreamError.FORMAT) and "too small" in debug




# ------------------------------------------------------------------ frames of any size

@pytest.mark.parametrize("size", [(1, 1), (7680, 4320)])
def test_tiny_and_8k_frames(size):
    """A 1x1 and an 8K frame: a mask at the model's size and no face, no error."""
    w, h = size
    masks, samples = masks_of(f"videotestsrc num-buffers=2 pattern=ball ! video/x-raw,format=RGB,width={w},height={h} ! "
                              "mpfacedetect ! personmask ! appsink name=sink sync=false", timeout=120)
    assert len(masks) == 2 and caps_size(samples[0]) == ("GRAY8", 256, 256)
    assert samples[0].get_buffer().get_n_meta(ROI_API) == 0


# ------------------------------------------------------------------ without the runtime, bad runtimes and models

CHILD = r"""
import json, sys
import gi
gi.require_version("Gst", "1.0")
from gi.repository import Gst
Gst.init(None)
p = Gst.parse_launch(sys.argv[1])
sink = p.get_by_name("sink")
if sink is not None:
    sink.set_property("wait-on-eos", False)  # EOS posted with the samples still queued
p.set_state(Gst.State.PLAYING)
bus, out = p.get_bus(), {"warnings": [], "errors": [], "flags": [], "means": []}
while True:
    m = bus.timed_pop_filtered(60 * Gst.SECOND, Gst.MessageType.WARNING | Gst.MessageType.ERROR | Gst.MessageType.EOS)
    if m is None or m.type == Gst.MessageType.EOS:
        break
    e, _ = m.parse_warning() if m.type == Gst.MessageType.WARNING else m.parse_error()
    out["warnings" if m.type == Gst.MessageType.WARNING else "errors"].append(m.src.get_name() + ": " + e.message)
    if m.type == Gst.MessageType.ERROR:
        break
while sink is not None and (s := sink.emit("try-pull-sample", 0)) is not None:
    b = s.get_buffer()
    ok, mi = b.map(Gst.MapFlags.READ)
    out["flags"].append(bool(b.has_flags(Gst.BufferFlags.GAP)))
    out["means"].append(sum(mi.data) / max(1, len(mi.data)))
    b.unmap(mi)
p.set_state(Gst.State.NULL)
print(json.dumps(out))
"""


def run_child(desc, data_dir, tmp_path, extra_env=None):
    """`desc` in a process of its own (the runtime loads once per process) whose
    data folder is `data_dir` and nothing else: its warnings, errors, and the
    GAP flag and mean byte of every appsink buffer."""
    env = dict(os.environ, DEPTHMATTE_DATA_DIR=str(data_dir), XDG_DATA_HOME=str(tmp_path / "no-xdg"),
               GST_REGISTRY=os.environ.get("GST_REGISTRY", str(tmp_path / "registry.bin")))
    env.update(extra_env or {})
    r = subprocess.run([sys.executable, "-c", CHILD, desc], capture_output=True, text=True, env=env, timeout=300)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout.strip().splitlines()[-1]), r.stderr


def copy_data(tmp_path):
    d = tmp_path / "data"
    shutil.copytree(MODEL_DIR, d)
    return d


MASK_PIPE = ("videotestsrc num-buffers=3 ! video/x-raw,format=RGB,width=320,height=240 ! "
             "mpfacedetect ! personmask ! appsink name=sink sync=false")


def test_without_the_runtime_each_element_says_why_once_and_masks_are_gap(tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    out, stderr = run_child(MASK_PIPE, empty, tmp_path)
    assert out["errors"] == []
    assert len(out["warnings"]) == 2, out
    pm = [w for w in out["warnings"] if w.startswith("personmask")]
    fd = [w for w in out["warnings"] if w.startswith("mpfacedetect")]
    assert len(pm) == 1 and len(fd) == 1, out
    assert "libLiteRt.so is in none of" in pm[0] and str(empty) in pm[0] and "depth alone" in pm[0]
    assert "libLiteRt.so is in none of" in fd[0]
    assert out["flags"] == [True, True, True] and out["means"] == [0, 0, 0]


def test_without_the_runtime_depthmatte_keys_by_depth(tmp_path):
    """personmask's GAP masks are skipped by depthmatte's person pad: the
    alpha equals a run with no person pad at all."""
    empty = tmp_path / "empty"
    empty.mkdir()
    key = ("rgbdtestsrc num-buffers=3 ! tee name=t t. ! queue ! m.video "
           "rgbdtestsrc stream=depth num-buffers=3 ! m.depth "
           "depthmatte name=m output=alpha ! appsink name=sink sync=false")
    with_mask, _ = run_child(key + " t. ! queue ! personmask ! m.person", empty, tmp_path)
    without, _ = run_child(key, empty, tmp_path)
    assert with_mask["errors"] == [] and len(with_mask["warnings"]) == 1, with_mask
    assert len(with_mask["means"]) == 3 and with_mask["means"] == without["means"]
    assert 0 < with_mask["means"][0] < 255


def test_a_corrupt_model_fails_its_self_test(tmp_path):
    """Weights changed inside the shipped selfie model: LiteRT loads and runs
    it, and only the start-up self-test can tell (without it the masks would
    come out, wrong)."""
    d = copy_data(tmp_path)
    path = d / "models" / "selfie_segmentation.tflite"
    blob = bytearray(path.read_bytes())
    # float32 weights fill the file's second half: halve 4 KiB of them
    start = len(blob) * 3 // 4 & ~3
    w = np.frombuffer(bytes(blob[start:start + 4096]), dtype=np.float32).copy()
    w *= 0.5
    blob[start:start + 4096] = w.tobytes()
    path.write_bytes(bytes(blob))
    out, _ = run_child(MASK_PIPE, d, tmp_path)
    (pm,) = [x for x in out["warnings"] if x.startswith("personmask")]
    assert "self-test" in pm and "selfie_segmentation.tflite" in pm, pm
    assert out["flags"] == [True, True, True]
    # the face models are untouched: mpfacedetect has its models
    assert not [x for x in out["warnings"] if x.startswith("mpfacedetect")], out


def test_another_library_in_the_runtimes_place(tmp_path):
    d = copy_data(tmp_path)
    (d / "libLiteRt.so").unlink()
    shutil.copy("/lib/x86_64-linux-gnu/libz.so.1", d / "libLiteRt.so")
    out, _ = run_child(MASK_PIPE, d, tmp_path)
    (pm,) = [x for x in out["warnings"] if x.startswith("personmask")]
    assert "not the LiteRT runtime" in pm and "LiteRtCreateEnvironment" in pm, pm


def test_a_model_that_is_not_a_model(tmp_path):
    d = copy_data(tmp_path)
    (d / "models" / "face_detection_full_range_sparse.tflite").write_bytes(b"not a flatbuffer" * 64)
    out, _ = run_child(MASK_PIPE, d, tmp_path)
    (fd,) = [x for x in out["warnings"] if x.startswith("mpfacedetect")]
    assert "face_detection_full_range_sparse.tflite is not a model LiteRT can read" in fd, fd
    assert not [x for x in out["warnings"] if x.startswith("personmask")], out


def test_the_elements_do_not_depend_on_which_python_is_first_on_path(tmp_path):
    """Native elements: a broken python3 first on PATH (pyenv, conda) and a
    bogus PYTHONHOME change nothing, and a fresh registry lists both in the
    depthmatte plugin."""
    fake = tmp_path / "bin"
    fake.mkdir()
    (fake / "python3").write_text("#!/bin/sh\nexit 1\n")
    (fake / "python3").chmod(0o755)
    env = dict(os.environ, PATH=f"{fake}:{os.environ['PATH']}", PYTHONHOME=str(tmp_path / "nowhere"),
               GST_REGISTRY=str(tmp_path / "fresh.bin"))
    r = subprocess.run(["gst-inspect-1.0", "depthmatte"], capture_output=True, text=True, env=env, timeout=120)
    assert r.returncode == 0, r.stderr
    assert "personmask" in r.stdout and "mpfacedetect" in r.stdout
    for name in ("personmask", "mpfacedetect"):
        r = subprocess.run(["gst-inspect-1.0", name], capture_output=True, text=True, env=env, timeout=120)
        assert r.returncode == 0 and "libgstdepthmatte.so" in r.stdout, r.stderr
