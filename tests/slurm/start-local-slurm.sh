#!/usr/bin/env bash
# Starts a one-node Slurm cluster on this machine, for tests/slurm.rs and for trying
# examples/slurm/ without a real cluster: munged, slurmctld and slurmd as plain daemons (the CI
# machine is a container without systemd), all run by root.
#
# Usage (as root):  tests/slurm/start-local-slurm.sh
#                   export SLURM_CONF=/tmp/tumble-slurm/slurm.conf   # what the script prints
#                   sbatch --wrap hostname; squeue; sinfo
#                   tests/slurm/stop-local-slurm.sh
#
# Idempotent: a daemon that is already running is left alone, so running it again only waits for
# the node to be idle. Installs nothing: it needs the Debian packages slurm-wlm (slurmctld,
# slurmd, slurm-client) and munge, which .ci/run installs.
#
# Environment: TUMBLE_SLURM_DIR, the directory for the configuration, state, spool, logs and pid
# files (default /tmp/tumble-slurm). The configuration is $TUMBLE_SLURM_DIR/slurm.conf, handed to
# the daemons with -f and to clients through SLURM_CONF, so /etc/slurm is never written.
# Slurm's default ports (6817, 6818) are used, so this cannot run beside another slurmctld.
set -euo pipefail

dir=${TUMBLE_SLURM_DIR:-/tmp/tumble-slurm}
conf=$dir/slurm.conf
# Every Slurm command below (scontrol, sinfo) reads this instead of /etc/slurm/slurm.conf.
export SLURM_CONF=$conf

log() { echo "start-local-slurm: $*" >&2; }
die() {
  log "error: $*"
  exit 1
}

# slurmd starts jobs as their submitting user and SlurmUser=root below: both need root.
[ "$(id -u)" -eq 0 ] || die "must run as root (slurmctld and slurmd run as root here): sudo $0"

# Installing is the caller's job (.ci/run does it); name the packages rather than fail obscurely.
for tool in munged mungekey munge unmunge slurmctld slurmd sinfo scontrol; do
  command -v "$tool" >/dev/null 2>&1 ||
    die "$tool not found: apt-get install -y slurm-wlm munge"
done

# Is a process with this pid file alive and named $2? (A stale pid file from a killed daemon, or a
# recycled pid, must not count as running.)
running() {
  local pid
  [ -f "$1" ] || return 1
  pid=$(cat "$1" 2>/dev/null) || return 1
  [ -n "$pid" ] && [ "$(cat "/proc/$pid/comm" 2>/dev/null)" = "$2" ]
}

# Prints the last lines of the daemons' logs, for a failure message.
show_logs() {
  local f
  for f in "$dir/slurmctld.log" "$dir/slurmd.log" /var/log/munge/munged.log; do
    [ -f "$f" ] && { echo "--- $f" && tail -n 20 "$f"; } >&2
  done
  return 0
}

# Polls `$@` every 0.2 s for up to $timeout seconds; true once it succeeds.
wait_for() {
  local timeout=$1
  shift
  local deadline=$((SECONDS + timeout))
  until "$@"; do
    [ "$SECONDS" -lt "$deadline" ] || return 1
    sleep 0.2
  done
}

mkdir -p "$dir/state" "$dir/spool"

# --- munge: Slurm's daemons and clients authenticate every message with it. -------------------
# The system munged on its default socket (/run/munge/munge.socket.2) and key
# (/etc/munge/munge.key) is used, since Slurm's clients find it there without configuration.
munge_works() { munge -n </dev/null 2>/dev/null | unmunge >/dev/null 2>&1; }
if ! munge_works; then
  # Debian's munge package creates the key when it is installed; create one if it is missing
  # (a container image may strip it). It must belong to the munge user, mode 0600.
  if [ ! -s /etc/munge/munge.key ]; then
    log "creating /etc/munge/munge.key"
    mungekey --create --keyfile=/etc/munge/munge.key
  fi
  chown munge:munge /etc/munge/munge.key
  chmod 0600 /etc/munge/munge.key
  # /run is a fresh tmpfs in a container and nothing (no systemd-tmpfiles) created munge's
  # socket directory there; munged refuses a socket directory it does not own.
  install -d -o munge -g munge -m 0755 /run/munge
  # munged refuses to start when a stale socket from a killed instance is still there.
  rm -f /run/munge/munge.socket.2 /run/munge/munge.socket.2.lock
  # Run it as the munge user, as the init script would: munged as root would create root-owned
  # seed and log files that a later, properly started munged could not open.
  log "starting munged"
  runuser -u munge -- munged
  # Remember that this script started it, so that stop-local-slurm.sh stops it and only it (a
  # munged that was already running belongs to someone else).
  touch "$dir/munged.started"
  wait_for 10 munge_works || {
    show_logs
    die "munged does not answer"
  }
