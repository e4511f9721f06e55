#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Live temporal denoise with a sliding window: every output frame is the
# aligned mean of the last 5 camera frames (noise falls by about sqrt(5) ≈ 2.2x
# on still parts of the scene), in the newest frame's coordinates so the view
# follows the camera. method=median instead also drops things that cross the
# view quickly, at the same cost.
#   pipelines/live-denoise.sh [device]      (default /dev/video0)
# Cost per output grows with the window: ~33 ms at 1080p for 5 frames on one
# core here (framestack-bench), a few ms at 640x480 - so capture at 640x480 or
# 720p for full frame rate, or lower frames=.
# Without a camera, a live noisy test pattern stands in. DM_SINK overrides
# the display sink (e.g. DM_SINK=fakesink; with no display: fakesink, see
# common.sh).
set -euo pipefail
source "$(dirname "$0")/common.sh"
dev=${1:-/dev/video0}
if [ -e "$dev" ]; then
  src="v4l2src device=$dev ! videoconvert ! videoscale ! video/x-raw,width=640,height=480"
else
  echo "no camera at $dev: using a noisy live test pattern" >&2
  src="videotestsrc is-live=true pattern=smpte ! video/x-raw,width=640,height=480,framerate=30/1 ! c.
       videotestsrc is-live=true pattern=snow ! video/x-raw,width=640,height=480,framerate=30/1 ! c.
       compositor name=c sink_1::alpha=0.25 ! videoconvert"
fi
display_sink
# the display shows each frame as it comes (the queue before it drops what it cannot show)
[ "$show" != autovideosink ] || show="autovideosink sync=false"
# shellcheck disable=SC2086
exec gst-launch-1.0 $src \
  ! videoconvert ! video/x-raw,format=BGRx \
  ! framestack mode=sliding frames=5 method=mean align=translation max-shift=32 \
  ! videoconvert ! queue max-size-buffers=2 leaky=downstream ! $show
