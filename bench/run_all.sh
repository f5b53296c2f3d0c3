#!/usr/bin/env bash
# On a GPU machine: build optimised, run the whole test suite, then the benchmark of every
# registered solver (`parasol solvers` lists them) and the 512^3 laplace3d sweep, and print a
# short table last. Logs go to $OUT (or ./results) when set, few files: configure/build/ctest
# logs, bench.txt (every benchmark, one after another), bench-<solver>.json, sweep.txt.
#   bench/run_all.sh [extra cmake args...]
set -uo pipefail
cd "$(dirname "$0")/.."
out="${OUT:-results}"
mkdir -p "$out"
build=build/gpu

cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$PWD/.deps" "$@" \
  >"$out/configure.log" 2>&1 || { tail -30 "$out/configure.log"; exit 1; }
cmake --build "$build" -j"$(nproc)" >"$out/build.log" 2>&1 || { grep -E "error|Error" -A3 "$out/build.log" | head -60; exit 1; }
echo "== build ok"

ctest --test-dir "$build" -j4 --output-on-failure --timeout 900 >"$out/ctest.log" 2>&1
status=$?
grep -E "tests passed|tests failed|Failed|\*\*\*" "$out/ctest.log" | head -40
echo "== ctest exit $status"

parasol="$build/apps/parasol"
"$parasol" info
: >"$out/bench.txt"
for solver in $("$parasol" solvers --names); do
  program="$build/bench/${solver}_bench"
  if [ ! -x "$program" ]; then
    echo "== $solver: no benchmark built ($program)"
    status=1
    continue
  fi
  echo "== $solver" >>"$out/bench.txt"
  "$program" --benchmark_counters_tabular=true --benchmark_min_time=0.3s \
    --benchmark_out="$out/bench-$solver.json" --benchmark_out_format=json >>"$out/bench.txt" 2>&1 ||
    status=1
done
# What a user waits for: every solver's study input through `parasol run`, phase by phase.
echo "== run (end to end)" >>"$out/bench.txt"
"$build/bench/run_bench" --benchmark_counters_tabular=true \
  --benchmark_out="$out/bench-run.json" --benchmark_out_format=json >>"$out/bench.txt" 2>&1 ||
  status=1
"$parasol" sweep inputs/laplace3d-512.toml -o "$out/laplace3d-512-sweep.h5" --force \
  >"$out/sweep.txt" 2>&1 || status=1
cat "$out/sweep.txt"
echo "== benchmarks (name, time, counters)"
grep -E "^(== |[a-z0-9]+/)" "$out/bench.txt" | awk '{printf "%-48s %s %s %s %s %s %s\n", $1, $2, $3, $4, $5, $6, $7}'
exit $status
