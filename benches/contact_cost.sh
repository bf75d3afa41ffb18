#!/usr/bin/env bash
# Instructions per contact point-step by stage, counted by `valgrind --tool=cachegrind
# --cache-sim=no`: deterministic where the wall time per contact point-step of `tumble bench`
# moves 15–30 % between runs on a shared machine. A benchmark: it asserts nothing.
#
#   benches/contact_cost.sh [OUT_DIR]
#
# Two runs, each on one thread (under valgrind threads take turns anyway, and with two the
# contact step's crew threads spin while they wait, which would count waiting as work):
#
# 1. small-funnel: `tumble bench scenes/small-funnel.toml` whole (4 s; about 6 s under
#    valgrind), SMALL_DURATION=S for less or more.
# 2. funnel window: `scenes/funnel.toml` from FROM to TO s (WINDOW="FROM TO", default
#    "1.5 1.7": the cubes reach the throat and the pile forms, 0.47 million contact points and
#    0.15 million collisions in 0.2 s; about 40 s under valgrind). `tumble bench` always
#    starts from the scene, so the window is a checkpoint and its resume: `tumble run
#    --duration FROM --checkpoint-every FROM` outside valgrind (1.5 s), then `tumble run
#    --resume` to TO under valgrind. Both write summary.json with the world's counters; the
#    window's contact point-steps are the difference of their `counts.resting_contacts`.
#
# Each run is paired with a run of no simulated time under valgrind (the bench with --duration
# 0; the resume to FROM itself), and its instructions are taken away function by function, so
# that start-up, World::new, reading the checkpoint and writing the reports cancel and the
# tables count stepping only. The printed start-up line says how much that was. What does not
# cancel is what the end's state costs more to write than the start's (the checkpoint's SHA-256,
# summary.json): in the window's "other", about 0.5 % of it. Two runs of the same binary differ
# by about 0.01 % (the worker pool's waits and the clock reads).
#
# The attribution: cachegrind counts instructions per function as the symbol table names it
# (what `cg_annotate` prints; inlined code counts in the function it was inlined into) and per
# source line. A function goes to the first stage of STAGES below whose pattern (a Python
# regular expression, searched) its name matches; one no pattern matches (closures called
# through `call_mut` and other library generics) goes by the crate's source file of its lines
# (src/hash_grid.rs read as tumble::hash_grid::), else by the crate file most of its instructions
# come from; the rest is "other". Each table lists stage, instructions (Ir), Ir per contact
# point-step and share, then the largest functions left in "other", to edit STAGES by.
#
# Writes into OUT_DIR (default target/contact_cost/): per run NAME.csv (the table),
# NAME-functions.csv (every function's Ir and stage, start-up taken away), the cachegrind
# files NAME.cg and NAME-start.cg (for `cg_annotate`), and the runs' JSON reports.
#
# TUMBLE=path/to/tumble uses that binary (default: target/release/tumble, built if missing).
# Installs valgrind with apt-get if it is missing.
set -euo pipefail

# stage | pattern. The first stage whose pattern a function's name (or its source file's module
# path) matches takes its instructions; order matters: the library stages come first so that
# the crate's stages do not take a sort or a memcpy by its caller's name, and the solver's
# `resting_contact::` modules before the world's gathering, whose `gather` would take
# `Constraints::gather_rows`.
STAGES='
memory (memcpy, malloc, free)          | ^(__)?mem(move|cpy|set|cmp)|^(__libc_|_int_)?(malloc|free|realloc|calloc)\b|^cfree|malloc_consolidate|unlink_chunk|alloc::raw_vec|^__rust_(alloc|dealloc|realloc)|^alloc::alloc::
sorting                                | sort
hashing (hashbrown)                    | hashbrown|::hash::|Hasher
maths library (floor, sincos)          | ^(__)?(ieee754_)?(floor|ceil|round|trunc|fmod|sincos|sin|cos|tan|atan2?|asin|acos|exp|log|pow|cbrt|hypot)(_fma|_avx2|_finite|f)?\b
sweeps (Gauss–Seidel, shock)           | resting_contact::(sweep|friction|shock|colouring|slots|crew|device_sweep)
narrow phase                           | narrow_phase::|box_box|Collider::support|proximity|part_part|geometry_guard|parry3d
broad phase (hash grid, swept boxes)   | hash_grid::|swept_aabb|swept_boxes|broad_phase
TOI and pair bounds                    | toi_bound|pair_bound|world::bounds|motion_bound
prepare, warm start, split, push-out   | resting_contact::(prepare|warm_start|split|push_apart|patch|tracked_point|prediction|solver)
contact-step gathering                 | contact_step|resting_contact_step|gather|contact_band|world::islands|union_find
impacts and collision rounds           | impacts|round_sweeps|collide|collision_impulse|collision_round|island_step|world::jam|device_round
event loop (heap, held pairs)          | event_loop|event_heap|world::held|binary_heap|world::sleep|event_frame|world::resolution|band_crossing
body state (inertia, impulse, motion)  | tumble::body::|ballistic|kinematic_path
'

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
tumble=${TUMBLE:-$root/target/release/tumble}
if [ -z "${TUMBLE:-}" ] && [ ! -x "$tumble" ]; then
  cargo build --release --quiet
