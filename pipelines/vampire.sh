#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# "Vampire in sunlight": the subject sparkles, more the brighter the scene.
# depthmatte output=alpha puts the matte in the alpha channel; sparkle meters
# the brightness of the whole frame and adds glints only where alpha > 0.5
# (on the subject); a stock compositor puts the result over a background.
#   pipelines/vampire.sh [out.mp4] [frames]
# Synthetic RGB-D input (rgbdtestsrc); for a live depth camera swap the two
# rgbdtestsrc branches for those of pipelines/live-facedetect.sh.
# Tuning: max-sparkles (glints at full brightness), threshold (brightness at
# or below which none appear), size (arm length, fraction of the frame's
# shorter side), life (ns), color (0xAARRGGBB, AA = strength), seed.
set -euo pipefail
source "$(dirname "$0")/common.sh"
out=${1:-vampire.mp4}; frames=${2:-300}
VIDEO="video/x-raw,width=1280,height=720,framerate=30/1"
DEPTH="video/x-raw,width=640,height=360,framerate=30/1"
writing "$out" -- gst-launch-1.0 -e \
  compositor name=c background=black ! videoconvert ! video/x-raw,format=I420 ! \
    x264enc speed-preset=veryfast ! mp4mux ! filesink location="$out" \
  videotestsrc pattern=pinwheel num-buffers="$frames" ! $VIDEO ! c.sink_0 \
  depthmatte name=m output=alpha ! \
    sparkle max-sparkles=80 threshold=0.2 size=0.025 seed=1 ! c.sink_1 \
  rgbdtestsrc num-buffers="$frames" ! $VIDEO ! m.video \
  rgbdtestsrc stream=depth num-buffers="$frames" ! $DEPTH ! m.depth
