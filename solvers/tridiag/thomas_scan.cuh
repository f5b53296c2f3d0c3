// thomas-scan: thomas-pcr's partition method over the whole batch in one pass over the input,
// with the interface system solved by scans instead of PCR, so that a system may be any length.
//
// Every thread eliminates its chunk of K rows (Chunk) and forms the chunk's interface row in the
// chunks' last unknowns, taking the next chunk's first Substitution from the next thread. A tile
// is a block's chunks but its last: the last thread only lends its chunk's Substitution (and its
// last unknown is the next tile's first interface unknown X), so tiles overlap by one chunk and
// no thread needs more than its own rows. The interface rows are then solved by the Thomas
// algorithm with its two sweeps run as scans of the maps in sweeps.cuh:
//  - down: each chunk's interface row eliminated, from the block's scan and, across tiles, a
//    decoupled look-back (kernels/scan.cuh; a tile whose first chunk starts a system needs none).
//    The eliminated row before a chunk also gives the chunk's x_before in its own last unknown,
//    so every row becomes x = y + p X.
//  - up: from the block's backward scan. The tile stores y as x at once; p is a product of the
//    interface system's c' (smaller than 1 in size when it is diagonally dominant, exactly 0 past
//    a system's end), so it vanishes a few chunks before the tile's end, and only the chunks
//    where it has not (the tail) need X. They wait in memory, with their p, until X is known.
// Each boundary between tiles is met twice, by the tile before it (which publishes where its tail
// starts) and the tile after it (which publishes X as y + p X' of its own next tile); whichever
// comes second resolves the tail, x = y + p X, when X is final (p = 0). Otherwise (weak
// dominance: p has not vanished over a whole tile) the tail is left to resolve_pending_kernel,
// which follows the tiles' X to one that is final. No tile waits for a later one, so none can
// deadlock whatever order the blocks run in, and the answer does not depend on which tile
// resolves a tail. Only p exactly 0 makes a row final: nothing is truncated.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "kernels/blocked_io.cuh"
#include "kernels/error.hpp"
#include "kernels/launch.hpp"
#include "kernels/scan.cuh"
#include "solvers/tridiag/chunk.cuh"
#include "solvers/tridiag/failure.cuh"
#include "solvers/tridiag/params.hpp"
#include "solvers/tridiag/sweeps.cuh"

namespace parasol::tridiag {

// What a tile leaves for resolve_tails_kernel.
template <class T>
struct TileTails {
  int* tail_start;  // the tile's first thread whose rows need X; blockDim.x - 1 when none
  T* first_y;       // the tile's own X (its first chunk's last unknown) as y + p X of the next
  T* first_p;
  T* tail_p;        // p of the rows in tails, at the rows' places
};

namespace thomas_scan_detail {

using scan_detail::LookbackPauses;
using scan_detail::StateKind;
using scan_detail::TileStates;

template <class T>
using DownStates = TileStates<DownMap<T>, StateKind::tagged>;

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
    thomas_scan_kernel(const T* __restrict__ pa, const T* __restrict__ pb,
                       const T* __restrict__ pc, const T* pd, T* x, std::int64_t n,
                       std::int64_t systems, unsigned long long* counter, DownStates<T> states,
                       TileTails<T> tails, LookbackPauses pauses, unsigned long long* failure) {
  constexpr int kMaxThreads = thomas_scan_max_threads(K, sizeof(T));
  extern __shared__ unsigned char shared_bytes[];
  T* const scratch = reinterpret_cast<T*>(shared_bytes);
  const int threads = blockDim.x, warps = threads / 32, outputs = threads - 1;
  const bool lender = threadIdx.x == outputs;  // lends its Substitution, owns nothing
  __shared__ std::int64_t tile_id;
  __shared__ DownMap<T> tile_before;
  __shared__ int tail_start;
  if (threadIdx.x == 0) {
    tile_id = static_cast<std::int64_t>(atomicAdd(counter, 1ull));
    tail_start = outputs;
  }
  __syncthreads();
  const std::int64_t tile = tile_id;
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
    chunk.load_and_eliminate(pa + at.offset, pb + at.offset, pc + at.offset, pd + at.offset,
                             at.row, n);
    own_first = chunk.first();
  }
  // A system's last chunk ends on its last row or on padding, where c is 0: `next` is unused,
  // and not taken from the next system (whose NaN would spread to this one).
  Substitution<T> next = next_thread_first(own_first, threads, scratch);
  if (last) next = {T(0), T(0), T(0)};
  Row<T> row{T(0), T(1), T(0), T(0)};
  if (active) row = chunk.interface_row(next);
  if (last) row.c = T(0);