fi
out=${1:-target/contact_cost}
mkdir -p "$out"
out=$(cd "$out" && pwd)
read -r from to <<<"${WINDOW:-1.5 1.7}"

if ! command -v valgrind >/dev/null; then
  sudo=""
  [ "$(id -u)" = 0 ] || sudo=sudo
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq valgrind >/dev/null
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# cachegrind NAME COMMAND...: runs COMMAND under cachegrind into OUT_DIR/NAME.cg.
cachegrind() {
  local name=$1
  shift
  valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file="$out/$name.cg" "$@" \
    >"$work/$name.out" 2>"$work/$name.err" || {
    echo "$name failed:" >&2
    tail -20 "$work/$name.err" >&2
    exit 1
  }
}

# attribute TITLE NAME CONTACT_POINT_STEPS: prints and writes the table of OUT_DIR/NAME.cg
# less OUT_DIR/NAME-start.cg.
attribute() {
  STAGES="$STAGES" ROOT="$root" python3 - "$1" "$out/$2" "$3" <<'PY'
import collections, csv, os, re, sys

title, base, point_steps = sys.argv[1], sys.argv[2], int(sys.argv[3])
root = os.environ["ROOT"].rstrip("/") + "/"
stages = []
for line in os.environ["STAGES"].splitlines():
    if "|" in line and not line.lstrip().startswith("#"):
        name, pattern = line.split("|", 1)
        stages.append((name.strip(), re.compile(pattern.strip())))


def read(path):
    """Ir by (source file, function) of a cachegrind file."""
    ir = collections.Counter()
    fl = fn = None
    with open(path) as f:
        for line in f:
            if line.startswith("fl="):
                fl = line[3:].strip()
            elif line.startswith("fn="):
                fn = line[3:].strip()
            elif line[:1].isdigit() and fn is not None:
                ir[(fl, fn)] += int(line.split()[1])
    return ir


def module(fl):
    """The crate's module path of a source file of the crate (src/a/b.rs: tumble::a::b::)."""
    if not fl or not fl.startswith(root + "src/"):
        return None
    parts = fl[len(root) + 4 : -3].split("/")
    if parts[-1] in ("mod", "lib", "main"):
        parts = parts[:-1]
    return "::".join(["tumble"] + parts) + "::"


def stage_of(text):
    for name, pattern in stages:
        if text and pattern.search(text):
            return name
    return None


run, start = read(base + ".cg"), read(base + "-start.cg")
ir = collections.Counter(run)
ir.subtract(start)
# The crate file each function's instructions mostly come from.
by_file = collections.defaultdict(collections.Counter)
for (fl, fn), n in ir.items():
    if module(fl):
        by_file[fn][fl] += n
by_stage = collections.Counter()
by_function = collections.Counter()
function_stage = {}
for (fl, fn), n in ir.items():
    stage = stage_of(fn) or stage_of(module(fl))
    if stage is None and by_file[fn]:
        stage = stage_of(module(by_file[fn].most_common(1)[0][0]))
    stage = stage or "other"
    by_stage[stage] += n
    by_function[(fn, stage)] += n
total = sum(by_stage.values())
order = [name for name, _ in stages] + ["other"]
rows = []
for name in order:
    n = by_stage.get(name, 0)
    per = n / point_steps if point_steps else None
    rows.append((name, n, per, n / total if total else 0.0))
rows.append(("total", total, total / point_steps if point_steps else None, 1.0 if total else 0.0))

print(f"== {title}")
print(
    f"   {point_steps:,} contact point-steps; {total:,} instructions stepping "
    f"(start-up, {sum(start.values()):,}, taken away)"
)
width = max(len(r[0]) for r in rows)
print(f"   {'stage':<{width}}  {'Ir':>15}  {'Ir/contact point-step':>21}  {'share':>6}")
print(f"   {'-' * width}  {'-' * 15}  {'-' * 21}  {'-' * 6}")
for name, n, per, share in rows:
    per_text = f"{per:,.0f}" if per is not None else "n/a"
    print(f"   {name:<{width}}  {n:>15,}  {per_text:>21}  {100 * share:>5.1f}%")
others = [(fn, n) for (fn, stage), n in by_function.most_common() if stage == "other"][:8]
if others:
    print("   largest in other:")
    for fn, n in others:
        print(f"     {n:>13,}  {fn[:110]}")
print()

with open(base + ".csv", "w", newline="") as f:
    w = csv.writer(f)
    w.writerow(["stage", "ir", "ir_per_contact_point_step", "share"])
    for name, n, per, share in rows:
        w.writerow([name, n, "" if per is None else f"{per:.1f}", f"{share:.6f}"])
with open(base + "-functions.csv", "w", newline="") as f:
    w = csv.writer(f)
    w.writerow(["function", "stage", "ir"])
    for (fn, stage), n in by_function.most_common():
        if n:
            w.writerow([fn, stage, n])
PY
}

