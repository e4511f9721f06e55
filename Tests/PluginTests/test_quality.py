# SPDX-License-Identifier: LGPL-2.1-or-later
"""Matte quality: refine=guided, the default, against the original
sample's chain on a small rgbdtestsrc clip with realistic depth artefacts
(noise, holes, flying pixels, misregistration 2), scored against the
source's ground-truth matte."""
import numpy as np
import pytest
from gi.repository import Gst
from harness import pixels, playing, pull_all

W, H, DW, DH, N = 320, 180, 160, 90, 8
ART = "noise=true holes=true flying-pixels=true misregistration=2 seed=3"


def run(launch):
    with playing(launch) as p:
        out = [pixels(s)[:, :, 0].astype(np.float64) / 255 for s in pull_all(p, timeout=20)]
        assert p.get_bus().pop_filtered(Gst.MessageType.ERROR) is None
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
    # margins (the quality targets, on this small clip): SAD at most 0.3x the
    # original's, IoU at 0.5 at least 0.98 and 0.1 above it, dtSSD at most
    # 0.7x (measured when written: SAD 0.08 vs 3.40, IoU 0.995 vs 0.839,
    # dtSSD 1.60 vs 3.67); quality-bench measures it at 1280x720 over longer
    # clips (docs/quality.md).
    print("guided", guided, "original", orig)
    assert guided[0] <= 0.3 * orig[0], (guided, orig)
    assert guided[1] >= max(0.98, orig[1] + 0.1), (guided, orig)
    assert guided[2] <= 0.7 * orig[2], (guided, orig)
