// recurrence: first-order linear recurrences v[n] = s[n] v[n-1] + u[n], solved by a device-wide
// scan of the pairs (s, u) under (s1, u1) o (s2, u2) = (s1 s2, s2 u1 + u2). One long recurrence
// or many independent ones (segments). Host-only API: compiles without nvcc.
#pragma once

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "kernels/phase_timer.hpp"
#include "kernels/scan.hpp"

namespace parasol::recurrence {

// Segment k covers elements [offsets[k], offsets[k+1]) and starts from v[-1] = initial[k].
// offsets has segments + 1 entries, offsets[0] = 0, offsets.back() = s.size(), non-decreasing
// (empty segments allowed). One long recurrence is offsets {0, n}.
template <class T>
struct Series {
  std::vector<T> s, u;
  std::vector<std::int64_t> offsets;
  std::vector<T> initial;
  std::int64_t size() const { return static_cast<std::int64_t>(s.size()); }
  std::int64_t segments() const { return static_cast<std::int64_t>(initial.size()); }
};

// InputError (no file, key "input") when the arrays disagree in length or the offsets are not
// as above.
template <class T>
void check_series(const Series<T>& series);
// The offsets' half of it, for a series of n elements with `segments` initial values.
void check_offsets(const std::vector<std::int64_t>& offsets, std::size_t segments, std::int64_t n);

// Reported by the gold as it goes, every 2^24 elements and at the end.
struct Progress {
  std::int64_t elements = 0, total = 0;
  double seconds = 0;  // since the solve began
};
using ProgressCallback = std::function<void(const Progress&)>;

// The long recurrences the host runs on a series (the gold, and problems.hpp's magnitude scale
// and tile chain) are cut into chunks of this many elements, run on the CPU solvers' threads
// (kernels/cpu_threads.hpp) with the bits of the one-thread loop. A chunk that continues a
// segment from the chunk before starts from the exact value that one ended on where it is known
// already (always so on one thread); otherwise it runs from 0 at once and is then replayed from
// that value until the two runs meet, after which the run from 0 is the run from the carry. A
// replay costs the steps a start takes to be forgotten (some 4400 for |s| = 0.99); where it never
// is (|s| = 1, or growth) the replay is the whole chunk, run after the others. Tests pass short
// chunks.
inline constexpr std::int64_t kGoldChunk = std::int64_t{1} << 20;

// The CPU gold: the sequential loop, in long double, its bits on any thread count.
template <class T>
std::vector<double> solve_gold(const Series<T>& series, const ProgressCallback& progress = {},
                               std::int64_t chunk = kGoldChunk);

// One step of the gold, v[n] from v[n-1]. The gold and its parts across ranks (ranks.cpp) share
// it, so they round alike.
template <class T>
inline long double gold_step(T s, long double before, T u) {
  return static_cast<long double>(s) * before + static_cast<long double>(u);
}

// The same long double, sign of zero included (a NaN is never the same): where a replay from an
// exact carry has met its run from 0 (the gold's chunks, the walk of the scale and chain, the runs
// across ranks), the rest of the run from 0 is the run from the carry.
inline bool same_value(long double a, long double b) {
  return a == b && std::signbit(a) == std::signbit(b);
}

// The segment holding element i: the last k with offsets[k] <= i (empty segments skipped).
inline std::int64_t segment_holding(const std::vector<std::int64_t>& offsets, std::int64_t i) {
  const auto after = std::upper_bound(offsets.begin(), offsets.end(), i);
  return static_cast<std::int64_t>(after - offsets.begin()) - 1;
}

// gold_step along elements [0, n) from `value`, each result stored rounded to double in v; returns
// the last value. A function of its own (series.cpp), so that the long double stays in a register:
// inlined into a loop that also reports progress, it was spilled to memory at every element, and
// an 80-bit store reloaded at once is not forwarded, which made the gold twelve times slower.
template <class T>
long double gold_run(const T* s, const T* u, std::int64_t n, long double value, double* v);

// gold_step along elements [0, n) from the exact `carry` beside the same run from 0, each value
// from the carry stored in v, until the two meet (that element included): the last value stored,
// and whether they met. Where they did, v beyond is already the run from 0's, now the carry's.
struct Replayed {
  long double value;
  bool met;
};
template <class T>
Replayed replay_gold(const T* s, const T* u, std::int64_t n, long double carry, double* v);

// An affine map x -> s x + u: what the scan combines, (s1, u1) then (s2, u2) being
// (s1 s2, s2 u1 + u2), and what crosses between ranks (ranks.hpp).
template <class T>
struct Map {
  T s, u;
};

// The scan tiles compiled for a mode (kernels/scan.hpp: ScanTile), and the shipped pick for a
// class of device, what ScanTile{} resolves to there. The reproducible mode's are all
// kTileElements<T> (below) of 256 threads, by either load path, so all give the same bits.
template <class T>
std::vector<ScanTile> scan_tiles(ScanMode mode);
template <class T>
ScanTile default_tile(ScanMode mode, MemoryClass memory);
// Blocks of a tile's main kernel a multiprocessor of the current device holds at once
// (kernels/scan.hpp: sum_scan_blocks_per_multiprocessor).
template <class T>
int blocks_per_multiprocessor(ScanMode mode, ScanTile tile);

// Solves series already on the device. Pointers hold series.size() elements (s, u, v) and
// segments + 1 offsets and `segments` initial values; v may alias u. `tile`: one of
// scan_tiles<T>(mode) or the default; another is refused (InputError) at the first solve.
template <class T>
class Solver {
 public:
  explicit Solver(ScanMode mode = ScanMode::fast, ScanTile tile = {}) : mode_(mode), tile_(tile) {}
  void solve(const T* s, const T* u, const std::int64_t* offsets, const T* initial,
             std::int64_t n, std::int64_t segments, T* v, cudaStream_t stream);
  ScanMode mode() const { return mode_; }
  ScanTile tile() const { return tile_; }

