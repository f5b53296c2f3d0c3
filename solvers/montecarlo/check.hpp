// montecarlo's one definition of agreement with the gold, used by the tests, `parasol run
// --check`, `parasol sweep` and the benchmarks.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <string>

#include "kernels/agreement.hpp"
#include "solvers/montecarlo/montecarlo.hpp"

namespace parasol::montecarlo {

// Two independent estimates of one price differ by more than 4 standard errors of their
// difference (the two errors combined in quadrature) about once in 16000 pairs, by the normal
// tail of the central limit theorem; a bug that moves the price by a fraction of a standard
// error goes unseen by any bound, and one that moves it by more fails this one nearly always.
// The GPU and the gold draw different normals (Philox or cuRAND against the gold's own
// counter-based generator), so their estimates are independent, and float paths against double
// ones add a bias far below one standard error at the path counts a check runs.
inline constexpr double kStandardErrors = 4.0;

// The sweep's gold: the same model on at most this many paths, made once for every row. A check
// is as sharp as the larger standard error allows; 2^20 paths put the gold's at a thousandth of
// the payoff's spread (the course's digital: 5e-4), in about five seconds of one core.
inline constexpr std::int64_t kSweepGoldPaths = std::int64_t{1} << 20;

// The gold's parameters for a sweep of `p`: the same model, seed and payoff on
// min(paths, kSweepGoldPaths) paths, no stored sample paths.
inline Params sweep_gold_params(Params p) {
  p.paths = std::min(p.paths, kSweepGoldPaths);
  p.sample_paths = 0;
  return p;
}

// |result - gold| in standard errors of the difference, judged by kStandardErrors. Identical
// estimates (the CPU run checked against itself) agree whatever their spread; with fewer than two
// samples on a side there is no spread to judge by, so the difference is reported, not judged.
inline Agreement agreement(const Estimate& result, const Estimate& gold) {
  const double difference = result.price - gold.price;
  const double combined = std::hypot(result.standard_error, gold.standard_error);
  Agreement a;
  a.measure = "difference_in_standard_errors";
  a.value = difference == 0 ? 0.0 : std::abs(difference) / combined;
  a.tolerance = std::isnan(combined) ? std::numeric_limits<double>::infinity() : kStandardErrors;
  a.gold = "the CPU gold solver";
  a.values = {{"gold_price", gold.price},
              {"gold_standard_error", gold.standard_error},
              {"difference", difference}};
  char text[160];
  std::snprintf(text, sizeof text, "gold %.6f +- %.2g, difference %.3g (%.2f standard errors)",
                gold.price, gold.standard_error, difference, a.value);
  a.description = text;
  return a;
}

// Longstaff-Schwartz is biased both ways by its regression: the out-of-sample price low (a
// policy no better than optimal), the in-sample price high (the policy saw its own paths). With a
// cubic or quartic in B/K on 10^4 paths or more the bias on a one-asset put is a few tenths of a
// percent of the price (Longstaff and Schwartz 2001, table 1); 1% of the exact price bounds it
// with room, and a wrong exercise rule misses by several percent.
inline constexpr double kLsmBiasAllowance = 0.01;

// An estimate against an exact value that may lie up to `allowance` away from the estimator's
// mean (a bias, not an error): the part of the difference past the allowance, in the estimate's
// standard errors, judged by kStandardErrors. `gold`: what the exact value is.
inline Agreement agreement_with_exact(const Estimate& result, double exact, double allowance,
                                      const std::string& gold) {
  const double difference = result.price - exact;
  const double past = std::max(0.0, std::abs(difference) - allowance);
  Agreement a;
  a.measure = "difference_in_standard_errors";
  a.value = past == 0 ? 0.0 : past / result.standard_error;
  a.tolerance = std::isnan(result.standard_error) ? std::numeric_limits<double>::infinity()
                                                  : kStandardErrors;
  a.gold = gold;
  a.values = {{"gold_price", exact}, {"bias_allowance", allowance}, {"difference", difference}};
  char text[200];
  std::snprintf(text, sizeof text,
                "exact %.6f, difference %.3g (%.2f standard errors past an allowance of %.2g)",
                exact, difference, a.value, allowance);
  a.description = text;
  return a;
}

}  // namespace parasol::montecarlo
