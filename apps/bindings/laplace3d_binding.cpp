// laplace3d's binding: its parameters, what a run prints and writes, its sweep over variants and
// block shapes, and the autotune choice that method.variant = "auto" runs. A rank's slab, the
// memory a run needs, its checkpoint's record, its /method across ranks and the account of its
// stop are the solver's (solvers/laplace3d/run.hpp, stop.hpp); its sweep's configurations and
// their "not compiled" refusal are keys.hpp's, its rows study.hpp's.
#include <optional>
#include <set>

#include "apps/solver_run.hpp"
#include "kernels/device.hpp"
#include "kernels/finite.hpp"
#include "solvers/laplace3d/keys.hpp"
#include "solvers/laplace3d/run.hpp"
#include "solvers/laplace3d/stop.hpp"
#include "solvers/laplace3d/study.hpp"

namespace parasol::app {
namespace {

using laplace3d::Params;
using laplace3d::SweepParams;
// The parameters and the [sweep] table, method.variant = "auto" settled (laplace3d::settle).
constexpr auto read = declared_file<laplace3d::keys, laplace3d::sweep_keys, laplace3d::settle>;

// The problem class of a choice: the grid, exactly ("512x512x512").
io::AutotuneKey laplace3d_key(const Params& p) {
  return autotune_key("laplace3d", laplace3d::extent_text(p), std::string(name(p.precision)));
}

template <class T>
class Laplace3dRun final : public GridRun<Params> {
 public:
  using GridRun::GridRun;

  void prepare(const RunSetup& setup) override {
    take(setup);
    if (looks_up_choice()) choose_automatic(laplace3d_key(p_));
    io::with_sources(t_, [&] { part_ = laplace3d::run_part(p_, gpu_, rank(), ranks()); });
    const double points = static_cast<double>(parallel_items());
    if (gpu_) check_fits_device(t_, p_.block, std::vector{laplace3d::device_need(p_, points)});
    if (gpu_ && ranks() > 1) slab_comm_.emplace(*context_, transport_);  // set up meanwhile
    require_file_needs(t_, std::vector{laplace3d::host_need(p_, gpu_, points, sizeof(T))});
    // A restart may run on for more iterations, or to another tolerance; the problem is the same.
    // It reads this rank's local planes, halos included, from whichever ranks' parts hold them:
    // every cut gives the one-rank run's bits, so a checkpoint continues on any rank count.
    const io::Share share = planes_share(part_.plane_points(), p_.grid.nz, part_.first_global(),
                                         part_.slab.begin, part_.slab.end);
    march_.emplace(p_.checkpoint, setup, "laplace3d", t_,
                   std::set<std::string>{"iteration.max_iterations", "iteration.tolerance"}, share);
    march_->resume(static_cast<std::uint64_t>(points),
                   [&](const io::CheckpointReader& r, laplace3d::State<T>& s) {
                     s.iterations = laplace3d::read_state(r, p_, s.checks);
                   });
  }

  std::string describe() const override {
    return laplace3d::extent_text(p_) + " " + std::string(name(p_.precision)) + ", " +
           ran(described_method()) + ", up to " +
           std::to_string(p_.max_iterations) + " iterations";
  }

  void solve(PhaseTimer& timings, io::ResultFile*) override {
    const laplace3d::Checkpoints<T> points = march_->points(laplace3d::fill_state<T>);
    {
      ProgressLine line("iteration", "points", static_cast<double>(p_.grid.points()));
      const laplace3d::ProgressCallback report = [&](const laplace3d::Progress& pr) {
        line.update(pr.iterations, pr.max_iterations, pr.seconds,
                    "max|du| " + short_number(pr.last_change));
      };
      result_ = laplace3d::solve<T>(p_, gpu_, *context_, transport_, overlap_, report, &points,
                                    slab_comm_ ? &*slab_comm_ : nullptr);
    }
    if (ranks() > 1) timings.add(phase::exchange, result_.exchange_seconds);
    march_->finish("iteration", p_.max_iterations);
    // validate() keeps boundary values within FLT_MAX / 6 (require_representable), and a Jacobi
    // update averages its neighbours, so no test can make this fail; it guards the kernels.
    require_finite("laplace3d: the field u", result_.u);
    // The slab solve's loop holds its halo exchanges and convergence maxima, timed apart as
    // "exchange" (with the exchange behind the interior sweep, its hidden share is counted as
    // exchange), and the checkpoints it writes.
    add_device_phases(timings, result_.timings, result_.exchange_seconds, &*march_);
  }

  void report(io::ResultFile& out) override {
    set_attributes(out, "/diagnostics", laplace3d::stop_diagnostics(stop()));
    write_ranks(out, "slabs of z planes");
    set_attributes(out, "/method",
                   laplace3d::method_across_ranks(ranks(), gpu_, overlap_, result_.route));
    for (const std::string& line : laplace3d::stop_lines(stop())) say(line);
    const double compute = result_.timings.seconds(phase::compute);
    report_rate(out, "gpoints_per_s", compute, 1e-9 * work() / compute, "Gpoints/s");
    march_->report(out);
  }

