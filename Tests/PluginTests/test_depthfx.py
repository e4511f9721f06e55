"""depthmatte's depth encodings (issue 5): depth-kind=disparity and GRAY8
normalised maps on the depth pad give the same matte as GRAY16 millimetres for
the same scene."""
import numpy as np
import pytest
from gi.repository import Gst

from harness import Keyer, SECOND, make_buffer

W, H = 64, 48
DW, DH = 32, 24
FG = (200, 100, 50)


def scene_metres(near=1.0, far=4.0, hole=True):
    """Left half near, right half far, a hole block top-left (0 = no reading)."""
    m = np.full((DH, DW), far)
    m[:, : DW // 2] = near
    if hole:
        m[:4, :4] = 0
    return m


def encode(m, how, scale=0.001, near=1.0, far=4.0):
    if how == "depth":
        return np.round(m / scale).astype("<u2"), "GRAY16_LE"
    if how == "disparity":
        with np.errstate(divide="ignore"):
            d = np.where(m > 0, np.round(1 / np.where(m > 0, m, 1) / scale), 0)
        return d.astype("<u2"), "GRAY16_LE"
    if how == "gray8-depth":       # v = 255 (m - near) / (far - near)
        return np.round(255 * (np.clip(m, near, far) - near) / (far - near)).astype(np.uint8), "GRAY8"
    if how == "gray8-disparity":   # v = 255 (1/m - 1/far) / (1/near - 1/far)
        inv = 1 / np.clip(m, near, far)
        return np.round(255 * (inv - 1 / far) / (1 / near - 1 / far)).astype(np.uint8), "GRAY8"
    raise ValueError(how)


def key(props, raw, fmt, n=2):
    k = Keyer(props, fmt="RGBA", size=(W, H), depth_size=(DW, DH))
    try:
        if fmt != "GRAY16_LE":
            k.dsrc.set_property("caps", Gst.Caps.from_string(
                f"video/x-raw,format={fmt},width={DW},height={DH},framerate=30/1"))
        out = None
        for i in range(n):
            k.push_video(i, FG)
            k.dsrc.emit("push-buffer", make_buffer(raw, i * (SECOND // 30), SECOND // 30))
            out, caps, _ = k.pull()
        return out
    finally:
        k.stop()


BASE = "mode=fixed cutoff=2.0 blur-radius=0 output=matte depth-near=1 depth-far=4"
ENCODINGS = [("depth", ""), ("disparity", "depth-kind=disparity"),
             ("gray8-depth", ""), ("gray8-disparity", "depth-kind=disparity")]


@pytest.mark.parametrize("how,props", ENCODINGS)
def test_every_encoding_gives_the_same_matte(how, props):
    m = scene_metres(hole=not how.startswith("gray8"))
    ref = key(BASE, *encode(m, "depth"))
    got = key(f"{BASE} {props}", *encode(m, how))
    assert np.array_equal(got, ref)
    # and the matte is the scene: near half white, far half black
    assert got[H // 2, 4, 0] == 255 and got[H // 2, W - 4, 0] == 0


def test_gray8_is_accepted_on_the_depth_pad():
    tmpl = Gst.ElementFactory.find("depthmatte").get_static_pad_templates()
    depth = [t for t in tmpl if t.name_template == "depth"][0]
    caps = depth.get_caps().to_string()
    assert "GRAY16_LE" in caps and "GRAY8" in caps


def test_encoding_properties_round_trip():
    m = Gst.ElementFactory.make("depthmatte")
    assert m.get_property("depth-kind") == 0
    m.set_property("depth-kind", "disparity")
    assert m.get_property("depth-kind") == 1
    for name, val, default in (("depth-near", 0.3, 0.5), ("depth-far", 9.0, 5.0)):
        assert m.get_property(name) == pytest.approx(default)
        m.set_property(name, val)
        assert m.get_property(name) == pytest.approx(val)
