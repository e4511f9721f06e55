#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Kinect v1 / Xtion / Astra through OpenNI2 (openni2src from gst-plugins-bad).
# openni2src never switches on the sensor's depth-to-colour registration, and
# with sourcetype=both it packs depth into 8 bits of alpha (256 mm steps:
# useless for keying). So: two instances, colour and depth, and depthalign
# registers the depth to the colour with the pair's calibration (JSON, see
# README "depthalign"; the intrinsics and extrinsics come from the device's
# factory calibration or a checkerboard calibration). OpenNI2 depth is in
# millimetres.
#   pipelines/openni2.sh calibration.json [device-uri]
# pipelines/xtion-example.json is a generic Xtion / Kinect v1 pair at 640x480
# (nominal values) to start from; calibrate your own and check its edges
# (README, depthalign).
# The face lock and the person prior: mpfacedetect and personmask when
# the learned models are installed, else (or with DM_LEARNED=0) the stock facedetect,
# depth only; one line on stderr says which (see live-facedetect.sh).
# DM_SINK replaces the display sink (with no display: fakesink, see common.sh).
set -euo pipefail
source "$(dirname "$0")/common.sh"
cal=${1:?usage: pipelines/openni2.sh calibration.json [device-uri]}
uri=${2:-}
loc=${uri:+location=$uri}
person_prior m
display_sink
# shellcheck disable=SC2086
exec gst-launch-1.0 \
  depthmatte name=m depth-scale=0.001 ! videoconvert ! $show \
  openni2src $loc sourcetype=color ! $detect ! $to_video \
  openni2src $loc sourcetype=depth ! video/x-raw,format=GRAY16_LE ! depthalign calibration="$cal" ! m.depth
