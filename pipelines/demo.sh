#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Demo: synthetic RGB-D scene -> depthmatte -> MP4, plus a PNG picture.
#   pipelines/demo.sh [output-folder] [frames]
# 1280x720 colour at 30 fps with 640x360 depth. The background pad gets a
# moving test pattern; the subject (a figure stepping nearer and farther,
# raising a hand) is kept, the wall and the box between them are replaced.
set -euo pipefail
source "$(dirname "$0")/common.sh"
out=${1:-out}; frames=${2:-300}
mkdir -p "$out"
VIDEO="video/x-raw,width=1280,height=720,framerate=30/1"
DEPTH="video/x-raw,width=640,height=360,framerate=30/1"

echo "demo: keying $frames frames to $out/demo.mp4"
start=$(date +%s%N)
launch_checked -e \
  depthmatte name=m ! videoconvert ! video/x-raw,format=I420 ! x264enc speed-preset=veryfast ! mp4mux ! filesink location="$out/demo.mp4" \
  rgbdtestsrc num-buffers="$frames" ! $VIDEO ! m.video \
  rgbdtestsrc stream=depth num-buffers="$frames" ! $DEPTH ! m.depth \
  videotestsrc pattern=smpte75 num-buffers="$frames" ! video/x-raw,width=640,height=360,framerate=30/1 ! m.background
end=$(date +%s%N)
echo "demo: $frames frames in $(awk -v a="$start" -v b="$end" "BEGIN{printf \"%.1f\", (b-a)/1e9}") s (including H.264 encoding)"

# The picture: one frame of input colour, matte and composite side by side,
# taken at 6 s (the subject's hand is raised). Three keyers on the same input.
n=$((6 * 30))
echo "demo: writing $out/demo.png"
launch_checked \
  compositor name=c sink_1::xpos=640 sink_2::xpos=1280 ! videoconvert ! pngenc ! \
    multifilesink location="$out/demo.png" \
  rgbdtestsrc num-buffers=$((n + 1)) ! $VIDEO ! tee name=v \
  rgbdtestsrc stream=depth num-buffers=$((n + 1)) ! $DEPTH ! tee name=d \
  v. ! queue ! videoscale ! video/x-raw,width=640,height=360 ! c.sink_0 \
  depthmatte name=mm output=matte ! videoscale ! video/x-raw,width=640,height=360 ! c.sink_1 \
  v. ! queue ! mm.video  d. ! queue ! mm.depth \
  depthmatte name=mc ! videoscale ! video/x-raw,width=640,height=360 ! c.sink_2 \
  v. ! queue ! mc.video  d. ! queue ! mc.depth \
  videotestsrc pattern=smpte75 num-buffers=$((n + 1)) ! video/x-raw,width=640,height=360,framerate=30/1 ! mc.background
echo "demo: done ($out/demo.mp4, $out/demo.png)"
