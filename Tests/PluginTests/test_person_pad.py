# SPDX-License-Identifier: LGPL-2.1-or-later
"""depthmatte's person pad: a GRAY8 person probability paired with the colour
by running time, fused with depth (person-prior): negotiated caps, refused
caps, pixels where the probability overrules the depth cut, the probability
alone, the element message's `person` field, and a person stream that ends or
lags leaving the matte to depth with a warning. The last tests run the learned
elements (mpfacedetect, personmask) on a real TrueDepth selfie read in place."""
import os

import numpy as np
import pytest
from gi.repository import Gst

from harness import (SECOND, AppPipeline, appsrc, depth_frame, launch, make_buffer, pixels, pull_all, refused_caps_error,
                     rgb_frame)

W, H = 64, 48            # video
DW, DH = 32, 24          # depth
PW, PH = 40, 40          # person probability (its own size, as a model's)
DUR = SECOND // 30


class PersonKeyer(AppPipeline):
    """appsrc video + depth + person -> depthmatte output=matte -> appsink."""

    def __init__(self, props="", depth=True, person_caps="GRAY8"):
        desc = (f"depthmatte name=m output=matte refine=none {props} ! video/x-raw,format=RGBA ! "
                "appsink name=sink sync=false max-buffers=1000 "
                f"{appsrc('vsrc', 'RGBA', (W, H), '30/1')} ! m.video "
                f"appsrc name=psrc format=time caps=video/x-raw,format={person_caps},width={PW},height={PH},"
                "framerate=30/1 ! m.person ")
        if depth:
            desc += f"{appsrc('dsrc', 'GRAY16_LE', (DW, DH), '30/1')} ! m.depth "
        super().__init__(desc)
        self.m = self.pipeline.get_by_name("m")
        self.vsrc = self.pipeline.get_by_name("vsrc")
        self.dsrc = self.pipeline.get_by_name("dsrc")
        self.psrc = self.pipeline.get_by_name("psrc")
        self.play()

    def push(self, n, depth_m=None, person=None, person_pts=None):
        self.vsrc.emit("push-buffer", make_buffer(rgb_frame("RGBA", W, H, (120, 120, 120)), n * DUR, DUR))
        if depth_m is not None and self.dsrc is not None:
            self.dsrc.emit("push-buffer", make_buffer(depth_frame(DW, DH, depth_m), n * DUR, DUR))
        if person is not None:
            self.psrc.emit("push-buffer", make_buffer(person, n * DUR if person_pts is None else person_pts, DUR))

    def end(self):
        for s in (self.vsrc, self.dsrc, self.psrc):
            if s is not None:
                s.emit("end-of-stream")


