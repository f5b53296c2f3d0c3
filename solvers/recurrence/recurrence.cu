// First-order linear recurrences as a scan of affine maps x -> s x + u: composing them in order
// is associative, so v[n] = (e_0 o ... o e_n)(v[-1]) comes out of one device-wide scan.
#include <cuda_runtime.h>

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
  // The float fast scan held to 64 registers, four blocks a multiprocessor: at 71 it held three,
  // and the recurrence of 2^28 elements took 5.5 % longer (docs/journal/2026-11.md).
  static constexpr int kMinBlocks = sizeof(T) == 4 ? 4 : 0;
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
};

// Elements per thread: 16 pairs of floats (8 of doubles), 128 bytes of input per thread per tile.
template <class T>
constexpr int kItems = sizeof(T) == 4 ? 16 : 8;
constexpr int kThreads = 256;
static_assert(kThreads * kItems<float> == kTileElements<float> &&
                  kThreads * kItems<double> == kTileElements<double>,
              "recurrence.hpp states the tile, by which check.hpp bounds round-off");

// Look-back pauses measured best for a float recurrence of 2^28 elements on an H200
// (docs/journal/2026-11.md).
constexpr lookback::Pauses kPauses{1100, 700};

}  // namespace

template <class T>
void Solver<T>::solve(const T* s, const T* u, const std::int64_t* offsets, const T* initial,
                      std::int64_t n, std::int64_t segments, T* v, cudaStream_t stream) {
  if (n == 0) return;
  if (segments < 1) throw Error("recurrence: elements but no segment");
  const RecurrencePolicy<T> policy{s, u, offsets, initial, segments, v};
  device_scan<kThreads, kItems<T>>(policy, n, ScanKind::inclusive, mode_, workspace_, stream,
                                   kPauses);
}

template <class T>
void Solver<T>::tile_totals(const T* s, const T* u, const std::int64_t* offsets, const T* initial,
                            std::int64_t n, std::int64_t segments, bool continued, Map<T>* totals,
                            cudaStream_t stream) {
  if (n == 0) return;
  if (segments < 1) throw Error("recurrence: elements but no segment");
  const RecurrencePolicy<T> policy{s, u, offsets, initial, segments, nullptr, continued};
  device_scan_tile_totals<kThreads, kItems<T>>(policy, n, totals, stream);
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
  device_scan_prefixed<kThreads, kItems<T>>(policy, n, ScanKind::inclusive, prefixes, first_tile,
                                            stream);
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
    if (!host.empty())
      PARASOL_CUDA(cudaMemcpyAsync(buf.data(), host.data(), buf.bytes(), cudaMemcpyHostToDevice,
                                   stream.get()));
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
  if (n > 0)
    PARASOL_CUDA(cudaMemcpyAsync(result.v.data(), v.data(), v.bytes(), cudaMemcpyDeviceToHost,
                                 stream.get()));
  d2h.stop();
  result.timings = {h2d.seconds(), compute.seconds(), d2h.seconds()};
  return result;
}

template class Solver<float>;
template class Solver<double>;
template Result<float> solve_gpu(const Series<float>&, ScanMode, const Ar1*);
template Result<double> solve_gpu(const Series<double>&, ScanMode, const Ar1*);

}  // namespace parasol::recurrence
