#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""rgbd-bench.py: depthmatte on the real RGB-D recordings in ../shared/real-rgbd.

  Benchmarks/rgbd-bench [--clips a,b] [--settings learned,depth,fused,fused-face,depth-face,plain] [--out DIR]

Every clip is keyed by the built plugin (.build/release) and the learned
elements (personmask, mpfacedetect) in real pipelines, read in
place (never copied). Phone portraits are keyed with mode=face (the default),
Kinect clips with mode=nearest, their unregistered depth through
`depthalign` with the clip's corrected calibration (and once more, depth
setting only, with the source's own calibration, to show the Kinect v1
IR/depth offset).

Settings (--settings; default learned,depth,fused,fused-face,depth-face,plain):
  learned     the learned mask alone: mpfacedetect on the colour, personmask
              into m.person, person-prior=alone (depth still linked)
  depth       depth only, the default pipeline without a person pad: the
              stock `facedetect` on the phone portraits, mode=nearest on the
              video clips ("default" names it too)
  fused       the learned pipeline with default properties (person-prior=fuse):
              mpfacedetect instead of the stock facedetect, personmask into
              m.person; mode=nearest on the video clips, as depth
  fused-face  fused with mode=face on the video clips (the lock follows
              mpfacedetect's faces); video clips only (on a phone portrait it
              is fused)
  depth-face  depth only with mode=face and mpfacedetect's faces, no person
              pad: the floor fused-face is held to (the same lock, without
              the model); video clips only
  fused-noface  fused without a face finder (personmask only, the README's
              personmask line): the lock finds the subject from depth and
              the probability
  plain       subject-only=false: everything nearer than the cutoff, the floor
              every smarter rule is held to (stock facedetect, no person pad)
  original    refine=original, the iOS sample's chain (stock facedetect, no
              person pad)
The learned pipeline splits the colour after mpfacedetect (after imagefreeze
on the portraits), so colour, faces and person probability share timestamps:
  ... ! videoconvert ! video/x-raw,format=RGB ! mpfacedetect ! tee name=t !
  queue ! depthmatte name=m ...   t. ! queue ! personmask ! m.person
"person %" is the share of output frames whose `depthmatte` message says the
person probability was used (paired with the colour frame).

Truths (binary, at colour size; 255 = person):
  apple    Apple's portraitEffectsMatte (shu223, the woman, the fidmaa
           selfie): an ML person matte.
  depth<2m the uva clip's own masks: "a reading nearer than 2 m", not a
           person truth; pixels without a reading are unknown and left out
           of every metric (never filled as background).
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
matte must hold still: the sensor noise is all that changes there.

Contact sheets: DIR/<clip>.png, columns colour | truth | each setting (in
--settings order), a row per shown frame; the portraits without a truth have
a black truth cell.

After the tables, a check block (a report, not an assertion): per clip with
a truth, fused (and fused-face) IoU against max(learned, depth) - 0.005; the
mean IoU over those clips of fused and of each of its inputs; and the share
keyed in the empty-room frames (at most 1 %).

