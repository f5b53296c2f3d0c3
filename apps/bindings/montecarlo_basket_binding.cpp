#include "apps/bindings/montecarlo_basket_binding.hpp"

#include <limits>
#include <optional>

#include "apps/fits.hpp"
#include "io/input_file.hpp"
#include "io/read_keys.hpp"
#include "kernels/device.hpp"
#include "solvers/montecarlo/check.hpp"
#include "solvers/montecarlo/run.hpp"
#include "kernels/finite.hpp"

namespace parasol::app {
namespace {

using montecarlo::BasketParams;
using montecarlo::BasketPayoff;
using montecarlo::BasketResult;
using montecarlo::BasketVariant;
using montecarlo::path_steps;

using montecarlo::SweepParams;

// "file.h5:/dataset" (model.correlation_file, its file already resolved against the parameter
// file's folder): a d x d dataset of numbers, checked here so its errors name this key.
std::vector<double> read_correlation_file(const io::ParamTable& t, const std::string& text, int d) {
  const char* key = "model.correlation_file";
  const std::size_t colon = text.rfind(':');
  if (colon == std::string::npos || colon + 1 == text.size() || colon == 0)
    throw InputError(t.source_of(key), key,
                     "expected \"file.h5:/dataset\", got \"" + text + "\"");
  const std::string file = text.substr(0, colon), dataset = text.substr(colon + 1);
  const std::unique_ptr<io::ResultReader> in = io::open_input_file(file, key);
  const auto data = io::naming_key(key, [&] { return in->read_dataset<double>(dataset, {2}); });
  const std::vector<std::uint64_t> want{static_cast<std::uint64_t>(d), static_cast<std::uint64_t>(d)};
  if (data.dims != want)
    throw InputError(t.source_of(key), key,
                     "expected a " + std::to_string(d) + " x " + std::to_string(d) +
                         " dataset (one row and column per asset), got " +
                         io::shape_text(data.dims) + " in " + text);
  io::with_sources(t, [&] { montecarlo::cholesky(data.values, d, key); });
  return data.values;
}

// The basket's keys; the course model's, which it does not read, refused where the file sets them.
BasketParams read_basket_params(io::ParamTable& t, const std::filesystem::path& params) {
  if (t.has("model.correlation_file") && t.has("model.correlation"))
    throw InputError(t.source_of("model.correlation_file"), "model.correlation_file",
                     "give model.correlation or model.correlation_file, not both");
  BasketParams p = io::read_keys(t, montecarlo::basket_keys(), params);
  io::refuse_unread(t, montecarlo::keys());
  if (!p.correlation_file.empty())
    p.correlation = read_correlation_file(t, p.correlation_file, p.assets());
  return p;
}

std::string describe_model(const BasketParams& p) {
  return std::to_string(p.paths) + " paths x " + std::to_string(p.steps) + " steps, " +
         std::to_string(p.assets()) + (p.assets() == 1 ? " asset, " : " assets, ") +
         std::string(name(p.payoff));
}

class BasketRun final : public SolverRun<BasketParams> {
 public:
  using SolverRun::SolverRun;

  void prepare(const RunSetup& setup) override {
    take(setup);
    if (!setup.options.restart.empty())
      throw InputError("command line", "--restart",
                       "a basket run writes no checkpoints; only the two-asset model's batches do");
    if (ranks() > 1)
      throw InputError(t_.source_of("model.kind"), "model.kind",
                       "a basket runs on one rank; start it without a launcher");
    if (gpu_ && montecarlo::early_exercise(p_.payoff) && p_.assets() > montecarlo::kRegistersUpTo)
      throw InputError(t_.source_of("model.spots"), "model.spots",
                       "Longstaff-Schwartz on the GPU takes up to " +
                           std::to_string(montecarlo::kRegistersUpTo) + " assets");
    // Longstaff-Schwartz keeps every fitting path's basket value at every exercise date.
    if (gpu_ && montecarlo::early_exercise(p_.payoff))
      require_device_memory(t_.source_of("paths.count"), "paths.count",
                            "the fitting paths at " +
                                std::to_string(p_.exercise_schedule().size()) +
                                " exercise dates need",
                            montecarlo::lsm_device_bytes(p_), ": lower paths.count");
  }

  std::string describe() const override {
    if (!gpu_) return describe_model(p_) + "; CPU gold solver";
    return describe_model(p_) + "; " +
           (montecarlo::early_exercise(p_.payoff) ? std::string("Longstaff-Schwartz")
                                                  : std::string(name(p_.resolved_variant()))) +
           " on " + current_device().name;
  }

