# SPDX-License-Identifier: LGPL-2.1-or-later
"""The subject, not a slab of space: rgbdtestsrc's scenes with a
surface nearer than the cutoff that is not the subject (a chair back, a
sloping floor, a door frame) and a subject walking in at the edge
(mode=nearest, no face metas), through the built plugin; IoU against the
truth stream, with subject-only (the default) and without."""
import numpy as np
import pytest
from harness import pixels, pull_all
from gi.repository import Gst

W, H, DW, DH = 320, 180, 160, 90
ART = "noise=true holes=true flying-pixels=true misregistration=1 seed=5"


def run(launch, n):
    p = Gst.parse_launch(launch)
    p.set_state(Gst.State.PLAYING)
    try:
        out = [pixels(s)[:, :, 0].astype(np.float64) / 255 for s in pull_all(p)]
        assert p.get_bus().pop_filtered(Gst.MessageType.ERROR) is None
    finally:
        p.set_state(Gst.State.NULL)
    assert len(out) == n
    return out


def ious(scene, extra, keyer, n=10, rate="5/1", dw=DW, dh=DH):
    src = f"rgbdtestsrc scene={scene} {ART} {extra} num-buffers={n}"
    caps = f"framerate={rate}"
    truth = run(f"{src} stream=truth ! video/x-raw,width={W},height={H},{caps} ! appsink name=sink sync=false", n)
    alpha = run(f"depthmatte name=m output=matte {keyer} ! video/x-raw,format=RGBA ! appsink name=sink sync=false "
                f"{src} ! video/x-raw,format=RGBA,width={W},height={H},{caps} ! m.video "
                f"{src} stream=depth ! video/x-raw,width={dw},height={dh},{caps} ! m.depth", n)
    out = []
    for a, t in zip(alpha, truth):
        if (t > 0.5).mean() < 0.02:
            continue        # the subject hardly in view
        out.append(((a > 0.5) & (t > 0.5)).sum() / max(((a > 0.5) | (t > 0.5)).sum(), 1))
    assert out
    return np.array(out)


@pytest.mark.parametrize("scene", ["chair", "sloping-floor", "door-frame"])
def test_surfaces_nearer_than_the_cutoff_are_not_keyed(scene):
    default = ious(scene, "", "")
    slab = ious(scene, "", "subject-only=false")
    print(scene, "subject-only", default.round(3), "slab", slab.round(3))
    assert default.min() >= 0.95, default
    assert slab.mean() <= 0.85, slab          # what the scene does to the slab of space
    assert default.mean() >= slab.mean() + 0.1


@pytest.mark.parametrize("scene", ["chair", "door-frame"])
def test_surfaces_stay_out_on_a_filtered_depth_map(scene):
    # filtered=true: holes filled, every step a ramp (a phone's or an SDK's
    # filtered map): the chair back no longer steps away from the shoulders.
    # At 640x360 (ramps about 6 depth pixels, 1 % of the width, as an
    # iPhone's 640x480 map); at 160x90 the same filter blurs the raised hand
    # into the chair behind it (docs/quality.md)
    default = ious(scene, "filtered=true", "", dw=640, dh=360)
    slab = ious(scene, "filtered=true", "subject-only=false", dw=640, dh=360)
    print(scene, "filtered, subject-only", default.round(3), "slab", slab.round(3))
    # (chair: 0.91 at 0.8 s before the ramp holes, where the
    # torso's edge runs diagonally and the ramp beside it joined the chair;
    # now 0.987; door frame 0.963: docs/quality.md)
    assert default.mean() >= 0.95 and default.min() >= 0.95, default
    assert slab.mean() <= 0.85, slab


