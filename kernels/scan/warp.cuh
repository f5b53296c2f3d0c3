// Warp level of the scan layer (as CUB's warp/): shuffles of any trivially copyable value and
// an inclusive scan across a warp's lanes, in either order.
#pragma once

#include <cuda_runtime.h>

#include <cstring>

namespace parasol {

// The order a scan takes the threads in: lower threads earlier (forward) or higher threads
// earlier (backward, for sweeps that run from the end of an array to its start).
enum class ScanOrder { forward, backward };

namespace warp {

inline constexpr unsigned kAllLanes = 0xffffffffu;

// Shuffles of any trivially copyable value, one 32-bit word at a time.
template <class V, class Shuffle>
__device__ inline V shuffle_words(const V& v, Shuffle&& shuffle_word) {
  static_assert(sizeof(V) % 4 == 0, "scan values must be whole 32-bit words");
  unsigned w[sizeof(V) / 4];
  memcpy(w, &v, sizeof(V));
#pragma unroll
  for (unsigned& x : w) x = shuffle_word(x);
  V out;
  memcpy(&out, w, sizeof(V));
  return out;
}

template <class V>
__device__ inline V shuffle_up(const V& v, int delta) {
  return shuffle_words(v, [&](unsigned x) { return __shfl_up_sync(kAllLanes, x, delta); });
}

template <class V>
__device__ inline V shuffle_down(const V& v, int delta) {
  return shuffle_words(v, [&](unsigned x) { return __shfl_down_sync(kAllLanes, x, delta); });
}

template <class V>
__device__ inline V shuffle(const V& v, int lane) {
  return shuffle_words(v, [&](unsigned x) { return __shfl_sync(kAllLanes, x, lane); });
}

// A lane's place in the scan's order, and the value of the lane `d` places earlier.
template <ScanOrder kOrder>
__device__ inline int scan_lane() {
  const int lane = threadIdx.x % 32;
  return kOrder == ScanOrder::forward ? lane : 31 - lane;
}
template <ScanOrder kOrder, class V>
__device__ inline V shuffle_earlier(const V& v, int d) {
  if constexpr (kOrder == ScanOrder::forward) return shuffle_up(v, d);
  else return shuffle_down(v, d);
}

// Inclusive scan across the warp's lanes, in kOrder.
template <class Policy, class V, ScanOrder kOrder = ScanOrder::forward>
__device__ inline V inclusive_scan(const Policy& p, V v) {
  const int lane = scan_lane<kOrder>();
#pragma unroll
  for (int d = 1; d < 32; d *= 2) {
    const V other = shuffle_earlier<kOrder>(v, d);
    if (lane >= d) v = p.combine(other, v);
  }
  return v;
}

}  // namespace warp
}  // namespace parasol
