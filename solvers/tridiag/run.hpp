// tridiag across ranks: the systems (heat's grids, or a file's batch) cut among the ranks, each
// system whole on one rank, so every rank solves its share alone and an N-rank run gives the
// one-rank run's bits. What a run reports and how it is checked, made the whole run's from each
// rank's share. Every function that takes a Context is called by every rank, in the same order.
// Host-only API: compiles without nvcc, MPI or NCCL.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "comm/context.hpp"
#include "comm/halo.hpp"
#include "kernels/agreement.hpp"
#include "solvers/tridiag/heat.hpp"
#include "solvers/tridiag/kinds.hpp"
#include "solvers/tridiag/tridiag.hpp"

namespace parasol::tridiag {

// This rank's share of `systems` whole systems: an even cut (comm::even_slab, the first
// systems % ranks ranks one more). InputError naming `key` when a rank would get none; `noun`
// ("grids", "systems") names them in it.
comm::Slab system_share(std::int64_t systems, int rank, int ranks, const std::string& key,
                        const std::string& noun);

// This rank's grids of the heat problem (system_share of heat.grids, key "heat.grids"), with
// first_grid set, so that a random start draws what the whole problem's grids draw.
Heat heat_share(const Heat& heat, int rank, int ranks);

// What the summary says of a whole result: the range of u (only max|x|, in `high`, for a file),
// and the sine mode's decay in the grid farthest from the exact one.
struct Diagnostics {
  double low = 0, high = 0;
  bool has_decay = false;
  SineDecay decay;
};

// A file's solution x: max|x|.
template <class T>
Diagnostics batch_diagnostics(const std::vector<T>& x);
// The grids `heat` ([grid][point], after heat.steps steps): the range of u, and the decay when
// the march keeps a sine mode alone (sine_decay).
template <class T>
Diagnostics heat_diagnostics(const Heat& heat, const std::vector<T>& u);

// The whole run's from each rank's, in rank order: the lowest low, the highest high, and the
// decay farthest from the exact one (rank 0's when none is farther).
Diagnostics combine(const std::vector<Diagnostics>& ranks);
// The same gathered from every rank; every rank gets the whole run's.
Diagnostics over_ranks(comm::Context& context, const Diagnostics& mine);

// A heat march judged against the gold in double: `u` and `gold` are this rank's grids of
// `heat` (the whole problem). The differences and max|gold| are combined over the ranks; the
// errors of the march's heat.steps solves at most add.
template <class T>
Agreement march_agreement(comm::Context& context, const Heat& heat, const std::vector<T>& u,
                          const std::vector<double>& gold);

// A file's batch judged against the gold in double: `batch`, `x` and `gold` are this rank's
// share (contiguous) of `systems` systems. The differences, max|gold| and the condition
// bound's terms are combined over the ranks.
template <class T>
Agreement batch_agreement(comm::Context& context, const Batch<T>& batch, std::int64_t systems,
                          const std::vector<T>& x, const std::vector<double>& gold);

// The same for a kind's batch: `batch`, `x` and `gold` this rank's share (contiguous) of
// `systems` systems, judged by kind_tolerance.
template <class T>
Agreement kind_batch_agreement(comm::Context& context, const KindBatch<T>& batch,
                               std::int64_t systems, const std::vector<T>& x,
                               const std::vector<double>& gold);

}  // namespace parasol::tridiag
