// montecarlo around its solvers: work, memory, ranks, checks and sweeps (run.hpp).
#include "solvers/montecarlo/run.hpp"

#include <algorithm>

#include "solvers/montecarlo/check.hpp"

namespace parasol::montecarlo {

double path_steps(const Params& p) {
  return static_cast<double>(p.paths) * static_cast<double>(p.steps);
}

double path_steps(const BasketParams& p) {
  return static_cast<double>(p.paths) * static_cast<double>(p.steps);
}

double sample_path_bytes(const Params& p) {
  return 2.0 * sizeof(float) * static_cast<double>(p.sample_paths) *
         static_cast<double>(p.steps + 1);
}

double host_rng_bytes(const Params& p) {
  const double batch = static_cast<double>(std::min(p.batch_paths, p.paths));
  return 2.0 * sizeof(float) * static_cast<double>(p.steps) * batch + sample_path_bytes(p);
}

bool cuts_whole_batches(const Params& p, bool gpu) { return gpu && p.variant == Variant::host_rng; }

Samples stored_rows(const Params& p, Samples part) {
  const std::int64_t first = std::min(part.first, p.sample_paths);
  const std::int64_t last = std::min(part.first + part.count, p.sample_paths);
  return {first, last - first};
}

Result whole_run(comm::Context& context, const Params& p, Result mine) {
  if (context.size() == 1) return mine;
  // What each rank adds to the run: its payoff sums and its seconds.
  struct Share {
    PayoffSums sums;
    double seconds = 0;
  };
  Share whole;
  for (const Share& s : context.all_gather(Share{mine.sums, mine.timings.total})) {
    whole.sums.sum += s.sums.sum;
    whole.sums.sum_sq += s.sums.sum_sq;
    whole.sums.count += s.sums.count;
    whole.seconds = std::max(whole.seconds, s.seconds);
  }
  mine.sums = whole.sums;
  mine.estimate = estimate_from(whole.sums, price_unit(p));
  mine.timings.total = whole.seconds;
  return mine;
}

Agreement check_run(const Params& p, const Estimate& estimate, bool gpu, Samples part,
                    comm::Context& context, const ProgressCallback& progress) {
  if (!gpu) return agreement(estimate, estimate);
  return agreement(estimate, whole_run(context, p, solve_gold(p, progress, part)).estimate);
}

std::vector<Params> sweep_configurations(const Params& p) {
  std::vector<Params> configurations;
  for (Variant v : kVariants)
    for (int block : kBlockSizes) {
      Params q = p;
      q.variant = v;
      q.block = block;
      if (v == Variant::device_rng) {
        configurations.push_back(q);
        continue;
      }
      for (Ordering o : {Ordering::legacy, Ordering::dynamic}) {
        q.ordering = o;
        configurations.push_back(q);
      }
    }
  return configurations;
}

double lsm_device_bytes(const BasketParams& p) {
  return 4.0 * static_cast<double>(p.paths) *
         static_cast<double>(p.exercise_schedule().size() + 2);
}

BasketParams basket_sweep_gold_params(BasketParams p) {
  p.paths = std::min(p.paths, kBasketSweepGoldPaths);
  return p;
}

std::vector<BasketVariant> sweep_variants(const BasketParams& p) {
  std::vector<BasketVariant> variants;
  for (BasketVariant v : kBasketVariants)
    if (v != BasketVariant::registers || p.assets() <= kRegistersUpTo) variants.push_back(v);
  return variants;
}

std::optional<Agreement> agreement_with_exact(const BasketParams& p, const Estimate& price) {
  if (p.payoff == BasketPayoff::geometric_basket)
    return agreement_with_exact(price, geometric_basket_price(p), 0.0,
                                "the geometric basket's closed form");
  if (early_exercise(p.payoff) && p.assets() == 1) {
    // 40 tree steps a simulation step: the CRR tree's error is far below the allowance.
    const double tree = binomial_put(p, 40, false);
    return agreement_with_exact(price, tree, kLsmBiasAllowance * tree,
                                "a binomial tree with the same exercise dates");
  }
  return std::nullopt;
}

Agreement check_run(const BasketParams& p, const Estimate& price, bool gpu) {
  if (std::optional<Agreement> exact = agreement_with_exact(p, price)) return *exact;
  if (!gpu) return agreement(price, price);
  return agreement(price, solve_basket_gold(p).price);
}

}  // namespace parasol::montecarlo
