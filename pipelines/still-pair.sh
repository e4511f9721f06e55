#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Key one RGB-D still: a colour picture and its registered depth image (a
# 16-bit PNG in millimetres, as RGB-D datasets and RealSense/Azure Kinect
# exports store it; pngdec gives GRAY16_BE, which the depth pad takes as is)
# over a background colour. The face lock and the person prior: mpfacedetect
# and personmask (the learned person prior) when the learned models are installed, else,
# or with DM_LEARNED=0, the stock OpenCV face detector and depth alone, and
# without that either the nearest body; one line on stderr says which.
#   pipelines/still-pair.sh colour.png depth.png [out.png] [matte.png] [depth-scale]
# depth-scale: metres per depth unit (0.001 = millimetres; TUM RGB-D uses 0.0002).
# The element keys several copies of the still so the lock and the temporal
# smoothing settle; the last one is written. The colour's decodebin chain is a
# bin of its own, ( ... ), so what its pad links to is running when the pad
# appears (see pipelines/recording.py).
# A warning or an error from any element (a depth picture that does not
# decode gives depthmatte's "No depth frame" warning and an unkeyed picture)
# is printed and the script exits 1 without writing out.png or matte.png.
set -euo pipefail
source "$(dirname "$0")/common.sh"
colour=${1:?usage: $0 colour.png depth.png [out.png] [matte.png] [depth-scale]}
depth=${2:?usage: $0 colour.png depth.png [out.png] [matte.png] [depth-scale]}
out=${3:-still-keyed.png}
matte=${4:-still-matte.png}
scale=${5:-0.001}
frames=10
person_prior m
failed() {
  rm -f "$out".[0-9]* "$matte".[0-9]*
  echo "still-pair: the pipeline reported a problem (above): $out and $matte not written" >&2
  exit 1
}
# shellcheck disable=SC2086
launch_checked \
  depthmatte name=m depth-scale="$scale" ! tee name=t \
    t. ! queue ! videoconvert ! pngenc ! multifilesink location="$out.%d" \
  \( filesrc location="$colour" ! decodebin ! videoconvert ! imagefreeze num-buffers=$frames \) ! $detect ! $to_video \
  filesrc location="$depth" ! pngdec ! imagefreeze num-buffers=$frames ! m.depth || failed
# shellcheck disable=SC2086
launch_checked \
  depthmatte name=m depth-scale="$scale" output=matte ! videoconvert ! pngenc ! multifilesink location="$matte.%d" \
  \( filesrc location="$colour" ! decodebin ! videoconvert ! imagefreeze num-buffers=$frames \) ! $detect ! $to_video \
  filesrc location="$depth" ! pngdec ! imagefreeze num-buffers=$frames ! m.depth || failed
last=$((frames - 1))
mv "$out.$last" "$out"; mv "$matte.$last" "$matte"
rm -f "$out".[0-9]* "$matte".[0-9]*
echo "still-pair: wrote $out and $matte"
