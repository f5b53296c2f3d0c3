// montecarlo: prices a payoff on two correlated geometric Brownian motions by path simulation,
// with its standard error. Host-only API: compiles without nvcc.
#pragma once

#include <cstdint>
#include <vector>

#include "solvers/montecarlo/params.hpp"

namespace parasol::montecarlo {

// An estimate of a discounted expected payoff.
struct Estimate {
  double price = 0;           // sample mean of the discounted payoff
  double standard_error = 0;  // sample standard deviation / sqrt(samples)
  std::int64_t samples = 0;   // independent samples: paths, or path pairs when antithetic
  double ci_low() const { return price - 1.959963984540054 * standard_error; }
  double ci_high() const { return price + 1.959963984540054 * standard_error; }
};

struct Timings {
  double generate = 0;  // host-rng: cuRAND filling device memory with normals
  double paths = 0;     // path kernels with their in-kernel sums, and the partial sums to the host
  double total = 0;     // everything from first launch to the estimate on the host
};

struct Result {
  Estimate estimate;
  Timings timings;
  // sample_paths x (steps + 1) x 2: both assets at every time, path-major.
  std::vector<float> sample;
};

// The CPU gold solver: std::mt19937_64 normals, double arithmetic, the same model and payoff.
// Agreement with the GPU is statistical (a few standard errors), not bitwise.
Result solve_gold(const Params& p);

// The GPU solver: p.variant. Payoffs are summed on the device; only per-block partial sums
// come back, and memory is bounded by p.batch_paths whatever the path count.
Result solve_gpu(const Params& p);

// Black-Scholes price of a European call or put on one asset (the exact-step limit).
double black_scholes(const Params& p);

// Accumulated payoff sums. Payoffs are non-negative; each is rounded to a multiple of 2^-32 of
// the price unit (spot or strike, whichever is larger) and summed as integers, so the total does
// not depend on the order of summation: the same paths give the same bits whatever the block
// shape, thread count or batch size.
__extension__ typedef unsigned __int128 Uint128;  // GCC, Clang and nvcc all have it
struct PayoffSums {
  Uint128 sum = 0;      // sum of q, q = round(payoff / unit * 2^32)
  Uint128 sum_sq = 0;   // sum of q^2 (no overflow below ~2^40 samples of payoffs < 256 units)
  std::int64_t count = 0;
};
Estimate estimate_from(const PayoffSums& sums, double unit);
double price_unit(const Params& p);  // the unit payoffs are counted in
inline constexpr double kPayoffScale = 4294967296.0;  // 2^32

}  // namespace parasol::montecarlo
