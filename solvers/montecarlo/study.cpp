// One row of a montecarlo sweep (study.hpp).
#include "solvers/montecarlo/study.hpp"

#include <functional>
#include <limits>
#include <optional>
#include <string>

#include "kernels/device.hpp"
#include "kernels/error.hpp"
#include "solvers/montecarlo/check.hpp"
#include "solvers/montecarlo/run.hpp"

namespace parasol::montecarlo {
namespace {

EstimateRow measured(const std::string& method, TimeRuns time, const std::function<void()>& run,
                     const std::function<Estimate()>& estimate,
                     const std::function<Agreement(const Estimate&)>& judge) {
  std::optional<Estimate> first;
  RowSteps steps;
  steps.method = method;
  steps.run = run;
  steps.check = [&] {
    const Estimate e = estimate();
    if (!first) first = e;
    return judge(e);
  };
  steps.time = std::move(time);
  EstimateRow r{measure_row(steps), 0, 0};
  const double nan = std::numeric_limits<double>::quiet_NaN();  // a row that failed to run
  r.price = first ? first->price : nan;
  r.standard_error = first ? first->standard_error : nan;
  return r;
}

}  // namespace

Params sweep_params(Params p) {
  p.sample_paths = 0;
  return p;
}

std::vector<MemoryNeed> sweep_needs(const Params& p) {
  Params host_rng = p;
  host_rng.variant = Variant::host_rng;
  return device_needs(host_rng);
}

std::vector<MemoryNeed> sweep_needs(const BasketParams& p) { return basket_needs(p, true); }

void check_sweep(const Params& p) {
  check_block_limits(Shape{p.block, 1, 1}, current_device(), "method.block");
}

void check_sweep(const BasketParams& p) {
  if (early_exercise(p.payoff))
    throw InputError("", "payoff.kind",
                     "the sweep times European payoffs; " + std::string(name(p.payoff)) +
                         " runs with `parasol run`");
}

SweepGold sweep_gold(const Params& p, const ProgressCallback& progress) {
  const Params g = sweep_gold_params(p);
  return {solve_gold(g, progress).estimate, g.paths};
}

SweepGold sweep_gold(const BasketParams& p, const ProgressCallback&) {
  if (p.payoff == BasketPayoff::geometric_basket) return {};
  const BasketParams g = basket_sweep_gold_params(p);
  return {solve_basket_gold(g).price, g.paths};
}

std::vector<BasketParams> sweep_configurations(const BasketParams& p) {
  std::vector<BasketParams> configurations;
  for (BasketVariant v : sweep_variants(p)) {
    configurations.push_back(p);
    configurations.back().variant = v;
  }
  return configurations;
}

EstimateRow measure(const Params& c, cudaStream_t stream, const Repeats& repeats,
                    const Estimate& gold) {
  Simulator simulator(c, stream);
  return measured(
      std::string(name(c.variant)), timed_on(stream, repeats), [&] { simulator.run(); },
      [&] { return simulator.estimate(); }, [&](const Estimate& e) { return agreement(e, gold); });
}

EstimateRow measure(const BasketParams& c, cudaStream_t stream, const Repeats& repeats,
                    const Estimate& gold) {
  BasketSimulator simulator(c, stream);
  return measured(
      std::string(name(c.variant)), timed_on(stream, repeats), [&] { simulator.run(); },
      [&] { return simulator.result().price; },
      [&](const Estimate& e) {
        const std::optional<Agreement> exact = agreement_with_exact(c, e);
        return exact ? *exact : agreement(e, gold);
      });
}

}  // namespace parasol::montecarlo
