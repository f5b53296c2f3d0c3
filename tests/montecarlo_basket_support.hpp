// Random baskets for the basket model's tests: seeded, so a failure can be reproduced.
#pragma once

#include <cmath>
#include <cstdint>
#include <ostream>
#include <random>
#include <vector>

#include "solvers/montecarlo/basket.hpp"

namespace parasol::montecarlo {
// A payoff by its name in test names and failure messages ("geometric-basket").
inline void PrintTo(BasketPayoff p, std::ostream* os) { *os << name(p); }
}  // namespace parasol::montecarlo

namespace parasol::test {

using montecarlo::BasketParams;

// A random correlation matrix: A A^T + I/2 for a Gaussian A, scaled to a unit diagonal. Its
// smallest eigenvalue is bounded away from zero, and its entries spread over (-1, 1).
inline std::vector<double> random_correlation(int d, std::uint64_t seed) {
  std::mt19937_64 gen(seed);
  std::normal_distribution<double> normal(0.0, 1.0);
  std::vector<double> a(d * d), c(d * d);
  for (double& x : a) x = normal(gen) / std::sqrt(static_cast<double>(d));
  for (int i = 0; i < d; ++i)
    for (int j = 0; j < d; ++j) {
      double s = i == j ? 0.5 : 0.0;
      for (int k = 0; k < d; ++k) s += a[i * d + k] * a[j * d + k];
      c[i * d + j] = s;
    }
  std::vector<double> r(d * d);
  for (int i = 0; i < d; ++i)
    for (int j = 0; j < d; ++j) r[i * d + j] = c[i * d + j] / std::sqrt(c[i * d + i] * c[j * d + j]);
  for (int i = 0; i < d; ++i) r[i * d + i] = 1.0;
  return r;
}

// d assets: spots in (80, 120), vols in (0.1, 0.4), yields in (0, 0.03), weights near 1/d summing to 1,
// strike 100, r 0.03, one year.
inline BasketParams random_basket(int d, std::uint64_t seed) {
  std::mt19937_64 gen(seed);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  BasketParams p;
  p.spots.clear();
  p.vols.clear();
  p.dividends.clear();
  p.weights.clear();
  for (int i = 0; i < d; ++i) {
    p.spots.push_back(80 + 40 * u(gen));
    p.vols.push_back(0.1 + 0.3 * u(gen));
    p.dividends.push_back(0.03 * u(gen));
    p.weights.push_back((0.5 + u(gen)) / d);
  }
  // Weights summing to 1, so the basket (and the geometric basket) is near the strike.
  double total = 0;
  for (double w : p.weights) total += w;
  for (double& w : p.weights) w /= total;
  p.correlation = random_correlation(d, seed + 1);
  p.strike = 100;
  p.rate = 0.03;
  p.seed = seed;
  return p;
}

}  // namespace parasol::test
