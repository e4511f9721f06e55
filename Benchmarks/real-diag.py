#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""real-diag.py: where the matte's errors are on the real clips.

  Benchmarks/real-diag.py DATA DUMP      (Benchmarks/real-bench --diag runs it)

DATA holds the clips made by real-clip.py (pan/, still/, and moto-pan/,
moto-still/ when real-bench made them); DUMP the mattes
quality-bench wrote with QB_DUMPDIR (<clip>-c<K>-<refine>-NN.gray). numpy only.

Every colour pixel of every frame falls in exactly one class (first match):
  shadow  within 3 px of GT-unknown pixels (projector shadows / occlusions:
          the depth has no reading there)
  thin    within 2 px of a foreground part thinner than ~2 depth px (what an
          opening with a radius-4 octagon removes from the truth)
  gap     within 2 px of a background gap thinner than that (between leaves)
  edge    within 2 px of the true edge (elsewhere)
  far     the rest (more than 2 px from any true edge)
and per class: SAD (sum |a - a*| / 1000, mean per frame; "missing" = matte
below the truth, "extra" = above), wrong-side pixels at 0.5, and "off > 0.2"
(frame pairs whose matte change differs from the truth's by more than 0.2).
Edge motion: per row, the matte's and the truth's 0.5 crossings (sub-pixel),
matched within 3 px; offset = matte - truth, and, between frames, how far
each matte crossing moved against the truth's move (the pan moves every edge
by -0.7 px per frame).
Per cutoff, before the classes: IoU over the pixels whose GT is known (the
truth in GT-unknown pixels is this bench's own convention, the row-wise
background fill of real-clip.py), and, on frame 5, how far the truth's and
each matte's 0.5 crossings lie from the strongest colour step within 3 px
(a keyer led by colour cannot sit nearer the truth than the truth sits to
the colour's edges; a crossing that ignores colour scores about 2 px).
Pictures of frame 5 of the pan clips: DUMP/{pan,moto-pan}-c0-frame5-{colour.ppm,
truth.pgm,guided.pgm,original.pgm,error-guided.ppm} (error: red = extra,
cyan = missing, dim yellow = GT unknown).
"""
import os
import sys

import numpy as np


def meta(d):
    m = {}
    for line in open(os.path.join(d, "meta.txt")):
        w = line.split()
        m[w[0]] = w[1:]
    return m


def dil(mask, r, cross_alt=True):
    """Dilation by r steps alternating 3x3 square and cross (an octagon)."""
    m = mask.copy()
    for k in range(r):
        p = np.pad(m, 1)
        out = p[1:-1, 1:-1] | p[:-2, 1:-1] | p[2:, 1:-1] | p[1:-1, :-2] | p[1:-1, 2:]
        if not cross_alt or k % 2 == 0:
            out |= p[:-2, :-2] | p[:-2, 2:] | p[2:, :-2] | p[2:, 2:]
        m = out
    return m


def ero(mask, r):
    return ~dil(~mask, r)


def crossings(a):
    """Per row: (y, x, polarity) of the 0.5 crossings, sub-pixel."""
    lo, hi = a[:, :-1], a[:, 1:]
    s = (lo - 0.5) * (hi - 0.5) < 0
    y, x = np.nonzero(s)
    l, h = lo[y, x], hi[y, x]
    return y, x + (0.5 - l) / (h - l), np.sign(h - l)


def match(y1, x1, p1, y2, x2, p2, want, tol):
    """For each crossing 1, the crossing 2 in the same row and polarity
    nearest to x1 + want (nan if none within tol)."""
    res = np.full(len(x1), np.nan)
    key2 = {}
    for i, (yy, pp) in enumerate(zip(y2, p2)):
        key2.setdefault((yy, pp), []).append(x2[i])
    for i in range(len(x1)):
        c = key2.get((y1[i], p1[i]))
        if c:
            c = np.asarray(c)
            j = np.argmin(np.abs(c - x1[i] - want))
            if abs(c[j] - x1[i] - want) <= tol:
                res[i] = c[j]
    return res


def colour_step_offsets(a, colour):
    """Per row: each 0.5 crossing of `a` against the strongest colour step
    (RGB difference of neighbouring pixels, sub-pixel peak) within 3 px of
    it: (offset step - crossing, step strength)."""
    h, w = a.shape
    g = np.linalg.norm(colour[:, 1:].astype(np.float64) - colour[:, :-1], axis=2) / 255
    y, x, _ = crossings(a)
    offs, strength = np.zeros(len(x)), np.zeros(len(x))
    for i, (yy, xx) in enumerate(zip(y, x)):
        c = int(xx)
        lo, hi = max(0, c - 3), min(w - 2, c + 3)
        seg = g[yy, lo:hi + 1]
        j = int(np.argmax(seg))
        p = lo + j + 0.5
        if 0 < j < len(seg) - 1:
            den = seg[j - 1] - 2 * seg[j] + seg[j + 1]
            if den < 0:
                p += 0.5 * (seg[j - 1] - seg[j + 1]) / den
        offs[i], strength[i] = p - xx, seg[j]
    return offs, strength


def pgm(path, a):
    h, w = a.shape
    open(path, "wb").write(b"P5 %d %d 255\n" % (w, h) + a.astype(np.uint8).tobytes())


def ppm(path, a):
    h, w, _ = a.shape
    open(path, "wb").write(b"P6 %d %d 255\n" % (w, h) + a.astype(np.uint8).tobytes())


CLASSES = ["shadow", "thin", "gap", "edge", "far"]


def read_gray(path, H, W):
    return np.fromfile(path, np.uint8).reshape(H, W)


def load_mattes(dump, clip, k, refine, H, W, n):
    """The dumped mattes of one clip, cutoff and refine mode, 0-1."""
    return [read_gray(os.path.join(dump, f"{clip}-c{k}-{refine}-{i:02d}.gray"), H, W) / 255 for i in range(n)]


def shifted_shadow(shadow0, shifts, i):
    """Frame i's GT-unknown pixels: frame 0's moved by the pan (whole px)."""
    r = int(round(shifts[i] - shifts[0]))
    return np.pad(shadow0, ((0, 0), (0, r)), mode="edge")[:, r:] if r else shadow0


def class_masks(T, shadow0, shifts):
    """Per frame: each pixel's class (an index into CLASSES, first match)."""
    H, W = T[0].shape
    masks = []
    for i in range(len(T)):
        sh = shifted_shadow(shadow0, shifts, i)
        fg = T[i] > 0.5
        edge = fg ^ ero(fg, 1)
        edge |= (T[i] > 0.02) & (T[i] < 0.98)
        opened = dil(ero(fg, 4), 4)
        thin = fg & ~opened
        closed = ero(dil(fg, 4), 4)
        gap = ~fg & closed
        c = np.full((H, W), 4, np.int8)
        c[dil(edge, 2)] = 3
        c[dil(gap, 2) & (c == 3)] = 2
        c[dil(thin, 2)] = 1
        c[dil(sh, 3)] = 0
        masks.append(c)
    return masks


def known_iou_and_colour_steps(d, dump, clip, k, T, shadow0, shifts):
    """Prints each matte's IoU over the GT-known pixels, then where the truth
    and the mattes sit against the picture's own edges: the strongest colour
    step within 3 px of each 0.5 crossing (frame 5). A keyer led by colour
    cannot sit nearer the truth than the truth sits to the colour."""
    n = len(T)
    H, W = T[0].shape
    unknown = [shifted_shadow(shadow0, shifts, i) for i in range(n)]
    col5 = np.fromfile(os.path.join(d, f"colour-{min(5, n - 1):02d}.rgb"), np.uint8).reshape(H, W, 3)
    steps = {"truth": T[min(5, n - 1)]}
    for refine in ("original", "guided"):
        A = load_mattes(dump, clip, k, refine, H, W, n)
        steps[refine] = A[min(5, n - 1)]
        known = np.mean([np.sum((a > 0.5) & (t > 0.5) & ~u) / max(np.sum(((a > 0.5) | (t > 0.5)) & ~u), 1)
                         for a, t, u in zip(A, T, unknown)])
        print(f"  {refine}: IoU over the pixels whose GT is known (GT-unknown pixels left out of both sets): {known:.4f}")
    for name, a in steps.items():
        o, st = colour_step_offsets(a, col5)
        top = st >= np.quantile(st, 0.9) if len(st) else st
        print(f"  {name}: |strongest colour step within 3 px - 0.5 crossing|, frame 5: median {np.median(np.abs(o)):.2f} px "
              f"(the strongest 10 % of steps: {np.median(np.abs(o[top])):.2f} px), mean {o.mean():+.2f} px, {len(o)} crossings")


def class_table(refine, A, T, masks):
    """Prints the per-class table rows of one refine mode; returns its SAD
    per class."""
    n = len(A)
    sad = np.zeros(5); miss = np.zeros(5); extra = np.zeros(5); wrong = np.zeros(5); off = np.zeros(5)
    for i in range(n):
        e = A[i] - T[i]
        c = masks[i]
        for j in range(5):
            s = c == j
            sad[j] += np.abs(e[s]).sum() / 1000 / n
            miss[j] += -e[s][e[s] < 0].sum() / 1000 / n
            extra[j] += e[s][e[s] > 0].sum() / 1000 / n
            wrong[j] += np.sum((A[i][s] > 0.5) != (T[i][s] > 0.5)) / n
            if i > 0:
                q = np.abs((A[i] - A[i - 1]) - (T[i] - T[i - 1])) > 0.2
                # a pixel's class: the worse of the two frames' (smaller index)
                cc = np.minimum(masks[i], masks[i - 1])
                off[j] += np.sum(q & (cc == j)) / (n - 1)
    for j in range(5):
        print(f"| {refine} | {CLASSES[j]} | {sad[j]:.2f} | {miss[j]:.2f} | {extra[j]:.2f} | {wrong[j]:.0f} | {off[j]:.0f} | "
              f"{100 * sad[j] / sad.sum():.0f} % | {100 * off[j] / max(off.sum(), 1):.0f} % |")
    print(f"| {refine} | all | {sad.sum():.2f} | {miss.sum():.2f} | {extra.sum():.2f} | {wrong.sum():.0f} | {off.sum():.0f} | | |")
    return sad


def edge_ramp(refine, A, T, masks, sad):
    """Prints the soft-but-right-side vs wrong-side error in the edge + thin +
    gap classes, the partial-pixel counts, and the SAD of the matte
    thresholded at 0.5."""
    n = len(A)
    soft = right = 0.0
    ramp_a = ramp_t = 0
    for i in range(n):
        s = (masks[i] >= 1) & (masks[i] <= 3)
        e = np.abs(A[i] - T[i])
        ok = (A[i] > 0.5) == (T[i] > 0.5)
        soft += e[s & ok].sum() / 1000 / n; right += e[s & ~ok].sum() / 1000 / n
        ramp_a += np.sum((A[i] > 0.05) & (A[i] < 0.95)); ramp_t += np.sum((T[i] > 0.05) & (T[i] < 0.95))
    binar = np.mean([np.abs((A[i] > 0.5) - T[i]).sum() / 1000 for i in range(n)])
    print(f"  {refine}: near-edge SAD (thin+gap+edge) {soft + right:.2f} = {soft:.2f} on the right side of 0.5 (softness) "
          f"+ {right:.2f} on the wrong side; partial pixels (0.05-0.95) {ramp_a / n:.0f}/frame vs truth {ramp_t / n:.0f}; "
          f"matte thresholded at 0.5: SAD {binar:.2f} (as is {sad.sum():.2f})")


def distance_bands(refine, A, T, masks):
    """Prints the SAD outside the shadow class by distance to the true edge."""
    n = len(A)
    H, W = T[0].shape
    bands = [(0, 2), (3, 4), (5, 8), (9, 16), (17, 10 ** 6)]
    bs = np.zeros(len(bands))
    for i in range(n):
        fg = T[i] > 0.5
        edge = (fg ^ ero(fg, 1)) | ((T[i] > 0.02) & (T[i] < 0.98))
        dist = np.full((H, W), 10 ** 6)
        cur = edge
        for r in range(17):
            dist[cur & (dist > r)] = r
            cur = dil(cur, 1, cross_alt=False)
        e = np.abs(A[i] - T[i]) * (masks[i] != 0)
        for b, (lo, hi) in enumerate(bands):
            bs[b] += e[(dist >= lo) & (dist <= hi)].sum() / 1000 / n
    print(f"  {refine}: SAD outside shadows by distance to the true edge: "
          + ", ".join(f"{lo}-{hi if hi < 10 ** 6 else 'inf'} px {v:.2f}" for (lo, hi), v in zip(bands, bs)))


def edge_motion(refine, A, T, shifts):
    """Prints the edge motion along rows: each matte crossing's offset from
    the true one, and how far it moved between frames against the truth."""
    n = len(A)
    offs, moves = [], []
    prev = None
    for i in range(n):
        ya, xa, pa = crossings(A[i]); yt, xt, pt = crossings(T[i])
        mt = match(yt, xt, pt, ya, xa, pa, 0.0, 3.0)
        ok = ~np.isnan(mt)
        offs.append(mt[ok] - xt[ok])
        if prev is not None:
            py, px, pp = prev
            want = -(shifts[i] - shifts[i - 1])
            nx = match(py, px, pp, ya, xa, pa, want, 2.0)
            ok2 = ~np.isnan(nx)
            moves.append(nx[ok2] - px[ok2] - want)
        prev = (yt[ok], mt[ok], pt[ok])
    o = np.concatenate(offs); mv = np.concatenate(moves) if moves else np.zeros(1)
    step = shifts[1] - shifts[0]
    print(f"  {refine}: row crossings matched to a true edge within 3 px: {len(o) / n:.0f}/frame; offset matte-truth "
          f"mean {o.mean():+.2f} px, |offset| median {np.median(np.abs(o)):.2f}, > 1 px {100 * np.mean(np.abs(o) > 1):.0f} %; "
          f"frame-to-frame move minus the true move ({-step:+.2f} px): rms {np.sqrt(np.mean(mv ** 2)):.2f} px, "
          f"|.| > 0.3 px {100 * np.mean(np.abs(mv) > 0.3):.0f} %, stuck (moved < 0.15 px while the truth moved) "
          f"{100 * np.mean(np.abs(mv - step) < 0.15) if step else 0:.0f} %")


def frame5_pictures(d, dump, clip, T, masks):
    """Writes frame 5's colour, truth, both mattes and the guided matte's
    error picture (red = extra, cyan = missing, dim yellow = GT unknown)."""
    H, W = T[0].shape
    i = 5
    col = np.fromfile(os.path.join(d, f"colour-{i:02d}.rgb"), np.uint8).reshape(H, W, 3)
    ppm(os.path.join(dump, f"{clip}-c0-frame5-colour.ppm"), col)
    pgm(os.path.join(dump, f"{clip}-c0-frame5-truth.pgm"), np.rint(T[i] * 255))
    for refine in ("original", "guided"):
        a = read_gray(os.path.join(dump, f"{clip}-c0-{refine}-{i:02d}.gray"), H, W)
        pgm(os.path.join(dump, f"{clip}-c0-frame5-{refine}.pgm"), a)
    a = read_gray(os.path.join(dump, f"{clip}-c0-guided-{i:02d}.gray"), H, W) / 255
    e = a - T[i]
    img = (col * 0.25).astype(np.float64)
    img[masks[i] == 0] += [40, 40, 0]
    img[..., 0] += 255 * np.clip(e, 0, 1)
    img[..., 1] += 255 * np.clip(-e, 0, 1); img[..., 2] += 255 * np.clip(-e, 0, 1)
    ppm(os.path.join(dump, f"{clip}-c0-frame5-error-guided.ppm"), np.clip(img, 0, 255))
    print(f"  pictures: {dump}/{clip}-c0-frame5-*.p?m")


def diagnose_cutoff(d, dump, clip, k, cutoff, m):
    """Every report for one clip (its directory d and meta m) at cutoff k."""
    W, H, n = int(m["width"][0]), int(m["height"][0]), int(m["frames"][0])
    shifts = [float(s) for s in m["shift"]]
    shadow0 = read_gray(os.path.join(d, "shadow.gray"), H, W) > 0
    print(f"\n## {clip}, cutoff {cutoff} m")
    T = [read_gray(os.path.join(d, f"truth-c{k}-{i:02d}.gray"), H, W) / 255 for i in range(n)]
    masks = class_masks(T, shadow0, shifts)
    cnt = np.mean([[np.sum(c == j) for j in range(5)] for c in masks], axis=0)
    print("class pixels/frame: " + ", ".join(f"{CLASSES[j]} {cnt[j]:.0f}" for j in range(5)))
    known_iou_and_colour_steps(d, dump, clip, k, T, shadow0, shifts)
    print("| refine | class | SAD | missing | extra | wrong side at 0.5 | off > 0.2 per pair | share of SAD | share of off |")
    print("|---|---|---|---|---|---|---|---|---|")
    for refine in ("original", "guided"):
        A = load_mattes(dump, clip, k, refine, H, W, n)
        sad = class_table(refine, A, T, masks)
        edge_ramp(refine, A, T, masks, sad)
        distance_bands(refine, A, T, masks)
        edge_motion(refine, A, T, shifts)
    if clip in ("pan", "moto-pan") and k == 0:
        frame5_pictures(d, dump, clip, T, masks)


def main():
    data, dump = sys.argv[1], sys.argv[2]
    for clip in ("pan", "still", "moto-pan", "moto-still"):
        d = os.path.join(data, clip)
        if not os.path.exists(os.path.join(d, "meta.txt")) or not os.path.exists(os.path.join(dump, f"{clip}-c0-guided-00.gray")):
            continue
        m = meta(d)
        for k, cutoff in enumerate(m["cutoffs"]):
            diagnose_cutoff(d, dump, clip, k, cutoff, m)


if __name__ == "__main__":
    main()
