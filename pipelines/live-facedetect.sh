#!/usr/bin/env bash
# Live keying with the stock facedetect: a RealSense through realsensesrc (its
# colour and its depth, registered to the colour by depthalign or librealsense;
# v4l2src cannot read the RealSense's Z16 depth node), or, with "v4l2", a
# webcam plus a depth device that really exposes Y16 (GRAY16_LE) and a
# calibration file for depthalign.
#   pipelines/live-facedetect.sh                       RealSense (serial=... to pick one)
#   pipelines/live-facedetect.sh v4l2 /dev/video0 /dev/video2 pair.json [depth-scale]
set -euo pipefail
source "$(dirname "$0")/common.sh"
if [ "${1:-realsense}" = v4l2 ]; then
  colour=${2:-/dev/video0} depth=${3:-/dev/video2} cal=${4:?calibration JSON for depthalign} scale=${5:-0.001}
  exec gst-launch-1.0 \
    v4l2src device="$colour" ! videoconvert ! facedetect display=false ! \
      depthmatte name=m depth-scale="$scale" background-color=0xff20a040 ! videoconvert ! autovideosink \
    v4l2src device="$depth" ! video/x-raw,format=GRAY16_LE ! depthalign calibration="$cal" ! m.depth
fi
exec gst-launch-1.0 \
  realsensesrc name=s \
  depthmatte name=m background-color=0xff20a040 ! videoconvert ! autovideosink \
  s.video ! queue ! videoconvert ! facedetect display=false ! videoconvert ! m.video \
  s.depth ! queue ! m.depth
