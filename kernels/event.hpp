// RAII CUDA events and a timer built on them: device work is asynchronous, so it is timed
// on the device, between two events on the same stream.
#pragma once

#include <cuda_runtime_api.h>

#include <utility>

#include "kernels/error.hpp"

namespace parasol {

class Event {
 public:
  Event() { PARASOL_CUDA(cudaEventCreate(&event_)); }
  Event(Event&& other) noexcept : event_(std::exchange(other.event_, nullptr)) {}
  Event& operator=(Event&& other) noexcept {
    if (this != &other) {
      if (event_ != nullptr) (void)cudaEventDestroy(event_);
      event_ = std::exchange(other.event_, nullptr);
    }
    return *this;
  }
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  ~Event() {
    if (event_ != nullptr) (void)cudaEventDestroy(event_);
  }

  cudaEvent_t get() const { return event_; }
  void record(cudaStream_t stream) { PARASOL_CUDA(cudaEventRecord(event_, stream)); }
  void synchronize() const { PARASOL_CUDA(cudaEventSynchronize(event_)); }

 private:
  cudaEvent_t event_ = nullptr;
};

// Seconds of device time between start() and stop() on one stream.
class EventTimer {
 public:
  explicit EventTimer(cudaStream_t stream) : stream_(stream) {}
  void start() { start_.record(stream_); }
  void stop() { stop_.record(stream_); }
  // Waits for the stop event.
  double seconds() const {
    stop_.synchronize();
    float ms = 0.0f;
    PARASOL_CUDA(cudaEventElapsedTime(&ms, start_.get(), stop_.get()));
    return 1e-3 * static_cast<double>(ms);
  }

 private:
  cudaStream_t stream_;
  Event start_, stop_;
};

}  // namespace parasol
