// tridiag's binding: the whole parameter file read by the solver's declarations, one run of the
// problem it names (tridiag::RunPart: a batch, general or of another kind, the heat march with
// its checkpoints, one long system cut by rows), or the sweep of its variants on one batch
// (tridiag::SweptBatch). Each rank holds its part; what is said is the whole run's.
#include <optional>
#include <set>

#include "apps/progress.hpp"
#include "apps/solver_parts.hpp"
#include "apps/solver_run.hpp"
#include "kernels/finite.hpp"
#include "solvers/tridiag/check.hpp"
#include "solvers/tridiag/keys.hpp"
#include "solvers/tridiag/run_part.hpp"
#include "solvers/tridiag/sweep.hpp"

namespace parasol::app {
namespace {

using tridiag::Params;

tridiag::ProgressCallback shown_on(ProgressLine& line) {
  return [&line](const tridiag::Progress& pr) { line.update(pr.steps, pr.total_steps, pr.seconds); };
}

template <class T>
class TridiagRun final : public SolverRun<Params> {
 public:
  using SolverRun::SolverRun;

  void prepare(const RunSetup& setup) override {
    take(setup);
    march_ = p_.problem == tridiag::Problem::heat;
    if (!march_)
      refuse_restart(setup, std::string(p_.cut == tridiag::Cut::rows ? "one long system"
                                                                      : "a batch") +
                                " is one solve, with nothing to continue; only the heat march "
                                "checkpoints");
    const tridiag::Placement where{
        rank(), ranks(), gpu_, check_,
        [this](const tridiag::Footprint& f, const std::string& what, bool device) {
          require_memory(t_, tridiag::size_key(p_), what + " need", f.device, f.host, device);
        },
        [this](const std::function<void()>& step) { io::with_sources(t_, step); }};
    part_ = tridiag::RunPart<T>::make(p_, where);
    const tridiag::Dims dims = part_->launch_dims();
    if (dims.n > 0) choose_launch(dims.n, dims.systems);
    part_->fit();
    if (march_) prepare_checkpoints(setup, dims.size());
  }

  std::string describe() const override {
    return part_->what() + ", " + std::string(name(p_.precision)) + "; " +
           (gpu_ ? part_->method(launch_) + chosen() + " on " + current_device().name
                 : part_->cpu_method());
  }

  // Checkpoints are written inside the march: their seconds are a phase of their own. One long
  // system's interface across ranks is its exchange.
  void solve(PhaseTimer& timings, io::ResultFile*) override {
    tridiag::PartTimings t;
    if (march_) {
      {
        ProgressLine line("step", "unknowns", static_cast<double>(p_.heat.points * p_.heat.grids));
        tridiag::Marching<T> m{shown_on(line), nullptr, nullptr};
        tridiag::HeatCheckpoints<T> on_gpu;
        tridiag::HeatCheckpoints<double> on_cpu;
        if (gpu_) m.gpu = &(on_gpu = on_gpu_->points());
        else m.gold = &(on_cpu = on_cpu_->points());
        t = part_->solve(*context_, launch_, m);
      }
      checkpoints_->finish("step", p_.heat.steps);
      t.phases.compute =
          std::max(0.0, t.phases.compute - add_checkpoint_phase(timings, *checkpoints_));
    } else {
      t = part_->solve(*context_, launch_, {});
      if (p_.cut == tridiag::Cut::rows && ranks() > 1) timings.add("exchange", t.exchange);
    }
    add_device_phases(timings, t.phases);
    compute_seconds_ = t.phases.compute;
    solve_seconds_ = t.solve_seconds;
    require_finite("tridiag: the solution", part_->x());
    diagnostics_ = part_->diagnostics();
    combine_over_ranks(timings, [&](comm::Context& context) {
      diagnostics_ = tridiag::over_ranks(context, diagnostics_);
      solve_seconds_ = context.all_reduce(solve_seconds_, comm::Op::max);
      compute_seconds_ = context.all_reduce(compute_seconds_, comm::Op::max);
    });
  }

