# SPDX-License-Identifier: LGPL-2.1-or-later
"""Synthetic RealSense recordings made at test time (nothing downloaded).

A librealsense `software_device` with a depth and a colour sensor plays a
ray-cast scene into `rs.recorder`, which writes the same kind of recording a
real camera would (`.db3` with librealsense 2.59; older versions wrote `.bag`):
stream profiles with intrinsics, the depth->colour extrinsics, the depth units
option, and frames with their own timestamps.

The scene, in the colour camera's coordinates (metres, x right, y down, z ahead):
  - a wall, the plane z = WALL_Z, textured with grey-blue stripes;
  - a red box in front of it, BOX_SIZE wide/high/deep, front face at BOX_Z, moving
    right by BOX_STEP per frame so every frame differs.
The depth camera sits BASELINE to the side of the colour camera, slightly rotated,
with its own intrinsics and resolution. Depth is rendered by ray-casting the same
scene from the depth camera's pose, so registering depth to colour with the
recorded calibration puts the box exactly where the colour frame shows it.

`make_recording(path)` returns a `Scene` with the ground truth the tests compare
against (intrinsics, extrinsics, per-frame depth in millimetres, per-frame box
masks in the colour frame, timestamps).
"""
from dataclasses import dataclass, field
import math

import numpy as np
import pyrealsense2 as rs


@dataclass(frozen=True)
class Intrinsics:
    width: int
    height: int
    fx: float
    fy: float
    ppx: float
    ppy: float
    model: str = "none"  # "none" | "brown-conrady" | "inverse-brown-conrady"
    coeffs: tuple = (0.0, 0.0, 0.0, 0.0, 0.0)

    def to_rs(self):
        i = rs.intrinsics()
        i.width, i.height = self.width, self.height
        i.fx, i.fy, i.ppx, i.ppy = self.fx, self.fy, self.ppx, self.ppy
        i.model = {"none": rs.distortion.none, "brown-conrady": rs.distortion.brown_conrady,
                   "inverse-brown-conrady": rs.distortion.inverse_brown_conrady}[self.model]
        i.coeffs = list(self.coeffs)
        return i


def rot_y(deg):
    a = math.radians(deg)
    c, s = math.cos(a), math.sin(a)
    return np.array([[c, 0, s], [0, 1, 0], [-s, 0, c]])


def rot_x(deg):
    a = math.radians(deg)
    c, s = math.cos(a), math.sin(a)
    return np.array([[1, 0, 0], [0, c, -s], [0, s, c]])


# Defaults: depth at a lower resolution and a wider field of view than colour.
DEPTH_INTRINSICS = Intrinsics(424, 240, 300.0, 301.0, 210.7, 121.3)
COLOR_INTRINSICS = Intrinsics(640, 360, 460.0, 462.0, 322.5, 178.5)
# p_colour = R @ p_depth + T: the depth camera sits 5 cm to the right of the colour
# camera, turned by 1.5 deg about y and 0.5 deg about x (non-symmetric R, so a
# transposed rotation is wrong by a measurable amount).
DEPTH_TO_COLOR_R = rot_y(1.5) @ rot_x(0.5)
DEPTH_TO_COLOR_T = np.array([0.05, 0.002, -0.001])
DEPTH_SCALE = 0.001  # metres per depth unit (millimetres)
FPS = 30
WALL_Z = 2.0
BOX_Z = 0.85
BOX_SIZE = (0.30, 0.30, 0.20)
BOX_X0, BOX_Y0 = -0.20, -0.12  # left/top edge of the box in frame 0
BOX_STEP = 0.004  # metres to the right per frame
BOX_RGB = (210, 35, 35)
FIRST_TIMESTAMP_MS = 12345.0  # the device clock at the first frame