fi

# --- slurm.conf ---------------------------------------------------------------------------------
# A minimal configuration: one node (this machine, named localhost so that it matches
# SlurmctldHost whatever the hostname is) and one default partition, no accounting database, no
# cgroups (unavailable in most containers): processes are tracked through /proc.
cpus=$(nproc)
new_conf=$(
  cat <<EOF
# Written by tests/slurm/start-local-slurm.sh: a one-node cluster for tests.
ClusterName=tumble-local
# The address given, so that the clients never try ::1 (Slurm listens on IPv4 only by default).
SlurmctldHost=localhost(127.0.0.1)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
MpiDefault=none
# No cgroups in a container: track job processes through /proc and bind no tasks.
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
# No slurmdbd: no accounting, no job completion log (sacct does not work here).
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/none
SchedulerType=sched/backfill
# Allocate single CPUs, so that array tasks run side by side on the node.
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
# A job whose dependency can never be met (afterok on a failed job) is cancelled, not left
# pending for ever, so that a waiting test sees the failure.
DependencyParameters=kill_invalid_depend
# A node that was down comes back when its slurmd registers again (after a restart).
ReturnToService=2
# Finished jobs stay visible to squeue and scontrol for 5 minutes (no sacct without accounting).
MinJobAge=300
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
# RealMemory stays below any machine's memory: slurmd drains a node that has less than this.
NodeName=localhost NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=512 State=UNKNOWN
PartitionName=local Nodes=localhost Default=YES MaxTime=INFINITE State=UP
EOF
)
# Rewrite only when it changed, so that running daemons never see their file change under them.
if [ ! -f "$conf" ] || [ "$(cat "$conf")" != "$new_conf" ]; then
  if running "$dir/slurmctld.pid" slurmctld || running "$dir/slurmd.pid" slurmd; then
    die "$conf would change while the daemons run: run tests/slurm/stop-local-slurm.sh first"
  fi
  printf '%s\n' "$new_conf" >"$conf"
fi

# --- slurmctld: the controller -----------------------------------------------------------------
ctld_up() { scontrol ping 2>/dev/null | grep -q 'is UP'; }
if ! running "$dir/slurmctld.pid" slurmctld; then
  log "starting slurmctld"
  # -c: start empty rather than recover jobs from a previous run of this test cluster. It forks
  # into the background itself once its configuration is read.
  slurmctld -c -f "$conf" || {
    show_logs
    die "slurmctld failed to start"
  }
fi
wait_for 30 ctld_up || {
  show_logs
  die "slurmctld does not answer scontrol ping"
}

# --- slurmd: the node daemon, which runs the jobs ----------------------------------------------
if ! running "$dir/slurmd.pid" slurmd; then
  log "starting slurmd"
  # -N: this daemon is node "localhost" (it would otherwise look for its hostname in the
  # configuration). It forks into the background itself.
  slurmd -f "$conf" -N localhost || {
    show_logs
    die "slurmd failed to start"
  }
fi

# --- wait until the node takes jobs ------------------------------------------------------------
# sinfo prints the node's state: "idle" once slurmd registered (mixed/allocated if jobs of an
# earlier run still hold it); unknown, down or drained states mean not yet, or never.
node_ready() { sinfo -h -n localhost -o %T 2>/dev/null | grep -Eqx 'idle|mixed|allocated'; }
wait_for 60 node_ready || {
  sinfo -N -l >&2 || true
  show_logs
  die "node localhost did not become idle"
}
log "up: $(sinfo -h -n localhost -o '%P %T %c CPUs')"
# The one line on stdout: what a client needs.
echo "SLURM_CONF=$conf"
