# SPDX-License-Identifier: LGPL-2.1-or-later
"""rgbdtestsrc: caps per stream, timestamps, face meta, registration of the
three streams, determinism, and depthmatte keying it against the truth."""
import numpy as np
import pytest
from gi.repository import GLib, Gst, GstVideo

from harness import SECOND, playing, pull_all


def frame_of(s):
    """A sample as its raw bytes, video info, caps, timing and first face box."""
    buf = s.get_buffer()
    info = GstVideo.VideoInfo.new_from_caps(s.get_caps())
    ok, mi = buf.map(Gst.MapFlags.READ)
    raw = np.frombuffer(mi.data, np.uint8).copy()
    buf.unmap(mi)
    face = None
    meta = GstVideo.buffer_get_video_region_of_interest_meta_id(buf, 0)
    if meta is not None:
        assert GLib.quark_to_string(meta.roi_type) == "face"
        face = (meta.x, meta.y, meta.w, meta.h)
    return dict(raw=raw, info=info, caps=s.get_caps(), pts=buf.pts, dur=buf.duration, face=face)


def pull_frames(desc, n_expected=None):
    with playing(desc) as p:
        out = [frame_of(s) for s in pull_all(p, timeout=10)]
        err = p.get_bus().pop_filtered(Gst.MessageType.ERROR)
        assert err is None, err.parse_error()
    if n_expected is not None:
        assert len(out) == n_expected
    return out


def plane(frame, dtype, channels=1):
    info = frame["info"]
    stride = info.stride[0]
    rows = frame["raw"][: stride * info.height].reshape(info.height, stride)
    row_bytes = info.width * channels * np.dtype(dtype).itemsize
    return rows[:, :row_bytes].copy().view(dtype).reshape(info.height, info.width, channels).squeeze()


def test_caps_per_stream_and_timestamps():
    for stream, fmt in (("video", "BGRx"), ("depth", "GRAY16_LE"), ("truth", "GRAY8")):
        frames = pull_frames(f"rgbdtestsrc stream={stream} num-buffers=3 ! video/x-raw,framerate=25/1 ! "
                          "appsink name=sink sync=false", 3)
        s = frames[0]["caps"].get_structure(0)
        assert s.get_value("format") == fmt
        assert [f["pts"] for f in frames] == [0, SECOND // 25, 2 * SECOND // 25]
        assert all(f["dur"] == SECOND // 25 for f in frames)


def test_depth_stream_refuses_rgb_caps():
    with pytest.raises(GLib.Error, match="could not link"):
        Gst.parse_launch("rgbdtestsrc stream=depth ! video/x-raw,format=RGB ! fakesink")


def test_streams_are_registered_and_face_meta_sits_on_the_subject():
    size = "width=320,height=180"
    video = pull_frames(f"rgbdtestsrc num-buffers=1 ! video/x-raw,{size} ! appsink name=sink", 1)[0]
    depth = pull_frames(f"rgbdtestsrc stream=depth num-buffers=1 ! video/x-raw,{size} ! appsink name=sink", 1)[0]
    truth = pull_frames(f"rgbdtestsrc stream=truth num-buffers=1 ! video/x-raw,{size} ! appsink name=sink", 1)[0]
    d = plane(depth, "<u2") * 0.001
    t = plane(truth, np.uint8)
    assert video["face"] is not None
    x, y, w, h = video["face"]
    assert t[y + h // 2, x + w // 2] == 255             # face centre is subject
    assert 0.6 < d[y + h // 2, x + w // 2] < 1.6        # at a head's distance
    subject = t > 127
    assert 0.05 < subject.mean() < 0.6
    assert np.median(d[subject]) < 1.6 and np.median(d[~subject]) > 1.7
    # deterministic: the same frame again is byte-identical
    again = pull_frames(f"rgbdtestsrc stream=depth num-buffers=1 ! video/x-raw,{size} ! appsink name=sink", 1)[0]
    assert np.array_equal(again["raw"], depth["raw"])


def test_artefacts_switch_on():
    def depth(artefacts):
        return plane(pull_frames(f"rgbdtestsrc stream=depth {artefacts}num-buffers=1 ! "
                                 "video/x-raw,width=160,height=90 ! appsink name=sink")[0], "<u2")
    clean = depth("")
    holes = depth("holes=true ")
    noisy = depth("noise=true ")
    assert (clean == 0).sum() == 0 and (holes == 0).sum() > 20
    diff = noisy.astype(int) - clean.astype(int)
    assert (diff != 0).mean() > 0.5 and abs(diff.mean()) < 3


def test_depthmatte_on_rgbdtestsrc_matches_truth():
    vs, ds = "width=640,height=360", "width=320,height=180"
    desc = (f"depthmatte name=m output=matte ! appsink name=sink sync=false "
            f"rgbdtestsrc num-buffers=20 ! video/x-raw,{vs} ! m.video "
            f"rgbdtestsrc stream=depth num-buffers=20 ! video/x-raw,{ds} ! m.depth")
    mattes = pull_frames(desc, 20)
    truths = pull_frames(f"rgbdtestsrc stream=truth num-buffers=20 ! video/x-raw,{vs} ! appsink name=sink sync=false", 20)
    for m, t in zip(mattes[::5], truths[::5]):
        a = plane(m, np.uint8, 4)[..., 0] > 127
        b = plane(t, np.uint8) > 127
        iou = (a & b).sum() / (a | b).sum()
        assert iou > 0.8, iou
