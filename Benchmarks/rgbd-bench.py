#!/usr/bin/python3
"""rgbd-bench.py: depthmatte on the real RGB-D recordings in ../shared/real-rgbd.

  Benchmarks/rgbd-bench [--clips a,b] [--settings default,plain] [--out DIR]

Every clip is keyed by the built plugin (.build/release) in real pipelines,
read in place (never copied). Phone portraits go through the stock
`facedetect` (mode=face); Kinect clips use mode=nearest, their unregistered
depth through `depthalign` with the clip's corrected calibration (and once
more with the source's own calibration, to show the Kinect v1 IR/depth offset).

Settings: default; plain (subject-only=false: everything nearer than the
cutoff, the floor every smarter rule is held to); original (refine=original,
the iOS sample's chain).

Truths (binary, at colour size; 255 = person):
  apple    Apple's portraitEffectsMatte (shu223, the woman): an ML person matte.
  depth<2m the uva clip's own masks: "depth < 2 m", not a person truth.
  room     where the clip has empty frames (piv_lab_people_walk 0-8, 34-35):
           registered depth nearer than the empty room's (per-pixel median of
           the empty frames) by more than 0.15 m + 4 %; pixels without a
           reading in the frame or in the room are unknown and left out of
           every metric (never filled).
  moving   where the clip has no empty frames (walk_and_seated, office):
           nearer than the farthest reading each pixel had over the clip, by
           the same margin: the people who move, not those who sit still the
           whole clip. Those who sit still count as background, so IoU here
           also charges a setting for keying them (the plain cut does);
           recall (share of the mover keyed) charges only for losing him.
IoU and SAD (sum |a - t| / 1000, per frame) over known pixels; dtSSD x 100
(pixels known in both frames); hold = mean |a_t - a_t-1| x 100 over every
frame pair, on the pixels known in both whose truth holds within 2 px (no
edge passes near them: the matte should hold there too); still flicker = mean |a_t - a_t-1| x 100 over
the still stretches: the frame pairs whose truth changes in under 0.5 % of
the pixels known in both (an empty room, a person holding still), over the
pixels whose truth does not change. An empty room's or a still person's
matte must hold still: the sensor noise is all that changes there. Contact sheets: DIR/<clip>.png, columns colour |
truth | default | plain | original, a row per shown frame.
"""
import argparse
import json
import os
import struct
import subprocess
import sys
import zlib

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DATA = os.path.normpath(os.path.join(ROOT, "..", "shared", "real-rgbd"))

SETTINGS = {
    "default": "",
    "plain": "subject-only=false",
    "original": "refine=original",
}

# clip -> (kind, mode, empty frames, frames shown on the contact sheet)
VIDEO = {
    "uva_cv2_person_turn": dict(calib=None, empty=[], truth="mask", show=[0, 8, 16, 24, 33]),
    "piv_lab_people_walk": dict(calib="calibration-corrected.json", empty=list(range(0, 9)) + [34, 35],
                                truth="room", show=[4, 10, 16, 24, 30]),
    "piv_lab_walk_and_seated": dict(calib="calibration-corrected.json", empty=[], truth="moving",
                                    show=[2, 8, 16, 24, 32]),
    "piv_office_seated_cam1": dict(calib="calibration-corrected.json", empty=[], truth="moving",
                                   show=[0, 12, 14, 15, 16]),
}
PHONE = ["shu223_man_matte", "mpfextractor_woman_xsmax", "fidmaa_selfie_truedepth", "tomhodson_face_13mini",
         "juniorxsound_bike_x"]


def png_size(path):
    with open(path, "rb") as f:
        head = f.read(33)
    w, h, depth, ctype = struct.unpack(">IIBB", head[16:26])
    return w, h, depth, ctype


def decode(path, fmt):
    """PNG -> numpy through GStreamer's own decoder (RGB, GRAY8 or GRAY16_LE)."""
    w, h, _, _ = png_size(path)
    out = subprocess.run(
        ["gst-launch-1.0", "-q", "filesrc", f"location={path}", "!", "pngdec", "!", "videoconvert", "!",
         f"video/x-raw,format={fmt}", "!", "fdsink", "fd=1"], check=True, capture_output=True).stdout
    if fmt == "RGB":
        return np.frombuffer(out, np.uint8)[: w * h * 3].reshape(h, w, 3)
    if fmt == "GRAY8":
        return np.frombuffer(out, np.uint8)[: w * h].reshape(h, w)
    return np.frombuffer(out, "<u2")[: w * h].reshape(h, w)


