// montecarlo's binding: its parameters, what a run prints and writes (the estimate with its
// standard error, sample paths on request), and its sweep over variants, block sizes and
// host-rng's orderings, every row judged against one CPU gold estimate.
#include <algorithm>
#include <climits>
#include <cstdio>
#include <optional>

#include "apps/bindings/montecarlo_basket.hpp"
#include "apps/binding.hpp"
#include "apps/fits.hpp"
#include "apps/progress.hpp"
#include "comm/over_ranks.hpp"
#include "kernels/device.hpp"
#include "kernels/stream.hpp"
#include "kernels/timed_runs.hpp"
#include "solvers/montecarlo/check.hpp"
#include "solvers/montecarlo/montecarlo.hpp"

namespace parasol::app {
namespace {

using montecarlo::Params;
using montecarlo::Variant;

struct SweepParams {
  Repeats repeats{5, kSweepMinTime};  // timed estimates per row; the median is reported
};

// `automatic`: the file says method.variant = "auto".
Params read_params(io::ParamTable& t, bool& automatic) {
  const Params d;
  Params p;
  p.paths = t.get_int("paths.count");
  p.steps = t.get_int("paths.steps");
  p.maturity = t.get_double("model.maturity", d.maturity);
  p.rate = t.get_double("model.rate", d.rate);
  p.sigma = t.get_double("model.sigma", d.sigma);
  p.rho = t.get_double("model.rho", d.rho);
  p.spot = t.get_double("model.spot", d.spot);
  p.payoff = io::get_choice(t, "payoff.kind", std::string(name(d.payoff)), montecarlo::parse_payoff);
  p.strike = t.get_double("payoff.strike", d.strike);
  automatic = get_variant_or_auto(t, "method.variant", p.variant, montecarlo::parse_variant);
  p.step = io::get_choice(t, "method.step", std::string(name(d.step)), montecarlo::parse_step);
  p.antithetic = t.get_bool("method.antithetic", d.antithetic);
  p.seed = io::get_seed(t, "method.seed", d.seed);
  const std::int64_t block = t.get_int("method.block", d.block);
  // validate() names the compiled sizes; a size past int's range could only be cut to another.
  if (block < INT_MIN || block > INT_MAX)
    throw InputError(t.source_of("method.block"), "method.block",
                     "threads per block " + std::to_string(block) + " is not compiled in");
  p.block = static_cast<int>(block);
  p.batch_paths = t.get_int("method.batch_paths", d.batch_paths);
  p.generator = io::get_choice(t, "method.generator", std::string(name(d.generator)),
                               montecarlo::parse_generator);
  p.ordering = io::get_choice(t, "method.ordering", std::string(name(d.ordering)),
                              montecarlo::parse_ordering);
  p.sample_paths = t.get_int("output.sample_paths", d.sample_paths);
  return p;
}

SweepParams read_sweep_params(io::ParamTable& t) {
  SweepParams s;
  s.repeats = get_sweep_repeats(t, s.repeats.at_least);
  return s;
}

double path_steps(const Params& p) {
  return static_cast<double>(p.paths) * static_cast<double>(p.steps);
}

double sample_bytes(const Params& p) {
  return 2.0 * sizeof(float) * static_cast<double>(p.sample_paths) * static_cast<double>(p.steps + 1);
}

std::string describe_model(const Params& p) {
  return std::to_string(p.paths) + " paths x " + std::to_string(p.steps) + " steps, " +
         std::string(name(p.payoff)) + ", " + std::string(name(p.step)) + " step" +
         (p.antithetic ? ", antithetic" : "");
}

// What only the device can tell: its block limits, and room for host-rng's normals (2 x steps
// floats per sample of a batch) and the stored sample paths.
void check_fits_device(const io::ParamTable& t, const Params& p) {
  try {
    check_block_limits(Shape{p.block, 1, 1}, current_device(), "method.block");
  } catch (const InputError& e) {
    throw InputError(t.source_of("method.block"), "method.block", e.expected());
  }
  require_device_memory(t.source_of("output.sample_paths"), "output.sample_paths",
                        "the sample paths need", sample_bytes(p));
  if (p.variant != Variant::host_rng) return;
  const double batch = static_cast<double>(std::min(p.batch_paths, p.paths));
  require_device_memory(t.source_of("method.batch_paths"), "method.batch_paths",
                        "host-rng's normals for a batch of " + short_number(batch) + " paths need",
                        2.0 * sizeof(float) * static_cast<double>(p.steps) * batch + sample_bytes(p),
                        ": lower method.batch_paths");
}

// The problem class of a choice: paths and steps exactly, and what picks the kernel (payoff,
// step, antithetic): "paths=9600000,steps=256,basket,log-euler,antithetic".
io::AutotuneKey montecarlo_key(const Params& p) {
  return autotune_key("montecarlo",
                      "paths=" + std::to_string(p.paths) + ",steps=" + std::to_string(p.steps) +
                          "," + std::string(name(p.payoff)) + "," + std::string(name(p.step)) +
                          (p.antithetic ? ",antithetic" : ""),
                      "float");
}

// "device-rng, 512 threads" (with the ordering for host-rng).
std::string method_of(const Params& p) {
  std::string method = std::string(name(p.variant)) + ", " + std::to_string(p.block) + " threads";
  if (p.variant == Variant::host_rng) method += ", " + std::string(name(p.ordering)) + " ordering";
  return method;
}

// A live line for a long estimate: paths done, path-steps a second, time left.
montecarlo::ProgressCallback progress_on(ProgressLine& line) {
  return [&line](const montecarlo::Progress& pr) {
    line.update(pr.paths, pr.total_paths, pr.seconds);
  };
}

class MontecarloRun final : public Run {
 public:
  MontecarloRun(io::ParamTable& t, Params p, bool automatic)
      : t_(t), p_(std::move(p)), automatic_(automatic) {}

