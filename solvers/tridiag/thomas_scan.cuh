// thomas-scan: thomas-pcr's partition method over the whole batch in one pass over the input,
// with the interface system solved by scans instead of PCR, so that a system may be any length
// and no block waits for another.
//
// Every thread eliminates its chunk of K rows (Chunk) and forms the chunk's interface row in the
// chunks' last unknowns, taking the next chunk's first Substitution from the next thread. A tile
// is a block's chunks but its last: the last thread only lends its chunk's Substitution, so
// tiles overlap by one chunk and no thread needs more than its own rows. A tile solves its
// interface rows by the Thomas algorithm with its two sweeps run as block scans of the maps in
// sweeps.cuh, keeping two unknowns symbolic: X_L, the last unknown of the chunk before the tile,
// and X_R, the first interface unknown of the next tile. So every row of the tile becomes
//   x = y + h X_L + p X_R,
// and the tile stores y as x at once. h is a product of the down sweep's -a / pivot and p of
// the up sweep's -c' (each smaller than 1 in size when the system is diagonally dominant, and
// exactly 0 past a system's start or end), so they vanish a few chunks into the tile: only the
// chunks where they have not (the head and the tail) keep h and p, in memory.
//
// Then, with every tile's composed down map and its first chunk's unknown in hand, one block
// solves the tiles' own interface (tile_ends_kernel: the same two sweeps, over tiles), and
// finish_ends_kernel adds h X_L + p X_R to the heads and tails. Nothing is truncated: a row is
// final in the first pass only where h and p are exactly 0, and under weak diagonal dominance the
// heads and tails grow to whole tiles and the last kernel does more of the work.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "kernels/blocked_io.cuh"
#include "kernels/chained_launch.cuh"
#include "kernels/error.hpp"
#include "kernels/launch.hpp"
#include "kernels/scan/block.cuh"
#include "solvers/tridiag/chunk.cuh"
#include "solvers/tridiag/failure.cuh"
#include "solvers/tridiag/params.hpp"
#include "solvers/tridiag/sweeps.cuh"