def test_chair_stays_out_on_a_phones_filtered_4x3_map():
    # a phone's portrait: 4:3 colour and a filtered 4:3 depth map (an
    # iPhone's AVDepthData is 640x480 or 320x240); where the sloping shoulder
    # meets the chair's outer edge, wall, chair and shoulder meet, and the
    # in-between depths of two ramps chained chair and shoulder (worst frame
    # 0.84-0.92 before the ramp holes)
    global W, H
    saved = W, H
    W, H = 320, 240
    try:
        for dw, dh in [(640, 480), (320, 240)]:
            default = ious("chair", "filtered=true", "", n=15, dw=dw, dh=dh)
            print("chair, filtered, 4:3", dw, dh, default.round(3))
            assert default.mean() >= 0.97 and default.min() >= 0.93, (dw, dh, default)
    finally:
        W, H = saved


def with_stock_facedetect(src, caps, depth_caps, n):
    """Key `src` (an rgbdtestsrc with its settings) with the stock OpenCV
    facedetect finding the faces (no metas from the source): the lock
    source of every frame and the IoU of every frame against the truth."""
    if Gst.ElementFactory.find("facedetect") is None:
        pytest.skip("facedetect (gstreamer1.0-opencv) not installed")
    truth = run(f"{src} stream=truth ! video/x-raw,{caps} ! appsink name=sink sync=false", n)
    p = Gst.parse_launch(
        f"depthmatte name=m output=matte ! video/x-raw,format=RGBA ! appsink name=sink sync=false "
        f"{src} face-meta=false ! video/x-raw,{caps} ! videoconvert ! facedetect display=false ! videoconvert ! "
        f"video/x-raw,format=RGBA ! m.video "
        f"{src} stream=depth ! video/x-raw,{depth_caps} ! m.depth")
    p.set_state(Gst.State.PLAYING)
    try:
        alpha = [pixels(s)[:, :, 0].astype(np.float64) / 255 for s in pull_all(p)]
        locks = []
        while (m := p.get_bus().pop_filtered(Gst.MessageType.ELEMENT)) is not None:
            if m.get_structure().get_name() == "depthmatte":
                locks.append(m.get_structure().get_value("lock"))
    finally:
        p.set_state(Gst.State.NULL)
    assert len(alpha) == n
    return locks, np.array([((a > 0.5) & (t > 0.5)).sum() / max(((a > 0.5) | (t > 0.5)).sum(), 1)
                            for a, t in zip(alpha, truth)])


def test_chair_stays_out_when_the_stock_facedetect_misses_the_face():
    # the real detector misses the face on some frames (here at 3.8 and 4.2 s,
    # as the subject steps back): the lock holds the subject from depth
    # (lock=tracked), and its surface at the lock's coarse grid has merged
    # the chair with the chest; the segmentation is seeded around the last
    # face box (seeding its whole upper half takes the chair too: IoU 0.67
    # on those frames)
    locks, iou = with_stock_facedetect(f"rgbdtestsrc scene=chair {ART} filtered=true num-buffers=24",
                                       "width=640,height=480,framerate=5/1", "width=640,height=480,framerate=5/1", 24)
    print("chair, stock facedetect", locks, iou.round(3))
    assert "tracked" in locks                 # the detector did miss
    assert iou.min() >= 0.95, iou


@pytest.mark.parametrize("dw,dh", [(480, 640), (240, 320)])
def test_upright_phone_portrait_with_the_stock_facedetect(dw, dh):
    # a phone's portrait as a user holds it: upright 3:4, square pixels
    # (head and shoulders fill the picture), a filtered depth map, the chair
    # back rising behind the shoulders and the real detector
    locks, iou = with_stock_facedetect(
        f"rgbdtestsrc scene=chair {ART} filtered=true square-pixels=true num-buffers=12",
        "width=480,height=640,framerate=5/1", f"width={dw},height={dh},framerate=5/1", 12)
    print("chair, filtered, 3:4 square pixels, stock facedetect", dw, dh, locks, iou.round(3))
    assert "face" in locks                    # the detector found the upright face
    assert iou.min() >= 0.95, iou


