#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""The native learned chain against mediapipe on the real frames.

Native: the kit's ModelInputSampler fills the tensor (learned-bench serve), the
pinned LiteRT runtime runs the .tflite model (ai-edge-litert 2.3.0's Python
interpreter), the kit decodes it (BlazeFace.detect / mergeBoth,
PersonProbability.write). Reference: mediapipe 0.10.14 called as the Python
elements call it (gst-python/python/_mediapipe/{mpfacedetect,personmask}.py).

Per frame: faces found by each (short, full, both), box IoU of matched faces,
mask IoU at 0.5 against mediapipe's mask and against Apple's mask.png.

Needs: /usr/bin/python3 with mediapipe 0.10.14 and cv2; ai-edge-litert 2.3.0
importable (pip install --target /tmp/litert-py --no-deps ai-edge-litert==2.3.0
ml_dtypes backports.strenum; then PYTHONPATH=/tmp/litert-py); the benchmarks
built: (cd Benchmarks && swift build -c release --product learned-bench).
Usage: Benchmarks/learned-parity.py [DATA_DIR] (default /work/shared/real-rgbd).
LEARNED_SAMPLER=old|full|new picks the native fill (see learned-bench serve):
the float baseline, the kit's taps reading every pixel, or the kit's default."""
import glob
import os
import subprocess
import sys
import tempfile

import cv2
import numpy as np
import mediapipe as mp
from ai_edge_litert.interpreter import Interpreter

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = sys.argv[1] if len(sys.argv) > 1 else "/work/shared/real-rgbd"
MODELS = os.path.join(os.path.dirname(mp.__file__), "modules")
BENCH = os.path.join(HERE, ".build", "release", "learned-bench")
CONF = 0.5  # the Python element's default min-confidence
DETECT_LONG_SIDE = 384


class Native:
    def __init__(self, tmp):
        self.tmp = tmp
        self.proc = subprocess.Popen([BENCH, "serve"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        self.nets = {}
        for name, path in (("selfie", "selfie_segmentation/selfie_segmentation.tflite"),
                           ("short", "face_detection/face_detection_short_range.tflite"),
                           ("full", "face_detection/face_detection_full_range_sparse.tflite")):
            it = Interpreter(model_path=os.path.join(MODELS, path), num_threads=1)
            it.allocate_tensors()
            self.nets[name] = it

    def ask(self, line):
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()
        return self.proc.stdout.readline().strip()

    def frame(self, rgb):
        self.h, self.w = rgb.shape[:2]
        self.path = os.path.join(self.tmp, "frame.rgb")
        np.ascontiguousarray(rgb).tofile(self.path)

    def fill(self, tw, th, lo, hi, fit):
        out = os.path.join(self.tmp, "tensor.f32")
        box = self.ask(f"fill {self.path} {self.w} {self.h} {self.w * 3} 0 1 2 3 {tw} {th} {lo} {hi} {fit} {out}")
        return np.fromfile(out, np.float32).reshape(1, th, tw, 3), [float(v) for v in box.split()]

    def run(self, name, tensor):
        it = self.nets[name]
        it.set_tensor(it.get_input_details()[0]["index"], tensor)
        it.invoke()
        return [it.get_tensor(d["index"]) for d in it.get_output_details()]

    def faces(self, name):
        side = 128 if name == "short" else 192
        tensor, box = self.fill(side, side, -1, 1, "letterbox")
        reg, sc = self.run(name, tensor)
        rp, sp = os.path.join(self.tmp, "reg.f32"), os.path.join(self.tmp, "sc.f32")
        reg.astype(np.float32).tofile(rp)
        sc.astype(np.float32).tofile(sp)
        return parse(self.ask(f"detect {name} {rp} {sp} {CONF} " + " ".join(map(str, box))))

    def both(self, full, short):
        enc = lambda fs: f"{len(fs)} " + " ".join(" ".join(map(repr, f)) for f in fs)
        return parse(self.ask(f"merge {enc(full)} {enc(short)}"))

    def mask(self, out_w, out_h):
        tensor, _ = self.fill(256, 256, 0, 1, "stretch")
        prob = self.run("selfie", tensor)[0].reshape(256, 256).astype(np.float32)
        pp, mp_ = os.path.join(self.tmp, "prob.f32"), os.path.join(self.tmp, "mask.u8")
        prob.tofile(pp)
        self.ask(f"mask {pp} 256 256 {out_w} {out_h} {mp_}")
        return np.fromfile(mp_, np.uint8).reshape(out_h, out_w), prob


def parse(line):
    v = [float(x) for x in line.split()]
    return [tuple(v[i:i + 5]) for i in range(0, len(v), 5)]


class Reference:
    """mediapipe as the Python elements call it."""

    def __init__(self):
        fd = mp.solutions.face_detection
        self.det = {0: fd.FaceDetection(model_selection=0, min_detection_confidence=CONF),
                    1: fd.FaceDetection(model_selection=1, min_detection_confidence=CONF)}
        self.seg = mp.solutions.selfie_segmentation.SelfieSegmentation(model_selection=0)

    def faces(self, rgb, selection):
        h, w = rgb.shape[:2]
        scale = min(1.0, DETECT_LONG_SIDE / max(w, h))
        small = cv2.resize(rgb, (max(1, round(w * scale)), max(1, round(h * scale))), interpolation=cv2.INTER_AREA)
        out = []
        for d in self.det[selection].process(small).detections or []:
            r = d.location_data.relative_bounding_box
            out.append((r.xmin, r.ymin, r.width, r.height, float(d.score[0])))
        return out

    def mask(self, rgb):
        h, w = rgb.shape[:2]
        if w >= 512 and h >= 512:
            small = cv2.resize(rgb, (512, 512), interpolation=cv2.INTER_LINEAR)
            small = cv2.resize(small, (256, 256), interpolation=cv2.INTER_AREA)
        else:
            small = cv2.resize(rgb, (256, 256), interpolation=cv2.INTER_LINEAR)
        prob = self.seg.process(np.ascontiguousarray(small)).segmentation_mask
        return cv2.convertScaleAbs(prob, alpha=255.0), prob


def python_both(full, short):
    """mpfacedetect.py's `both` rule on fraction boxes (clamped for IoU)."""
    full = [f for f in full]
    keep_short = [s for s in short if s[4] >= 0.8 or any(iou(s, f) > 0.3 for f in full)]
    merged = []
    for b in sorted(full + keep_short, key=lambda b: -b[4]):
        if all(iou(b, m) <= 0.3 for m in merged):
            merged.append(b)
    return merged