Then the floor, frame by frame (with the depth and fused settings): per clip
with a truth, the least of fused - depth IoU over its frames with a person,
and each frame where fused is more than 0.02 below depth only. Those frames
are drawn on the clip's contact sheet besides its `show` frames; every row's
colour cell names its frame, in red with fused - depth where it is below.
"""
import argparse
import json
import os
import re
import struct
import subprocess
import sys
import tempfile

import cv2
import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DATA = os.path.normpath(os.path.join(ROOT, "..", "shared", "real-rgbd"))

# setting -> colour path ("stock": facedetect on the portraits, nothing on the
# video clips; "learned": mpfacedetect, and personmask into m.person; "face":
# mpfacedetect alone),
# depthmatte properties, mode on the video clips
SETTINGS = {
    "learned": dict(path="learned", props="person-prior=alone", video_mode="nearest"),
    "depth": dict(path="stock", props="", video_mode="nearest"),
    "fused": dict(path="learned", props="", video_mode="nearest"),
    "fused-face": dict(path="learned", props="", video_mode="face", video_only=True),
    "depth-face": dict(path="face", props="", video_mode="face", video_only=True),
    "fused-noface": dict(path="person", props="", video_mode="nearest"),
    "plain": dict(path="stock", props="subject-only=false", video_mode="nearest"),
    "original": dict(path="stock", props="refine=original", video_mode="nearest"),
}
ALIASES = {"default": "depth"}
DEFAULT_SETTINGS = "learned,depth,fused,fused-face,depth-face,plain"

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
    if not cv2.imwrite(path, cv2.cvtColor(rgb, cv2.COLOR_RGB2BGR)):
        sys.exit(f"rgbd-bench: cannot write {path}")


PERSON_USED = re.compile(r"\bdepthmatte, .*\bperson=\(boolean\)(true|false)")


def run(pipeline, w, h, n):
    """Runs a gst-launch pipeline whose `SINK` writes RGBA frames; returns the
    frames and how many of them the person probability was used for (from the
    `depthmatte` element messages)."""
    with tempfile.NamedTemporaryFile(prefix="rgbd-bench-", suffix=".rgba") as out:
        pipeline = pipeline.replace("SINK", f"filesink location={out.name}")
        r = subprocess.run(["gst-launch-1.0", "-m"] + pipeline.split(), capture_output=True)
        buf = np.fromfile(out.name, np.uint8)
    frames = buf.size // (w * h * 4)
    if r.returncode != 0 or frames == 0:
        sys.exit(f"rgbd-bench: pipeline failed ({r.returncode}, {frames} frames):\n{pipeline}\n{r.stderr.decode()[-2000:]}")
    used = PERSON_USED.findall(r.stdout.decode(errors="replace"))
    return buf[: frames * w * h * 4].reshape(frames, h, w, 4), used.count("true")


def colour_path(setting, stock):
    """The colour branch from packed RGB (or anything videoconvert takes) to
    m.video, and the person branch: `stock` for the stock face detector's
    place (nothing on the video clips)."""
    if SETTINGS[setting]["path"] == "stock":
        return stock, ""
    if SETTINGS[setting]["path"] == "person":
        return ("videoconvert ! video/x-raw,format=RGB ! tee name=t ! queue !", "t. ! queue ! personmask ! m.person")
    if SETTINGS[setting]["path"] == "face":
        return ("videoconvert ! video/x-raw,format=RGB ! mpfacedetect !", "")
    return ("videoconvert ! video/x-raw,format=RGB ! mpfacedetect ! tee name=t ! queue !",
            "t. ! queue ! personmask ! m.person")


def key_phone(d, setting, frames=6):
    """The last of `frames` keyed copies of the portrait (the temporal state settled);
    the person branch splits after imagefreeze, so it shares the colour's timestamps."""
    w, h, _, _ = png_size(os.path.join(d, "color.png"))
    colour, person = colour_path(setting, "videoconvert ! facedetect display=false ! videoconvert !")
    p = (f"filesrc location={d}/color.png ! pngdec ! imagefreeze num-buffers={frames} ! {colour} "
         f"depthmatte name=m output=alpha {SETTINGS[setting]['props']} ! "
         f"video/x-raw,format=RGBA ! SINK  {person} filesrc location={d}/depth.png ! pngdec ! imagefreeze num-buffers={frames} ! m.depth")
    out, used = run(p, w, h, frames)
    return out[-1], used / len(out)


def key_video(d, clip, setting, calib):
    n = len([f for f in os.listdir(d) if f.startswith("color_")])
    w, h, _, _ = png_size(os.path.join(d, "color_0000.png"))
    align = f"depthalign calibration={d}/{calib} !" if calib else ""
    colour, person = colour_path(setting, "videoconvert !")
    p = (f"multifilesrc location={d}/color_%04d.png index=0 stop-index={n - 1} caps=image/png,framerate=10/1 ! "
         f"pngdec ! {colour} depthmatte name=m mode={SETTINGS[setting]['video_mode']} output=alpha "
         f"{SETTINGS[setting]['props']} ! video/x-raw,format=RGBA ! SINK {person} "
         f"multifilesrc location={d}/depth_%04d.png index=0 stop-index={n - 1} caps=image/png,framerate=10/1 ! "
         f"pngdec ! {align} m.depth")
    out, used = run(p, w, h, n)
    return out, used / len(out)


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


