# SPDX-License-Identifier: LGPL-2.1-or-later
"""What realsensesrc's element and its sessions share: librealsense (or why it
could not be imported), the stream formats, the calibration JSON and the
start error."""
import gi

gi.require_version("Gst", "1.0")
from gi.repository import Gst  # noqa: E402

try:
    import pyrealsense2 as rs
    RS_IMPORT_ERROR = None
except Exception as e:  # the element still registers and explains itself at start
    rs = None
    RS_IMPORT_ERROR = e


def format_map():
    if rs is None:
        return {}
    return {rs.format.rgb8: "RGB", rs.format.bgr8: "BGR", rs.format.rgba8: "RGBA",
            rs.format.bgra8: "BGRA", rs.format.yuyv: "YUY2", rs.format.uyvy: "UYVY",
            rs.format.y8: "GRAY8", rs.format.z16: "GRAY16_LE"}


def model_name(model):
    return {rs.distortion.none: "none", rs.distortion.brown_conrady: "brown-conrady",
            rs.distortion.inverse_brown_conrady: "inverse-brown-conrady"}.get(model, str(model).split(".")[-1])


def intrinsics_json(intr):
    return {"width": intr.width, "height": intr.height, "fx": intr.fx, "fy": intr.fy,
            "ppx": intr.ppx, "ppy": intr.ppy, "model": model_name(intr.model),
            "coeffs": [float(c) for c in intr.coeffs]}


def calibration_dict(depth_profile, color_profile, depth_scale):
    """The calibration JSON (see README "RealSense"): rotation row-major, lengths in metres."""
    ext = depth_profile.get_extrinsics_to(color_profile)
    r = list(ext.rotation)  # librealsense: column-major
    row_major = [r[0], r[3], r[6], r[1], r[4], r[7], r[2], r[5], r[8]]
    return {"depth": intrinsics_json(depth_profile.as_video_stream_profile().get_intrinsics()),
            "color": intrinsics_json(color_profile.as_video_stream_profile().get_intrinsics()),
            "depth_to_color": {"rotation": [float(v) for v in row_major],
                               "translation": [float(v) for v in ext.translation]},
            "depth_scale": float(depth_scale)}


def default_stride(fmt, width):
    bpp = {"RGB": 3, "BGR": 3, "RGBA": 4, "BGRA": 4, "YUY2": 2, "UYVY": 2, "GRAY8": 1, "GRAY16_LE": 2}[fmt]
    return bpp, (width * bpp + 3) & ~3


class StartError(Exception):
    """An error to post as a GStreamer element error: (domain quark, code, text, debug)."""

    def __init__(self, code, text, debug=None, domain=None):
        super().__init__(text)
        self.domain = domain if domain is not None else Gst.resource_error_quark()
        self.code, self.text, self.debug = code, text, debug
