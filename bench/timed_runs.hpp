// The benchmarks' timing loop: a warm-up run (plans, scratch, first-touch), then each benchmark
// iteration timed by CUDA events around `run` alone, `prepare` (restoring inputs a run consumes)
// left outside the events. Returns the total seconds timed.
#pragma once

#include <benchmark/benchmark.h>

#include "kernels/error.hpp"
#include "kernels/event.hpp"

namespace parasol::bench {

// Seconds one `run` takes on the default stream, between two events.
template <class Run>
double event_seconds(Event& start, Event& stop, Run&& run) {
  start.record(nullptr);
  run();
  stop.record(nullptr);
  stop.synchronize();
  float ms = 0;
  PARASOL_CUDA(cudaEventElapsedTime(&ms, start.get(), stop.get()));
  return 1e-3 * ms;
}

template <class Prepare, class Run>
double timed_runs(benchmark::State& state, Prepare&& prepare, Run&& run) {
  Event start, stop;
  prepare();
  run();  // warm-up
  PARASOL_CUDA(cudaDeviceSynchronize());
  double total = 0;
  for (auto _ : state) {
    prepare();
    const double seconds = event_seconds(start, stop, run);
    state.SetIterationTime(seconds);
    total += seconds;
  }
  return total;
}

template <class Run>
double timed_runs(benchmark::State& state, Run&& run) {
  return timed_runs(state, [] {}, run);
}

}  // namespace parasol::bench
