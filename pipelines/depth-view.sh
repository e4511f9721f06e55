#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# depthview shows a depth stream as a picture: near red, far dark blue (turbo)
# or near white, far black (depth-colormap=grey); holes (no reading) in
# hole-color. The range is automatic (2nd..98th percentile of each frame)
# unless depth-range-min/depth-range-max (metres) are set.
#   pipelines/depth-view.sh                 # rgbdtestsrc depth on screen
#   pipelines/depth-view.sh out.png         # one frame to a PNG
#   pipelines/depth-view.sh v4l2 [/dev/videoN] [props...]   # a Y16 depth camera
# e.g. pipelines/depth-view.sh v4l2 /dev/video2 depth-colormap=grey depth-range-min=0.4 depth-range-max=3
# DM_SINK replaces the display sink (with no display: fakesink, see common.sh).
set -euo pipefail
source "$(dirname "$0")/common.sh"
case "${1:-}" in
  v4l2)
    device=${2:-/dev/video0}; shift 2 || shift $#
    display_sink
    # shellcheck disable=SC2086
    exec gst-launch-1.0 v4l2src device="$device" ! video/x-raw,format=GRAY16_LE ! \
      depthview "$@" ! videoconvert ! $show ;;
  *.png)
    launch_checked rgbdtestsrc stream=depth num-buffers=1 ! \
      video/x-raw,width=640,height=360 ! depthview hole-color=0xffff00ff ! \
      videoconvert ! pngenc ! filesink location="$1" ;;
  *)
    display_sink "give an output file: $0 out.png"
    # shellcheck disable=SC2086
    exec gst-launch-1.0 rgbdtestsrc stream=depth ! video/x-raw,width=640,height=360 ! \
      depthview ! videoconvert ! $show ;;
esac
