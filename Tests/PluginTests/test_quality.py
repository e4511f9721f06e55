"""Matte quality (issue 3): refine=guided, the default, against the original
sample's chain on a small rgbdtestsrc clip with realistic depth artefacts
(noise, holes, flying pixels, misregistration 2), scored against the
source's ground-truth matte."""
import numpy as np
import pytest
from gi.repository import Gst, GstVideo
from harness import SECOND

W, H, DW, DH, N = 320, 180, 160, 90, 8
ART = "noise=true holes=true flying-pixels=true misregistration=2 seed=3"


def pull_all(p, sink="sink", timeout=20):
    s = p.get_by_name(sink)
    out = []
    while (sample := s.emit("try-pull-sample", timeout * SECOND)) is not None:
        out.append(sample)
    return out


def plane(sample, channel=0):
    buf, caps = sample.get_buffer(), sample.get_caps()
    info = GstVideo.VideoInfo.new_from_caps(caps)
    meta = GstVideo.buffer_get_video_meta(buf)
    stride = meta.stride[0] if meta else info.stride[0]
    offset = meta.offset[0] if meta else info.offset[0]
    ok, mi = buf.map(Gst.MapFlags.READ)
    assert ok
    data = np.frombuffer(mi.data, np.uint8).copy()
    buf.unmap(mi)
    ps = info.finfo.pixel_stride[0]
    rows = np.stack([data[offset + y * stride: offset + y * stride + W * ps] for y in range(H)])
    return rows.reshape(H, W, ps)[:, :, channel].astype(np.float64) / 255


def run(launch):
    p = Gst.parse_launch(launch)
    p.set_state(Gst.State.PLAYING)
    try:
        out = [plane(s) for s in pull_all(p)]
        assert p.get_bus().pop_filtered(Gst.MessageType.ERROR) is None
    finally:
        p.set_state(Gst.State.NULL)
    assert len(out) == N
    return out


def mattes(refine):
    return run(f"depthmatte name=m output=matte refine={refine} ! video/x-raw,format=RGBA ! appsink name=sink sync=false "
               f"rgbdtestsrc {ART} num-buffers={N} ! video/x-raw,format=RGBA,width={W},height={H} ! m.video "
               f"rgbdtestsrc stream=depth {ART} num-buffers={N} ! video/x-raw,width={DW},height={DH} ! m.depth")


def scores(alpha, truth):
    sad = np.mean([np.abs(a - t).sum() / 1000 for a, t in zip(alpha, truth)])
    iou = np.mean([((a > 0.5) & (t > 0.5)).sum() / max(((a > 0.5) | (t > 0.5)).sum(), 1) for a, t in zip(alpha, truth)])
    dt = np.mean([np.sqrt(np.mean(((alpha[i] - alpha[i - 1]) - (truth[i] - truth[i - 1])) ** 2)) * 100
                  for i in range(1, len(alpha))])
    return sad, iou, dt


def test_default_refine_beats_original_on_a_clip_with_depth_artefacts():
    truth = run(f"rgbdtestsrc stream=truth {ART} num-buffers={N} ! video/x-raw,width={W},height={H} ! "
                "appsink name=sink sync=false")
    orig = scores(mattes("original"), truth)
    guided = scores(mattes("guided"), truth)
    default = scores(run(f"depthmatte name=m output=matte ! video/x-raw,format=RGBA ! appsink name=sink sync=false "
                         f"rgbdtestsrc {ART} num-buffers={N} ! video/x-raw,format=RGBA,width={W},height={H} ! m.video "
                         f"rgbdtestsrc stream=depth {ART} num-buffers={N} ! video/x-raw,width={DW},height={DH} ! m.depth"),
                     truth)
    assert default == guided
    # margins (issue 3's targets, on this small clip): SAD at most 0.3x the
    # original's, IoU at 0.5 at least 0.98 and 0.1 above it, dtSSD at most
    # 0.7x (measured when written: SAD 0.08 vs 3.40, IoU 0.995 vs 0.839,
    # dtSSD 1.60 vs 3.67); quality-bench measures it at 1280x720 over longer
    # clips (docs/quality.md).
    print("guided", guided, "original", orig)
    assert guided[0] <= 0.3 * orig[0], (guided, orig)
    assert guided[1] >= max(0.98, orig[1] + 0.1), (guided, orig)
    assert guided[2] <= 0.7 * orig[2], (guided, orig)
