# SPDX-License-Identifier: LGPL-2.1-or-later
"""Negotiation as a new user meets it: caps a pad cannot take give one clear
element error every run (the pad, what it accepts, what it was offered and the
fix), for every element; the video pad takes what cameras and decoders give,
and unnamed links land on the right pad."""
import os
import tempfile

import numpy as np
import pytest
from gi.repository import Gst, GstVideo

from harness import SECOND, launch_failing, pixels


def one_frame_png(name, fmt):
    """A 32x24 PNG of one videotestsrc frame in `fmt`, in a fresh temporary folder."""
    path = os.path.join(tempfile.mkdtemp(), name)
    p = Gst.parse_launch(f"videotestsrc num-buffers=1 ! video/x-raw,format={fmt},width=32,height=24 ! "
                         f"pngenc ! filesink location={path}")
    p.set_state(Gst.State.PLAYING)
    p.get_bus().timed_pop_filtered(10 * SECOND, Gst.MessageType.EOS | Gst.MessageType.ERROR)
    p.set_state(Gst.State.NULL)
    return path


@pytest.fixture(scope="module")
def rgba_png():
    return one_frame_png("rgba.png", "RGBA")


@pytest.fixture(scope="module")
def grey_png():
    return one_frame_png("grey16.png", "GRAY16_BE")


def errors_of(desc, timeout=10):
    """Run to EOS or error; every ERROR message posted, in order, as (source name, gerror, debug)."""
    p = Gst.parse_launch(desc)
    p.set_state(Gst.State.PLAYING)
    bus = p.get_bus()
    errors = []
    end = bus.timed_pop_filtered(timeout * SECOND, Gst.MessageType.EOS | Gst.MessageType.ERROR)
    if end is not None and end.type == Gst.MessageType.ERROR:
        errors.append((end.src.get_name(), *end.parse_error()))
    p.set_state(Gst.State.NULL)
    while (m := bus.pop_filtered(Gst.MessageType.ERROR)) is not None:
        errors.append((m.src.get_name(), *m.parse_error()))
    return errors


CASES = [
    # (pipeline with {png}, element name, pad, offered format, an accepted format)
    ("filesrc location={png} ! pngdec ! imagefreeze num-buffers=5 ! m.depth "
     "videotestsrc num-buffers=5 ! video/x-raw,format=BGRx,width=32,height=24 ! m.video "
     "depthmatte name=m ! fakesink", "m", "depth", "RGBA", "GRAY16_LE"),
    ("filesrc location={png} ! pngdec ! imagefreeze num-buffers=5 ! depthview name=v ! fakesink",
     "v", "sink", "RGBA", "GRAY16_LE"),
    # a 16-bit grey PNG (a depth image) into colour elements
    ("filesrc location={grey} ! pngdec ! imagefreeze num-buffers=5 ! sparkle name=s ! fakesink",
     "s", "sink", "GRAY16_BE", "BGRx"),
    ("filesrc location={grey} ! pngdec ! imagefreeze num-buffers=5 ! framestack name=f ! fakesink",
     "f", "sink", "GRAY16_BE", "BGRx"),
]


@pytest.mark.parametrize("desc,name,pad,offered,accepted", CASES, ids=["depthmatte", "depthview", "sparkle",
                                                                       "framestack"])
def test_refused_caps_give_one_clear_error_every_run(rgba_png, grey_png, desc, name, pad, offered, accepted):
    for _ in range(4):
        errors = errors_of(desc.format(png=rgba_png, grey=grey_png))
        assert errors, "the pipeline ran although the pad cannot take the caps"
        src, err, debug = errors[0]
        assert src == name, f"first error from {src}: {err.message}"
        assert err.matches(Gst.CoreError.quark(), Gst.CoreError.NEGOTIATION)
        assert pad in err.message and offered in err.message
        if accepted.startswith("GRAY"):
            # a depth pad offered colour: it says what it takes, and does not
            # advise videoconvert (which would key on brightness)
            assert "it takes depth" in err.message and "videoconvert" not in err.message, err.message
        else:
            assert "videoconvert" in err.message
        assert accepted in debug and offered in debug
        assert sum(1 for s, _, _ in errors if s == name) == 1


def test_gst_launch_prints_the_clear_error(rgba_png):
    """What a user sees on the command line, four runs in a row."""
    for _ in range(4):
        rc, out = launch_failing(["-q", "filesrc", f"location={rgba_png}", "!", "pngdec", "!",
                                  "imagefreeze", "num-buffers=5", "!", "m.depth",
                                  "videotestsrc", "num-buffers=5", "!", "video/x-raw,format=BGRx,width=32,height=24", "!",
                                  "m.video", "depthmatte", "name=m", "!", "fakesink"])
        assert rc != 0
        first = next(line for line in out.splitlines() if line.startswith("ERROR"))
        assert "from element /GstPipeline:pipeline0/GstDepthMatte:m" in first
        assert "depth pad of m cannot take RGBA: it takes depth (GRAY16_LE" in first




def errors_of_bus(p):
    m = p.get_bus().pop_filtered(Gst.MessageType.ERROR)
    return m.parse_error() if m else "no sample"


@pytest.mark.parametrize("fmt", ["YUY2", "I420", "NV12", "UYVY", "BGRx"])
def test_video_pad_takes_camera_formats_and_unnamed_links_pick_it(fmt):
    """The user's own line: a webcam's YUY2 (or a decoder's I420/NV12) linked to
    depthmatte without a pad name lands on `video`, and the unnamed GRAY16 link
    on `depth`. Left half nearer than the cutoff keeps the (white) video, the
    right half gets the blue background."""
    depth = ("videotestsrc num-buffers=3 pattern=black ! video/x-raw,format=GRAY16_LE,width=32,height=24,"
             "framerate=30/1 ! identity name=fill signal-handoffs=true")
    video = (f"videotestsrc num-buffers=3 pattern=white ! video/x-raw,format={fmt},width=64,height=48,"
             "framerate=30/1")
    desc_depth = depth

    # left half 1 m, right half 3 m
    d = np.full((24, 32), 3000, "<u2")
    d[:, :16] = 1000

    def handoff(_, buf):
        buf.fill(0, d.tobytes())
    p_img, pads = None, None
    desc = (f"{video} ! depthmatte name=m mode=fixed cutoff=1.5 refine=none background-color=0xff0000ff ! "
            f"video/x-raw,format=BGRx ! appsink name=sink sync=false {desc_depth} ! m.")
    p = Gst.parse_launch(desc)
    p.get_by_name("fill").connect("handoff", handoff)
    pads = sorted(pad.get_name() for pad in p.get_by_name("m").sinkpads)
    sink = p.get_by_name("sink")
    p.set_state(Gst.State.PLAYING)
    s = sink.emit("try-pull-sample", 10 * SECOND)
    assert s is not None, errors_of_bus(p)
    info = GstVideo.VideoInfo.new_from_caps(s.get_caps())
    img = pixels(s)[..., :3].astype(int)
    p.set_state(Gst.State.NULL)
    assert pads == ["depth", "video"]
    assert (info.width, info.height) == (64, 48)
    assert np.all(np.abs(img[8:40, 4:28] - 255) <= 3)                 # subject: the white video
    assert np.all(np.abs(img[8:40, 36:60] - [255, 0, 0]) <= 3)        # background: blue (BGR order)
