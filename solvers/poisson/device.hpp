// poisson on the GPU: the multigrid of poisson.hpp on device-resident levels, each cycle captured
// once in a CUDA graph and replayed, so that the launches of the small levels cost one graph
// launch. Upload the source (or make an analytic one on the device: sources.cuh), solve,
// download: the app never touches a device pointer. Host-only API.
//
// What runs (device.cu, kernels.cuh): the levels of levels(p), each with u and its right-hand side
// (and, by variant and smoother, a second field for sweeps that cannot write in place); FMG's
// level right-hand sides b_l = R^l f + boundary terms are made at upload. The plain variant runs
// one kernel per red or black half-sweep (a whole sweep in the fused pass on a level with a
// periodic side of odd length, where red meets red), Chebyshev step, restriction and
// prolongation; the fused variant runs a whole red-black sweep (or a smoothing's two Chebyshev
// steps) in one pass over memory. Both restrict the residual where it is computed and take the
// norms from u and b directly, never storing r. Both prolong and correct in one kernel. The bottom level is solved on
// one block, whose barriers order the sweeps: each colour's (or Chebyshev step's) new values are
// all computed before any is written, so the result does not depend on the order threads run in,
// even where an odd periodic axis makes the red-black colouring improper.
//
// Residual norms, means and the right-hand side's norms are reduced in double plane by plane: each
// plane's total over a grid fixed by nx and ny (per-block partials, then one block in index
// order), then the planes' totals in plane order by one thread (kernels.cuh). The same input gives
// the same bits, run after run; the plain and fused variants, which compute every residual by the
// same function in the same order, give the same bits as each other; and a level cut into slabs
// of planes among ranks (device_slab.hpp) gives the same bits again, each rank making its planes'
// totals. The order within a plane is a tree, not the gold's index order (poisson.hpp): the norms
// agree with the gold's to rounding, and a singular problem's mean, subtracted from u, likewise.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <memory>

#include "solvers/poisson/params.hpp"
#include "solvers/poisson/poisson.hpp"
#include "solvers/poisson/problem.hpp"

namespace parasol::poisson {

// Device bytes DeviceSolver<T> allocates for `p`: checked before allocating, and named when they
// do not fit.
template <class T>
std::size_t device_bytes(const Params& p);

template <class T>
class DeviceSolver {
 public:
  // Allocates the level hierarchy and captures the cycles; throws Error with the bytes asked and
  // the device's free memory when they do not fit.
  explicit DeviceSolver(const Params& p);
  ~DeviceSolver();
  DeviceSolver(const DeviceSolver&) = delete;
  DeviceSolver& operator=(const DeviceSolver&) = delete;

  // The source f on the cells, x fastest, without boundary data (the faces come from Params),
  // compatible where the problem is singular (problem.hpp's make_compatible). Waits.
  void upload_source(const T* f);
  // Or f made on the device from p's analytic source (every source.kind but file; Error for
  // that), straight into the right-hand side, and made compatible there where the problem is
  // singular: make_source's and make_compatible's values with no host array (sources.cuh says
  // which kinds are the host's bits). Returns the shift subtracted (0 unless singular). Waits.
  double make_source();
  // After solve: max and rms of u − u* over the grid, u* the manufactured solution (Error unless
  // source.kind = manufactured), reduced on the device plane by plane (sources.cuh: the max is
  // discretisation_error's bits, the rms within a few ulps of it). Waits.
  DiscretisationError manufactured_error();
  // The finest level's right-hand side, f with the boundary data folded in: a test's view of
  // what make_source made. Waits.
  void download_rhs(T* b);
  // p.cycle from u = 0 (fmg: FMG, then V-cycles), to p.tolerance on the max-norm relative
  // residual or p.max_cycles V-cycles. With `checkpoints`, as solve_gold: from its `from` when
  // set (u uploaded, the reports continued, FMG not run again), meeting it after every cycle.
  Outcome solve(const Checkpoints<T>* checkpoints = nullptr);
  void download(T* u);
  // NaN in u on every level: a test's proof that the answer was written.
  void poison();
  // NaN in the finest right-hand side: a test's proof that make_source wrote every cell.
  void poison_source();
  cudaStream_t stream() const;

  // For the benchmark, enqueued without waiting: FMG from u = 0; one V-cycle from the current u;
  // one operator application on the finest level (r = b - A u, two fields read and one written),
  // the 7-point sweep cycles are measured in.
  void enqueue_fmg();
  void enqueue_v_cycle();
  void enqueue_fine_sweep();
  std::int64_t levels() const;

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace parasol::poisson
