// Device level of the scan layer (as CUB's device/): the device-wide scan behind scan.hpp, generic over a Policy that says what an element is, how
// two combine (associative, not necessarily commutative) and how a thread reads and writes its
// items:
//
//   struct Policy {
//     using Value = ...;
//     __device__ Value identity() const;
//     __device__ Value combine(const Value& earlier, const Value& later) const;
//     __device__ Value load(std::int64_t i) const;             // element i < n
//     template <int K> __device__ void prepare(std::int64_t first, std::int64_t n,
//                                              Value (&items)[K]) const;  // a thread's K items
//     __device__ void store(std::int64_t i, const Value& v) const;  // result i < n
//     // Only for tiles that move 16 bytes at a time (Tile<..., true>):
//     static constexpr int kVectorWidth = ...;   // elements a 16-byte access of each array holds
//     __device__ bool vectors_aligned() const;   // every array 16-byte aligned
//     __device__ void load_vector(std::int64_t i, Value (&items)[kVectorWidth]) const;
//     __device__ void store_vector(std::int64_t i, const Value (&items)[kVectorWidth]) const;
//   };
//
// Elements are read and written coalesced (lane after lane) and passed through shared memory so
// each thread scans K consecutive ones; prepare() sees them in that order (the recurrence marks
// segment starts there).
//
// fast: one pass. A tile (Tile::threads x Tile::items consecutive elements) takes its id from
// an atomic counter, scans its items (sequentially in each thread, by shuffles across lanes,
// through shared memory across warps), publishes its total, then looks back over its
// predecessors' published totals and prefixes until it meets a prefix (decoupled look-back).
// Every tile it waits on took its id earlier, so has started and publishes without waiting: no
// deadlock, whatever order the hardware schedules blocks in. The look-back pauses before its
// first read and between reads (LookbackPauses): polling L2 without pause slowed the float sum
// by a sixth.
// Tried and not kept: persistent blocks that load their next tile while the first warp looks
// back. A tile's total then waits on its block's previous look-back, the look-backs chain from
// tile to tile, and the scan ran at half the speed.
// reproducible: tile totals, one block scanning them in order, then the tiles again with their
// prefixes: no result depends on timing.
//
// Tiles are types (Tile below): threads, items a thread, the load path, and a minimum of blocks a
// multiprocessor. Bytes in flight, as shipped (ptxas -v for sm_90, CUDA 13.0; a multiprocessor
// holds 64 K registers, 2048 threads, 227 KB of shared memory):
//   float sum, 256 x 16, one element a lane: 40 registers, 16.9 KB shared, so 6 blocks a
//     multiprocessor (registers: 6 x 256 x 40 = 61 440 of 65 536). A thread issues its 16 4-byte
//     loads before the first use (the warp transpose's shared stores wait on all of them), so a
//     block has its whole 16 KB tile in flight while it loads, and a multiprocessor 96 KB when all
//     six load at once. What is in flight on average is far less: at 393.8 G elements/s on an
//     H200 (issue 53) a multiprocessor reads 11.9 GB/s, 8-12 KB in flight at 0.7-1 us latency,
//     half the ~23 KB that 4.3 TB/s x ~700 ns / 132 asks for. A block holds its slot for a
//     tile's whole life (6 blocks / 2.98 G elements/s a multiprocessor x 4096 elements = 8.2 us
//     a tile), of which the loads take about one: the rest is the scan, the look-back (its
//     2.2 us first pause included) and the stores, with no load of the next tile in flight.
//   float recurrence, 256 x 16 pairs, one element a lane, 4 blocks asked: 64 registers, 33.8 KB
//     shared, 4 blocks: 32 KB a tile (s and u) in flight at once, 128 KB a multiprocessor when all
//     four load; at 251.8 G elements/s a multiprocessor reads 15.3 GB/s (11-15 KB in flight
//     on average) and a tile lives 8.6 us.
// So the tiles are short of bytes in flight not because a block issues too few loads, but
// because a block issues them in one burst in a lifetime dominated by latency it waits out with
// nothing in flight. More bytes a tile (items, threads) spread that fixed cost over more bytes;
// 16-byte vectors issue a tile's loads in a quarter of the instructions. The candidates
// (scan.cu, recurrence.cu) are timed beside copy and CUB by bench/recurrence_bench.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "kernels/error.hpp"
#include "kernels/launch.hpp"
#include "kernels/scan.hpp"
#include "kernels/scan/block.cuh"
#include "kernels/scan/lookback.cuh"
#include "kernels/scan/warp.cuh"