# counts FILE: counts.resting_contacts of a JSON report or summary.json.
resting() {
  python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["counts"]["resting_contacts"])' "$1"
}

# 1. small-funnel, whole, as `tumble bench` runs it.
small=()
[ -z "${SMALL_DURATION:-}" ] || small=(--duration "$SMALL_DURATION")
bench=("$tumble" bench scenes/small-funnel.toml --backend cpu --threads 1)
echo "small-funnel under cachegrind ..." >&2
cachegrind small-funnel-start "${bench[@]}" --duration 0 --json "$out/small-funnel-start.json"
cachegrind small-funnel "${bench[@]}" "${small[@]}" --json "$out/small-funnel.json"
seconds=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["sim_time"])' "$out/small-funnel.json")
attribute "scenes/small-funnel.toml, 0 to $seconds s (tumble bench --backend cpu --threads 1)" \
  small-funnel "$(resting "$out/small-funnel.json")"

# 2. funnel.toml from FROM to TO s: a checkpoint at FROM outside valgrind, the resume under it.
echo "funnel.toml to $from s (checkpoint, outside valgrind) ..." >&2
"$tumble" run scenes/funnel.toml --out "$work/checkpoint" --duration "$from" \
  --checkpoint-every "$from" --threads 1 --backend cpu --record cube_0 >"$work/checkpoint.log" 2>&1 || {
  echo "the run to the checkpoint failed:" >&2
  tail -20 "$work/checkpoint.log" >&2
  exit 1
}
cp -r "$work/checkpoint" "$work/start"
cp -r "$work/checkpoint" "$work/window"
echo "funnel.toml from $from to $to s under cachegrind ..." >&2
cachegrind funnel-window-start "$tumble" run --resume "$work/start" --duration "$from" --threads 1
cachegrind funnel-window "$tumble" run --resume "$work/window" --duration "$to" --threads 1
cp "$work/checkpoint/summary.json" "$out/funnel-window-start.json"
cp "$work/window/summary.json" "$out/funnel-window.json"
steps=$(($(resting "$out/funnel-window.json") - $(resting "$out/funnel-window-start.json")))
attribute "scenes/funnel.toml, $from to $to s (tumble run --resume from a checkpoint at $from s, --threads 1)" \
  funnel-window "$steps"

echo "Tables as CSV in $out: small-funnel.csv, funnel-window.csv (and *-functions.csv)."
