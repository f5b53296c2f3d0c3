// The device-wide scan behind scan.hpp, generic over a Policy that says what an element is, how
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
#include <cstring>
#include <type_traits>

#include "kernels/error.hpp"
#include "kernels/launch.hpp"
#include "kernels/scan.hpp"

namespace parasol {
namespace scan_detail {

inline constexpr unsigned kAllLanes = 0xffffffffu;

// Shuffles of any trivially copyable value, one 32-bit word at a time.
template <class V, class Shuffle>
__device__ inline V shuffle_words(const V& v, Shuffle&& shuffle_word) {
  static_assert(sizeof(V) % 4 == 0, "scan values must be whole 32-bit words");
  unsigned w[sizeof(V) / 4];
  memcpy(w, &v, sizeof(V));
#pragma unroll
  for (unsigned& x : w) x = shuffle_word(x);
  V out;
  memcpy(&out, w, sizeof(V));
  return out;
}

template <class V>
__device__ inline V shuffle_up(const V& v, int delta) {
  return shuffle_words(v, [&](unsigned x) { return __shfl_up_sync(kAllLanes, x, delta); });
}

template <class V>
__device__ inline V shuffle_down(const V& v, int delta) {
  return shuffle_words(v, [&](unsigned x) { return __shfl_down_sync(kAllLanes, x, delta); });
}

template <class V>
__device__ inline V shuffle(const V& v, int lane) {
  return shuffle_words(v, [&](unsigned x) { return __shfl_sync(kAllLanes, x, lane); });
}

// The order a scan takes the threads in: lower threads earlier (forward) or higher threads
// earlier (backward, for sweeps that run from the end of an array to its start).
enum class ScanOrder { forward, backward };

// A lane's place in the scan's order, and the value of the lane `d` places earlier.
template <ScanOrder kOrder>
__device__ inline int scan_lane() {
  const int lane = threadIdx.x % 32;
  return kOrder == ScanOrder::forward ? lane : 31 - lane;
}
template <ScanOrder kOrder, class V>
__device__ inline V shuffle_earlier(const V& v, int d) {
  if constexpr (kOrder == ScanOrder::forward) return shuffle_up(v, d);
  else return shuffle_down(v, d);
}

// Inclusive scan across the warp's lanes, in kOrder.
template <class Policy, class V, ScanOrder kOrder = ScanOrder::forward>
__device__ inline V warp_inclusive_scan(const Policy& p, V v) {
  const int lane = scan_lane<kOrder>();
#pragma unroll
  for (int d = 1; d < 32; d *= 2) {
    const V other = shuffle_earlier<kOrder>(v, d);
    if (lane >= d) v = p.combine(other, v);
  }
  return v;
}

// Each thread's exclusive prefix of `total` over the block (threads in kOrder), and the block's
// total. The block has `warps` whole warps, at most kMaxThreads / 32. Every thread must call it;
// it synchronises the block.
template <int kMaxThreads, ScanOrder kOrder = ScanOrder::forward, class Policy, class V>
__device__ inline void block_exclusive_scan(const Policy& p, const V& total, V& prefix,
                                            V& block_total, int warps = kMaxThreads / 32) {
  constexpr int kMaxWarps = kMaxThreads / 32;
  static_assert(kMaxThreads % 32 == 0 && kMaxWarps <= 32, "a block of whole warps, at most 32");
  __shared__ V warp_totals[kMaxWarps];
  const int lane = scan_lane<kOrder>();
  const int warp = kOrder == ScanOrder::forward ? int(threadIdx.x / 32)
                                                : warps - 1 - int(threadIdx.x / 32);
  const V inclusive = warp_inclusive_scan<Policy, V, kOrder>(p, total);
  V lane_prefix = shuffle_earlier<kOrder>(inclusive, 1);
  if (lane == 31) warp_totals[warp] = inclusive;
  __syncthreads();
  if (threadIdx.x < 32) {
    // The warps' totals in the scan's order, by the first warp's lanes in forward order.
    const int l = threadIdx.x;
    V w = l < warps ? warp_totals[l] : p.identity();
    w = warp_inclusive_scan(p, w);
    if (l < warps) warp_totals[l] = w;
  }
  __syncthreads();
  if (warp == 0) {
    prefix = lane == 0 ? p.identity() : lane_prefix;
  } else {
    const V warp_prefix = warp_totals[warp - 1];
    prefix = lane == 0 ? warp_prefix : p.combine(warp_prefix, lane_prefix);
  }
  block_total = warp_totals[warps - 1];
  __syncthreads();  // warp_totals is reused by the next call
}

// A thread's items: loaded, scanned in place (inclusive), and their total.
template <int kItems, class Policy, class V>
__device__ inline V scan_items(const Policy& p, V (&items)[kItems]) {
#pragma unroll
  for (int j = 1; j < kItems; ++j) items[j] = p.combine(items[j - 1], items[j]);
  return items[kItems - 1];
}

// One block scans values 0..n-1 in kOrder, kThreads x kItems at a time with a carry between
// windows: visit(i, e) receives each value's exclusive prefix e (the combination of every value
// before i in kOrder). load(i) gives value i. Every thread of the block must call it.
template <int kThreads, int kItems, ScanOrder kOrder, class Policy, class Load, class Visit>
__device__ inline void block_scan_range(const Policy& p, std::int64_t n, Load&& load,
                                        Visit&& visit) {
  using V = typename Policy::Value;
  // Positions count in kOrder; value i sits at position i (forward) or n - 1 - i (backward).
  const auto index = [n](std::int64_t pos) {
    return kOrder == ScanOrder::forward ? pos : n - 1 - pos;
  };
  V carry = p.identity();
  for (std::int64_t base = 0; base < n; base += std::int64_t(kThreads) * kItems) {
    const std::int64_t first = base + std::int64_t(threadIdx.x) * kItems;
    V items[kItems];
#pragma unroll
    for (int j = 0; j < kItems; ++j)
      items[j] = first + j < n ? load(index(first + j)) : p.identity();
    const V total = scan_items(p, items);  // inclusive, in place
    V prefix, block_total;
    block_exclusive_scan<kThreads>(p, total, prefix, block_total);
    const V start = p.combine(carry, prefix);
#pragma unroll
    for (int j = 0; j < kItems; ++j)
      if (first + j < n) visit(index(first + j), j == 0 ? start : p.combine(start, items[j - 1]));
    carry = p.combine(carry, block_total);
  }
}

// Applies the prefix to inclusive items, giving inclusive or exclusive results.
template <bool kExclusive, int kItems, class Policy, class V>
__device__ inline void apply_prefix(const Policy& p, const V& prefix, bool prefix_is_identity,
                                    V (&items)[kItems]) {
  if constexpr (kExclusive) {
#pragma unroll
    for (int j = kItems - 1; j > 0; --j)
      items[j] = prefix_is_identity ? items[j - 1] : p.combine(prefix, items[j - 1]);
    items[0] = prefix;
  } else if (!prefix_is_identity) {
#pragma unroll
    for (int j = 0; j < kItems; ++j) items[j] = p.combine(prefix, items[j]);
  }
}

template <class V>
__device__ inline V read_volatile(const V* p) {
  static_assert(sizeof(V) % 4 == 0, "scan values must be whole 32-bit words");
  unsigned w[sizeof(V) / 4];
  const volatile unsigned* q = reinterpret_cast<const volatile unsigned*>(p);
#pragma unroll
  for (int i = 0; i < int(sizeof(V) / 4); ++i) w[i] = q[i];
  V out;
  memcpy(&out, w, sizeof(V));
  return out;
}

// Tile states for the look-back. A value of 4 bytes shares an aligned 64-bit word with its
// status, written and read whole (single-copy atomic), so no fence is needed. Larger values keep
// a tile's total and its inclusive prefix in separate slots, published before their status
// behind a fence, so a reader that saw "total" never reads a value being overwritten. (Two
// 8-byte halves of a 16-byte vector access are not promised to be seen together.)
enum TileStatus : int { kEmpty = 0, kTotal = 1, kPrefix = 2 };

enum class StateKind { packed, sentinel, fenced };

// Pauses in the look-back, in nanoseconds: before a tile first reads its predecessors' states
// (a tile that has just scanned its own items rarely finds them published yet) and between
// reads while one is still unpublished. Every read goes to L2, where the tiles' own loads and
// stores queue behind it.
struct LookbackPauses {
  unsigned first_ns = 0, retry_ns = 0;
};

template <class Policy, class = void>
struct requires_never_all_ones : std::false_type {};
template <class Policy>
struct requires_never_all_ones<Policy, std::void_t<decltype(Policy::kNeverAllOnes)>>
    : std::true_type {};

// A policy whose values never have all bits set (floating-point results: the GPU's NaN is
// 0x7fff...) sets kNeverAllOnes, and 8-byte values can then signal "not published" by that
// pattern, with no status word and no fence.
template <class Policy>
constexpr bool never_all_ones() {
  if constexpr (requires_never_all_ones<Policy>::value) return Policy::kNeverAllOnes;
  else return false;
}

template <class V, StateKind kKind>
struct TileStates;

template <class V>
struct TileStates<V, StateKind::packed> {
  unsigned long long* words;
  static constexpr std::size_t bytes_per_tile = sizeof(unsigned long long);
  __device__ void publish(std::int64_t tile, TileStatus s, const V& v) const {
    unsigned value = 0;
    memcpy(&value, &v, sizeof(V));
    const unsigned long long word = (static_cast<unsigned long long>(value) << 32) | unsigned(s);
    asm volatile("st.relaxed.gpu.global.u64 [%0], %1;" ::"l"(&words[tile]), "l"(word) : "memory");
  }
  __device__ int status(std::int64_t tile, V& v) const {
    unsigned long long word;
    asm volatile("ld.relaxed.gpu.global.u64 %0, [%1];" : "=l"(word) : "l"(&words[tile]) : "memory");
    const auto value = static_cast<unsigned>(word >> 32);
    memcpy(&v, &value, sizeof(V));
    return static_cast<int>(word & 0xffffffffu);
  }
  __device__ V value(std::int64_t, int, const V& v) const { return v; }
};

// Total and prefix in separate 64-bit words, all ones until published.
template <class V>
struct TileStates<V, StateKind::sentinel> {
  unsigned long long* totals;
  unsigned long long* prefixes;
  static constexpr std::size_t bytes_per_tile = 2 * sizeof(unsigned long long);
  static constexpr unsigned long long kUnset = ~0ull;
  __device__ static unsigned long long load(const unsigned long long* p) {
    unsigned long long w;
    asm volatile("ld.relaxed.gpu.global.u64 %0, [%1];" : "=l"(w) : "l"(p) : "memory");
    return w;
  }
  __device__ void publish(std::int64_t tile, TileStatus s, const V& v) const {
    unsigned long long w;
    memcpy(&w, &v, sizeof(V));
    unsigned long long* p = s == kTotal ? &totals[tile] : &prefixes[tile];
    asm volatile("st.relaxed.gpu.global.u64 [%0], %1;" ::"l"(p), "l"(w) : "memory");
  }
  __device__ int status(std::int64_t tile, V& v) const {
    unsigned long long w = load(&prefixes[tile]);
    int s = kPrefix;
    if (w == kUnset) {
      w = load(&totals[tile]);
      s = w == kUnset ? kEmpty : kTotal;
    }
    memcpy(&v, &w, sizeof(V));
    return s;
  }
  __device__ V value(std::int64_t, int, const V& v) const { return v; }
};

template <class V>
struct TileStates<V, StateKind::fenced> {
  int* statuses;
  V* totals;
  V* prefixes;
  static constexpr std::size_t bytes_per_tile = sizeof(int) + 2 * sizeof(V);
  __device__ void publish(std::int64_t tile, TileStatus s, const V& v) const {
    if (s == kTotal) totals[tile] = v;
    else prefixes[tile] = v;
    __threadfence();  // the value is visible device-wide before its status
    *reinterpret_cast<volatile int*>(&statuses[tile]) = s;
  }
  __device__ int status(std::int64_t tile, V&) const {
    return *reinterpret_cast<const volatile int*>(&statuses[tile]);
  }
  // Read once the status is known (after a fence).
  __device__ V value(std::int64_t tile, int s, const V&) const {
    return read_volatile(s == kPrefix ? &prefixes[tile] : &totals[tile]);
  }
};

// Run by the whole first warp of a tile > 0 after it published its total: the exclusive prefix
// of the tile, combined from its predecessors' totals back to the nearest published prefix, 32
// tiles per round. Valid in every lane.
template <class Policy, class V, StateKind kKind>
__device__ inline V look_back(const Policy& p, const TileStates<V, kKind>& states,
                              std::int64_t tile, LookbackPauses pauses) {
  const int lane = threadIdx.x % 32;
  if (pauses.first_ns) __nanosleep(pauses.first_ns);
  V exclusive = p.identity();
  bool first_round = true;
  for (std::int64_t nearest = tile - 1;; nearest -= 32) {
    const std::int64_t pred = nearest - lane;  // lane 0 nearest, lane 31 furthest back
    int status = kPrefix;                      // before tile 0: nothing, never reached
    V seen = p.identity();
    // Every lane takes part in every vote, those past tile 0 included.
    for (;;) {
      if (pred >= 0) status = states.status(pred, seen);
      if (!__any_sync(kAllLanes, status == kEmpty)) break;
      if (pauses.retry_ns) __nanosleep(pauses.retry_ns);
    }
    if constexpr (kKind == StateKind::fenced) __threadfence();  // values published before these statuses
    V v = pred >= 0 ? states.value(pred, status, seen) : p.identity();
    const unsigned prefixes = __ballot_sync(kAllLanes, status == kPrefix && pred >= 0);
    const int stop = prefixes ? __ffs(prefixes) - 1 : 31;
    if (lane > stop) v = p.identity();
    // Combine lanes stop..0, furthest back (highest lane) first.
#pragma unroll
    for (int d = 1; d < 32; d *= 2) {
      const V other = shuffle_down(v, d);
      if (lane + d < 32) v = p.combine(other, v);
    }
    const V window = shuffle(v, 0);
    exclusive = first_round ? window : p.combine(window, exclusive);
    first_round = false;
    if (prefixes) return exclusive;
  }
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
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const std::int64_t warp_first = tile_first + std::int64_t(warp) * 32 * K;
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
  WarpTranspose<K, V>{smem + warp * WarpTranspose<K, V>::kSlots}.to_blocked(items);
  p.template prepare<K>(warp_first + lane * K, n, items);
}

template <int kThreads, int K, class Policy, class V>
__device__ inline void store_items(const Policy& p, std::int64_t tile_first, std::int64_t n,
                                   V* smem, V (&items)[K]) {
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  WarpTranspose<K, V>{smem + warp * WarpTranspose<K, V>::kSlots}.to_striped(items);
  const std::int64_t warp_first = tile_first + std::int64_t(warp) * 32 * K;
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

template <class Policy>
constexpr StateKind state_kind() {
  using V = typename Policy::Value;
  constexpr bool no_all_ones = never_all_ones<Policy>();
  if constexpr (sizeof(V) == 4) return StateKind::packed;
  else if constexpr (sizeof(V) == 8 && no_all_ones) return StateKind::sentinel;
  else return StateKind::fenced;
}

// The counter and the tile states, in one workspace.
template <class V, StateKind kKind>
struct LookbackLayout {
  static constexpr std::size_t kCounterBytes = 256;
  std::size_t bytes = 0;
  explicit LookbackLayout(std::int64_t tiles)
      : bytes(kCounterBytes +
              static_cast<std::size_t>(tiles) * TileStates<V, kKind>::bytes_per_tile) {}
  // Zeroes the counter and marks every tile unpublished.
  void clear(unsigned char* base, cudaStream_t stream) const {
    const bool all_ones = kKind == StateKind::sentinel;
    PARASOL_CUDA(cudaMemsetAsync(base, 0, kCounterBytes, stream));
    PARASOL_CUDA(cudaMemsetAsync(base + kCounterBytes, all_ones ? 0xFF : 0, bytes - kCounterBytes,
                                 stream));
  }
  TileStates<V, kKind> states(unsigned char* base, std::int64_t tiles) const {
    unsigned char* first = base + kCounterBytes;
    const auto t = static_cast<std::size_t>(tiles);
    if constexpr (kKind == StateKind::packed) {
      return {reinterpret_cast<unsigned long long*>(first)};
    } else if constexpr (kKind == StateKind::sentinel) {
      auto* words = reinterpret_cast<unsigned long long*>(first);
      return {words, words + t};
    } else {
      // V before int keeps every array aligned.
      V* totals = reinterpret_cast<V*>(first);
      V* prefixes = totals + t;
      return {reinterpret_cast<int*>(prefixes + t), totals, prefixes};
    }
  }
};

template <int kThreads, int kItems, bool kExclusive, class Policy>
__global__ void __launch_bounds__(kThreads)
    lookback_scan_kernel(Policy p, std::int64_t n, unsigned long long* counter,
                         TileStates<typename Policy::Value, state_kind<Policy>()> states,
                         LookbackPauses pauses) {
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
  block_exclusive_scan<kThreads>(p, total, prefix, block_total);

  if (tile == 0) {
    if (threadIdx.x == 0) states.publish(0, kPrefix, block_total);
  } else {
    if (threadIdx.x < 32) {
      if (threadIdx.x == 0) states.publish(tile, kTotal, block_total);
      const V before = look_back(p, states, tile, pauses);
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
  block_exclusive_scan<kThreads>(p, total, prefix, block_total);
  if (threadIdx.x == 0) totals[blockIdx.x] = block_total;
}

// reproducible, step 2: one block turns the tile totals into exclusive tile prefixes, in place,
// in a fixed order.
template <int kThreads, class Policy>
__global__ void __launch_bounds__(kThreads)
    tile_prefixes_kernel(Policy p, std::int64_t tiles, typename Policy::Value* totals) {
  using V = typename Policy::Value;
  constexpr int kItems = 4;
  constexpr std::int64_t kChunk = std::int64_t(kThreads) * kItems;
  V carry = p.identity();
  for (std::int64_t base = 0; base < tiles; base += kChunk) {
    const std::int64_t first = base + std::int64_t(threadIdx.x) * kItems;
    V items[kItems];
#pragma unroll
    for (int j = 0; j < kItems; ++j) items[j] = first + j < tiles ? totals[first + j] : p.identity();
    const V total = scan_items(p, items);
    V prefix, block_total;
    block_exclusive_scan<kThreads>(p, total, prefix, block_total);
    const V start = base == 0 ? prefix : p.combine(carry, prefix);
    apply_prefix<true>(p, start, base == 0 && threadIdx.x == 0, items);
#pragma unroll
    for (int j = 0; j < kItems; ++j)
      if (first + j < tiles) totals[first + j] = items[j];
    carry = base == 0 ? block_total : p.combine(carry, block_total);
  }
}

// reproducible, step 3: each tile scanned again from its prefix.
template <int kThreads, int kItems, bool kExclusive, class Policy>
__global__ void __launch_bounds__(kThreads)
    prefixed_scan_kernel(Policy p, std::int64_t n, const typename Policy::Value* prefixes) {
  using V = typename Policy::Value;
  constexpr std::int64_t kTile = std::int64_t(kThreads) * kItems;
  __shared__ V smem[kThreads / 32 * WarpTranspose<kItems, V>::kSlots];
  V items[kItems];
  load_items<kThreads>(p, blockIdx.x * kTile, n, smem, items);
  const V total = scan_items(p, items);
  V prefix, block_total;
  block_exclusive_scan<kThreads>(p, total, prefix, block_total);
  if (blockIdx.x > 0) {
    const V tile_prefix = prefixes[blockIdx.x];
    prefix = threadIdx.x == 0 ? tile_prefix : p.combine(tile_prefix, prefix);
  }
  apply_prefix<kExclusive>(p, prefix, blockIdx.x == 0 && threadIdx.x == 0, items);
  store_items<kThreads>(p, blockIdx.x * kTile, n, smem, items);
}

}  // namespace scan_detail

// Scans n elements through the policy, enqueued on the stream. kThreads x kItems elements per
// tile; the workspace grows to what the tiles need.
template <int kThreads, int kItems, class Policy>
void device_scan(const Policy& policy, std::int64_t n, ScanKind kind, ScanMode mode,
                 ScanWorkspace& workspace, cudaStream_t stream,
                 scan_detail::LookbackPauses pauses = {}) {
  using namespace scan_detail;
  using V = typename Policy::Value;
  if (n <= 0) return;
  constexpr std::int64_t kTile = std::int64_t(kThreads) * kItems;
  const std::int64_t tiles = ceil_div(n, kTile);
  if (tiles > kMaxGridX) throw Error("device_scan: too many elements for one launch");
  const bool exclusive = kind == ScanKind::exclusive;
  const auto grid = static_cast<unsigned>(tiles);

  if (mode == ScanMode::reproducible) {
    auto* totals = static_cast<V*>(workspace.reserve(static_cast<std::size_t>(tiles) * sizeof(V)));
    tile_totals_kernel<kThreads, kItems><<<grid, kThreads, 0, stream>>>(policy, n, totals);
    PARASOL_CHECK_LAUNCH(stream);
    tile_prefixes_kernel<1024><<<1, 1024, 0, stream>>>(policy, tiles, totals);
    PARASOL_CHECK_LAUNCH(stream);
    if (exclusive)
      prefixed_scan_kernel<kThreads, kItems, true><<<grid, kThreads, 0, stream>>>(policy, n, totals);
    else
      prefixed_scan_kernel<kThreads, kItems, false><<<grid, kThreads, 0, stream>>>(policy, n, totals);
    PARASOL_CHECK_LAUNCH(stream);
    return;
  }

  const LookbackLayout<V, state_kind<Policy>()> layout(tiles);
  auto* base = static_cast<unsigned char*>(workspace.reserve(layout.bytes));
  layout.clear(base, stream);  // a fresh counter and unpublished tiles for every launch
  auto* counter = reinterpret_cast<unsigned long long*>(base);
  const auto states = layout.states(base, tiles);
  if (exclusive)
    lookback_scan_kernel<kThreads, kItems, true>
        <<<grid, kThreads, 0, stream>>>(policy, n, counter, states, pauses);
  else
    lookback_scan_kernel<kThreads, kItems, false>
        <<<grid, kThreads, 0, stream>>>(policy, n, counter, states, pauses);
  PARASOL_CHECK_LAUNCH(stream);
}

}  // namespace parasol