namespace parasol {

// A tile of the scan as a compile-time type: Threads x Items elements; with Vectors each
// thread moves its items Policy::kVectorWidth at a time (16 bytes of each array); MinBlocks
// blocks a multiprocessor asked of the compiler (0: none, registers as it likes). A look-back
// scan runs at the rate of the tiles in flight, so a tile whose registers would cost it a block
// a multiprocessor can ask for the block back.
template <int Threads, int Items, bool Vectors = false, int MinBlocks = 0>
struct Tile {
  static constexpr int threads = Threads, items = Items, min_blocks = MinBlocks;
  static constexpr bool vectors = Vectors;
  static constexpr std::int64_t elements = std::int64_t(Threads) * Items;
  static_assert(Threads % 32 == 0 && Threads <= 1024, "a block of whole warps, at most 1024");
  static ScanTile tile() { return {Threads, Items, Vectors, MinBlocks}; }
};

template <class... T>
struct TileList {};

template <class... T>
std::vector<ScanTile> compiled_tiles(TileList<T...>) {
  return {T::tile()...};
}

// "recurrence<float>, fast: tile 256x20 is not compiled in; compiled: 256x16 256x16v"
inline std::string tile_not_compiled(std::string_view scan, const ScanTile& want,
                                     const std::vector<ScanTile>& compiled) {
  std::string m =
      std::string(scan) + ": tile " + to_string(want) + " is not compiled in; compiled:";
  for (const ScanTile& t : compiled) m += " " + to_string(t);
  return m;
}

// Calls launch(T{}) for the tile T equal to `want`, or throws InputError naming those compiled.
template <class... T, class Launch>
void dispatch_tile(std::string_view scan, TileList<T...> list, const ScanTile& want,
                   Launch&& launch) {
  const bool found = ((want == T::tile() ? (launch(T{}), true) : false) || ...);
  if (!found) throw InputError(tile_not_compiled(scan, want, compiled_tiles(list)));
}

namespace device_scan_detail {

using block::apply_prefix;
using block::exclusive_scan;
using block::scan_items;
using lookback::kPrefix;
using lookback::kTotal;
using lookback::Pauses;
using lookback::state_kind;
using lookback::TileStates;

// Elements a thread moves in one access: the policy's 16-byte width on a vector tile, else one.
template <class Tile, class Policy>
constexpr int vector_width() {
  if constexpr (Tile::vectors) return Policy::kVectorWidth;
  else return 1;
}

// Moves a warp's 32 x K elements between striped order (coalesced in memory: W elements a lane,
// lane after lane, then the next W a lane) and K-consecutive-per-lane order through shared
// memory. Item q of a lane sits at striped position (q / W) * 32 * W + lane * W + q % W; with W
// = 1 that is q * 32 + lane. A pad slot every kPad keeps banks apart: every 32 words for one
// element a lane (as shipped); every 128 bytes for vectors, which keeps both the vector lanes'
// stores and the blocked reads at one shared-memory wavefront (two for 8-byte values) for the
// item counts compiled.
template <int K, int W, class V>
struct WarpTranspose {
  static_assert(K % W == 0, "a thread's items are whole vectors");
  static constexpr int kPad = W == 1 ? 32 : (128 / int(sizeof(V)) > 0 ? 128 / int(sizeof(V)) : 1);
  static constexpr int kSlots = 32 * K + (32 * K + kPad - 1) / kPad;
  V* smem;  // kSlots per warp
  __device__ static int slot(int i) { return i + i / kPad; }
  __device__ static int striped(int q, int lane) { return (q / W) * 32 * W + lane * W + q % W; }
  // items[q] holds striped element q of its lane on entry, element lane*K + q on exit.
  __device__ void to_blocked(V (&items)[K]) const {
    const int lane = threadIdx.x % 32;
#pragma unroll
    for (int q = 0; q < K; ++q) smem[slot(striped(q, lane))] = items[q];
    __syncwarp();
#pragma unroll
    for (int q = 0; q < K; ++q) items[q] = smem[slot(lane * K + q)];
    __syncwarp();
  }
  __device__ void to_striped(V (&items)[K]) const {
    const int lane = threadIdx.x % 32;
#pragma unroll
    for (int q = 0; q < K; ++q) smem[slot(lane * K + q)] = items[q];
    __syncwarp();
#pragma unroll
    for (int q = 0; q < K; ++q) items[q] = smem[slot(striped(q, lane))];
    __syncwarp();
  }
};

template <class Tile, class Policy>
using TileTranspose =
    WarpTranspose<Tile::items, vector_width<Tile, Policy>(), typename Policy::Value>;

// Shared memory a tile's transposes need: one WarpTranspose a warp.
template <class Tile, class Policy>
constexpr int transpose_slots() {
  return Tile::threads / 32 * TileTranspose<Tile, Policy>::kSlots;
}

// The transposes' shared memory. A kernel may declare at most 48 KB statically; a tile whose
// transposes need more (two-thirds of 64 KB of pairs) takes it dynamically, allowed per kernel
// at launch (allow_transpose_memory).
template <class Tile, class Policy>
struct TransposeMemory {
  using V = typename Policy::Value;
  static constexpr int kSlots = transpose_slots<Tile, Policy>();
  static constexpr std::size_t kBytes = std::size_t(kSlots) * sizeof(V);
  static constexpr bool kDynamic = kBytes > 40 * 1024;
  static constexpr std::size_t kDynamicBytes = kDynamic ? kBytes : 0;
};

template <class Tile, class Policy>
__device__ inline typename Policy::Value* transpose_memory() {
  using M = TransposeMemory<Tile, Policy>;
  using V = typename M::V;
  if constexpr (M::kDynamic) {
    extern __shared__ __align__(16) unsigned char scan_dynamic_smem[];
    return reinterpret_cast<V*>(scan_dynamic_smem);
  } else {
    __shared__ V smem[M::kSlots];
    return smem;
  }
}

template <class Tile, class Policy, class Kernel>
void allow_transpose_memory(Kernel kernel) {
  using M = TransposeMemory<Tile, Policy>;
  if constexpr (M::kDynamic)
    PARASOL_CUDA(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                      static_cast<int>(M::kBytes)));
}

// A thread's K consecutive items of the tile starting at tile_first, read coalesced. Every
// thread issues all its loads before its first use of one (the transpose's shared stores), so a
// block has its whole tile in flight at once. A vector tile reads one element at a time where
// an array is not 16-byte aligned or the tile is the last, partial one: the same elements into
// the same items, so the arithmetic, and its bits, are the same either way.
template <class Tile, class Policy, class V>
__device__ inline void load_items(const Policy& p, std::int64_t tile_first, std::int64_t n,
                                  V* smem, V (&items)[Tile::items]) {
  constexpr int K = Tile::items, W = vector_width<Tile, Policy>();
  using Transpose = TileTranspose<Tile, Policy>;
  const int lane = threadIdx.x % 32, my_warp = threadIdx.x / 32;
  const std::int64_t warp_first = tile_first + std::int64_t(my_warp) * 32 * K;
  const bool whole = tile_first + Tile::elements <= n;  // a whole tile: no bound per item
  if constexpr (W > 1) {
    if (whole && p.vectors_aligned()) {
#pragma unroll
      for (int v = 0; v < K / W; ++v) {
        V run[W];
        p.load_vector(warp_first + std::int64_t(v) * 32 * W + lane * W, run);
#pragma unroll
        for (int c = 0; c < W; ++c) items[v * W + c] = run[c];
      }
    } else {
#pragma unroll
      for (int q = 0; q < K; ++q) {
        const std::int64_t i = warp_first + Transpose::striped(q, lane);
        items[q] = i < n ? p.load(i) : p.identity();
      }
    }
  } else if (whole) {
#pragma unroll
    for (int j = 0; j < K; ++j) items[j] = p.load(warp_first + j * 32 + lane);
  } else {
#pragma unroll
    for (int j = 0; j < K; ++j) {
      const std::int64_t i = warp_first + j * 32 + lane;
      items[j] = i < n ? p.load(i) : p.identity();
    }
  }
  Transpose{smem + my_warp * Transpose::kSlots}.to_blocked(items);
  p.template prepare<K>(warp_first + lane * K, n, items);
}

template <class Tile, class Policy, class V>
__device__ inline void store_items(const Policy& p, std::int64_t tile_first, std::int64_t n,
                                   V* smem, V (&items)[Tile::items]) {
  constexpr int K = Tile::items, W = vector_width<Tile, Policy>();
  using Transpose = TileTranspose<Tile, Policy>;
  const int lane = threadIdx.x % 32, my_warp = threadIdx.x / 32;
  Transpose{smem + my_warp * Transpose::kSlots}.to_striped(items);
  const std::int64_t warp_first = tile_first + std::int64_t(my_warp) * 32 * K;
  const bool whole = tile_first + Tile::elements <= n;
  if constexpr (W > 1) {
    if (whole && p.vectors_aligned()) {
#pragma unroll
      for (int v = 0; v < K / W; ++v) {
        V run[W];
#pragma unroll
        for (int c = 0; c < W; ++c) run[c] = items[v * W + c];
        p.store_vector(warp_first + std::int64_t(v) * 32 * W + lane * W, run);
      }
    } else {
#pragma unroll
      for (int q = 0; q < K; ++q) {
        const std::int64_t i = warp_first + Transpose::striped(q, lane);
        if (i < n) p.store(i, items[q]);
      }
    }
  } else if (whole) {
#pragma unroll
    for (int j = 0; j < K; ++j) p.store(warp_first + j * 32 + lane, items[j]);
  } else {
#pragma unroll
    for (int j = 0; j < K; ++j) {
      const std::int64_t i = warp_first + j * 32 + lane;
      if (i < n) p.store(i, items[j]);
    }
  }
}

template <class Tile, bool kExclusive, class Policy>
__global__ void __launch_bounds__(Tile::threads, Tile::min_blocks)
    lookback_scan_kernel(Policy p, std::int64_t n, unsigned long long* counter,
                         TileStates<typename Policy::Value, state_kind<Policy>()> states,
                         Pauses pauses) {
  using V = typename Policy::Value;
  constexpr std::int64_t kTile = Tile::elements;
  __shared__ std::int64_t tile_id;
  __shared__ V tile_prefix;
  V* const smem = transpose_memory<Tile, Policy>();
  if (threadIdx.x == 0) tile_id = static_cast<std::int64_t>(atomicAdd(counter, 1ull));
  __syncthreads();
  const std::int64_t tile = tile_id;

  V items[Tile::items];
  load_items<Tile>(p, tile * kTile, n, smem, items);
  const V total = scan_items(p, items);
  V prefix, block_total;
  exclusive_scan<Tile::threads>(p, total, prefix, block_total);

  if (tile == 0) {
    if (threadIdx.x == 0) states.publish(0, kPrefix, block_total);
  } else {
    if (threadIdx.x < 32) {
      if (threadIdx.x == 0) states.publish(tile, kTotal, block_total);
      const V before = lookback::look_back(p, states, tile, pauses);
      if (threadIdx.x == 0) {
        states.publish(tile, kPrefix, p.combine(before, block_total));
        tile_prefix = before;
      }
    }
    __syncthreads();
    prefix = threadIdx.x == 0 ? tile_prefix : p.combine(tile_prefix, prefix);
  }
  apply_prefix<kExclusive>(p, prefix, tile == 0 && threadIdx.x == 0, items);
  store_items<Tile>(p, tile * kTile, n, smem, items);
}

// reproducible, step 1: each tile's total, by the same arithmetic as step 3.
template <class Tile, class Policy>
__global__ void __launch_bounds__(Tile::threads, Tile::min_blocks)
    tile_totals_kernel(Policy p, std::int64_t n, typename Policy::Value* totals) {
  using V = typename Policy::Value;
  constexpr std::int64_t kTile = Tile::elements;
  V* const smem = transpose_memory<Tile, Policy>();
  V items[Tile::items];
  load_items<Tile>(p, blockIdx.x * kTile, n, smem, items);
  const V total = scan_items(p, items);
  V prefix, block_total;
  exclusive_scan<Tile::threads>(p, total, prefix, block_total);
  if (threadIdx.x == 0) totals[blockIdx.x] = block_total;
}

// reproducible, step 2: the tile totals turned into exclusive tile prefixes, in place, in a fixed
// order: chunks of kPrefixChunk totals, each scanned by one block, chained left to right by the
// running combination of the chunks' totals. Two launches compute exactly what one block walking
// the chunks in turn would (the same operations on the same values): the first writes each
// chunk's total; the second folds the totals before its chunk, in order, and scans its chunk
// from that carry.
constexpr int kPrefixThreads = 1024, kPrefixItems = 4;
constexpr std::int64_t kPrefixChunk = std::int64_t(kPrefixThreads) * kPrefixItems;

template <class Policy>
__device__ void scan_prefix_chunk(const Policy& p, std::int64_t tiles, std::int64_t base,
                                  const typename Policy::Value* totals,
                                  typename Policy::Value (&items)[kPrefixItems],
                                  typename Policy::Value& prefix,
                                  typename Policy::Value& chunk_total) {
  using V = typename Policy::Value;
  const std::int64_t first = base + std::int64_t(threadIdx.x) * kPrefixItems;
#pragma unroll
  for (int j = 0; j < kPrefixItems; ++j)
    items[j] = first + j < tiles ? totals[first + j] : p.identity();
  const V total = scan_items(p, items);
  exclusive_scan<kPrefixThreads>(p, total, prefix, chunk_total);
}

template <class Policy>
__global__ void __launch_bounds__(kPrefixThreads)
    prefix_chunk_totals_kernel(Policy p, std::int64_t tiles,
                               const typename Policy::Value* totals,
                               typename Policy::Value* chunk_totals) {
  using V = typename Policy::Value;
  V items[kPrefixItems], prefix, chunk_total;
  scan_prefix_chunk(p, tiles, std::int64_t(blockIdx.x) * kPrefixChunk, totals, items, prefix,
                    chunk_total);
  if (threadIdx.x == 0) chunk_totals[blockIdx.x] = chunk_total;
}

template <class Policy>
__global__ void __launch_bounds__(kPrefixThreads)
    prefix_chunks_kernel(Policy p, std::int64_t tiles, typename Policy::Value* totals,
                         const typename Policy::Value* chunk_totals) {
  using V = typename Policy::Value;
  __shared__ V carry;
  const std::int64_t chunk = blockIdx.x, base = chunk * kPrefixChunk;
  if (threadIdx.x == 0 && chunk > 0) {
    V c = chunk_totals[0];
    for (std::int64_t k = 1; k < chunk; ++k) c = p.combine(c, chunk_totals[k]);
    carry = c;
  }
  V items[kPrefixItems], prefix, chunk_total;
  scan_prefix_chunk(p, tiles, base, totals, items, prefix, chunk_total);  // syncs the block
  __syncthreads();
  const V start = chunk == 0 ? prefix : p.combine(carry, prefix);
  apply_prefix<true>(p, start, chunk == 0 && threadIdx.x == 0, items);
  const std::int64_t first = base + std::int64_t(threadIdx.x) * kPrefixItems;
#pragma unroll
  for (int j = 0; j < kPrefixItems; ++j)
    if (first + j < tiles) totals[first + j] = items[j];
}

// reproducible, step 3: each tile scanned again from its prefix. The n elements may be a run of
// a longer sequence that starts at its tile `first_tile` (prefixes are indexed by the longer
// sequence's tiles); tile 0 of the sequence has no prefix.
template <class Tile, bool kExclusive, class Policy>
__global__ void __launch_bounds__(Tile::threads, Tile::min_blocks)
    prefixed_scan_kernel(Policy p, std::int64_t n, const typename Policy::Value* prefixes,
                         std::int64_t first_tile) {
  using V = typename Policy::Value;
  constexpr std::int64_t kTile = Tile::elements;
  V* const smem = transpose_memory<Tile, Policy>();
  const std::int64_t tile = first_tile + blockIdx.x;
  V items[Tile::items];
  load_items<Tile>(p, blockIdx.x * kTile, n, smem, items);
  const V total = scan_items(p, items);
  V prefix, block_total;
  exclusive_scan<Tile::threads>(p, total, prefix, block_total);
  if (tile > 0) {
    const V tile_prefix = prefixes[tile];
    prefix = threadIdx.x == 0 ? tile_prefix : p.combine(tile_prefix, prefix);
  }
  apply_prefix<kExclusive>(p, prefix, tile == 0 && threadIdx.x == 0, items);
  store_items<Tile>(p, blockIdx.x * kTile, n, smem, items);
}

}  // namespace device_scan_detail