  void prepare(const RunSetup& setup) override {
    gpu_ = setup.gpu();
    context_ = &setup.context;
    if (gpu_ && automatic_) choose_automatic(setup.options.autotune_file);
    // host-rng's generator starts a rank at one of the one-rank run's batches; the other
    // generators draw each sample's normals alone, so any cut will do.
    part_ = montecarlo::samples_of(p_, context_->rank(), context_->size(),
                                   gpu_ && p_.variant == Variant::host_rng);
    if (gpu_) check_fits_device(t_, p_);
    // The stored paths, twice when a GPU run is checked against the gold.
    require_host_memory(t_.source_of("output.sample_paths"), "output.sample_paths",
                        "the sample paths need",
                        (gpu_ && setup.options.check ? 2 : 1) * sample_bytes(p_));
  }

  std::string describe() const override {
    std::string method = "CPU gold solver";
    if (gpu_) {
      method = std::string(name(p_.variant)) + ", " + std::to_string(p_.block) + " threads";
      if (p_.variant == Variant::host_rng)
        method += ", " + std::string(name(p_.generator)) + " " + std::string(name(p_.ordering)) +
                  " ordering";
      if (automatic_) method += auto_.described();
      method += " on " + current_device().name;
    }
    return describe_model(p_) + "; " + method;
  }

  void write_method(io::ResultFile& out) const override {
    out.set_attribute("/method", "variant", std::string(name(p_.variant)));
    out.set_attribute("/method", "block", std::int64_t{p_.block});
    out.set_attribute("/method", "batch_paths", p_.batch_paths);
    if (p_.variant == Variant::host_rng) {
      out.set_attribute("/method", "generator", std::string(name(p_.generator)));
      out.set_attribute("/method", "ordering", std::string(name(p_.ordering)));
    }
    out.set_attribute("/method", "chosen_by", automatic_ ? auto_.chosen_by() : "parameters");
    if (automatic_) out.set_attribute("/method", "autotune_file", auto_.file.string());
  }