  // The reproducible scan in its steps (kernels/scan/device.cuh), for a run of a longer series
  // cut on tile boundaries (ranks.hpp). When `continued`, the run's first segment began before
  // it: its first element is no segment start and initial[0] is not read. tile_totals writes
  // the run's ceil(n / kTileElements<T>) totals; tile_prefixes turns the whole series' totals,
  // every run's in order, into its tiles' prefixes in place; solve_prefixed scans the run,
  // whose first tile is the series' `first_tile`, from them: the bits of solve() on the whole.
  // These take the shipped reproducible tile (solve_prefixed the solver's own, in the
  // reproducible mode): any gives the same bits.
  static void tile_totals(const T* s, const T* u, const std::int64_t* offsets, const T* initial,
                          std::int64_t n, std::int64_t segments, bool continued, Map<T>* totals,
                          cudaStream_t stream);
  // scratch: tile_prefix_scratch(tiles) maps.
  static void tile_prefixes(Map<T>* totals, std::int64_t tiles, Map<T>* scratch,
                            cudaStream_t stream);
  static std::int64_t tile_prefix_scratch(std::int64_t tiles);
  void solve_prefixed(const T* s, const T* u, const std::int64_t* offsets, const T* initial,
                      std::int64_t n, std::int64_t segments, bool continued,
                      const Map<T>* prefixes, std::int64_t first_tile, T* v,
                      cudaStream_t stream);

