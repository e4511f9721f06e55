#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Replay a librealsense recording (.db3 as librealsense 2.59 writes it) through
# depthmatte into an H.264 MP4 (main profile, I420: stock openh264dec plays it).
# Every frame of the recording is keyed (the recording is not live); depth is
# registered to colour inside realsensesrc (align=true, the default).
#   pipelines/replay-realsense.sh recording.db3 [out.mp4] [extra depthmatte properties...]
#   pipelines/replay-realsense.sh session.db3 keyed.mp4 mode=fixed cutoff=1.2
# With no extra properties: mode=nearest (the nearest large body is the subject).
# With the learned models installed (scripts/setup) personmask gives depthmatte's person
# pad a person probability and mpfacedetect finds faces (for mode=face); with
# DM_LEARNED=0, or without the learned models, the matte comes from depth alone. One line
# on stderr says which.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(dirname "$here")"
rec=${1:?usage: $0 recording.db3 [out.mp4] [depthmatte properties...]}
out=${2:-${rec%.*}-keyed.mp4}
shift; shift || true
props=("$@")
[ ${#props[@]} -gt 0 ] || props=(mode=nearest)

# The files made here, removed by one EXIT trap however the script ends (so
# gst-launch-1.0 below is not exec'd: exec would skip the trap).
tmp=()
trap 'rm -f "${tmp[@]}"' EXIT
# realsensesrc lives in gst-python/python/ (GStreamer's Python loader); the Python
# loader caches in the registry, so use a throw-away one unless told otherwise.
export GST_PLUGIN_PATH="$root/gst-python${GST_PLUGIN_PATH:+:$GST_PLUGIN_PATH}"
if [ -z "${GST_REGISTRY:-}" ]; then
  GST_REGISTRY="$(mktemp -t gst-registry-XXXXXX.bin)"
  export GST_REGISTRY
  tmp+=("$GST_REGISTRY")
fi
source "$here/common.sh"
if ! gst-inspect-1.0 realsensesrc >/dev/null 2>&1; then
  echo "realsensesrc not found: run scripts/setup (gst-python loader + pyrealsense2)" >&2
  exit 1
fi

# depth-scale hand-over: realsensesrc reads the depth units from the recording at
# READY; depthmatte needs the same metres-per-unit to read the GRAY16 values.
# (the reason it cannot is printed; GStreamer's warning about Python-made
# elements not being floating is not)
errs=$(mktemp)
tmp+=("$errs")
scale=$(/usr/bin/python3 - "$rec" 2>"$errs" <<'EOF'
import sys, gi
gi.require_version("Gst", "1.0")
from gi.repository import Gst
Gst.init(None)
p = Gst.Pipeline()
s = Gst.ElementFactory.make("realsensesrc")
p.add(s)
s.set_property("location", sys.argv[1])
if p.set_state(Gst.State.READY) != Gst.StateChangeReturn.SUCCESS:
    msg = p.get_bus().pop_filtered(Gst.MessageType.ERROR)
    why = "no reason given"
    if msg:
        err, dbg = msg.parse_error()
        why = err.message + (f" ({dbg})" if dbg else "")
    p.set_state(Gst.State.NULL)
    sys.exit(f"cannot read {sys.argv[1]} as a librealsense recording: {why}")
print(s.get_property("depth-scale"))
p.set_state(Gst.State.NULL)
EOF
) || { grep -v -e "should be floating" -e '^$' "$errs" >&2; exit 1; }
echo "replay-realsense: depth-scale $scale m/unit -> $out"

person_prior m none
# shellcheck disable=SC2086
gst-launch-1.0 -e \
  realsensesrc location="$rec" name=s \
  depthmatte name=m depth-scale="$scale" "${props[@]}" ! \
    videoconvert ! video/x-raw,format=I420 ! \
    x264enc speed-preset=veryfast ! video/x-h264,profile=main ! h264parse ! \
    mp4mux ! filesink location="$out" \
  s.video ! queue ! $detect ! $to_video \
  s.depth ! queue ! m.depth
