// laplace3d across ranks: the grid cut into slabs of whole z planes, one per rank, each held
// with halo planes from its neighbours. Every point's update is the same sum in the same order
// whatever the cut, the halos are exchanged before they are read, and the convergence test is
// a global max (exact in any order), so an N-rank run gives the one-rank run's bits for every
// variant and N. Host-only API: compiles without nvcc, MPI or NCCL.
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

#include "comm/context.hpp"
#include "comm/device_comm.hpp"
#include "comm/halo.hpp"
#include "comm/over_ranks.hpp"
#include "comm/transport.hpp"
#include "kernels/stream.hpp"
#include "kernels/timed_runs.hpp"
#include "solvers/laplace3d/check.hpp"
#include "solvers/laplace3d/laplace3d.hpp"

namespace parasol::laplace3d {

// Planes of halo a variant needs: temporal sweeps four times per exchange (each pass is four
// sweeps), so its halo is four planes deep; the others exchange one plane after every sweep.
int halo_depth(Variant v);

// A rank's part of the grid: planes [slab.begin, slab.end) of the grid's nz, held with `below`
// halo planes under them and `above` over them. The grid's own boundary planes are owned like
// any other, and no halo lies past them.
struct SlabPart {
  Extent3 grid;    // the whole grid
  comm::Slab slab;  // owned planes and the neighbouring ranks
  std::int64_t below = 0, above = 0;

