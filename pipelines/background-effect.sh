#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# background-effect: without a background pad, depthmatte shows the video
# itself behind the subject, changed: comic (posterised with dark edge lines),
# blur (portrait-style; the subject leaves no halo in it; effect-radius in
# video pixels), desaturate. The subject's pixels are the untouched video.
#   pipelines/background-effect.sh [comic|blur|desaturate] [out.png] [extra depthmatte props...]
# e.g. pipelines/background-effect.sh blur "" effect-radius=40
# With a depth camera, replace the two rgbdtestsrc branches by your colour and
# depth sources (see pipelines/live-facedetect.sh).
# Without out.png it shows the result on screen (DM_SINK: another sink; with no
# display it runs and shows nothing, see display_sink in common.sh).
# With the learned models installed (scripts/setup) personmask gives depthmatte's person
# pad a person probability (the learned person prior; rgbdtestsrc attaches the
# faces itself); DM_LEARNED=0 keys from depth alone. One line on stderr says which.
set -euo pipefail
source "$(dirname "$0")/common.sh"
effect=${1:-comic}; png=${2:-}; shift 2 || shift $#
if [ -n "$png" ]; then n="num-buffers=1"; sink="videoconvert ! pngenc ! filesink location=$png"
else n=""; display_sink "give an output file: $0 $effect out.png"; sink="videoconvert ! $show"; fi
person_prior m source
# shellcheck disable=SC2086
out_file=$png
launch \
  depthmatte name=m background-effect="$effect" "$@" ! $sink \
  rgbdtestsrc $n ! video/x-raw,width=640,height=360,framerate=30/1 ! $to_video \
  rgbdtestsrc stream=depth $n ! video/x-raw,width=320,height=180,framerate=30/1 ! m.depth
