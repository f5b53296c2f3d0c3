#include "solvers/montecarlo/params.hpp"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdio>
#include <string>
#include <utility>

#include "kernels/error.hpp"
#include "kernels/validate.hpp"
#include "kernels/name_table.hpp"
#include "solvers/montecarlo/montecarlo.hpp"

namespace parasol::montecarlo {
namespace {

constexpr NameTable<Variant, 2> kVariantNames{
    {{Variant::host_rng, "host-rng"}, {Variant::device_rng, "device-rng"}}};
constexpr NameTable<Step, 2> kStepNames{{{Step::euler, "euler"}, {Step::exact, "exact"}}};
constexpr NameTable<Payoff, 4> kPayoffNames{{{Payoff::digital, "digital"},
                                             {Payoff::european_call, "european-call"},
                                             {Payoff::european_put, "european-put"},
                                             {Payoff::asian_call, "asian-call"}}};
constexpr NameTable<Generator, 3> kGeneratorNames{{{Generator::xorwow, "xorwow"},
                                                   {Generator::philox, "philox"},
                                                   {Generator::mrg32k3a, "mrg32k3a"}}};
constexpr NameTable<Ordering, 2> kOrderingNames{
    {{Ordering::legacy, "default"}, {Ordering::dynamic, "dynamic"}}};

}  // namespace

std::string_view name(ModelKind m) { return m == ModelKind::basket ? "basket" : "two-asset"; }
ModelKind parse_model_kind(std::string_view s) {
  if (s == "two-asset") return ModelKind::two_asset;
  if (s == "basket") return ModelKind::basket;
  throw InputError("", "model.kind",
                   "expected \"two-asset\" (the course model) or \"basket\", got \"" +
                       std::string(s) + "\"");
}

std::string_view name(Variant v) { return lookup_name(kVariantNames, v); }
Variant parse_variant(std::string_view s) { return lookup_value(kVariantNames, s, "variant"); }
std::string_view name(Step s) { return lookup_name(kStepNames, s); }
Step parse_step(std::string_view s) { return lookup_value(kStepNames, s, "step"); }
std::string_view name(Payoff p) { return lookup_name(kPayoffNames, p); }
Payoff parse_payoff(std::string_view s) { return lookup_value(kPayoffNames, s, "payoff"); }
std::string_view name(Generator g) { return lookup_name(kGeneratorNames, g); }
Generator parse_generator(std::string_view s) {
  return lookup_value(kGeneratorNames, s, "generator");
}
std::string_view name(Ordering o) { return lookup_name(kOrderingNames, o); }
Ordering parse_ordering(std::string_view s) { return lookup_value(kOrderingNames, s, "ordering"); }

void Params::validate() const {
  require(paths >= 1, "paths.count", "expected a positive integer, got " + std::to_string(paths));
  require(!antithetic || paths % 2 == 0, "paths.count",
          "expected an even number with method.antithetic (paths come in pairs), got " +
              std::to_string(paths));
  // The path kernels count steps in an int.
  require(steps >= 1 && steps <= INT_MAX, "paths.steps",
          "expected a positive integer up to " + std::to_string(INT_MAX) + ", got " +
              std::to_string(steps));
  require(std::isfinite(maturity) && maturity > 0, "model.maturity",
          "expected a positive number of years, got " + shown(maturity));
  require(std::isfinite(rate), "model.rate", "expected a finite number, got " + shown(rate));
  require(std::isfinite(sigma) && sigma > 0, "model.sigma",
          "expected a positive volatility, got " + shown(sigma));
  require(rho >= -1 && rho <= 1, "model.rho",
          "expected a correlation in [-1, 1], got " + shown(rho));
  require(std::isfinite(spot) && spot > 0, "model.spot",
          "expected a positive price, got " + shown(spot));
  require(std::isfinite(strike) && strike > 0, "payoff.strike",
          "expected a positive price, got " + shown(strike));
  // Paths are simulated in float: a price may grow by exp(sigma sqrt(T) Z + |r| T) along one,
  // and eight standard deviations of Z bound every draw a run will see.
  const double growth =
      std::min(1e30, std::exp(8.0 * sigma * std::sqrt(maturity) + std::abs(rate) * maturity));
  require_representable(spot, "model.spot", true, growth);
  require_representable(strike, "payoff.strike", true, growth);
  if (std::find(kBlockSizes.begin(), kBlockSizes.end(), block) == kBlockSizes.end())
    throw InputError("", "method.block",
                     not_compiled("threads per block", block, "",
                                  {kBlockSizes.begin(), kBlockSizes.end()}));
  require(batch_paths >= 1, "method.batch_paths",
          "expected a positive integer, got " + std::to_string(batch_paths));
  require(!antithetic || batch_paths % 2 == 0, "method.batch_paths",
          "expected an even number with method.antithetic (paths come in pairs), got " +
              std::to_string(batch_paths));
  // One stored path per sample (the first of each antithetic pair), so at most one per sample;
  // the cap keeps the stored array to a plot's worth.
  const std::int64_t samples = antithetic ? paths / 2 : paths;
  const std::int64_t most = std::min<std::int64_t>(samples, 10000);
  require(sample_paths >= 0 && sample_paths <= most, "output.sample_paths",
          "expected an integer from 0 to " + std::to_string(most) +
              (antithetic ? " (paths.count / 2 with method.antithetic, at most 10000)"
                          : " (paths.count, at most 10000)") +
              ", got " + std::to_string(sample_paths));
}

double price_unit(const Params& p) { return std::max(p.spot, p.strike); }

Samples samples_of(const Params& p, int rank, int ranks, bool whole_batches) {
  const std::int64_t copies = p.antithetic ? 2 : 1;
  const std::int64_t samples = p.paths / copies;
  const std::int64_t batch =
      whole_batches ? std::max<std::int64_t>(1, std::min(samples, p.batch_paths / copies)) : 1;
  const std::int64_t batches = (samples + batch - 1) / batch;
  const std::int64_t each = batches / ranks, more = batches % ranks;
  const std::int64_t first_batch = rank * each + std::min<std::int64_t>(rank, more);
  const std::int64_t own = each + (rank < more ? 1 : 0);
  const std::int64_t first = std::min(samples, first_batch * batch);
  return {first, std::min(samples, (first_batch + own) * batch) - first};
}

namespace {
long double to_long_double(Uint128 x) {
  constexpr long double kTwo64 = 18446744073709551616.0L;
  const auto hi = static_cast<std::uint64_t>(x >> 64);
  const auto lo = static_cast<std::uint64_t>(x);
  return static_cast<long double>(hi) * kTwo64 + static_cast<long double>(lo);
}
}  // namespace

Estimate estimate_from(const PayoffSums& sums, double unit) {
  Estimate e;
  e.samples = sums.count;
  if (sums.count < 1) {
    e.price = NAN;
    e.standard_error = NAN;
    return e;
  }
  // In quanta (2^-32 units) first, in long double: the sum of squares reaches ~2^90 for ten
  // million samples, and its difference from n mean^2 must keep the variance's digits.
  const long double n = static_cast<long double>(sums.count);
  const long double sum = to_long_double(sums.sum);
  const long double sum_sq = to_long_double(sums.sum_sq);
  const long double scale = static_cast<long double>(kPayoffScale);
  const long double mean = sum / n;
  e.price = static_cast<double>(mean / scale * static_cast<long double>(unit));
  if (sums.count < 2) {
    e.standard_error = NAN;  // one sample says nothing about the spread
    return e;
  }
  const long double variance = std::max((sum_sq - sum * mean) / (n - 1), 0.0L);
  e.standard_error =
      static_cast<double>(std::sqrt(variance / n) / scale * static_cast<long double>(unit));
  return e;
}

double black_scholes(const Params& p) {
  if (p.payoff != Payoff::european_call && p.payoff != Payoff::european_put)
    throw Error("montecarlo: black_scholes prices european-call and european-put only, not " +
                std::string(name(p.payoff)));
  const double s = p.spot, k = p.strike, r = p.rate, t = p.maturity;
  const double root_t = std::sqrt(t);
  const double d1 = (std::log(s / k) + (r + 0.5 * p.sigma * p.sigma) * t) / (p.sigma * root_t);
  const double d2 = d1 - p.sigma * root_t;
  // The standard normal CDF by erfc, accurate in both tails.
  const auto cdf = [](double x) { return 0.5 * std::erfc(-x / std::sqrt(2.0)); };
  const double discounted_k = k * std::exp(-r * t);
  return p.payoff == Payoff::european_call ? s * cdf(d1) - discounted_k * cdf(d2)
                                           : discounted_k * cdf(-d2) - s * cdf(-d1);
}

}  // namespace parasol::montecarlo
