// montecarlo's binding: what a run of either model reads, prints, records and writes, and its
// sweeps. The model's words, memory, refusals, attributes and summary lines are the solver's
// (solvers/montecarlo/summary.hpp), a run across ranks and its checkpoints solvers/montecarlo/
// run.hpp's, a sweep's rows solvers/montecarlo/study.hpp's.
#include <optional>
#include <set>

#include "apps/progress.hpp"
#include "apps/solver_parts.hpp"
#include "apps/solver_run.hpp"
#include "kernels/device.hpp"
#include "solvers/montecarlo/check.hpp"
#include "solvers/montecarlo/keys.hpp"
#include "solvers/montecarlo/run.hpp"
#include "solvers/montecarlo/study.hpp"
#include "solvers/montecarlo/summary.hpp"

namespace parasol::app {
namespace {

using namespace montecarlo;  // the binding speaks the solver's words

io::AutotuneKey choice_key_of(const Params& p) {
  return autotune_key("montecarlo", problem_class(p), "float");
}

// A live line for a long estimate: paths done, path-steps a second, time left.
ProgressCallback progress_on(ProgressLine& line) {
  return [&line](const Progress& pr) { line.update(pr.paths, pr.total_paths, pr.seconds); };
}

// /estimate and /timings of a run's price; /method@reproducible, which every run is
// (kReproducibleBecause).
void write_estimate(io::ResultFile& out, const Estimate& e, double seconds, double work) {
  out.set_attribute("/method", "reproducible", true);
  set_attributes(out, "/estimate", estimate_attributes(e));
  set_attributes(out, "/timings", rate_attributes(seconds, work));
}

// Either model's sweep: each configuration's estimate timed and judged against gold_ (study.hpp),
// the rate in Gpath-steps/s, the check in standard errors, and each row's price and standard error.
template <class P>
class EstimateStudy : public MethodStudy<P, SweepParams> {
 public:
  using MethodStudy<P, SweepParams>::MethodStudy;

  SweepColumns columns() const override {
    return this->columns_with(
        {"gpath_steps_per_s", "Gpath-steps/s", 14, 2}, std::nullopt,
        {"difference_in_standard_errors", "diff/error", 10, 2},
        {{"price", "price", 10, 6}, {"standard_error", "std error", 10, 2, 'g'}});
  }
  Measurement measure(std::size_t i) override {
    EstimateRow r = montecarlo::measure(this->configs_[i], *this->stream_, this->s_.repeats, gold_);
    Measurement m = measured(std::move(r.row));
    m.extras = {r.price, r.standard_error};
    return m;
  }
  double units_per_run() const override { return path_steps(this->p_); }

 protected:
  Estimate gold_;
};

class MontecarloRun final : public SolverRun<Params> {
 public:
  using SolverRun::SolverRun;

  void prepare(const RunSetup& setup) override {
    take(setup);
    if (looks_up_choice()) choose_automatic(choice_key_of(p_));
    streams_ = {ranks(), rank(), 1};  // this rank's own cut, unless a restart takes over others
    prepare_checkpoints(setup);
    part_ = streams_.samples(p_, whole_batches());
    if (gpu_) check_method_block(t_, Shape{p_.block, 1, 1});
    require_needs(t_, run_needs(p_, gpu_, check_, part_.count));
  }

  std::string describe() const override {
    return describe_model(p_) + "; " + ran(describe_method(p_, true));
  }