  void report(io::ResultFile& out) override {
    const double rate = solve_seconds_ > 0 ? work() / solve_seconds_ : 0.0;
    out.set_attribute("/timings", "solve_s", solve_seconds_);
    out.set_attribute("/timings", "unknowns_per_s", rate);
    write_ranks(out, part_->decomposition());
    const tridiag::Summary s =
        tridiag::summary(p_, diagnostics_, compute_seconds_, solve_seconds_, rate);
    set_attributes(out, "/diagnostics", s.diagnostics);
    say(s.first);
    if (checkpoints_) checkpoints_->report(out);
    for (const std::string& line : s.more) say(line);
  }

  // A march's gold, when the GPU marched, reports its steps too.
  Agreement check() override {
    if (!march_ || !gpu_) return part_->check(*context_, {});
    ProgressLine line("gold step", "unknowns", static_cast<double>(part_->launch_dims().size()));
    return part_->check(*context_, shown_on(line));
  }

  void write(Output& out) override {
    const tridiag::FieldBlock f = part_->field();
    if (!out.write_part(f.dataset, f.dims, f.offset, f.count, part_->x().data())) return;
    out.file->set_attribute(f.dataset, "layout", f.layout);
    out.file->set_attribute(f.dataset, "units", f.units);
    set_attributes(*out.file, "/input", part_->input());
  }

  double work() const override { return part_->unknowns(); }
  Reproducibility reproducibility() const override { return {true, part_->reproducible_because()}; }

 private:
  static constexpr int kBytes = static_cast<int>(sizeof(T));

  // method.variant = "auto" looked up for systems of n rows (the whole run's), then the launch
  // for this rank's `systems`, or the InputError naming the key at fault (a stored choice's
  // naming the autotune file). p_ then holds the launch that runs, as /method says it.
  void choose_launch(std::int64_t n, std::int64_t systems) {
    const std::int64_t all = part_->systems();
    if (looks_up_choice()) {
      choose_automatic(autotune_key("tridiag", tridiag::problem_class(p_, n, all),
                                    std::string(name(p_.precision))));
      if (auto_.choice)
        auto_.validate("chunk", [&] { (void)tridiag::launch_for(p_, n, all, kBytes); });
    }
    io::with_sources(t_, [&] { launch_ = tridiag::launch_for(p_, n, systems, kBytes); });
    p_ = tridiag::with_launch(p_, launch_);
  }

  // The march's checkpoints: this rank's `values` temperatures after some steps. The GPU keeps
  // them in T in its variant's layout, the gold in contiguous doubles: a checkpoint says which it
  // holds, and a restart on the other backend is refused rather than rounded.
  void prepare_checkpoints(const RunSetup& setup, std::int64_t values) {
    checkpoints_.emplace(p_.checkpoint, setup, "tridiag", t_, std::set<std::string>{"heat.steps"});
    const auto start = [&](auto& march) {
      march.emplace(*checkpoints_, tridiag::held_by(gpu_, launch_.variant, kBytes), share());
      march->restart(static_cast<std::uint64_t>(values), "heat.steps", p_.heat.steps,
                     "the backend and variant",
                     "it holds each rank's grids interleaved point by point, which only the "
                     "same cut reads back");
    };
    if (gpu_) start(on_gpu_);
    else start(on_cpu_);
  }

  // Where this rank's grids lie among the whole run's when the march holds them [grid][point]
  // (every cut marches each grid alike, so a checkpoint continues on any rank count); none when
  // its layout interleaves them.
  std::optional<io::Share> share() const {
    if (!tridiag::held_contiguous(gpu_, launch_.variant)) return std::nullopt;
    const auto points = static_cast<std::uint64_t>(p_.heat.points);
    const tridiag::FieldBlock f = part_->field();
    return contiguous_share(f.dims[0] * points, f.offset[0] * points, f.count[0] * points);
  }

  std::unique_ptr<tridiag::RunPart<T>> part_;
  tridiag::Launch launch_;
  bool march_ = false;  // the heat march, which checkpoints
  tridiag::Diagnostics diagnostics_;  // the whole run's, across ranks
  double compute_seconds_ = 0, solve_seconds_ = 0;
  std::optional<Checkpointing> checkpoints_;
  std::optional<ArrayMarch<tridiag::HeatState<T>>> on_gpu_;       // the march's state, on the GPU
  std::optional<ArrayMarch<tridiag::HeatState<double>>> on_cpu_;  // ... or the gold's
};

// Every variant x threads x chunk on one batch (drawn, read, or one heat step; general systems
// or another kind's) against the copy bandwidth. A configuration that cannot solve the batch is
// skipped with its reason; the others are measured by the sweep-row protocol.
template <class T>
class TridiagStudy final : public MethodStudy<Params, tridiag::SweepParams> {
 public:
  using MethodStudy::MethodStudy;

