#!/usr/bin/env bash
# Fails if a build log (cargo's "Compiling" lines, from `cargo test --release --no-run` after
# `cargo build --release`, or from `pip install -v ./python`) compiled again a crate that the
# engine's own build had compiled: that happens when a dev-dependency or the Python package turns
# on a feature of a shared crate that the engine does not (Cargo.toml, "Feature alignment"), and it
# costs a newcomer minutes of naga and wgpu. CRATE… may be compiled again: `tumble` for the tests'
# build, whose unit-test harness is a target of its own; the wheel's build may compile none.
#
# Usage: .ci/one_build.sh LOG [CRATE…]
set -euo pipefail
log="$1"
shift
allowed="$(printf '%s\n' "$@")"
cd "$(dirname "$0")/.."

# The crates of the engine's build: its normal and build dependencies, by name and version.
engine="$(cargo tree -p tumble -e normal,build --prefix none --format '{p}' \
  | awk '{print $1" "$2}' | sort -u)"
# What the log compiled, as "name vVERSION".
# (None at all is fine: grep's exit status for no match must not end the script.)
compiled="$({ grep -E '^ *Compiling ' "$log" || true; } | awk '{print $2" "$3}' | sort -u)"

again="$(comm -12 <(echo "$engine") <(echo "$compiled") \
  | awk -v allowed="$allowed" 'BEGIN { n = split(allowed, a, "\n"); for (i = 1; i <= n; i++) ok[a[i]] = 1 }
                               !($1 in ok)' || true)"
echo "one build: $(echo "$compiled" | grep -c . || true) crates compiled by $(basename "$log")"
if [ -n "$again" ]; then
  echo "error: these crates of the engine's build were compiled again (a feature differs;"
  echo "compare \`cargo tree -e features\` of the two builds and align Cargo.toml):"
  echo "$again" | sed 's/^/  /'
  exit 1
fi
