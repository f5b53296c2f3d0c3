// thomas-pcr past one block per system in one pass over the input: a system is split into
// segments of blockDim.x chunks, one block each, and a thread-block cluster holds the system's
// segments (up to 16 on an H100), so they are resident together and meet in each other's shared
// memory. The three-step path reads the input twice (36 bytes an unknown in float); this one
// reads it once (20).
//
// A segment's unknowns couple to the rest of the system only through X (the last unknown of the
// segment before) and its own last unknown Y. So every block:
//  1. eliminates its chunks (Chunk) and solves its chunks' interface rows by PCR with X and Y
//     kept symbolic: chunk t's last unknown is u - v X - w Y;
//  2. publishes, in its shared memory, its first row as a Substitution in X and Y (for the
//     segment before to eliminate) and Y's own row in X, Y and the row after the segment;
//  3. after the cluster's barrier, forms the system's segment rows (one per segment) from the
//     cluster's publications and solves them by warp PCR: every block the same, so none waits
//     for another's answer;
//  4. substitutes back with its X and Y.
#pragma once

#include <cooperative_groups.h>

#include <cstdint>

#include "solvers/tridiag/chunk.cuh"
#include "solvers/tridiag/failure.cuh"
#include "solvers/tridiag/pcr.cuh"
#include "solvers/tridiag/tridiag.hpp"