  void prepare() override {
    batch_.emplace(p_, s_, [&](const tridiag::Footprint& f, const std::string& what) {
      require_memory(t_, tridiag::size_key(p_), what + " need", f.device, f.host, true);
    });
    stream_.emplace();
    measure_copy_roofline(batch_->bytes_per_solve());
    configure(batch_->configurations(), [](Params& c, const tridiag::Configuration& r) {
      c = tridiag::with_launch(c, r.launch);
    });
  }

  std::string describe() const override {
    return batch_->described() + ", " + std::string(name(p_.precision)) + " on " +
           current_device().name + "; " + copy_described() + ", " +
           describe_repeats(s_.repeats, "solves");
  }

  SweepColumns columns() const override {
    return columns_with({"gunknowns_per_s", "Gunknowns/s", 11, 2}, copy_roofline(8),
                        {tridiag::kMeasure, "max rel diff", 12, 2, 'g'});
  }

  Measurement measure(std::size_t i) override {
    const tridiag::Configuration& c = batch_->configurations()[i];
    Measurement m;
    m.skipped = c.skipped;
    if (!c.skipped.empty()) return m;
    if (!c.note.empty()) say(c.note);
    return measured(batch_->steps(c.launch, *stream_, s_.repeats, say));
  }

  double units_per_run() const override { return batch_->unknowns(); }

  void write_attributes(io::ResultFile& out) const override {
    write_copy_bandwidth(out);
    out.set_attribute("/sweep", "bytes_per_solve", bytes_);
    set_attributes(out, "/sweep", batch_->attributes());
  }

  InputError nothing_to_time() const override {
    return InputError(t_.source_of("sweep.variants"), "sweep.variants", batch_->unsolvable());
  }

 private:
  io::AutotuneKey choice_key() const override {
    const tridiag::KindDims& k = batch_->dims();
    return autotune_key("tridiag", tridiag::problem_class(p_, k.n, k.systems),
                        std::string(name(p_.precision)));
  }

  std::optional<tridiag::SweptBatch<T>> batch_;  // made in prepare()
};

// The whole file, its [sweep] table included, read and checked; a relative input.file resolved
// against the file's folder.
DeclaredFile<Params, tridiag::SweepParams> read(io::ParamTable& t,
                                                const std::filesystem::path& params_path) {
  return read_declared(t, tridiag::keys(), tridiag::sweep_keys(), params_path);
}

std::unique_ptr<Study> make_study(io::ParamTable& t, const std::filesystem::path& params_path) {
  auto file = read(t, params_path);
  if (file.params.cut == tridiag::Cut::rows)
    throw InputError(t.source_of("system.cut"), "system.cut",
                     "`parasol sweep` times the variants on whole systems; one long system cut "
                     "by rows has one method (run it with `parasol run`)");
  return study_in_precision<TridiagStudy>(t, std::move(file));
}

}  // namespace

Binding tridiag_binding() {
  Binding b{"tridiag",
            "batched tridiagonal systems: the 1D heat equation by backward Euler (on a line or a "
            "ring), or a batch from HDF5 or a seed; periodic, many right-hand sides, "
            "pentadiagonal and 2x2 blocks too",
            declared_run<read, TridiagRun>, make_study};
  b.keys = [] { return declared(tridiag::keys(), tridiag::sweep_keys()); };
  b.across_ranks = true;
  b.checkpoints = true;
  b.examples = {"inputs/heat1d.toml",           "inputs/tridiag-file.toml",
                "inputs/tridiag-periodic.toml", "inputs/tridiag-rhs.toml",
                "inputs/tridiag-penta.toml",    "inputs/tridiag-block2.toml",
                "inputs/tridiag-study.toml",    "inputs/tridiag-long.toml"};
  return b;
}

}  // namespace parasol::app
