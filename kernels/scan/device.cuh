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
//   };
//
// Elements are read and written coalesced (lane after lane) and passed through shared memory so
// each thread scans K consecutive ones; prepare() sees them in that order (the recurrence marks
// segment starts there).
//
// fast: one pass. A tile (kThreads x kItems consecutive elements) takes its id from an atomic
// counter, scans its items (sequentially in each thread, by shuffles across lanes, through
// shared memory across warps), publishes its total, then looks back over its predecessors'
// published totals and prefixes until it meets a prefix (decoupled look-back). Every tile it
// waits on took its id earlier, so has started and publishes without waiting: no deadlock,
// whatever order the hardware schedules blocks in. The look-back pauses before its first read
// and between reads (LookbackPauses): polling L2 without pause slowed the float sum by a sixth.
// Tried and not kept: persistent blocks that load their next tile while the first warp looks
// back. A tile's total then waits on its block's previous look-back, the look-backs chain from
// tile to tile, and the scan ran at half the speed.
// reproducible: tile totals, one block scanning them in order, then the tiles again with their
// prefixes: no result depends on timing.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

#include "kernels/error.hpp"
#include "kernels/launch.hpp"
#include "kernels/scan.hpp"
#include "kernels/scan/block.cuh"
#include "kernels/scan/lookback.cuh"
#include "kernels/scan/warp.cuh"

