// montecarlo around its solvers, for the front end, the tests and the benchmarks: the work and
// memory a run needs, a run cut among ranks made whole and judged against its gold, and what a
// sweep times and checks against. Host-only API: compiles without nvcc.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "comm/context.hpp"
#include "kernels/agreement.hpp"
#include "solvers/montecarlo/basket.hpp"
#include "solvers/montecarlo/montecarlo.hpp"

namespace parasol::montecarlo {

// A run's units of work, the rate's: paths x steps.
double path_steps(const Params& p);
double path_steps(const BasketParams& p);

// The stored sample paths: a float per asset at each of steps + 1 times, for sample_paths paths.
double sample_path_bytes(const Params& p);
// host-rng's device memory: its normals for a batch (2 x steps floats for each of
// min(batch_paths, paths) paths), and the stored sample paths beside them.
double host_rng_bytes(const Params& p);

// Whether a run's samples are cut among ranks by whole batches (samples_of): on the GPU
// host-rng's generator starts a rank at one of the one-rank run's batches; the other generators
// draw each sample's normals alone, so any cut will do.
bool cuts_whole_batches(const Params& p, bool gpu);

// The stored sample paths among `part`'s samples: rows [first, first + count) of the whole run's
// sample_paths rows, none when the part starts past them.
Samples stored_rows(const Params& p, Samples part);

// The whole run's result from this rank's `mine`, on every rank: the ranks' payoff sums added
// (integers, so in any order they give the one-rank run's bits), the estimate made from them, and
// the slowest rank's total seconds. One all-gather of a small record a rank; on one rank, `mine`.
Result whole_run(comm::Context& context, const Params& p, Result mine);

// A run's estimate (the whole run's, across ranks) judged against the gold. A CPU run is the gold
// solver itself (the same seed, the same bits), so it is its own gold; a GPU run's gold simulates
// this rank's `part`, made whole over the ranks. Every rank calls it and gets the same answer.
Agreement check_run(const Params& p, const Estimate& estimate, bool gpu, Samples part,
                    comm::Context& context, const ProgressCallback& progress = {});

// A sweep's configurations of `p`: each variant at each compiled block size, host-rng at both of
// cuRAND's orderings (device-rng has none).
std::vector<Params> sweep_configurations(const Params& p);

// Longstaff-Schwartz's device memory: a float for every fitting path at each exercise date, and
// two more a path.
double lsm_device_bytes(const BasketParams& p);

// The basket sweep's gold where no closed form is known: the CPU gold on at most this many paths,
// as it does d^2 work a path-step on one core.
inline constexpr std::int64_t kBasketSweepGoldPaths = std::int64_t{1} << 14;
// The same model on min(paths, kBasketSweepGoldPaths) paths.
BasketParams basket_sweep_gold_params(BasketParams p);

// The variants a basket sweep times: those that can hold its assets.
std::vector<BasketVariant> sweep_variants(const BasketParams& p);

// A basket price judged by what is known exactly, where something is: the geometric basket's
// closed form, or for a one-asset early-exercise put a binomial tree with the same exercise
// dates, less kLsmBiasAllowance; nullopt otherwise.
std::optional<Agreement> agreement_with_exact(const BasketParams& p, const Estimate& price);

// A basket run judged against its gold: what is known exactly (agreement_with_exact), else the
// CPU gold's estimate. A CPU run is that gold (the same bits), so it is its own.
Agreement check_run(const BasketParams& p, const Estimate& price, bool gpu);

}  // namespace parasol::montecarlo
