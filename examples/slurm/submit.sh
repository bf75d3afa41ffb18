#!/usr/bin/env bash
# Runs `tumble batch` on a Slurm cluster: an array job of SHARDS tasks, task I running
# `tumble batch SCENE --shard I/SHARDS` into OUT/shard-I (batch-array.sbatch), then a job that
# `tumble batch merge`s them into OUT/merged once all succeeded (merge.sbatch,
# --dependency=afterok on the array).
#
# Usage: examples/slurm/submit.sh SCENE SHARDS [OUT]
#   e.g. TRIALS=1000 examples/slurm/submit.sh scenes/stable-poses.toml 8 out/poses
#   SCENE   the scene file
#   SHARDS  the number of array tasks (shards)
#   OUT     the output directory, on a file system that every node sees
#           (default out/<scene file stem>); logs go to OUT/logs
# Environment:
#   TUMBLE         the tumble executable, visible to every node (default: tumble on PATH, else
#                  target/release/tumble under the current directory)
#   TRIALS, SEED   tumble batch's --trials (total over all shards) and --seed; unset: its defaults
#   CPUS_PER_TASK  CPUs per shard, and tumble's --threads (default 1)
#   SBATCH_PARTITION, SBATCH_ACCOUNT, SBATCH_TIMELIMIT, ...: sbatch's own input variables, for
#                  both jobs
# Prints the two job ids on stdout as `array_job=ID` and `merge_job=ID`.
set -euo pipefail

usage() {
  echo "usage: $0 SCENE SHARDS [OUT]   (environment: TUMBLE, TRIALS, SEED, CPUS_PER_TASK)" >&2
  exit 2
}
if [ $# -lt 2 ] || [ $# -gt 3 ]; then
  usage
fi
[[ $2 =~ ^[1-9][0-9]*$ ]] || {
  echo "submit.sh: SHARDS must be a positive integer, got '$2'" >&2
  usage
}

# The .sbatch files sit next to this script, wherever it is called from.
here=$(cd "$(dirname "$0")" && pwd)

# Absolute paths throughout, so that the jobs do not depend on their working directory and the
# log says exactly what ran.
[ -f "$1" ] || {
  echo "submit.sh: no scene file $1" >&2
  exit 2
}
SCENE=$(realpath "$1")
SHARDS=$2
scene_file=${SCENE##*/}
OUT=$(realpath -m "${3:-out/${scene_file%.toml}}")
if [ -z "${TUMBLE:-}" ]; then
  TUMBLE=$(command -v tumble || echo target/release/tumble)
fi
# A bare name (TUMBLE=tumble) is looked up on PATH.
if [[ $TUMBLE != */* ]]; then
  TUMBLE=$(command -v "$TUMBLE" || echo "$TUMBLE")
fi
if [ ! -x "$TUMBLE" ]; then
  echo "submit.sh: no tumble executable $TUMBLE: build it (cargo build --release) or set TUMBLE" >&2
  exit 2
fi
TUMBLE=$(realpath "$TUMBLE")
cpus=${CPUS_PER_TASK:-1}

# Slurm writes job output only into existing directories.
mkdir -p "$OUT/logs"

# The jobs read their settings from the environment (TRIALS and SEED, when given, are there
# already), which sbatch hands them with --export=ALL, given explicitly because some sites
# default to SBATCH_EXPORT=NONE.
export TUMBLE SCENE OUT SHARDS

# --parsable prints "ID" or "ID;CLUSTER": keep the id.
array_job=$(sbatch --parsable --export=ALL \
  --array="1-$SHARDS" --cpus-per-task="$cpus" \
  --output="$OUT/logs/%x-%A_%a.out" \
  "$here/batch-array.sbatch")
array_job=${array_job%%;*}

# afterok: the merge starts only when every task of the array exited 0.
# --kill-on-invalid-dep: if one fails, Slurm cancels the merge instead of leaving it pending
# (reason DependencyNeverSatisfied) for ever.
if ! merge_job=$(sbatch --parsable --export=ALL \
  --dependency="afterok:$array_job" --kill-on-invalid-dep=yes \
  --output="$OUT/logs/%x-%j.out" \
  "$here/merge.sbatch"); then
  # Without its merge the array would only leave shards behind: take it back.
  echo "submit.sh: submitting the merge failed: cancelling array job $array_job" >&2
  scancel "$array_job" || true
  exit 1
fi
merge_job=${merge_job%%;*}

echo "array_job=$array_job"
echo "merge_job=$merge_job"
echo "submit.sh: $SHARDS shards of $SCENE; results in $OUT/merged, logs in $OUT/logs;" \
  "watch with: squeue -j $array_job,$merge_job" >&2
