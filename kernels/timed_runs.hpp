// How a sweep times a configuration: CUDA events around each of the repeats' calls of `run` (which
// enqueues its work on `stream`), after the caller's warm-up. Device time: what the kernels took,
// not the host's launch overhead or a transfer the caller makes between runs (`after_each`, e.g.
// a download checking that the run repeats, runs outside the events).
#pragma once

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "kernels/event.hpp"

namespace parasol {

// How many timed runs a configuration gets: at least `at_least`, then more until their device
// time adds up to `min_seconds` (never past `at_most`), so that a configuration of a
// millisecond is timed as long as one of a second and a sweep spends its time measuring.
struct Repeats {
  std::int64_t at_least = 1;
  double min_seconds = 0;
  std::int64_t at_most = 100000;

  // Whether another run follows `done` runs that took `seconds` in all.
  bool more(std::int64_t done, double seconds) const {
    return done < at_least || (seconds < min_seconds && done < at_most);
  }
};

template <class Run, class AfterEach>
std::vector<double> timed_runs(cudaStream_t stream, const Repeats& repeats, Run&& run,
                               AfterEach&& after_each) {
  std::vector<double> seconds;
  EventTimer timer(stream);
  double total = 0;
  for (std::int64_t r = 0; repeats.more(r, total); ++r) {
    timer.start();
    run();
    timer.stop();
    seconds.push_back(timer.seconds());
    total += seconds.back();
    after_each();
  }
  return seconds;
}

// Without a step between runs, the runs go in batches: each run between its own two events, the
// host waiting once a batch rather than once a run, so that the device goes from one run to the
// next without idling while the host reads a timer and enqueues the next (tens of microseconds,
// against runs of a tenth of a millisecond for some configurations). How many a batch holds
// comes from the mean so far: those `at_least` still asks for, else about those that reach
// `min_seconds`, at most kTimedBatch; the total may pass min_seconds by less than one batch.
inline constexpr std::int64_t kTimedBatch = 32;

// `between()` is called after each run's stop event and before the next run's start: work it
// enqueues on the stream (a comparison whose outcome stays on the device, say) runs between the
// runs, outside their timing, without the host waiting for it.
template <class Run, class Between>
std::vector<double> timed_runs_between(cudaStream_t stream, const Repeats& repeats, Run&& run,
                                       Between&& between) {
  std::vector<double> seconds;
  std::vector<Event> starts(kTimedBatch), stops(kTimedBatch);
  double total = 0;
  std::int64_t done = 0;
  while (repeats.more(done, total)) {
    std::int64_t batch = 1;
    if (done < repeats.at_least) {
      batch = repeats.at_least - done;
    } else if (done > 0 && total > 0) {
      const double mean = total / static_cast<double>(done);
      batch = static_cast<std::int64_t>(std::ceil((repeats.min_seconds - total) / mean));
    }
    batch = std::max<std::int64_t>(1, std::min({batch, kTimedBatch, repeats.at_most - done}));
    for (std::int64_t k = 0; k < batch; ++k) {
      starts[static_cast<std::size_t>(k)].record(stream);
      run();
      stops[static_cast<std::size_t>(k)].record(stream);
      between();
    }
    stops[static_cast<std::size_t>(batch - 1)].synchronize();
    for (std::int64_t k = 0; k < batch; ++k) {
      float ms = 0.0f;
      PARASOL_CUDA(cudaEventElapsedTime(&ms, starts[static_cast<std::size_t>(k)].get(),
                                        stops[static_cast<std::size_t>(k)].get()));
      seconds.push_back(1e-3 * static_cast<double>(ms));
      total += seconds.back();
    }
    done += batch;
  }
  return seconds;
}

template <class Run>
std::vector<double> timed_runs(cudaStream_t stream, const Repeats& repeats, Run&& run) {
  return timed_runs_between(stream, repeats, run, [] {});
}

template <class Run>
std::vector<double> timed_runs(cudaStream_t stream, std::int64_t repeats, Run&& run) {
  return timed_runs(stream, Repeats{repeats}, run);
}

// The median of timed repeats (the upper one of an even count); NaN for none.
inline double median(std::vector<double> values) {
  if (values.empty()) return NAN;
  const auto middle = values.begin() + static_cast<std::ptrdiff_t>(values.size() / 2);
  std::nth_element(values.begin(), middle, values.end());
  return *middle;
}

}  // namespace parasol
