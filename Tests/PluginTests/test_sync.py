# SPDX-License-Identifier: LGPL-2.1-or-later
"""Colour and depth paired by time with live sources under load: a slow
branch (identity sleep-time, a slow facedetect) delivers its frames late,
and each output's matte must be made from the depth of the colour frame it
shows. Each output's colour is identified by its pixels among the scene's
frames, and its alpha is compared with that frame's ground truth."""
import time

import numpy as np
import pytest

from harness import Gst, pull_all, wait_until

W, H, FPS = 640, 360, 30
N = 60          # colour frames per run (2 s)
REF = N + 30    # reference frames rendered (the live run may start a little late)


def render(stream, fmt, n):
    p = Gst.parse_launch(f"rgbdtestsrc stream={stream} num-buffers={n} ! "
                         f"video/x-raw,width={W},height={H},framerate={FPS}/1 ! videoconvert ! "
                         f"video/x-raw,format={fmt} ! appsink name=s sync=false")
    out = pull(p, 3 if fmt == "RGB" else 1)
    p.set_state(Gst.State.NULL)
    return np.stack(out)


def pull(p, channels):
    """Plays `p` and returns the frames of its appsink `s` until EOS."""
    s = p.get_by_name("s")
    p.set_state(Gst.State.PLAYING)
    out = []
    while True:
        smp = s.emit("try-pull-sample", 10 * Gst.SECOND)
        if smp is None:
            return out
        b = smp.get_buffer()
        ok, mi = b.map(Gst.MapFlags.READ)
        out.append(np.frombuffer(mi.data, np.uint8)[: W * H * channels].reshape(H, W, channels).copy())
        b.unmap(mi)


@pytest.fixture(scope="module")
def reference():
    colour = render("video", "RGB", REF).astype(np.int16)[:, ::4, ::4]
    truth = render("truth", "GRAY8", REF)[..., 0] >= 128
    return colour, truth


def run_live(colour_delay_us, depth_delay_us, facedetect=False, props=""):
    cdelay = f"identity sleep-time={colour_delay_us} ! " if colour_delay_us else ""
    ddelay = f"identity sleep-time={depth_delay_us} ! " if depth_delay_us else ""
    face = "videoconvert ! facedetect display=false ! videoconvert ! " if facedetect else ""
    p = Gst.parse_launch(
        f"rgbdtestsrc is-live=true num-buffers={N} ! video/x-raw,width={W},height={H},framerate={FPS}/1 ! "
        f"{cdelay}{face}queue ! m.video "
        f"rgbdtestsrc is-live=true stream=depth num-buffers={N} ! "
        f"video/x-raw,width={W},height={H},framerate={FPS}/1 ! {ddelay}queue ! m.depth "
        f"depthmatte name=m mode=fixed cutoff=1.3 output=alpha {props} ! videoconvert ! video/x-raw,format=RGBA ! "
        "appsink name=s sync=false")
    frames = pull(p, 4)
    msg = p.get_bus().pop_filtered(Gst.MessageType.ERROR)
    p.set_state(Gst.State.NULL)
    assert msg is None, msg.parse_error()
    return frames


def score(frames, reference):
    colour, truth = reference
    ious, shown = [], []
    for f in frames:
        small = f[::4, ::4, :3].astype(np.int16)
        err = np.abs(colour - small[None]).mean(axis=(1, 2, 3))
        k = int(err.argmin())
        if err[k] >= 2.0 and (f[..., 3] == 0).all():
            continue    # no colour frame yet: the background alone
        assert err[k] < 2.0, f"output colour matches no frame of the scene ({err[k]:.1f})"
        a, t = f[..., 3] >= 128, truth[k]
        ious.append((a & t).sum() / max((a | t).sum(), 1))
        shown.append(k)
    return np.array(ious), shown


@pytest.mark.parametrize("colour_delay,depth_delay,latency", [
    (50000, 0, 5 * Gst.SECOND), (50000, 0, 0), (0, 50000, 0)],
    ids=["slow colour waited for", "slow colour late", "slow depth"])