// The reproducible scan's three steps, each enqueued on the stream, for a sequence cut into runs
// on tile boundaries (a run per rank, say): every run's tile totals, gathered in order, scanned
// as one sequence's, give each run the prefixes one scan of the whole sequence would, so the
// same bits. Step 1: the totals of the tiles of n elements, one per Tile::elements.
template <class Tile, class Policy>
void device_scan_tile_totals(const Policy& policy, std::int64_t n, typename Policy::Value* totals,
                             cudaStream_t stream) {
  using namespace device_scan_detail;
  if (n <= 0) return;
  const std::int64_t tiles = ceil_div(n, Tile::elements);
  if (tiles > kMaxGridX) throw Error("device_scan: too many elements for one launch");
  constexpr std::size_t kShared = TransposeMemory<Tile, Policy>::kDynamicBytes;
  allow_transpose_memory<Tile, Policy>(tile_totals_kernel<Tile, Policy>);
  PARASOL_NOTE_LAUNCH(static_cast<unsigned>(tiles), Tile::threads, kShared,
                      tile_totals_kernel<Tile, Policy>);
  tile_totals_kernel<Tile>
      <<<static_cast<unsigned>(tiles), Tile::threads, kShared, stream>>>(policy, n, totals);
  PARASOL_CHECK_LAUNCH(stream);
}

