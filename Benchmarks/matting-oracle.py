#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""matting-oracle.py: what a colour matting reaches when it is told where the
true edge is, on the real pans.

  Benchmarks/matting-oracle.py DATA DUMP [clip ...]   (real-bench --diag runs it)

DATA holds the clips made by real-clip.py, DUMP the mattes quality-bench wrote
with QB_DUMPDIR (<clip>-c0-{original,guided}-NN.gray). Needs scipy (a sparse
solve); prints a note and nothing else without it.

For every frame the truth at the first cutoff is made binary at 0.5; pixels
farther than B colour px from its edge are given (1 inside, 0 outside), and
the band between is solved by closed-form matting (Levin, Lischinski and
Weiss 2008: the matting Laplacian of 3x3 windows, eps 1e-7), the reference
colour matting of the field. B = 1 is an edge known to a pixel; a quarter-
resolution depth map locates it to about a depth pixel, B = 4. Scored like
quality-bench's real-clip rows (over the GT-known pixels; dtSSD over pixels
known in both frames, pooled over the frame pairs, so it can differ from
quality-bench's in the third digit; x100, and against the original chain on
the same frames).
The same solve run on a trimap made from the default's own matte shows what
re-matting our edge by colour does.
"""
import importlib.util
import os
import sys

import numpy as np

# the clip's meta.txt and the dumped mattes, read as real-diag.py reads them
_spec = importlib.util.spec_from_file_location("real_diag", os.path.join(os.path.dirname(os.path.abspath(__file__)), "real-diag.py"))
real_diag = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(real_diag)

try:
    from scipy import ndimage, sparse
    from scipy.sparse.linalg import spsolve
except ImportError:
    ndimage = None


def read(path, shape, channels=1):
    a = np.fromfile(path, np.uint8)
    return (a.reshape(shape + (channels,)) if channels > 1 else a.reshape(shape)) / 255.0


def dtssd(A, T, K):
    s = p = 0.0
    for i in range(1, len(A)):
        k = K[i] & K[i - 1]
        q = (A[i] - A[i - 1]) - (T[i] - T[i - 1])
        s += (q[k] ** 2).sum()
        p += k.sum()
    return np.sqrt(s / p) * 100


def scores(A, T, K):
    sad = np.mean([np.abs(a - t)[k].sum() / 1000 for a, t, k in zip(A, T, K)])
    iou = np.mean([((a > .5) & (t > .5) & k).sum() / (((a > .5) | (t > .5)) & k).sum() for a, t, k in zip(A, T, K)])
    return sad, iou, dtssd(A, T, K)


def closed_form(img, given, value, eps=1e-7, lam=100.0):
    """Alpha where `given` is False, by the matting Laplacian of 3x3 windows;
    pixels where it is True are held near `value` with weight lam."""
    h, w, _ = img.shape
    idx = np.arange(h * w).reshape(h, w)
    centres = ndimage.binary_dilation(~given, iterations=1)
    centres[0, :] = centres[-1, :] = centres[:, 0] = centres[:, -1] = False
    ys, xs = np.nonzero(centres)
    win = np.stack([idx[ys + dy, xs + dx] for dy in (-1, 0, 1) for dx in (-1, 0, 1)], 1)
    c = img.reshape(-1, 3)[win]
    d = c - c.mean(1, keepdims=True)
    inv = np.linalg.inv(np.einsum("mki,mkj->mij", d, d) / 9 + eps / 9 * np.eye(3))
    vals = np.eye(9)[None] - (1 + np.einsum("mki,mij,mlj->mkl", d, inv, d)) / 9
    L = sparse.csr_matrix((vals.ravel(), (np.repeat(win, 9, 1).ravel(), np.tile(win, (1, 9)).ravel())),
                          shape=(h * w, h * w))
    used = np.unique(win)
    g = given.ravel()[used]
    M = (L + sparse.diags(given.ravel() * lam))[used][:, used]
    x = spsolve(M.tocsc(), lam * g * value.ravel()[used])
    out = value.astype(np.float64).ravel().copy()
    out[used] = x
    return np.clip(out.reshape(h, w), 0, 1)


def trimap_matte(img, inside, band):
    fg = ndimage.binary_erosion(inside, iterations=band)
    bg = ndimage.binary_erosion(~inside, iterations=band)
    return closed_form(img, fg | bg, fg * 1.0)


def run(data, dump, clip):
    d = os.path.join(data, clip)
    if not os.path.exists(os.path.join(d, "meta.txt")) or not os.path.exists(os.path.join(dump, f"{clip}-c0-guided-00.gray")):
        return
    m = real_diag.meta(d)
    W, H, n = int(m["width"][0]), int(m["height"][0]), int(m["frames"][0])
    T = [read(os.path.join(d, f"truth-c0-{i:02d}.gray"), (H, W)) for i in range(n)]
    K = [read(os.path.join(d, f"known-{i:02d}.gray"), (H, W)) > 0 for i in range(n)]
    C = [read(os.path.join(d, f"colour-{i:02d}.rgb"), (H, W), 3) for i in range(n)]
    rows = [("original chain", real_diag.load_mattes(dump, clip, 0, "original", H, W, n)),
            ("default", real_diag.load_mattes(dump, clip, 0, "guided", H, W, n))]
    for band in (1, 2, 3, 4):
        rows.append((f"closed-form, truth's edge +-{band} px", [trimap_matte(C[i], T[i] > .5, band) for i in range(n)]))
    for band in (2, 4):
        rows.append((f"closed-form, default's edge +-{band} px", [trimap_matte(C[i], rows[1][1][i] > .5, band) for i in range(n)]))
    base = dtssd(rows[0][1], T, K)
    print(f"\n## {clip}, cutoff {m['cutoffs'][0]} m: colour matting told where the edge is")
    print("| matte | SAD | IoU | dtSSD | dtSSD/orig |")
    print("|---|---|---|---|---|")
    for name, A in rows:
        s, i, t = scores(A, T, K)
        print(f"| {name} | {s:.2f} | {i:.4f} | {t:.3f} | {t / base:.2f} |", flush=True)


def main():
    if ndimage is None:
        print("matting-oracle: no scipy (pip install scipy): skipped")
        return
    data, dump = sys.argv[1], sys.argv[2]
    for clip in sys.argv[3:] or ("moto-pan", "moto-fastpan", "pan"):
        run(data, dump, clip)


if __name__ == "__main__":
    main()
