# SPDX-License-Identifier: LGPL-2.1-or-later
# Sourced by the pipeline scripts: use this checkout's build when there is one
# (otherwise the installed plugin in ~/.local/share/gstreamer-1.0/plugins).
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(dirname "$here")"
if [ -f "$root/.build/release/libgstdepthmatte.so" ]; then
  export GST_PLUGIN_PATH="$root/.build/release${GST_PLUGIN_PATH:+:$GST_PLUGIN_PATH}"
fi
# The Python elements (realsensesrc, personmask, mpfacedetect) from this
# checkout: GStreamer's Python loader imports *.py from the python/ folder of
# each GST_PLUGIN_PATH entry (otherwise the installed copies are used).
case ":${GST_PLUGIN_PATH:-}:" in
  *":$root/gst-python:"*) ;;
  *) export GST_PLUGIN_PATH="$root/gst-python${GST_PLUGIN_PATH:+:$GST_PLUGIN_PATH}" ;;
esac
if ! gst-inspect-1.0 depthmatte >/dev/null 2>&1; then
  echo "depthmatte plugin not found: run scripts/setup first" >&2
  exit 1
fi
# Debian's OpenCV lacks the optional nose/mouth/eye cascades facedetect tries
# to load at start; it works without them but prints an error for each
# (set OPENCV_LOG_LEVEL=INFO to see them).
export OPENCV_LOG_LEVEL=${OPENCV_LOG_LEVEL:-SILENT}

# display_sink [what else to pass]: sets show, the sink a script shows its
# output in (raw video in, after videoconvert): $DM_SINK when set (any sink
# description: DM_SINK=fakesink, DM_SINK="jpegenc ! multifilesink
# location=f%05d.jpg"), else autovideosink when there is a display ($DISPLAY
# or $WAYLAND_DISPLAY set), else fakesink sync=true (the pipeline still runs
# at real time and shows nothing) and one line on stderr says so and what to
# pass instead. With no display Debian's autovideosink picks dfbvideosink,
# which crashes gst-launch-1.0.
display_sink() {
  if [ -n "${DM_SINK:-}" ]; then
    show=$DM_SINK
  elif [ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ]; then
    show=autovideosink
  else
    show="fakesink sync=true"
    echo "$(basename "$0"): no display (DISPLAY and WAYLAND_DISPLAY unset): showing nothing;" \
      "set DM_SINK='jpegenc ! multifilesink location=frame%05d.jpg'${1:+ or $1}" >&2
  fi
}

# launch_checked ARGS...: gst-launch-1.0 ARGS for a script whose output file
# must be right. Quiet as with -q, but a WARNING any element posts (which -q
# hides and which leaves the exit status 0, e.g. depthmatte's "No depth
# frame" when the depth picture does not decode) is printed on stderr with
# its details and fails the run, as an ERROR does.
launch_checked() {
  local out rc=0
  out=$(gst-launch-1.0 "$@") || rc=$?
  if grep -q '^WARNING: from element' <<<"$out"; then
    # each warning with its "Additional debug info:" lines, up to the next
    # line of gst-launch-1.0's own
    awk '/^(Setting pipeline|Pipeline is|Redistribute latency|New clock|Got EOS|Execution ended|Freeing pipeline|Got context|Interrupt:)/ { p = 0 }
         /^WARNING: from element/ { p = 1 }
         p' <<<"$out" >&2
    [ "$rc" != 0 ] || rc=1
  fi
  return "$rc"
}

# launch ARGS...: the script's pipeline. When the script writes a file
# (out_file set), any WARNING fails the run (launch_checked) and a failed run
# removes the file; when it shows the picture, gst-launch-1.0 prints its
# messages as they come.
launch() {
  if [ -n "${out_file:-}" ]; then writing "$out_file" -- launch_checked "$@"; else gst-launch-1.0 "$@"; fi
}

