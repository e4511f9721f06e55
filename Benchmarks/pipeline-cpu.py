#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Pipeline CPU per 1080p frame of two depthmatte builds, interleaved in one run,
against the stock chroma key (marginal: a 200-frame run less a 40-frame run; ROUNDS rounds, 4 by default).

  Benchmarks/pipeline-cpu.py NEW_PLUGIN_DIR BASE_PLUGIN_DIR
      (each a .build/release with libgstdepthmatte.so)
  Benchmarks/pipeline-cpu.py --learned [PLUGIN_DIR]
      (default this checkout's .build/release; the learned runtime and models from
       DEPTHMATTE_DATA_DIR, else this checkout's .build/depthmatte-data)

--learned: the whole learned 1080p30 pipeline against the stock one it
replaces, interleaved in one run, on one rgbdtestsrc frame (BGRA 1920x1080,
a person; depth 640x360) repeated by imagefreeze at 30/1 (the source costs
next to nothing, as a camera):
  depthmatte    the faces from the source (face-meta=true), no detector: the
                keying's own share, the baseline
  stock         videoconvert ! facedetect display=false ! videoconvert ! m.video
  learned       mpfacedetect ! tee ! queue ! m.video, tee ! queue ! personmask ! m.person
  learned-i2    learned with personmask interval=2
  learned-land  learned with personmask model=landscape
  *-moving      a colour picture that changes every frame (videotestsrc's
                ball; nothing skipped as unchanged): the sources alone,
                depthmatte, mpfacedetect into depthmatte, and the whole
                learned pipeline; their differences are the per-stage budget
(depthmatte with default properties, fakesink sync=false; the detectors'
rows have the source's face metas off.) Per variant: CPU ms per frame
(process user+system time, marginal as above), wall-clock fps of the
non-synced run (marginal: 160 frames over the difference of the two runs'
wall times), the CPU it used as a share of all cores, and the share of all
cores it needs at 30 fps. A variant keeps up with 1080p30 when its fps is at
least 30 and its CPU at 30 fps is under 100 % of the machine (a live run is
the final word: Benchmarks/streams-bench --pipelines learned).
"""
import subprocess, resource, os, sys, tempfile, time
V="video/x-raw,format=BGRA,width=1920,height=1080,framerate=30/1"; D="video/x-raw,format=GRAY16_LE,width=640,height=360,framerate=30/1"
def dm(n, t):
    return (f"depthmatte name=m refine=guided n-threads={t} ! fakesink sync=false rgbdtestsrc num-buffers=1 ! {V} ! imagefreeze num-buffers={n} ! m.video "
            f"rgbdtestsrc stream=depth num-buffers=1 ! {D} ! imagefreeze num-buffers={n} ! m.depth videotestsrc num-buffers=1 pattern=smpte ! {V} ! imagefreeze num-buffers={n} ! m.background")
chroma = lambda n: (f"compositor name=c ! {V} ! fakesink sync=false videotestsrc num-buffers=1 pattern=smpte ! {V} ! imagefreeze num-buffers={n} ! c.sink_0 "
          f"videotestsrc num-buffers=1 pattern=ball background-color=0xff00ff00 ! {V} ! imagefreeze num-buffers={n} ! alpha method=green ! c.sink_1")
def cpu(desc, plugin, registry=None):
    env=dict(os.environ, GST_PLUGIN_PATH=plugin, GST_REGISTRY=registry or "/tmp/reg-cpu-%d.bin" % (hash(plugin) % 1000))
    r0=resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run("gst-launch-1.0 -q " + desc, shell=True, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    r1=resource.getrusage(resource.RUSAGE_CHILDREN)
    return (r1.ru_utime-r0.ru_utime)+(r1.ru_stime-r0.ru_stime)
med=lambda v: sorted(v)[len(v)//2]

# ---- --learned: the learned 1080p pipeline against the stock facedetect one
R30="video/x-raw,framerate=30/1"
def learned_desc(n, variant):
    """gst-launch description of `variant` keying n frames."""
    depth = f"rgbdtestsrc stream=depth num-buffers=1 ! {D} ! imagefreeze num-buffers={n} ! {R30} ! m.depth"
    colour = lambda faces: f"rgbdtestsrc face-meta={faces} num-buffers=1 ! {V} ! imagefreeze num-buffers={n} ! {R30}"
    sink = "depthmatte name=m ! fakesink sync=false"
    if variant == "depthmatte":
        return f"{sink} {colour('true')} ! m.video {depth}"
    if variant == "stock":
        return f"{sink} {colour('false')} ! videoconvert ! facedetect display=false ! videoconvert ! m.video {depth}"
    if variant.endswith("-moving"):
        # a colour picture that changes every frame (videotestsrc's moving ball,
        # cheap to draw): nothing is skipped as unchanged; the depth is frozen
        moving = f"videotestsrc pattern=ball num-buffers={n} ! {V}"
        if variant == "source-moving":
            return f"{moving} ! fakesink sync=false {depth.replace(' ! m.depth', ' ! fakesink sync=false')}"
        if variant == "dm-moving":
            return f"{sink} {moving} ! m.video {depth}"
        if variant == "faces-moving":
            return f"{sink} {moving} ! mpfacedetect ! m.video {depth}"
        return (f"{sink} {moving} ! mpfacedetect ! tee name=t ! queue ! m.video "
                f"t. ! queue ! personmask ! m.person {depth}")
    person = {"learned": "", "learned-i2": "interval=2", "learned-land": "model=landscape"}[variant]
    return (f"{sink} {colour('false')} ! videoconvert ! mpfacedetect ! tee name=t ! queue ! m.video "
            f"t. ! queue ! personmask {person} ! m.person {depth}")
def learned_main(plugin):
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    registry = os.path.join(tempfile.mkdtemp(prefix="pipeline-cpu-"), "registry.bin")
    os.environ["DEPTHMATTE_DATA_DIR"] = (os.environ.get("DEPTHMATTE_DATA_DIR")
                                         or os.path.join(root, ".build", "depthmatte-data"))
    env = dict(os.environ, GST_PLUGIN_PATH=plugin, GST_REGISTRY=registry)
    for e in ("depthmatte", "facedetect", "mpfacedetect", "personmask"):  # the registry built before any timing
        subprocess.run(["gst-inspect-1.0", e], env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    variants = ["depthmatte", "stock", "learned", "learned-i2", "learned-land",
                "source-moving", "dm-moving", "faces-moving", "learned-moving"]
    def run(n, v):
        t0 = time.monotonic()
        c = cpu(learned_desc(n, v), plugin, registry)
        return c, time.monotonic() - t0
    rounds = int(os.environ.get("ROUNDS", "3"))
    ms = {v: [] for v in variants}
    fps = {v: [] for v in variants}
    load = {v: [] for v in variants}
    cores = os.cpu_count()
    loadavg = lambda: " ".join(open("/proc/loadavg").read().split()[:3])
    print(f"load average before: {loadavg()} (other processes' CPU lowers the fps, not the CPU per frame)")
    for rep in range(rounds):
        for v in variants:
            c1, w1 = run(200, v)
            c0, w0 = run(40, v)
            ms[v].append((c1 - c0) / 160 * 1000)
            fps[v].append(160 / (w1 - w0))
            load[v].append((c1 - c0) / (w1 - w0) / cores * 100)
            print(f"round {rep + 1}: {v:12} {ms[v][-1]:7.2f} ms/frame  {fps[v][-1]:6.1f} fps  "
                  f"cpu {load[v][-1]:5.1f} % of {cores} cores", flush=True)
    print(f"\n1080p30 BGRA, depth 640x360; marginal over 160 frames, medians of {rounds} interleaved rounds; "
          f"{cores} cores; load average after {loadavg()}")
    print(f"{'variant':12} {'CPU ms/frame':>12} {'x stock':>8} {'- depthmatte':>12} {'fps (no sync)':>13} "
          f"{'cpu % of all':>12} {'cpu % at 30 fps':>15}  keeps up with 1080p30")
    base, stock = med(ms["depthmatte"]), med(ms["stock"])
    for v in variants:
        m, f = med(ms[v]), med(fps[v])
        at30 = m * 30 / 1000 / cores * 100
        print(f"{v:12} {m:12.2f} {m / stock:8.3f} {m - base:12.2f} {f:13.1f} {med(load[v]):12.1f} {at30:15.1f}  "
              f"{'yes' if f >= 30 and at30 < 100 else 'no'}")
    src, dmm, fm, lm = (med(ms[v]) for v in ("source-moving", "dm-moving", "faces-moving", "learned-moving"))
    print(f"moving scene, per stage: source {src:.2f} ms, depthmatte {dmm - src:.2f} ms, "
          f"mpfacedetect {fm - dmm:.2f} ms, personmask (and tee, queues, fusion) {lm - fm:.2f} ms")
    print(f"learned / stock CPU per frame: {med(ms['learned']) / stock:.3f} "
          f"(detectors and model, depthmatte's share taken out: {(med(ms['learned']) - base) / (stock - base):.3f})")

if len(sys.argv) >= 2 and sys.argv[1] == "--learned":
    learned_main(os.path.abspath(sys.argv[2] if len(sys.argv) > 2 else
                                 os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), ".build", "release")))
    sys.exit(0)
if len(sys.argv) != 3:
    sys.exit(__doc__)
P={"new": sys.argv[1], "base": sys.argv[2]}
res={k:[] for k in ["new0","base0","new1","base1","chroma"]}
rounds=int(os.environ.get("ROUNDS", "4"))
for rep in range(rounds):
    for t in (0,1):
        for k in ("new","base"):
            m = (cpu(dm(200,t),P[k]) - cpu(dm(40,t),P[k])) / 160 * 1000
            res[f"{k}{t}"].append(m)
    c = (cpu(chroma(200),P["new"]) - cpu(chroma(40),P["new"])) / 160 * 1000
    res["chroma"].append(c)
for k,v in res.items():
    print(k, " ".join("%.2f"%x for x in v), "median %.2f ms" % sorted(v)[len(v)//2])
ch=med(res["chroma"])
for k in ("new0","base0","new1","base1"):
    print(k, "ratio to chroma (medians): %.3f" % (med(res[k])/ch))
for t in (0,1):
    print("n-threads=%d: new / base %+.1f %%" % (t, (med(res[f"new{t}"])/med(res[f"base{t}"])-1)*100))
