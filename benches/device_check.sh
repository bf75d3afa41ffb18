#!/usr/bin/env bash
# The GPU backend against the host on the large funnels, back to back in one call: for each
# scene, `tumble bench --backend gpu` and then `--backend cpu --threads N`, one run each. Meant
# for one call on a lent GPU machine (one H100 or H200, 16 cores); a benchmark, not a test: it
# asserts nothing. On lavapipe it runs too, but its timings say nothing about a GPU.
#
#   benches/device_check.sh [--threads N] [--limit S] [BUILD] [-- SCENE:DURATION...]
#
# BUILD is a tumble binary (default: target/release/tumble). The default scenes are issue 47's:
# funnel-10k.toml for 6 s and funnel-100k.toml for 1 s. Each run is stopped after --limit
# seconds of wall time (default 140: four runs fit one device command's 600 s; give a scene
# whose runs need longer a call of its own, e.g. `--limit 280 -- scenes/funnel-10k.toml:6`);
# a stopped run prints `timeout` for its figures. Prints one CSV row per run (wall time, the
# contact step, the sweeps and the part on the device, the stepped islands and their rounds on
# the device, the frame stages, the device's share, collisions, contact steps swept on the
# device, deepest overlap, escaped) and then, per scene, the ratio cpu wall / gpu wall. With
# $OUT set, each run's JSON report is also written there.
set -euo pipefail
threads=16
limit=140
build=target/release/tumble
specs=()
while [ $# -gt 0 ]; do
  case "$1" in
    --threads) threads=$2; shift 2 ;;
    --limit) limit=$2; shift 2 ;;
    --) shift; specs=("$@"); break ;;
    *) build=$1; shift ;;
  esac
done
[ ${#specs[@]} -gt 0 ] || specs=(scenes/funnel-10k.toml:6 scenes/funnel-100k.toml:1)
command -v nvidia-smi >/dev/null && nvidia-smi -L || true
nproc
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
echo "scene,duration_s,backend,threads,wall_s,contact_step_s,contact_sweeps_s,device_sweeps_s,stepped_islands_s,device_rounds_s,frame_stages_s,device_share,collisions,contact_steps,device_contact_steps,max_penetration_m,escaped"
declare -A walls
for spec in "${specs[@]}"; do
  scene=${spec%:*}
  duration=${spec##*:}
  for backend in gpu cpu; do
    json="$work/$backend.json"
    name=$(basename "$scene" .toml)
    if timeout "$limit" "$build" bench "$scene" --backend "$backend" --threads "$threads" \
      --duration "$duration" >"$work/out.txt" 2>"$work/err.txt"; then
      grep -E '^JSON: ' "$work/out.txt" | sed 's/^JSON: //' >"$json"
      [ -z "${OUT:-}" ] || cp "$json" "$OUT/$name-$backend.json"
      row=$(python3 - "$json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
t, c = d["stage_times"], d["counts"]
share = d.get("device_share")
print(",".join(str(x) for x in [
    round(d["wall_time"], 3), round(t.get("contact_step", 0), 3),
    round(t.get("contact_sweeps", 0), 3), round(t.get("device_sweeps", 0), 3),
    round(t.get("stepped_islands", 0), 3), round(t.get("device_rounds", 0), 3),
    round(t.get("frame_stages", 0), 3), "" if share is None else round(share, 4),
    c["collisions"], c["contact_steps"], c.get("device_contact_steps", 0),
    d["max_penetration"], d["escaped"]]))
EOF
      )
      walls[$scene,$backend]=${row%%,*}
    else
      row="timeout,,,,,,,,,,,,"
      tail -3 "$work/err.txt" >&2 || true
    fi
    echo "$scene,$duration,$backend,$threads,$row"
  done
done
for spec in "${specs[@]}"; do
  scene=${spec%:*}
  g=${walls[$scene,gpu]:-}
  c=${walls[$scene,cpu]:-}
  if [ -n "$g" ] && [ -n "$c" ]; then
    python3 -c "print('$scene: cpu/gpu wall = %.2f' % ($c / $g))"
  fi
done
