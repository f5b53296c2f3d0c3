// The benchmarks' timing loop: a warm-up run (plans, scratch, first-touch), then each benchmark
// iteration timed by CUDA events around `run` alone, `prepare` (restoring inputs a run consumes)
// left outside the events. Returns the total seconds timed.
#pragma once

#include <benchmark/benchmark.h>

#include <cuda_runtime_api.h>

#include "kernels/error.hpp"
#include "kernels/event.hpp"

namespace parasol::bench {

struct Timing {
  cudaStream_t stream = nullptr;  // the stream `run` enqueues its work on
  // Units of work one `run` enqueues (sweeps, copies): the iteration time Google Benchmark
  // reports is that of one unit, so short units can be timed many to a run.
  int units_per_run = 1;
};

template <class Prepare, class Run>
double timed_runs(benchmark::State& state, Prepare&& prepare, Run&& run, Timing timing = {}) {
  EventTimer timer(timing.stream);
  prepare();
  run();  // warm-up
  PARASOL_CUDA(cudaDeviceSynchronize());
  double total = 0;
  for (auto _ : state) {
    prepare();
    timer.start();
    run();
    timer.stop();
    const double seconds = timer.seconds();
    state.SetIterationTime(seconds / timing.units_per_run);
    total += seconds;
  }
  return total;
}

template <class Run>
double timed_runs(benchmark::State& state, Run&& run) {
  return timed_runs(state, [] {}, run);
}

}  // namespace parasol::bench