def test_each_output_is_keyed_with_the_depth_of_its_own_colour(reference, colour_delay, depth_delay, latency):
    # latency: the aggregator waits for late frames instead of dropping them
    # (the 20 frames/s branch falls 1 s behind its 60 frames), so which
    # frames are shown does not depend on the machine's load; without it,
    # late colour frames are dropped, as many as the load makes late
    frames = run_live(colour_delay, depth_delay, props=f"latency={latency}")
    # no output comes before the first colour frame; before the first depth
    # frame arrives, the video passes unkeyed (alpha 1 everywhere, with a
    # WARNING): at most the first output or two
    assert not (frames[0][..., 3] == 0).all(), "a background-only output"
    lead = 0
    while lead < len(frames) and (frames[lead][..., 3] == 255).all():
        lead += 1
    assert lead <= 2, f"{lead} unkeyed outputs at the start"
    ious, shown = score(frames[lead:], reference)
    print(f"{len(frames)} outputs, {len(set(shown))} colour frames shown: IoU mean {ious.mean():.4f} "
          f"min {ious.min():.4f}, {int((ious < 0.95).sum())} below 0.95")
    # every output shown, whichever, is keyed with the depth of its own time
    assert ious.min() > 0.95 and ious.mean() > 0.98, (ious.mean(), ious.min())
    if latency:
        # nothing late is dropped: each colour frame is shown once, in order
        assert len(set(shown)) >= N - 2 and shown == sorted(shown), shown
    else:
        assert len(set(shown)) >= 1

def test_pairing_holds_with_facedetect_in_the_loop(reference):
    # the stock facedetect on the colour branch (slow, variable per frame)
    frames = run_live(0, 0, facedetect=True)
    ious, shown = score(frames, reference)
    print(f"facedetect: {len(frames)} outputs, IoU mean {ious.mean():.4f} min {ious.min():.4f}")
    assert ious.min() > 0.95 and ious.mean() > 0.98, (ious.mean(), ious.min())


def test_sync_tolerance_property():
    m = Gst.ElementFactory.make("depthmatte", None)
    spec = m.find_property("sync-tolerance")
    assert spec.flags & Gst.PARAM_MUTABLE_PLAYING and "running time" in spec.blurb
    assert m.get_property("sync-tolerance") == 0
    m.set_property("sync-tolerance", 20 * Gst.MSECOND)
    assert m.get_property("sync-tolerance") == 20 * Gst.MSECOND


@pytest.mark.parametrize("depth_frames,warned", [(20, True), (1, False), (90, False)],
                         ids=["truncated depth", "depth still", "whole depth"])
def test_a_depth_stream_that_ends_early_is_a_warning(depth_frames, warned):
    # a truncated depth recording is held (its last frame keys the rest of
    # the video): one WARNING says so; a one-frame depth still is held on
    # purpose, and a depth stream as long as the video is never held
    p = Gst.parse_launch(f"depthmatte name=m ! fakesink rgbdtestsrc num-buffers=90 ! m.video "
                         f"rgbdtestsrc stream=depth num-buffers={depth_frames} ! m.depth")
    p.set_state(Gst.State.PLAYING)
    bus = p.get_bus()
    warnings = []
    while True:
        m = bus.timed_pop_filtered(20 * Gst.SECOND, Gst.MessageType.EOS | Gst.MessageType.ERROR
                                   | Gst.MessageType.WARNING)
        assert m is not None and m.type != Gst.MessageType.ERROR, m and m.parse_error()
        if m.type == Gst.MessageType.EOS:
            break
        warnings.append(m.parse_warning()[0].message)
    p.set_state(Gst.State.NULL)
    ended = [w for w in warnings if "depth input ended" in w]
    assert len(ended) == (1 if warned else 0), warnings


