#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# A cheap ambient-light meter on a webcam: sparkle draw=false reads the
# brightness (mean of (R+G+B)/(3*255) on a 32-pixel grid) every 200 ms of
# stream time and posts it as a 'sparkle' element message; gst-launch -m
# prints every message, grep keeps the readings:
#   sparkle, timestamp=..., stream-time=..., running-time=..., duration=...,
#            brightness=(double)0.43..., sparkles=(int)17;
# (sparkles: how many glints the effect would keep alive at this brightness,
# max-sparkles 64, threshold 0.25.)
#   pipelines/sparkle-meter.sh [device] [extra sparkle properties...]
# e.g. pipelines/sparkle-meter.sh /dev/video0 measure=rec709-luma interval=1000000000
# With draw=false the element is passthrough: frames are not copied or changed.
set -euo pipefail
source "$(dirname "$0")/common.sh"
device=${1:-/dev/video0}
shift || true
gst-launch-1.0 -m \
  v4l2src device="$device" ! videoconvert ! video/x-raw,format=BGRx ! \
  sparkle draw=false "$@" ! fakesink sync=false |
  grep --line-buffered -o 'sparkle, timestamp.*'