  // Across ranks each simulates its samples (samples_of), and the ranks' integer sums, added in
  // any order, give the one-rank estimate's bits: one small record a rank is all they exchange.
  void solve(PhaseTimer& timings, io::ResultFile*) override {
    {
      ProgressLine line("paths", "path-steps", static_cast<double>(p_.steps));
      if (!checkpoints_->enabled()) {
        result_ = gpu_ ? solve_gpu(p_, progress_on(line), part_)
                       : solve_gold(p_, progress_on(line), part_);
      } else {
        // A batch a round, so that a checkpoint can fall between any two.
        const Checkpoints points = checkpoints_->safe_points<State>(
            from_ ? &*from_ : nullptr, [paths = p_.paths](io::CheckpointWriter& w, const State& s) {
              for (const auto& [name, value] : checkpoint_integers(s, paths)) w.add(name, value);
              w.add("sample", *s.sample);
            });
        result_ = solve_in_rounds(p_, gpu_, progress_on(line), streams_, rounds(), points);
      }
    }
    checkpoints_->finish("batch", rounds());
    add_checkpoint_phase(timings, *checkpoints_);
    timings.add("generate", result_.timings.generate);
    timings.add("paths", result_.timings.paths);
    combine_over_ranks(timings, [&](comm::Context& context) {
      result_ = whole_run(context, p_, std::move(result_));
    });
    require_finite_estimates(result_);
  }

  void report(io::ResultFile& out) override {
    write_estimate(out, result_.estimate, result_.timings.total, work());
    write_ranks(out, whole_batches() ? "whole batches of samples, by global sample index"
                                     : "samples by global sample index");
    say(price_line(result_.estimate));
    say(rate_line(result_.timings.total, work()));
    checkpoints_->report(out);
  }

  double work() const override { return path_steps(p_); }
  Reproducibility reproducibility() const override { return {true, kReproducibleBecause}; }
  // The gold's paths, this rank's share of them, are one parallel loop.
  std::int64_t parallel_items() const override {
    return static_cast<std::int64_t>(path_steps(p_) / ranks());
  }

  Agreement check() override {
    ProgressLine line("gold paths", "path-steps", static_cast<double>(p_.steps));
    return check_run(p_, result_.estimate, gpu_, part_, *context_, progress_on(line));
  }

  // The stored paths are the first sample_paths samples, at their places in the whole run;
  // across ranks each writes those it simulated.
  void write(Output& out) override {
    if (p_.sample_paths == 0) return;
    const std::string dataset = "/fields/sample_paths";
    const std::vector<std::uint64_t> dims{static_cast<std::uint64_t>(p_.sample_paths),
                                          static_cast<std::uint64_t>(p_.steps) + 1, 2};
    const Samples rows = ranks() == 1 ? Samples{0, p_.sample_paths} : stored_rows(p_, part_);
    if (!out.write_share(dataset, dims, static_cast<std::uint64_t>(rows.first),
                         static_cast<std::uint64_t>(rows.count),
                         result_.sample.data() + rows.first * 2 * (p_.steps + 1)))
      return;
    const std::string layout = "[path][time][asset], asset fastest; time n is t = n * dt";
    out.file->set_attribute(dataset, "layout", layout);
    out.file->set_attribute(dataset, "dt", p_.maturity / static_cast<double>(p_.steps));
  }

 private:
  bool whole_batches() const { return cuts_whole_batches(p_, gpu_); }
  // Rounds of batches every rank makes, one checkpoint's step each: those of its streams' cut.
  std::int64_t rounds() const { return batch_rounds(p_, streams_.ranks, whole_batches()); }

  // On one rank a restart may run more paths: the batches done are the same ones. Across ranks
  // the path count decides each rank's samples, so it must stay.
  void prepare_checkpoints(const RunSetup& setup) {
    std::set<std::string> may_differ;
    if (ranks() == 1) may_differ.insert("paths.count");
    checkpoints_.emplace(p_.checkpoint, setup, "montecarlo", t_, may_differ);
    if (checkpoints_->enabled()) sourced(t_, [&] { refuse_checkpoints(p_, gpu_); });
    const io::CheckpointReader* r = checkpoints_->restart();
    if (r == nullptr) return;
    const auto size = static_cast<std::uint64_t>(p_.sample_paths) * 2 *
                      (static_cast<std::uint64_t>(p_.steps) + 1);
    const Written written{r->path().string(), r->written_ranks(),
                          [r](const std::string& name) { return r->integer(name); },
                          [r](const std::string& name, int part) { return r->integer(name, part); },
                          [r, size](int part) { return r->floats("sample", size, part); }};
    from_ = resume(p_, written, rank(), ranks(), whole_batches(), restart_sample_);
    streams_ = from_->streams;
  }