  // Across ranks each simulates its samples (samples_of), and the ranks' integer sums, added in
  // any order, give the one-rank estimate's bits: one small record a rank is all they exchange.
  void solve(PhaseTimer& timings, io::ResultFile*) override {
    ProgressLine line("paths", "path-steps", static_cast<double>(p_.steps));
    result_ = gpu_ ? montecarlo::solve_gpu(p_, progress_on(line), part_)
                   : montecarlo::solve_gold(p_, progress_on(line), part_);
    timings.add("generate", result_.timings.generate);
    timings.add("paths", result_.timings.paths);
    if (context_->size() == 1) return;
    timings.add("wait", wait_for_ranks(*context_));
    const double before = context_->comm_seconds();
    const Combined whole = combine({result_.sums, result_.timings.total});
    timings.add("exchange", context_->comm_seconds() - before);
    result_.sums = whole.sums;
    result_.estimate = montecarlo::estimate_from(whole.sums, montecarlo::price_unit(p_));
    result_.timings.total = whole.seconds;
  }

  void report(io::ResultFile& out) override {
    const montecarlo::Estimate& e = result_.estimate;
    const double rate = path_steps(p_) / result_.timings.total;
    out.set_attribute("/estimate", "price", e.price);
    out.set_attribute("/estimate", "standard_error", e.standard_error);
    out.set_attribute("/estimate", "ci95_low", e.ci_low());
    out.set_attribute("/estimate", "ci95_high", e.ci_high());
    out.set_attribute("/estimate", "samples", e.samples);
    out.set_attribute("/timings", "total_s", result_.timings.total);
    out.set_attribute("/timings", "path_steps_per_s", rate);
    if (context_->size() > 1) {
      out.set_attribute("/method", "ranks", std::int64_t{context_->size()});
      out.set_attribute("/method", "decomposition",
                        std::string(gpu_ && p_.variant == Variant::host_rng
                                        ? "whole batches of samples, by global sample index"
                                        : "samples by global sample index"));
    }
    char line[160];
    std::snprintf(line, sizeof line,
                  "price %.6f +- %.2g (standard error), 95%% CI [%.6f, %.6f], %lld samples",
                  e.price, e.standard_error, e.ci_low(), e.ci_high(),
                  static_cast<long long>(e.samples));
    say(line);
    std::snprintf(line, sizeof line, "%.3f s, %.3f G path-steps/s", result_.timings.total,
                  1e-9 * rate);
    say(line);
  }

  double work() const override { return path_steps(p_); }

  // A CPU run is the gold solver itself (the same seed, the same bits), so it is its own gold.
  Agreement check() override {
    if (!gpu_) return montecarlo::agreement(result_.estimate, result_.estimate);
    ProgressLine line("gold paths", "path-steps", static_cast<double>(p_.steps));
    const montecarlo::Result gold = montecarlo::solve_gold(p_, progress_on(line), part_);
    const montecarlo::PayoffSums sums = combine({gold.sums, 0}).sums;
    return montecarlo::agreement(result_.estimate,
                                 montecarlo::estimate_from(sums, montecarlo::price_unit(p_)));
  }

  // The stored paths are the first sample_paths samples, at their places in the whole run;
  // across ranks each writes those it simulated.
  void write(Output& out) override {
    if (p_.sample_paths == 0) return;
    const std::string dataset = "/fields/sample_paths";
    const std::vector<std::uint64_t> dims{static_cast<std::uint64_t>(p_.sample_paths),
                                          static_cast<std::uint64_t>(p_.steps) + 1, 2};
    if (context_->size() == 1) {
      out.file->write_field(dataset, result_.sample.data(), dims);
    } else {
      const std::int64_t first = std::min(part_.first, p_.sample_paths);
      const std::int64_t last = std::min(part_.first + part_.count, p_.sample_paths);
      out.write_rows(dataset, dims, static_cast<std::uint64_t>(first),
                     static_cast<std::uint64_t>(last - first),
                     result_.sample.data() + first * 2 * (p_.steps + 1));
      if (out.file == nullptr) return;
    }
    out.file->set_attribute(dataset, "layout",
                           std::string("[path][time][asset], asset fastest; time n is t = n * dt"));
    out.file->set_attribute(dataset, "dt", p_.maturity / static_cast<double>(p_.steps));
  }