def write_png(path, rgb):
    h, w, _ = rgb.shape
    raw = b"".join(b"\x00" + rgb[y].tobytes() for y in range(h))

    def chunk(tag, data):
        c = tag + data
        return struct.pack(">I", len(data)) + c + struct.pack(">I", zlib.crc32(c) & 0xFFFFFFFF)

    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
                + chunk(b"IDAT", zlib.compress(raw, 6)) + chunk(b"IEND", b""))


def run(pipeline, w, h, n):
    """Runs a gst-launch pipeline that writes RGBA frames to stdout (fdsink fd=1)."""
    r = subprocess.run(["gst-launch-1.0", "-q"] + pipeline.split(),
                       capture_output=True)
    buf = np.frombuffer(r.stdout, np.uint8)
    frames = buf.size // (w * h * 4)
    if r.returncode != 0 or frames == 0:
        sys.exit(f"rgbd-bench: pipeline failed ({r.returncode}, {frames} frames):\n{pipeline}\n{r.stderr.decode()[-2000:]}")
    return buf[: frames * w * h * 4].reshape(frames, h, w, 4)


def key_phone(d, setting, frames=6):
    w, h, _, _ = png_size(os.path.join(d, "color.png"))
    p = (f"filesrc location={d}/color.png ! pngdec ! imagefreeze num-buffers={frames} ! videoconvert ! "
         f"facedetect display=false ! videoconvert ! depthmatte name=m output=alpha {SETTINGS[setting]} ! "
         f"video/x-raw,format=RGBA ! fdsink fd=1  filesrc location={d}/depth.png ! pngdec ! imagefreeze num-buffers={frames} ! m.depth")
    return run(p, w, h, frames)[-1]


def key_video(d, clip, setting, calib):
    n = len([f for f in os.listdir(d) if f.startswith("color_")])
    w, h, _, _ = png_size(os.path.join(d, "color_0000.png"))
    align = f"depthalign calibration={d}/{calib} !" if calib else ""
    p = (f"multifilesrc location={d}/color_%04d.png index=0 stop-index={n - 1} caps=image/png,framerate=10/1 ! "
         f"pngdec ! videoconvert ! depthmatte name=m mode=nearest output=alpha {SETTINGS[setting]} ! video/x-raw,format=RGBA ! fdsink fd=1 "
         f"multifilesrc location={d}/depth_%04d.png index=0 stop-index={n - 1} caps=image/png,framerate=10/1 ! "
         f"pngdec ! {align} m.depth")
    return run(p, w, h, n)


def registered_depth(d, calib):
    """The clip's depth as depthmatte sees it: through depthalign where unregistered."""
    n = len([f for f in os.listdir(d) if f.startswith("depth_")])
    w, h, _, _ = png_size(os.path.join(d, "color_0000.png"))
    align = f"! depthalign calibration={d}/{calib}" if calib else "! videoconvert ! video/x-raw,format=GRAY16_LE"
    cmd = (f"multifilesrc location={d}/depth_%04d.png index=0 stop-index={n - 1} caps=image/png,framerate=10/1 ! "
           f"pngdec {align} ! fdsink fd=1")
    out = subprocess.run(["gst-launch-1.0", "-q"] + cmd.split(), check=True, capture_output=True).stdout
    return np.frombuffer(out, "<u2")[: n * w * h].reshape(n, h, w).astype(np.float32) / 1000.0


def margin(bg):
    return 0.15 + 0.04 * bg


def derived_truth(depth, empty, kind):
    """(truth bool, known bool) per frame from the registered depth."""
    valid = depth > 0
    if kind == "room":
        stack = np.where(valid[empty], depth[empty], np.nan)
        bg = np.nanmedian(stack, axis=0)
    else:
        bg = np.where(valid, depth, 0).max(axis=0)
        bg = np.where(bg > 0, bg, np.nan)
    bgok = np.isfinite(bg)
    bgv = np.nan_to_num(bg)
    truth = valid & bgok & (depth < bgv - margin(bgv))
    known = valid & bgok
    return truth, known


def metrics(alpha, truth, known):
    a = alpha.astype(np.float32) / 255.0
    t = truth.astype(np.float32)
    k = known
    sad = np.abs(a - t)[k].sum() / 1000.0
    am = (a >= 0.5) & k
    tm = truth & k
    union = (am | tm).sum()
    iou = (am & tm).sum() / union if union else 1.0
    recall = (am & tm).sum() / tm.sum() if tm.sum() else float("nan")
    return sad, iou, recall


def dtssd(alphas, truths, knowns):
    vals = []
    for i in range(1, len(alphas)):
        k = knowns[i] & knowns[i - 1]
        if not k.any():
            continue
        da = (alphas[i].astype(np.float32) - alphas[i - 1]) / 255.0
        dt = truths[i].astype(np.float32) - truths[i - 1]
        vals.append(np.sqrt(np.mean((da - dt)[k] ** 2)) * 100)
    return float(np.mean(vals)) if vals else float("nan")


