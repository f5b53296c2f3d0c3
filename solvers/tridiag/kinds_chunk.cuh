// thomas-pcr's partition method (chunk.cuh, chunked_kernel in tridiag.cu) with R right-hand
// sides sharing one elimination: a thread's chunk of K rows eliminated once for all of them, the
// chunks' interface rows reduced by PCR over the system's group of threads with R values of d
// each, and every right-hand side's unknowns substituted back. The kinds' fused kernels build on
// it (periodic: Sherman-Morrison's d and u through one elimination). Kept apart from Chunk so
// that the plain kind's tuned kernels keep their registers.
#pragma once

#include <cstdint>

#include "kernels/blocked_io.cuh"
#include "solvers/tridiag/pcr.cuh"

namespace parasol::tridiag {

// x[i] = d[q] - a x_before - c x_last for right-hand side q (Substitution, R of them).
template <class T, int R>
struct RhsSubstitution {
  T a, c, d[R];
};

// a x[i-s] + b x[i] + c x[i+s] = d[q]: a PCR row with R right-hand sides.
template <class T, int R>
struct RhsRow {
  T a, b, c, d[R];
};

template <class T, int R>
__device__ inline RhsRow<T, R> rhs_identity_row() {
  RhsRow<T, R> r{T(0), T(1), T(0), {}};
#pragma unroll
  for (int q = 0; q < R; ++q) r.d[q] = T(0);
  return r;
}

// pcr_combine (pcr.cuh) with every right-hand side combined as d is.
template <class T, int R>
__device__ inline RhsRow<T, R> pcr_combine(const RhsRow<T, R>& lower, const RhsRow<T, R>& row,
                                           const RhsRow<T, R>& upper) {
  const T k1 = row.a / lower.b;
  const T k2 = row.c / upper.b;
  RhsRow<T, R> out{-lower.a * k1, row.b - lower.c * k1 - upper.a * k2, -upper.c * k2, {}};
#pragma unroll
  for (int q = 0; q < R; ++q) out.d[q] = row.d[q] - lower.d[q] * k1 - upper.d[q] * k2;
  return out;
}

template <class T, int K, int R>
struct RhsChunk {
  // As Chunk's after eliminate(), with d for each right-hand side.
  T a[K], c[K], d[R][K];

  // Chunk::eliminate, each right-hand side's d following the same multipliers.
  __device__ void eliminate(const T (&b)[K]) {
    T r = T(1) / b[0];
    a[0] *= r;
    c[0] *= r;
#pragma unroll
    for (int q = 0; q < R; ++q) d[q][0] *= r;
#pragma unroll
    for (int i = 1; i < K; ++i) {
      r = T(1) / (b[i] - a[i] * c[i - 1]);
#pragma unroll
      for (int q = 0; q < R; ++q) d[q][i] = (d[q][i] - a[i] * d[q][i - 1]) * r;
      a[i] = -a[i] * a[i - 1] * r;
      c[i] *= r;
    }
#pragma unroll
    for (int i = K - 3; i >= 0; --i) {
#pragma unroll
      for (int q = 0; q < R; ++q) d[q][i] -= c[i] * d[q][i + 1];
      a[i] -= c[i] * a[i + 1];
      c[i] = -c[i] * c[i + 1];
    }
  }

  __device__ RhsSubstitution<T, R> first() const {
    RhsSubstitution<T, R> s{};
    if constexpr (K == 1) {  // x_first is x_last
      s.a = T(0);
      s.c = T(-1);
#pragma unroll
      for (int q = 0; q < R; ++q) s.d[q] = T(0);
    } else {
      s.a = a[0];
      s.c = c[0];
#pragma unroll
      for (int q = 0; q < R; ++q) s.d[q] = d[q][0];
    }
    return s;
  }

  // Chunk::interface_row for every right-hand side.
  __device__ RhsRow<T, R> interface_row(const RhsSubstitution<T, R>& next) const {
    const T cl = c[K - 1];
    RhsRow<T, R> row{a[K - 1], T(1) - cl * next.a, -cl * next.c, {}};
#pragma unroll
    for (int q = 0; q < R; ++q) row.d[q] = d[q][K - 1] - cl * next.d[q];
    return row;
  }

