#!/usr/bin/env bash
# Thread scaling: `tumble bench --backend cpu` of one or more builds on one or more scenes at
# several thread counts, one run each, the builds alternating within each thread count so that
# a comparison is back to back. A benchmark, not a test: it asserts nothing.
#
#   benches/scaling.sh [--threads "2 4 8 16"] [--duration S] SCENE... -- BUILD...
#
# BUILD is a path to a tumble binary (default: target/release/tumble). Prints one CSV row per
# run: build, scene, threads, wall time and the contact step's (and of it, its sweeps'), the
# event loop's and the broad phase's shares (s), collisions, local re-solves, step and re-solve point-sweeps, maximum
# penetration, bodies through the outlet, and whether the counts equal the first thread
# count's for the same build and scene (the run must not depend on the thread count).
set -euo pipefail
threads="2 4 8 16"
duration=()
scenes=()
builds=()
while [ $# -gt 0 ]; do
  case "$1" in
    --threads) threads=$2; shift 2 ;;
    --duration) duration=(--duration "$2"); shift 2 ;;
    --) shift; builds=("$@"); break ;;
    *) scenes+=("$1"); shift ;;
  esac
done
[ ${#scenes[@]} -gt 0 ] || { echo "usage: $0 [--threads LIST] [--duration S] SCENE... -- BUILD..." >&2; exit 2; }
[ ${#builds[@]} -gt 0 ] || builds=(target/release/tumble)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fig() { grep -E "^$1 " "$2" | head -1 | sed -E "s/^$1 +//; s/ .*//"; }
echo "build,scene,threads,wall_s,contact_step_s,contact_sweeps_s,event_loop_s,broad_phase_s,collisions,re_solves,step_point_sweeps,resolve_point_sweeps,max_penetration_m,through_outlet,same_counts"
declare -A first
for scene in "${scenes[@]}"; do
  for t in $threads; do
    for b in "${builds[@]}"; do
      out="$work/run.txt"
      "$b" bench "$scene" --backend cpu --threads "$t" "${duration[@]}" >"$out" 2>&1 || true
      counts=$(grep -E "^count " "$out" | tr -s ' ' | paste -sd' ')
      key="$b|$scene"
      [ -n "${first[$key]:-}" ] || first[$key]=$counts
      same=no; [ "${first[$key]}" = "$counts" ] && same=yes
      echo "$(basename "$b"),$(basename "$scene" .toml),$t,$(fig 'wall time \(s\)' "$out"),$(fig 'stage contact_step \(s\)' "$out"),$(fig 'stage contact_sweeps \(s\)' "$out"),$(fig 'stage event_loop \(s\)' "$out"),$(fig 'stage broad_phase \(s\)' "$out"),$(fig 'count collisions' "$out"),$(fig 'count held_resolutions' "$out"),$(fig 'count step_point_sweeps' "$out"),$(fig 'count resolve_point_sweeps' "$out"),$(fig 'max penetration \(m\)' "$out"),$(fig 'through outlet' "$out"),$same"
    done
  done
done
