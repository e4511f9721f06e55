#!/usr/bin/env bash
# Record a live keyed session to a file while watching it, and keep the
# RGB-D input next to it so the session can be keyed again later with other
# settings (replay.sh): colour as high-quality H.264 in Matroska, depth
# losslessly as a 16-bit PNG sequence (matroskamux cannot carry GRAY16).
#   pipelines/record.sh [colour-device] [depth-device] [prefix]
# Stop with Ctrl-C (-e finishes the files properly).
set -euo pipefail
source "$(dirname "$0")/common.sh"
colour=${1:-/dev/video0}
depth=${2:-/dev/video2}
prefix=${3:-session}
mkdir -p "$prefix-depth"
exec gst-launch-1.0 -e \
  depthmatte name=m ! videoconvert ! tee name=t \
    t. ! queue ! autovideosink \
    t. ! queue ! x264enc speed-preset=veryfast tune=zerolatency ! mp4mux ! filesink location="$prefix-keyed.mp4" \
  v4l2src device="$colour" ! videoconvert ! video/x-raw,format=BGRx ! tee name=vt \
    vt. ! queue ! videoconvert ! facedetect display=false ! videoconvert ! video/x-raw,format=BGRx ! m.video \
    vt. ! queue ! videoconvert ! x264enc speed-preset=veryfast quantizer=12 pass=quant ! matroskamux ! \
      filesink location="$prefix-colour.mkv" \
  v4l2src device="$depth" ! video/x-raw,format=GRAY16_LE ! tee name=dt \
    dt. ! queue ! m.depth \
    dt. ! queue ! videoconvert ! video/x-raw,format=GRAY16_BE ! pngenc compression-level=1 ! \
      multifilesink location="$prefix-depth/%06d.png"