  // Down: the chunks' interface rows, by the block's scan and the tile's look-back.
  const DownPolicy<T> down;
  DownMap<T> own = lender  ? DownMap<T>::identity()
                   : first ? DownMap<T>{T(0), row.c, T(0), T(0), row.d, T(0), row.b, 1}
                           : DownMap<T>{T(0), row.c, T(0), -row.a, row.d, -row.a, row.b, 0};
  DownMap<T> before, tile_total;
  scan_detail::block_exclusive_scan<kMaxThreads>(down, own, before, tile_total, warps);
  // A tile whose first chunk starts a system needs nothing from before it; one that holds a
  // system's start has its inclusive prefix at once.
  const bool needs_before = tile > 0 && tile * outputs % chunks != 0;
  if (threadIdx.x < 32) {
    if (threadIdx.x == 0)
      states.publish(tile, tile_total.closed || tile == 0 ? scan_detail::kPrefix
                                                          : scan_detail::kTotal,
                     tile_total);
    if (needs_before) {
      const DownMap<T> tile_prefix = scan_detail::look_back(down, states, tile, pauses);
      if (threadIdx.x == 0) {
        if (!tile_total.closed)
          states.publish(tile, scan_detail::kPrefix, down.combine(tile_prefix, tile_total));
        tile_before = tile_prefix;
      }
    }
  }
  if (needs_before) {
    __syncthreads();
    before = threadIdx.x == 0 ? tile_before : down.combine(tile_before, before);
  }
  // The previous chunk's interface row eliminated, x_before + cp x_last = dp, then this one's.
  T cp, dp;
  before.eliminated(cp, dp);
  const T inv = T(1) / (first ? row.b : row.b - row.a * cp);
  const T c_last = last ? T(0) : row.c * inv;
  const T d_last = (first ? row.d : row.d - row.a * dp) * inv;

  // Up: x_last as a map of the next chunk's, then through the backward scan of X.
  const UpMap<T> own_up = lender ? UpMap<T>::identity() : UpMap<T>{-c_last, d_last, last};
  UpMap<T> after, tile_up;
  scan_detail::block_exclusive_scan<kMaxThreads, scan_detail::ScanOrder::backward>(
      UpPolicy<T>{}, own_up, after, tile_up, warps);
  const UpMap<T> x_last = own_up.then(after);
  if (active && !lender && !(x_last.q == T(0))) atomicMin(&tail_start, threadIdx.x);
  __syncthreads();
  const int tail = tail_start;

  // The chunk's rows: x = d - a x_before - c x_last, with x_before = dp - cp x_last.
  if (active && !lender) {
    T y[K], p[K];
#pragma unroll
    for (int i = 0; i < K - 1; ++i) {
      const T alpha = first ? chunk.d[i] : chunk.d[i] - chunk.a[i] * dp;
      const T beta = first ? -chunk.c[i] : chunk.a[i] * cp - chunk.c[i];
      y[i] = alpha + beta * x_last.y;
      p[i] = beta * x_last.q;
    }
    y[K - 1] = x_last.y;
    p[K - 1] = x_last.q;
    store_blocked<K>(x + at.offset, at.row, n, y);
    if (threadIdx.x >= tail) {
      store_blocked<K>(tails.tail_p + at.offset, at.row, n, p);
    } else {
      bool finite = true;
#pragma unroll
      for (int i = 0; i < K; ++i) finite &= at.row + i >= n || isfinite(y[i]);
      note_failure(finite, at.offset / n, failure);
    }
  }

