#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Key a recorded RGB-D session again (files from record.sh), e.g. with
# another cutoff offset. The face lock runs again on the colour: with the
# learned person prior (mpfacedetect, and personmask into depthmatte's person
# pad) when the learned models are installed, else, or with DM_LEARNED=0, the stock
# facedetect and depth alone; one line on stderr says which.
#   pipelines/replay.sh [prefix] [fps] [extra depthmatte properties...]
#   pipelines/replay.sh session 30 cutoff-offset=0.4
# The recording is read by pipelines/recording.py, as every tool reads one:
# depth from $prefix-depth.mov (16-bit PNG frames with their capture
# timestamps, bit-exact); recordings from before it (a $prefix-depth/ folder
# of PNGs) are read at fps frames per second from time 0 (openh264dec takes
# the 4:2:0 High profile record.sh writes).
# DM_SINK replaces the display sink (e.g. "pngenc ! multifilesink location=k%04d.png";
# with no display: fakesink, see common.sh).
set -euo pipefail
source "$(dirname "$0")/common.sh"
prefix=${1:-session}; fps=${2:-30}; shift 2 || shift $#
person_prior m
if [ "$learned" = 1 ]; then face=--learned
elif [ "$detect" = videoconvert ]; then face=--no-facedetect
else face=; fi
list=$(/usr/bin/python3 "$here/recording.py" "$prefix" "$fps" $face) || exit 1
mapfile -t inputs <<< "$list"
display_sink
# shellcheck disable=SC2086
exec gst-launch-1.0 \
  depthmatte name=m "$@" ! videoconvert ! $show \
  "${inputs[@]}"
