// laplace3d: the 3D Laplace equation by Jacobi iteration, u_new = mean of the six neighbours,
// with fixed (Dirichlet) boundary values. Host-only API: compiles without nvcc.
#pragma once

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "kernels/buffer.hpp"
#include "kernels/checkpoint_keys.hpp"
#include "kernels/convergence.hpp"
#include "kernels/phase_timer.hpp"
#include "kernels/reduce.hpp"
#include "kernels/shape.hpp"
#include "solvers/laplace3d/params.hpp"
#include "solvers/laplace3d/shapes.hpp"

namespace parasol::laplace3d {

template <class T>
struct Result {
  Extent3 grid;
  std::vector<T> u;  // x fastest: u[i + nx*(j + ny*k)]
  std::int64_t iterations = 0;
  // max |u_new - u| over the grid in the last iteration run (NaN only if never measured).
  double last_change = std::numeric_limits<double>::quiet_NaN();
  bool converged = false;  // stopped because last_change fell below the tolerance
  ConvergenceChecks checks;  // the last two checks, for the contraction and the error bound
  // host_to_device (the starting field set on the device: a GPU run makes it there), compute and
  // device_to_host; the CPU gold's compute alone.
  PhaseTimer timings;
};

// Reported at every convergence check.
struct Progress {
  std::int64_t iterations = 0, max_iterations = 0;
  double last_change = 0;
  double seconds = 0;  // since the iteration began
};
using ProgressCallback = std::function<void(const Progress&)>;

// What a checkpoint holds of a run, enough to continue it to the same bits: the iterate after
// `iterations` sweeps (the whole field; across ranks this rank's local planes, halos included)
// and the convergence checks so far. `u` points at `points` values it does not own.
template <class T>
struct State {
  std::int64_t iterations = 0;
  const T* u = nullptr;
  std::int64_t points = 0;
  ConvergenceChecks checks;
};
// A solve's safe points are its convergence checks (every iteration.check_every), every
// checkpoint.every iterations, and its last iteration.
template <class T>
using Checkpoints = SafePoints<State<T>>;

// At iteration `it` of a solve, after its convergence check if it had one: when `it` is a safe
// point, asks `c` whether to save (`state()` is made only then) and returns whether to stop.
template <class T, class MakeState>
bool at_safe_point(const Checkpoints<T>* c, const Params& p, std::int64_t it, MakeState state) {
  if (c == nullptr || !c->at) return false;
  if (it % p.check_every != 0 && !c->due(it, p.max_iterations)) return false;
  const AtSafePoint a = c->at(it);
  if (a == AtSafePoint::go_on) return false;
  c->save(state());
  return a == AtSafePoint::save_and_stop;
}

// Where a solve that sweeps in batches ends its next batch, after `done` iterations: at the next
// convergence check when `checking`, the next safe point when checkpointing, else the last.
template <class T>
std::int64_t next_batch_end(const Params& p, bool checking, const Checkpoints<T>* c,
                            std::int64_t done) {
  std::int64_t end = p.max_iterations;
  if (checking || (c != nullptr && c->at))
    end = std::min(end, (done / p.check_every + 1) * p.check_every);
  if (c != nullptr && c->at) end = std::min(end, c->next(done, p.max_iterations));
  return end;
}

// Boundary faces and starting interior, as Params describe them: the whole field, or planes
// [first, first + count) of it (a rank's slab), with the same values.
template <class T>
std::vector<T> initial_field(const Params& p);
template <class T>
std::vector<T> initial_planes(const Params& p, std::int64_t first, std::int64_t count);

// One Jacobi sweep on the CPU: interior points of u_next from u; boundaries untouched.
template <class T>
void gold_sweep(const Extent3& n, const T* u, T* u_next);

// max |a - b| over the grid.
template <class T>
double max_abs_difference(const std::vector<T>& a, const std::vector<T>& b);

// The CPU gold solver: the same iteration and stopping rule as the GPU solver.
template <class T>
Result<T> solve_gold(const Params& p, const ProgressCallback& progress = {},
                     const Checkpoints<T>* checkpoints = nullptr);

// The GPU solver: p.variant with p.block.
template <class T>
Result<T> solve_gpu(const Params& p, const ProgressCallback& progress = {},
                    const Checkpoints<T>* checkpoints = nullptr);

// A field resident on the device, for the sweep study and the benchmarks: iterate without
// transfers, read back when asked. `current` always holds the latest iterate.
template <class T>
class DeviceGrid {
 public:
  DeviceGrid(const Extent3& grid, const std::vector<T>& initial, cudaStream_t stream);
  // Planes [first_plane, first_plane + planes) of the starting field `p` describes, made on the
  // device with the values initial_planes() gives (no upload); the grid is that slab.
  DeviceGrid(const Params& p, std::int64_t first_plane, std::int64_t planes, cudaStream_t stream);
  // `iterations` Jacobi sweeps with the variant's kernel, enqueued on the stream.
  void sweep(Variant variant, const Shape& block, std::int64_t iterations);
  // Fills the interior of the copy the next sweep writes with NaN (its boundary stays), so a
  // point that a kernel fails to write cannot pass a test.
  void poison_next();
  // max |u_new - u| of the last sweep (waits for the stream); over planes [first, last] only.
  double last_change();
  double last_change(std::int64_t first, std::int64_t last);
  std::vector<T> download() const;
  std::vector<T> download_planes(std::int64_t first, std::int64_t count) const;

  // A sweep in parts, for a grid that is one rank's slab of a larger one: advance() makes the
  // next iterate current (its planes then hold the iterate before last until written);
  // sweep_planes() writes planes [first, last] of it (interior planes, 1 <= first <= last <=
  // nz - 2) from the previous one, on `stream` (the grid's own when null), so edges and interior
  // can go on different streams; plane(k) is where a halo exchange reads or writes plane k of
  // the current iterate. For temporal, a sweep_planes() call is four sweeps, and every plane of
  // the range is exact (it reads the planes within four of the range).
  void advance();
  void sweep_planes(Variant variant, const Shape& block, std::int64_t first, std::int64_t last,
                    cudaStream_t stream = nullptr);
  T* plane(std::int64_t k);
  const Extent3& grid() const { return grid_; }
  cudaStream_t stream() const { return stream_; }

 private:
  // The field inside a copy's allocation, past its leading guard cells.
  T* field(DeviceBuffer<T>& copy) { return copy.data() + guard_; }
  const T* field(const DeviceBuffer<T>& copy) const { return copy.data() + guard_; }

  Extent3 grid_;
  cudaStream_t stream_;
  int multiprocessors_;  // of the device, for the kernels' chunk lengths
  std::int64_t guard_;  // guard cells before and after each copy of the field
  DeviceBuffer<T> current_, previous_;
  DeviceReducer<double> reducer_;  // changes measured in double, as the gold does
};

// Bytes one sweep must move: every point read once and written once.
inline double bytes_per_sweep(const Extent3& n, int element_bytes) {
  return 2.0 * element_bytes * static_cast<double>(n.points());
}

}  // namespace parasol::laplace3d
