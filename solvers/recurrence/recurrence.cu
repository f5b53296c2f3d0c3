// First-order linear recurrences as a scan of affine maps x -> s x + u: composing them in order
// is associative, so v[n] = (e_0 o ... o e_n)(v[-1]) comes out of one device-wide scan.
#include <cuda_runtime.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "kernels/buffer.hpp"
#include "kernels/error.hpp"
#include "kernels/event.hpp"
#include "kernels/host_memory.hpp"
#include "kernels/scan/device.cuh"
#include "kernels/stream.hpp"
#include "solvers/recurrence/problems.hpp"
#include "solvers/recurrence/recurrence.hpp"

namespace parasol::recurrence {
namespace {

template <class T>
using Affine = Map<T>;

// A segment's first element starts from its initial value: e = (0, s v[-1] + u), a constant
// map, so nothing before it reaches past it and segments need no flags in the scan.
template <class T>
struct RecurrencePolicy {
  using Value = Affine<T>;
  static constexpr bool kNeverAllOnes = true;  // floating-point results
  const T* s;
  const T* u;
  const std::int64_t* offsets;
  const T* initial;
  std::int64_t segments;
  T* v;
  bool continued = false;  // segment 0 began before element 0 (a run of a longer series)

  __device__ Value identity() const { return {T(1), T(0)}; }
  // Apply `earlier`, then `later`.
  __device__ Value combine(const Value& earlier, const Value& later) const {
    return {earlier.s * later.s, fma(later.s, earlier.u, later.u)};
  }

