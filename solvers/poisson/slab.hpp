// poisson across ranks on the CPU: the grid cut into slabs of whole z planes, each rank holding
// its planes of the first m levels with one halo plane on each side, exchanged through comm/
// before any z-neighbour is read. The cut is made in blocks of the grid's planes under one plane
// of the level that decides it (2^k planes, z having halved k times down to it; a level that
// keeps its planes keeps the cut above it), so that every cut level holds whole children under
// each rank's coarse planes and restriction and prolongation stay on the rank; the levels below are gathered onto rank 0, which runs their
// part of every cycle, and their correction is broadcast back. Every cell's arithmetic is the one-rank gold's,
// and every sum is taken plane by plane in plane order, so an N-rank run gives the one-rank
// run's bits. Host-only API: compiles without nvcc, MPI or NCCL.
#pragma once

#include <cstdint>
#include <vector>

#include "comm/context.hpp"
#include "solvers/poisson/poisson.hpp"

namespace parasol::poisson {

// Levels at most this many cells are not worth a halo exchange per sweep: they are gathered
// onto rank 0 (the deepest level kept cut is the last with more cells, and with at least one
// block of planes per rank).
inline constexpr std::int64_t kGatherCells = 32768;

// A rank's share: planes [begin, end) of the grid, and the deepest level still cut among the
// ranks (`cut_levels` − 1; the levels below it are rank 0's alone).
struct SlabCut {
  std::int64_t begin = 0, end = 0;
  std::int64_t cut_levels = 1;
  std::int64_t planes() const { return end - begin; }
};

// The cut of p's grid among `size` ranks, as rank `rank` holds it. InputError (key "grid.nz")
// when the ranks outnumber the planes.
SlabCut slab_cut(const Params& p, int rank, int size);

// The multigrid of solve_gold across the ranks of `context`: `f` and `u` are this rank's planes
// (slab_cut), x fastest. Every rank gets the whole run's Outcome. A checkpoint's state is
// this rank's planes of u and the whole run's reports.
template <class T>
Outcome solve_gold_slab(const Params& p, comm::Context& context, const std::vector<T>& f,
                        std::vector<T>& u, const CycleCallback& on_cycle = {},
                        const Checkpoints<T>* checkpoints = nullptr);

}  // namespace parasol::poisson
