#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""real-clip.py: sensor-like RGB-D clips from a real colour image and its real
structured-light ground-truth disparity (docs/steady-edges.md).

  Benchmarks/real-clip.py COLOUR.ppm GT.pgm OUTDIR [--motion pan|still] [--seed N]

COLOUR.ppm (P6) and GT.pgm (P5, 8-bit disparity in colour pixels, 0 = unknown)
are the same size (Middlebury 2006 "Aloe", 1282x1110: Benchmarks/real-bench
decodes them with GStreamer's pngdec/jpegdec ! pnmenc). numpy only.

Protocol (what the independent evaluation describes):
- colour: a crop of the real image (1256x720 from x=13, y=280), shifted by a
  sub-pixel pan with linear (bilinear) resampling, plus mild per-frame sensor
  noise (sigma 1 level; --colour-noise);
- truth = coverage: the subject mask at the GT's own resolution
  ("disparity >= cutoff disparity", 1/0) sampled bilinearly at the exact
  sub-pixel position of each colour sample after the colour's own transform
  (the crop and the sub-pixel pan), thresholded at 0.5, 4x4 samples per
  colour pixel. A colour pixel is known only where every bilinear neighbour
  of its 16 samples has a GT reading: unknown GT (0: occlusion and projector
  shadows) is never filled, and the bench leaves those pixels out of every
  metric (known-i.gray);
- depth: a quarter of the colour resolution (314x180), each depth pixel
  SAMPLES the shifted GT at its centre (nearest GT pixel; no averaging, so
  edges step as the grid quantises them), misregistered by 1.5 depth px
  horizontally; unknown GT stays 0 (real shadows come through); foreground
  edges fattened by up to 2 colour px horizontally and 1 vertically; fresh
  per-frame spatially correlated disparity noise (Gaussian-blurred, sigma
  0.2 colour px of disparity = 0.05 sensor px) + white noise (0.05), then
  disparity quantised to 1/8 sensor px (0.5 colour px); a few random holes
  (blobs and single dropouts) per frame; depth = C / disparity with C = 135
  m*px, so the scene lies at 0.68-3 m; GRAY16_LE millimetres, 0 = no reading;
- clips: "pan" (10 frames, +0.7 colour px per frame, starting at 0.3) and
  "still" (10 frames at 0.3: only the noise changes), 30 fps;
- cutoffs: 1.800 m (disparity 75: between the plant and the wall/floor) and
  1.421 m (disparity 95: through the plant, the back leaves fall out).

OUTDIR gets meta.txt ("key value" lines) and per frame i (two digits):
colour-i.rgb (RGB24, width*height*3), depth-i.gray16 (GRAY16_LE mm,
dw*dh*2), truth-cK-i.gray (GRAY8 coverage*255 for cutoff K), known-i.gray
(GRAY8, 255 where the truth is known), and
shadow.gray (GRAY8 at colour resolution, frame 0 of the source: 255 where
the GT is unknown; frame i's is shifted by the pan, see meta 'shift').
"""
import argparse
import os

import numpy as np

C_MPX = 135.0  # depth (m) = C / disparity (colour px)
CUTOFF_DISP = [75.0, 95.0]


def read_pnm(path):
    data = open(path, "rb").read()
    tok, pos = [], 0
    while len(tok) < 4:
        while data[pos:pos + 1].isspace():
            pos += 1
        if data[pos:pos + 1] == b"#":
            while data[pos:pos + 1] != b"\n":
                pos += 1
            continue
        start = pos
        while not data[pos:pos + 1].isspace():
            pos += 1
        tok.append(data[start:pos])
    pos += 1
    w, h, ch = int(tok[1]), int(tok[2]), 3 if tok[0] == b"P6" else 1
    a = np.frombuffer(data, np.uint8, w * h * ch, pos)
    return a.reshape(h, w, ch) if ch == 3 else a.reshape(h, w)


def fill_background(gt):
    """Unknown (0) GT pixels filled with the smaller of the nearest valid
    disparities left and right along the row (the background side)."""
    g = gt.astype(np.float64)
    h, w = g.shape
    valid = g > 0
    idx = np.where(valid, np.arange(w)[None, :], -1)
    left = np.maximum.accumulate(idx, axis=1)
    idx2 = np.where(valid, np.arange(w)[None, :], w)
    right = np.minimum.accumulate(idx2[:, ::-1], axis=1)[:, ::-1]
    rows = np.arange(h)[:, None]
    lv = np.where(left >= 0, g[rows, np.clip(left, 0, w - 1)], np.inf)
    rv = np.where(right < w, g[rows, np.clip(right, 0, w - 1)], np.inf)
    fill = np.minimum(lv, rv)
    fill[~np.isfinite(fill)] = 0
    return np.where(valid, g, fill)


def shift_x(img, x0, y0, w, h, s):
    """img sampled at (x0 + x + s, y0 + y), linear in x (s >= 0)."""
    a = x0 + int(np.floor(s))
    f = s - np.floor(s)
    p = img[y0:y0 + h, a:a + w].astype(np.float64)
    q = img[y0:y0 + h, a + 1:a + 1 + w].astype(np.float64)
    return (1 - f) * p + f * q


def coverage(mask, known, x0, y0, w, h, s, n=4):
    """The truth of a colour crop whose pixel (x, y) shows the source at
    (x0 + x + s, y0 + y): mask (1/0 at GT resolution) sampled bilinearly at
    n x n positions inside each colour pixel, each thresholded at 0.5, and
    averaged; and whether every bilinear neighbour of every sample is known."""
    cov = np.zeros((h, w))
    ok = np.ones((h, w), bool)
    ys, xs = np.arange(h)[:, None], np.arange(w)[None, :]
    offs = (np.arange(n) + 0.5) / n - 0.5
    m = mask.astype(np.float64)
    for oy in offs:
        py = y0 + ys + oy
        iy = np.floor(py).astype(int)
        fy = py - iy
        for ox in offs:
            px = x0 + xs + s + ox
            ix = np.floor(px).astype(int)
            fx = px - ix
            v = ((1 - fy) * ((1 - fx) * m[iy, ix] + fx * m[iy, ix + 1])
                 + fy * ((1 - fx) * m[iy + 1, ix] + fx * m[iy + 1, ix + 1]))
            cov += v >= 0.5
            ok &= known[iy, ix] & known[iy, ix + 1] & known[iy + 1, ix] & known[iy + 1, ix + 1]
    return cov / (n * n), ok


def blur(a, sigma):
    r = int(3 * sigma + 0.5)
    k = np.exp(-np.arange(-r, r + 1) ** 2 / (2 * sigma * sigma))
    k /= k.sum()
    pad = np.pad(a, r, mode="reflect")
    t = sum(k[i] * pad[:, i:i + a.shape[1]] for i in range(2 * r + 1))
    return sum(k[i] * t[i:i + a.shape[0], :] for i in range(2 * r + 1))


def matcher(d, a, rng):
    """Real matcher behaviour at depth edges and shadows (see the docstring):
    near/far flips and dropouts on edge pixels, dropouts next to shadows,
    readings regained inside shadow borders. d: disparity, 0 = unknown."""
    h, w = d.shape
    pad = np.pad(d, 1, mode="edge")
    nb = np.stack([pad[1 + dy:1 + dy + h, 1 + dx:1 + dx + w] for dy in (-1, 0, 1) for dx in (-1, 0, 1)])
    valid = nb > 0
    hi = np.where(valid, nb, -np.inf).max(0)
    lo = np.where(valid, nb, np.inf).min(0)
    anyv = valid.any(0)
    anyz = (~valid).any(0)
    ok = d > 0
    edge = ok & anyv & (hi - lo > a.edge_step)
    u = rng.uniform(size=d.shape)
    other = np.where(hi - d < d - lo, lo, hi)
    out = np.where(edge & (u < a.flip), other, d)
    u = rng.uniform(size=d.shape)
    out = np.where(edge & (u < a.edge_drop), 0, out)
    u = rng.uniform(size=d.shape)
    out = np.where(ok & anyz & (u < a.shadow_drop), 0, out)
    u = rng.uniform(size=d.shape)
    out = np.where(~ok & anyv & (u < a.shadow_regain), np.where(anyv, lo, 0), out)
    return out


def parse_args():
    ap = argparse.ArgumentParser()
    ap.add_argument("colour"); ap.add_argument("gt"); ap.add_argument("out")
    ap.add_argument("--motion", default="pan", choices=["pan", "still", "sway", "panstop"])
    ap.add_argument("--seed", type=int, default=20)
    ap.add_argument("--frames", type=int, default=10)
    ap.add_argument("--step", type=float, default=0.7, help="pan, colour px per frame")
    ap.add_argument("--colour-noise", type=float, default=1.0)
    ap.add_argument("--misreg", type=float, default=1.5, help="depth px, horizontal")
    ap.add_argument("--edge-step", type=float, default=4.0, help="colour px of disparity that make an edge")
    ap.add_argument("--flip", type=float, default=0.3, help="edge pixel reads the other side")
    ap.add_argument("--edge-drop", type=float, default=0.15, help="edge pixel has no reading")
    ap.add_argument("--shadow-drop", type=float, default=0.3, help="pixel next to a shadow has no reading")
    ap.add_argument("--shadow-regain", type=float, default=0.3, help="shadow pixel next to a reading reads")
    ap.add_argument("--sway-amp", type=float, default=1.5, help="sway amplitude, colour px")
    ap.add_argument("--crop", default="13,280,1256,720", help="X0,Y0,W,H of the colour crop (W, H multiples of 4)")
    ap.add_argument("--c-mpx", type=float, default=C_MPX, help="depth (m) = this / disparity (colour px)")
    ap.add_argument("--cutoff-disp", default=",".join(f"{c:g}" for c in CUTOFF_DISP),
                    help="cutoff disparities (colour px), comma-separated")
    ap.add_argument("--name", help="clip name in meta.txt (default: the motion)")
    ap.add_argument("--depth-scale", type=int, default=4, help="colour px per depth px (4: a quarter of the resolution)")
    return ap.parse_args()


def load_gt(path):
    """The GT disparity (colour px, 0 = unknown) as float64: an 8-bit PGM, or
    a float .npz (Middlebury 2014 style: inf / nan = unknown)."""
    if path.endswith(".npz"):
        g = np.load(path)
        g = g[g.files[0]].astype(np.float64)
        return np.where(np.isfinite(g) & (g > 0), g, 0)
    return read_pnm(path).astype(np.float64)


def fatten(gt):
    """Edge fattening: the largest valid disparity within +-2 px in x, +-1 in
    y (only where the GT has a reading: shadows stay shadows)."""
    fat = gt.copy()
    for dy in (-1, 0, 1):
        for dx in (-2, -1, 0, 1, 2):
            fat = np.maximum(fat, np.roll(np.roll(gt, dy, 0), dx, 1))
    return np.where(gt > 0, fat, 0)


def sway_layers(colour, filled, plant, fat):
    """For sway, the plant layer (filled disparity >= the first cutoff)
    moves over a background layer whose plant pixels are filled from the
    background side of the row: that layer's colour and (fattened)
    disparity."""
    H, W = filled.shape
    idx = np.where(~plant, np.arange(W)[None, :], -1)
    left = np.maximum.accumulate(idx, axis=1)
    idx2 = np.where(~plant, np.arange(W)[None, :], W)
    right = np.minimum.accumulate(idx2[:, ::-1], axis=1)[:, ::-1]
    rows = np.arange(H)[:, None]
    lf = np.where(left >= 0, filled[rows, np.clip(left, 0, W - 1)], np.inf)
    rf = np.where(right < W, filled[rows, np.clip(right, 0, W - 1)], np.inf)
    src = np.where(lf <= rf, np.clip(left, 0, W - 1), np.clip(right, 0, W - 1))
    src = np.where(plant, src, np.arange(W)[None, :])
    colour_bg = colour[rows, src]
    fat_bg = np.where(plant, filled[rows, src], fat)
    return colour_bg, fat_bg


def motion_shifts(a):
    """Per frame: the horizontal shift of the scene and of the plant layer
    (colour px; the same list unless the motion is sway)."""
    if a.motion == "sway":
        shifts = [2.3] * a.frames
        plant_shifts = [2.3 + a.sway_amp * np.sin(2 * np.pi * i / 10) for i in range(a.frames)]
    else:
        # panstop: the pan halts for two frame pairs in the middle (frames
        # 4, 5 and 6 at the same place), as a hand-held or servo pan does
        steps = [min(i, 4) + max(i - 6, 0) for i in range(a.frames)] if a.motion == "panstop" else range(a.frames)
        shifts = [0.3 + (a.step * i if a.motion != "still" else 0) for i in steps]
        plant_shifts = shifts
    return shifts, plant_shifts


def render_colour(a, colour, colour_bg, fg, crop, s, sp, rng):
    """One frame's colour (RGB24): the crop at the plant's shift sp, over the
    background layer at the scene's shift s when they differ (sway), plus
    sensor noise."""
    X0, Y0, VW, VH = crop
    col = np.stack([shift_x(colour[:, :, c], X0, Y0, VW, VH, sp) for c in range(3)], axis=2)
    if sp != s:
        mc = shift_x(fg, X0, Y0, VW, VH, sp)[:, :, None]
        bg = np.stack([shift_x(colour_bg[:, :, c], X0, Y0, VW, VH, s) for c in range(3)], axis=2)
        col = mc * col + (1 - mc) * bg
    col += rng.normal(0, a.colour_noise, col.shape)
    return np.clip(np.rint(col), 0, 255).astype(np.uint8)


def write_truth(out, gt, fgs, cutoff_disp, crop, s, sp, i):
    """Frame i's truth-cK-i.gray for every cutoff, and known-i.gray."""
    X0, Y0, VW, VH = crop
    for k, c in enumerate(cutoff_disp):
        if sp == s:
            tr, ok = coverage(gt >= c, gt > 0, X0, Y0, VW, VH, s)
        else:
            # sway: the truth is the plant layer's, at the plant's shift
            tr, ok = coverage(fgs[k], gt > 0, X0, Y0, VW, VH, sp)
        np.clip(np.rint(tr * 255), 0, 255).astype(np.uint8).tofile(os.path.join(out, f"truth-c{k}-{i:02d}.gray"))
        if k == 0:
            (ok.astype(np.uint8) * 255).tofile(os.path.join(out, f"known-{i:02d}.gray"))


def render_depth(a, fat, fat_bg, plant, crop, s, sp, cmpx, rng):
    """One frame's depth (GRAY16_LE mm, 0 = no reading): the GT sampled at
    each depth pixel's centre, then the matcher's edge behaviour, correlated
    and white disparity noise, quantisation and holes."""
    X0, Y0, VW, VH = crop
    S = a.depth_scale
    DW, DH = VW // S, VH // S
    jj, ii = np.meshgrid(np.arange(DH), np.arange(DW), indexing="ij")
    u = np.rint(X0 + s + S * ii + (S - 1) / 2 + S * a.misreg).astype(int)
    v = np.rint(Y0 + S * jj + (S - 1) / 2).astype(int)
    d = fat[v, u]
    if sp != s:
        up = np.rint(X0 + sp + S * ii + (S - 1) / 2 + S * a.misreg).astype(int)
        d = np.where(plant[v, up], fat[v, up], fat_bg[v, u])
    d = matcher(d, a, rng)
    corr = blur(rng.normal(0, 1, (DH, DW)), 1.5)
    corr *= 0.2 / corr.std()
    dn = d + corr + rng.normal(0, 0.05, d.shape)
    dq = np.rint(dn * 2) / 2  # 1/8 sensor px = 0.5 colour px
    ok = (d > 0) & (dq > 0)
    # holes: a few blobs of radius 1-2.5 depth px and 0.3 % dropouts
    for _ in range(6):
        cy, cx, r = rng.uniform(0, DH), rng.uniform(0, DW), rng.uniform(1, 2.5)
        ok &= (jj - cy) ** 2 + (ii - cx) ** 2 > r * r
    ok &= rng.uniform(size=d.shape) > 0.003
    mm = np.where(ok, np.rint(1000 * cmpx / np.where(ok, dq, 1)), 0)
    return np.clip(mm, 0, 65535).astype("<u2")


def write_meta(a, crop, cmpx, cutoff_disp, shifts):
    """meta.txt: the clip's name, sizes, frame count, cutoffs (m) and the
    pan's per-frame shift."""
    VW, VH = crop[2], crop[3]
    DW, DH = VW // a.depth_scale, VH // a.depth_scale
    with open(os.path.join(a.out, "meta.txt"), "w") as m:
        m.write(f"name {a.name or a.motion}\nwidth {VW}\nheight {VH}\ndepth_width {DW}\ndepth_height {DH}\n")
        m.write(f"frames {a.frames}\nfps 30\n")
        m.write("cutoffs " + " ".join(f"{cmpx / c:.4f}" for c in cutoff_disp) + "\n")
        m.write("shift " + " ".join(f"{s:.3f}" for s in shifts) + "\n")


def main():
    a = parse_args()
    cmpx = a.c_mpx
    cutoff_disp = [float(c) for c in a.cutoff_disp.split(",")]
    rng = np.random.default_rng(a.seed)
    colour = read_pnm(a.colour)
    gt = load_gt(a.gt)
    assert colour.shape[:2] == gt.shape
    W = gt.shape[1]
    crop = tuple(int(v) for v in a.crop.split(","))
    X0, Y0, VW, VH = crop
    S = a.depth_scale
    DW, DH = VW // S, VH // S
    filled = fill_background(gt)
    fgs = [(filled >= c).astype(np.float64) for c in cutoff_disp]
    fat = fatten(gt)
    plant = fgs[0] > 0
    colour_bg, fat_bg = sway_layers(colour, filled, plant, fat)
    os.makedirs(a.out, exist_ok=True)
    shifts, plant_shifts = motion_shifts(a)
    assert X0 + max(shifts + plant_shifts) + VW + 1 < W and X0 + S * a.misreg + max(shifts + plant_shifts) + VW < W
    shadow = (gt[Y0:Y0 + VH, X0:X0 + VW] == 0).astype(np.uint8) * 255
    shadow.tofile(os.path.join(a.out, "shadow.gray"))
    # the random draws per frame come in a fixed order (colour noise, then
    # the depth's), so a seed gives the same clip
    for i, (s, sp) in enumerate(zip(shifts, plant_shifts)):
        col = render_colour(a, colour, colour_bg, fgs[0], crop, s, sp, rng)
        col.tofile(os.path.join(a.out, f"colour-{i:02d}.rgb"))
        write_truth(a.out, gt, fgs, cutoff_disp, crop, s, sp, i)
        depth = render_depth(a, fat, fat_bg, plant, crop, s, sp, cmpx, rng)
        depth.tofile(os.path.join(a.out, f"depth-{i:02d}.gray16"))
    write_meta(a, crop, cmpx, cutoff_disp, shifts)
    print(f"real-clip: {a.out}: {a.motion}, {a.frames} frames, colour {VW}x{VH}, depth {DW}x{DH}, "
          f"cutoffs " + ", ".join(f"{cmpx / c:.3f} m" for c in cutoff_disp))


if __name__ == "__main__":
    main()
