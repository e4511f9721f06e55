#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Focus modes from the depth-maps tutorial, on the synthetic RGB-D scene.
#   pipelines/focus.sh [highpass|bandpass] [focus-metres] [slope] [out.png]
# highpass keeps everything nearer than focus, ramping to nothing over 1/slope
# metres (slope 4 = the tutorial's soft default, 10 = sharp); bandpass keeps
# focus +- focus-width (0.05 m) fully, ramping to nothing at +- 0.30 m (slope 4).
# With an out.png argument one frame is written instead of shown on screen
# (DM_SINK replaces the display sink; with no display: fakesink, see common.sh).
#
# A focus slider in an application: `focus`, `slope` and `focus-width` are
# mutable in PLAYING and take effect on the next frame, so a slider's
# value-changed handler only needs
#     g_object_set (depthmatte, "focus", value_in_metres, NULL);
# (Python: m.set_property("focus", v)). They are also controllable, so a
# GstInterpolationControlSource can sweep focus over stream time.
# For disparity cameras add depth-kind=disparity: focus stays in metres.
set -euo pipefail
source "$(dirname "$0")/common.sh"
mode=${1:-highpass}; focus=${2:-1.4}; slope=${3:-4}; png=${4:-}
VIDEO="video/x-raw,width=640,height=360,framerate=30/1"
DEPTH="video/x-raw,width=320,height=180,framerate=30/1"
if [ -n "$png" ]; then
  n=1; sink="videoconvert ! pngenc ! filesink location=$png"
  skip="num-buffers=1"
else
  display_sink "give an output file: $0 $mode $focus $slope out.png"
  sink="videoconvert ! $show"; skip=""
fi
out_file=$png
launch \
  depthmatte name=m mode="$mode" focus="$focus" slope="$slope" background-color=0xff202020 ! $sink \
  rgbdtestsrc $skip ! $VIDEO ! m.video \
  rgbdtestsrc stream=depth $skip ! $DEPTH ! m.depth
