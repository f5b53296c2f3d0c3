// One row of a montecarlo sweep, usable without the command line: a configuration simulated on
// a stream by the sweep-row protocol (kernels/sweep_row.hpp) and judged against the sweep's gold.
// Host-only API: compiles without nvcc.
#pragma once

#include <vector>

#include "kernels/sweep_row.hpp"
#include "solvers/montecarlo/basket.hpp"
#include "solvers/montecarlo/montecarlo.hpp"
#include "solvers/montecarlo/summary.hpp"

namespace parasol::montecarlo {

// What a sweep times of a run's parameters: the two-asset model's without its stored paths
// (storing them is not what is timed); a basket's as they are.
Params sweep_params(Params p);
inline BasketParams sweep_params(BasketParams p) { return p; }

// What a sweep refuses before it times, as an InputError naming its key (no source: the caller's
// table has it): the two-asset model's method.block past the device's block limits; a basket's
// early-exercise payoff (`parasol run` prices it).
void check_sweep(const Params& p);
void check_sweep(const BasketParams& p);
// What a sweep needs of the device: the two-asset model's device_needs with host-rng's normals,
// since the sweep runs both variants; a basket's as a GPU run's (basket_needs: none for the
// European payoffs a sweep times).
std::vector<MemoryNeed> sweep_needs(const Params& p);
std::vector<MemoryNeed> sweep_needs(const BasketParams& p);

// The gold every row is judged against: the two-asset model's on sweep_gold_params's paths,
// reported to `progress`; a basket's CPU gold on basket_sweep_gold_params's paths, none where
// the closed form judges (the geometric basket).
SweepGold sweep_gold(const Params& p, const ProgressCallback& progress = {});
SweepGold sweep_gold(const BasketParams& p, const ProgressCallback& progress = {});

// A basket sweep's configurations: p with each variant that can hold its assets (sweep_variants).
std::vector<BasketParams> sweep_configurations(const BasketParams& p);

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
