#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""The one reader of pipelines/record.sh's recordings, for every tool that
plays one (replay.sh, serve-rtsp, examples/python/depthmatte_app.py).

  pipelines/recording.py PREFIX [FPS] [--no-facedetect] [--learned]

prints the gst-launch-1.0 arguments of the two inputs, one per line, the
colour ending in m.video and the depth in m.depth. The colour runs through
the stock facedetect for the face lock (--no-facedetect: no face detector);
with --learned through mpfacedetect instead, and a tee gives it to personmask
too, which ends in m.person (the learned person prior; the caller checks that
both elements are registered). A recording is
PREFIX-colour.mkv (H.264) and PREFIX-depth.mov (16-bit PNG frames with their
capture times, bit-exact); a recording from before the .mov has a
PREFIX-depth/ folder of %06d.png frames instead, read at FPS frames per
second from time 0. A missing recording is an error that names what is
missing (exit status 2).

Each file goes through decodebin, which exposes its pad only once its
demuxer and decoder are running. A bare demuxer (qtdemux ! pngdec) starts
reading as soon as it is paused and can push into a decoder that the
pipeline's state change has not reached yet: the push fails as flushing and
that input never starts (seen in about half the runs under rtsp-media).

Each file's chain, up to its queue, is a bin of its own, ( ... ). Until
decodebin has a pad, the pipeline takes it for a sink and pauses it and its
filesrc among the first elements, and the element its pad links to later
among the last, after every other one. Elements that load models when paused
(mpfacedetect, personmask, facedetect) take milliseconds, enough for the pad
to come first and that input never to start (2 runs in 5 under rtsp-media
with the learned elements). Inside a bin of its own that element is paused
right after decodebin. The face detector and the tee sit after the bin."""
import os
import sys


class RecordingError(Exception):
    pass


def tokens(prefix, fps=30, facedetect=True, video="m.video", depth="m.depth", learned=False, person="m.person"):
    """The inputs as gst-launch-1.0 arguments (a list). `facedetect`: a face
    detector on the colour, the stock facedetect or with `learned` mpfacedetect;
    `learned`: personmask on a tee of the colour into `person`."""
    colour = f"{prefix}-colour.mkv"
    mov, folder = f"{prefix}-depth.mov", f"{prefix}-depth"
    if not os.path.isfile(colour):
        raise RecordingError(f"no recording at {prefix}: {colour} not found "
                             "(record.sh writes PREFIX-colour.mkv and PREFIX-depth.mov)")
    if os.path.isfile(mov):
        d = ["filesrc", f"location={mov}", "!", "decodebin"]
    elif os.path.isdir(folder):
        d = ["multifilesrc", f"location={folder}/%06d.png", f"caps=image/png,framerate={fps}/1", "!", "pngdec"]
    else:
        raise RecordingError(f"no depth for the recording {prefix}: neither {mov} nor {folder}/ found")
    c = ["(", "filesrc", f"location={colour}", "!", "decodebin", "!", "videoconvert", "!", "queue", ")", "!"]
    if not facedetect:
        face = []
    elif learned:
        face = ["mpfacedetect", "!"]
    else:
        face = ["facedetect", "display=false", "!", "videoconvert", "!"]
    c += face + ["video/x-raw,format=BGRx", "!"]
    if learned:
        tee = video.partition(".")[0] + "_colour"
        c += ["tee", f"name={tee}", "!", "queue", "!", video, f"{tee}.", "!", "queue", "!", "personmask", "!", person]
    else:
        c += [video]
    return c + ["("] + d + ["!", "videoconvert", "!", "video/x-raw,format=GRAY16_LE", "!", "queue", ")", "!", depth]


def inputs(prefix, fps=30, facedetect=True, video="m.video", depth="m.depth", learned=False, person="m.person"):
    """The inputs as one pipeline description (Gst.parse_launch)."""
    def quote(t):
        if " " not in t:
            return t
        k, _, v = t.partition("=")
        return f'{k}="{v}"' if _ else f'"{t}"'
    return " ".join(quote(t) for t in tokens(prefix, fps, facedetect, video, depth, learned, person))


def main(argv):
    args = [a for a in argv if not a.startswith("--")]
    flags = [a for a in argv if a.startswith("--")]
    if not args or len(args) > 2 or any(a not in ("--no-facedetect", "--learned") for a in flags):
        sys.exit(__doc__.split("\n\n")[1])
    try:
        fps = int(args[1]) if len(args) > 1 else 30
        for t in tokens(args[0], fps, "--no-facedetect" not in argv, learned="--learned" in argv):
            print(t)
    except (RecordingError, ValueError) as e:
        print(f"recording.py: {e}", file=sys.stderr)
        sys.exit(2)


if __name__ == "__main__":
    main(sys.argv[1:])
