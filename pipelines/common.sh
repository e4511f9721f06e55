# Sourced by the pipeline scripts: use this checkout's build when there is one
# (otherwise the installed plugin in ~/.local/share/gstreamer-1.0/plugins).
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(dirname "$here")"
if [ -f "$root/.build/release/libgstdepthmatte.so" ]; then
  export GST_PLUGIN_PATH="$root/.build/release${GST_PLUGIN_PATH:+:$GST_PLUGIN_PATH}"
fi
if ! gst-inspect-1.0 depthmatte >/dev/null 2>&1; then
  echo "depthmatte plugin not found: run scripts/setup first" >&2
  exit 1
fi
# Debian's OpenCV lacks the optional nose/mouth/eye cascades facedetect tries
# to load at start; it works without them but prints an error for each
# (set OPENCV_LOG_LEVEL=INFO to see them).
export OPENCV_LOG_LEVEL=${OPENCV_LOG_LEVEL:-SILENT}
