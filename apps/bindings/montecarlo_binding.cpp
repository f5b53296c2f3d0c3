// montecarlo's binding: what a run of either model reads, prints, records and writes, and its
// sweeps. A rank's part of a run and its checkpoints' state are solvers/montecarlo/run.hpp's; the
// words, memory, refusals and report summary.hpp's; a sweep's gold and rows study.hpp's.
#include <optional>

#include "apps/progress.hpp"
#include "apps/solver_run.hpp"
#include "kernels/device.hpp"
#include "solvers/montecarlo/keys.hpp"
#include "solvers/montecarlo/run.hpp"
#include "solvers/montecarlo/study.hpp"
#include "solvers/montecarlo/summary.hpp"

namespace parasol::app {
namespace {

using namespace montecarlo;  // the binding speaks the solver's words

// A live line for a long estimate: paths done, path-steps a second, time left.
constexpr auto progress_on = shown_on<Progress, &Progress::paths, &Progress::total_paths>;

// Either model's run: its model and method in words, and its price reported as the solver words
// it, with /method@reproducible, which every run is (kReproducibleBecause).
template <class P, class R>
class EstimateRun : public SolverRun<P> {
 public:
  using SolverRun<P>::SolverRun;

  std::string describe() const override {
    return describe_model(this->p_) + "; " + this->ran(run_method(this->p_));
  }
  void report(io::ResultFile& out) override {
    out.set_attribute("/method", "reproducible", true);
    record_and_say(out, montecarlo::report(this->p_, result_));
  }
  double work() const override { return path_steps(this->p_); }
  Reproducibility reproducibility() const override { return {true, kReproducibleBecause}; }

 protected:
  R result_;
};

class MontecarloRun final : public EstimateRun<Params, Result> {
 public:
  using EstimateRun::EstimateRun;

  void prepare(const RunSetup& setup) override {
    take(setup);
    if (looks_up_choice())
      choose_automatic(autotune_key("montecarlo", problem_class(p_), "float"));
    part_.emplace(p_, gpu_, rank(), ranks());
    checkpoints_.emplace(p_.checkpoint, setup, "montecarlo", t_, part_->restart_may_change());
    sourced(t_, [&] { part_->use_checkpoints(checkpoints_->enabled(), checkpoints_->restart()); });
    if (gpu_) check_method_block(t_, Shape{p_.block, 1, 1});
    require_needs(t_, run_needs(p_, gpu_, check_, part_->samples().count));
  }

  // Across ranks each simulates its samples (samples_of), and the ranks' integer sums, added in
  // any order, give the one-rank estimate's bits: one small record a rank is all they exchange.
  // With checkpoints, a batch a round, so that one can fall between any two.
  void solve(PhaseTimer& timings, io::ResultFile*) override {
    {
      ProgressLine line("paths", "path-steps", static_cast<double>(p_.steps));
      result_ = part_->solve(progress_on(line), part_->points(*checkpoints_));
    }
    checkpoints_->finish("batch", part_->rounds());
    add_checkpoint_phase(timings, *checkpoints_);
    timings.add(result_.timings);
    combine_over_ranks(timings, [&](comm::Context& context) {
      result_ = whole_run(context, p_, std::move(result_));
    });
    require_finite_estimates(result_);
  }

  void report(io::ResultFile& out) override {
    EstimateRun::report(out);
    write_ranks(out, part_->decomposition());
    checkpoints_->report(out);
  }

  std::int64_t parallel_items() const override { return part_->parallel_items(); }

  Agreement check() override {
    ProgressLine line("gold paths", "path-steps", static_cast<double>(p_.steps));
    return check_run(p_, result_.estimate, gpu_, part_->samples(), *context_, progress_on(line));
  }

  void write(Output& out) override {
    if (p_.sample_paths == 0) return;
    const RankPart::SampleField f = part_->stored(result_);
    if (out.write_share(f.dataset, f.dims, f.first, f.count, f.values))
      set_attributes(*out.file, f.dataset, f.attributes);
  }

 private:
  std::optional<RankPart> part_;  // this rank's streams of batches, and a restart's state
  std::optional<Checkpointing> checkpoints_;
};

class BasketRun final : public EstimateRun<BasketParams, BasketResult> {
 public:
  using EstimateRun::EstimateRun;

