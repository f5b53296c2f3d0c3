// Periodic systems fused on chip by thomas-pcr's (and pcr-warp's) partition method, a system to
// a group of threads as chunked_kernel (tridiag.cu) solves the general kind: Sherman-Morrison's
// A' and u (kinds.cpp's gold) formed as the rows are loaded, y = A'^-1 d and z = A'^-1 u
// carried through one elimination (RhsChunk) and one PCR over the chunks' interface rows, the
// correction factor taken from the group's end rows, and x = y - factor z written once: a, b, c
// and d read once and x written once (20 bytes an unknown in float), where Sherman-Morrison on
// the general solve moves about three times that.
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/blocked_io.cuh"
#include "solvers/tridiag/failure.cuh"
#include "solvers/tridiag/kinds_chunk.cuh"
#include "solvers/tridiag/params.hpp"

namespace parasol::tridiag {

// Shared memory of periodic_chunked_kernel: the two-right-hand-side PCR's five values of
// blockDim.x when a group spans warps, else none.
template <class T>
std::size_t periodic_chunked_bytes(int group, int block) {
  return group > 32 ? 5 * sizeof(T) * static_cast<std::size_t>(block) : 0;
}

// Groups of `group` threads (a power of two, group * K >= n) each solve one ring of n >= 3 rows,
// contiguous layout; blockDim.x / group rings a block.
template <class T, int K>
__global__ void __launch_bounds__(max_chunk_threads(K, sizeof(T)))
    periodic_chunked_kernel(const T* __restrict__ a, const T* __restrict__ b,
                            const T* __restrict__ c, const T* __restrict__ d, T* x,
                            std::int64_t n, std::int64_t systems, int group,
                            unsigned long long* failure) {
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

  // gamma = -b[0] keeps A' as dominant as A (the gold says why); every thread needs the corner.
  const T gamma = active ? -b[offset] : T(-1);
  const T a0 = active ? a[offset] : T(0), c_last = active ? c[offset + n - 1] : T(0);
  const T corner = a0 / gamma;

  RhsChunk<T, K, 2> chunk;
  T bs[K];
  load_blocked<K>(a + offset, from, n, chunk.a, T(0));
  load_blocked<K>(b + offset, from, n, bs, T(1));
  load_blocked<K>(c + offset, from, n, chunk.c, T(0));
  load_blocked<K>(d + offset, from, n, chunk.d[0], T(0));
#pragma unroll
  for (int j = 0; j < K; ++j) {
    chunk.d[1][j] = T(0);
    if (from + j == 0) {  // the ring's corner a[0] moved into u
      chunk.a[j] = T(0);
      bs[j] -= gamma;
      chunk.d[1][j] = gamma;
    }
    if (from + j == n - 1) {  // and c[n-1]
      chunk.c[j] = T(0);
      bs[j] -= a0 * c_last / gamma;
      chunk.d[1][j] = c_last;
    }
  }
  chunk.eliminate(bs);

  // The chunks' interface rows (chunked_kernel's): the group's last chunk ends on row n - 1 or
  // on padding, where c is 0, so the Substitution it gets back is unused.
  const RhsSubstitution<T, 2> next = group_next_first(chunk.first(), group, scratch);
  const RhsRow<T, 2> reduced = group_pcr(chunk.interface_row(next), group, scratch);
  T last[2] = {reduced.d[0] / reduced.b, reduced.d[1] / reduced.b};  // y and z
  T before[2] = {last[0], last[1]};
  group_from_previous(before, T(0), group, scratch);  // chunk 0 holds row 0, where a is 0

  T y[K], z[K];
  chunk.solution(0, before[0], last[0], y);
  chunk.solution(1, before[1], last[1], z);

  // y and z at row 0 (the group's first thread) and row n - 1, for the correction factor.
  T head[2] = {y[0], z[0]};
  group_broadcast(head, 0, group, scratch);
  const int tail_thread = static_cast<int>((n - 1) / K), tail_row = static_cast<int>((n - 1) % K);
  T tail[2] = {T(0), T(0)};
#pragma unroll
  for (int j = 0; j < K; ++j)
    if (j == tail_row) {
      tail[0] = y[j];
      tail[1] = z[j];
    }
  group_broadcast(tail, tail_thread, group, scratch);
  const T factor = (head[0] + corner * tail[0]) / (T(1) + head[1] + corner * tail[1]);

  if (!active) return;
  bool finite = true;
#pragma unroll
  for (int j = 0; j < K; ++j) {
    y[j] -= factor * z[j];
    finite &= isfinite(y[j]);
  }
  store_blocked<K>(x + offset, row, n, y);
  note_failure(finite, system, failure);
}

}  // namespace parasol::tridiag
