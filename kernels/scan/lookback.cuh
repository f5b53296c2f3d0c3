// Look-back level of the scan layer (as CUB's tile-state machinery): tiles publish their totals
// and inclusive prefixes, and a tile's first warp combines its predecessors' back to the nearest
// prefix (decoupled look-back). Each 32-bit or 64-bit state is written and read whole, or behind
// a fence where a value is larger.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "kernels/error.hpp"
#include "kernels/scan/warp.cuh"

namespace parasol::lookback {

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
struct Pauses {
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
                              std::int64_t tile, Pauses pauses) {
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
      if (!__any_sync(warp::kAllLanes, status == kEmpty)) break;
      if (pauses.retry_ns) __nanosleep(pauses.retry_ns);
    }
    if constexpr (kKind == StateKind::fenced) __threadfence();  // values published before these statuses
    V v = pred >= 0 ? states.value(pred, status, seen) : p.identity();
    const unsigned prefixes = __ballot_sync(warp::kAllLanes, status == kPrefix && pred >= 0);
    const int stop = prefixes ? __ffs(prefixes) - 1 : 31;
    if (lane > stop) v = p.identity();
    // Combine lanes stop..0, furthest back (highest lane) first.
#pragma unroll
    for (int d = 1; d < 32; d *= 2) {
      const V other = warp::shuffle_down(v, d);
      if (lane + d < 32) v = p.combine(other, v);
    }
    const V window = warp::shuffle(v, 0);
    exclusive = first_round ? window : p.combine(window, exclusive);
    first_round = false;
    if (prefixes) return exclusive;
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
struct Layout {
  static constexpr std::size_t kCounterBytes = 256;
  std::size_t bytes = 0;
  explicit Layout(std::int64_t tiles)
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

}  // namespace parasol::lookback
