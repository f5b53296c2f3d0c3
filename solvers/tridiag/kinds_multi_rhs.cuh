// Many right-hand sides a matrix by thomas-pcr's partition method, a system to a group of threads
// as chunked_kernel (tridiag.cu) solves the general kind: the right-hand sides go through the
// chunks' elimination and the PCR over their interface rows kMultiRhsBatch at a time (RhsChunk),
// so the matrix is eliminated once a batch, on chip, and each right-hand side is read once and
// its x written once. A batch after the first reads the matrix again, from cache: the block read
// it a moment before.
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/blocked_io.cuh"
#include "solvers/tridiag/failure.cuh"
#include "solvers/tridiag/kinds_chunk.cuh"
#include "solvers/tridiag/params.hpp"

namespace parasol::tridiag {

// Right-hand sides a batch: four keep a chunk of 8 floats within 128 registers a thread.
inline constexpr int kMultiRhsBatch = 4;

// The most threads a block of multi_rhs_chunked_kernel may have: a thread holds the chunk's a
// and c and a batch's d, twice the values of the general kind's chunk.
constexpr int multi_rhs_chunk_threads(int chunk, int element_bytes) {
  return max_chunk_threads(2 * chunk, element_bytes);
}

// Shared memory of multi_rhs_chunked_kernel: PCR's 3 + kMultiRhsBatch values of blockDim.x when a
// group spans warps, else none.
template <class T>
std::size_t multi_rhs_chunked_bytes(int group, int block) {
  return group > 32 ? (3 + kMultiRhsBatch) * sizeof(T) * static_cast<std::size_t>(block) : 0;
}

// Groups of `group` threads (a power of two, group * K >= n) each solve one system of n rows and
// its `rhs` right-hand sides, contiguous layout (d and x [systems][rhs][n]).
template <class T, int K>
__global__ void __launch_bounds__(multi_rhs_chunk_threads(K, sizeof(T)))
    multi_rhs_chunked_kernel(const T* __restrict__ a, const T* __restrict__ b,
                             const T* __restrict__ c, const T* __restrict__ d, T* x,
                             std::int64_t n, std::int64_t systems, int rhs, int group,
                             unsigned long long* failure) {
  constexpr int R = kMultiRhsBatch;
  extern __shared__ unsigned char shared_bytes[];
  T* const scratch = reinterpret_cast<T*>(shared_bytes);
  const int k = threadIdx.x % group;
  const std::int64_t system =
      static_cast<std::int64_t>(blockIdx.x) * (blockDim.x / group) + threadIdx.x / group;
  // Threads of a system past the last take part in the exchanges on padding rows (x = 0).
  const bool active = system < systems;
  const std::int64_t offset = active ? system * n : 0;
  const std::int64_t row = static_cast<std::int64_t>(k) * K;
  const std::int64_t from = active ? row : n;
  bool finite = true;

  // Every thread runs every batch: the exchanges synchronise the block.
  for (int first = 0; first < rhs; first += R) {
    RhsChunk<T, K, R> chunk;
    T bs[K];
    load_blocked<K>(a + offset, from, n, chunk.a, T(0));
    load_blocked<K>(b + offset, from, n, bs, T(1));
    load_blocked<K>(c + offset, from, n, chunk.c, T(0));
    if (from == 0) chunk.a[0] = T(0);
#pragma unroll
    for (int j = 0; j < K; ++j)
      if (from + j == n - 1) chunk.c[j] = T(0);
    // Right-hand sides past the last are zero.
#pragma unroll
    for (int q = 0; q < R; ++q) {
      const bool real = active && first + q < rhs;
      const std::int64_t place = real ? (system * rhs + first + q) * n : 0;
      load_blocked<K>(d + place, real ? row : n, n, chunk.d[q], T(0));
    }
    chunk.eliminate(bs);

    // The group's last chunk ends on row n - 1 or on padding, where c is 0: the Substitution it
    // gets back is unused.
    const RhsSubstitution<T, R> next = group_next_first(chunk.first(), group, scratch);
    const RhsRow<T, R> reduced = group_pcr(chunk.interface_row(next), group, scratch);
    T last[R], before[R];
#pragma unroll
    for (int q = 0; q < R; ++q) before[q] = last[q] = reduced.d[q] / reduced.b;
    group_from_previous(before, T(0), group, scratch);  // chunk 0 holds row 0, where a is 0

#pragma unroll
    for (int q = 0; q < R; ++q) {
      if (!active || first + q >= rhs) continue;
      T xs[K];
      chunk.solution(q, before[q], last[q], xs);
#pragma unroll
      for (int j = 0; j < K; ++j) finite &= isfinite(xs[j]);
      store_blocked<K>(x + (system * rhs + first + q) * n, row, n, xs);
    }
  }
  if (active) note_failure(finite, system, failure);
}

}  // namespace parasol::tridiag