def sheet(path, rows, labels, width=320):
    """rows: list of lists of HxWx3 uint8 pictures, scaled to `width` each,
    under a strip naming the columns."""
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
    head = np.full((24, out[0].shape[1], 3), 255, np.uint8)
    for i, label in enumerate(labels):
        cv2.putText(head, label, (i * (width + 4) + 4, 17), cv2.FONT_HERSHEY_SIMPLEX, 0.5, (0, 0, 0), 1,
                    cv2.LINE_AA)
    write_png(path, np.concatenate([head] + out, axis=0))


def overlay(colour, alpha):
    """The matte's subject in colour over a dark red background."""
    a = alpha.astype(np.float32)[..., None] / 255
    bg = np.array([80, 0, 0], np.float32)
    return (colour * a + bg * (1 - a)).astype(np.uint8)


def fmt(x, p=3):
    return "  -  " if x != x else f"{x:.{p}f}"


NAN = float("nan")
# fused more than this below depth only on a frame is a breach of the floor
FLOOR = 0.02


def bench_phone(name, settings, outdir, table):
    d = os.path.join(DATA, "phone", name)
    colour = decode(os.path.join(d, "color.png"), "RGB")
    has_mask = os.path.exists(os.path.join(d, "mask.png"))
    truth = decode(os.path.join(d, "mask.png"), "GRAY8") >= 128 if has_mask else None
    known = np.ones(colour.shape[:2], bool)
    row = [colour, truth_picture(truth, known) if has_mask else np.zeros_like(colour)]
    shown = [s for s in settings if not SETTINGS[s].get("video_only")]
    for s in shown:
        out, person = key_phone(d, s)
        alpha = out[..., 3]
        row.append(overlay(colour, alpha))
        r = dict(clip=name, truth="apple" if has_mask else "none", setting=s, iou=NAN, sad=NAN,
                 keyed=float(np.mean(alpha >= 128) * 100), person=person * 100)
        if has_mask:
            r["sad"], r["iou"], _ = metrics(alpha, truth, known)
        table.append(r)
    sheet(os.path.join(outdir, name + ".png"), [row], ["colour", "truth"] + shown)


