// What a montecarlo run says (summary.hpp).
#include "solvers/montecarlo/summary.hpp"

#include <algorithm>
#include <memory>

#include "io/input_file.hpp"
#include "kernels/agreement.hpp"
#include "kernels/error.hpp"
#include "kernels/finite.hpp"
#include "kernels/printable.hpp"
#include "solvers/montecarlo/check.hpp"
#include "solvers/montecarlo/keys.hpp"
#include "solvers/montecarlo/run.hpp"

namespace parasol::montecarlo {

std::string describe_model(const Params& p) {
  return std::to_string(p.paths) + " paths x " + std::to_string(p.steps) + " steps, " +
         std::string(name(p.payoff)) + ", " + std::string(name(p.step)) + " step" +
         (p.antithetic ? ", antithetic" : "");
}

std::string describe_model(const BasketParams& p) {
  return std::to_string(p.paths) + " paths x " + std::to_string(p.steps) + " steps, " +
         std::to_string(p.assets()) + (p.assets() == 1 ? " asset, " : " assets, ") +
         std::string(name(p.payoff));
}

std::string problem_class(const Params& p) {
  return "paths=" + std::to_string(p.paths) + ",steps=" + std::to_string(p.steps) + "," +
         std::string(name(p.payoff)) + "," + std::string(name(p.step)) +
         (p.antithetic ? ",antithetic" : "");
}

std::string problem_class(const BasketParams& p) {
  return "paths=" + std::to_string(p.paths) + ",steps=" + std::to_string(p.steps) +
         ",assets=" + std::to_string(p.assets()) + "," + std::string(name(p.payoff));
}

std::string run_method(const Params& p) { return describe_method(p, true); }

std::string run_method(const BasketParams& p) {
  if (early_exercise(p.payoff)) return "Longstaff-Schwartz";
  return std::string(name(p.resolved_variant()));
}

std::vector<MemoryNeed> device_needs(const Params& p) {
  std::vector<MemoryNeed> needs{{"output.sample_paths", "output.sample_paths",
                                 "the sample paths need", sample_path_bytes(p), true, ""}};
  if (p.variant == Variant::host_rng) {
    const double batch = static_cast<double>(std::min(p.batch_paths, p.paths));
    needs.push_back({"method.batch_paths", "method.batch_paths",
                     "host-rng's normals for a batch of " + short_number(batch) + " paths need",
                     host_rng_bytes(p), true, ": lower method.batch_paths"});
  }
  return needs;
}

std::vector<MemoryNeed> run_needs(const Params& p, bool gpu, bool check, std::int64_t samples) {
  std::vector<MemoryNeed> needs;
  if (gpu) needs = device_needs(p);
  // The stored paths, twice when a GPU run is checked against the gold.
  needs.push_back({"output.sample_paths", "output.sample_paths", "the sample paths need",
                   (gpu && check ? 2 : 1) * sample_path_bytes(p), false, ""});
  // The gold's sums, one a chunk of this rank's samples: run on the CPU, or as --check's gold.
  if (!gpu || check)
    needs.push_back({"paths.count", "paths.count",
                     "the CPU solver's sums over " + std::to_string(samples) + " samples need",
                     gold_host_bytes(samples), false, ""});
  return needs;
}

std::vector<MemoryNeed> basket_needs(const BasketParams& p, bool gpu) {
  if (!gpu || !early_exercise(p.payoff)) return {};
  return {{"paths.count", "paths.count",
           "the fitting paths at " + std::to_string(p.exercise_schedule().size()) +
               " exercise dates need",
           lsm_device_bytes(p), true, ": lower paths.count"}};
}

void refuse_checkpoints(const Params& p, bool gpu) {
  if (gpu && p.variant == Variant::host_rng)
    throw InputError("", "method.variant",
                     "checkpoints need \"device-rng\": host-rng's cuRAND stream does not resume "
                     "to the same numbers after a restart");
}

void refuse_basket_run(const BasketParams& p, bool gpu, int ranks, bool restart) {
  if (restart)
    throw InputError("command line", "--restart",
                     "a basket run writes no checkpoints; only the two-asset model's batches do");
  if (ranks > 1)
    throw InputError("", "model.kind", "a basket runs on one rank; start it without a launcher");
  if (gpu && early_exercise(p.payoff) && p.assets() > kRegistersUpTo)
    throw InputError("", "model.spots",
                     "Longstaff-Schwartz on the GPU takes up to " + std::to_string(kRegistersUpTo) +
                         " assets");
}

std::vector<double> read_correlation_file(const std::string& text, int d) {
  const char* key = "model.correlation_file";
  const std::size_t colon = text.rfind(':');
  if (colon == std::string::npos || colon + 1 == text.size() || colon == 0)
    throw InputError("", key, "expected \"file.h5:/dataset\", got \"" + text + "\"");
  const std::string file = text.substr(0, colon), dataset = text.substr(colon + 1);
  const std::unique_ptr<io::ResultReader> in = io::open_input_file(file, key);
  const auto data = io::naming_key(key, [&] { return in->read_dataset<double>(dataset, {2}); });
  const auto side = static_cast<std::uint64_t>(d);
  const std::vector<std::uint64_t> want{side, side};
  if (data.dims != want)
    throw InputError("", key,
                     "expected a " + std::to_string(d) + " x " + std::to_string(d) +
                         " dataset (one row and column per asset), got " +
                         io::shape_text(data.dims) + " in " + text);
  cholesky(data.values, d, key);
  return data.values;
}

void read_correlation(BasketParams& b) {
  if (!b.correlation_file.empty())
    b.correlation = read_correlation_file(b.correlation_file, b.assets());
}

void refuse_both_correlations(bool matrix, bool file) {
  if (matrix && file)
    throw InputError("", "model.correlation_file",
                     "give model.correlation or model.correlation_file, not both");
}

std::vector<Attribute> estimate_attributes(const Estimate& e) {
  return {{"price", e.price},
          {"standard_error", e.standard_error},
          {"ci95_low", e.ci_low()},
          {"ci95_high", e.ci_high()},
          {"samples", e.samples}};
}

std::vector<Attribute> rate_attributes(double seconds, double path_steps) {
  return {{"total_s", seconds}, {"path_steps_per_s", path_steps / seconds}};
}

std::vector<Attribute> basket_estimate_attributes(const BasketParams& p, const BasketResult& r) {
  if (!early_exercise(p.payoff)) return {};
  return {{"in_sample_price", r.in_sample.price},
          {"in_sample_standard_error", r.in_sample.standard_error},
          {"method", std::string("Longstaff-Schwartz: price out of sample (low-biased), "
                                 "in_sample_price on the fitting paths (high-biased)")}};
}

std::vector<Attribute> greeks_attributes(const BasketParams& p, const BasketResult& r) {
  if (r.delta.empty()) return {};
  std::vector<double> delta, delta_error;
  for (const Estimate& d : r.delta) {
    delta.push_back(d.price);
    delta_error.push_back(d.standard_error);
  }
  std::vector<Attribute> list{
      {"delta", delta},
      {"delta_standard_error", delta_error},
      {"delta_method", std::string(p.payoff == BasketPayoff::digital_basket_call
                                       ? "likelihood ratio"
                                       : "pathwise")}};
  if (r.vega.samples > 0) {
    list.push_back({"vega", r.vega.price});
    list.push_back({"vega_standard_error", r.vega.standard_error});
  }
  return list;
}

std::vector<Attribute> sample_attributes(const Params& p) {
  return {{"layout", std::string("[path][time][asset], asset fastest; time n is t = n * dt")},
          {"dt", p.maturity / static_cast<double>(p.steps)}};
}

Report report(const Params& p, const Result& r) {
  const double seconds = r.seconds, work = path_steps(p);
  return {{{"/estimate", estimate_attributes(r.estimate)},
           {"/timings", rate_attributes(seconds, work)}},
          {price_line(r.estimate), rate_line(seconds, work)}};
}

Report report(const BasketParams& p, const BasketResult& r) {
  const double seconds = r.seconds, work = path_steps(p);
  std::vector<Attribute> estimate = estimate_attributes(r.price);
  for (Attribute& a : basket_estimate_attributes(p, r)) estimate.push_back(std::move(a));
  Report report{{{"/estimate", std::move(estimate)},
                 {"/timings", rate_attributes(seconds, work)},
                 {"/greeks", greeks_attributes(p, r)}},
                {price_line(r.price)}};
  for (std::string& line : basket_lines(p, r)) report.lines.push_back(std::move(line));
  report.lines.push_back(rate_line(seconds, work));
  return report;
}

std::vector<Attribute> sweep_attributes(const Params& p, const SweepGold& gold) {
  return {{"path_steps", path_steps(p)},
          {"gold_paths", gold.paths},
          {"gold_price", gold.estimate.price},
          {"gold_standard_error", gold.estimate.standard_error},
          {"check_tolerance", kStandardErrors}};
}

std::vector<Attribute> sweep_attributes(const BasketParams& p, const SweepGold&) {
  return {{"path_steps", path_steps(p)},
          {"assets", std::int64_t{p.assets()}},
          {"check_tolerance", kStandardErrors}};
}

std::string describe_sweep(const Params& p, const std::string& device, const SweepGold& gold) {
  return describe_model(p) + " on " + device +
         formatted("; gold %.6f +- %.2g on %lld paths", gold.estimate.price,
                   gold.estimate.standard_error, static_cast<long long>(gold.paths));
}

std::string describe_sweep(const BasketParams& p, const std::string& device, const SweepGold&) {
  return describe_model(p) + " on " + device;
}

std::string price_line(const Estimate& e) {
  return formatted("price %.6f +- %.2g (standard error), 95%% CI [%.6f, %.6f], %lld samples",
                   e.price, e.standard_error, e.ci_low(), e.ci_high(),
                   static_cast<long long>(e.samples));
}

std::string rate_line(double seconds, double path_steps) {
  return formatted("%.3f s, %.3f Gpath-steps/s", seconds, 1e-9 * (path_steps / seconds));
}

std::vector<std::string> basket_lines(const BasketParams& p, const BasketResult& r) {
  std::vector<std::string> lines;
  if (early_exercise(p.payoff))
    lines.push_back(formatted("in-sample %.6f +- %.2g (policy fitted on these paths)",
                              r.in_sample.price, r.in_sample.standard_error));
  if (!r.delta.empty()) {
    std::string text =
        formatted("delta[0] %.6f +- %.2g", r.delta[0].price, r.delta[0].standard_error);
    if (r.vega.samples > 0)
      text += formatted(", vega %.6f +- %.2g", r.vega.price, r.vega.standard_error);
    lines.push_back(text);
  }
  return lines;
}

namespace {
void require_finite_estimate(const std::string& what, const Estimate& e) {
  require_finite("montecarlo: the " + what, e.price);
  require_finite("montecarlo: the " + what + "'s standard error", e.standard_error);
}
}  // namespace

void require_finite_estimates(const Result& r) { require_finite_estimate("price", r.estimate); }

void require_finite_estimates(const BasketResult& r) {
  require_finite_estimate("price", r.price);
  if (r.in_sample.samples > 0) require_finite_estimate("in-sample price", r.in_sample);
  if (r.vega.samples > 0) require_finite_estimate("vega", r.vega);
  for (std::size_t i = 0; i < r.delta.size(); ++i)
    require_finite_estimate("delta[" + std::to_string(i) + "]", r.delta[i]);
}

}  // namespace parasol::montecarlo
