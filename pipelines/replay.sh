#!/usr/bin/env bash
# Key a recorded RGB-D session again (files from record.sh), e.g. with
# another cutoff offset. facedetect runs again on the colour.
#   pipelines/replay.sh [prefix] [fps] [extra depthmatte properties...]
#   pipelines/replay.sh session 30 cutoff-offset=0.4
# Depth comes from $prefix-depth.mov (16-bit PNG frames with their capture
# timestamps, bit-exact); recordings from before it (a $prefix-depth/ folder
# of PNGs) are read at fps frames per second from time 0.
# DM_SINK replaces the display sink (e.g. "pngenc ! multifilesink location=k%04d.png").
set -euo pipefail
source "$(dirname "$0")/common.sh"
prefix=${1:-session}; fps=${2:-30}; shift 2 || shift $#
if [ -f "$prefix-depth.mov" ]; then
  depth="filesrc location=$prefix-depth.mov ! qtdemux ! pngdec"
else
  depth="multifilesrc location=$prefix-depth/%06d.png caps=image/png,framerate=$fps/1 ! pngdec"
fi
# The colour decodes with what scripts/setup installs (openh264dec takes the
# 4:2:0 High profile record.sh writes). pngdec gives the depth as GRAY16_BE,
# which the depth pad takes as is.
# shellcheck disable=SC2086
exec gst-launch-1.0 \
  depthmatte name=m "$@" ! videoconvert ! ${DM_SINK:-autovideosink} \
  filesrc location="$prefix-colour.mkv" ! matroskademux ! decodebin ! videoconvert ! \
    facedetect display=false ! videoconvert ! video/x-raw,format=BGRx ! m.video \
  $depth ! m.depth
