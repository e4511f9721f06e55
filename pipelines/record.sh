#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Record a live keyed session to a file while watching it, and keep the
# RGB-D input next to it so the session can be keyed again later with other
# settings (replay.sh): colour as high-quality H.264 in Matroska, depth
# losslessly as 16-bit PNG frames in a QuickTime file (matroskamux cannot
# carry GRAY16; qtmux carries PNG), with their timestamps, so replay pairs
# each depth frame with the colour frame it was captured with, and the
# replayed depth is bit-exact. The depth file and the keyed MP4 are written
# in 1 s fragments (Matroska writes the colour in clusters): a crash or a
# killed process loses about the last second, and what was written plays.
# Both H.264 tracks are 4:2:0 (I420), High profile, so the decoder that
# scripts/setup installs (openh264dec) plays them: left to itself,
# videoconvert hands x264enc Y444 from RGB, giving High 4:4:4, which only
# gstreamer1.0-libav decodes.
#   pipelines/record.sh [colour-device] [depth-device] [prefix]
# colour-device "test": the built-in synthetic RGB-D scene (rgbdtestsrc,
# live) instead of two cameras; depth-device is then ignored.
# DM_FRAMES=n stops after n frames (default: until Ctrl-C); DM_SINK replaces
# the display sink (e.g. DM_SINK=fakesink; with no display: fakesink, see
# common.sh).
# The keyed view uses the learned person prior (mpfacedetect for the face
# lock, personmask into depthmatte's person pad) when the learned models are installed,
# else, or with DM_LEARNED=0, the stock facedetect and depth alone; one line
# on stderr says which. The recorded input is the same either way.
# Stop with Ctrl-C (-e finishes the files properly).
set -euo pipefail
source "$(dirname "$0")/common.sh"
colour=${1:-/dev/video0}
depth=${2:-/dev/video2}
prefix=${3:-session}
n=${DM_FRAMES:+num-buffers=$DM_FRAMES}
if [ "$colour" = test ]; then
  csrc="rgbdtestsrc is-live=true $n ! video/x-raw,width=320,height=180,framerate=30/1"
  dsrc="rgbdtestsrc stream=depth is-live=true $n ! video/x-raw,width=160,height=90,framerate=30/1"
else
  csrc="v4l2src device=$colour $n"
  dsrc="v4l2src device=$depth $n ! video/x-raw,format=GRAY16_LE"
fi
person_prior m
display_sink
# shellcheck disable=SC2086
writing --keep-written "$prefix-keyed.mp4" "$prefix-colour.mkv" "$prefix-depth.mov" -- gst-launch-1.0 -e \
  depthmatte name=m ! videoconvert ! tee name=t \
    t. ! queue ! $show \
    t. ! queue ! videoconvert ! video/x-raw,format=I420 ! x264enc speed-preset=veryfast tune=zerolatency ! \
      video/x-h264,profile=high ! mp4mux fragment-duration=1000 ! filesink location="$prefix-keyed.mp4" \
  $csrc ! videoconvert ! video/x-raw,format=BGRx ! tee name=vt \
    vt. ! queue ! $detect ! videoconvert ! video/x-raw,format=BGRx ! $to_video \
    vt. ! queue ! videoconvert ! video/x-raw,format=I420 ! x264enc speed-preset=veryfast quantizer=12 pass=quant ! \
      video/x-h264,profile=high ! matroskamux ! filesink location="$prefix-colour.mkv" \
  $dsrc ! tee name=dt \
    dt. ! queue ! m.depth \
    dt. ! queue ! videoconvert ! video/x-raw,format=GRAY16_BE ! pngenc compression-level=1 ! \
      qtmux fragment-duration=1000 ! filesink location="$prefix-depth.mov"
