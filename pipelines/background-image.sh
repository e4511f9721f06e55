#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Replace the background with a picture (any format decodebin reads). The
# picture is scaled to fill the output and centre-cropped (aspect fill). Its
# decodebin chain is a bin of its own, ( ... ), so what its pad links to is
# running when the pad appears (see pipelines/recording.py).
#   pipelines/background-image.sh picture.jpg [out.mp4]
# With the learned models installed (scripts/setup) personmask gives depthmatte's person
# pad a person probability (the learned person prior; rgbdtestsrc attaches the
# faces itself); DM_LEARNED=0 keys from depth alone. One line on stderr says which.
set -euo pipefail
source "$(dirname "$0")/common.sh"
picture=${1:?usage: $0 picture.jpg [out.mp4]}
out=${2:-background-image.mp4}
person_prior m source
# shellcheck disable=SC2086
writing "$out" -- gst-launch-1.0 -e \
  depthmatte name=m ! videoconvert ! video/x-raw,format=I420 ! x264enc speed-preset=veryfast ! mp4mux ! filesink location="$out" \
  rgbdtestsrc num-buffers=150 ! video/x-raw,width=1280,height=720,framerate=30/1 ! $to_video \
  rgbdtestsrc stream=depth num-buffers=150 ! video/x-raw,width=640,height=360,framerate=30/1 ! m.depth \
  \( filesrc location="$picture" ! decodebin ! videoconvert ! imagefreeze \) ! m.background