@dataclass
class Scene:
    path: str
    frames: int
    depth: Intrinsics = DEPTH_INTRINSICS
    color: Intrinsics = COLOR_INTRINSICS
    rotation: np.ndarray = field(default_factory=lambda: DEPTH_TO_COLOR_R.copy())  # row-major 3x3
    translation: np.ndarray = field(default_factory=lambda: DEPTH_TO_COLOR_T.copy())
    depth_scale: float = DEPTH_SCALE
    fps: int = FPS
    timestamps_ms: list = field(default_factory=list, repr=False)  # device timestamps, same for both streams
    depth_mm: list = field(default_factory=list, repr=False)  # per frame (h, w) uint16 as recorded
    box_mask: list = field(default_factory=list, repr=False)  # per frame (h, w) bool in the colour frame
    color_rgb: list = field(default_factory=list, repr=False)  # per frame (h, w, 3) uint8

    def box(self, n):
        x0 = BOX_X0 + BOX_STEP * n
        lo = np.array([x0, BOX_Y0, BOX_Z])
        return lo, lo + np.array(BOX_SIZE)

    def relative_pts_ns(self):
        t0 = self.timestamps_ms[0]
        return [round((t - t0) * 1e6) for t in self.timestamps_ms]


def _rays(intr):
    """Directions (x, y, 1) through every pixel centre, shape (h*w, 3)."""
    u, v = np.meshgrid(np.arange(intr.width) + 0.0, np.arange(intr.height) + 0.0)
    x = (u - intr.ppx) / intr.fx
    y = (v - intr.ppy) / intr.fy
    return np.stack([x, y, np.ones_like(x)], -1).reshape(-1, 3)


def _cast(origin, dirs, lo, hi):
    """Ray parameter t to the nearest surface (box or wall) and whether it is the box."""
    with np.errstate(divide="ignore", invalid="ignore"):
        inv = 1.0 / dirs
        t1 = (lo - origin) * inv
        t2 = (hi - origin) * inv
    tmin = np.nanmax(np.minimum(t1, t2), axis=1)
    tmax = np.nanmin(np.maximum(t1, t2), axis=1)
    hit = (tmax >= np.maximum(tmin, 0.0))
    t_wall = (WALL_Z - origin[2]) / dirs[:, 2]
    t = np.where(hit, tmin, t_wall)
    return t, hit


def render(scene, n):
    """(depth_mm uint16 (dh, dw), colour uint8 (ch, cw, 3), box mask bool (ch, cw)) of frame n."""
    lo, hi = scene.box(n)
    # colour camera: origin 0, identity pose
    c = scene.color
    dirs = _rays(c)
    t, hit = _cast(np.zeros(3), dirs, lo, hi)
    pts = dirs * t[:, None]
    stripes = ((np.floor(pts[:, 0] / 0.1) + np.floor(pts[:, 1] / 0.25)) % 2).astype(np.uint8)
    wall = np.where(stripes[:, None] == 1, [[70, 95, 130]], [[110, 125, 150]])
    rgb = np.where(hit[:, None], [BOX_RGB], wall).astype(np.uint8).reshape(c.height, c.width, 3)
    mask = hit.reshape(c.height, c.width)
    # depth camera: origin T, directions rotated into colour coordinates; the ray
    # parameter along (x, y, 1)_depth is the depth camera's own z.
    d = scene.depth
    ddirs = _rays(d) @ scene.rotation.T
    dt, _ = _cast(scene.translation, ddirs, lo, hi)
    depth = np.round(dt / scene.depth_scale).clip(0, 65535).astype(np.uint16).reshape(d.height, d.width)
    return depth, rgb, mask


def _video_stream(kind, uid, intr, fmt, bpp, fps):
    vs = rs.video_stream()
    vs.type = kind
    vs.index = 0
    vs.uid = uid
    vs.width, vs.height = intr.width, intr.height
    vs.fps = fps
    vs.bpp = bpp
    vs.fmt = fmt
    vs.intrinsics = intr.to_rs()
    return vs


