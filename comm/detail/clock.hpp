// Inside the comm layer only: seconds spent communicating. Host operations are timed on the wall
// clock; device operations enqueued on a stream by CUDA events around them, so the time a stream
// waits for its peer counts and the kernels queued before it do not.
#pragma once

#include <cuda_runtime_api.h>

#include <chrono>
#include <deque>
#include <optional>
#include <utility>

#include "kernels/event.hpp"

namespace parasol::comm::detail {

// Adds the wall-clock seconds of its lifetime to `total`.
class WallSpan {
 public:
  explicit WallSpan(double& total) : total_(total), start_(std::chrono::steady_clock::now()) {}
  ~WallSpan() {
    total_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  }
  WallSpan(const WallSpan&) = delete;
  WallSpan& operator=(const WallSpan&) = delete;

 private:
  double& total_;
  std::chrono::steady_clock::time_point start_;
};

class CommClock {
 public:
  double& wall() { return seconds_; }  // for a WallSpan

  // Device work enqueued on `stream` between begin() and end().
  void begin(cudaStream_t stream);
  void end(cudaStream_t stream);

  // Waits for the spans still in flight.
  double seconds();

 private:
  // Adds the spans whose end has passed; with `wait`, waits for all of them.
  void harvest(bool wait);

  double seconds_ = 0;
  std::optional<std::pair<Event, Event>> open_;  // begun, not yet ended
  std::deque<std::pair<Event, Event>> pending_;  // ended on the stream, maybe not reached yet
  std::deque<std::pair<Event, Event>> spare_;    // reused, so a span creates no events
};

}  // namespace parasol::comm::detail
