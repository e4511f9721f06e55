#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# output=alpha gives the video with the matte in its alpha channel; a stock
# compositor then puts the subject over anything, here a moving test pattern.
#   pipelines/alpha-compositor.sh [out.mp4]
set -euo pipefail
source "$(dirname "$0")/common.sh"
out=${1:-alpha-compositor.mp4}
writing "$out" -- gst-launch-1.0 -e \
  compositor name=c background=black sink_1::xpos=0 ! videoconvert ! video/x-raw,format=I420 ! \
    x264enc speed-preset=veryfast ! mp4mux ! filesink location="$out" \
  videotestsrc pattern=ball num-buffers=150 ! video/x-raw,width=1280,height=720,framerate=30/1 ! c.sink_0 \
  depthmatte name=m output=alpha ! c.sink_1 \
  rgbdtestsrc num-buffers=150 ! video/x-raw,width=1280,height=720,framerate=30/1 ! m.video \
  rgbdtestsrc stream=depth num-buffers=150 ! video/x-raw,width=640,height=360,framerate=30/1 ! m.depth
