// A thread's K consecutive elements ("blocked" arrangement), read and written with vector
// accesses where the run is whole and aligned.
#pragma once

#include <cstdint>
#include <cstring>

namespace parasol {

// Elements [first, first + K) of an array of n; those past n read as `pad`. Whole, aligned runs
// are read with 16-byte (or narrower) vector loads, so a warp's K loads cover whole sectors.
template <int K, class T>
__device__ inline void load_blocked(const T* p, std::int64_t first, std::int64_t n, T (&out)[K],
                                    T pad) {
  constexpr int kBytes = K * sizeof(T) >= 16 ? 16 : K * sizeof(T);
  constexpr int kPerVector = kBytes / sizeof(T);
  const T* q = p + first;
  if (first + K <= n && reinterpret_cast<std::uintptr_t>(q) % kBytes == 0) {
#pragma unroll
    for (int v = 0; v < K / kPerVector; ++v) {
      if constexpr (kBytes == 16) {
        const uint4 w = reinterpret_cast<const uint4*>(q)[v];
        memcpy(&out[v * kPerVector], &w, kBytes);
      } else if constexpr (kBytes == 8) {
        const uint2 w = reinterpret_cast<const uint2*>(q)[v];
        memcpy(&out[v * kPerVector], &w, kBytes);
      } else {
        out[v] = q[v];
      }
    }
  } else {
#pragma unroll
    for (int j = 0; j < K; ++j) out[j] = first + j < n ? q[j] : pad;
  }
}

// Elements [first, min(first + K, n)).
template <int K, class T>
__device__ inline void store_blocked(T* p, std::int64_t first, std::int64_t n, const T (&x)[K]) {
  constexpr int kBytes = K * sizeof(T) >= 16 ? 16 : K * sizeof(T);
  constexpr int kPerVector = kBytes / sizeof(T);
  T* q = p + first;
  if (first + K <= n && reinterpret_cast<std::uintptr_t>(q) % kBytes == 0) {
#pragma unroll
    for (int v = 0; v < K / kPerVector; ++v) {
      if constexpr (kBytes == 16) {
        uint4 w;
        memcpy(&w, &x[v * kPerVector], kBytes);
        reinterpret_cast<uint4*>(q)[v] = w;
      } else if constexpr (kBytes == 8) {
        uint2 w;
        memcpy(&w, &x[v * kPerVector], kBytes);
        reinterpret_cast<uint2*>(q)[v] = w;
      } else {
        q[v] = x[v];
      }
    }
  } else {
#pragma unroll
    for (int j = 0; j < K; ++j)
      if (first + j < n) q[j] = x[j];
  }
}

}  // namespace parasol