def test_a_depth_still_keys_every_colour_frame():
    # one depth frame (a still) held for a moving video: every colour frame
    # is shown and keyed with it, not the first pairing repeated
    p = Gst.parse_launch(f"depthmatte name=m output=alpha ! videoconvert ! video/x-raw,format=RGBA ! "
                         f"appsink name=s sync=false rgbdtestsrc num-buffers=40 ! "
                         f"video/x-raw,width={W},height={H},framerate={FPS}/1 ! m.video "
                         f"rgbdtestsrc stream=depth num-buffers=1 ! video/x-raw,width={W},height={H} ! m.depth")
    frames = pull(p, 4)
    p.set_state(Gst.State.NULL)
    assert len(frames) == 40
    # (until the depth's end is known, a frame or three repeat the first
    # pairing; before, a still's one pairing held for the whole video)
    distinct = len({f[::7, ::7, :3].tobytes() for f in frames})
    assert distinct >= 35, f"only {distinct} of 40 colour frames shown"
    assert all((f[..., 3] >= 128).mean() > 0.05 for f in frames), "a frame not keyed"


@pytest.mark.parametrize("n", [5, 30])
def test_live_sources_give_one_output_per_colour_frame(n):
    # live colour and depth that arrive within the aggregator's latency: n in,
    # n out, each with its own time, none keyed twice at the end. The 300 ms
    # of latency is the margin a loaded box needs: a frame later than that is
    # repeated by the timeout, as compositor does.
    p = Gst.parse_launch(
        f"rgbdtestsrc is-live=true num-buffers={n} ! video/x-raw,width=160,height=120,framerate=30/1 ! queue ! m.video "
        f"rgbdtestsrc is-live=true stream=depth num-buffers={n} ! video/x-raw,width=160,height=120,framerate=30/1 ! "
        "queue ! m.depth depthmatte name=m mode=fixed latency=300000000 ! appsink name=s sync=false")
    p.set_state(Gst.State.PLAYING)
    try:
        out = pull_all(p, "s", timeout=5)
    finally:
        p.set_state(Gst.State.NULL)
    pts = [s.get_buffer().pts for s in out]
    assert len(pts) == n, pts
    assert len(set(pts)) == n


def test_a_clock_before_playing_moves_no_output_time():
    # The bin gives a live depthmatte its clock, and queries the latency
    # (which wakes the aggregator's thread), before it sets the element's
    # base time at PAUSED->PLAYING. Done by hand here, with the element held
    # in PAUSED: a clock wait on a base time of 0 would be long past, the
    # output time would run ahead, and the first output would swallow the
    # sources' first frames (1 output of 5). No output time moves before
    # PLAYING: 5 in, 5 out.
    p = Gst.parse_launch(
        "rgbdtestsrc is-live=true num-buffers=5 ! video/x-raw,width=160,height=120,framerate=30/1 ! queue ! m.video "
        "rgbdtestsrc is-live=true stream=depth num-buffers=5 ! video/x-raw,width=160,height=120,framerate=30/1 ! "
        "queue ! m.depth depthmatte name=m mode=fixed latency=300000000 ! appsink name=s sync=false")
    m = p.get_by_name("m")
    try:
        assert p.set_state(Gst.State.PAUSED) == Gst.StateChangeReturn.NO_PREROLL
        latency = Gst.Query.new_latency()
        wait_until(lambda: m.get_static_pad("src").query(latency), "a live latency from both sources")
        assert latency.parse_latency()[0]
        m.set_clock(Gst.SystemClock.obtain())
        for _ in range(20):  # each query wakes the aggregator's thread
            m.get_static_pad("src").query(Gst.Query.new_latency())
            time.sleep(0.01)
        p.set_state(Gst.State.PLAYING)
        out = pull_all(p, "s", timeout=5)
    finally:
        p.set_state(Gst.State.NULL)
    pts = [s.get_buffer().pts for s in out]
    assert len(pts) == 5 and len(set(pts)) == 5, pts


