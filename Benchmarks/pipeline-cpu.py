#!/usr/bin/python3
"""Pipeline CPU per 1080p frame of two depthmatte builds, interleaved in one run,
against the stock chroma key (marginal: a 200-frame run less a 40-frame run; ROUNDS rounds, 4 by default)."""
import subprocess, resource, os, sys
V="video/x-raw,format=BGRA,width=1920,height=1080,framerate=30/1"; D="video/x-raw,format=GRAY16_LE,width=640,height=360,framerate=30/1"
def dm(n, t):
    return (f"depthmatte name=m refine=guided n-threads={t} ! fakesink sync=false rgbdtestsrc num-buffers=1 ! {V} ! imagefreeze num-buffers={n} ! m.video "
            f"rgbdtestsrc stream=depth num-buffers=1 ! {D} ! imagefreeze num-buffers={n} ! m.depth videotestsrc num-buffers=1 pattern=smpte ! {V} ! imagefreeze num-buffers={n} ! m.background")
chroma = lambda n: (f"compositor name=c ! {V} ! fakesink sync=false videotestsrc num-buffers=1 pattern=smpte ! {V} ! imagefreeze num-buffers={n} ! c.sink_0 "
          f"videotestsrc num-buffers=1 pattern=ball background-color=0xff00ff00 ! {V} ! imagefreeze num-buffers={n} ! alpha method=green ! c.sink_1")
def cpu(desc, plugin):
    env=dict(os.environ, GST_PLUGIN_PATH=plugin, GST_REGISTRY="/tmp/reg-cpu-%d.bin" % (hash(plugin) % 1000))
    r0=resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run("gst-launch-1.0 -q " + desc, shell=True, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    r1=resource.getrusage(resource.RUSAGE_CHILDREN)
    return (r1.ru_utime-r0.ru_utime)+(r1.ru_stime-r0.ru_stime)
# usage: Benchmarks/pipeline-cpu.py NEW_PLUGIN_DIR BASE_PLUGIN_DIR (each a .build/release with libgstdepthmatte.so)
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
med=lambda v: sorted(v)[len(v)//2]
ch=med(res["chroma"])
for k in ("new0","base0","new1","base1"):
    print(k, "ratio to chroma (medians): %.3f" % (med(res[k])/ch))
for t in (0,1):
    print("n-threads=%d: new / base %+.1f %%" % (t, (med(res[f"new{t}"])/med(res[f"base{t}"])-1)*100))
