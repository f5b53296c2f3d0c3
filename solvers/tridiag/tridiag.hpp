// tridiag: M independent tridiagonal systems a[i] x[i-1] + b[i] x[i] + c[i] x[i+1] = d[i] of n
// rows each. a of a system's first row and c of its last are ignored. Host-only API: compiles
// without nvcc.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "kernels/buffer.hpp"
#include "kernels/error.hpp"
#include "kernels/phase_timer.hpp"
#include "solvers/tridiag/params.hpp"

namespace parasol::tridiag {

template <class T>
class ThomasScanWorkspace;  // thomas_scan.cuh

// A zero pivot, or a NaN or infinity met while solving: the system has no answer these
// algorithms (which do not pivot) can give. Names the first system it was met in.
class NumericalError : public Error {
 public:
  NumericalError(std::int64_t system, const std::string& message)
      : Error(message), system_(system) {}
  std::int64_t system() const { return system_; }

 private:
  std::int64_t system_;
};

struct Dims {
  std::int64_t n = 1;        // rows per system
  std::int64_t systems = 1;  // M
  Layout layout = Layout::contiguous;
  std::int64_t size() const { return n * systems; }
  std::int64_t index(std::int64_t system, std::int64_t row) const {
    return layout == Layout::contiguous ? system * n + row : row * systems + system;
  }
};

template <class T>
struct Batch {
  Dims dims;
  std::vector<T> a, b, c, d;  // each dims.size() long, in dims.layout
};

// The same values in another layout: `v` is laid out as `from`, the result as `to`.
template <class T>
std::vector<T> relayout(const std::vector<T>& v, const Dims& from, Layout to);
template <class T>
Batch<T> relayout(const Batch<T>& batch, Layout to);

// Random, strictly diagonally dominant systems (|b| >= |a| + |c| + 1, signs mixed), the same for
// a seed whatever the layout, drawn on every core. Row i of system m takes words w = 5 r to
// 5 r + 4, r = m n + i, of CounterDraws(seed, 0) (kernels/seeded_draws.hpp;
// docs/generated-inputs.md): a = 2 unit_of(w) - 1, c = 2 unit_of(w + 1) - 1 (0 at the ends),
// b = +-(|a| + |c| + 1 + unit_of(w + 2)) with |a| and |c| as stored in T, negative where word
// w + 3's top bit is set, and d = 2 unit_of(w + 4) - 1. With `first_system`, systems
// [first_system, first_system + dims.systems) of such a batch, drawn alone.
template <class T>
Batch<T> random_batch(const Dims& dims, std::uint64_t seed, std::int64_t first_system = 0);

// The CPU gold solver: the Thomas algorithm in double, in dims.layout. Throws NumericalError on a
// zero pivot or a non-finite value.
template <class T>
std::vector<double> solve_gold(const Batch<T>& batch);

// How a variant is launched. `chunk` 0 means "pick one for this n" (resolve_launch).
struct Launch {
  Variant variant = Variant::thomas_pcr;
  int threads = 256;
  int chunk = 0;
};

constexpr int next_pow2(std::int64_t v) {
  int p = 1;
  while (p < v) p *= 2;
  return p;
}

// The threads of pcr-warp or thomas-pcr that solve one system of n rows, `chunk` rows each: a
// power of two, as PCR halves the group at every step.
inline int system_group(std::int64_t n, int chunk) { return next_pow2((n + chunk - 1) / chunk); }

// A block holds whole systems when one system's group fits its threads; it then runs as many
// whole groups as `threads` allows. 0 when a system spans blocks.
inline int whole_system_block(const Launch& l, std::int64_t n) {
  const int group = system_group(n, l.chunk);
  return group <= l.threads ? l.threads / group * group : 0;
}

// The launch made concrete for these dims (chunk picked when 0), or InputError naming the key
// ("method.variant", "method.layout", "method.threads", "method.chunk") that cannot work with
// them, e.g. pcr-warp for n > 128 or thomas on the contiguous layout. element_bytes: 4 for
// float, 8 for double (long chunks of doubles need smaller blocks).
Launch resolve_launch(const Launch& launch, const Dims& dims, int element_bytes = 4);

// A solver for one launch and size, holding its workspace; solves data already on the device.
template <class T>
class Solver {
 public:
  Solver(const Launch& launch, const Dims& dims);  // resolves the launch; throws as it does
  // x = A^-1 d, enqueued on the stream. Device pointers of dims.size() elements; x may alias d.
  void solve(const T* a, const T* b, const T* c, const T* d, T* x, cudaStream_t stream);
  // Waits for the stream; throws NumericalError if any solve since the last check met a zero
  // pivot or a non-finite value, and clears the record.
  void check(cudaStream_t stream);
  const Launch& launch() const { return launch_; }
  const Dims& dims() const { return dims_; }
  // How many times a solve reads the input: 2 for thomas-pcr's three steps past one block per
  // system, which it takes when a system's blocks cannot form one cluster; else 1.
  int passes() const { return interface_ ? 2 : 1; }