namespace parasol::tridiag {

// a x[i-s] + b x[i] + c x[i+s] = d - dx X - dy Y: a row of PCR with the segment's outside
// unknowns X and Y as two more right-hand sides.
template <class T>
struct OpenRow {
  Row<T> row;
  T dx, dy;
};

// One PCR step on an OpenRow: the right-hand sides combine as d does.
template <class T>
__device__ inline OpenRow<T> pcr_combine(const OpenRow<T>& lower, const OpenRow<T>& r,
                                         const OpenRow<T>& upper) {
  const T k1 = r.row.a / lower.row.b;
  const T k2 = r.row.c / upper.row.b;
  return {pcr_combine(lower.row, r.row, upper.row), r.dx - lower.dx * k1 - upper.dx * k2,
          r.dy - lower.dy * k1 - upper.dy * k2};
}

template <class T>
__device__ inline OpenRow<T> open_identity() {
  return {identity_row<T>(), T(0), T(0)};
}

// PCR over the block, thread k holding row k (blockDim.x a power of two); six values of
// blockDim.x in shared memory. Returns thread k's row reduced to  b x = d - dx X - dy Y.
template <class T>
__device__ inline OpenRow<T> block_pcr_open(OpenRow<T> r, T* smem) {
  const int n = blockDim.x, t = threadIdx.x;
  SharedRows<T> rows{smem, smem + n, smem + 2 * n, smem + 3 * n};
  T* const dx = smem + 4 * n;
  T* const dy = smem + 5 * n;
  for (int s = 1; s < n; s *= 2) {
    rows.store(t, r.row);
    dx[t] = r.dx;
    dy[t] = r.dy;
    __syncthreads();
    const OpenRow<T> lower = t >= s ? OpenRow<T>{rows.load(t - s), dx[t - s], dy[t - s]}
                                    : open_identity<T>();
    const OpenRow<T> upper = t + s < n ? OpenRow<T>{rows.load(t + s), dx[t + s], dy[t + s]}
                                       : open_identity<T>();
    __syncthreads();
    r = pcr_combine(lower, r, upper);
  }
  return r;
}

// What a segment publishes for the cluster: its first row as a Substitution in X and Y, and Y's
// row: a X + b Y + c (the row after the segment) = d.
template <class T>
struct SegmentEnds {
  Substitution<T> first;
  Row<T> last;
};

// The system's row of segment j < segments (<= 32) in the Ys: its published last row with the
// row after it replaced by the next segment's first Substitution. Rows past the system are
// identities.
template <class T, class Cluster>
__device__ inline Row<T> segment_row(Cluster& cluster, SegmentEnds<T>* ends, int j, int segments) {
  if (j >= segments) return identity_row<T>();
  Row<T> row = cluster.map_shared_rank(ends, j)->last;
  // The last segment ends on the system's last row or on padding, where c is 0.
  if (j + 1 < segments) {
    const Substitution<T> next = cluster.map_shared_rank(ends, j + 1)->first;
    const T cl = row.c;
    row.b -= cl * next.a;
    row.c = -cl * next.c;
    row.d -= cl * next.d;
  }
  return row;
}

// One cluster a system, one block a segment (the cluster's rank); blockDim.x a power of two.
// Dynamic shared memory: six values of blockDim.x.
template <class T, int K>
__global__ void __launch_bounds__(max_chunk_threads(K, sizeof(T)))
    segments_kernel(const T* __restrict__ a, const T* __restrict__ b, const T* __restrict__ c,
                    const T* d, T* x, std::int64_t n, unsigned long long* failure) {
  namespace cg = cooperative_groups;
  extern __shared__ unsigned char shared_bytes[];
  T* const smem = reinterpret_cast<T*>(shared_bytes);
  __shared__ SegmentEnds<T> ends;
  __shared__ T outside[2];  // X and Y
  cg::cluster_group cluster = cg::this_cluster();
  const int t = threadIdx.x, threads = blockDim.x;
  const int segments = static_cast<int>(cluster.num_blocks());
  const int p = static_cast<int>(cluster.block_rank());
  const std::int64_t system = blockIdx.x / segments;
  const std::int64_t offset = system * n;
  const std::int64_t row = (static_cast<std::int64_t>(p) * threads + t) * K;

  Chunk<T, K> chunk;
  chunk.load_and_eliminate(a + offset, b + offset, c + offset, d + offset, row, n);

  // Chunk interface rows, as chunked_kernel forms them; the segment's last keeps its c on the
  // row after the segment.
  const Substitution<T> first = chunk.first();
  const Substitution<T> next = next_thread_first(first, threads, smem);
  Row<T> own = {chunk.a[K - 1], T(1), chunk.c[K - 1], chunk.d[K - 1]};
  if (t + 1 < threads) own = chunk.interface_row(next);

  // PCR over the rows before Y, with X and Y moved to the right-hand side.
  OpenRow<T> open = t + 1 < threads ? OpenRow<T>{own, T(0), T(0)} : open_identity<T>();
  if (t == 0) {
    open.dx = open.row.a;
    open.row.a = T(0);
  }
  if (t + 2 == threads) {
    open.dy = open.row.c;
    open.row.c = T(0);
  }
  open = block_pcr_open(open, smem);
  const T u = open.row.d / open.row.b, v = open.dx / open.row.b, w = open.dy / open.row.b;

  if (t == 0)  // the first row: first.d - first.a X - first.c (u - v X - w Y)
    ends.first = {first.a - first.c * v, -first.c * w, first.d - first.c * u};
  if (t + 2 == threads) {  // Y's row: own.a (u - v X - w Y) + Y + own.c (after) = own.d
    smem[0] = u;
    smem[1] = v;
    smem[2] = w;
  }
  __syncthreads();
  if (t + 1 == threads)
    ends.last = {-own.a * smem[1], own.b - own.a * smem[2], own.c, own.d - own.a * smem[0]};
  cluster.sync();

  // Every block solves the system's segment rows; once its reads of the others' shared memory
  // are done it may leave, but not before every block has read its own.
  if (t < 32) {
    const T y = warp_pcr(segment_row(cluster, &ends, t, segments), next_pow2(segments));
    const T before = __shfl_up_sync(0xffffffffu, y, 1);
    if (t == p) {
      outside[0] = p > 0 ? before : T(0);
      outside[1] = y;
    }
  }
  cluster.barrier_arrive();
  __syncthreads();
  const T X = outside[0], Y = outside[1];

  const T x_last = t + 1 < threads ? u - v * X - w * Y : Y;
  smem[t] = x_last;
  __syncthreads();
  const T x_before = t > 0 ? smem[t - 1] : X;
  note_failure(chunk.store_solution(x_before, x_last, x + offset, row, n), system, failure);
  cluster.barrier_wait();
}

}  // namespace parasol::tridiag
