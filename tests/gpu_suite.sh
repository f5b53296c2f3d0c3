#!/usr/bin/env bash
# On a machine with a GPU: the whole test suite in minutes. ctest starts one process per test, and
# each makes its own device context (about 2,900 of them); here every GoogleTest program of the
# build runs whole instead, JOBS at a time. The programs whose tests start ranks under a launcher
# or send signals to runs (ranks_*, checkpoint, batch_job, comm) still run under ctest, which
# gives each test its own launcher and time limit, as do the tests that are not GoogleTest
# programs (the docs, scripts and install checks).
#
#   tests/gpu_suite.sh [BUILD_DIR]      # build/ci when not given; built with tests (the default)
#
# Environment: JOBS (programs at a time, 6 when unset), PROGRAM_SECONDS (the most one program or
# ctest test may run, 400 when unset). Prints one row a program (tests passed, failed and skipped,
# seconds) and the ctest summary; the logs of the programs that failed go under
# BUILD_DIR/gpu-suite/. Exit status 1 when anything failed or ran past its time.
set -uo pipefail
build=$(cd "${1:-build/ci}" && pwd) || { echo "gpu_suite.sh: no build folder ${1:-build/ci}" >&2; exit 2; }
[ -d "$build/tests" ] || { echo "gpu_suite.sh: $build has no tests/ (configure with PARASOL_BUILD_TESTS=ON)" >&2; exit 2; }
jobs=${JOBS:-6}
seconds=${PROGRAM_SECONDS:-400}
logs="$build/gpu-suite"
rm -rf "$logs" && mkdir -p "$logs"
command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name --format=csv,noheader | sed 's/^/device: /'

# Under ctest: the programs that start launchers or signal runs, and every test that is not one
# of a GoogleTest program's.
under_ctest='^(ranks\.|checkpoint\.|batch\.|comm_|docs\.|plot_sweep|scaling_|install\.)'
whole=$(cd "$build/tests" && find . -name '*_test' -type f -perm -u+x |
        grep -v -E '^\./(ranks_|checkpoint_test|batch_job_test|comm_test)' | sort)

one_program() {  # the program's path under tests/: a row "name passed failed skipped seconds rc"
  local program=$1 name start rc log
  name=$(basename "$program")
  log="$logs/$name.log"
  start=$(date +%s)
  (cd "$build/tests/$(dirname "$program")" && timeout "$seconds" "./$name" --gtest_brief=1) >"$log" 2>&1
  rc=$?
  printf '%s %s %s %s %s %s\n' "$name" \
    "$(grep -o -E '^\[  PASSED  \] [0-9]+' "$log" | grep -o -E '[0-9]+$' || echo 0)" \
    "$(grep -c -E '^\[  FAILED  \] [A-Za-z]' "$log")" \
    "$(grep -o -E '^\[  SKIPPED \] [0-9]+ test' "$log" | grep -o -E '[0-9]+' || echo 0)" \
    "$(($(date +%s) - start))" "$rc"
  [ "$rc" = 0 ] && rm -f "$log"
}
export -f one_program
export build logs seconds

start=$(date +%s)
rows=$(printf '%s\n' $whole | xargs -P "$jobs" -I{} bash -c 'one_program "$1"' _ {} | sort)
failed=0
{
  echo "program passed failed skipped seconds status"
  echo "$rows" | awk '{ s = $6 == 0 ? "ok" : $6 == 124 ? "TIMEOUT" : "FAILED(" $6 ")"; print $1, $2, $3, $4, $5, s }'
} | column -t
echo "$rows" | awk '$6 != 0 { bad = 1 } { n += $2 } END { print NR " programs whole, " n " tests passed"; exit bad }' || failed=1
echo "$rows" | awk '$6 != 0 { print "  log: '"$logs"'/" $1 ".log" }'

echo "under ctest: $under_ctest"
(cd "$build" && ctest -R "$under_ctest" -j "$jobs" --timeout "$seconds" --output-on-failure \
   >"$logs/ctest.log" 2>&1) || failed=1
grep -E 'tests passed|\*\*\*Failed|\*\*\*Timeout|Not Run' "$logs/ctest.log"
echo "whole suite: $(($(date +%s) - start)) s, $([ $failed = 0 ] && echo 'all passed' || echo 'FAILURES (logs in '"$logs"')')"
exit $failed
