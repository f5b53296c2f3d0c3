#!/usr/bin/env bash
# What a process costs before it does anything: the median wall time of 20 runs and the peak
# resident memory (GNU time's maximum RSS) of `parasol --help`, `parasol solvers` and a trivial
# CPU run (laplace3d on 8^3). docs/journal/2026-11.md ("Start-up") keeps the numbers.
#   bench/startup.sh [path/to/parasol]     (default: build/ci/apps/parasol)
set -euo pipefail
cd "$(dirname "$0")/.."
parasol="${1:-build/ci/apps/parasol}"
runs=20
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT

# The median of `runs` wall times in ms, then GNU time's peak RSS in MB (one more run).
measure() {
  local label="$1"
  shift
  local times=()
  for _ in $(seq "$runs"); do
    local start end
    start=$(date +%s%N)
    "$@" >/dev/null 2>&1
    end=$(date +%s%N)
    times+=($(((end - start) / 1000)))
  done
  local median
  median=$(printf '%s\n' "${times[@]}" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
  local rss
  rss=$(/usr/bin/time -f '%M' "$@" 2>&1 >/dev/null | tail -1)
  printf '%-28s median %7.1f ms   peak RSS %6.1f MB\n' "$label" "$(echo "$median / 1000" | bc -l)" \
    "$(echo "$rss / 1024" | bc -l)"
}

measure "parasol --help" "$parasol" --help
measure "parasol solvers" "$parasol" solvers
measure "trivial CPU run (8^3)" "$parasol" run inputs/laplace3d.toml grid.nx=8 grid.ny=8 grid.nz=8 \
  --backend cpu -o "$out/x.h5" --force