 private:
  // What each rank adds to the run: its payoff sums and its seconds.
  struct Combined {
    montecarlo::PayoffSums sums;
    double seconds = 0;
  };

  // The sums of every rank, and the slowest rank's seconds: the run's.
  Combined combine(const Combined& mine) {
    if (context_->size() == 1) return mine;
    Combined whole;
    for (const Combined& c : context_->all_gather(mine)) {
      whole.sums.sum += c.sums.sum;
      whole.sums.sum_sq += c.sums.sum_sq;
      whole.sums.count += c.sums.count;
      whole.seconds = std::max(whole.seconds, c.seconds);
    }
    return whole;
  }

  // method.variant = "auto": the variant, block and ordering stored for this problem, or the
  // defaults (and a note on stderr) when none is.
  void choose_automatic(const std::filesystem::path& given) {
    const Params d;
    p_.variant = d.variant;
    p_.block = d.block;
    p_.ordering = d.ordering;
    auto_ = look_up_choice(given, montecarlo_key(p_), method_of(p_));
    if (!auto_.choice) return;
    const io::AutotuneChoice& c = *auto_.choice;
    std::string axis = "variant";
    try {
      p_.variant = montecarlo::parse_variant(c.variant);
      axis = "ordering";
      if (const std::optional<std::string> o = c.axis("ordering"); o && *o != "-")
        p_.ordering = montecarlo::parse_ordering(*o);
    } catch (const InputError& e) {
      throw auto_.unusable(e, axis);
    }
    p_.block = static_cast<int>(auto_.integer("block", 1, 1024, "threads per block"));
    try {
      p_.validate();
    } catch (const InputError& e) {
      throw auto_.unusable(e, "block");
    }
  }

  io::ParamTable& t_;
  Params p_;
  bool automatic_;
  AutoChoice auto_;  // with method.variant = "auto": what the autotune file held
  bool gpu_ = false;
  comm::Context* context_ = nullptr;
  montecarlo::Samples part_;  // the samples this rank simulates: all of them on one rank
  montecarlo::Result result_;
};

class MontecarloStudy final : public Study {
 public:
  MontecarloStudy(io::ParamTable& t, Params p, SweepParams s)
      : t_(t), p_(std::move(p)), s_(s) {
    p_.sample_paths = 0;  // storing paths is not what is timed
  }

  void prepare() override {
    Params host_rng = p_;
    host_rng.variant = Variant::host_rng;  // the sweep runs both variants
    check_fits_device(t_, host_rng);
    stream_.emplace();
    const Params g = montecarlo::sweep_gold_params(p_);
    ProgressLine line("gold paths", "path-steps", static_cast<double>(g.steps));
    gold_paths_ = g.paths;
    gold_ = montecarlo::solve_gold(g, progress_on(line)).estimate;
    for (Variant v : montecarlo::kVariants)
      for (int block : montecarlo::kBlockSizes) {
        Params q = p_;
        q.variant = v;
        q.block = block;
        if (v == Variant::device_rng) {
          configurations_.push_back(q);
          continue;
        }
        for (montecarlo::Ordering o : {montecarlo::Ordering::legacy, montecarlo::Ordering::dynamic}) {
          q.ordering = o;
          configurations_.push_back(q);
        }
      }
  }

  std::string describe() const override {
    char gold[128];
    std::snprintf(gold, sizeof gold, "; gold %.6f +- %.2g on %lld paths", gold_.price,
                  gold_.standard_error, static_cast<long long>(gold_paths_));
    return describe_model(p_) + " on " + current_device().name + gold;
  }