  void solve(PhaseTimer& timings, io::ResultFile*) override {
    result_ = gpu_ ? montecarlo::solve_basket_gpu(p_, Stream()) : montecarlo::solve_basket_gold(p_);
    timings.add("simulate", result_.timings.simulate);
    if (montecarlo::early_exercise(p_.payoff)) {
      timings.add("regress", result_.timings.regress);
      timings.add("price", result_.timings.price);
    }
    require_all_finite(result_);
  }

  void report(io::ResultFile& out) override {
    write_estimate(out, result_.price, result_.timings.total, path_steps(p_));
    say_price(result_.price);
    if (montecarlo::early_exercise(p_.payoff)) {
      out.set_attribute("/estimate", "in_sample_price", result_.in_sample.price);
      out.set_attribute("/estimate", "in_sample_standard_error", result_.in_sample.standard_error);
      out.set_attribute("/estimate", "method",
                        std::string("Longstaff-Schwartz: price out of sample (low-biased), "
                                    "in_sample_price on the fitting paths (high-biased)"));
      say(formatted("in-sample %.6f +- %.2g (policy fitted on these paths)",
                    result_.in_sample.price, result_.in_sample.standard_error));
    }
    if (!result_.delta.empty()) {
      std::vector<double> delta, delta_error;
      for (const montecarlo::Estimate& d : result_.delta) {
        delta.push_back(d.price);
        delta_error.push_back(d.standard_error);
      }
      out.set_attribute("/greeks", "delta", delta);
      out.set_attribute("/greeks", "delta_standard_error", delta_error);
      out.set_attribute("/greeks", "delta_method",
                        std::string(p_.payoff == BasketPayoff::digital_basket_call
                                        ? "likelihood ratio"
                                        : "pathwise"));
      std::string text = formatted("delta[0] %.6f +- %.2g", delta[0], delta_error[0]);
      if (result_.vega.samples > 0) {
        out.set_attribute("/greeks", "vega", result_.vega.price);
        out.set_attribute("/greeks", "vega_standard_error", result_.vega.standard_error);
        text += formatted(", vega %.6f +- %.2g", result_.vega.price, result_.vega.standard_error);
      }
      say(text);
    }
    say_rate(result_.timings.total, path_steps(p_));
  }

  double work() const override { return path_steps(p_); }
  Reproducibility reproducibility() const override { return montecarlo_reproducibility(); }

  Agreement check() override { return montecarlo::check_run(p_, result_.price, gpu_); }

  void write(Output&) override {}

 private:
  BasketResult result_;
};

// The European payoffs' sweep: each variant that can hold d assets, timed on the same paths and
// checked against one gold (the closed form, or the CPU gold on fewer paths).
class BasketStudy final : public MethodStudy<BasketParams, SweepParams> {
 public:
  using MethodStudy::MethodStudy;

  void prepare() override {
    if (montecarlo::early_exercise(p_.payoff))
      throw InputError(t_.source_of("payoff.kind"), "payoff.kind",
                       "the sweep times European payoffs; " + std::string(name(p_.payoff)) +
                           " runs with `parasol run`");
    stream_.emplace();
    if (p_.payoff != BasketPayoff::geometric_basket)
      gold_ = montecarlo::solve_basket_gold(montecarlo::basket_sweep_gold_params(p_)).price;
    configure(montecarlo::sweep_variants(p_),
              [](BasketParams& c, BasketVariant v) { c.variant = v; });
  }

  std::string describe() const override {
    return describe_model(p_) + " on " + current_device().name;
  }

  SweepColumns columns() const override { return sweep_columns(axis_columns(axes())); }

  // Judged against the closed form where the model has one.
  Measurement measure(std::size_t i) override {
    const BasketParams& q = configs_[i];
    montecarlo::BasketSimulator simulator(q, *stream_);
    return measured_estimate(
        std::string(name(q.variant)), timed_on(*stream_, s_.repeats), [&] { simulator.run(); },
        [&] { return simulator.result().price; },
        [&](const montecarlo::Estimate& e) {
          const std::optional<Agreement> exact = montecarlo::agreement_with_exact(p_, e);
          return exact ? *exact : montecarlo::agreement(e, gold_);
        });
  }

  double units_per_run() const override { return path_steps(p_); }

  void write_attributes(io::ResultFile& out) const override {
    out.set_attribute("/sweep", "path_steps", path_steps(p_));
    out.set_attribute("/sweep", "assets", std::int64_t{p_.assets()});
    out.set_attribute("/sweep", "check_tolerance", montecarlo::kStandardErrors);
  }

