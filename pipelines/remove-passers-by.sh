#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Remove passers-by: the iOS photo-stacking recipe as one pipeline. Takes 20
# frames at 5 fps (4 seconds of video), aligns each to the first by sub-pixel
# translation (hand-held is fine) and writes the per-pixel median as a PNG:
# whoever walks through the shot in fewer than half the frames is gone, and
# the borders come from the frames that cover them (no dark edges).
#   pipelines/remove-passers-by.sh [video-file] [out.png]
# Without a file, a synthetic scene (SMPTE bars with a ball sweeping around
# over them) shows the idea: the ball is absent from the PNG, except a faint
# star at the pivot of its sweep, which it crosses in most frames.
# framestack frames=20 posts a 'framestack' message with each frame's shift
# (gst-launch-1.0 -m shows it). pngenc snapshot=true stops after the first stack.
set -euo pipefail
source "$(dirname "$0")/common.sh"
in=${1:-}
out=${2:-passers-by-removed.png}
if [ -n "$in" ]; then
  src="filesrc location=$in ! decodebin ! videoconvert"
else
  src="videotestsrc num-buffers=750 pattern=smpte ! video/x-raw,width=640,height=360,framerate=150/1 ! c.
       videotestsrc num-buffers=750 pattern=ball motion=sweep animation-mode=frames background-color=0x00000000
         foreground-color=0xffff4000 ! video/x-raw,format=BGRA,width=640,height=360,framerate=150/1 ! c.
       compositor name=c background=black ! videoconvert"
fi
# shellcheck disable=SC2086
gst-launch-1.0 -e $src \
  ! videorate ! video/x-raw,framerate=5/1 \
  ! videoconvert ! video/x-raw,format=BGRx \
  ! framestack frames=20 method=median align=translation \
  ! videoconvert ! pngenc snapshot=true ! filesink location="$out"
echo "wrote $out"
