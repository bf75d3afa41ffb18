#!/usr/bin/env bash
# Mirtich 1996, Table 1, rerun: each bundled experiment of scenes/experiments/ for the paper's
# virtual time with `tumble bench --backend cpu`, against Impulse's slow-down (real time over
# virtual time, on an SGI Indigo 2 with an R4400). A benchmark, not a test: it asserts nothing.
#
#   benches/experiments.sh [--repeat N] [--threads T]
#
# TUMBLE=path/to/tumble uses that binary (default: target/release/tumble, built if missing).
# Prints one row per experiment: virtual time (s), our wall time (s, the median of the repeats),
# our slow-down (wall / virtual), Impulse's, and their ratio (ours / Impulse's). Experiments of
# Table 1 whose scene is not in this tree are printed as missing; the gallery's experiments that
# Table 1 does not list follow, at their scenes' own durations.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
extra=()
while [ $# -gt 0 ]; do
  case "$1" in
    --repeat|--threads) extra+=("$1" "$2"); shift 2 ;;
    *) echo "usage: $0 [--repeat N] [--threads T]" >&2; exit 2 ;;
  esac
done
tumble=${TUMBLE:-$root/target/release/tumble}
if [ -z "${TUMBLE:-}" ] && [ ! -x "$tumble" ]; then
  cargo build --release --quiet
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# experiment | scene under scenes/ | Table 1 virtual time (s) | Impulse's slow-down
# (empty for experiments Table 1 does not list: run at the scene's duration).
rows=(
  "dominos|experiments/dominos.toml|1.2|7.5"
  "chain of balls|experiments/chain-of-balls.toml|2.5|1.5"
  "coins|experiments/coins.toml|3.6|4.7"
  "pool break|experiments/pool-break.toml|3.0|14.7"
  "bowling a strike|experiments/bowling.toml|5.0|15.6"
  "ball on platter|experiments/platter.toml|40|1.6"
  "balls in dish|machinery/dish.toml|7.8|2.8"
  "rattleback tops|experiments/rattleback.toml|5.0|3.6"
  "part feeding|machinery/feeder.toml|5.0|13.2"
  "marbles|experiments/marbles.toml||"
  "block on block|experiments/block-on-block.toml||"
)

printf '%-17s %-31s %12s %10s %10s %10s %8s\n' experiment scene "virtual (s)" "wall (s)" slow-down Impulse ratio
printf '%-17s %-31s %12s %10s %10s %10s %8s\n' ----------------- ------------------------------- ------------ ---------- ---------- ---------- --------
for row in "${rows[@]}"; do
  IFS='|' read -r name scene virtual impulse <<<"$row"
  path="scenes/$scene"
  shown=-
  [ -n "$virtual" ] && printf -v shown '%g' "$virtual"
  if [ ! -f "$path" ]; then
    printf '%-17s %-31s %12s %10s %10s %10s %8s\n' "$name" "$scene" "$shown" missing - "${impulse:--}" -
    continue
  fi
  args=(bench "$path" --backend cpu --json "$work/report.json" "${extra[@]}")
  [ -n "$virtual" ] && args+=(--duration "$virtual")
  if ! "$tumble" "${args[@]}" >"$work/out.txt" 2>&1; then
    printf '%-17s %-31s %12s %10s %10s %10s %8s\n' "$name" "$scene" "$shown" failed - "${impulse:--}" -
    tail -3 "$work/out.txt" >&2
    continue
  fi
  python3 - "$work/report.json" "$name" "$scene" "$impulse" <<'PY'
import json, sys
report, name, scene, impulse = sys.argv[1:]
d = json.load(open(report))
virtual, wall = d["sim_time"], d["wall_time"]
slow = wall / virtual
if impulse:
    ratio = "%.4f" % (slow / float(impulse))
else:
    impulse, ratio = "-", "-"
print("%-17s %-31s %12g %10.3f %10.4f %10s %8s" % (name, scene, virtual, wall, slow, impulse, ratio))
PY
done