// Step 2: `tiles` totals turned into exclusive prefixes in place, in a fixed order; `scratch`
// holds tile_prefix_chunks(tiles) values.
inline std::int64_t tile_prefix_chunks(std::int64_t tiles) {
  return ceil_div(tiles, device_scan_detail::kPrefixChunk);
}

template <class Policy>
void device_scan_tile_prefixes(const Policy& policy, std::int64_t tiles,
                               typename Policy::Value* totals, typename Policy::Value* scratch,
                               cudaStream_t stream) {
  using namespace device_scan_detail;
  if (tiles <= 0) return;
  const auto chunks = static_cast<unsigned>(tile_prefix_chunks(tiles));
  PARASOL_NOTE_LAUNCH(chunks, kPrefixThreads, 0, prefix_chunk_totals_kernel<Policy>);
  prefix_chunk_totals_kernel<<<chunks, kPrefixThreads, 0, stream>>>(policy, tiles, totals,
                                                                     scratch);
  PARASOL_CHECK_LAUNCH(stream);
  PARASOL_NOTE_LAUNCH(chunks, kPrefixThreads, 0, prefix_chunks_kernel<Policy>);
  prefix_chunks_kernel<<<chunks, kPrefixThreads, 0, stream>>>(policy, tiles, totals, scratch);
  PARASOL_CHECK_LAUNCH(stream);
}

