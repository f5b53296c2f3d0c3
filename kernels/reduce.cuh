// Reductions: within a warp (shuffles), within a block (one shared-memory slot per warp), and
// over a whole device array in two deterministic passes (per-block partials, then one block),
// so the same input always gives the same bits.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

#include "kernels/buffer.hpp"
#include "kernels/error.hpp"
#include "kernels/launch.cuh"
#include "kernels/launch.hpp"
#include "kernels/reduce.hpp"

namespace parasol {

struct Sum {
  template <class T>
  __host__ __device__ T operator()(T a, T b) const { return a + b; }
  template <class T>
  __host__ __device__ static constexpr T identity() { return T{}; }
};

struct Max {
  // A NaN anywhere wins, so a field gone bad is never reported as converged.
  template <class T>
  __host__ __device__ T operator()(T a, T b) const {
    if (a != a) return a;
    if (b != b) return b;
    return b > a ? b : a;
  }
  template <class T>
  __host__ __device__ static constexpr T identity() {
    return std::numeric_limits<T>::has_infinity ? -std::numeric_limits<T>::infinity()
                                                : std::numeric_limits<T>::lowest();
  }
};

inline constexpr unsigned kFullWarp = 0xffffffffu;

// __shfl_xor_sync for any trivially copyable value: numbers of up to 64 bits directly, anything
// else (128-bit integers, small structs of sums) word by word.
template <class T>
__device__ T shuffle_xor(T value, int offset) {
  if constexpr (sizeof(T) <= 8 && (std::is_integral_v<T> || std::is_floating_point_v<T>)) {
    return __shfl_xor_sync(kFullWarp, value, offset);
  } else {
    static_assert(std::is_trivially_copyable_v<T> && sizeof(T) % 4 == 0,
                  "shuffled values are trivially copyable whole 32-bit words");
    constexpr int kWords = sizeof(T) / 4;
    unsigned words[kWords];
    std::memcpy(words, &value, sizeof(T));
    for (int w = 0; w < kWords; ++w) words[w] = __shfl_xor_sync(kFullWarp, words[w], offset);
    std::memcpy(&value, words, sizeof(T));
    return value;
  }
}

// Every lane ends with the reduction of all 32 lanes' values.
template <class T, class Op>
__device__ T warp_reduce(T value, Op op) {
  for (int offset = 16; offset > 0; offset /= 2) value = op(value, shuffle_xor(value, offset));
  return value;
}

// Reduction over a block of kThreads threads (a multiple of 32); the result is valid in thread 0.
// Every thread of the block must call it.
template <int kThreads, class T, class Op>
__device__ T block_reduce(T value, Op op) {
  static_assert(kThreads % 32 == 0 && kThreads <= 1024, "block must be whole warps");
  constexpr int kWarps = kThreads / 32;
  __shared__ T per_warp[kWarps];
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  value = warp_reduce(value, op);
  if (lane == 0) per_warp[warp] = value;
  __syncthreads();
  if (warp == 0) {
    value = lane < kWarps ? per_warp[lane] : Op::template identity<T>();
    value = warp_reduce(value, op);
  }
  return value;
}

namespace detail {

inline constexpr int kReduceThreads = 256;

template <class T, class Transform, class Op>
__global__ void __launch_bounds__(kReduceThreads)
    reduce_partials_kernel(std::int64_t n, Transform transform, Op op, T* partials) {
  T value = Op::template identity<T>();
  for (std::int64_t i : grid_stride(n)) value = op(value, transform(i));
  value = block_reduce<kReduceThreads>(value, op);
  if (threadIdx.x == 0) partials[blockIdx.x] = value;
}

template <class T, class Op>
__global__ void __launch_bounds__(kReduceThreads)
    reduce_final_kernel(const T* partials, int count, Op op, T* result) {
  T value = Op::template identity<T>();
  for (int i = threadIdx.x; i < count; i += kReduceThreads) value = op(value, partials[i]);
  value = block_reduce<kReduceThreads>(value, op);
  if (threadIdx.x == 0) *result = value;
}

}  // namespace detail

// DeviceReducer's reductions (the class itself is in reduce.hpp, so host code can hold one).
template <class T>
template <class Transform, class Op>
void DeviceReducer<T>::reduce_async(std::int64_t n, Transform transform, Op op,
                                    cudaStream_t stream) {
  const int blocks = std::min(kMaxPartials, grid_stride_blocks(n, detail::kReduceThreads, 1));
  PARASOL_NOTE_LAUNCH(blocks, detail::kReduceThreads, 0,
                      detail::reduce_partials_kernel<T, Transform, Op>);
  detail::reduce_partials_kernel<T><<<blocks, detail::kReduceThreads, 0, stream>>>(
      n, transform, op, partials_.data());
  PARASOL_CHECK_LAUNCH(stream);
  PARASOL_NOTE_LAUNCH(1, detail::kReduceThreads, 0, detail::reduce_final_kernel<T, Op>);
  detail::reduce_final_kernel<<<1, detail::kReduceThreads, 0, stream>>>(partials_.data(), blocks,
                                                                        op, result_.data());
  PARASOL_CHECK_LAUNCH(stream);
  PARASOL_CUDA(cudaMemcpyAsync(host_result_.data(), result_.data(), sizeof(T),
                               cudaMemcpyDeviceToHost, stream));
}

template <class T>
template <class Transform, class Op>
T DeviceReducer<T>::reduce(std::int64_t n, Transform transform, Op op, cudaStream_t stream) {
  reduce_async(n, transform, op, stream);
  PARASOL_CUDA(cudaStreamSynchronize(stream));
  return host_value();
}

// Transforms for the common cases.
template <class T>
struct ValueOf {
  const T* data;
  __device__ T operator()(std::int64_t i) const { return data[i]; }
};

template <class T>
struct AbsDifference {
  const T* a;
  const T* b;
  __device__ T operator()(std::int64_t i) const {
    const T d = a[i] - b[i];
    return d < T(0) ? -d : d;
  }
};

}  // namespace parasol