  // Right-hand side q's unknowns of the chunk, from the unknown before it and its last.
  __device__ void solution(int q, T x_before, T x_last, T (&x)[K]) const {
#pragma unroll
    for (int i = 0; i < K; ++i) x[i] = i == K - 1 ? x_last : d[q][i] - a[i] * x_before - c[i] * x_last;
  }
};

// Exchanges within groups of `group` consecutive threads (a power of two dividing blockDim.x):
// by warp shuffles up to 32, else through `scratch` in shared memory (V values of blockDim.x for
// V values a thread), synchronising the block, so every thread of the block must call them.
// Scratch may be reused once one returns.

// The next thread's values (a group's last thread gets its own back).
template <class T, int V>
__device__ inline void group_from_next(T (&v)[V], int group, T* scratch) {
  const int k = threadIdx.x % group;
  if (group <= 32) {
#pragma unroll
    for (int j = 0; j < V; ++j) {
      const T next = __shfl_down_sync(0xffffffffu, v[j], 1, group);
      if (k + 1 < group) v[j] = next;
    }
    return;
  }
  const int t = threadIdx.x, n = blockDim.x;
#pragma unroll
  for (int j = 0; j < V; ++j) scratch[j * n + t] = v[j];
  __syncthreads();
  if (k + 1 < group)
#pragma unroll
    for (int j = 0; j < V; ++j) v[j] = scratch[j * n + t + 1];
  __syncthreads();
}

// The previous thread's values; `none` for a group's first thread.
template <class T, int V>
__device__ inline void group_from_previous(T (&v)[V], T none, int group, T* scratch) {
  const int k = threadIdx.x % group;
  if (group <= 32) {
#pragma unroll
    for (int j = 0; j < V; ++j) {
      const T before = __shfl_up_sync(0xffffffffu, v[j], 1, group);
      v[j] = k > 0 ? before : none;
    }
    return;
  }
  const int t = threadIdx.x, n = blockDim.x;
#pragma unroll
  for (int j = 0; j < V; ++j) scratch[j * n + t] = v[j];
  __syncthreads();
#pragma unroll
  for (int j = 0; j < V; ++j) v[j] = k > 0 ? scratch[j * n + t - 1] : none;
  __syncthreads();
}

// Thread `from`'s values of the group, to every thread of the group.
template <class T, int V>
__device__ inline void group_broadcast(T (&v)[V], int from, int group, T* scratch) {
  const int k = threadIdx.x % group;
  if (group <= 32) {
#pragma unroll
    for (int j = 0; j < V; ++j) v[j] = __shfl_sync(0xffffffffu, v[j], from, group);
    return;
  }
  // One slot of V values a group.
  T* const slot = scratch + (threadIdx.x / group) * V;
  if (k == from)
#pragma unroll
    for (int j = 0; j < V; ++j) slot[j] = v[j];
  __syncthreads();
#pragma unroll
  for (int j = 0; j < V; ++j) v[j] = slot[j];
  __syncthreads();
}

// The group's next thread's first Substitution (group_from_next).
template <class T, int R>
__device__ inline RhsSubstitution<T, R> group_next_first(const RhsSubstitution<T, R>& own,
                                                         int group, T* scratch) {
  T v[2 + R];
  v[0] = own.a;
  v[1] = own.c;
#pragma unroll
  for (int q = 0; q < R; ++q) v[2 + q] = own.d[q];
  group_from_next(v, group, scratch);
  RhsSubstitution<T, R> next{v[0], v[1], {}};
#pragma unroll
  for (int q = 0; q < R; ++q) next.d[q] = v[2 + q];
  return next;
}

// PCR over each group, thread k holding row k; (3 + R) values of blockDim.x of scratch past a
// warp. Returns this thread's row reduced to b x = d[q].
template <class T, int R>
__device__ inline RhsRow<T, R> group_pcr(RhsRow<T, R> row, int group, T* scratch) {
  const int k = threadIdx.x % group;
  constexpr int V = 3 + R;
  for (int s = 1; s < group; s *= 2) {
    T v[V] = {row.a, row.b, row.c};
#pragma unroll
    for (int q = 0; q < R; ++q) v[3 + q] = row.d[q];
    T below[V], above[V];
    if (group <= 32) {
#pragma unroll
      for (int j = 0; j < V; ++j) {
        below[j] = __shfl_up_sync(0xffffffffu, v[j], s, group);
        above[j] = __shfl_down_sync(0xffffffffu, v[j], s, group);
      }
    } else {
      const int t = threadIdx.x, n = blockDim.x;
#pragma unroll
      for (int j = 0; j < V; ++j) scratch[j * n + t] = v[j];
      __syncthreads();
#pragma unroll
      for (int j = 0; j < V; ++j) {
        below[j] = k >= s ? scratch[j * n + t - s] : T(0);
        above[j] = k + s < group ? scratch[j * n + t + s] : T(0);
      }
      __syncthreads();
    }
    RhsRow<T, R> lower = rhs_identity_row<T, R>(), upper = rhs_identity_row<T, R>();
    if (k >= s) {
      lower = {below[0], below[1], below[2], {}};
#pragma unroll
      for (int q = 0; q < R; ++q) lower.d[q] = below[3 + q];
    }
    if (k + s < group) {
      upper = {above[0], above[1], above[2], {}};
#pragma unroll
      for (int q = 0; q < R; ++q) upper.d[q] = above[3 + q];
    }
    row = pcr_combine(lower, row, upper);
  }
  return row;
}

}  // namespace parasol::tridiag