 private:
  montecarlo::Estimate gold_;
};

DeclaredFile<BasketParams, SweepParams> read_all(io::ParamTable& t,
                                                 const std::filesystem::path& path) {
  auto [p, s] = io::read_checked(t, [&] { return read_basket_params(t, path); },
                                 [&] { return io::read_keys(t, montecarlo::sweep_keys(), path); });
  return {std::move(p), std::move(s)};
}

}  // namespace

Measurement measured_estimate(const std::string& method, TimeRuns time,
                              const std::function<void()>& run,
                              const std::function<montecarlo::Estimate()>& estimate,
                              const std::function<Agreement(const montecarlo::Estimate&)>& judge) {
  std::optional<montecarlo::Estimate> first;
  RowSteps steps;
  steps.method = method;
  steps.run = run;
  steps.check = [&] {
    const montecarlo::Estimate e = estimate();
    if (!first) first = e;
    return judge(e);
  };
  steps.time = std::move(time);
  Measurement m = measured(steps);
  const double nan = std::numeric_limits<double>::quiet_NaN();  // a row that failed to run
  m.extras = {first ? first->price : nan, first ? first->standard_error : nan};
  return m;
}

SweepColumns sweep_columns(std::vector<ResultsTable::Column> axes) {
  return {std::move(axes),
          {"gpath_steps_per_s", "Gpath-steps/s", 14, 2},
          std::nullopt,
          {"difference_in_standard_errors", "diff/error", 10, 2},
          {{"price", "price", 10, 6}, {"standard_error", "std error", 10, 2, 'g'}}};
}

void require_all_finite(const montecarlo::BasketResult& r) {
  const auto estimate = [](const std::string& what, const montecarlo::Estimate& e) {
    require_finite("montecarlo: the " + what, e.price);
    require_finite("montecarlo: the " + what + "'s standard error", e.standard_error);
  };
  estimate("price", r.price);
  if (r.in_sample.samples > 0) estimate("in-sample price", r.in_sample);
  if (r.vega.samples > 0) estimate("vega", r.vega);
  for (std::size_t i = 0; i < r.delta.size(); ++i)
    estimate("delta[" + std::to_string(i) + "]", r.delta[i]);
}

Reproducibility montecarlo_reproducibility() {
  // The single-asset solvers add integer quanta (in any order, across ranks too), the basket
  // reductions add per-block slots in a fixed order, and basket-cublas's GEMM runs without
  // atomics on a fixed workspace (solvers/montecarlo/basket.cu).
  return {true, "counter-based draws of the seed; sums of integer quanta or of per-block slots "
                "in a fixed order, whatever the threads or ranks"};
}

void write_estimate(io::ResultFile& out, const montecarlo::Estimate& e, double seconds,
                    double path_steps) {
  out.set_attribute("/method", "reproducible", montecarlo_reproducibility().reproducible);
  out.set_attribute("/estimate", "price", e.price);
  out.set_attribute("/estimate", "standard_error", e.standard_error);
  out.set_attribute("/estimate", "ci95_low", e.ci_low());
  out.set_attribute("/estimate", "ci95_high", e.ci_high());
  out.set_attribute("/estimate", "samples", e.samples);
  out.set_attribute("/timings", "total_s", seconds);
  out.set_attribute("/timings", "path_steps_per_s", path_steps / seconds);
}

void say_price(const montecarlo::Estimate& e) {
  say(formatted("price %.6f +- %.2g (standard error), 95%% CI [%.6f, %.6f], %lld samples",
                e.price, e.standard_error, e.ci_low(), e.ci_high(),
                static_cast<long long>(e.samples)));
}

void say_rate(double seconds, double path_steps) {
  say(formatted("%.3f s, %.3f Gpath-steps/s", seconds, 1e-9 * (path_steps / seconds)));
}

bool is_basket_model(io::ParamTable& t) {
  return io::get_choice(t, "model.kind", std::string(name(montecarlo::Params{}.kind)),
                        montecarlo::parse_model_kind) == montecarlo::ModelKind::basket;
}

std::unique_ptr<Run> make_basket_run(io::ParamTable& t, const std::filesystem::path& path) {
  return declared_run<read_all, BasketRun>(t, path);
}

std::unique_ptr<Study> make_basket_study(io::ParamTable& t, const std::filesystem::path& path) {
  return declared_study<read_all, BasketStudy>(t, path);
}

}  // namespace parasol::app
