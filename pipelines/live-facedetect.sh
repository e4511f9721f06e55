#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Live keying with a face lock: a RealSense through realsensesrc (its colour
# and its depth, registered to the colour by depthalign or librealsense;
# v4l2src cannot read the RealSense's Z16 depth node), or, with "v4l2", a
# webcam plus a depth device that really exposes Y16 (GRAY16_LE) and a
# calibration file for depthalign.
#   pipelines/live-facedetect.sh                       RealSense (serial=... to pick one)
#   pipelines/live-facedetect.sh v4l2 /dev/video0 /dev/video2 pair.json [depth-scale]
# With the learned models installed (scripts/setup) mpfacedetect finds the face and
# personmask gives depthmatte's person pad a person probability (the learned
# person prior, see README); otherwise, or with DM_LEARNED=0, the stock
# facedetect finds the face and the matte is made from depth alone. One line
# on stderr says which. DM_SINK replaces the display sink (with no display:
# fakesink, see common.sh).
set -euo pipefail
source "$(dirname "$0")/common.sh"
person_prior m
display_sink
# shellcheck disable=SC2086
if [ "${1:-realsense}" = v4l2 ]; then
  colour=${2:-/dev/video0} depth=${3:-/dev/video2} cal=${4:?calibration JSON for depthalign} scale=${5:-0.001}
  exec gst-launch-1.0 \
    depthmatte name=m depth-scale="$scale" background-color=0xff20a040 ! videoconvert ! $show \
    v4l2src device="$colour" ! $detect ! $to_video \
    v4l2src device="$depth" ! video/x-raw,format=GRAY16_LE ! depthalign calibration="$cal" ! m.depth
fi
# shellcheck disable=SC2086
exec gst-launch-1.0 \
  realsensesrc name=s \
  depthmatte name=m background-color=0xff20a040 ! videoconvert ! $show \
  s.video ! queue ! $detect ! $to_video \
  s.depth ! queue ! m.depth
