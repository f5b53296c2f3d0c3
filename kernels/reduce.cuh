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

// warp_reduce of kN values at once (kN <= 32), for an op whose two orders give the same bits
// (Sum): each value goes through warp_reduce's own tree, but a shuffle carries half the lanes of
// two values, so kN values take about kN shuffles instead of 5 kN. This lane ends with the total
// of value value_at_lane<kN>(lane).
//
// The first kPairedLevels levels pair values (kN padded to kPaired = 2^levels); level k puts
// value bit k in lane bit 4 - k.
template <int kN>
inline constexpr int kPairedLevels = 1 + kPairedLevels<(kN + 1) / 2>;
template <>
inline constexpr int kPairedLevels<1> = 0;
template <int kN>
inline constexpr int kPaired = 1 << kPairedLevels<kN>;

template <int kN>
__host__ __device__ constexpr int value_at_lane(int lane) {
  int q = 0;
  for (int k = 0; k < kPairedLevels<kN>; ++k) q |= ((lane >> (4 - k)) & 1) << k;
  return q;
}

// One level of warp_reduce_each's tree, at lane distance 16 >> kLevel: while kP >> kLevel values
// share the lanes, values 2r and 2r + 1 come to share a register, the lower lanes (bit `offset`
// clear) keeping value 2r's partial sums and the upper ones value 2r + 1's, each its own plus
// its partner's; after that, warp_reduce's own step.
template <int kLevel, int kP, class T, class Op>
__device__ inline void reduce_level(T (&v)[kP], int lane, Op op) {
  constexpr int offset = 16 >> kLevel, width = kP >> kLevel;
  if constexpr (width > 1) {
    const bool upper = (lane & offset) != 0;
#pragma unroll
    for (int r = 0; r < width / 2; ++r) {
      const T got = shuffle_xor(upper ? v[2 * r] : v[2 * r + 1], offset);
      v[r] = upper ? op(v[2 * r + 1], got) : op(v[2 * r], got);
    }
  } else {
    v[0] = op(v[0], shuffle_xor(v[0], offset));
  }
}

template <int kN, class T, class Op>
__device__ T warp_reduce_each(const T (&values)[kN], Op op) {
  static_assert(kN >= 1 && kN <= 32, "at most a value a lane");
  constexpr int kP = kPaired<kN>;
  T v[kP];
#pragma unroll
  for (int q = 0; q < kP; ++q) v[q] = q < kN ? values[q] : Op::template identity<T>();
  const int lane = threadIdx.x % 32;
  reduce_level<0>(v, lane, op);
  reduce_level<1>(v, lane, op);
  reduce_level<2>(v, lane, op);
  reduce_level<3>(v, lane, op);
  reduce_level<4>(v, lane, op);
  return v[0];
}

// block_reduce of each of kN values at once (kN <= 32), for an op whose two orders give the same
// bits (Sum): each value goes through block_reduce's own tree (the same bits), behind one barrier
// and with warp_reduce_each's shuffles. The results are valid in thread 0, in place. Every thread
// of the block must call it; a second call with the same kN must follow a __syncthreads.
template <int kThreads, int kN, class T, class Op>
__device__ void block_reduce_each(T (&values)[kN], Op op) {
  static_assert(kThreads % 32 == 0 && kThreads <= 1024, "block must be whole warps");
  constexpr int kWarps = kThreads / 32;
  constexpr int kSame = (1 << (5 - kPairedLevels<kN>)) - 1;  // lane bits that hold one value
  __shared__ T per_warp[kN][kWarps];
  __shared__ T totals[kN];
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const int mine = value_at_lane<kN>(lane);
  const T total = warp_reduce_each(values, op);
  if (mine < kN && (lane & kSame) == 0) per_warp[mine][warp] = total;
  __syncthreads();
  if (warp != 0) return;
  T by_warp[kN];
#pragma unroll
  for (int q = 0; q < kN; ++q) by_warp[q] = lane < kWarps ? per_warp[q][lane] : Op::template identity<T>();
  const T block_total = warp_reduce_each(by_warp, op);
  if (mine < kN && (lane & kSame) == 0) totals[mine] = block_total;
  __syncwarp();
  if (lane != 0) return;
#pragma unroll
  for (int q = 0; q < kN; ++q) values[q] = totals[q];
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
