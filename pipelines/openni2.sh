#!/usr/bin/env bash
# Kinect / Xtion / Orbbec through OpenNI2 (openni2src from gst-plugins-bad).
# One openni2src with sourcetype=both would interleave colour and depth in one
# RGBA+depth stream; two instances (colour and depth) keep them as separate
# streams, which is what depthmatte's pads want. OpenNI2 depth is in millimetres.
#   pipelines/openni2.sh [device-uri]
set -euo pipefail
source "$(dirname "$0")/common.sh"
uri=${1:-}
loc=${uri:+location=$uri}
exec gst-launch-1.0 \
  depthmatte name=m depth-scale=0.001 ! videoconvert ! autovideosink \
  openni2src $loc sourcetype=color ! videoconvert ! facedetect display=false ! videoconvert ! \
    video/x-raw,format=BGRx ! m.video \
  openni2src $loc sourcetype=depth ! video/x-raw,format=GRAY16_LE ! m.depth