  if (threadIdx.x == 0) {
    tails.tail_start[tile] = tail;
    tails.first_y[tile] = x_last.y;
    tails.first_p[tile] = x_last.q;
  }
}

// Every tile's tail, x = y + p X, with X the next tile's first interface unknown: final when
// its p is 0, else followed from tile to tile until one is (the batch's last tile's always is).
// A warp a tile.
template <class T, int K>
__global__ void resolve_tails_kernel(T* x, std::int64_t n, std::int64_t systems,
                                     std::int64_t tiles, int tile_threads, TileTails<T> tails,
                                     unsigned long long* failure) {
  const std::int64_t chunks = (n + K - 1) / K, total = chunks * systems;
  const int outputs = tile_threads - 1, lane = threadIdx.x % 32;
  const std::int64_t warps = static_cast<std::int64_t>(gridDim.x) * (blockDim.x / 32);
  for (std::int64_t tile = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32; tile + 1 < tiles;
       tile += warps) {
    const int tail = tails.tail_start[tile];
    if (tail >= outputs) continue;
    T X = tails.first_y[tile + 1];
    if (!(tails.first_p[tile + 1] == T(0))) {
      T p = T(1);
      X = T(0);
      for (std::int64_t j = tile + 1; j < tiles; ++j) {
        const T pj = tails.first_p[j];
        X += p * tails.first_y[j];
        p *= pj;
        if (pj == T(0) || p == T(0)) break;
      }
    }
    for (int t = tail + lane; t < outputs; t += 32) {
      const std::int64_t q = tile * outputs + t;
      if (q >= total) break;
      const ChunkPlace at(q, chunks, n, K);
      bool finite = true;
      for (int i = 0; i < K && at.row + i < n; ++i) {
        const std::int64_t g = at.offset + at.row + i;
        const T p = tails.tail_p[g];
        // Rows whose p is 0 keep y, so a NaN X of another system cannot reach them.
        const T xi = p == T(0) ? x[g] : x[g] + p * X;
        x[g] = xi;
        finite &= isfinite(xi);
      }
      note_failure(finite, at.offset / n, failure);
    }
  }
}

}  // namespace thomas_scan_detail

// thomas-scan's workspace: the look-back's counter and tile states (zeroed before each solve),
// then the tails.
template <class T>
class ThomasScanWorkspace {
 public:
  // A batch of `systems` systems of n rows, `threads` threads a block, `chunk` rows a thread.
  ThomasScanWorkspace(std::int64_t n, std::int64_t systems, int threads, int chunk)
      : n_(n),
        systems_(systems),
        threads_(threads),
        tiles_(ceil_div(ceil_div(n, chunk) * systems, threads - 1)),
        lookback_(tiles_) {
    const auto t = static_cast<std::size_t>(tiles_);
    zeroed_ = align(lookback_.bytes);
    tail_start_ = zeroed_;
    first_y_ = align(tail_start_ + t * sizeof(int));
    first_p_ = align(first_y_ + t * sizeof(T));
    tail_p_ = align(first_p_ + t * sizeof(T));
    bytes_ = tail_p_ + static_cast<std::size_t>(n * systems) * sizeof(T);
  }
  std::size_t bytes() const { return bytes_; }

  template <int K>
  void solve(const T* a, const T* b, const T* c, const T* d, T* x, unsigned char* base,
             unsigned long long* failure, cudaStream_t stream,
             scan_detail::LookbackPauses pauses) const {
    using namespace thomas_scan_detail;
    // Zero is "unpublished" for tagged tile states.
    PARASOL_CUDA(cudaMemsetAsync(base, 0, zeroed_, stream));
    auto* counter = reinterpret_cast<unsigned long long*>(base);
    const TileTails<T> tails{reinterpret_cast<int*>(base + tail_start_),
                             reinterpret_cast<T*>(base + first_y_),
                             reinterpret_cast<T*>(base + first_p_),
                             reinterpret_cast<T*>(base + tail_p_)};
    const std::size_t smem = 3 * sizeof(T) * static_cast<std::size_t>(threads_);
    thomas_scan_kernel<T, K><<<static_cast<unsigned>(tiles_), threads_, smem, stream>>>(
        a, b, c, d, x, n_, systems_, counter, lookback_.states(base, tiles_), tails, pauses,
        failure);
    PARASOL_CHECK_LAUNCH(stream);
    if (tiles_ > 1) {
      constexpr int kBlock = 256;  // a warp a tile
      const auto blocks = static_cast<unsigned>(ceil_div(tiles_ - 1, kBlock / 32));
      resolve_tails_kernel<T, K><<<blocks, kBlock, 0, stream>>>(x, n_, systems_, tiles_, threads_,
                                                                 tails, failure);
      PARASOL_CHECK_LAUNCH(stream);
    }
  }

 private:
  static std::size_t align(std::size_t bytes) { return (bytes + 255) / 256 * 256; }
  std::int64_t n_, systems_;
  int threads_;
  std::int64_t tiles_;
  scan_detail::LookbackLayout<DownMap<T>, scan_detail::StateKind::tagged> lookback_;
  std::size_t zeroed_ = 0, tail_start_ = 0, first_y_ = 0, first_p_ = 0, tail_p_ = 0, bytes_ = 0;
};

}  // namespace parasol::tridiag
