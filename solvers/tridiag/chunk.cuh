// A thread's own chunk of K consecutive rows: loaded, eliminated Thomas-style down and back up
// so that only its last unknown couples to other chunks, and substituted back once the chunks'
// last unknowns are known. The partition method behind thomas-pcr (and pcr-warp past 32 rows).
#pragma once

#include <cstdint>
#include <cstring>

#include "kernels/blocked_io.cuh"
#include "solvers/tridiag/pcr.cuh"

namespace parasol::tridiag {

// x[i] in terms of the unknown before the chunk and the chunk's last: x[i] = d - a x_before -
// c x_last.
template <class T>
struct Substitution {
  T a, c, d;
};

// The Substitution of the next thread's chunk, for threads in groups of `group` whose chunks
// follow one another: a power of two up to 32, or a multiple of 32. A group's last thread gets
// its own back (no chunk of the group follows it). Every thread of the block must call it: past
// a warp it goes through `scratch` (three values of blockDim.x of shared memory) and
// synchronises the block, which may use `scratch` again once it returns.
template <class T>
__device__ inline Substitution<T> next_thread_first(const Substitution<T>& own, int group,
                                                    T* scratch) {
  const int k = threadIdx.x % group;
  if (group <= 32) {
    const Substitution<T> next = {__shfl_down_sync(0xffffffffu, own.a, 1, group),
                                  __shfl_down_sync(0xffffffffu, own.c, 1, group),
                                  __shfl_down_sync(0xffffffffu, own.d, 1, group)};
    return k + 1 < group ? next : own;
  }
  const int t = threadIdx.x, n = blockDim.x;
  scratch[t] = own.a;
  scratch[n + t] = own.c;
  scratch[2 * n + t] = own.d;
  __syncthreads();
  const Substitution<T> next =
      k + 1 < group ? Substitution<T>{scratch[t + 1], scratch[n + t + 1], scratch[2 * n + t + 1]}
                    : own;
  __syncthreads();
  return next;
}

template <class T, int K>
struct Chunk {
  // After eliminate(): rows i < K-1 hold Substitution coefficients; row K-1 holds the chunk's
  // interface row  a x_before + x_last + c x_after = d  (x_after: the next chunk's first unknown).
  T a[K], c[K], d[K];

  // Rows [row, row + K) of the system at (pa, pb, pc, pd), n rows long: a of row 0 and c of row
  // n-1 taken as 0, rows past n as x = 0.
  __device__ void load_and_eliminate(const T* pa, const T* pb, const T* pc, const T* pd,
                                     std::int64_t row, std::int64_t n) {
    T b[K];
    load_blocked<K>(pa, row, n, a, T(0));
    load_blocked<K>(pb, row, n, b, T(1));
    load_blocked<K>(pc, row, n, c, T(0));
    load_blocked<K>(pd, row, n, d, T(0));
    if (row == 0) a[0] = T(0);
#pragma unroll
    for (int j = 0; j < K; ++j)
      if (row + j == n - 1) c[j] = T(0);
    eliminate(b);
  }

  // Down the chunk: row i becomes  a x_before + x[i] + c x[i+1] = d. Back up: rows below the
  // last become Substitutions in x_before and x_last.
  __device__ void eliminate(const T (&b)[K]) {
    T r = T(1) / b[0];
    a[0] *= r;
    c[0] *= r;
    d[0] *= r;
#pragma unroll
    for (int i = 1; i < K; ++i) {
      r = T(1) / (b[i] - a[i] * c[i - 1]);
      d[i] = (d[i] - a[i] * d[i - 1]) * r;
      a[i] = -a[i] * a[i - 1] * r;
      c[i] *= r;
    }
#pragma unroll
    for (int i = K - 3; i >= 0; --i) {
      d[i] -= c[i] * d[i + 1];
      a[i] -= c[i] * a[i + 1];
      c[i] = -c[i] * c[i + 1];
    }
  }

  // The chunk's first unknown as a Substitution (for the chunk before it to eliminate).
  __device__ Substitution<T> first() const {
    if constexpr (K == 1) return {T(0), T(-1), T(0)};  // x_first is x_last
    else return {a[0], c[0], d[0]};
  }

  // The interface row in the chunks' last unknowns: x_before is the previous chunk's last, and
  // x_after, the next chunk's first, is replaced by its Substitution `next`.
  __device__ Row<T> interface_row(const Substitution<T>& next) const {
    const T cl = c[K - 1];
    return {a[K - 1], T(1) - cl * next.a, -cl * next.c, d[K - 1] - cl * next.d};
  }

  // The chunk's unknowns stored (rows past n are not). Returns whether all are finite (padding
  // rows are 0).
  __device__ bool store_solution(T x_before, T x_last, T* px, std::int64_t row,
                                 std::int64_t n) const {
    T x[K];
    bool finite = true;
#pragma unroll
    for (int i = 0; i < K; ++i) {
      x[i] = i == K - 1 ? x_last : d[i] - a[i] * x_before - c[i] * x_last;
      finite &= isfinite(x[i]);
    }
    store_blocked<K>(px, row, n, x);
    return finite;
  }
};

}  // namespace parasol::tridiag