namespace parasol::tridiag {

// What a tile leaves for the kernels after it, and what they give back.
template <class T>
struct TileEnds {
  DownMap<T>* total;  // the tile's interface rows composed (the down sweep across it)
  UpMap<T>* first;    // the tile's first interface unknown as y + h X_L + q X_R
  UpMap<T>* last;     // and its last
  int* head_end;      // the tile's chunks [0, head_end) have rows with h != 0
  int* tail_start;    // and chunks [tail_start, outputs) rows with p != 0
  T* head_h;          // h of the rows in heads, at the rows' places
  T* tail_p;          // p of the rows in tails, at the rows' places
  T* x_left;          // X_L and X_R of each tile (tile_ends_kernel)
  T* x_right;
  // Nonzero when some tile's last unknown depends on its X_L or its first on its X_R, so that
  // neighbours alone cannot settle a boundary (set by the tiles, moved to `coupled_now` and
  // cleared by tile_ends_kernel: zero between solves).
  unsigned* coupled;
  unsigned* coupled_now;
};

namespace thomas_scan_detail {

// Where chunk q of the batch lies: system q / chunks, rows from (q % chunks) * K.
struct ChunkPlace {
  std::int64_t offset, row;  // the system's first element, the chunk's first row in it
  bool first, last;          // the system's first chunk, its last
  __device__ ChunkPlace(std::int64_t q, std::int64_t chunks, std::int64_t n, int K) {
    const std::int64_t system = q / chunks, j = q % chunks;
    offset = system * n;
    row = j * K;
    first = j == 0;
    last = j + 1 == chunks;
  }
};

// Dynamic shared memory: three values of blockDim.x (next_thread_first).
template <class T, int K>
__global__ void __launch_bounds__(thomas_scan_max_threads(K, sizeof(T)))
    thomas_scan_kernel(const T* __restrict__ pa, const T* __restrict__ pb, const T* __restrict__ pc,
                       const T* pd, T* x, std::int64_t n, std::int64_t systems, TileEnds<T> ends,
                       unsigned long long* failure) {
  constexpr int kMaxThreads = thomas_scan_max_threads(K, sizeof(T));
  extern __shared__ unsigned char shared_bytes[];
  T* const scratch = reinterpret_cast<T*>(shared_bytes);
  const int threads = blockDim.x, warps = threads / 32, outputs = threads - 1;
  const bool lender = threadIdx.x == outputs;  // lends its Substitution, owns nothing
  let_later_grid_start();  // tile_ends_kernel may be placed as this grid's last blocks run
  __shared__ int head_end, tail_start;
  if (threadIdx.x == 0) {
    head_end = 0;
    tail_start = outputs;
  }
  const std::int64_t tile = blockIdx.x;
  const std::int64_t chunks = (n + K - 1) / K;  // a system's
  const std::int64_t total = chunks * systems;
  const std::int64_t tiles = (total + outputs - 1) / outputs;
  const std::int64_t q = tile * outputs + threadIdx.x;
  const bool active = q < total;
  const ChunkPlace at(active ? q : 0, chunks, n, K);
  // Chunks past the batch stand for x = 0: no coupling either way.
  const bool first = !active || at.first, last = !active || at.last;

  Chunk<T, K> chunk;
  Substitution<T> own_first{T(0), T(0), T(0)};
  if (active) {
    chunk.load_and_eliminate(pa + at.offset, pb + at.offset, pc + at.offset, pd + at.offset, at.row,
                             n);
    own_first = chunk.first();
  }
  // A system's last chunk ends on its last row or on padding, where c is 0: `next` is unused,
  // and not taken from the next system (whose NaN would spread to this one).
  Substitution<T> next = next_thread_first(own_first, threads, scratch);
  if (last) next = {T(0), T(0), T(0)};
  Row<T> row{T(0), T(1), T(0), T(0)};
  if (active) row = chunk.interface_row(next);
  if (last) row.c = T(0);

  // Down: the interface rows before this chunk's, composed by the block's scan, applied to
  // "x_before the tile is X_L": the previous chunk's eliminated row x_before + cp x_last =
  // delta + sigma X_L.
  const DownPolicy<T> down;
  const DownMap<T> own =
      lender ? DownMap<T>::identity() : DownMap<T>::row(row.a, row.b, row.c, row.d, first);
  DownMap<T> before, tile_total;
  block::exclusive_scan<kMaxThreads>(down, own, before, tile_total, warps);
  const T inv_n = T(1) / before.n;
  const T cp = before.q * inv_n, delta = before.t * inv_n;
  const T sigma = before.closed ? T(0) : before.s * inv_n;
  // This chunk's interface row eliminated: x_last + c_last x_last' = d0 + d1 X_L.
  const T inv = T(1) / (first ? row.b : row.b - row.a * cp);
  const T c_last = last ? T(0) : row.c * inv;
  const T d0 = (first ? row.d : row.d - row.a * delta) * inv;
  const T d1 = first ? T(0) : -row.a * sigma * inv;

  // Up: x_last as a map of the next chunk's, then through the backward scan of X_R.
  const UpMap<T> own_up = lender ? UpMap<T>::identity() : UpMap<T>{-c_last, d0, d1, last};
  UpMap<T> after, tile_up;
  block::exclusive_scan<kMaxThreads, ScanOrder::backward>(
      UpPolicy<T>{}, own_up, after, tile_up, warps);
  const UpMap<T> x_last = own_up.then(after);  // x_last = y + h X_L + q X_R

  // The chunk's rows: x = d - a x_before - c x_last, x_before = delta + sigma X_L - cp x_last.
  T y[K], h[K], p[K];
  bool has_h = false, has_p = false;
#pragma unroll
  for (int i = 0; i < K - 1; ++i) {
    const T beta = first ? -chunk.c[i] : chunk.a[i] * cp - chunk.c[i];
    y[i] = (first ? chunk.d[i] : chunk.d[i] - chunk.a[i] * delta) + beta * x_last.y;
    h[i] = (first ? T(0) : -chunk.a[i] * sigma) + beta * x_last.h;
    p[i] = beta * x_last.q;
  }
  y[K - 1] = x_last.y;
  h[K - 1] = x_last.h;
  p[K - 1] = x_last.q;
#pragma unroll
  for (int i = 0; i < K; ++i) {
    has_h |= !(h[i] == T(0));
    has_p |= !(p[i] == T(0));
  }
  const bool owns = active && !lender;
  if (owns && has_h) atomicMax(&head_end, threadIdx.x + 1);
  if (owns && has_p) atomicMin(&tail_start, threadIdx.x);
  __syncthreads();
  const int head = head_end, tail = tail_start;
  if (owns) {
    store_blocked<K>(x + at.offset, at.row, n, y);
    if (threadIdx.x < head) store_blocked<K>(ends.head_h + at.offset, at.row, n, h);
    if (threadIdx.x >= tail) store_blocked<K>(ends.tail_p + at.offset, at.row, n, p);
    if (threadIdx.x >= head && threadIdx.x < tail) {
      bool finite = true;
#pragma unroll
      for (int i = 0; i < K; ++i) finite &= at.row + i >= n || isfinite(y[i]);
      note_failure(finite, at.offset / n, failure);
    }
  }
  if (threadIdx.x == 0) {
    ends.total[tile] = tile_total;
    ends.first[tile] = x_last;
    ends.head_end[tile] = head;
    ends.tail_start[tile] = tail;
    if (tile > 0 && !(x_last.q == T(0))) atomicOr(ends.coupled, 1u);
  }
  if (threadIdx.x == outputs - 1 && tile + 1 < tiles) {
    ends.last[tile] = x_last;
    if (!(x_last.h == T(0))) atomicOr(ends.coupled, 1u);
  }
}

// One block: the tiles' own interface. Down, over the tiles' composed maps: the eliminated
// interface row before tile k, x_L + cp x_first = dp, with x_first = y + h X_L + q X_R its first
// unknown, gives X_L = A + B X_R. Up, over x_first's maps with X_L so replaced: X_R.
template <class T, int kThreads>
__global__ void __launch_bounds__(kThreads)
    tile_ends_kernel(std::int64_t tiles, TileEnds<T> ends, T* a_coef, T* b_coef) {
  constexpr int kItems = 4;
  wait_for_earlier_grid();
  let_later_grid_start();
  // Only when neighbours alone cannot settle every boundary (finish_ends_kernel).
  const unsigned coupled = *ends.coupled;
  __syncthreads();
  if (threadIdx.x == 0) {
    *ends.coupled_now = coupled;
    *ends.coupled = 0;
  }
  if (!coupled) return;
  block::scan_range<kThreads, kItems, ScanOrder::forward>(
      DownPolicy<T>{}, tiles, [&](std::int64_t k) { return ends.total[k]; },
      [&](std::int64_t k, const DownMap<T>& before) {
        T cp, dp;
        before.eliminated(cp, dp);
        const UpMap<T> f = ends.first[k];
        const T r = T(1) / (T(1) + cp * f.h);
        a_coef[k] = (dp - cp * f.y) * r;
        b_coef[k] = -cp * f.q * r;
      });
  __syncthreads();  // a_coef and b_coef, written by other threads, are read below
  // Tile k's first unknown with X_L replaced: y + h A + (q + h B) X_R. Where h is 0 the tile
  // starts a system and A, B (which may come from another system) are not used.
  const auto first_map = [&](std::int64_t k) {
    const UpMap<T> f = ends.first[k];
    if (f.h == T(0)) return UpMap<T>{f.q, f.y, T(0), f.q == T(0)};
    const T q = f.q + f.h * b_coef[k];
    return UpMap<T>{q, f.y + f.h * a_coef[k], T(0), q == T(0)};
  };
  block::scan_range<kThreads, kItems, ScanOrder::backward>(
      UpPolicy<T>{}, tiles, first_map, [&](std::int64_t k, const UpMap<T>& after) {
        // X_R of tile k is the next tile's first unknown: the maps after k, applied to 0.
        const T right = after.y;
        ends.x_right[k] = right;
        ends.x_left[k] = b_coef[k] == T(0) ? a_coef[k] : a_coef[k] + b_coef[k] * right;
      });
}

// A boundary between tiles that neighbours settle alone: the last unknown before it, R =
// y_l + q_l F, and the first after it, F = y_f + h_f R (the tile before's R depends on no X_L and
// the tile after's F on no X_R). Returns R and F; where a coefficient is 0 the other side (maybe
// another system's) is not used.
template <class T>
__device__ inline void settle_boundary(const UpMap<T>& l, const UpMap<T>& f, T& r, T& x_first) {
  if (l.q == T(0)) {
    r = l.y;
    x_first = f.h == T(0) ? f.y : f.y + f.h * r;
  } else if (f.h == T(0)) {
    x_first = f.y;
    r = l.y + l.q * x_first;
  } else {
    r = (l.y + l.q * f.y) / (T(1) - l.q * f.h);
    x_first = f.y + f.h * r;
  }
}

// The heads and tails: x = y + h X_L + p X_R, h and p added only where they are not 0 (so a
// NaN X of another system cannot reach a row). Half a warp a tile (a tile's head and tail are a
// few chunks each when the systems are diagonally dominant), a lane a chunk of them.
// Latency-bound (a few round trips a warp), so it keeps registers few enough that every tile's
// warp is resident at once on large batches.
template <class T, int K>
__global__ void __launch_bounds__(256, K * sizeof(T) <= 64 ? 4 : 2)
    finish_ends_kernel(T* x, std::int64_t n, std::int64_t systems, std::int64_t tiles,
                       int tile_threads, TileEnds<T> ends, unsigned long long* failure) {
  wait_for_earlier_grid();
  const std::int64_t chunks = (n + K - 1) / K, total = chunks * systems;
  constexpr int kLanes = 16;
  const int outputs = tile_threads - 1, lane = threadIdx.x % kLanes;
  const std::int64_t tile = blockIdx.x * std::int64_t(blockDim.x / kLanes) + threadIdx.x / kLanes;
  if (tile >= tiles) return;
  // Every record at once: one round trip.
  const int head = ends.head_end[tile], tail = ends.tail_start[tile];
  const unsigned coupled = *ends.coupled_now;
  const UpMap<T> none{T(0), T(0), T(0), 1};
  const UpMap<T> last_before = tile > 0 ? ends.last[tile - 1] : none;
  const UpMap<T> first = ends.first[tile];
  const UpMap<T> last = tile + 1 < tiles ? ends.last[tile] : none;
  const UpMap<T> first_after = tile + 1 < tiles ? ends.first[tile + 1] : none;
  const T given_left = ends.x_left[tile], given_right = ends.x_right[tile];
  const int tail_from = head > tail ? head : tail;  // tail chunks not in the head
  const int count = head + (outputs - tail_from);
  if (count == 0) return;
  T left = given_left, right = given_right, unused;
  if (!coupled) {
    settle_boundary(last_before, first, left, unused);
    settle_boundary(last, first_after, unused, right);
  }
  for (int r = lane; r < count; r += kLanes) {
    const int t = r < head ? r : tail_from + (r - head);
    const std::int64_t q = tile * outputs + t;
    if (q >= total) continue;
    const bool in_head = t < head, in_tail = t >= tail;
    const ChunkPlace at(q, chunks, n, K);
    const std::int64_t offset = at.offset, row = at.row;
    // A chunk is in both the head and the tail only when a tile is short beside the decay.
    T xs[K], coef[K];
    load_blocked<K>(x + offset, row, n, xs, T(0));
    if (in_head) {
      load_blocked<K>(ends.head_h + offset, row, n, coef, T(0));
#pragma unroll
      for (int i = 0; i < K; ++i)
        if (!(coef[i] == T(0))) xs[i] += coef[i] * left;
    }
    if (in_tail) {
      load_blocked<K>(ends.tail_p + offset, row, n, coef, T(0));
#pragma unroll
      for (int i = 0; i < K; ++i)
        if (!(coef[i] == T(0))) xs[i] += coef[i] * right;
    }
    bool finite = true;
#pragma unroll
    for (int i = 0; i < K; ++i) finite &= row + i >= n || isfinite(xs[i]);
    store_blocked<K>(x + offset, row, n, xs);
    note_failure(finite, offset / n, failure);
  }
}

}  // namespace thomas_scan_detail

// thomas-scan's workspace: per tile, what tile_ends_kernel needs and gives; per row, the heads'
// h and the tails' p.
template <class T>
class ThomasScanWorkspace {
 public:
  // A batch of `systems` systems of n rows, `threads` threads a block, `chunk` rows a thread.
  ThomasScanWorkspace(std::int64_t n, std::int64_t systems, int threads, int chunk)
      : n_(n),
        systems_(systems),
        threads_(threads),
        tiles_(ceil_div(ceil_div(n, chunk) * systems, threads - 1)),
        chained_(chained_launch_supported()) {
    const auto t = static_cast<std::size_t>(tiles_);
    const auto rows = static_cast<std::size_t>(n * systems);
    std::size_t at = 0;
    const auto take = [&](std::size_t bytes) {
      const std::size_t here = at;
      at = (at + bytes + 255) / 256 * 256;
      return here;
    };
    total_ = take(t * sizeof(DownMap<T>));
    first_ = take(t * sizeof(UpMap<T>));
    last_ = take(t * sizeof(UpMap<T>));
    coupled_ = take(2 * sizeof(unsigned));
    head_end_ = take(t * sizeof(int));
    tail_start_ = take(t * sizeof(int));
    x_left_ = take(t * sizeof(T));
    x_right_ = take(t * sizeof(T));
    a_coef_ = take(t * sizeof(T));
    b_coef_ = take(t * sizeof(T));
    head_h_ = take(rows * sizeof(T));
    tail_p_ = take(rows * sizeof(T));
    bytes_ = at;
  }
  std::size_t bytes() const { return bytes_; }
  // Zero the coupling flags once, after allocating; each solve leaves them zero.
  void clear(unsigned char* base) const {
    PARASOL_CUDA(cudaMemset(base + coupled_, 0, 2 * sizeof(unsigned)));
  }