def clamp(b):
    x0, y0 = min(max(b[0], 0), 1), min(max(b[1], 0), 1)
    x1, y1 = min(max(b[0] + b[2], 0), 1), min(max(b[1] + b[3], 0), 1)
    return (x0, y0, x1 - x0, y1 - y0)


def iou(a, b):
    a, b = clamp(a), clamp(b)
    ix = max(0, min(a[0] + a[2], b[0] + b[2]) - max(a[0], b[0]))
    iy = max(0, min(a[1] + a[3], b[1] + b[3]) - max(a[1], b[1]))
    inter = ix * iy
    union = a[2] * a[3] + b[2] * b[3] - inter
    return inter / union if union > 0 else 0.0


def match(ours, theirs):
    """Greedy pairs by IoU (best first); returns the IoUs of matched pairs."""
    pairs = sorted(((iou(a, b), i, j) for i, a in enumerate(ours) for j, b in enumerate(theirs)), reverse=True)
    used_a, used_b, out = set(), set(), []
    for v, i, j in pairs:
        if v > 0 and i not in used_a and j not in used_b:
            used_a.add(i); used_b.add(j); out.append(v)
    return out


def mask_iou(a, b):
    a, b = a >= 128, b >= 128
    union = np.logical_or(a, b).sum()
    return np.logical_and(a, b).sum() / union if union else 1.0


def main():
    frames = sorted(glob.glob(os.path.join(DATA, "phone", "*", "color.png"))) + \
        sorted(glob.glob(os.path.join(DATA, "video", "*", "color_*.png")))
    ref = Reference()
    stats = {k: {"ours": 0, "theirs": 0, "frames_ours": 0, "frames_theirs": 0, "ious": [], "dscore": []}
             for k in ("short", "full", "both")}
    masks_mp, masks_apple, masks_apple_mp, prob_err = [], [], [], []
    with tempfile.TemporaryDirectory() as tmp:
        nat = Native(tmp)
        for path in frames:
            bgr = cv2.imread(path, cv2.IMREAD_COLOR)
            rgb = cv2.cvtColor(bgr, cv2.COLOR_BGR2RGB)
            h, w = rgb.shape[:2]
            nat.frame(rgb)
            name = os.path.relpath(path, DATA)
            got = {"short": nat.faces("short"), "full": nat.faces("full")}
            got["both"] = nat.both(got["full"], got["short"])
            want = {"short": ref.faces(rgb, 0), "full": ref.faces(rgb, 1)}
            want["both"] = python_both(want["full"], want["short"])
            line = [name]
            for k in ("short", "full", "both"):
                s = stats[k]
                s["ours"] += len(got[k]); s["theirs"] += len(want[k])
                s["frames_ours"] += bool(got[k]); s["frames_theirs"] += bool(want[k])
                m = match(got[k], want[k])
                s["ious"] += m
                line.append(f"{k} {len(got[k])}/{len(want[k])}" + (f" iou {min(m):.3f}" if m else ""))
            ours_mask, _ = nat.mask(256, 256)
            mp_mask, _ = ref.mask(rgb)
            masks_mp.append(mask_iou(ours_mask, mp_mask))
            line.append(f"mask vs mediapipe {masks_mp[-1]:.4f}")
            apple = os.path.join(os.path.dirname(path), "mask.png")
            if os.path.exists(apple):
                am = cv2.imread(apple, cv2.IMREAD_GRAYSCALE)
                ah, aw = am.shape
                ours_big, _ = nat.mask(aw, ah)
                mp_big = cv2.resize(mp_mask, (aw, ah), interpolation=cv2.INTER_LINEAR)
                masks_apple.append(mask_iou(ours_big, am)); masks_apple_mp.append(mask_iou(mp_big, am))
                line.append(f"vs Apple: native {masks_apple[-1]:.4f} mediapipe {masks_apple_mp[-1]:.4f}")
            print("  ".join(line), flush=True)
        nat.proc.stdin.close()
    print(f"\n{len(frames)} frames")
    for k, s in stats.items():
        ious = np.array(s["ious"])
        q = (f"matched {len(ious)}, IoU median {np.median(ious):.4f} min {ious.min():.4f}, "
             f">=0.9: {(ious >= 0.9).sum()}") if len(ious) else "matched 0"
        print(f"faces {k:5s}: native {s['ours']} boxes in {s['frames_ours']} frames, mediapipe {s['theirs']} "
              f"boxes in {s['frames_theirs']} frames; {q}")
    mm = np.array(masks_mp)
    print(f"mask IoU@0.5 native vs mediapipe: median {np.median(mm):.4f} mean {mm.mean():.4f} min {mm.min():.4f}")
    if masks_apple:
        print("mask IoU@0.5 vs Apple mask.png: native " + " ".join(f"{v:.4f}" for v in masks_apple)
              + " | mediapipe " + " ".join(f"{v:.4f}" for v in masks_apple_mp))


if __name__ == "__main__":
    main()
