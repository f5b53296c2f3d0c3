// The device-wide reducer's state, in a header plain C++ can include, so host classes can own
// one; its reductions are templates over device functors, defined in reduce.cuh for .cu files.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "kernels/buffer.hpp"

namespace parasol {

// Device-wide reduction of transform(i) for i in [0, n), in two deterministic passes (per-block
// partials, then one block). It holds its scratch space, so a solver that reduces every few
// iterations allocates once. The partial count depends only on n and the device, so the same
// input always gives the same bits.
template <class T>
class DeviceReducer {
 public:
  DeviceReducer() : partials_(kMaxPartials), result_(1), host_result_(1) {}

  // Enqueues the reduction; the value is in host_value() once the stream has synchronised.
  template <class Transform, class Op>
  void reduce_async(std::int64_t n, Transform transform, Op op, cudaStream_t stream);

  // Reduces and waits for the value.
  template <class Transform, class Op>
  T reduce(std::int64_t n, Transform transform, Op op, cudaStream_t stream);

  T host_value() const { return host_result_[0]; }

 private:
  static constexpr int kMaxPartials = 4096;
  DeviceBuffer<T> partials_;
  DeviceBuffer<T> result_;
  PinnedBuffer<T> host_result_;
};

}  // namespace parasol