def still_pairs(truths, knowns):
    """Frames f whose pair (f - 1, f) is still: the truth changes in under
    0.5 % of the pixels known in both."""
    out = []
    for f in range(1, len(truths)):
        k = knowns[f] & knowns[f - 1]
        if k.sum() and ((truths[f] != truths[f - 1]) & k).sum() < 0.005 * k.sum():
            out.append(f)
    return out


def still_flicker(alphas, truths, knowns, pairs):
    """Mean |a_t - a_t-1| x 100 over the still pairs, on the pixels known in
    both frames whose truth does not change."""
    vals = []
    for f in pairs:
        k = knowns[f] & knowns[f - 1] & (truths[f] == truths[f - 1])
        if k.any():
            vals.append(np.mean(np.abs(alphas[f].astype(np.float32) - alphas[f - 1])[k]) / 255 * 100)
    return float(np.mean(vals)) if vals else float("nan")


def held(truths, knowns, f, r=2):
    """Pixels of pair (f - 1, f) known in both frames whose truth holds in
    their whole (2r+1) x (2r+1) neighbourhood: no edge passes near them, so
    their matte should hold too."""
    change = (truths[f] != truths[f - 1]) | ~knowns[f] | ~knowns[f - 1]
    h, w = change.shape
    pad = np.pad(change, r, constant_values=True)
    near = np.zeros_like(change)
    for dy in range(2 * r + 1):
        for dx in range(2 * r + 1):
            near |= pad[dy:dy + h, dx:dx + w]
    return ~near


def hold_flicker(alphas, truths, knowns, frames):
    """Mean |a_t - a_t-1| x 100 over every pair of `frames` (consecutive
    frames only), on the pixels `held` keeps."""
    vals = []
    for f in frames:
        if f - 1 in frames:
            k = held(truths, knowns, f)
            if k.any():
                vals.append(np.mean(np.abs(alphas[f].astype(np.float32) - alphas[f - 1])[k]) / 255 * 100)
    return float(np.mean(vals)) if vals else float("nan")


def empty_keyed(alphas, frames):
    """Share of the picture keyed (%) in the empty-room frames."""
    return float(np.mean([np.mean(alphas[f] >= 128) * 100 for f in frames])) if frames else float("nan")


def grey(a):
    return np.repeat(a[..., None], 3, axis=2)


def truth_picture(truth, known):
    p = grey(np.where(truth, 255, 0).astype(np.uint8))
    p[~known] = (90, 90, 40)
    return p


def sheet(path, rows, width=320):
    """rows: list of lists of HxWx3 uint8 pictures, scaled to `width` each."""
    out = []
    for row in rows:
        cells = []
        for pic in row:
            h, w, _ = pic.shape
            nh = max(1, round(h * width / w))
            ys = (np.arange(nh) * h / nh).astype(int)
            xs = (np.arange(width) * w / width).astype(int)
            cells.append(pic[ys][:, xs])
            cells.append(np.full((nh, 4, 3), 255, np.uint8))
        out.append(np.concatenate(cells, axis=1))
        out.append(np.full((4, out[-1].shape[1], 3), 255, np.uint8))
    write_png(path, np.concatenate(out, axis=0))


def overlay(colour, alpha):
    """The matte's subject in colour over a dark red background."""
    a = alpha.astype(np.float32)[..., None] / 255
    bg = np.array([80, 0, 0], np.float32)
    return (colour * a + bg * (1 - a)).astype(np.uint8)


def fmt(x, p=3):
    return "  -  " if x != x else f"{x:.{p}f}"


def bench_phone(name, settings, outdir, table):
    d = os.path.join(DATA, "phone", name)
    colour = decode(os.path.join(d, "color.png"), "RGB")
    has_mask = os.path.exists(os.path.join(d, "mask.png"))
    truth = decode(os.path.join(d, "mask.png"), "GRAY8") >= 128 if has_mask else None
    known = np.ones(colour.shape[:2], bool)
    row = [colour, truth_picture(truth, known) if has_mask else np.zeros_like(colour)]
    for s in settings:
        alpha = key_phone(d, s)[..., 3]
        row.append(overlay(colour, alpha))
        if has_mask:
            sad, iou, _ = metrics(alpha, truth, known)
            table.append((name, "apple", s, iou, sad, float("nan"), float("nan"), float("nan")))
        else:
            table.append((name, "none", s, float("nan"), float("nan"), float("nan"), float("nan"),
                          float(np.mean(alpha >= 128) * 100)))
    sheet(os.path.join(outdir, name + ".png"), [row])