def test_no_output_before_the_first_colour_frame():
    # live depth from the start, colour only 0.4 s later (a camera that
    # opens slowly): the aggregator times out meanwhile, and makes no
    # background-only frame; every output shows colour, with rising
    # timestamps (a muxer refuses a repeated one)
    p = Gst.parse_launch(
        "appsrc name=c is-live=true format=time "
        f"caps=video/x-raw,format=RGB,width=160,height=120,framerate=30/1 ! queue ! m.video "
        "rgbdtestsrc is-live=true stream=depth num-buffers=30 ! video/x-raw,width=160,height=120,framerate=30/1 ! "
        "queue ! m.depth depthmatte name=m mode=fixed cutoff=100 output=composite background-color=0xff0000ff ! "
        "video/x-raw,format=RGB ! appsink name=s sync=false")
    src, sink = p.get_by_name("c"), p.get_by_name("s")
    depth_in = []
    p.get_by_name("m").get_static_pad("depth").add_probe(
        Gst.PadProbeType.BUFFER, lambda pad, info: (depth_in.append(1), Gst.PadProbeReturn.OK)[1])
    p.set_state(Gst.State.PLAYING)
    # the colour starts once 12 depth frames (0.4 s) are in depthmatte, its
    # frames stamped from the clock's running time then, 1/30 s apart
    wait_until(lambda: len(depth_in) >= 12, "12 depth frames into depthmatte")
    rt0 = p.get_clock().get_time() - p.get_base_time()
    grey = bytes([128]) * (160 * 120 * 3)
    for k in range(5):
        buf = Gst.Buffer.new_wrapped(grey)
        buf.pts, buf.duration = rt0 + k * Gst.SECOND // 30, Gst.SECOND // 30
        src.emit("push-buffer", buf)
    src.emit("end-of-stream")
    out = []
    for _ in range(1200):  # until EOS (120 s only catch a hang)
        smp = sink.emit("try-pull-sample", Gst.SECOND // 10)
        if smp is None:
            if sink.get_property("eos"):
                break
            continue
        b = smp.get_buffer()
        ok, mi = b.map(Gst.MapFlags.READ)
        px = np.frombuffer(mi.data, np.uint8).reshape(120, 160, 3)
        out.append((b.pts, int((np.abs(px.astype(int) - 128) <= 3).all(axis=2).sum())))
        b.unmap(mi)
    else:
        raise AssertionError("no EOS")
    p.set_state(Gst.State.NULL)
    assert out, "no output"
    pts = [t for t, _ in out]
    assert all(b > a for a, b in zip(pts, pts[1:])), pts
    # the colour is unkeyed (no depth near enough) or keyed, never absent
    assert all(grey_px > 0 for _, grey_px in out), out


@pytest.mark.parametrize("live", [False, True])
def test_the_video_ending_ends_the_output_whatever_else_flows(live):
    # an imagefreeze background never ends on its own: the colour's EOS
    # ends the output (n frames in, n out, then EOS)
    n = 5
    p = Gst.parse_launch(
        f"rgbdtestsrc is-live={str(live).lower()} num-buffers={n} ! video/x-raw,width=160,height=120,framerate=30/1 ! queue ! m.video "
        f"rgbdtestsrc is-live={str(live).lower()} stream=depth num-buffers={n} ! video/x-raw,width=160,height=120,framerate=30/1 ! queue ! m.depth "
        "videotestsrc num-buffers=1 ! video/x-raw,width=160,height=120 ! imagefreeze ! queue ! m.background "
        "depthmatte name=m mode=fixed ! appsink name=s sync=false")
    p.set_state(Gst.State.PLAYING)
    try:
        out = pull_all(p, "s", timeout=10)
        eos = p.get_bus().timed_pop_filtered(5 * Gst.SECOND, Gst.MessageType.EOS | Gst.MessageType.ERROR)
    finally:
        p.set_state(Gst.State.NULL)
    assert eos is not None and eos.type == Gst.MessageType.EOS, "no EOS after the colour ended"
    assert len(out) == n, len(out)