 private:
  Launch launch_;
  Dims dims_;
  // thomas-pcr past one block per system in three steps: the interface system (one row per
  // chunk), its solution and its solver; thomas: the eliminated upper diagonal.
  DeviceBuffer<T> workspace_;
  int segments_ = 0;                         // in one pass: blocks (a cluster) per system
  std::int64_t chunks_ = 0;                  // in three steps: interface rows per system
  std::unique_ptr<Solver> interface_;
  DeviceBuffer<unsigned long long> failure_;  // lowest failing system; all ones when none
  // thomas-scan: where its workspace's pieces lie (made once), and the workspace: each tile's
  // ends, and the coefficients its head and tail rows keep.
  std::shared_ptr<const ThomasScanWorkspace<T>> scan_layout_;
  DeviceBuffer<unsigned char> scan_workspace_;
};

template <class T>
struct Result {
  std::vector<T> x;    // in the batch's layout
  PhaseTimer timings;  // host_to_device, compute, device_to_host
};

// `values`, laid out as `from`, uploaded and stored on the device in layout `to`: reordered there
// (a transpose), so no relaid copy is made on the host. Waits for the stream. For T and for a
// gold in double.
template <class U>
DeviceBuffer<U> upload_relaid(const std::vector<U>& values, const Dims& from, Layout to,
                              cudaStream_t stream);

// Upload, solve, check, download.
template <class T>
Result<T> solve_gpu(const Launch& launch, const Batch<T>& batch);

// The same for random_batch(dims, seed, first_system) drawn on the device, in dims.layout,
// rather than uploaded (random_row, random_rows.hpp: the host's bits); host_to_device times
// the draw.
template <class T>
Result<T> solve_gpu(const Launch& launch, const Dims& dims, std::uint64_t seed,
                    std::int64_t first_system);

// A batch resident on the device, for the sweep and the benchmarks: uploaded once in the layout
// its variants need, solved many times, read back when asked. The app never touches a device
// pointer.
template <class T>
class DeviceBatch {
 public:
  // `batch` in any layout, stored on the device in `layout` (required_layout of the variants
  // that will solve it, reordered there by upload_relaid), with room for x.
  DeviceBatch(const Batch<T>& batch, Layout layout, cudaStream_t stream);
  // Fills x with NaN, so a row a solver never writes cannot pass for a result.
  void poison();
  // x = A^-1 d by `launch`, enqueued on the stream. The Solver (and its workspace) is made by
  // the first solve with a launch and kept while the launch stays the same, so repeated solves
  // allocate nothing. InputError as resolve_launch when the launch cannot solve these dims.
  void solve(const Launch& launch);
  // Waits for the stream; NumericalError if a solve since the last check met a zero pivot or a
  // non-finite value (Solver::check).
  void check();
  // x in [system][row] order (contiguous), whatever the layout on the device; waits.
  std::vector<T> download() const;
  const Dims& dims() const { return dims_; }  // as stored on the device
  const T* x() const { return x_.data(); }     // the solution on the device, in dims().layout
  // The launch the kept Solver runs (its chunk resolved); the last one given to solve().
  const Launch& launch() const;
  cudaStream_t stream() const { return stream_; }

 private:
  Dims dims_;
  cudaStream_t stream_;
  DeviceBuffer<T> a_, b_, c_, d_, x_;
  Launch asked_;  // what solve() was last given, before the Solver resolved it
  std::unique_ptr<Solver<T>> solver_;
};

// Bytes a solve must move with general coefficients: a, b, c, d read and x written.
inline double bytes_per_solve(const Dims& dims, int element_bytes) {
  return 5.0 * element_bytes * static_cast<double>(dims.size());
}

}  // namespace parasol::tridiag