# writing [--keep-written] FILE... -- COMMAND...: runs COMMAND, which writes
# the FILEs, and returns its status. When it fails, the FILEs are removed (a
# failed run leaves no empty or unplayable file behind); --keep-written keeps
# those that hold data (fragmented recordings play up to the failure).
# SIGTERM finishes COMMAND as Ctrl-C does (gst-launch-1.0 -e: EOS, files
# closed); Ctrl-C reaches COMMAND itself.
writing() {
  local keep=0 files=() pid rc=0 f
  if [ "$1" = --keep-written ]; then keep=1; shift; fi
  while [ "$1" != -- ]; do files+=("$1"); shift; done
  shift
  "$@" &
  pid=$!
  trap 'kill -INT "$pid" 2>/dev/null' TERM
  trap ':' INT
  while :; do
    wait "$pid" && rc=0 || rc=$?
    kill -0 "$pid" 2>/dev/null || break
  done
  trap - TERM INT
  if [ "$rc" != 0 ]; then
    for f in "${files[@]}"; do
      if [ -e "$f" ] && { [ "$keep" = 0 ] || [ ! -s "$f" ]; }; then
        rm -f "$f"
        echo "$(basename "$0"): removed $f (the run failed)" >&2
      fi
    done
  fi
  return "$rc"
}

# person_prior [matte-name] [faces]: what finds the face for the lock, and
# whether a learned person probability goes with it. With personmask's and
# mpfacedetect's models ready (learned_ready: the LiteRT runtime and models
# that scripts/setup installs) and DM_LEARNED not 0, the colour runs
#   ... ! videoconvert ! mpfacedetect ! tee ! queue ! m.video
#                                   tee ! queue ! personmask ! m.person
# otherwise the stock facedetect (OpenCV's Haar cascade) finds the face and the
# matte is made from depth alone. faces says where the faces come from:
#   facedetect  (default) a detector: mpfacedetect, else facedetect, else none
#               (without gstreamer1.0-opencv)
#   none        mpfacedetect with the learned elements, else no detector (for
#               scripts that lock on the nearest body)
#   source      the source attaches them (rgbdtestsrc): no detector either way
# Sets, for use unquoted in a gst-launch-1.0 line:
#   detect    the face stage on the colour path: raw video in, raw video that
#             depthmatte's video pad takes out (packed RGB with mpfacedetect;
#             "videoconvert" when there is no detector)
#   to_video  where the colour goes from there: "m.video", or the tee above
#   learned   1 with the learned elements, else 0
# and says which on stderr in one line.
person_prior() {
  local m=${1:-m} faces=${2:-facedetect} me why
  me=$(basename "$0")
  detect="videoconvert"
  if [ "${DM_LEARNED:-1}" = 0 ]; then
    why="DM_LEARNED=0"
  elif why=$(learned_ready); then
    learned=1
    to_video="tee name=${m}_colour ! queue ! $m.video ${m}_colour. ! queue ! personmask ! $m.person"
    if [ "$faces" = source ]; then
      echo "$me: learned person prior: personmask into $m.person, faces from the source (DM_LEARNED=0: depth only)" >&2
    else
      detect="videoconvert ! mpfacedetect"
      echo "$me: learned person prior: mpfacedetect for the face lock," \
        "personmask into $m.person (DM_LEARNED=0: depth only)" >&2
    fi
    return
  fi
  learned=0
  to_video="$m.video"
  if [ "$faces" = source ]; then
    echo "$me: depth only ($why): faces from the source" >&2
  elif [ "$faces" = facedetect ] && gst-inspect-1.0 --exists facedetect; then
    detect="videoconvert ! facedetect display=false ! videoconvert"
    echo "$me: depth only ($why): facedetect (OpenCV) for the face lock" >&2
  else
    if [ "$faces" = facedetect ]; then why="$why; facedetect not found: gstreamer1.0-opencv"; fi
    echo "$me: depth only ($why): no face detector (mode=face locks on the nearest body)" >&2
  fi
}

# learned_ready: whether personmask and mpfacedetect have their models (the
# runtime found, loaded and self-tested, as the elements do at start): one
# frame through both, in a process of its own and unlogged; on failure prints
# the elements' reason and returns 1.
learned_ready() {
  local out
  out=$(env -u GST_DEBUG -u GST_DEBUG_FILE gst-launch-1.0 videotestsrc num-buffers=1 ! video/x-raw,width=64,height=48 ! videoconvert ! \
        mpfacedetect ! personmask ! fakesink 2>&1) || { echo "personmask/mpfacedetect do not run"; return 1; }
  if grep -q 'has no .* model' <<<"$out"; then
    sed -n 's/.*has no \(.*\) model: \(.*\)\. \(Its masks\|Frames pass\).*/no \1 model: \2/p' <<<"$out" | head -n1
    return 1
  fi
}