def test_arms_length_selfie_keeps_the_chest_with_the_stock_facedetect():
    # scene=selfie: an upright 3:4 selfie at arm's length (the face reads
    # 0.33 m, a filtered map), the torso leaning back fills the bottom edge,
    # nearer than the face there, a chair back behind; the default keys the
    # chest as the plain cut does, and leaves the chair back out
    src = "rgbdtestsrc scene=selfie filtered=true square-pixels=true num-buffers=6"
    caps = "width=480,height=640,framerate=5/1"
    locks, iou = with_stock_facedetect(src, caps, caps, 6)
    print("selfie, stock facedetect", locks, iou.round(3))
    assert iou.min() >= 0.97, iou


def test_filtered_depth_has_no_holes_and_ramps_instead_of_steps():
    def depth(extra):
        p = Gst.parse_launch(f"rgbdtestsrc scene=chair {ART} {extra} num-buffers=1 stream=depth "
                             f"! video/x-raw,format=GRAY16_LE,width={DW},height={DH} ! appsink name=sink sync=false")
        p.set_state(Gst.State.PLAYING)
        try:
            s = pull_all(p)[0]
        finally:
            p.set_state(Gst.State.NULL)
        return np.ascontiguousarray(pixels(s)).view("<u2")[:, :, 0]
    raw, filt = depth(""), depth("filtered=true")
    assert (raw == 0).sum() > 50 and (filt == 0).sum() == 0, ((raw == 0).sum(), (filt == 0).sum())
    # the largest step between horizontal neighbours shrinks to a ramp's
    step = lambda d: np.abs(np.diff(d.astype(np.float64), axis=1))[d[:, 1:] * d[:, :-1] > 0].max()
    assert step(filt) < 0.5 * step(raw), (step(filt), step(raw))


def test_subject_walking_in_at_the_edge_is_followed_in_mode_nearest():
    # 0-2.2 s: the subject walks in from the left over a floor within the cutoff
    default = ious("enter-left", "face-meta=false", "mode=nearest", n=12)
    slab = ious("enter-left", "face-meta=false", "mode=nearest subject-only=false", n=12)
    print("enter-left", "subject-only", default.round(3), "slab", slab.round(3))
    assert default.mean() >= 0.9 and default.min() >= 0.75, default
    assert slab.mean() <= 0.8, slab


@pytest.mark.parametrize("scene", ["enter-left", "carry-binder"])
def test_walk_in_a_kinect_like_4x3_view_is_followed_and_the_empty_room_stays_empty(scene):
    # the walk through a 4:3 square-pixel view (a Kinect v1's 57° x 43°;
    # colour and depth 320x240, quantised, correlated noise), mode=nearest:
    # the walk's figures, the frames with the person fully in view
    # (the truth touching neither side) and the empty frames;
    # carry-binder: carrying a dark binder that gives the depth few
    # readings
    global W, H
    saved = W, H
    W, H = 320, 240
    n = 50
    art = "square-pixels=true quantization=true correlated-noise=true face-meta=false"
    src = f"rgbdtestsrc scene={scene} {ART} {art} num-buffers={n}"
    caps = f"width={W},height={H},framerate=5/1"
    try:
        truth = run(f"{src} stream=truth ! video/x-raw,{caps} ! appsink name=sink sync=false", n)
        alpha = run(f"depthmatte name=m output=matte mode=nearest ! video/x-raw,format=RGBA ! appsink name=sink sync=false "
                    f"{src} ! video/x-raw,format=RGBA,{caps} ! m.video "
                    f"{src} stream=depth ! video/x-raw,{caps} ! m.depth", n)
    finally:
        W, H = saved
    full, empty = [], []
    for a, t in zip(alpha, truth):
        if (t > 0.5).sum() == 0:
            empty.append((a > 0.5).mean())
        elif not (t[:, 0] > 0.5).any() and not (t[:, -1] > 0.5).any():
            full.append(((a > 0.5) & (t > 0.5)).sum() / max(((a > 0.5) | (t > 0.5)).sum(), 1))
    full = np.array(full)
    print(scene, "4:3 square pixels: fully in view", len(full), full.round(3), "empty", np.round(empty, 4))
    assert len(full) >= 10 and len(empty) >= 5, (len(full), len(empty))
    assert full.mean() >= 0.95 and full.min() >= 0.85, full
    assert max(empty) <= 0.001, empty


