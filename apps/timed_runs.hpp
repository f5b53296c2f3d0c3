// How `parasol sweep` times a configuration: CUDA events around each of a number of runs on the
// stream, after the caller's warm-up; the median is what the tables report.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <vector>

#include "apps/check.hpp"
#include "kernels/event.hpp"

namespace parasol::app {

// The median, in seconds, of `repeats` timed calls of `run` (which enqueues its work on
// `stream`). `after_each` runs after each timing, outside it (e.g. to check the run repeats).
template <class Run, class AfterEach>
double median_run_seconds(cudaStream_t stream, std::int64_t repeats, Run&& run,
                          AfterEach&& after_each) {
  std::vector<double> seconds;
  EventTimer timer(stream);
  for (std::int64_t r = 0; r < repeats; ++r) {
    timer.start();
    run();
    timer.stop();
    seconds.push_back(timer.seconds());
    after_each();
  }
  return median(seconds);
}

template <class Run>
double median_run_seconds(cudaStream_t stream, std::int64_t repeats, Run&& run) {
  return median_run_seconds(stream, repeats, run, [] {});
}

}  // namespace parasol::app
