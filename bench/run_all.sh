#!/usr/bin/env bash
# On a GPU machine: build optimised, run the whole test suite, then every benchmark and the
# 512^3 laplace3d sweep, and print a short table last. Logs go to $OUT (or ./results) when set.
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

"$build/apps/parasol" info | tee "$out/info.txt"
"$build/bench/laplace3d_bench" --benchmark_counters_tabular=true --benchmark_min_time=0.3s \
  --benchmark_out="$out/laplace3d_bench.json" --benchmark_out_format=json >"$out/bench.txt" 2>&1
"$build/apps/parasol" sweep inputs/laplace3d-512.toml -o "$out/laplace3d-512-sweep.h5" --force \
  >"$out/sweep.txt" 2>&1
"$build/bench/montecarlo_bench" --benchmark_counters_tabular=true --benchmark_min_time=0.5s \
  --benchmark_repetitions=3 --benchmark_report_aggregates_only=true >"$out/montecarlo_bench.txt" 2>&1
"$build/bench/coulomb_bench" --benchmark_counters_tabular=true --benchmark_min_time=0.3s \
  >"$out/coulomb_bench.txt" 2>&1
cat "$out/sweep.txt"
echo "== montecarlo (median): time, G path-steps/s, generation ms, path kernel ms"
grep -E "median" "$out/montecarlo_bench.txt"
echo "== coulomb: time, % of the rsqrt limit, G evaluations/s"
grep -E "coulomb/.*(rsqrt|/32x8x1/)" "$out/coulomb_bench.txt"
echo "== benchmark (Gpoints/s, GB/s, % of copy)"
grep -E "laplace3d/" "$out/bench.txt" | awk '{printf "%-40s %s %s %s %s %s %s\n", $1, $2, $3, $4, $5, $6, $7}'
exit $status
