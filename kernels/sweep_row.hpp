// One configuration of a sweep, measured the same way for every solver: the output poisoned, one
// run, its check against the gold, a warm-up, the timed runs, and the last timed run's output
// checked again. A solver states only its facts (how to poison, run and check) as a RowSteps;
// measure_row() is the one place that orders them and decides what a failure does to the row and
// to the sweep. It is here, below the solvers, because the laplace3d and recurrence studies
// (solvers/<s>/study.cpp) describe their rows themselves.
#pragma once

#include <cuda_runtime_api.h>

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "kernels/agreement.hpp"
#include "kernels/error.hpp"
#include "kernels/timed_runs.hpp"

namespace parasol {

// Times `run` repeated: the seconds of each timed run (timed_on() below, on a device).
using TimeRuns = std::function<std::vector<double>(const std::function<void()>& run)>;

// The facts of one configuration. `run`, `check` and `time` are required; the rest default to
// what most solvers mean.
struct RowSteps {
  // How the row is named in a failure's line: "pcr-shared, 128 threads", "zreg 32x8x1".
  std::string method;
  // Fills the output with NaN, so that a value the run fails to write cannot pass the check.
  // Empty only where the run makes its output afresh from the problem (say so where it is set).
  std::function<void()> poison;
  // The run that is checked (enqueued on the solver's stream).
  std::function<void()> run;
  // The output of the last run judged against the gold.
  std::function<Agreement()> check;
  // What goes before the timing; empty: one more `timed` run.
  std::function<void()> warm_up;
  // The run that is timed; empty: `run`. It differs where a checked run is shorter than a timed
  // one (laplace3d checks a few sweeps and times many).
  std::function<void()> timed;
  TimeRuns time;
  // The output after the timed runs judged again, so that a failure in any of them (a race that
  // strikes one run in a hundred, a NaN) fails the row; empty: `check` again.
  std::function<Agreement()> recheck;
  // Whether a CUDA error that leaves the context usable fails only this row. Across ranks it
  // must not: the other ranks would wait for this one in the next collective, so it ends them all.
  bool fail_alone = true;
};

// What measure_row() found.
struct RowOutcome {
  Agreement agreement;
  std::vector<double> seconds;  // each timed run; empty when the row failed to run
  // Set when a CUDA error failed the row: "<method>: <the error>", the line a sweep says.
  std::string failure;
};

// poison -> run -> check -> warm-up -> timed runs -> re-check. The row's agreement is the first
// check's unless the re-check fails where it passed: then the re-check's, so the row fails with
// the value that failed. A CudaError the context survives (a launch the device refuses: too
// many registers, too much shared memory) fails the row alone when steps.fail_alone; a sticky
// one (kernels/error.hpp) ends the sweep, as does any other exception.
inline RowOutcome measure_row(const RowSteps& steps) {
  RowOutcome row;
  const std::function<void()>& timed = steps.timed ? steps.timed : steps.run;
  try {
    if (steps.poison) steps.poison();
    steps.run();
    row.agreement = steps.check();
    if (steps.warm_up) steps.warm_up();
    else timed();
    row.seconds = steps.time(timed);
    Agreement again = steps.recheck ? steps.recheck() : steps.check();
    if (row.agreement.passed() && !again.passed()) row.agreement = std::move(again);
  } catch (const CudaError& e) {
    if (e.sticky() || !steps.fail_alone) throw;
    row.seconds.clear();
    row.failure = steps.method + ": " + e.what();
  }
  return row;
}

// Device time of each run, by CUDA events on `stream`, as kernels/timed_runs.hpp counts repeats.
inline TimeRuns timed_on(cudaStream_t stream, const Repeats& repeats) {
  return [stream, repeats](const std::function<void()>& run) {
    return timed_runs(stream, repeats, run);
  };
}

}  // namespace parasol