namespace parasol {
namespace device_scan_detail {

using block::apply_prefix;
using block::exclusive_scan;
using block::scan_items;
using lookback::kPrefix;
using lookback::kTotal;
using lookback::Pauses;
using lookback::state_kind;
using lookback::TileStates;

template <class Policy, class = void>
struct MinBlocks {
  static constexpr int value = 0;
};
template <class Policy>
struct MinBlocks<Policy, std::void_t<decltype(Policy::kMinBlocks)>> {
  static constexpr int value = Policy::kMinBlocks;
};

// Blocks of the fast scan a multiprocessor must hold at once: a policy's kMinBlocks where it sets
// one, else 0, which leaves the registers to the compiler as no minimum does. A look-back scan
// runs at the rate of the tiles in flight, so a policy whose registers would cost it a block a
// multiprocessor can ask for the block back.
template <class Policy>
constexpr int min_blocks() {
  return MinBlocks<Policy>::value;
}

// Moves a warp's 32 x K elements between lane-after-lane order (coalesced in memory) and
// K-consecutive-per-lane order through shared memory; a pad word every 32 keeps banks apart.
template <int K, class V>
struct WarpTranspose {
  static constexpr int kSlots = 32 * K + K;
  V* smem;  // kSlots per warp
  __device__ static int slot(int i) { return i + i / 32; }
  // items[j] holds element j*32 + lane on entry, lane*K + j on exit.
  __device__ void to_blocked(V (&items)[K]) const {
    const int lane = threadIdx.x % 32;
#pragma unroll
    for (int j = 0; j < K; ++j) smem[slot(j * 32 + lane)] = items[j];
    __syncwarp();
#pragma unroll
    for (int j = 0; j < K; ++j) items[j] = smem[slot(lane * K + j)];
    __syncwarp();
  }
  __device__ void to_striped(V (&items)[K]) const {
    const int lane = threadIdx.x % 32;
#pragma unroll
    for (int j = 0; j < K; ++j) smem[slot(lane * K + j)] = items[j];
    __syncwarp();
#pragma unroll
    for (int j = 0; j < K; ++j) items[j] = smem[slot(j * 32 + lane)];
    __syncwarp();
  }
};

// A thread's K consecutive items of the tile starting at tile_first, read coalesced.
template <int kThreads, int K, class Policy, class V>
__device__ inline void load_items(const Policy& p, std::int64_t tile_first, std::int64_t n,
                                  V* smem, V (&items)[K]) {
  const int lane = threadIdx.x % 32, my_warp = threadIdx.x / 32;
  const std::int64_t warp_first = tile_first + std::int64_t(my_warp) * 32 * K;
  if (tile_first + std::int64_t(kThreads) * K <= n) {  // a whole tile: no bound per item
#pragma unroll
    for (int j = 0; j < K; ++j) items[j] = p.load(warp_first + j * 32 + lane);
  } else {
#pragma unroll
    for (int j = 0; j < K; ++j) {
      const std::int64_t i = warp_first + j * 32 + lane;
      items[j] = i < n ? p.load(i) : p.identity();
    }
  }
  WarpTranspose<K, V>{smem + my_warp * WarpTranspose<K, V>::kSlots}.to_blocked(items);
  p.template prepare<K>(warp_first + lane * K, n, items);
}

template <int kThreads, int K, class Policy, class V>
__device__ inline void store_items(const Policy& p, std::int64_t tile_first, std::int64_t n,
                                   V* smem, V (&items)[K]) {
  const int lane = threadIdx.x % 32, my_warp = threadIdx.x / 32;
  WarpTranspose<K, V>{smem + my_warp * WarpTranspose<K, V>::kSlots}.to_striped(items);
  const std::int64_t warp_first = tile_first + std::int64_t(my_warp) * 32 * K;
  if (tile_first + std::int64_t(kThreads) * K <= n) {
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

template <int kThreads, int kItems, bool kExclusive, class Policy>
__global__ void __launch_bounds__(kThreads, min_blocks<Policy>())
    lookback_scan_kernel(Policy p, std::int64_t n, unsigned long long* counter,
                         TileStates<typename Policy::Value, state_kind<Policy>()> states,
                         Pauses pauses) {
  using V = typename Policy::Value;
  constexpr std::int64_t kTile = std::int64_t(kThreads) * kItems;
  __shared__ std::int64_t tile_id;
  __shared__ V tile_prefix;
  __shared__ V smem[kThreads / 32 * WarpTranspose<kItems, V>::kSlots];
  if (threadIdx.x == 0) tile_id = static_cast<std::int64_t>(atomicAdd(counter, 1ull));
  __syncthreads();
  const std::int64_t tile = tile_id;

  V items[kItems];
  load_items<kThreads>(p, tile * kTile, n, smem, items);
  const V total = scan_items(p, items);
  V prefix, block_total;
  exclusive_scan<kThreads>(p, total, prefix, block_total);

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
  store_items<kThreads>(p, tile * kTile, n, smem, items);
}

// reproducible, step 1: each tile's total, by the same arithmetic as step 3.
template <int kThreads, int kItems, class Policy>
__global__ void __launch_bounds__(kThreads)
    tile_totals_kernel(Policy p, std::int64_t n, typename Policy::Value* totals) {
  using V = typename Policy::Value;
  constexpr std::int64_t kTile = std::int64_t(kThreads) * kItems;
  __shared__ V smem[kThreads / 32 * WarpTranspose<kItems, V>::kSlots];
  V items[kItems];
  load_items<kThreads>(p, blockIdx.x * kTile, n, smem, items);
  const V total = scan_items(p, items);
  V prefix, block_total;
  exclusive_scan<kThreads>(p, total, prefix, block_total);
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
template <int kThreads, int kItems, bool kExclusive, class Policy>
__global__ void __launch_bounds__(kThreads)
    prefixed_scan_kernel(Policy p, std::int64_t n, const typename Policy::Value* prefixes,
                         std::int64_t first_tile) {
  using V = typename Policy::Value;
  constexpr std::int64_t kTile = std::int64_t(kThreads) * kItems;
  __shared__ V smem[kThreads / 32 * WarpTranspose<kItems, V>::kSlots];
  const std::int64_t tile = first_tile + blockIdx.x;
  V items[kItems];
  load_items<kThreads>(p, blockIdx.x * kTile, n, smem, items);
  const V total = scan_items(p, items);
  V prefix, block_total;
  exclusive_scan<kThreads>(p, total, prefix, block_total);
  if (tile > 0) {
    const V tile_prefix = prefixes[tile];
    prefix = threadIdx.x == 0 ? tile_prefix : p.combine(tile_prefix, prefix);
  }
  apply_prefix<kExclusive>(p, prefix, tile == 0 && threadIdx.x == 0, items);
  store_items<kThreads>(p, blockIdx.x * kTile, n, smem, items);
}

}  // namespace device_scan_detail

// The reproducible scan's three steps, each enqueued on the stream, for a sequence cut into runs
// on tile boundaries (a run per rank, say): every run's tile totals, gathered in order, scanned
// as one sequence's, give each run the prefixes one scan of the whole sequence would, so the
// same bits. Step 1: the totals of the tiles of n elements, one per kThreads x kItems.
template <int kThreads, int kItems, class Policy>
void device_scan_tile_totals(const Policy& policy, std::int64_t n, typename Policy::Value* totals,
                             cudaStream_t stream) {
  using namespace device_scan_detail;
  if (n <= 0) return;
  const std::int64_t tiles = ceil_div(n, std::int64_t(kThreads) * kItems);
  if (tiles > kMaxGridX) throw Error("device_scan: too many elements for one launch");
  PARASOL_NOTE_LAUNCH(static_cast<unsigned>(tiles), kThreads, 0,
                      tile_totals_kernel<kThreads, kItems, Policy>);
  tile_totals_kernel<kThreads, kItems>
      <<<static_cast<unsigned>(tiles), kThreads, 0, stream>>>(policy, n, totals);
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
template <int kThreads, int kItems, class Policy>
void device_scan_prefixed(const Policy& policy, std::int64_t n, ScanKind kind,
                          const typename Policy::Value* prefixes, std::int64_t first_tile,
                          cudaStream_t stream) {
  using namespace device_scan_detail;
  if (n <= 0) return;
  const std::int64_t tiles = ceil_div(n, std::int64_t(kThreads) * kItems);
  if (tiles > kMaxGridX) throw Error("device_scan: too many elements for one launch");
  const auto grid = static_cast<unsigned>(tiles);
  if (kind == ScanKind::exclusive)
    PARASOL_NOTE_LAUNCH(grid, kThreads, 0, prefixed_scan_kernel<kThreads, kItems, true, Policy>);
  else
    PARASOL_NOTE_LAUNCH(grid, kThreads, 0, prefixed_scan_kernel<kThreads, kItems, false, Policy>);
  if (kind == ScanKind::exclusive)
    prefixed_scan_kernel<kThreads, kItems, true>
        <<<grid, kThreads, 0, stream>>>(policy, n, prefixes, first_tile);
  else
    prefixed_scan_kernel<kThreads, kItems, false>
        <<<grid, kThreads, 0, stream>>>(policy, n, prefixes, first_tile);
  PARASOL_CHECK_LAUNCH(stream);
}

// Scans n elements through the policy, enqueued on the stream. kThreads x kItems elements per
// tile; the workspace grows to what the tiles need.
template <int kThreads, int kItems, class Policy>
void device_scan(const Policy& policy, std::int64_t n, ScanKind kind, ScanMode mode,
                 ScanWorkspace& workspace, cudaStream_t stream,
                 lookback::Pauses pauses = {}) {
  using namespace device_scan_detail;
  using V = typename Policy::Value;
  if (n <= 0) return;
  constexpr std::int64_t kTile = std::int64_t(kThreads) * kItems;
  const std::int64_t tiles = ceil_div(n, kTile);
  if (tiles > kMaxGridX) throw Error("device_scan: too many elements for one launch");
  const bool exclusive = kind == ScanKind::exclusive;
  const auto grid = static_cast<unsigned>(tiles);

  if (mode == ScanMode::reproducible) {
    auto* totals = static_cast<V*>(workspace.reserve(
        static_cast<std::size_t>(tiles + tile_prefix_chunks(tiles)) * sizeof(V)));
    device_scan_tile_totals<kThreads, kItems>(policy, n, totals, stream);
    device_scan_tile_prefixes(policy, tiles, totals, totals + tiles, stream);
    device_scan_prefixed<kThreads, kItems>(policy, n, kind, totals, 0, stream);
    return;
  }

  const lookback::Layout<V, state_kind<Policy>()> layout(tiles);
  auto* base = static_cast<unsigned char*>(workspace.reserve(layout.bytes));
  layout.clear(base, stream);  // a fresh counter and unpublished tiles for every launch
  auto* counter = reinterpret_cast<unsigned long long*>(base);
  const auto states = layout.states(base, tiles);
  if (exclusive)
    PARASOL_NOTE_LAUNCH(grid, kThreads, 0, lookback_scan_kernel<kThreads, kItems, true, Policy>);
  else
    PARASOL_NOTE_LAUNCH(grid, kThreads, 0, lookback_scan_kernel<kThreads, kItems, false, Policy>);
  if (exclusive)
    lookback_scan_kernel<kThreads, kItems, true>
        <<<grid, kThreads, 0, stream>>>(policy, n, counter, states, pauses);
  else
    lookback_scan_kernel<kThreads, kItems, false>
        <<<grid, kThreads, 0, stream>>>(policy, n, counter, states, pauses);
  PARASOL_CHECK_LAUNCH(stream);
}

}  // namespace parasol
