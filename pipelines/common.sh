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

# person_prior [matte-name] [faces]: what finds the face for the lock, and
# whether a learned person probability goes with it. With personmask and
# mpfacedetect registered (mediapipe, installed by scripts/setup) and
# DM_LEARNED not 0, the colour runs
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
# and says which on stderr in one line. With the learned elements the rest of
# the script's stderr goes through learned_quiet.
person_prior() {
  local m=${1:-m} faces=${2:-facedetect} me why
  me=$(basename "$0")
  detect="videoconvert"
  if [ "${DM_LEARNED:-1}" = 0 ]; then
    why="DM_LEARNED=0"
  elif gst-inspect-1.0 --exists personmask && gst-inspect-1.0 --exists mpfacedetect; then
    learned=1
    to_video="tee name=${m}_colour ! queue ! $m.video ${m}_colour. ! queue ! personmask ! $m.person"
    exec 2> >(learned_quiet >&2)
    if [ "$faces" = source ]; then
      echo "$me: learned person prior: personmask into $m.person, faces from the source (DM_LEARNED=0: depth only)" >&2
    else
      detect="videoconvert ! mpfacedetect"
      echo "$me: learned person prior: mpfacedetect for the face lock," \
        "personmask into $m.person (DM_LEARNED=0: depth only)" >&2
    fi
    return
  else
    why="personmask/mpfacedetect not registered: scripts/setup installs mediapipe"
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

# learned_quiet: stderr filter for a gst-launch-1.0 running the learned
# elements. It drops what they print at start that is harmless: PyGObject
# 3.42's "The created element should be floating" critical (one per Python
# element; a bindings bug), and TensorFlow Lite's and mediapipe's start-up
# lines. Everything else passes. It ignores Ctrl-C, so gst-launch-1.0 -e can
# still finish its files while it writes to it.
learned_quiet() {
  trap '' INT
  grep --line-buffered -v -e '^$' -e 'The created element should be floating' \
    -e 'Created TensorFlow Lite XNNPACK delegate' -e 'before absl::InitializeLog() is called' \
    -e 'inference_feedback_manager.cc' || true
}
