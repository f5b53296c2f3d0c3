// The CPU gold solver. Every GPU variant is judged by it, so it is one obvious loop, in double,
// and it is itself tested against closed forms (tests/montecarlo_gold_test.cpp).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <vector>

#include "kernels/cpu_threads.hpp"
#include "solvers/montecarlo/counter_normals.hpp"
#include "solvers/montecarlo/montecarlo.hpp"

namespace parasol::montecarlo {
namespace {

// One path of both assets, at prices (not log-prices) in either step.
struct Path {
  double s1, s2;
  double sum_s1 = 0;  // S1 at t_1 .. t_N, for the Asian average
};

double discounted_payoff(const Params& p, const Path& path) {
  const double discount = std::exp(-p.rate * p.maturity);
  switch (p.payoff) {
    case Payoff::digital: {
      const double band = 0.1 * p.spot;
      const bool inside = std::abs(path.s1 - p.spot) < band && std::abs(path.s2 - p.spot) < band;
      return inside ? discount : 0.0;
    }
    case Payoff::european_call: return discount * std::max(path.s1 - p.strike, 0.0);
    case Payoff::european_put: return discount * std::max(p.strike - path.s1, 0.0);
    case Payoff::asian_call: {
      const double average = path.sum_s1 / static_cast<double>(p.steps);
      return discount * std::max(average - p.strike, 0.0);
    }
  }
  return 0.0;
}

// Samples a thread simulates at a time: a few hundredths of a second of 100-step paths.
constexpr std::int64_t kChunkSamples = 1 << 14;

// The two standard normals (y1, z) of step `n` of sample `s`: Box-Muller on two counter-based
// uniforms, so a sample's path is the same whichever samples are simulated beside it (a rank's
// part, or all). Its own generator: the GPU's Philox streams are independent of it, so the gold
// is an independent estimate.
struct Normals {
  double y1, z;
};
Normals normals_at(std::uint64_t key, std::int64_t s, std::int64_t n, std::int64_t steps) {
  constexpr double kTwoPi = 6.283185307179586476925286766559;
  const auto counter = 2 * static_cast<std::uint64_t>(s * steps + n);
  const double radius = std::sqrt(-2.0 * std::log(open_unit_at(key, counter)));
  const double angle = kTwoPi * open_unit_at(key, counter + 1);
  return {radius * std::cos(angle), radius * std::sin(angle)};
}

// A payoff in quanta of 2^-32 units, rounded to nearest (ties to even, as the device's
// __double2ull_rn): payoffs are non-negative.
std::uint64_t quanta(double payoff, double to_quanta) {
  return static_cast<std::uint64_t>(std::nearbyint(payoff * to_quanta));
}

}  // namespace

Result solve_gold(const Params& p, const ProgressCallback& progress, Samples part) {
  const auto start = std::chrono::steady_clock::now();
  const double dt = p.maturity / static_cast<double>(p.steps);
  const double vol = p.sigma * std::sqrt(dt);
  const double euler_drift = p.rate * dt;
  const double log_drift = (p.rate - 0.5 * p.sigma * p.sigma) * dt;
  const double alpha = std::sqrt(1.0 - p.rho * p.rho);  // y2 = rho y1 + alpha z
  const double to_quanta = kPayoffScale / price_unit(p);
  const int copies = p.antithetic ? 2 : 1;
  const std::int64_t samples = p.paths / copies;
  const std::int64_t first = part.first;
  const std::int64_t last = part.count < 0 ? samples : std::min(samples, first + part.count);
  const std::size_t times = static_cast<std::size_t>(p.steps) + 1;
  // The seed's own mix, so nearby seeds draw unrelated streams.
  const std::uint64_t key = mix64(p.seed + kGolden);

  Result result;
  result.sample.resize(static_cast<std::size_t>(p.sample_paths) * times * 2);
  PayoffSums& sums = result.sums;
  sums.count = std::max<std::int64_t>(0, last - first);

  // A sample is one path, or an antithetic pair: copy 0 driven by (y1, z), copy 1 by (-y1, -z).
  // The stored sample paths are copy 0 of the first sample_paths samples, [path][time][asset],
  // at their places in the whole run whichever part this is. Returns the sample's payoff in
  // quanta.
  const auto simulate = [&](std::int64_t s) {
    Path path[2] = {{p.spot, p.spot}, {p.spot, p.spot}};
    float* record = s < p.sample_paths ? &result.sample[static_cast<std::size_t>(s) * times * 2]
                                       : nullptr;
    if (record != nullptr) {
      record[0] = static_cast<float>(path[0].s1);
      record[1] = static_cast<float>(path[0].s2);
    }
    for (std::int64_t n = 0; n < p.steps; ++n) {
      const auto [y1, z] = normals_at(key, s, n, p.steps);
      const double y2 = p.rho * y1 + alpha * z;
      for (int c = 0; c < copies; ++c) {
        const double sign = c == 0 ? 1.0 : -1.0;
        Path& x = path[c];
        if (p.step == Step::euler) {
          x.s1 *= 1.0 + euler_drift + vol * sign * y1;
          x.s2 *= 1.0 + euler_drift + vol * sign * y2;
        } else {
          x.s1 *= std::exp(log_drift + vol * sign * y1);
          x.s2 *= std::exp(log_drift + vol * sign * y2);
        }
        x.sum_s1 += x.s1;
      }
      if (record != nullptr) {
        record[2 * (n + 1)] = static_cast<float>(path[0].s1);
        record[2 * (n + 1) + 1] = static_cast<float>(path[0].s2);
      }
    }
    double payoff = discounted_payoff(p, path[0]);
    if (p.antithetic) payoff = 0.5 * (payoff + discounted_payoff(p, path[1]));
    return quanta(payoff, to_quanta);
  };

  // Chunks of samples on every core. The sums are integers, so they come out the same whatever
  // the thread count and the order the chunks finish in.
  const std::int64_t count = sums.count;
  std::vector<PayoffSums> chunk_sums(static_cast<std::size_t>((count + kChunkSamples - 1) / kChunkSamples));
  for_chunks(
      count, kChunkSamples,
      [&](std::int64_t begin, std::int64_t end) {
        PayoffSums& cs = chunk_sums[static_cast<std::size_t>(begin / kChunkSamples)];
        for (std::int64_t s = first + begin; s < first + end; ++s) {
          const std::uint64_t q = simulate(s);
          cs.sum += q;
          cs.sum_sq += static_cast<Uint128>(q) * q;
        }
      },
      [&](std::int64_t finished) {
        if (!progress || finished == count) return;
        const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start;
        progress({copies * finished, copies * count, elapsed.count()});
      });
  for (const PayoffSums& cs : chunk_sums) {
    sums.sum += cs.sum;
    sums.sum_sq += cs.sum_sq;
  }
  result.estimate = estimate_from(sums, price_unit(p));

  const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start;
  if (progress) progress({copies * sums.count, copies * sums.count, elapsed.count()});
  // The normals are drawn inside the path loop: there is no separate generation phase.
  result.timings.add(kGeneratePhase, 0);
  result.timings.add(kPathsPhase, elapsed.count());
  result.seconds = elapsed.count();
  return result;
}

double gold_host_bytes(std::int64_t samples) {
  return std::ceil(static_cast<double>(samples) / static_cast<double>(kChunkSamples)) *
         static_cast<double>(sizeof(PayoffSums));
}

}  // namespace parasol::montecarlo