def scene():
    """Depth: a subject at 0.8 m in the left third, a pillar at 0.9 m in the
    middle third touching it, the wall at 2 m in the right third; the
    probability covers the subject only (its own 40x40 grid over the whole
    frame)."""
    d = np.full((DH, DW), 2.0)
    d[:, : DW // 3] = 0.8
    d[:, DW // 3: 2 * DW // 3] = 0.9
    p = np.zeros((PH, PW), np.uint8)
    p[:, : PW // 3] = 255
    return d, p


def matte(sample):
    return pixels(sample)[..., 0]


def test_person_pad_takes_gray8_of_any_size():
    templ = Gst.ElementFactory.find("depthmatte").get_static_pad_templates()
    person = [t for t in templ if t.name_template == "person"]
    assert len(person) == 1 and person[0].presence == Gst.PadPresence.REQUEST
    caps = person[0].get_caps()
    assert caps.get_structure(0).get_value("format") == "GRAY8"
    with PersonKeyer("mode=fixed cutoff=1.0") as k:
        d, p = scene()
        k.push(0, d, p)
        k.pull_sample()
        pad = k.m.get_static_pad("person")
        s = pad.get_current_caps().get_structure(0)
        assert (s.get_value("format"), s.get_value("width"), s.get_value("height")) == ("GRAY8", PW, PH)


def test_colour_on_the_person_pad_is_refused_naming_what_it_takes():
    src, err, debug = refused_caps_error(
        "depthmatte name=m ! fakesink "
        f"{appsrc('vsrc', 'RGBA', (W, H), '30/1')} ! m.video "
        f"{appsrc('psrc', 'RGB', (PW, PH), '30/1')} ! m.person", "psrc", PW * PH * 3)
    assert src == "m"
    assert "person" in err.message
    assert "GRAY8" in debug and "RGB" in debug


@pytest.mark.parametrize("prior, pillar", [("fuse", 0), ("ignore", 255)])
def test_the_probability_decides_which_depth_pieces_are_the_person(prior, pillar):
    # mode=fixed at 1 m: the depth cut keys subject and pillar alike, one
    # part of it; the probability sees a person in it, and takes away the
    # pillar's piece, in which it sees none
    with PersonKeyer(f"mode=fixed cutoff=1.0 person-prior={prior}") as k:
        d, p = scene()
        for n in range(3):
            k.push(n, d, p)
        for _ in range(3):
            m = matte(k.pull_sample())
        assert m[H // 2, 4] == 255, "subject"
        assert m[H // 2, W - 4] == 0, "wall"
        assert m[H // 2, W // 2] == pillar, "pillar"
        msgs = k.messages("depthmatte")
        assert msgs and all(s.get_value("person") == (prior == "fuse") for s in msgs)
        # the cut: just behind the subject the fusion kept (0.8 m), or the property's 1 m
        keyed = 0.81 if prior == "fuse" else 1.0
        assert all(s.get_value("keyed-cutoff") == pytest.approx(keyed, abs=0.005) for s in msgs[1:])
        assert all(s.get_value("cutoff") == pytest.approx(1.0) for s in msgs)


def test_the_probability_alone_without_depth():
    # no depth pad: colour and the model key by the probability alone
    with PersonKeyer("", depth=False) as k:
        _, p = scene()
        for n in range(2):
            k.push(n, None, p)
        m = matte(k.pull_sample())
        assert m[H // 2, 4] == 255 and m[H // 2, W - 4] == 0 and m[H // 2, W // 2] == 0
        assert k.messages("depthmatte")[0].get_value("person") is True


def test_a_person_stream_that_ends_leaves_depth_only_with_a_warning():
    with PersonKeyer("mode=fixed cutoff=1.0") as k:
        d, p = scene()
        for n in range(40):
            k.push(n, d, p if n < 3 else None)
            if n == 2:
                k.psrc.emit("end-of-stream")
        k.vsrc.emit("end-of-stream")
        k.dsrc.emit("end-of-stream")
        out = pull_all(k.pipeline, timeout=5)
        assert len(out) == 40, "every colour frame is keyed: nothing freezes"
        assert matte(out[1])[H // 2, W // 2] == 0, "fused: the pillar is out"
        assert matte(out[-1])[H // 2, W // 2] == 255, "depth alone: the plain cut keys the pillar"
        flags, texts = [], []
        while (msg := k.bus.pop()) is not None:
            if msg.type == Gst.MessageType.ELEMENT and msg.get_structure().get_name() == "depthmatte":
                flags.append(msg.get_structure().get_value("person"))
            elif msg.type == Gst.MessageType.WARNING and msg.src.get_name() == "m":
                texts.append(msg.parse_warning()[0].message)
        assert flags[:3] == [True] * 3 and not any(flags[3:])
        assert "The person input ended: keying by depth alone." in texts, texts
        assert len([t for t in texts if "person" in t]) == 1, "warned once"


def test_a_person_frame_of_another_moment_is_not_used():
    # the probability stamped 300 ms after its colour (beyond the pairing
    # tolerance of half a frame + 5 ms): never paired, a warning after 0.5 s
    with PersonKeyer("mode=fixed cutoff=1.0") as k:
        d, p = scene()
        for n in range(30):
            k.push(n, d, p, person_pts=n * DUR + 300 * Gst.MSECOND)
        k.end()
        out = pull_all(k.pipeline, timeout=5)
        assert len(out) == 30
        flags = [s.get_value("person") for s in k.messages("depthmatte")]
        # colour frames from 300 ms on meet the person frames of their own time
        assert not any(flags[:8]) and all(flags[10:]), flags


# ---- the learned elements on a real selfie -------------------------------------

DATA = os.path.normpath(os.path.join(os.path.dirname(__file__), "..", "..", "..", "shared", "real-rgbd"))
SELFIE = os.path.join(DATA, "phone", "fidmaa_selfie_truedepth")


def learned_available():
    return all(Gst.ElementFactory.find(n) is not None for n in ("personmask", "mpfacedetect"))


def key_selfie(props="", learned=True):
    """The selfie (480x640) keyed with output=alpha: the alpha plane."""
    colour = (f"filesrc location={SELFIE}/color.png ! pngdec ! imagefreeze num-buffers=4 ! videoconvert ! "
              "video/x-raw,format=RGB ! ")
    if learned:
        colour += "mpfacedetect ! tee name=t ! queue ! m.video t. ! queue ! personmask ! m.person "
    else:
        colour += "facedetect display=false ! videoconvert ! m.video "
    desc = (f"depthmatte name=m output=alpha {props} ! video/x-raw,format=RGBA ! appsink name=sink sync=false "
            f"{colour} filesrc location={SELFIE}/depth.png ! pngdec ! imagefreeze num-buffers=4 ! m.depth")
    p = launch(desc)
    p.set_state(Gst.State.PLAYING)
    try:
        out = pull_all(p)
    finally:
        p.set_state(Gst.State.NULL)
    assert len(out) == 4
    return pixels(out[-1])[..., 3]


def truth_selfie():
    p = Gst.parse_launch(f"filesrc location={SELFIE}/mask.png ! pngdec ! videoconvert ! video/x-raw,format=GRAY8 ! "
                         "appsink name=sink sync=false")
    p.set_state(Gst.State.PLAYING)
    try:
        out = pull_all(p)
    finally:
        p.set_state(Gst.State.NULL)
    return pixels(out[0])[..., 0] >= 128


def iou(alpha, truth):
    a = alpha >= 128
    return (a & truth).sum() / (a | truth).sum()


@pytest.mark.skipif(not os.path.isdir(SELFIE), reason="../shared/real-rgbd is not beside the clone")
def test_the_learned_pipeline_keeps_the_whole_selfie():
    if not learned_available():
        pytest.fail("personmask/mpfacedetect have no models: scripts/setup installs the LiteRT runtime and models")
    truth = truth_selfie()
    fused = iou(key_selfie(), truth)
    alone = iou(key_selfie("person-prior=alone"), truth)
    plain = iou(key_selfie("subject-only=false", learned=False), truth)
    # Apple's matte: the fused matte at least as good as either input
    assert fused >= 0.98, fused
    assert fused >= alone - 0.005 and fused >= plain - 0.005, (fused, alone, plain)


def test_a_live_person_branch_is_paired_with_its_own_colour_frame():
    # live colour through a tee into personmask: the model's mask of a frame
    # leaves after the frame itself, so personmask adds a frame to the live
    # latency (depthmatte waits that long for it) and nearly every output is
    # keyed with the mask of its own colour frame. The aggregator's own
    # latency (300 ms) is a margin for a busy machine, where a mask can be
    # late by more than its frame; the pairing is what is tested.
    if not learned_available():
        pytest.fail("personmask has no model: scripts/setup installs the LiteRT runtime and models")
    n = 45
    p = launch(
        f"rgbdtestsrc is-live=true num-buffers={n} ! video/x-raw,width=320,height=240,framerate=30/1 ! "
        "videoconvert ! video/x-raw,format=RGB ! tee name=t ! queue ! m.video "
        "t. ! queue name=q ! personmask name=pm ! m.person "
        f"rgbdtestsrc is-live=true stream=depth num-buffers={n} ! video/x-raw,width=320,height=240,framerate=30/1 ! "
        "queue ! m.depth "
        "depthmatte name=m mode=fixed cutoff=1.3 latency=300000000 ! fakesink sync=true")
    bus = p.get_bus()
    p.set_state(Gst.State.PLAYING)
    flags, warnings, latency = [], [], None
    try:
        while (msg := bus.timed_pop(10 * SECOND)) is not None and msg.type != Gst.MessageType.EOS:
            assert msg.type != Gst.MessageType.ERROR, msg.parse_error()
            if msg.type == Gst.MessageType.ELEMENT and msg.get_structure().get_name() == "depthmatte":
                flags.append(msg.get_structure().get_value("person"))
                if latency is None:
                    upstream, own = Gst.Query.new_latency(), Gst.Query.new_latency()
                    assert p.get_by_name("q").get_static_pad("src").query(upstream)
                    assert p.get_by_name("pm").get_static_pad("src").query(own)
                    latency = (upstream.parse_latency(), own.parse_latency())
            elif msg.type == Gst.MessageType.WARNING and msg.src.get_name() == "m":
                warnings.append(msg.parse_warning()[0].message)
    finally:
        p.set_state(Gst.State.NULL)
    (live, lo, _), (own_live, own_lo, _) = latency
    assert live and own_live and own_lo == lo + SECOND // 30, latency
    assert len(flags) >= n - 2
    assert sum(flags[3:]) >= 0.9 * len(flags[3:]), flags
    assert not [w for w in warnings if "person" in w], warnings
