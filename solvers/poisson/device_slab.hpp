// poisson on the GPU across ranks: the multigrid of device.hpp with its levels cut into slabs of z
// planes as the CPU gold's are (slab.hpp's slab_cut), so that an N-rank run gives the one-rank
// GPU run's bits, for the plain variant with either smoother. Host-only API.
//
// What runs: levels 0 .. m − 1 are cut among the ranks, m being slab_cut's cut levels but never
// the coarsest, each rank holding its planes of every field with one halo plane below and one
// above (SlabGrid::z_halos). Before every stencil application (a colour or Chebyshev step, the
// residual, a prolongation reading the coarse level) the halo planes are exchanged device to
// device through comm::DeviceComm on the kernels' stream (NCCL, or MPI where NCCL cannot run, as
// comm/transport.hpp resolves it); past a periodic z face the first and the last rank swap the
// wrap. Restriction and prolongation stay on the rank: the cut is made in blocks of planes that
// hold whole children of every coarse plane. The restriction into level m gathers level m − 1's
// residual (or FMG's source) onto every rank, and levels m and below are then held whole by
// every rank, which all run the same kernels on the same values: no broadcast back, and the
// bottom solve is the one-rank kernel. Every cell's arithmetic is the one-rank kernels'.
//
// The norms and means of the finest level are reduced plane by plane (kernels.cuh): each plane's
// total on the rank holding it, by the one-rank grid over x and y; the totals all-reduced over
// zeros (exact) and added in plane order on the host by the one-rank device's function.
//
// Not across ranks: the fused variant (its pass marches each tile through a level's whole z
// range; InputError naming method.variant), and CUDA graphs (the gather onto every rank is a
// host call between kernels: each launch is paid for, which the coarse levels' few planes do not
// hide).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "comm/context.hpp"
#include "kernels/phase_timer.hpp"
#include "solvers/poisson/params.hpp"
#include "solvers/poisson/poisson.hpp"
#include "solvers/poisson/problem.hpp"

namespace parasol::poisson {

// The GPU multigrid of solve_gold_slab across the ranks of `context` (one device each, chosen by
// the caller): `f` and `u` are this rank's planes (slab_cut), x fastest; `u` is resized. Every
// rank gets the whole run's Outcome; `on_cycle` is called after each cycle; a checkpoint's state
// is this rank's planes of u and the whole run's reports: all as the gold's. On one rank it runs
// the same kernels, un-captured, with every level whole.
template <class T>
Outcome solve_device_slab(const Params& p, comm::Context& context, const std::vector<T>& f,
                          std::vector<T>& u, const CycleCallback& on_cycle = {},
                          const Checkpoints<T>* checkpoints = nullptr);

// A GPU solve whose source was made on the device: its outcome, the shift subtracted from f (0
// unless singular) and, with a manufactured source, the discretisation error, measured there.
struct DeviceSolve {
  Outcome outcome;
  double shift = 0;
  std::optional<DiscretisationError> error;
  // setup: the solver's making (levels, graphs) and f's, before the cycles; device_to_host: u's
  // copy into the host's array, when it was given one.
  PhaseTimer timings;
};

// solve_device_slab with f made on the device from p's analytic source (every source.kind but
// file), each rank its own planes, and made compatible there where singular (sources.cuh): the
// bits of make_source and make_compatible where sources.cuh says so, with no host array of f.
// u, when given, gets this rank's planes; the error is the whole grid's on every rank.
template <class T>
DeviceSolve solve_device_slab_made(const Params& p, comm::Context& context, std::vector<T>* u,
                                   const CycleCallback& on_cycle = {},
                                   const Checkpoints<T>* checkpoints = nullptr);

// Planes [z_begin, z_end) of f as a rank's slab makes them on the device (f − shift where
// shift ≠ 0, rounded to T), into a NaN-poisoned slab stored with halo planes, downloaded: a test's
// view of the kernel on planes that do not start at 0 (Error if it wrote a halo plane).
template <class T>
std::vector<T> device_source_planes(const Params& p, std::int64_t z_begin, std::int64_t z_end,
                                    double shift = 0);

}  // namespace parasol::poisson