// Step 3: n elements, the sequence's tiles from `first_tile` on, scanned from their prefixes.
template <class Tile, class Policy>
void device_scan_prefixed(const Policy& policy, std::int64_t n, ScanKind kind,
                          const typename Policy::Value* prefixes, std::int64_t first_tile,
                          cudaStream_t stream) {
  using namespace device_scan_detail;
  if (n <= 0) return;
  const std::int64_t tiles = ceil_div(n, Tile::elements);
  if (tiles > kMaxGridX) throw Error("device_scan: too many elements for one launch");
  const auto grid = static_cast<unsigned>(tiles);
  constexpr std::size_t kShared = TransposeMemory<Tile, Policy>::kDynamicBytes;
  if (kind == ScanKind::exclusive) {
    allow_transpose_memory<Tile, Policy>(prefixed_scan_kernel<Tile, true, Policy>);
    PARASOL_NOTE_LAUNCH(grid, Tile::threads, kShared, prefixed_scan_kernel<Tile, true, Policy>);
    prefixed_scan_kernel<Tile, true>
        <<<grid, Tile::threads, kShared, stream>>>(policy, n, prefixes, first_tile);
  } else {
    allow_transpose_memory<Tile, Policy>(prefixed_scan_kernel<Tile, false, Policy>);
    PARASOL_NOTE_LAUNCH(grid, Tile::threads, kShared, prefixed_scan_kernel<Tile, false, Policy>);
    prefixed_scan_kernel<Tile, false>
        <<<grid, Tile::threads, kShared, stream>>>(policy, n, prefixes, first_tile);
  }
  PARASOL_CHECK_LAUNCH(stream);
}