  std::int64_t owned() const { return slab.count(); }
  std::int64_t local_planes() const { return below + owned() + above; }
  Extent3 local() const { return {grid.nx, grid.ny, local_planes()}; }
  std::int64_t plane_points() const { return grid.nx * grid.ny; }
  // The whole grid's plane that local plane 0 is.
  std::int64_t first_global() const { return slab.begin - below; }
  // Local planes [first_updated, last_updated] a sweep writes: owned and interior to the grid.
  // Empty (first > last) for a rank that owns only boundary planes.
  std::int64_t first_updated() const;
  std::int64_t last_updated() const;
};

// This rank's part of an even cut of the grid's planes (the first nz % size ranks one more),
// with halos `halo` planes deep. InputError (key "grid.nz") when a rank would own no plane, or
// fewer than `halo` (its neighbours' halos would reach past it).
SlabPart slab_part(const Extent3& grid, int rank, int size, int halo);

// The halos of `u` (this rank's local planes, x fastest; host or device memory) to and from the
// neighbours: the owned planes nearest each neighbour go to it, and its own come back into the
// halo planes.
template <class T>
inline comm::Halo<T> halo_of(const SlabPart& part, T* u) {
  const std::int64_t plane = part.plane_points();
  comm::Halo<T> halo;
  halo.count = static_cast<std::size_t>(plane * std::max(part.below, part.above));
  if (part.below > 0) {
    halo.send_down = u + part.below * plane;
    halo.recv_down = u;
  }
  if (part.above > 0) {
    halo.send_up = u + (part.below + part.owned() - part.above) * plane;
    halo.recv_up = u + (part.below + part.owned()) * plane;
  }
  return halo;
}

// What one rank's run gives: its owned planes of the result and the run's global diagnostics
// (the same on every rank).
template <class T>
struct SlabResult {
  SlabPart part;
  std::vector<T> u;  // owned planes, x fastest
  std::int64_t iterations = 0;
  double last_change = std::numeric_limits<double>::quiet_NaN();
  bool converged = false;
  ConvergenceChecks checks;  // the last two checks (global maxima: the same on every rank)
  PhaseTimer timings;  // as Result's
  // This rank's seconds in halo exchanges and convergence maxima (wall time; device time of
  // NCCL operations). The share of it hidden behind the interior sweep is found by running
  // again without overlap (bench/scaling.py --hidden, parasol sweep across ranks).
  double exchange_seconds = 0;
  comm::Route route = comm::Route::local;  // how device halos travelled
};

// The CPU gold solver on this rank's slab: the same sweeps and stopping rule as solve_gold, with
// one-plane halos exchanged through MPI after every sweep.
template <class T>
SlabResult<T> solve_gold_slab(const Params& p, comm::Context& context,
                              const ProgressCallback& progress = {},
                              const Checkpoints<T>* checkpoints = nullptr);

// A rank's communicator for its slab's halos and the stream it runs on, made once per run: NCCL's
// set-up (about 0.4 s a rank on an H200 host) goes on in the background from here
// (comm/device_comm.hpp), so a run makes it while it prepares, and the first exchange waits for
// what is left of it.
struct SlabComm {
  SlabComm(comm::Context& context, comm::Transport transport)
      : stream(Stream::high_priority()), comm(context, transport, stream.get()) {}
  Stream stream;  // declared before the communicator that uses it
  comm::DeviceComm comm;
};

// The GPU solver on this rank's slab (this rank's device current). When `overlap`, every
// variant sweeps the planes its neighbours need first, exchanges them on the communicator's
// stream and sweeps the rest meanwhile (temporal: four sweeps a pass, four-deep halos).
template <class T>
SlabResult<T> solve_gpu_slab(const Params& p, comm::Context& context, comm::Transport transport,
                             bool overlap, const ProgressCallback& progress = {},
                             const Checkpoints<T>* checkpoints = nullptr);
// The same through a communicator made and connected already (comm.connect with the slab's
// neighbours), for callers that solve many times: a sweep makes it once, not once a repeat.
template <class T>
SlabResult<T> solve_gpu_slab(const Params& p, comm::Context& context, comm::DeviceComm& comm,
                             bool overlap, const ProgressCallback& progress = {},
                             const Checkpoints<T>* checkpoints = nullptr);

// A run of `p` on this rank's part, the one entry for every backend and rank count: on one rank
// the whole grid (solve_gpu, solve_gold; `part` and the exchange left empty), across ranks this
// rank's slab (solve_gpu_slab through `transport`, overlapping when `overlap`; solve_gold_slab).
// Across ranks on the GPU, `slab_comm` (made beforehand, or null: made here) carries the halos.
template <class T>
SlabResult<T> solve(const Params& p, bool gpu, comm::Context& context, comm::Transport transport,
                    bool overlap, const ProgressCallback& progress = {},
                    const Checkpoints<T>* checkpoints = nullptr, SlabComm* slab_comm = nullptr);

// The whole run's agreement from this rank's owned planes `u` after `sweeps` sweeps and the
// gold's same planes: the differences combined over the ranks, judged as agreement<T>() judges
// one field. Every rank calls it and gets the same answer.
template <class T, class G>
Agreement slab_agreement(comm::Context& context, const SlabPart& part, const std::vector<T>& u,
                         const std::vector<G>& gold, std::int64_t sweeps, double scale) {
  const FieldDifference d = comm::over_ranks(context, compare(u, gold), u.size(),
                                             static_cast<std::uint64_t>(part.grid.points()));
  return agreement<T>(d, sweeps, scale);
}

// A run judged against the gold in double, run for exactly as many sweeps as it made
// (`iterations`): on one rank its whole field `u`; across ranks this rank's owned planes, each
// rank running the gold on its own slab. The scale is max |initial field|.
template <class T>
Agreement check_run(const Params& p, const std::vector<T>& u, std::int64_t iterations,
                    comm::Context& context);

// One configuration of a sweep study across ranks (p.variant, p.block, p.max_iterations sweeps
// a run), timed through `comm`: a warm-up, then runs until `repeats` is met, each giving the
// slowest rank's compute seconds per sweep, so that every rank stops after the same run. With
// `exchange`, each run's slowest exchange seconds per sweep too. Adds the seconds timed to
// `timed_s`.
template <class T>
std::vector<double> time_slab_sweeps(const Params& p, comm::Context& context,
                                     comm::DeviceComm& comm, bool overlap, const Repeats& repeats,
                                     double& timed_s, std::vector<double>* exchange = nullptr);

}  // namespace parasol::laplace3d