def bench_video(name, settings, outdir, table, calib_override=None, tag=""):
    spec = VIDEO[name]
    d = os.path.join(DATA, "video", name)
    calib = calib_override or spec["calib"]
    n = len([f for f in os.listdir(d) if f.startswith("color_")])
    if spec["truth"] == "mask":
        truths = np.stack([decode(os.path.join(d, f"mask_{i:04d}.png"), "GRAY8") >= 128 for i in range(n)])
        # the masks are "a reading nearer than 2 m": where the frame has no
        # reading (hair, the shadow along the back, 26 % of a frame) the
        # truth is unknown, left out, not background
        knowns = np.stack([decode(os.path.join(d, f"depth_{i:04d}.png"), "GRAY16_LE") > 0 for i in range(n)])
    else:
        depth = registered_depth(d, spec["calib"])
        truths, knowns = derived_truth(depth, spec["empty"], spec["truth"])
    outs, person = {}, {}
    for s in settings:
        outs[s], person[s] = key_video(d, name, s, calib)
    colours = outs[settings[0]][..., :3]
    still = still_pairs(truths, knowns)
    for s in settings:
        alphas = outs[s][..., 3]
        frames = [i for i in range(n) if i not in spec["empty"]]
        ious, sads, recs, per = [], [], [], {}
        for i in frames:
            sad, iou, rec = metrics(alphas[i], truths[i], knowns[i])
            if truths[i].sum() > 0.002 * truths[i].size:
                ious.append(iou)
                sads.append(sad)
                recs.append(rec)
                per[i] = float(iou)
        dt = dtssd(alphas[frames], truths[frames], knowns[frames]) if spec["truth"] != "moving" else NAN
        table.append(dict(
            clip=name + tag, truth={"mask": "depth<2m", "room": "room", "moving": "moving"}[spec["truth"]],
            setting=s, iou=float(np.mean(ious)), worst=min(ious), sad=float(np.mean(sads)),
            recall=float(np.mean(recs)), dtssd=dt, hold=hold_flicker(alphas, truths, knowns, list(range(n))),
            still=still_flicker(alphas, truths, knowns, still), pairs=len(still),
            empty=empty_keyed(alphas, spec["empty"]), person=person[s] * 100, calibrated=not tag,
            frames=per))
    below = {}
    if "depth" in settings and "fused" in settings:
        rd = next(r for r in table if r["clip"] == name + tag and r["setting"] == "depth")
        rf = next(r for r in table if r["clip"] == name + tag and r["setting"] == "fused")
        below = {i: rf["frames"][i] - rd["frames"][i] for i in rf["frames"] if rf["frames"][i] < rd["frames"][i] - FLOOR}
    rows = []
    for i in sorted(set(spec["show"]) | set(below)):
        label = colours[i].copy()
        text, ink = (f"{i}: {below[i]:+.3f}", (255, 40, 40)) if i in below else (f"{i}", (255, 255, 255))
        cv2.putText(label, text, (8, 8 + label.shape[0] // 12), cv2.FONT_HERSHEY_SIMPLEX, label.shape[0] / 400, ink,
                    max(1, label.shape[0] // 240), cv2.LINE_AA)
        row = [label, truth_picture(truths[i], knowns[i])]
        row += [overlay(colours[i], outs[s][i, ..., 3]) for s in settings]
        rows.append(row)
    sheet(os.path.join(outdir, name + tag + ".png"), rows, ["colour", "truth"] + settings, width=240)


def check(phone_rows, video_rows, settings):
    """The fused rows against their inputs (printed; a report, not an assertion)."""
    iou = {}
    for r in phone_rows + video_rows:
        if r["truth"] != "none" and r.get("calibrated", True):
            iou.setdefault(r["clip"], {})[r["setting"]] = r["iou"]
    need = {"learned", "depth", "fused"}
    if not need <= set(settings):
        print(f"\ncheck: needs the settings {', '.join(sorted(need))}")
        return
    fused = [s for s in ("fused", "fused-face") if s in settings]
    print("\ncheck (a report, not an assertion): fused IoU >= max(learned, depth) - 0.005, per clip with a truth")
    print(f"{'clip':28} {'learned':>7} {'depth':>7} {'floor':>7} " + " ".join(f"{s:>16}" for s in fused))
    for clip, v in iou.items():
        floor = max(v["learned"], v["depth"]) - 0.005
        cells = []
        for s in fused:
            # a portrait has no fused-face row: its fused already locks on faces (mode=face)
            x = v.get(s, v["fused"] if clip in PHONE else NAN)
            # fused-face is held to the same lock without the model where that was run
            f = max(v["learned"], v["depth-face"]) - 0.005 if s == "fused-face" and "depth-face" in v else floor
            cells.append(f"{fmt(x)} {'PASS' if x >= f else 'FAIL'}" if x == x else "-")
        print(f"{clip:28} {fmt(v['learned']):>7} {fmt(v['depth']):>7} {fmt(floor):>7} "
              + " ".join(f"{c:>16}" for c in cells))
    # fused over every clip with a truth; fused-face over the video clips (where it differs from fused)
    for s in fused:
        rows = [v for v in iou.values() if s in v]
        if not rows:
            continue
        m = {k: float(np.mean([v[k] for v in rows])) for k in ("learned", "depth", "fused", s)}
        print(f"mean IoU over {len(rows)} clip{'s' if len(rows) != 1 else ''}: {s} {m[s]:.3f}; learned {m['learned']:.3f} "
              f"({s} {m[s] - m['learned']:+.3f}), depth {m['depth']:.3f} ({s} {m[s] - m['depth']:+.3f})"
              + (f", fused {m['fused']:.3f} ({s} {m[s] - m['fused']:+.3f})" if s != "fused" else ""))
    for r in video_rows:
        if r["calibrated"] and r["empty"] == r["empty"]:
            verdict = "PASS" if r["empty"] <= 1.0 else "FAIL"
            judged = r["setting"] in fused
            print(f"empty frames keyed (<= 1 %): {r['clip']} {r['setting']:10} {r['empty']:6.2f} %"
                  + (f"  {verdict}" if judged else ""))


def floor_report(phone_rows, video_rows, settings):
    """Per clip with a truth: the least of fused - depth over its frames, and
    the frames where fused is more than FLOOR below depth only."""
    if not {"depth", "fused"} <= set(settings):
        return
    print(f"\nfloor, frame by frame: the least of fused - depth IoU over each clip's frames, and the frames "
          f"where fused is more than {FLOOR} below depth only")
    print(f"{'clip':44} {'min':>7}  below")
    for name in dict.fromkeys(r["clip"] for r in phone_rows + video_rows):
        rows = {r["setting"]: r for r in phone_rows + video_rows if r["clip"] == name}
        # fused against depth only, and fused-face against depth-face (the same lock) where run
        for fs, ds in (("fused", "depth"), ("fused-face", "depth-face")):
            if ds not in rows or fs not in rows or rows[ds]["iou"] != rows[ds]["iou"]:
                continue
            d = rows[ds].get("frames", {0: rows[ds]["iou"]})
            f = rows[fs].get("frames", {0: rows[fs]["iou"]})
            diff = {i: f[i] - d[i] for i in f if i in d}
            low = [f"{i} ({d[i]:.3f} -> {f[i]:.3f})" for i in sorted(diff) if diff[i] < -FLOOR]
            label = name if fs == "fused" else f"{name} (face)"
            print(f"{label:44} {min(diff.values()):+7.3f}  {', '.join(low) if low else 'none'}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--clips", default="")
    ap.add_argument("--settings", default=DEFAULT_SETTINGS,
                    help=f"comma-separated, of {', '.join(SETTINGS)} (default {DEFAULT_SETTINGS})")
    ap.add_argument("--out", default=os.path.join(ROOT, "Benchmarks", ".build", "rgbd-bench"))
    args = ap.parse_args()
    settings = [ALIASES.get(s, s) for s in args.settings.split(",")]
    unknown = [s for s in settings if s not in SETTINGS]
    if unknown:
        sys.exit(f"rgbd-bench: unknown settings {', '.join(unknown)} (known: {', '.join(SETTINGS)})")
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
                source = ["depth"] if "depth" in settings else settings[:1]
                bench_video(name, source, args.out, video_rows, "calibration.json", " (source calib)")
    print("phone portraits, the last of 6 frozen frames (mode=face; depth, plain, original: stock facedetect; "
          "learned, fused: mpfacedetect + personmask); truth: Apple's person matte")
    print(f"{'clip':28} {'truth':6} {'setting':10} {'IoU':>6} {'SAD':>8} {'keyed %':>8} {'person %':>8}")
    for r in phone_rows:
        print(f"{r['clip']:28} {r['truth']:6} {r['setting']:10} {fmt(r['iou']):>6} {fmt(r['sad'], 2):>8} "
              f"{fmt(r['keyed'], 1):>8} {fmt(r['person'], 0):>8}")
    print()
    print("video clips (mode=nearest but fused-face mode=face; depthalign calibration-corrected.json unless said); "
          "over frames with a person:")
    print(f"{'clip':44} {'truth':8} {'setting':10} {'IoU':>6} {'worst':>6} {'SAD':>7} {'recall':>7} {'dtSSD':>6} "
          f"{'hold':>6} {'still':>6} {'pairs':>5} {'empty %':>7} {'person %':>8}")
    for r in video_rows:
        print(f"{r['clip']:44} {r['truth']:8} {r['setting']:10} {fmt(r['iou']):>6} {fmt(r['worst']):>6} "
              f"{fmt(r['sad'], 2):>7} {fmt(r['recall']):>7} {fmt(r['dtssd'], 2):>6} {fmt(r['hold'], 2):>6} "
              f"{fmt(r['still'], 2):>6} {r['pairs']:>5} {fmt(r['empty'], 2):>7} {fmt(r['person'], 0):>8}")
    print("hold: flicker x 100 over every frame pair, on the pixels known in both whose truth holds within 2 px "
          "(no edge passes near them)")
    print("still: flicker x 100 over the still pairs (the truth changes in < 0.5 % of the picture), "
          "on the pixels whose truth holds; pairs: how many still pairs the clip has")
    print("person %: output frames keyed with a person probability paired (the depthmatte message's person field)")
    check(phone_rows, video_rows, settings)
    floor_report(phone_rows, video_rows, settings)
    print(f"\ncontact sheets: {args.out}/<clip>.png (colour | truth | " + " | ".join(settings) + ")")
    json.dump({"phone": phone_rows, "video": video_rows}, open(os.path.join(args.out, "table.json"), "w"),
              default=float, indent=1)


if __name__ == "__main__":
    main()