// Scans n elements through the policy, enqueued on the stream, in tiles of Tile::elements; the
// workspace grows to what the tiles need. device_scan_in<kMode> compiles one mode's kernels
// alone (a tile compiled as a candidate for one mode only); device_scan takes the mode at run
// time.
template <ScanMode kMode, class Tile, class Policy>
void device_scan_in(const Policy& policy, std::int64_t n, ScanKind kind, ScanWorkspace& workspace,
                    cudaStream_t stream, lookback::Pauses pauses = {}) {
  using namespace device_scan_detail;
  using V = typename Policy::Value;
  if (n <= 0) return;
  const std::int64_t tiles = ceil_div(n, Tile::elements);
  if (tiles > kMaxGridX) throw Error("device_scan: too many elements for one launch");
  const bool exclusive = kind == ScanKind::exclusive;
  const auto grid = static_cast<unsigned>(tiles);

  if constexpr (kMode == ScanMode::reproducible) {
    auto* totals = static_cast<V*>(workspace.reserve(
        static_cast<std::size_t>(tiles + tile_prefix_chunks(tiles)) * sizeof(V)));
    device_scan_tile_totals<Tile>(policy, n, totals, stream);
    device_scan_tile_prefixes(policy, tiles, totals, totals + tiles, stream);
    device_scan_prefixed<Tile>(policy, n, kind, totals, 0, stream);
  } else {
    const lookback::Layout<V, state_kind<Policy>()> layout(tiles);
    auto* base = static_cast<unsigned char*>(workspace.reserve(layout.bytes));
    layout.clear(base, stream);  // a fresh counter and unpublished tiles for every launch
    auto* counter = reinterpret_cast<unsigned long long*>(base);
    const auto states = layout.states(base, tiles);
    constexpr std::size_t kShared = TransposeMemory<Tile, Policy>::kDynamicBytes;
    if (exclusive) {
      allow_transpose_memory<Tile, Policy>(lookback_scan_kernel<Tile, true, Policy>);
      PARASOL_NOTE_LAUNCH(grid, Tile::threads, kShared, lookback_scan_kernel<Tile, true, Policy>);
      lookback_scan_kernel<Tile, true>
          <<<grid, Tile::threads, kShared, stream>>>(policy, n, counter, states, pauses);
    } else {
      allow_transpose_memory<Tile, Policy>(lookback_scan_kernel<Tile, false, Policy>);
      PARASOL_NOTE_LAUNCH(grid, Tile::threads, kShared,
                          lookback_scan_kernel<Tile, false, Policy>);
      lookback_scan_kernel<Tile, false>
          <<<grid, Tile::threads, kShared, stream>>>(policy, n, counter, states, pauses);
    }
    PARASOL_CHECK_LAUNCH(stream);
  }
}