  void prepare(const RunSetup& setup) override {
    take(setup);
    sourced(t_, [&] { refuse_basket_run(p_, gpu_, ranks(), !setup.options.restart.empty()); });
    require_needs(t_, basket_needs(p_, gpu_));
  }
  void solve(PhaseTimer& timings, io::ResultFile*) override {
    result_ = gpu_ ? solve_basket_gpu(p_, Stream()) : solve_basket_gold(p_);
    timings.add(result_.timings);
    require_finite_estimates(result_);
  }
  Agreement check() override { return check_run(p_, result_.price, gpu_); }
  void write(Output&) override {}
};

// Either model's sweep: each configuration's estimate timed and judged against the gold
// (study.hpp), the rate in Gpath-steps/s, the check in standard errors, and each row's price
// and standard error.
template <class P>
class EstimateStudy final : public MethodStudy<P, SweepParams> {
 public:
  EstimateStudy(io::ParamTable& t, P p, SweepParams s)
      : MethodStudy<P, SweepParams>(t, sweep_params(std::move(p)), s) {}

  void prepare() override {
    sourced(this->t_, [&] { check_sweep(this->p_); });
    require_needs(this->t_, sweep_needs(this->p_));
    this->stream_.emplace();
    ProgressLine line("gold paths", "path-steps", static_cast<double>(this->p_.steps));
    gold_ = sweep_gold(this->p_, progress_on(line));
    this->configs_ = sweep_configurations(this->p_);
  }
  std::string describe() const override {
    return describe_sweep(this->p_, current_device().name, gold_);
  }
  SweepColumns columns() const override {
    return this->columns_with(
        {"gpath_steps_per_s", "Gpath-steps/s", 14, 2}, std::nullopt,
        {"difference_in_standard_errors", "diff/error", 10, 2},
        {{"price", "price", 10, 6}, {"standard_error", "std error", 10, 2, 'g'}});
  }
  Measurement measure(std::size_t i) override {
    EstimateRow r = montecarlo::measure(this->configs_[i], *this->stream_, this->s_.repeats,
                                        gold_.estimate);
    return measured(std::move(r.row), {r.price, r.standard_error});
  }
  double units_per_run() const override { return path_steps(this->p_); }
  void write_attributes(io::ResultFile& out) const override {
    set_attributes(out, "/sweep", sweep_attributes(this->p_, gold_));
  }
  io::AutotuneKey choice_key() const override {
    return autotune_key("montecarlo", problem_class(this->p_), "float");
  }

 private:
  SweepGold gold_;
};

// model.kind: "basket", or the course's "two-asset" model (the default).
bool is_basket_model(io::ParamTable& t) {
  return io::get_choice(t, "model.kind", std::string(name(Params{}.kind)), parse_model_kind) ==
         ModelKind::basket;
}

// Either model's file: its keys read, and the other's refused where the file sets them; a
// basket's correlation given one way, and read from its file where it names one.
template <class P>
DeclaredFile<P, SweepParams> read_model(io::ParamTable& t, const std::filesystem::path& path) {
  constexpr bool basket = std::is_same_v<P, BasketParams>;
  sourced(t, [&] { refuse_both_correlations(basket && t.has("model.correlation"),
                                            t.has("model.correlation_file")); });
  return read_declared(t, keys(P{}), sweep_keys(), path, [&](P& p, bool) {
    io::refuse_unread(t, other_keys(p));
    if constexpr (basket) sourced(t, [&] { read_correlation(p); });
  });
}

}  // namespace

Binding montecarlo_binding() {
  Binding b{"montecarlo",
            "option prices by Monte Carlo path simulation: the course's two correlated assets, or "
            "baskets of d assets with Greeks and Longstaff-Schwartz early exercise",
            by_model<is_basket_model, declared_run<read_model<Params>, MontecarloRun>,
                     declared_run<read_model<BasketParams>, BasketRun>>,
            by_model<is_basket_model, declared_study<read_model<Params>, EstimateStudy<Params>>,
                     declared_study<read_model<BasketParams>, EstimateStudy<BasketParams>>>};
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
