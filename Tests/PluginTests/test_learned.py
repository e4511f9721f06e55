# SPDX-License-Identifier: LGPL-2.1-or-later
"""personmask and mpfacedetect (gst-python/python/, over PyPI's mediapipe) on the
real photographs and clips of ../shared/real-rgbd, read in place: the person mask
against Apple's portrait matte, caps, sizes, timestamps and the model interval;
BlazeFace's face boxes as GstVideoRegionOfInterestMeta and element messages, the
pixels passed through untouched; and what a machine without mediapipe sees.

Needs mediapipe 0.10.14 for /usr/bin/python3, Debian's gst-python loader and
`$REPO/gst-python` on GST_PLUGIN_PATH (scripts/setup installs the first two,
scripts/test sets the path). Skipped only when mediapipe is not installed."""
import os
import subprocess

import numpy as np
import pytest
from gi.repository import GLib, Gst, GstVideo

from harness import SECOND, launch, make_buffer, pixels, pull_all, pygobject_floating_bug, rgb_frame

try:
    import cv2
    import mediapipe  # noqa: F401
except Exception as e:  # pragma: no cover - scripts/setup installs it
    pytest.skip(f"mediapipe is not installed for this Python ({e}); scripts/setup installs it",
                allow_module_level=True)

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
GST_PYTHON_DIR = os.path.join(ROOT, "gst-python")
DATA = os.path.normpath(os.path.join(ROOT, "..", "shared", "real-rgbd"))
PHONE = os.path.join(DATA, "phone")
VIDEO = os.path.join(DATA, "video")
SELFIE, MAN, WOMAN, BIKE = ("fidmaa_selfie_truedepth", "shu223_man_matte", "mpfextractor_woman_xsmax",
                            "juniorxsound_bike_x")
FORMATS = ("RGB", "BGR", "RGBA", "BGRA", "ARGB", "ABGR", "RGBx", "BGRx", "xRGB", "xBGR")
ROI_API = GstVideo.VideoRegionOfInterestMeta.get_info().api
# mediapipe 0.10.14 on protobuf 4.25 (the elements silence this outside pytest)
pytestmark = pytest.mark.filterwarnings("ignore:SymbolDatabase.GetPrototype:UserWarning")


@pytest.fixture(scope="module", autouse=True)
def _elements_present():
    if not os.path.isdir(PHONE):
        pytest.fail(f"the real RGB-D set is not at {DATA} (it sits beside the clone as shared/real-rgbd)")
    if Gst.Registry.get().find_plugin("python") is None:
        pytest.fail("the GStreamer Python plugin loader is not installed "
                    "(Debian: gstreamer1.0-python3-plugin-loader; scripts/setup installs it)")
    for name in ("personmask", "mpfacedetect"):
        if Gst.ElementFactory.find(name) is None:
            pytest.fail(f"{name} not found although mediapipe is installed: is {GST_PYTHON_DIR} on "
                        f"GST_PLUGIN_PATH (scripts/test adds it)? GST_PLUGIN_PATH={os.environ.get('GST_PLUGIN_PATH')}")


def make(factory):
    with pygobject_floating_bug():
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
        assert "mediapipe" in f.get_metadata("long-name")
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
def test_personmask_matches_apple_matte(name, fmt):
    masks, samples = masks_of(f"{png(name, fmt)} ! personmask ! appsink name=sink sync=false")
    assert caps_size(samples[0]) == ("GRAY8", 256, 256)
    iou = iou_vs_apple(name, masks[0])
    print(f"personmask {name} {fmt}: IoU {iou:.4f}")
    assert iou >= 0.95, iou


def test_personmask_every_packed_format_gives_the_same_mask():
    ref = None
    for fmt in FORMATS:
        masks, _ = masks_of(f"{png(SELFIE, fmt)} ! personmask ! appsink name=sink sync=false")
        if ref is None:
            ref = masks[0].astype(int)
        assert np.abs(masks[0].astype(int) - ref).max() <= 1, fmt


def test_personmask_keeps_timestamps_and_framerate():
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


def test_personmask_landscape_model_is_256x144():
    masks, samples = masks_of(f"{png(MAN)} ! personmask model=landscape ! appsink name=sink sync=false")
    assert caps_size(samples[0]) == ("GRAY8", 256, 144)
    assert iou_vs_apple(MAN, masks[0]) >= 0.95


@pytest.mark.parametrize("props,size", [("width=320 height=240", (320, 240)), ("width=100", (100, 256)),
                                        ("height=99", (256, 99)), ("width=250 height=101", (250, 101)),
                                        ("model=landscape width=64", (64, 144))])
