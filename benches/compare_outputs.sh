#!/usr/bin/env bash
# Bit-for-bit output comparison between two tumble binaries. Every bundled scene runs on 1 and 2
# threads with --events (the larger ones for their first fraction of a second), and five of them
# also in both resting modes; frames.csv and events.csv are compared byte for byte and
# summary.json with its wall-clock fields removed. Used to show that a change meant to move code,
# not physics, left every result as it was.
#
#   benches/compare_outputs.sh BASE_BINARY NEW_BINARY [WORK_DIR]
#
# QUICK=1 runs only the five scenes in both modes.
#
# Exit 0 when every run matches, 1 otherwise (each difference is named).
set -euo pipefail
base=$(realpath "$1")
new=$(realpath "$2")
work=${3:-$(mktemp -d)}
root=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$work/scenes"

# scene file under scenes/ and duration (empty: the scene's own)
cases=(
  "small-funnel.toml:"
  "funnel-250.toml:3"
  "experiments/dominos.toml:"
  "dice-drop.toml:"
  "experiments/marbles.toml:"
)
# (experiments/dominos.toml, seven dominos for 1.2 s, runs whole in microcollision mode in 5.5 s.)

# summary.json without its wall-clock figures, one key per line, so that diff can name a field.
strip() {
  python3 - "$1" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
def drop(x):
    if isinstance(x, dict):
        return {k: drop(v) for k, v in x.items() if k not in ("wall_time",)}
    if isinstance(x, list):
        return [drop(v) for v in x]
    return x
print(json.dumps(drop(d), indent=1, sort_keys=True))
PY
}

fail=0

# Runs one case with both binaries (the base's output is kept in WORK_DIR and reused) and compares.
compare() {
  local tag=$1 scene=$2
  shift 2
  [ -f "$work/base/$tag/summary.json" ] || "$base" run "$scene" --out "$work/base/$tag" "$@" >/dev/null 2>&1 || true
  rm -rf "$work/new/$tag"
  "$new" run "$scene" --out "$work/new/$tag" "$@" >/dev/null 2>&1 || true
  for f in frames.csv events.csv; do
    if [ -f "$work/base/$tag/$f" ] || [ -f "$work/new/$tag/$f" ]; then
      if ! cmp -s "$work/base/$tag/$f" "$work/new/$tag/$f"; then
        echo "DIFFER $tag $f"; fail=1; return
      fi
    fi
  done
  if ! diff <(strip "$work/base/$tag/summary.json") <(strip "$work/new/$tag/summary.json") >"$work/$tag.diff"; then
    echo "DIFFER $tag summary.json ($work/$tag.diff)"; fail=1; return
  fi
  echo "same   $tag ($(wc -l <"$work/new/$tag/frames.csv") frame rows)"
}

if [ -z "${QUICK:-}" ]; then
  # Every bundled scene as it is, with its impulses; the large funnels for their first part.
  while IFS= read -r path; do
    rel=${path#"$root/scenes/"}
    stem=$(echo "${rel%.toml}" | tr / -)
    case $rel in
      funnel-100k.toml) cap=0.05 ;;
      funnel-10k.toml) cap=0.15 ;;
      funnel-4000.toml) cap=0.3 ;;
      funnel.toml | funnel-250.toml | stable-poses.toml) cap=1 ;;
      *) cap=2 ;;
    esac
    for threads in 1 2; do
      compare "all-$stem-t$threads" "$path" --backend cpu --threads "$threads" --events --duration "$cap"
    done
  done < <(find "$root/scenes" -name '*.toml' | sort)
fi

for case in "${cases[@]}"; do
  scene=${case%%:*}
  duration=${case##*:}
  stem=$(basename "${scene%.toml}")
  for mode in constraints microcollisions; do
    # The same scene with [world] resting_contact set to the mode.
    variant="$work/scenes/$stem-$mode.toml"
    python3 - "$root/scenes/$scene" "$variant" "$mode" <<'PY'
import re, sys
src, dst, mode = sys.argv[1:]
text = open(src).read()
text = re.sub(r'(?m)^resting_contact\s*=.*\n', '', text)
text = re.sub(r'(?m)^\[world\]\s*\n', '[world]\nresting_contact = "%s"\n' % mode, text, count=1)
open(dst, "w").write(text)
PY
    for threads in 1 2; do
      args=(--backend cpu --threads "$threads")
      [ -n "$duration" ] && args+=(--duration "$duration")
      compare "$stem-$mode-t$threads" "$variant" "${args[@]}"
    done
  done
done
exit $fail
