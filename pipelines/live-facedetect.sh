#!/usr/bin/env bash
# Live keying from a depth camera exposed as two V4L2 nodes (e.g. RealSense
# with the uvcvideo driver: colour on /dev/video0, Z16 depth on /dev/video2).
# OpenCV's facedetect finds the face and attaches the ROI meta depthmatte locks to.
#   pipelines/live-facedetect.sh [colour-device] [depth-device]
# depth-scale: RealSense D4xx = 0.001 m per unit (the default); check your camera.
# The depth must be registered (aligned) to the colour camera's view; most
# cameras do this in firmware or need their SDK's "align" option.
set -euo pipefail
source "$(dirname "$0")/common.sh"
colour=${1:-/dev/video0}
depth=${2:-/dev/video2}
exec gst-launch-1.0 \
  depthmatte name=m background-color=0xff20a040 ! videoconvert ! autovideosink \
  v4l2src device="$colour" ! videoconvert ! facedetect display=false ! videoconvert ! \
    video/x-raw,format=BGRx ! m.video \
  v4l2src device="$depth" ! video/x-raw,format=GRAY16_LE ! m.depth
