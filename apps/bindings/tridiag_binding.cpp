// tridiag's binding: one run of the problem the file names (tridiag::RunPart: a batch, general or
// of another kind, the heat march with its checkpoints, one long system cut by rows), or the
// sweep of its variants on one batch (tridiag::SweptBatch). What is said is the whole run's.
#include <optional>
#include <set>

#include "apps/solver_parts.hpp"
#include "apps/solver_run.hpp"
#include "solvers/tridiag/check.hpp"
#include "solvers/tridiag/keys.hpp"
#include "solvers/tridiag/run_part.hpp"
#include "solvers/tridiag/sweep.hpp"

namespace parasol::app {
namespace {

using tridiag::Params;
constexpr auto read = declared_file<tridiag::keys, tridiag::sweep_keys>;  // the whole file

// The key a launch chosen for systems of n rows is stored under, in the run's precision.
io::AutotuneKey launch_key(const Params& p, std::int64_t n, std::int64_t systems) {
  return autotune_key("tridiag", tridiag::problem_class(p, n, systems),
                      std::string(name(p.precision)));
}

constexpr auto shown =
    shown_on<tridiag::Progress, &tridiag::Progress::steps, &tridiag::Progress::total_steps>;

template <class T>
class TridiagRun final : public SolverRun<Params> {
 public:
  using SolverRun::SolverRun;

  void prepare(const RunSetup& setup) override {
    take(setup);
    const bool march = p_.problem == tridiag::Problem::heat;
    if (!march) refuse_restart(setup, tridiag::why_no_restart(p_));
    const tridiag::Placement where{
        rank(), ranks(), gpu_, check_,
        [this](const tridiag::Footprint& f, const std::string& what, bool device) {
          require_memory(t_, tridiag::size_key(p_), what + " need", f.device, f.host, device);
        },
        [this](const std::function<void()>& step) { io::with_sources(t_, step); }};
    part_ = tridiag::RunPart<T>::make(p_, where);
    const tridiag::Dims dims = part_->launch_dims();
    if (dims.n > 0) choose_launch(dims.n, part_->systems(), dims.systems);
    part_->fit();
    if (!march) return;
    // The march checkpoints its temperatures as tridiag::MarchState says they are held.
    march_.emplace(p_.checkpoint, setup, "tridiag", t_, std::set<std::string>{"heat.steps"}, gpu_,
                   part_->march_state(launch_));
  }

  std::string describe() const override {
    return part_->what() + ", " + std::string(name(p_.precision)) + "; " +
           (gpu_ ? ran(part_->method(launch_)) : part_->cpu_method());
  }

  // A march's checkpoints are a phase of their own; one long system's interface, its exchange.
  void solve(PhaseTimer& timings, io::ResultFile*) override {
    PhaseTimer t;
    if (march_) {
      {
        ProgressLine line("step", "unknowns", static_cast<double>(p_.heat.points * p_.heat.grids));
        t = part_->solve(*context_, launch_, {shown(line), march_->gpu(), march_->gold()});
      }
      march_->checkpoints().finish("step", p_.heat.steps);
    } else {
      t = part_->solve(*context_, launch_, {});
    }
    add_device_phases(timings, t, 0, march_ ? &march_->checkpoints() : nullptr);
    require_finite("tridiag: the solution", part_->x());
    // The solves alone are a part of compute, which the summary says (solve_s): not a phase.
    part_->keep(timings);
    timings.drop(tridiag::kSolves);
    combine_over_ranks(timings, [&](comm::Context& context) { part_->combine(context); });
  }

  void report(io::ResultFile& out) override {
    const tridiag::Summary s = part_->summary();
    set_attributes(out, "/timings", s.timings);
    write_ranks(out, part_->decomposition());
    set_attributes(out, "/diagnostics", s.diagnostics);
    say(s.first);
    if (march_) march_->checkpoints().report(out);
    for (const std::string& line : s.more) say(line);
  }

  // A march's gold, when the GPU marched, reports its steps too.
  Agreement check() override {
    if (!march_ || !gpu_) return part_->check(*context_, {});
    ProgressLine line("gold step", "unknowns", static_cast<double>(part_->launch_dims().size()));
    return part_->check(*context_, shown(line));
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
  // method.variant = "auto" looked up for `all` systems of n rows (the whole run's), then the
  // launch for this rank's `systems`, or the InputError naming the key at fault (a stored
  // choice's naming the autotune file). p_ then holds the launch that runs, as /method says it.
  void choose_launch(std::int64_t n, std::int64_t all, std::int64_t systems) {
    if (looks_up_choice()) choose_automatic(launch_key(p_, n, all));
    if (auto_.choice)
      auto_.validate("chunk", [&] { (void)tridiag::launch_for(p_, n, all, sizeof(T)); });
    io::with_sources(t_, [&] { launch_ = tridiag::launch_for(p_, n, systems, sizeof(T)); });
    p_ = tridiag::with_launch(p_, launch_);
  }

  std::unique_ptr<tridiag::RunPart<T>> part_;
  tridiag::Launch launch_;
  // The heat march's checkpoints, which alone checkpoints.
  std::optional<BackendMarch<tridiag::HeatState<T>, tridiag::HeatState<double>>> march_;
};

// Every variant x threads x chunk on one batch (tridiag::SweptBatch) against the copy bandwidth;
// a configuration that cannot solve the batch is skipped with its reason.
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
    configs_ = batch_->launch_params(p_);
  }

  std::string describe() const override {
    return batch_->header() + " on " + current_device().name + "; " + copy_described() + ", " +
           describe_repeats(s_.repeats, "solves");
  }

  SweepColumns columns() const override {
    return columns_with({"gunknowns_per_s", "Gunknowns/s", 11, 2}, copy_roofline(8),
                        {tridiag::kMeasure, "max rel diff", 12, 2, 'g'});
  }

  Measurement measure(std::size_t i) override {
    const tridiag::Configuration& c = batch_->configurations()[i];
    if (!c.skipped.empty()) return skipped(c.skipped);
    return measured(batch_->steps(c, *stream_, s_.repeats, say));
  }

  double units_per_run() const override { return batch_->unknowns(); }

  void write_attributes(io::ResultFile& out) const override {
    write_copy_bandwidth(out);
    set_attributes(out, "/sweep", batch_->attributes());
  }

  InputError nothing_to_time() const override {
    return InputError(t_.source_of("sweep.variants"), "sweep.variants", batch_->unsolvable());
  }

 private:
  io::AutotuneKey choice_key() const override {
    return launch_key(p_, batch_->dims().n, batch_->dims().systems);
  }

  std::optional<tridiag::SweptBatch<T>> batch_;  // made in prepare()
};

std::unique_ptr<Study> make_study(io::ParamTable& t, const std::filesystem::path& params_path) {
  auto file = read(t, params_path);
  sourced(t, [&] { tridiag::require_sweepable(file.params); });
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