  SweepColumns columns() const override {
    return {{{"variant", "variant", 11}, {"block", "block", 6}, {"ordering", "ordering", 9}},
            {"gpath_steps_per_s", "Gpath-steps/s", 14, 2},
            std::nullopt,
            {"difference_in_standard_errors", "diff/error", 10, 2},
            {{"price", "price", 10, 6}, {"standard_error", "std error", 10, 2, 'g'}}};
  }

  std::vector<std::vector<Cell>> configurations() override {
    std::vector<std::vector<Cell>> cells;
    for (const Params& q : configurations_)
      cells.push_back({std::string(name(q.variant)), std::int64_t{q.block},
                       q.variant == Variant::host_rng ? std::string(name(q.ordering))
                                                      : std::string("-")});
    return cells;
  }

  // The first estimate is checked (and warms up module loading); the rest are timed.
  Measurement measure(std::size_t i) override {
    montecarlo::Simulator simulator(configurations_[i], *stream_);
    simulator.run();
    const montecarlo::Estimate e = simulator.estimate();
    Measurement m;
    m.agreement = montecarlo::agreement(e, gold_);
    m.extras = {e.price, e.standard_error};
    m.seconds = timed_runs(*stream_, s_.repeats, [&] { simulator.run(); });
    return m;
  }

  double units_per_run() const override { return path_steps(p_); }

  void write_attributes(io::ResultFile& out) const override {
    out.set_attribute("/sweep", "path_steps", path_steps(p_));
    out.set_attribute("/sweep", "gold_paths", gold_paths_);
    out.set_attribute("/sweep", "gold_price", gold_.price);
    out.set_attribute("/sweep", "gold_standard_error", gold_.standard_error);
    out.set_attribute("/sweep", "check_tolerance", montecarlo::kStandardErrors);
  }

  bool can_autotune() const override { return true; }
  std::optional<io::AutotuneChoice> autotune_choice(std::size_t i) const override {
    const Params& q = configurations_[i];
    io::AutotuneChoice c;
    c.key = montecarlo_key(p_);
    c.variant = name(q.variant);
    c.axes = {{"block", std::to_string(q.block)},
              {"ordering", q.variant == Variant::host_rng ? std::string(name(q.ordering)) : "-"}};
    return c;
  }

  InputError nothing_to_time() const override {
    return InputError(t_.source(), "sweep", "no variant and block to time");
  }

 private:
  io::ParamTable& t_;
  Params p_;
  SweepParams s_;
  std::int64_t gold_paths_ = 0;
  montecarlo::Estimate gold_;
  std::vector<Params> configurations_;
  std::optional<Stream> stream_;  // made once a device is known to be there
};

std::unique_ptr<Run> make_run(io::ParamTable& t, const std::filesystem::path& params_path) {
  if (is_basket_model(t)) return make_basket_run(t, params_path);
  bool automatic = false;
  Params p = io::read_checked(t, [&] { return read_params(t, automatic); },
                              [&] { return read_sweep_params(t); }).first;
  return std::make_unique<MontecarloRun>(t, std::move(p), automatic);
}

std::unique_ptr<Study> make_study(io::ParamTable& t, const std::filesystem::path& params_path) {
  if (is_basket_model(t)) return make_basket_study(t, params_path);
  bool automatic = false;
  auto [p, s] = io::read_checked(t, [&] { return read_params(t, automatic); },
                                 [&] { return read_sweep_params(t); });
  return std::make_unique<MontecarloStudy>(t, std::move(p), s);
}

}  // namespace

Binding montecarlo_binding() {
  Binding b{"montecarlo",
            "option prices by Monte Carlo path simulation: the course's two correlated assets, or "
            "baskets of d assets with Greeks and Longstaff-Schwartz early exercise",
            make_run, make_study,
            {"method.variant", "method.block", "method.batch_paths", "method.generator",
             "method.ordering"}};
  // Across ranks the course model cuts its samples; a basket run refuses more than one rank.
  b.across_ranks = true;
  return b;
}

}  // namespace parasol::app
