// Measures taken on each rank's part of a run, made the whole run's, for the solvers and their
// bindings to judge and time a run cut among ranks. Every rank calls these, in the same order.
#pragma once

#include <cstdint>

#include "comm/context.hpp"
#include "kernels/agreement.hpp"

namespace parasol::comm {

// The whole run's difference from the gold, from each rank's over `my_points` of `points`: the
// largest, the root mean square, and NaN for both when any rank met a NaN (a max need not keep
// one).
FieldDifference over_ranks(comm::Context& context, const FieldDifference& mine,
                           std::uint64_t my_points, std::uint64_t points);

// Waits until every rank has reached this point and returns the seconds this one waited: its
// share of the run's load imbalance, timed apart from the communication after it (the phases
// "wait" and "exchange").
double wait_for_ranks(comm::Context& context);

// The largest of each rank's value, NaN when any rank's is NaN.
double max_over_ranks(comm::Context& context, double mine);

}  // namespace parasol::comm