  std::optional<std::string> unconverged() const override { return laplace3d::unmet(stop()); }

  Reproducibility reproducibility() const override {
    return {true, laplace3d::kReproducibleBecause};
  }

  Agreement check() override {
    return laplace3d::check_run(p_, result_.u, result_.iterations, *context_);
  }

  // Every point, once for each iteration this run made: a restart's begin where its checkpoint's
  // ended.
  double work() const override {
    const std::int64_t from = march_->from() ? march_->from()->iterations : 0;
    return static_cast<double>(p_.grid.points()) * static_cast<double>(result_.iterations - from);
  }

  // One sweep of this rank's planes is one parallel loop.
  std::int64_t parallel_items() const override { return part_.local().points(); }

  void write(Output& out) override {
    const io::UniformGrid3 grid = uniform_grid(p_.grid.nx, p_.grid.ny, p_.grid.nz, p_.spacing);
    if (out.write_share("/fields/u", grid_dims(grid), std::uint64_t(part_.slab.begin),
                        std::uint64_t(part_.owned()), result_.u.data()))
      // u is the boundary values' average: whatever unit they are in, it is in too.
      out.describe_grid_field("/fields/u", "u", grid, "as the boundary values", int(sizeof(T)));
  }

 private:
  laplace3d::StopReport stop() const { return laplace3d::stop_report(result_, p_.tolerance); }

  laplace3d::SlabPart part_;  // this rank's planes: the whole grid on one rank
  std::optional<laplace3d::SlabComm> slab_comm_;  // their halos' communicator, on the GPU
  laplace3d::SlabResult<T> result_;  // this rank's planes: the whole grid on one rank
  std::optional<FieldMarch<laplace3d::State<T>>> march_;  // its checkpoints
};

template <class T>
class Laplace3dStudy final : public MethodStudy<Params, SweepParams> {
 public:
  using MethodStudy::MethodStudy;

  void prepare() override {
    const double points = static_cast<double>(p_.grid.points());
    check_fits_device(t_, p_.block, std::vector{laplace3d::device_need(p_, points)});
    measure_copy_roofline(laplace3d::bytes_per_sweep(p_.grid, sizeof(T)));
    study_.emplace(p_, s_.check_iterations, context_, transport_);
    configs_ = laplace3d::sweep_configurations(p_, s_);
  }

  std::string describe() const override {
    return laplace3d::extent_text(p_) + " " + std::string(name(p_.precision)) + " on " +
           current_device().name + "; " + copy_described();
  }

  SweepColumns columns() const override {
    return columns_with({"gpoints_per_s", "Gpoints/s", 10, 1}, copy_roofline(9),
                        {"max_abs_diff", "max|diff|", 11, 3, 'g'});
  }

  Measurement measure(std::size_t i) override {
    const Params& c = configs_[i];
    return measurement_of(study_->measure(c.variant, c.block, s_.iterations, s_.repeats));
  }

  double units_per_run() const override { return static_cast<double>(p_.grid.points()); }

  void write_attributes(io::ResultFile& out) const override {
    write_copy_bandwidth(out);
    out.set_attribute("/sweep", "bytes_per_point", 2.0 * sizeof(T));
    out.set_attribute("/sweep", "check_tolerance",
                      laplace3d::tolerance<T>(s_.check_iterations, study_->scale()));
  }

  io::AutotuneKey choice_key() const override { return laplace3d_key(p_); }

  InputError nothing_to_time() const override {
    return InputError(t_.source_of("sweep.blocks"), "sweep.blocks",
                      "no listed block is compiled for the listed variants");
  }

  bool sweeps_across_ranks() const override { return true; }

 private:
  std::optional<laplace3d::ShapeStudy<T>> study_;  // made once a device is known to be there
};

std::unique_ptr<Study> make_study(io::ParamTable& t, const std::filesystem::path& path) {
  auto file = read(t, path);
  sourced(t, [&] { laplace3d::require_compiled(file.sweep); });
  return study_in_precision<Laplace3dStudy>(t, std::move(file));
}

}  // namespace

Binding laplace3d_binding() {
  Binding b{"laplace3d", "3D Laplace equation by Jacobi iteration (7-point stencil)",
            declared_run<read, Laplace3dRun>, make_study};
  b.keys = [] { return declared(laplace3d::keys(), laplace3d::sweep_keys()); };
  b.across_ranks = true;
  b.checkpoints = true;
  b.examples = {"inputs/laplace3d.toml", "inputs/laplace3d-512.toml"};
  return b;
}

}  // namespace parasol::app