  // The segment holding element i: the last k < segments with offsets[k] <= i.
  __device__ std::int64_t segment_of(std::int64_t i) const {
    std::int64_t lo = 0, hi = segments - 1;
    while (lo < hi) {
      const std::int64_t mid = (lo + hi + 1) / 2;
      if (offsets[mid] <= i) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  __device__ Value load(std::int64_t i) const { return {s[i], u[i]}; }

  // A thread's K consecutive elements from `first`: segment starts become constant maps.
  template <int K>
  __device__ void prepare(std::int64_t first, std::int64_t n, Value (&items)[K]) const {
    if (first >= n) return;
    if (segments == 1) {  // one recurrence: only element 0 starts one (and no search per thread)
      if (first == 0 && !continued) items[0] = {T(0), fma(items[0].s, initial[0], items[0].u)};
      return;
    }
    std::int64_t k = segment_of(first);
    std::int64_t start = offsets[k];
    std::int64_t next = k + 1 < segments ? offsets[k + 1] : n;
#pragma unroll
    for (int j = 0; j < K; ++j) {
      const std::int64_t i = first + j;
      while (i >= next && k + 1 < segments) {  // skips empty segments too
        start = next;
        ++k;
        next = k + 1 < segments ? offsets[k + 1] : n;
      }
      if (i == start && i < n && !(continued && k == 0)) items[j] = {T(0), fma(items[j].s, initial[k], items[j].u)};
    }
  }

  __device__ void store(std::int64_t i, const Value& e) const { v[i] = e.u; }

  // 16 bytes of s and of u a load, of v a store.
  static constexpr int kVectorWidth = 16 / int(sizeof(T));
  using Vector = std::conditional_t<sizeof(T) == 4, float4, double2>;
  __device__ bool vectors_aligned() const {
    const auto aligned = [](const T* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; };
    return aligned(s) && aligned(u) && aligned(v);
  }
  __device__ void load_vector(std::int64_t i, Value (&run)[kVectorWidth]) const {
    T sv[kVectorWidth], uv[kVectorWidth];
    const Vector a = *reinterpret_cast<const Vector*>(s + i);
    const Vector b = *reinterpret_cast<const Vector*>(u + i);
    memcpy(sv, &a, sizeof a);
    memcpy(uv, &b, sizeof b);
#pragma unroll
    for (int c = 0; c < kVectorWidth; ++c) run[c] = {sv[c], uv[c]};
  }
  __device__ void store_vector(std::int64_t i, const Value (&run)[kVectorWidth]) const {
    T vv[kVectorWidth];
#pragma unroll
    for (int c = 0; c < kVectorWidth; ++c) vv[c] = run[c].u;
    Vector w;
    memcpy(&w, vv, sizeof w);
    *reinterpret_cast<Vector*>(v + i) = w;
  }
};

// The tiles compiled. The reproducible scan's is the one recurrence.hpp documents
// (kTileElements: 256 threads x 16 pairs of floats, 8 of doubles; 128 bytes of input a thread a
// tile), by either load path and register budget. The fast scan's candidates, timed beside copy
// and CUB by bench/recurrence_bench on 2^28 floats; registers (ptxas -v, sm_90, CUDA 13.0),
// blocks a multiprocessor, and the s and u they hold at once:
//   256x16-min4: the shipped one, held to 64 registers (4 bytes spilled), four blocks a
//     multiprocessor: at 71 it held three, and the recurrence of 2^28 elements took 5.5 % longer
//     (docs/journal/2026-11.md). 32 KB a tile, 128 KB.
//   256x16v-min4: the same with a quarter of the load and store instructions.
//   256x32v: 64 KB a tile, 103 registers, 2 blocks, 128 KB: the look-back's fixed cost a tile
//     spread over twice the bytes. 256x32v-min3: 80 registers (140 bytes spilled), 3 blocks,
//     192 KB. Their transposes take 68 KB of shared memory, dynamically.
//   512x16v-min2: 64 KB a tile in twice the threads, 64 registers (20 bytes spilled), 2 blocks.
//   128x32v: the shipped tile's elements in half the threads, 96 registers, 5 blocks, 160 KB.
// The reproducible scan's kernels read their tiles with no look-back between: 256x16v-min4
// holds four blocks a multiprocessor where the shipped 256x16 (72-73 registers) holds three.
template <class T>
struct RecurrenceTiles;
template <>
struct RecurrenceTiles<float> {
  using Fast = TileList<Tile<256, 16, false, 4>, Tile<256, 16, true, 4>, Tile<256, 32, true>,
                        Tile<256, 32, true, 3>, Tile<512, 16, true, 2>, Tile<128, 32, true>>;
  using Reproducible = TileList<Tile<256, 16>, Tile<256, 16, true>, Tile<256, 16, true, 4>>;
};
template <>
struct RecurrenceTiles<double> {
  using Fast = TileList<Tile<256, 8>, Tile<256, 8, true>, Tile<256, 16, true>>;
  using Reproducible = TileList<Tile<256, 8>, Tile<256, 8, true>>;
};

// What the fast scan may reassociate (check.hpp's tolerance): inside its tile an element passes
// through at most 48 combines of two roundings each, 96 ulps (its thread's items, the warp's 5
// and the block's log2(warps) shuffles, the tile's prefix), and the tile's boundaries are among
// the documented tile's, so tile_chain(series, kTileElements) bounds the round-off carried
// across them.
template <class T, class Tile>
constexpr bool within_tolerance() {
  int log_warps = 0;
  while ((1 << log_warps) < Tile::threads / 32) ++log_warps;
  return Tile::elements % kTileElements<T> == 0 && Tile::items - 1 + 5 + log_warps + 2 <= 48;
}
template <class T, class... Tiles>
constexpr bool all_within_tolerance(TileList<Tiles...>) {
  return (within_tolerance<T, Tiles>() && ...);
}
static_assert(all_within_tolerance<float>(RecurrenceTiles<float>::Fast{}) &&
                  all_within_tolerance<double>(RecurrenceTiles<double>::Fast{}),
              "a fast tile outside what check.hpp's tolerance covers");
template <class T, class... Tiles>
constexpr bool all_documented(TileList<Tiles...>) {
  return ((Tiles::elements == kTileElements<T> && Tiles::threads == 256) && ...);
}
static_assert(all_documented<float>(RecurrenceTiles<float>::Reproducible{}) &&
                  all_documented<double>(RecurrenceTiles<double>::Reproducible{}),
              "the reproducible scan's bits follow recurrence.hpp's tile");

// The shipped picks, a fast and a reproducible tile for each memory class (kernels/scan.hpp).
// Below 4 TB/s the tiles tuned on an H100; from 4 TB/s the fastest candidates of
// bench/recurrence_bench on an H200 (2026-11-28, 2^28 floats, copy 527.7 Gelem/s in the same
// run): fast 512x16v-min2 at 272.2 Gelem/s (77.1 % of copy) against the H100's 256x16-min4 at
// 253.1 (71.7 %) and CUB's pair scan at 99.6; reproducible 256x16v-min4 at 216.0 (61.2 %) against
// 203.6, the same bits (its order is the tile's, whatever the loads' width).
struct ShippedTiles {
  ScanTile fast, reproducible;
};
constexpr ShippedTiles kShippedTiles[2][kMemoryClasses] = {
    /* float */ {/* below 4 TB/s */ {{256, 16, false, 4}, {256, 16}},
                 /* from 4 TB/s */ {{512, 16, true, 2}, {256, 16, true, 4}}},
    /* double */ {/* below 4 TB/s */ {{256, 8}, {256, 8}},
                  /* from 4 TB/s */ {{256, 8}, {256, 8}}}};

// Look-back pauses measured best for a float recurrence of 2^28 elements on an H200
// (docs/journal/2026-11.md).
constexpr lookback::Pauses kPauses{1100, 700};

template <class T>
std::string scan_name(ScanMode mode) {
  return std::string(sizeof(T) == 4 ? "recurrence<float>, " : "recurrence<double>, ") +
         std::string(name(mode));
}

template <class T>
ScanTile resolve(ScanTile tile, ScanMode mode) {
  return tile.is_default() ? default_tile<T>(mode, current_memory_class()) : tile;
}

// Calls run(Tile{}) for the compiled tile of the mode that `tile` names (the default resolved).
template <class T, class Run>
void with_fast_tile(ScanTile tile, Run&& run) {
  constexpr ScanMode kMode = ScanMode::fast;
  dispatch_tile(scan_name<T>(kMode), typename RecurrenceTiles<T>::Fast{}, resolve<T>(tile, kMode),
                run);
}
template <class T, class Run>
void with_reproducible_tile(ScanTile tile, Run&& run) {
  constexpr ScanMode kMode = ScanMode::reproducible;
  dispatch_tile(scan_name<T>(kMode), typename RecurrenceTiles<T>::Reproducible{},
                resolve<T>(tile, kMode), run);
}

}  // namespace

template <class T>
std::vector<ScanTile> scan_tiles(ScanMode mode) {
  return mode == ScanMode::fast ? compiled_tiles(typename RecurrenceTiles<T>::Fast{})
                                : compiled_tiles(typename RecurrenceTiles<T>::Reproducible{});
}

template <class T>
ScanTile default_tile(ScanMode mode, MemoryClass memory) {
  const ShippedTiles& t = kShippedTiles[sizeof(T) == 4 ? 0 : 1][static_cast<int>(memory)];
  return mode == ScanMode::fast ? t.fast : t.reproducible;
}

template <class T>
int blocks_per_multiprocessor(ScanMode mode, ScanTile tile) {
  using P = RecurrencePolicy<T>;
  int blocks = 0;
  if (mode == ScanMode::fast)
    with_fast_tile<T>(tile, [&](auto t) {
      blocks = parasol::blocks_per_multiprocessor<ScanMode::fast, decltype(t), P>();
    });
  else
    with_reproducible_tile<T>(tile, [&](auto t) {
      blocks = parasol::blocks_per_multiprocessor<ScanMode::reproducible, decltype(t), P>();
    });
  return blocks;
}

template <class T>
void Solver<T>::solve(const T* s, const T* u, const std::int64_t* offsets, const T* initial,
                      std::int64_t n, std::int64_t segments, T* v, cudaStream_t stream) {
  if (n == 0) return;
  if (segments < 1) throw Error("recurrence: elements but no segment");
  const RecurrencePolicy<T> policy{s, u, offsets, initial, segments, v};
  constexpr ScanKind kKind = ScanKind::inclusive;
  if (mode_ == ScanMode::fast)
    with_fast_tile<T>(tile_, [&](auto tile) {
      device_scan_in<ScanMode::fast, decltype(tile)>(policy, n, kKind, workspace_, stream,
                                                     kPauses);
    });
  else
    with_reproducible_tile<T>(tile_, [&](auto tile) {
      device_scan_in<ScanMode::reproducible, decltype(tile)>(policy, n, kKind, workspace_,
                                                             stream);
    });
}

template <class T>
void Solver<T>::tile_totals(const T* s, const T* u, const std::int64_t* offsets, const T* initial,
                            std::int64_t n, std::int64_t segments, bool continued, Map<T>* totals,
                            cudaStream_t stream) {
  if (n == 0) return;
  if (segments < 1) throw Error("recurrence: elements but no segment");
  const RecurrencePolicy<T> policy{s, u, offsets, initial, segments, nullptr, continued};
  with_reproducible_tile<T>({}, [&](auto tile) {
    device_scan_tile_totals<decltype(tile)>(policy, n, totals, stream);
  });
}

template <class T>
void Solver<T>::tile_prefixes(Map<T>* totals, std::int64_t tiles, Map<T>* scratch,
                              cudaStream_t stream) {
  const RecurrencePolicy<T> policy{nullptr, nullptr, nullptr, nullptr, 0, nullptr};
  device_scan_tile_prefixes(policy, tiles, totals, scratch, stream);
}

template <class T>
std::int64_t Solver<T>::tile_prefix_scratch(std::int64_t tiles) {
  return tile_prefix_chunks(tiles);
}

template <class T>
void Solver<T>::solve_prefixed(const T* s, const T* u, const std::int64_t* offsets,
                               const T* initial, std::int64_t n, std::int64_t segments,
                               bool continued, const Map<T>* prefixes, std::int64_t first_tile,
                               T* v, cudaStream_t stream) {
  if (n == 0) return;
  if (segments < 1) throw Error("recurrence: elements but no segment");
  const RecurrencePolicy<T> policy{s, u, offsets, initial, segments, v, continued};
  const ScanTile tile = mode_ == ScanMode::reproducible ? tile_ : ScanTile{};
  with_reproducible_tile<T>(tile, [&](auto t) {
    device_scan_prefixed<decltype(t)>(policy, n, ScanKind::inclusive, prefixes, first_tile,
                                      stream);
  });
}

template <class T>
Result<T> solve_gpu(const Series<T>& series, ScanMode mode, const Ar1* drawn) {
  const std::int64_t n =
      drawn ? (series.offsets.empty() ? 0 : series.offsets.back()) : series.size();
  if (drawn)
    check_offsets(series.offsets, series.initial.size(), n);
  else
    check_series(series);
  Stream stream;
  const auto upload = [&](const auto& host) {
    using V = typename std::decay_t<decltype(host)>::value_type;
    DeviceBuffer<V> buf(host.size());
    parasol::upload(buf, host, stream.get());
    return buf;
  };
  Result<T> result;
  EventTimer h2d(stream.get()), compute(stream.get()), d2h(stream.get());
  h2d.start();
  DeviceBuffer<T> s = drawn ? DeviceBuffer<T>(static_cast<std::size_t>(n)) : upload(series.s);
  DeviceBuffer<T> u = drawn ? DeviceBuffer<T>(static_cast<std::size_t>(n)) : upload(series.u);
  if (drawn) draw_ar1_gpu(*drawn, 0, n, s.data(), u.data(), stream.get());
  DeviceBuffer<T> initial = upload(series.initial);
  DeviceBuffer<std::int64_t> offsets = upload(series.offsets);
  DeviceBuffer<T> v(static_cast<std::size_t>(n));
  h2d.stop();
  Solver<T> solver(mode);
  compute.start();
  solver.solve(s.data(), u.data(), offsets.data(), initial.data(), n, series.segments(), v.data(),
               stream.get());
  compute.stop();
  result.v = huge_vector<T>(static_cast<std::size_t>(n));  // first touch on huge pages
  d2h.start();
  enqueue_download(result.v.data(), v.data(), v.size(), stream.get());
  d2h.stop();
  result.timings.add(phase::host_to_device, h2d.seconds());
  result.timings.add(phase::compute, compute.seconds());
  result.timings.add(phase::device_to_host, d2h.seconds());
  return result;
}

template class Solver<float>;
template class Solver<double>;
template std::vector<ScanTile> scan_tiles<float>(ScanMode);
template std::vector<ScanTile> scan_tiles<double>(ScanMode);
template ScanTile default_tile<float>(ScanMode, MemoryClass);
template ScanTile default_tile<double>(ScanMode, MemoryClass);
template int blocks_per_multiprocessor<float>(ScanMode, ScanTile);
template int blocks_per_multiprocessor<double>(ScanMode, ScanTile);
template Result<float> solve_gpu(const Series<float>&, ScanMode, const Ar1*);
template Result<double> solve_gpu(const Series<double>&, ScanMode, const Ar1*);

}  // namespace parasol::recurrence