// Blocks a multiprocessor of the current device holds at once of a tile's main kernel (the
// fast scan's look-back pass, the reproducible scan's last), inclusive, by the occupancy
// calculator: times the tile's bytes, what a multiprocessor can have in flight.
template <ScanMode kMode, class Tile, class Policy>
int blocks_per_multiprocessor() {
  using namespace device_scan_detail;
  constexpr std::size_t kShared = TransposeMemory<Tile, Policy>::kDynamicBytes;
  int blocks = 0;
  if constexpr (kMode == ScanMode::fast) {
    allow_transpose_memory<Tile, Policy>(lookback_scan_kernel<Tile, false, Policy>);
    PARASOL_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
        &blocks, lookback_scan_kernel<Tile, false, Policy>, Tile::threads, kShared));
  } else {
    allow_transpose_memory<Tile, Policy>(prefixed_scan_kernel<Tile, false, Policy>);
    PARASOL_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
        &blocks, prefixed_scan_kernel<Tile, false, Policy>, Tile::threads, kShared));
  }
  return blocks;
}

template <class Tile, class Policy>
void device_scan(const Policy& policy, std::int64_t n, ScanKind kind, ScanMode mode,
                 ScanWorkspace& workspace, cudaStream_t stream,
                 lookback::Pauses pauses = {}) {
  if (mode == ScanMode::reproducible)
    device_scan_in<ScanMode::reproducible, Tile>(policy, n, kind, workspace, stream);
  else
    device_scan_in<ScanMode::fast, Tile>(policy, n, kind, workspace, stream, pauses);
}

}  // namespace parasol