def test_scene_property_defaults_to_the_portrait():
    e = Gst.ElementFactory.make("rgbdtestsrc")
    assert e.get_property("scene") == 0 or str(e.get_property("scene")).endswith("PORTRAIT")
    assert e.get_property("quantization") is False
    assert e.get_property("correlated-noise") is False
    assert e.get_property("filtered") is False
    assert e.get_property("square-pixels") is False
    m = Gst.ElementFactory.make("depthmatte")
    assert m.get_property("subject-only") is True


def still_frame(scene, stream, extra=""):
    """One 640x360 frame of rgbdtestsrc at t = 0 (motion=false): the truth as
    0-1, the depth in millimetres, the video as RGB."""
    fmt = "format=RGB," if stream == "video" else ""
    p = Gst.parse_launch(f"rgbdtestsrc scene={scene} stream={stream} motion=false {extra} num-buffers=1 ! "
                         f"video/x-raw,{fmt}width=640,height=360 ! appsink name=sink sync=false")
    p.set_state(Gst.State.PLAYING)
    try:
        px = pixels(pull_all(p)[0]).astype(np.int64)
    finally:
        p.set_state(Gst.State.NULL)
    if stream == "truth":
        return px[:, :, 0] / 255
    return px[:, :, 0] + 256 * px[:, :, 1] if stream == "depth" else px


def test_thin_rod_scene_puts_a_thin_subject_part_in_the_truth():
    """scene=thin-rod: the raised hand holds a 5 mm rod up; it is the subject
    (in the truth stream) and it is in the depth, nearer than the wall: a part
    one or two depth pixels wide for quality-bench's thin-part figure."""
    rod, portrait = still_frame("thin-rod", "truth"), still_frame("portrait", "truth")
    extra = (rod > 0.5) & (portrait < 0.5)
    ys, xs = np.nonzero(extra)
    assert extra.sum() > 300, extra.sum()                   # the hand (raised) and the rod
    widths = [np.count_nonzero(extra[y]) for y in range(ys.min(), ys.min() + 40)]
    assert max(widths) <= 4 and min(widths) >= 1, widths    # the rod's upper end: 2-3 px at 640 wide
    depth, wall = still_frame("thin-rod", "depth"), still_frame("portrait", "depth")
    y = ys.min() + 5
    x = xs[ys == y][0]
    # (depth is at 640x360 here too: the rod, 1.2 m, against the wall behind it)
    assert 0 < depth[y, x] < wall[y, x] - 500, (depth[y, x], wall[y, x])


def test_carry_binder_scene_holds_a_dark_binder_with_few_depth_readings():
    """scene=carry-binder: the walker holds a dark binder against the chest,
    past its right side; it is the subject (in the truth), dark in the
    colour, and with holes=true about 90 % of its depth pixels have no
    reading (an IR-absorbing surface); without holes it reads as a flat
    surface in front of the torso."""
    # (motion=false: the t = 0 pose, the walker's torso at the left edge)
    binder, walker = still_frame("carry-binder", "truth") > 0.5, still_frame("enter-left", "truth") > 0.5
    extra = binder & ~walker
    assert extra.sum() > 500, extra.sum()           # the part past the torso's side
    assert (walker & ~binder).sum() == 0
    colour = still_frame("carry-binder", "video")
    assert colour[extra][:, :3].sum(axis=1).mean() < 150   # dark: (30, 32, 40) with its spine
    d = still_frame("carry-binder", "depth", "holes=true")
    holes = (d[extra] == 0).mean()
    assert 0.8 <= holes <= 0.97, holes
    dp = still_frame("carry-binder", "depth")
    assert (dp[extra] > 0).all()
    ys, xs = np.nonzero(extra)
    torso = dp[ys.min() + 5, xs.min() - 10]         # the torso beside it, at the same height
    assert 0 < np.median(dp[extra]) < torso, (np.median(dp[extra]), torso)
