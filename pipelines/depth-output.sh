#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# depthmatte output=depth: the depth pad's map as a picture at video size
# (turbo: near red, far dark blue; depth-colormap=grey: near white), holes in
# hole-color (here magenta), range automatic unless depth-range-min/max (m).
# Works with every depth encoding (depth-kind, GRAY8 maps).
#   pipelines/depth-output.sh [out.png]     # no argument: on screen (DM_SINK: another sink)
set -euo pipefail
source "$(dirname "$0")/common.sh"
png=${1:-}
if [ -n "$png" ]; then n="num-buffers=1"; sink="videoconvert ! pngenc ! filesink location=$png"
else n=""; display_sink "give an output file: $0 out.png"; sink="videoconvert ! $show"; fi
out_file=$png
launch \
  depthmatte name=m output=depth hole-color=0xffff00ff ! $sink \
  rgbdtestsrc $n ! video/x-raw,width=640,height=360,framerate=30/1 ! m.video \
  rgbdtestsrc stream=depth holes=true noise=true $n ! video/x-raw,width=320,height=180,framerate=30/1 ! m.depth