def test_personmask_width_and_height(props, size):
    masks, samples = masks_of(f"{png(SELFIE)} ! personmask {props} ! appsink name=sink sync=false")
    assert caps_size(samples[0]) == ("GRAY8", *size)
    assert masks[0].shape == (size[1], size[0])
    assert iou_vs_apple(SELFIE, masks[0]) >= 0.95


def test_personmask_output_can_be_scaled_back():
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
def test_personmask_interval_repeats_the_last_mask(interval):
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


def test_personmask_model_change_while_playing_renegotiates():
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
def test_mpfacedetect_finds_the_selfie_face_inside_the_person(fmt):
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
def test_mpfacedetect_one_face_in_the_rear_camera_portraits(name):
    frames, _, msgs = detect(png(name))
    assert [f["n"] for f in frames] == [1]
    assert frames[0]["same"]
    x, y, w, h = frames[0]["box"]
    assert apple_mask(name)[y + h // 2, x + w // 2]


@pytest.mark.parametrize("model", ["short", "full"])
def test_mpfacedetect_each_model_finds_the_selfie_face(model):
    frames, _, _ = detect(png(SELFIE), f"model={model}")
    assert [f["n"] for f in frames] == [1]
    x, y, w, h = frames[0]["box"]
    assert apple_mask(SELFIE)[y + h // 2, x + w // 2]


def test_mpfacedetect_without_messages_still_attaches_metas():
    frames, _, msgs = detect(png(MAN), "post-messages=false")
    assert [f["n"] for f in frames] == [1] and msgs == []


def test_mpfacedetect_min_confidence_drops_faces():
    frames, _, msgs = detect(png(MAN), "min-confidence=1.0")
    assert [f["n"] for f in frames] == [0] and msgs == []


def test_mpfacedetect_metas_survive_a_shared_buffer():
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


def test_mpfacedetect_turning_man_clip():
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
def test_mpfacedetect_boxes_stay_inside_the_frame(clip):
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


# ------------------------------------------------------------------ without mediapipe

def test_without_mediapipe_nothing_registers_and_one_line_says_why(tmp_path):
    fake = tmp_path / "fake" / "mediapipe"
    fake.mkdir(parents=True)
    (fake / "__init__.py").write_text('raise ImportError("no mediapipe here (test)")\n')
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(tmp_path / "fake")] + [p for p in env.get("PYTHONPATH", "").split(
        os.pathsep) if p])
    paths = [p for p in env.get("GST_PLUGIN_PATH", "").split(os.pathsep) if p]
    env["GST_PLUGIN_PATH"] = os.pathsep.join(paths + ([GST_PYTHON_DIR] if GST_PYTHON_DIR not in paths else []))
    env["GST_REGISTRY_FORK"] = "no"  # scan in this process: its stderr is the one read here
    for name in ("personmask", "mpfacedetect"):
        # a fresh registry per run: a cached one would not import the plugin files again
        env["GST_REGISTRY"] = str(tmp_path / f"registry-{name}.bin")
        r = subprocess.run(["gst-inspect-1.0", name], capture_output=True, text=True, env=env, timeout=120)
        assert r.returncode != 0, r.stdout
        assert "Traceback" not in r.stderr, r.stderr
        lines = [ln for ln in r.stderr.splitlines() if ln.startswith(f"{name}:")]
        assert len(lines) == 1, r.stderr
        assert "not registered" in lines[0] and "mediapipe" in lines[0] and "scripts/setup" in lines[0]
        assert "no mediapipe here (test)" in lines[0]
    # the loader itself still works: realsensesrc (no mediapipe needed) is there, ours are not
    env["GST_REGISTRY"] = str(tmp_path / "registry-python.bin")
    r = subprocess.run(["gst-inspect-1.0", "python"], capture_output=True, text=True, env=env, timeout=120)
    assert r.returncode == 0, r.stderr
    assert "realsensesrc" in r.stdout
    assert "personmask" not in r.stdout and "mpfacedetect" not in r.stdout
    assert "Traceback" not in r.stderr, r.stderr


def test_with_mediapipe_a_fresh_registry_lists_both(tmp_path):
    env = dict(os.environ)
    paths = [p for p in env.get("GST_PLUGIN_PATH", "").split(os.pathsep) if p]
    env["GST_PLUGIN_PATH"] = os.pathsep.join(paths + ([GST_PYTHON_DIR] if GST_PYTHON_DIR not in paths else []))
    env["GST_REGISTRY"] = str(tmp_path / "registry.bin")
    r = subprocess.run(["gst-inspect-1.0", "python"], capture_output=True, text=True, env=env, timeout=120)
    assert r.returncode == 0, r.stderr
    assert "personmask" in r.stdout and "mpfacedetect" in r.stdout
    assert "not registered" not in r.stderr and "Traceback" not in r.stderr, r.stderr
