#!/usr/bin/env bash
# Stops the one-node Slurm cluster of tests/slurm/start-local-slurm.sh: slurmd, slurmctld, and
# munged if that script started it. Idempotent: what is not running is skipped.
#
# Usage (as root): tests/slurm/stop-local-slurm.sh [--purge]
#   --purge  also delete $TUMBLE_SLURM_DIR (configuration, state, logs); default /tmp/tumble-slurm.
set -euo pipefail

dir=${TUMBLE_SLURM_DIR:-/tmp/tumble-slurm}
purge=false
case "${1:-}" in
  --purge) purge=true ;;
  "") ;;
  *)
    echo "usage: $0 [--purge]" >&2
    exit 2
    ;;
esac

log() { echo "stop-local-slurm: $*" >&2; }

# Sends SIGTERM to the process in pid file $1 if it is alive and named $2 (never a recycled pid),
# then waits up to 20 s for it to exit, and SIGKILLs it after that.
stop() {
  local pid
  [ -f "$1" ] || return 0
  pid=$(cat "$1" 2>/dev/null) || return 0
  if [ -z "$pid" ] || [ "$(cat "/proc/$pid/comm" 2>/dev/null)" != "$2" ]; then
    rm -f "$1"
    return 0
  fi
  log "stopping $2 ($pid)"
  kill -TERM "$pid" 2>/dev/null || true
  for _ in $(seq 100); do
    [ -d "/proc/$pid" ] || break
    sleep 0.2
  done
  if [ -d "/proc/$pid" ]; then
    log "$2 ($pid) ignored SIGTERM for 20 s: SIGKILL"
    kill -KILL "$pid" 2>/dev/null || true
  fi
  rm -f "$1"
}

# slurmd first: the controller would otherwise mark its node down while it shuts down.
stop "$dir/slurmd.pid" slurmd
stop "$dir/slurmctld.pid" slurmctld
# munged only if start-local-slurm.sh started it; a munged that was already running is not ours.
if [ -f "$dir/munged.started" ]; then
  stop /run/munge/munged.pid munged
  rm -f "$dir/munged.started"
fi
if $purge; then
  rm -rf "$dir"
fi
