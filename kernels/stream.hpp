// RAII CUDA stream.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <utility>

#include "kernels/error.hpp"

namespace parasol {

class Stream {
 public:
  Stream() { PARASOL_CUDA(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking)); }
  // A stream whose blocks the scheduler starts before those of default-priority streams as
  // SMs free up: for short work on the critical path (halo planes, their exchange) that must
  // not queue behind a long kernel that fills the device.
  static Stream high_priority() {
    int least = 0, greatest = 0;
    PARASOL_CUDA(cudaDeviceGetStreamPriorityRange(&least, &greatest));
    Stream s(nullptr);
    PARASOL_CUDA(cudaStreamCreateWithPriority(&s.stream_, cudaStreamNonBlocking, greatest));
    return s;
  }
  Stream(Stream&& other) noexcept : stream_(std::exchange(other.stream_, nullptr)) {}
  Stream& operator=(Stream&& other) noexcept {
    if (this != &other) {
      if (stream_ != nullptr) (void)cudaStreamDestroy(stream_);
      stream_ = std::exchange(other.stream_, nullptr);
    }
    return *this;
  }
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  ~Stream() {
    if (stream_ != nullptr) (void)cudaStreamDestroy(stream_);
  }

  cudaStream_t get() const { return stream_; }
  operator cudaStream_t() const { return stream_; }  // NOLINT: streams pass straight to CUDA calls
  void synchronize() const { PARASOL_CUDA(cudaStreamSynchronize(stream_)); }
  // Work enqueued here after this call waits for `event` (recorded on another stream).
  void wait(cudaEvent_t event) const { PARASOL_CUDA(cudaStreamWaitEvent(stream_, event, 0)); }

 private:
  explicit Stream(std::nullptr_t) {}
  cudaStream_t stream_ = nullptr;
};

}  // namespace parasol