  Streams streams_;  // the streams of batches this rank runs
  Samples part_;     // the samples this rank simulates: all of them on one rank
  Result result_;
  std::optional<Checkpointing> checkpoints_;
  std::vector<float> restart_sample_;  // a restart's stored sample paths
  std::optional<State> from_;          // a restart's state
};

class MontecarloStudy final : public EstimateStudy<Params> {
 public:
  MontecarloStudy(io::ParamTable& t, Params p, SweepParams s) : EstimateStudy(t, std::move(p), s) {
    p_.sample_paths = 0;  // storing paths is not what is timed
  }

  void prepare() override {
    check_method_block(t_, Shape{p_.block, 1, 1});
    Params host_rng = p_;
    host_rng.variant = Variant::host_rng;  // the sweep runs both variants
    require_needs(t_, device_needs(host_rng));
    stream_.emplace();
    const Params g = sweep_gold_params(p_);
    ProgressLine line("gold paths", "path-steps", static_cast<double>(g.steps));
    gold_paths_ = g.paths;
    gold_ = solve_gold(g, progress_on(line)).estimate;
    configs_ = sweep_configurations(p_);
  }

  std::string describe() const override {
    return describe_model(p_) + " on " + current_device().name +
           formatted("; gold %.6f +- %.2g on %lld paths", gold_.price, gold_.standard_error,
                     static_cast<long long>(gold_paths_));
  }

  void write_attributes(io::ResultFile& out) const override {
    set_attributes(out, "/sweep", sweep_attributes(p_, gold_paths_, gold_));
  }

  io::AutotuneKey choice_key() const override { return choice_key_of(p_); }
  InputError nothing_to_time() const override {
    return InputError(t_.source(), "sweep", "no variant and block to time");
  }

 private:
  std::int64_t gold_paths_ = 0;
};

class BasketRun final : public SolverRun<BasketParams> {
 public:
  using SolverRun::SolverRun;

  void prepare(const RunSetup& setup) override {
    take(setup);
    sourced(t_, [&] { refuse_basket_run(p_, gpu_, ranks(), !setup.options.restart.empty()); });
    require_needs(t_, basket_needs(p_, gpu_));
  }

  std::string describe() const override {
    if (!gpu_) return describe_model(p_) + "; CPU gold solver";
    return describe_model(p_) + "; " +
           (early_exercise(p_.payoff) ? std::string("Longstaff-Schwartz")
                                      : std::string(name(p_.resolved_variant()))) +
           " on " + current_device().name;
  }

  void solve(PhaseTimer& timings, io::ResultFile*) override {
    result_ = gpu_ ? solve_basket_gpu(p_, Stream()) : solve_basket_gold(p_);
    timings.add("simulate", result_.timings.simulate);
    if (early_exercise(p_.payoff)) {
      timings.add("regress", result_.timings.regress);
      timings.add("price", result_.timings.price);
    }
    require_finite_estimates(result_);
  }

  void report(io::ResultFile& out) override {
    write_estimate(out, result_.price, result_.timings.total, work());
    set_attributes(out, "/estimate", basket_estimate_attributes(p_, result_));
    set_attributes(out, "/greeks", greeks_attributes(p_, result_));
    say(price_line(result_.price));
    for (const std::string& line : basket_lines(p_, result_)) say(line);
    say(rate_line(result_.timings.total, work()));
  }

  double work() const override { return path_steps(p_); }
  Reproducibility reproducibility() const override { return {true, kReproducibleBecause}; }
  Agreement check() override { return check_run(p_, result_.price, gpu_); }
  void write(Output&) override {}

