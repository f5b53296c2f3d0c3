// Closed forms the basket model is checked against.
#pragma once

#include <cmath>

namespace parasol::montecarlo {

// The standard normal CDF by erfc, accurate in both tails.
inline double normal_cdf(double x) { return 0.5 * std::erfc(-x / std::sqrt(2.0)); }

// A call on G = prod S_i(T)^w_i, log G normal with mean `mean` and variance `variance` (the sum
// of the weighted log-prices' drifts and covariances), discounted at `discount`:
// E[(G - K)^+] = exp(mean + variance/2) N(d1) - K N(d2), d2 = (mean - log K) / sqrt(variance).
inline double lognormal_call(double mean, double variance, double strike, double discount) {
  const double root = std::sqrt(variance);
  const double d2 = (mean - std::log(strike)) / root;
  return discount * (std::exp(mean + 0.5 * variance) * normal_cdf(d2 + root) -
                     strike * normal_cdf(d2));
}

}  // namespace parasol::montecarlo