def bench_video(name, settings, outdir, table, calib_override=None, tag=""):
    spec = VIDEO[name]
    d = os.path.join(DATA, "video", name)
    calib = calib_override or spec["calib"]
    n = len([f for f in os.listdir(d) if f.startswith("color_")])
    if spec["truth"] == "mask":
        truths = np.stack([decode(os.path.join(d, f"mask_{i:04d}.png"), "GRAY8") >= 128 for i in range(n)])
        knowns = np.ones_like(truths)
    else:
        depth = registered_depth(d, spec["calib"])
        truths, knowns = derived_truth(depth, spec["empty"], spec["truth"])
    outs = {s: key_video(d, name, s, calib) for s in settings}
    colours = outs[settings[0]][..., :3]
    still = still_pairs(truths, knowns)
    for s in settings:
        alphas = outs[s][..., 3]
        frames = [i for i in range(n) if i not in spec["empty"]]
        ious, sads, recs = [], [], []
        for i in frames:
            sad, iou, rec = metrics(alphas[i], truths[i], knowns[i])
            if truths[i].sum() > 0.002 * truths[i].size:
                ious.append(iou)
                sads.append(sad)
                recs.append(rec)
        fl, keyed = still_flicker(alphas, truths, knowns, still), empty_keyed(alphas, spec["empty"])
        hold = hold_flicker(alphas, truths, knowns, list(range(n)))
        dt = dtssd(alphas[frames], truths[frames], knowns[frames]) if spec["truth"] != "moving" else float("nan")
        kind = {"mask": "depth<2m", "room": "room", "moving": "moving"}[spec["truth"]]
        table.append((name + tag, kind, s, float(np.mean(ious)), float(np.mean(sads)), float(np.mean(recs)),
                      min(ious), float("nan"), dt, fl, keyed, len(still), hold))
    rows = []
    for i in spec["show"]:
        row = [colours[i], truth_picture(truths[i], knowns[i])]
        row += [overlay(colours[i], outs[s][i, ..., 3]) for s in settings]
        rows.append(row)
    sheet(os.path.join(outdir, name + tag + ".png"), rows, width=240)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--clips", default="")
    ap.add_argument("--settings", default="default,plain,original")
    ap.add_argument("--out", default=os.path.join(ROOT, "Benchmarks", ".build", "rgbd-bench"))
    args = ap.parse_args()
    settings = args.settings.split(",")
    os.makedirs(args.out, exist_ok=True)
    want = set(args.clips.split(",")) if args.clips else None
    phone_rows, video_rows = [], []
    for name in PHONE:
        if want is None or name in want:
            bench_phone(name, settings, args.out, phone_rows)
    for name in VIDEO:
        if want is None or name in want:
            bench_video(name, settings, args.out, video_rows)
            if VIDEO[name]["calib"]:
                bench_video(name, settings[:1], args.out, video_rows, "calibration.json", " (source calib)")
    print("phone portraits, one frame (mode=face, stock facedetect); truth: Apple's person matte")
    print(f"{'clip':28} {'truth':6} {'setting':9} {'IoU':>6} {'SAD':>8} {'keyed %':>8}")
    for r in phone_rows:
        print(f"{r[0]:28} {r[1]:6} {r[2]:9} {fmt(r[3]):>6} {fmt(r[4], 2):>8} {fmt(r[7], 1):>8}")
    print()
    print("video clips (mode=nearest, depthalign calibration-corrected.json unless said); over frames with a person:")
    print(f"{'clip':44} {'truth':8} {'setting':9} {'IoU':>6} {'worst':>6} {'SAD':>7} {'recall':>7} {'dtSSD':>6} "
          f"{'hold':>6} {'still':>6} {'pairs':>5} {'empty %':>7}")
    for r in video_rows:
        print(f"{r[0]:44} {r[1]:8} {r[2]:9} {fmt(r[3]):>6} {fmt(r[6]):>6} {fmt(r[4], 2):>7} {fmt(r[5]):>7} "
              f"{fmt(r[8], 2):>6} {fmt(r[12], 2):>6} {fmt(r[9], 2):>6} {r[11]:>5} {fmt(r[10], 2):>7}")
    print("hold: flicker x 100 over every frame pair, on the pixels known in both whose truth holds within 2 px "
          "(no edge passes near them)")
    print("still: flicker x 100 over the still pairs (the truth changes in < 0.5 % of the picture), "
          "on the pixels whose truth holds; pairs: how many still pairs the clip has")
    print(f"\ncontact sheets: {args.out}/<clip>.png (colour | truth | " + " | ".join(settings) + ")")
    json.dump({"phone": phone_rows, "video": video_rows}, open(os.path.join(args.out, "table.json"), "w"), default=float)


if __name__ == "__main__":
    main()
