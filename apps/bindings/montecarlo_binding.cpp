// montecarlo's binding: its parameters, what a run prints and writes (the estimate with its
// standard error, sample paths on request), and its sweep over variants, block sizes and
// host-rng's orderings, every row judged against one CPU gold estimate.
#include <algorithm>
#include <optional>
#include <set>

#include "apps/bindings/montecarlo_basket_binding.hpp"
#include "apps/fits.hpp"
#include "apps/progress.hpp"
#include "kernels/device.hpp"
#include "io/read_keys.hpp"
#include "solvers/montecarlo/check.hpp"
#include "solvers/montecarlo/run.hpp"
#include "kernels/finite.hpp"

namespace parasol::app {
namespace {

using montecarlo::Params;
using montecarlo::Variant;
using montecarlo::path_steps;
using montecarlo::SweepParams;

std::string describe_model(const Params& p) {
  return std::to_string(p.paths) + " paths x " + std::to_string(p.steps) + " steps, " +
         std::string(name(p.payoff)) + ", " + std::string(name(p.step)) + " step" +
         (p.antithetic ? ", antithetic" : "");
}

// What only the device can tell: its block limits, and room for host-rng's normals (2 x steps
// floats per sample of a batch) and the stored sample paths.
void check_fits_device(const io::ParamTable& t, const Params& p) {
  check_method_block(t, Shape{p.block, 1, 1});
  require_device_memory(t.source_of("output.sample_paths"), "output.sample_paths",
                        "the sample paths need", montecarlo::sample_path_bytes(p));
  if (p.variant != Variant::host_rng) return;
  const double batch = static_cast<double>(std::min(p.batch_paths, p.paths));
  require_device_memory(t.source_of("method.batch_paths"), "method.batch_paths",
                        "host-rng's normals for a batch of " + short_number(batch) + " paths need",
                        montecarlo::host_rng_bytes(p), ": lower method.batch_paths");
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

// A live line for a long estimate: paths done, path-steps a second, time left.
montecarlo::ProgressCallback progress_on(ProgressLine& line) {
  return [&line](const montecarlo::Progress& pr) {
    line.update(pr.paths, pr.total_paths, pr.seconds);
  };
}

class MontecarloRun final : public SolverRun<Params> {
 public:
  using SolverRun::SolverRun;

  void prepare(const RunSetup& setup) override {
    take(setup);
    if (looks_up_choice()) choose_automatic(montecarlo_key(p_));
    // This rank's stream of batches of its own cut, unless a restart takes over others.
    streams_ = {ranks(), rank(), 1};
    prepare_checkpoints(setup);
    part_ = streams_.samples(p_, montecarlo::cuts_whole_batches(p_, gpu_));
    if (gpu_) check_fits_device(t_, p_);
    // The stored paths, twice when a GPU run is checked against the gold.
    require_host_memory(t_.source_of("output.sample_paths"), "output.sample_paths",
                        "the sample paths need",
                        (gpu_ && check_ ? 2 : 1) * montecarlo::sample_path_bytes(p_));
    // The gold's sums, one a chunk of this rank's samples: run on the CPU, or as --check's gold.
    if (!gpu_ || check_)
      require_host_memory(t_.source_of("paths.count"), "paths.count",
                          "the CPU solver's sums over " + std::to_string(part_.count) +
                              " samples need",
                          montecarlo::gold_host_bytes(part_.count));
  }

  std::string describe() const override {
    return describe_model(p_) + "; " + ran(montecarlo::describe_method(p_, true));
  }

  // Across ranks each simulates its samples (samples_of), and the ranks' integer sums, added in
  // any order, give the one-rank estimate's bits: one small record a rank is all they exchange.
  void solve(PhaseTimer& timings, io::ResultFile*) override {
    {
      ProgressLine line("paths", "path-steps", static_cast<double>(p_.steps));
      if (!checkpoints_->enabled()) {
        result_ = gpu_ ? montecarlo::solve_gpu(p_, progress_on(line), part_)
                       : montecarlo::solve_gold(p_, progress_on(line), part_);
      } else {
        // A batch a round, so that a checkpoint can fall between any two.
        const montecarlo::Checkpoints points = checkpoints_->safe_points<montecarlo::State>(
            from_ ? &*from_ : nullptr,
            [paths = p_.paths](io::CheckpointWriter& w, const montecarlo::State& s) {
              for (const auto& [name, value] : montecarlo::checkpoint_integers(s, paths))
                w.add(name, value);
              w.add("sample", *s.sample);
            });
        result_ =
            montecarlo::solve_in_rounds(p_, gpu_, progress_on(line), streams_, rounds(), points);
      }
    }
    checkpoints_->finish("batch", rounds());
    add_checkpoint_phase(timings, *checkpoints_);
    timings.add("generate", result_.timings.generate);
    timings.add("paths", result_.timings.paths);
    combine_over_ranks(timings, [&](comm::Context& context) {
      result_ = montecarlo::whole_run(context, p_, std::move(result_));
    });
    require_finite("montecarlo: the price", result_.estimate.price);
    require_finite("montecarlo: the price's standard error", result_.estimate.standard_error);
  }

  void report(io::ResultFile& out) override {
    write_estimate(out, result_.estimate, result_.timings.total, path_steps(p_));
    write_ranks(out, montecarlo::cuts_whole_batches(p_, gpu_)
                         ? "whole batches of samples, by global sample index"
                         : "samples by global sample index");
    say_price(result_.estimate);
    say_rate(result_.timings.total, path_steps(p_));
    checkpoints_->report(out);
  }

  double work() const override { return path_steps(p_); }
  Reproducibility reproducibility() const override { return montecarlo_reproducibility(); }

  // The gold's paths, this rank's share of them, are one parallel loop.
  std::int64_t parallel_items() const override {
    return static_cast<std::int64_t>(path_steps(p_) / ranks());
  }

  Agreement check() override {
    ProgressLine line("gold paths", "path-steps", static_cast<double>(p_.steps));
    return montecarlo::check_run(p_, result_.estimate, gpu_, part_, *context_, progress_on(line));
  }

  // The stored paths are the first sample_paths samples, at their places in the whole run;
  // across ranks each writes those it simulated.
  void write(Output& out) override {
    if (p_.sample_paths == 0) return;
    const std::string dataset = "/fields/sample_paths";
    const std::vector<std::uint64_t> dims{static_cast<std::uint64_t>(p_.sample_paths),
                                          static_cast<std::uint64_t>(p_.steps) + 1, 2};
    const montecarlo::Samples rows =
        ranks() == 1 ? montecarlo::Samples{0, p_.sample_paths} : montecarlo::stored_rows(p_, part_);
    if (!out.write_share(dataset, dims, static_cast<std::uint64_t>(rows.first),
                         static_cast<std::uint64_t>(rows.count),
                         result_.sample.data() + rows.first * 2 * (p_.steps + 1)))
      return;
    out.file->set_attribute(dataset, "layout",
                           std::string("[path][time][asset], asset fastest; time n is t = n * dt"));
    out.file->set_attribute(dataset, "dt", p_.maturity / static_cast<double>(p_.steps));
  }

 private:
  // Rounds of batches every rank makes, one checkpoint's step each: those of the cut its streams
  // are of.
  std::int64_t rounds() const {
    return montecarlo::batch_rounds(p_, streams_.ranks, montecarlo::cuts_whole_batches(p_, gpu_));
  }

  // On one rank a restart may run more paths: the batches done are the same ones. Across ranks
  // the path count decides each rank's samples, so it must stay.
  void prepare_checkpoints(const RunSetup& setup) {
    std::set<std::string> may_differ;
    if (ranks() == 1) may_differ.insert("paths.count");
    checkpoints_.emplace(p_.checkpoint, setup, "montecarlo", t_, may_differ);
    // Resuming needs draws that a batch index fixes: device-rng's counter-based Philox streams.
    // cuRAND's host generator, set to a batch's offset, does not give the numbers one generator
    // gave through the batches before (its dynamic ordering lays them out by the launch).
    if (checkpoints_->enabled() && gpu_ && p_.variant == montecarlo::Variant::host_rng)
      throw InputError(t_.source_of("method.variant"), "method.variant",
                       "checkpoints need \"device-rng\": host-rng's cuRAND stream does not resume "
                       "to the same numbers after a restart");
    const io::CheckpointReader* r = checkpoints_->restart();
    if (r == nullptr) return;
    const auto size = static_cast<std::uint64_t>(p_.sample_paths) * 2 *
                      (static_cast<std::uint64_t>(p_.steps) + 1);
    const montecarlo::Written written{
        r->path().string(), r->written_ranks(),
        [r](const std::string& name) { return r->integer(name); },
        [r](const std::string& name, int part) { return r->integer(name, part); },
        [r, size](int part) { return r->floats("sample", size, part); }};
    from_ = montecarlo::resume(p_, written, rank(), ranks(),
                               montecarlo::cuts_whole_batches(p_, gpu_), restart_sample_);
    streams_ = from_->streams;
  }

  montecarlo::Streams streams_;  // the streams of batches this rank runs
  montecarlo::Samples part_;  // the samples this rank simulates: all of them on one rank
  montecarlo::Result result_;
  std::optional<Checkpointing> checkpoints_;
  std::vector<float> restart_sample_;         // a restart's stored sample paths
  std::optional<montecarlo::State> from_;     // a restart's state
};

class MontecarloStudy final : public MethodStudy<Params, SweepParams> {
 public:
  MontecarloStudy(io::ParamTable& t, Params p, SweepParams s)
      : MethodStudy(t, std::move(p), s) {
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
    configs_ = montecarlo::sweep_configurations(p_);
  }

  std::string describe() const override {
    return describe_model(p_) + " on " + current_device().name +
           formatted("; gold %.6f +- %.2g on %lld paths", gold_.price, gold_.standard_error,
                     static_cast<long long>(gold_paths_));
  }

  SweepColumns columns() const override { return sweep_columns(axis_columns(axes())); }

  // The re-check judges the last timed run's estimate: host-rng's draws move on from run to run,
  // so it is a second estimate of its own, judged alike.
  Measurement measure(std::size_t i) override {
    montecarlo::Simulator simulator(configs_[i], *stream_);
    return measured_estimate(
        std::string(name(configs_[i].variant)), timed_on(*stream_, s_.repeats),
        [&] { simulator.run(); }, [&] { return simulator.estimate(); },
        [&](const montecarlo::Estimate& e) { return montecarlo::agreement(e, gold_); });
  }

  double units_per_run() const override { return path_steps(p_); }

  void write_attributes(io::ResultFile& out) const override {
    out.set_attribute("/sweep", "path_steps", path_steps(p_));
    out.set_attribute("/sweep", "gold_paths", gold_paths_);
    out.set_attribute("/sweep", "gold_price", gold_.price);
    out.set_attribute("/sweep", "gold_standard_error", gold_.standard_error);
    out.set_attribute("/sweep", "check_tolerance", montecarlo::kStandardErrors);
  }

  io::AutotuneKey choice_key() const override { return montecarlo_key(p_); }

  InputError nothing_to_time() const override {
    return InputError(t_.source(), "sweep", "no variant and block to time");
  }

 private:
  std::int64_t gold_paths_ = 0;
  montecarlo::Estimate gold_;
};

// The two-asset model's parameters and sweep, the basket's keys refused where the file sets them.
DeclaredFile<Params, SweepParams> read_all(io::ParamTable& t,
                                           const std::filesystem::path& params_path) {
  return read_declared(t, montecarlo::keys(), montecarlo::sweep_keys(), params_path,
                       [&](Params&, bool) { io::refuse_unread(t, montecarlo::basket_keys()); });
}

std::unique_ptr<Run> make_run(io::ParamTable& t, const std::filesystem::path& path) {
  if (is_basket_model(t)) return make_basket_run(t, path);
  return declared_run<read_all, MontecarloRun>(t, path);
}

std::unique_ptr<Study> make_study(io::ParamTable& t, const std::filesystem::path& path) {
  if (is_basket_model(t)) return make_basket_study(t, path);
  return declared_study<read_all, MontecarloStudy>(t, path);
}

}  // namespace

Binding montecarlo_binding() {
  Binding b{"montecarlo",
            "option prices by Monte Carlo path simulation: the course's two correlated assets, or "
            "baskets of d assets with Greeks and Longstaff-Schwartz early exercise",
            make_run, make_study};
  // The course model's keys, then the basket's own, then the [sweep] table's.
  b.keys = [] {
    return declared(montecarlo::keys(), montecarlo::basket_keys(), montecarlo::sweep_keys());
  };
  // Across ranks the course model cuts its samples; a basket run refuses more than one rank.
  b.across_ranks = true;
  b.checkpoints = true;
  b.examples = {"inputs/montecarlo.toml", "inputs/montecarlo-9.6m.toml",
                "inputs/montecarlo-basket.toml", "inputs/montecarlo-american.toml"};
  return b;
}

}  // namespace parasol::app
