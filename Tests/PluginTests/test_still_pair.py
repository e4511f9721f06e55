# SPDX-License-Identifier: LGPL-2.1-or-later
"""pipelines/still-pair.sh: one RGB-D still as files (colour PNG, 16-bit PNG
depth in millimetres as RGB-D datasets store it, decoded by pngdec as
GRAY16_BE) keyed through a face detector and depthmatte: mpfacedetect and
personmask (the learned person prior) when they are registered, the stock
facedetect and depth alone with DM_LEARNED=0."""
import os
import subprocess

import numpy as np
import pytest
from gi.repository import Gst, GstVideo

from learned_check import check_default, check_depth_only, logging_env, made

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
W, H = 320, 240


def run_launch(desc):
    p = Gst.parse_launch(desc)
    p.set_state(Gst.State.PLAYING)
    msg = p.get_bus().timed_pop_filtered(20 * Gst.SECOND, Gst.MessageType.EOS | Gst.MessageType.ERROR)
    p.set_state(Gst.State.NULL)
    assert msg is not None and msg.type == Gst.MessageType.EOS, msg.parse_error() if msg else "timeout"


def read_png(path):
    """The first plane of a PNG as a (h, w) array, through pngdec."""
    p = Gst.parse_launch(f"filesrc location={path} ! pngdec ! videoconvert ! video/x-raw,format=GRAY8 ! "
                         "appsink name=sink sync=false")
    p.set_state(Gst.State.PLAYING)
    sample = p.get_by_name("sink").emit("try-pull-sample", 10 * Gst.SECOND)
    p.set_state(Gst.State.NULL)
    assert sample is not None
    info = GstVideo.VideoInfo.new_from_caps(sample.get_caps())
    buf = sample.get_buffer()
    ok, mi = buf.map(Gst.MapFlags.READ)
    data = np.frombuffer(mi.data, np.uint8).copy()
    buf.unmap(mi)
    return data[: info.stride[0] * info.height].reshape(info.height, info.stride[0])[:, : info.width]


@pytest.mark.parametrize("learned", [True, False], ids=["default", "DM_LEARNED=0"])
def test_still_pair_keys_a_png_pair_with_16_bit_depth(tmp_path, learned):
    colour, depth, truth = tmp_path / "c.png", tmp_path / "d.png", tmp_path / "t.png"
    art = "noise=true holes=true"
    run_launch(f"rgbdtestsrc num-buffers=1 ! video/x-raw,width={W},height={H} ! videoconvert ! pngenc ! "
               f"filesink location={colour}")
    run_launch(f"rgbdtestsrc stream=depth {art} num-buffers=1 ! video/x-raw,width={W},height={H} ! videoconvert ! "
               f"video/x-raw,format=GRAY16_BE ! pngenc ! filesink location={depth}")
    run_launch(f"rgbdtestsrc stream=truth num-buffers=1 ! video/x-raw,width={W},height={H} ! pngenc ! "
               f"filesink location={truth}")
    out, matte = tmp_path / "out.png", tmp_path / "matte.png"
    env = logging_env(tmp_path / "log")
    if not learned:
        env["DM_LEARNED"] = "0"
    r = subprocess.run(["bash", os.path.join(ROOT, "pipelines", "still-pair.sh"), str(colour), str(depth),
                        str(out), str(matte)], capture_output=True, text=True, timeout=120, env=env)
    assert r.returncode == 0, r.stderr
    assert out.exists() and matte.exists()
    # the learned elements in both keying runs when registered, else (and
    # with DM_LEARNED=0) the stock facedetect
    elements = made(tmp_path / "log")
    if learned:
        check_default(r.stderr, elements, "still-pair.sh")
    else:
        check_depth_only(r.stderr, elements, "still-pair.sh")
    assert elements["depthmatte"] >= 2, elements
    a = read_png(matte).astype(float) / 255
    t = read_png(truth).astype(float) / 255
    assert a.shape == t.shape == (H, W)
    iou = ((a > 0.5) & (t > 0.5)).sum() / ((a > 0.5) | (t > 0.5)).sum()
    assert iou > 0.97, iou
    # no halo on the occlusion-shadow side: wall pixels more than 2 px from
    # the subject with more than a trace of matte (the old behaviour keyed in
    # a strip of the shadow beside the subject)
    near = t > 0.01
    for _ in range(2):
        grown = near.copy()
        grown[1:] |= near[:-1]; grown[:-1] |= near[1:]; grown[:, 1:] |= near[:, :-1]; grown[:, :-1] |= near[:, 1:]
        near = grown
    # (measured when written: 181 px and IoU 0.99; before the decision's
    # search widened, 621 px and IoU 0.963. What is left is a wallpaper
    # stripe inside the shadow beside the hair, nearer in colour to skin
    # than to any trusted wall colour close by.)
    halo = ((a > 0.1) & ~near).sum()
    assert halo < 0.03 * (t > 0.5).sum(), halo


@pytest.mark.parametrize("learned", [True, False], ids=["default", "DM_LEARNED=0"])
def test_a_truncated_depth_png_fails_and_says_why(tmp_path, learned):
    # pngdec gives no frame from a cut-off PNG and posts nothing; depthmatte
    # warns "No depth frame" and passes the colour through unkeyed. The
    # script prints the warning, exits non-zero and writes no picture.
    colour, depth = tmp_path / "c.png", tmp_path / "d.png"
    run_launch(f"rgbdtestsrc num-buffers=1 ! video/x-raw,width={W},height={H} ! videoconvert ! pngenc ! "
               f"filesink location={colour}")
    run_launch(f"rgbdtestsrc stream=depth num-buffers=1 ! video/x-raw,width={W},height={H} ! videoconvert ! "
               f"video/x-raw,format=GRAY16_BE ! pngenc ! filesink location={depth}")
    data = depth.read_bytes()
    depth.write_bytes(data[: len(data) * 2 // 3])
    out, matte = tmp_path / "out.png", tmp_path / "matte.png"
    env = dict(os.environ)
    if not learned:
        env["DM_LEARNED"] = "0"
    r = subprocess.run(["bash", os.path.join(ROOT, "pipelines", "still-pair.sh"), str(colour), str(depth),
                        str(out), str(matte)], capture_output=True, text=True, timeout=120, env=env)
    assert r.returncode != 0, r.stdout + r.stderr
    assert "WARNING: from element" in r.stderr and "No depth frame" in r.stderr, r.stderr
    assert f"{out} and {matte} not written" in r.stderr, r.stderr
    assert not out.exists() and not matte.exists()
    assert list(tmp_path.glob("out.png.*")) == [] and list(tmp_path.glob("matte.png.*")) == []
