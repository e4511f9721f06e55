#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# depthalign's registration against librealsense's rs.align on the same frames:
# builds and runs the Swift bench (writes the frames, truth, calibration and
# its own figures to DIR), then the Python script (librealsense through a
# pyrealsense2 software_device) which prints the side-by-side table.
#   Benchmarks/depthalign-bench.sh [DIR] [RUNS]
# Needs: pip install --break-system-packages pyrealsense2 (for /usr/bin/python3).
set -e
cd "$(dirname "$0")/.."
DIR=${1:-/tmp/depthalign-bench}
RUNS=${2:-60}
command -v swift >/dev/null || export PATH=/opt/swift/usr/bin:$PATH
swift build -c release --package-path Benchmarks --product depthalign-bench >&2
Benchmarks/.build/release/depthalign-bench "$DIR" "$RUNS"
echo
/usr/bin/python3 Benchmarks/depthalign_vs_librealsense.py "$DIR" "$RUNS"