 private:
  ScanMode mode_;
  ScanTile tile_;
  ScanWorkspace workspace_;
};

// Elements one tile of the reproducible scan covers (its block's threads x elements per thread,
// recurrence.cu), a part of the order its bits follow; the fast scan's tiles are multiples of
// it. A tile's prefix is its predecessor's combined with its own total, so what lies
// t tiles back reaches an element through t chained combines (check.hpp bounds their round-off).
template <class T>
inline constexpr std::int64_t kTileElements = sizeof(T) == 4 ? 256 * 16 : 256 * 8;

// Across ranks, reproducible: compute's two steps, each ending when the device is done (the
// run's tile totals, downloaded; the prefixes of all tiles and the run scanned from them).
inline constexpr char kTileTotals[] = "tile_totals";
inline constexpr char kPrefixedScan[] = "prefixed_scan";

template <class T>
struct Result {
  std::vector<T> v;
  // host_to_device, compute, device_to_host; across ranks also exchange (in the communication
  // layer: Context::comm_seconds) and, reproducible, compute's two steps above.
  PhaseTimer timings;
};

struct Ar1;  // params.hpp

// Upload, solve, download. With `drawn`, s and u are not uploaded but drawn on the device from
// that AR(1) problem (draw_ar1_gpu, problems.hpp: the host's bits), and `series` holds its
// offsets and initial values alone (ar1_segments); host_to_device then times the draw.
template <class T>
Result<T> solve_gpu(const Series<T>& series, ScanMode mode, const Ar1* drawn = nullptr);

// A series resident on the device, for the sweep and the benchmarks: s, u, the offsets and the
// initial values uploaded once, v solved into many times and read back when asked. The app
// never touches a device pointer.
template <class T>
class DeviceSeries {
 public:
  // Checks the series (check_series) and uploads it on the stream.
  DeviceSeries(const Series<T>& series, cudaStream_t stream);
  // A run of an AR(1) problem made on the device: `segments` holds the run's offsets and initial
  // values alone (ar1_run), uploaded; s and u are elements [first, first + n) of the whole
  // problem, n = segments.offsets.back(), drawn on the device (draw_ar1_gpu), not on the host.
  DeviceSeries(const Series<T>& segments, const Ar1& drawn, std::int64_t first,
               cudaStream_t stream);
  // Fills v with NaN, so an element the scan never writes cannot pass for a result.
  void poison();
  // v from s, u, the offsets and the initial values, enqueued on the stream. The Solver (and its
  // scan workspace) is made by the first solve in a mode and kept while the mode stays the same.
  void solve(ScanMode mode);
  std::vector<T> download() const;  // v; waits for the stream
  const T* v() const { return v_.data(); }  // v on the device
  const T* s() const { return s_.data(); }  // s on the device

  // Across ranks (ranks.cpp): one initial value replaced, now; v[i], waiting for the stream; the
  // reproducible scan's tile totals of this run (waits); and the run solved reproducibly from
  // the tile totals of the whole series it is part of, its first tile being the series'
  // `first_tile` (Solver::solve_prefixed). `continued`: the run's first segment began before it.
  void set_initial(std::int64_t k, T value);
  T value(std::int64_t i) const;
  std::vector<Map<T>> tile_totals(bool continued);
  void solve_prefixed(const std::vector<Map<T>>& series_totals, std::int64_t first_tile,
                      bool continued);
  // Makes what tile_totals and solve_prefixed need for a series of `series_tiles` tiles (the
  // device and pinned host buffers, the solver), so that a timed run allocates nothing.
  void prepare_prefixed(std::int64_t series_tiles);
  // The same without vectors, as a run across ranks uses them: pinned host memory for the whole
  // series' tile totals (prepared for `series_tiles`); this run's totals computed and
  // downloaded into `into` (pinned), waiting; and the run solved from the series' totals the
  // caller put in series_totals_host, waiting.
  Map<T>* series_totals_host(std::int64_t series_tiles);
  void tile_totals_into(bool continued, Map<T>* into);
  void solve_prefixed_from_host(std::int64_t series_tiles, std::int64_t first_tile,
                                bool continued);
  std::int64_t size() const { return n_; }
  std::int64_t segments() const { return segments_; }
  cudaStream_t stream() const { return stream_; }

 private:
  std::int64_t n_, segments_;
  cudaStream_t stream_;
  DeviceBuffer<T> s_, u_, v_, initial_;
  DeviceBuffer<std::int64_t> offsets_;
  std::unique_ptr<Solver<T>> solver_;
  // Across ranks: this run's tile totals and the whole series' prefixes, on the device and in
  // pinned host memory.
  DeviceBuffer<Map<T>> totals_, prefixes_, scratch_;
  PinnedBuffer<Map<T>> h_totals_, h_prefixes_;
};

// Bytes a solve must move: s and u read, v written.
inline double bytes_per_solve(std::int64_t n, int element_bytes) {
  return 3.0 * element_bytes * static_cast<double>(n);
}

}  // namespace parasol::recurrence