  template <int K>
  void solve(const T* a, const T* b, const T* c, const T* d, T* x, unsigned char* base,
             unsigned long long* failure, cudaStream_t stream) const {
    using namespace thomas_scan_detail;
    const TileEnds<T> ends{reinterpret_cast<DownMap<T>*>(base + total_),
                           reinterpret_cast<UpMap<T>*>(base + first_),
                           reinterpret_cast<UpMap<T>*>(base + last_),
                           reinterpret_cast<int*>(base + head_end_),
                           reinterpret_cast<int*>(base + tail_start_),
                           reinterpret_cast<T*>(base + head_h_),
                           reinterpret_cast<T*>(base + tail_p_),
                           reinterpret_cast<T*>(base + x_left_),
                           reinterpret_cast<T*>(base + x_right_),
                           reinterpret_cast<unsigned*>(base + coupled_),
                           reinterpret_cast<unsigned*>(base + coupled_) + 1};
    const std::size_t smem = 3 * sizeof(T) * static_cast<std::size_t>(threads_);
    PARASOL_NOTE_LAUNCH(static_cast<unsigned>(tiles_), threads_, smem, thomas_scan_kernel<T, K>);
    thomas_scan_kernel<T, K><<<static_cast<unsigned>(tiles_), threads_, smem, stream>>>(
        a, b, c, d, x, n_, systems_, ends, failure);
    PARASOL_CHECK_LAUNCH(stream);
    // The tiles' ends, then the heads and tails; for a lone tile too, whose h and p are 0 but where
    // a NaN met them: those rows are checked there.
    constexpr int kTileThreads = sizeof(T) == 8 ? 256 : 512;  // registers for doubles
    PARASOL_NOTE_LAUNCH(1, kTileThreads, 0, tile_ends_kernel<T, kTileThreads>);
    launch_chained(chained_, tile_ends_kernel<T, kTileThreads>, 1, kTileThreads, 0, stream, tiles_,
                   ends, reinterpret_cast<T*>(base + a_coef_),
                   reinterpret_cast<T*>(base + b_coef_));
    PARASOL_CHECK_LAUNCH(stream);
    constexpr int kBlock = 256;  // half a warp a tile
    PARASOL_NOTE_LAUNCH(static_cast<unsigned>(ceil_div(tiles_, kBlock / 16)), kBlock, 0,
                        finish_ends_kernel<T, K>);
    launch_chained(chained_, finish_ends_kernel<T, K>,
                   static_cast<unsigned>(ceil_div(tiles_, kBlock / 16)), kBlock, 0, stream, x, n_,
                   systems_, tiles_, threads_, ends, failure);
    PARASOL_CHECK_LAUNCH(stream);
  }

 private:
  std::int64_t n_, systems_;
  int threads_;
  std::int64_t tiles_;
  bool chained_;
  std::size_t total_ = 0, first_ = 0, last_ = 0, coupled_ = 0, head_end_ = 0, tail_start_ = 0,
              x_left_ = 0, x_right_ = 0, a_coef_ = 0, b_coef_ = 0, head_h_ = 0, tail_p_ = 0,
              bytes_ = 0;
};

}  // namespace parasol::tridiag
