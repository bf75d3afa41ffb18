#!/usr/bin/env bash
# Render time per picture at 640x480 for funnel-1000 (scenes/funnel.toml): runs the scene for
# 3 s once, then `tumble render --every 5` (31 pictures) on the adapter wgpu picks (lavapipe
# where there is no GPU; TUMBLE_ADAPTER=<substring> picks one) and prints tumble's report: the
# median draw time per picture (drawing and reading back), the first picture's (pipeline
# compilation included) and the PNG and GIF encoding time. A benchmark: it asserts nothing.
#
#   benches/render.sh [WORK_DIR]
#
# TUMBLE=path/to/tumble uses that binary (default: target/release/tumble, built if missing).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
tumble=${TUMBLE:-$root/target/release/tumble}
if [ -z "${TUMBLE:-}" ] && [ ! -x "$tumble" ]; then
  cargo build --release --quiet
fi
work=${1:-$(mktemp -d)}
if [ ! -f "$work/funnel/frames.csv" ]; then
  "$tumble" run scenes/funnel.toml --duration 3 --backend cpu --out "$work/funnel" >/dev/null
fi
"$tumble" render "$work/funnel" --every 5 --out "$work/render" 2>/dev/null