def _software_device(scene):
    """A software device with a depth and a colour sensor carrying the scene's calibration."""
    dev = rs.software_device()
    dev.register_info(rs.camera_info.name, "depthmatte synthetic RGB-D")
    dev.register_info(rs.camera_info.serial_number, "000000000042")
    dsensor = dev.add_sensor("Stereo Module")
    csensor = dev.add_sensor("RGB Camera")
    dsensor.add_read_only_option(rs.option.depth_units, scene.depth_scale)
    dprof = dsensor.add_video_stream(
        _video_stream(rs.stream.depth, 0, scene.depth, rs.format.z16, 2, scene.fps)).as_video_stream_profile()
    cprof = csensor.add_video_stream(
        _video_stream(rs.stream.color, 1, scene.color, rs.format.rgb8, 3, scene.fps)).as_video_stream_profile()
    ext = rs.extrinsics()
    ext.rotation = [float(v) for v in scene.rotation.T.reshape(-1)]  # librealsense: column-major
    ext.translation = [float(v) for v in scene.translation]
    dprof.register_extrinsics_to(cprof, ext)
    dev.create_matcher(rs.matchers.dlr_c)
    return dev, (dsensor, dprof), (csensor, cprof)


def _inject(scene, depth_side, color_side, n, depth, rgb, ts):
    (dsensor, dprof), (csensor, cprof) = depth_side, color_side
    for sensor, prof, data, bpp, w in ((dsensor, dprof, depth, 2, scene.depth.width),
                                       (csensor, cprof, rgb, 3, scene.color.width)):
        f = rs.software_video_frame()
        f.pixels = np.ascontiguousarray(data).view(np.uint8).reshape(-1)
        f.bpp = bpp
        f.stride = w * bpp
        f.timestamp = ts
        f.domain = rs.timestamp_domain.hardware_clock
        f.frame_number = n + 1
        f.profile = prof
        if sensor is dsensor:
            f.depth_units = scene.depth_scale
        sensor.on_video_frame(f)


def make_recording(path, frames=36, scene=None):
    """Write a recording of the synthetic scene to `path`; return its Scene (ground truth).

    librealsense picks the container from its version (2.59: ROS2 `.db3`); give
    `path` the extension it writes (see `recording_suffix()`).
    """
    scene = scene or Scene(path=path, frames=frames)
    scene.path, scene.frames = path, frames
    dev, dside, cside = _software_device(scene)
    (dsensor, dprof), (csensor, cprof) = dside, cside
    recorder = rs.recorder(path, dev)
    sink = rs.syncer(2 * frames + 4)
    dsensor.open(dprof)
    csensor.open(cprof)
    dsensor.start(sink)
    csensor.start(sink)
    for n in range(frames):
        depth, rgb, mask = render(scene, n)
        ts = FIRST_TIMESTAMP_MS + n * 1000.0 / scene.fps
        scene.timestamps_ms.append(ts)
        scene.depth_mm.append(depth)
        scene.box_mask.append(mask)
        scene.color_rgb.append(rgb)
        _inject(scene, dside, cside, n, depth, rgb, ts)
    dsensor.stop()
    csensor.stop()
    dsensor.close()
    csensor.close()
    recorder.pause()
    del recorder
    return scene


_SUFFIX = None


def recording_suffix():
    """The file extension this librealsense's recorder writes: ".db3" (ROS2 sqlite, as 2.59
    does) or ".bag" (ROS1, older versions). Found by asking the recorder once."""
    global _SUFFIX
    if _SUFFIX is None:
        import tempfile
        with tempfile.TemporaryDirectory() as d:
            try:
                r = rs.recorder(d + "/probe.db3", rs.software_device())
                del r
                _SUFFIX = ".db3"
            except RuntimeError:
                _SUFFIX = ".bag"
    return _SUFFIX


if __name__ == "__main__":
    import sys
    s = make_recording(sys.argv[1] if len(sys.argv) > 1 else "/tmp/synthetic" + recording_suffix())
    print(s.path, s.frames, "frames")
