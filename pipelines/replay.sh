#!/usr/bin/env bash
# Key a recorded RGB-D session again (files from record.sh), e.g. with
# another cutoff offset. facedetect runs again on the colour.
#   pipelines/replay.sh [prefix] [fps] [extra depthmatte properties...]
#   pipelines/replay.sh session 30 cutoff-offset=0.4
set -euo pipefail
source "$(dirname "$0")/common.sh"
prefix=${1:-session}; fps=${2:-30}; shift 2 || true
exec gst-launch-1.0 \
  depthmatte name=m "$@" ! videoconvert ! autovideosink \
  filesrc location="$prefix-colour.mkv" ! matroskademux ! decodebin ! videoconvert ! \
    facedetect display=false ! videoconvert ! video/x-raw,format=BGRx ! m.video \
  multifilesrc location="$prefix-depth/%06d.png" caps=image/png,framerate=$fps/1 ! pngdec ! \
    videoconvert ! video/x-raw,format=GRAY16_LE ! m.depth
