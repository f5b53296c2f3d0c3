#!/usr/bin/env bash
# On a GPU machine: this tree against another (an older revision, unpacked beside it), built side
# by side and run in the same call, so that a change's cost is measured on one device at one time:
#   1. every benchmark program both trees have, row by row, the two builds one after the other;
#      rows more than 2 % slower are run again, longer and alternating, before they are reported;
#   2. every shipped input (inputs/*.toml) through both builds' `parasol run`, the two result
#      files compared bit for bit by tools/same_results.py (provenance and timings left out).
#
#   git worktree add /tmp/before <revision>      # or: git archive <revision> | tar -x -C /tmp/before
#   bench/before_after.sh /tmp/before [extra cmake args...]
#
# Environment: OUT (logs and tables; ./results when unset); BENCH_FILTER (a --benchmark_filter
# for every program); BENCHES (the programs, e.g. "laplace3d_bench tridiag_bench": all when unset,
# none when empty); INPUTS (the input files' names: all when unset, none when empty); MIN_TIME (a
# row's, 0.1s when unset); AGAIN (how many slower rows are run again, 20 when unset); BUILT=1 (both
# trees are built already, by an earlier call); PROGRAM_SECONDS (the most one program may run, per
# build: past it the program is stopped and said, the rows it finished are compared, and the
# others still run; 300 when unset); SASS=1 (first, each solver library's kernels compared
# instruction for instruction by tools/same_sass.py: for rows that cannot all run again).
set -uo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 1 ] && [ -f "$1/CMakeLists.txt" ] || { echo "usage: bench/before_after.sh OTHER_TREE [cmake args...]" >&2; exit 2; }
before=$(cd "$1" && pwd); shift
out="${OUT:-results}"; mkdir -p "$out"; out=$(cd "$out" && pwd)
jobs=$(( $(nproc) / 2 )); [ "$jobs" -ge 1 ] || jobs=1
min_time="${MIN_TIME:-0.1s}"

build() {  # tree name: configure and build it under tree/build/before-after
  cmake -S "$1" -B "$1/build/before-after" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DPARASOL_BUILD_TESTS=OFF -DPARASOL_BUILD_BENCH=ON "${@:3}" >"$out/configure-$2.log" 2>&1 &&
    cmake --build "$1/build/before-after" -j"$jobs" >"$out/build-$2.log" 2>&1 ||
    { echo "== $2: build failed"; grep -E " error|Error" -A3 "$out/build-$2.log" | head -30; return 1; }
}
[ -e "$before/.deps" ] || [ ! -e .deps ] || ln -s "$PWD/.deps" "$before/.deps"
if [ "${BUILT:-0}" != 1 ]; then
  build "$before" before "$@" & b=$!
  build "$PWD" after "$@" & a=$!
  wait $b || exit 1
  wait $a || exit 1
  echo "== both built"
fi
old="$before/build/before-after"; new="$PWD/build/before-after"

# 0. With SASS=1: each solver library's kernels, instruction for instruction (tools/same_sass.py).
if [ "${SASS:-0}" = 1 ]; then
  for library in $(cd "$new" && find solvers -name 'libparasol_*.a' | sort); do
    [ -f "$old/$library" ] && python3 tools/same_sass.py "$old/$library" "$new/$library" \
      "$(basename "$library" .a | sed 's/^libparasol_//')"
  done | tee "$out/sass.txt"
fi

# 1. Benchmarks.
programs=${BENCHES-$(cd "$new/bench" && ls *_bench 2>/dev/null)}
for program in $programs; do
  [ -x "$old/bench/$program" ] && [ -x "$new/bench/$program" ] || { echo "== $program: not in both trees"; continue; }
  for side in old new; do
    dir=${!side}
    # JSON on standard output, a line at a time, so that a program stopped part way leaves the
    # rows it finished (before_after.py reads them).
    timeout "${PROGRAM_SECONDS:-300}" stdbuf -oL "$dir/bench/$program" --benchmark_min_time="$min_time" \
      ${BENCH_FILTER:+--benchmark_filter="$BENCH_FILTER"} --benchmark_format=json \
      >"$out/$program-$side.json" 2>"$out/$program-$side.err"
    status=$?
    [ $status = 124 ] && echo "== $program ($side): stopped after ${PROGRAM_SECONDS:-300} s; narrow it with BENCH_FILTER"
    [ $status != 0 ] && [ $status != 124 ] && echo "== $program ($side) exit $status: $(tail -1 "$out/$program-$side.err")"
  done
done
# Rows over 2 % slower, run again: five times each build, alternating, 0.5 s a row; their medians.
python3 bench/before_after.py slower "$out" $programs >"$out/slower.txt"
k=0
while read -r program row; do
  k=$((k + 1))
  for i in 1 2 3 4 5; do
    for side in old new; do
      dir=${!side}
      "$dir/bench/$program" --benchmark_min_time=0.5s --benchmark_filter="$row" --benchmark_format=json \
        --benchmark_out="$out/again-$program-$side-$k-$i.json" --benchmark_out_format=json >/dev/null 2>&1
    done
  done
done < <(head -n "${AGAIN:-20}" "$out/slower.txt")
python3 bench/before_after.py table "$out" $programs | tee "$out/benchmarks.txt"

# 2. Results of every shipped input.
inputs=${INPUTS-$(cd inputs && ls *.toml)}
[ -n "$inputs" ] || exit 0
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
printf "%-28s %9s %9s  %s\n" input "before ms" "after ms" "result files" | tee "$out/results.txt"
for file in $inputs; do
  for side in old new; do
    dir=${!side}; start=$(date +%s%N)
    (cd "$work" && timeout 300 "$dir/apps/parasol" run "$OLDPWD/inputs/$file" -o "$work/$side.h5" --force \
      >"$work/$side.log" 2>&1); echo $? >"$work/$side.rc"
    echo $(( ($(date +%s%N) - start) / 1000000 )) >"$work/$side.ms"
  done
  if [ "$(cat "$work/old.rc")" != 0 ] || [ "$(cat "$work/new.rc")" != 0 ]; then
    verdict="exit $(cat "$work/old.rc") / $(cat "$work/new.rc"): $(tail -1 "$work/new.log" | cut -c1-80)"
  elif python3 tools/same_results.py "$work/old.h5" "$work/new.h5" >"$work/diff.txt"; then
    verdict="same bits"
  else
    verdict="DIFFER: $(head -3 "$work/diff.txt" | tr '\n' ';' | cut -c1-120)"
  fi
  printf "%-28s %9d %9d  %s\n" "$file" "$(cat "$work/old.ms")" "$(cat "$work/new.ms")" "$verdict" | tee -a "$out/results.txt"
  rm -f "$work"/old.h5 "$work"/new.h5
done
