// One row of a montecarlo sweep, usable without the command line: a configuration simulated on
// a stream by the sweep-row protocol (kernels/sweep_row.hpp) and judged against the sweep's gold.
// Host-only API: compiles without nvcc.
#pragma once

#include "kernels/sweep_row.hpp"
#include "solvers/montecarlo/basket.hpp"
#include "solvers/montecarlo/montecarlo.hpp"

namespace parasol::montecarlo {

// What a row measured, and the first estimate it judged (the row's price and standard error;
// NaN for a row that failed to run). No poison: a run starts its sums from zero itself, so no
// output is left unwritten. The re-check judges the last timed run's estimate: host-rng's draws
// move on from run to run, so it is a second estimate of its own, judged alike.
struct EstimateRow {
  RowOutcome row;
  double price, standard_error;
};

// A two-asset configuration `c` against the gold's estimate.
EstimateRow measure(const Params& c, cudaStream_t stream, const Repeats& repeats,
                    const Estimate& gold);
// A basket configuration `c` against the closed form where the model has one, else `gold`.
EstimateRow measure(const BasketParams& c, cudaStream_t stream, const Repeats& repeats,
                    const Estimate& gold);

}  // namespace parasol::montecarlo