 private:
  BasketResult result_;
};

// The European payoffs' sweep: each variant that can hold d assets, timed on the same paths and
// checked against one gold (the closed form, or the CPU gold on fewer paths).
class BasketStudy final : public EstimateStudy<BasketParams> {
 public:
  using EstimateStudy::EstimateStudy;

  void prepare() override {
    if (early_exercise(p_.payoff))
      throw InputError(t_.source_of("payoff.kind"), "payoff.kind",
                       "the sweep times European payoffs; " + std::string(name(p_.payoff)) +
                           " runs with `parasol run`");
    stream_.emplace();
    if (p_.payoff != BasketPayoff::geometric_basket)
      gold_ = solve_basket_gold(basket_sweep_gold_params(p_)).price;
    configure(sweep_variants(p_), [](BasketParams& c, BasketVariant v) { c.variant = v; });
  }

  std::string describe() const override {
    return describe_model(p_) + " on " + current_device().name;
  }
  void write_attributes(io::ResultFile& out) const override {
    set_attributes(out, "/sweep", sweep_attributes(p_));
  }
};

// model.kind: "basket", or the course's "two-asset" model (the default). Each model's keys are
// read, and the other's refused where the file sets them.
bool is_basket_model(io::ParamTable& t) {
  return io::get_choice(t, "model.kind", std::string(name(Params{}.kind)), parse_model_kind) ==
         ModelKind::basket;
}

DeclaredFile<Params, SweepParams> read_course(io::ParamTable& t,
                                              const std::filesystem::path& path) {
  return read_declared(t, keys(), sweep_keys(), path,
                       [&](Params&, bool) { io::refuse_unread(t, basket_keys()); });
}

DeclaredFile<BasketParams, SweepParams> read_basket(io::ParamTable& t,
                                                    const std::filesystem::path& path) {
  auto [p, s] = io::read_checked(
      t,
      [&] {
        if (t.has("model.correlation_file") && t.has("model.correlation"))
          throw InputError(t.source_of("model.correlation_file"), "model.correlation_file",
                           "give model.correlation or model.correlation_file, not both");
        BasketParams b = io::read_keys(t, basket_keys(), path);
        io::refuse_unread(t, keys());
        if (!b.correlation_file.empty())
          b.correlation =
              sourced(t, [&] { return read_correlation_file(b.correlation_file, b.assets()); });
        return b;
      },
      [&] { return io::read_keys(t, sweep_keys(), path); });
  return {std::move(p), std::move(s)};
}

std::unique_ptr<Run> make_run(io::ParamTable& t, const std::filesystem::path& path) {
  if (is_basket_model(t)) return declared_run<read_basket, BasketRun>(t, path);
  return declared_run<read_course, MontecarloRun>(t, path);
}

std::unique_ptr<Study> make_study(io::ParamTable& t, const std::filesystem::path& path) {
  if (is_basket_model(t)) return declared_study<read_basket, BasketStudy>(t, path);
  return declared_study<read_course, MontecarloStudy>(t, path);
}

}  // namespace

Binding montecarlo_binding() {
  Binding b{"montecarlo",
            "option prices by Monte Carlo path simulation: the course's two correlated assets, or "
            "baskets of d assets with Greeks and Longstaff-Schwartz early exercise",
            make_run, make_study};
  // The course model's keys, then the basket's own, then the [sweep] table's.
  b.keys = [] { return declared(keys(), basket_keys(), sweep_keys()); };
  // Across ranks the course model cuts its samples; a basket run refuses more than one rank.
  b.across_ranks = true;
  b.checkpoints = true;
  b.examples = {"inputs/montecarlo.toml", "inputs/montecarlo-9.6m.toml",
                "inputs/montecarlo-basket.toml", "inputs/montecarlo-american.toml"};
  return b;
}

}  // namespace parasol::app
