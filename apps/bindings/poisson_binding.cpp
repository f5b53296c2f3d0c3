// poisson's binding: what a run reads, prints, records and writes. The solve on either backend
// and any rank count, its check, the order study, the cycles a checkpoint records and the
// summary's words are the solver's (solvers/poisson/run.hpp); its sweep rows are study.hpp's.
#include <chrono>
#include <set>

#include "apps/solver_run.hpp"
#include "kernels/finite.hpp"
#include "solvers/poisson/inputs.hpp"
#include "solvers/poisson/keys.hpp"
#include "solvers/poisson/run.hpp"
#include "solvers/poisson/study.hpp"

namespace parasol::app {
namespace {

using poisson::Params;
using poisson::SourceKind;
using poisson::SweepParams;
constexpr auto read = declared_file<poisson::keys, poisson::sweep_keys>;

template <class T>
class PoissonRun final : public GridRun<Params> {
 public:
  using GridRun::GridRun;

  void prepare(const RunSetup& setup) override {
    take(setup);
    io::with_sources(t_, [&] {
      poisson::settle_variant(p_, gpu_, ranks(), t_.has("method.variant"));
      cuts_ = poisson::refinement_cuts(p_, rank(), ranks());
    });
    require_host_memory(t_.source(), "grid", "a " + poisson::extent_text(p_) + " grid needs",
                        poisson::host_bytes(p_, cuts_[0].planes(), sizeof(T),
                                            made_on_device() && !check_));
    // A file's planes are read now, each rank its own, a complaint said at its key's line.
    if (p_.source.kind == SourceKind::file)
      f_ = sourced(t_, [&] { return poisson::source_planes(p_, cuts_[0].begin, cuts_[0].end); });
    // A restart may run more cycles, or to another tolerance; the problem is the same. It reads
    // this rank's planes of u from whichever parts hold them (any cut gives the one-rank bits),
    // and every cycle's report so far: whole on every rank.
    const io::Share s = planes_share(p_.nx * p_.ny, p_.nz, cuts_[0].begin, cuts_[0].begin,
                                     cuts_[0].end);
    march_.emplace(p_.checkpoint, setup, "poisson", t_,
                   std::set<std::string>{"iteration.max_cycles", "iteration.tolerance"}, s);
    march_->resume(s.owned_end - s.owned_begin,
                   [&](const io::CheckpointReader& r, poisson::State<T>& from) {
                     from.cycles = poisson::read_cycles(r, p_);
                   });
  }

  std::string describe() const override {
    return poisson::run_text(p_, ran(std::string(name(p_.variant))));
  }

  void solve(PhaseTimer& timings, io::ResultFile*) override {
    const auto start = std::chrono::steady_clock::now();
    if (!made_on_device()) make_host_source();
    const double host_setup = seconds_since(start);
    const double comm_before = context_->comm_seconds();
    ProgressLine line("cycle", "unknowns", static_cast<double>(p_.cells()));
    const poisson::CycleCallback progress = [&](std::int64_t cycle, const poisson::CycleReport& c,
                                                double seconds) {
      line.update(cycle, p_.max_cycles, seconds, "residual " + poisson::sci(c.residual_max));
    };
    const poisson::Checkpoints<T> points = march_->points(poisson::fill_state<T>);
    run_ = poisson::solve_run(p_, f_, u_, gpu_, *context_, progress, &points);
    // The making of f on the device, and of its solver, is the run's setup.
    timings.add(phase::setup, host_setup);
    timings.add(run_.timings);
    if (made_on_device()) shift_ = run_.shift;
    // Across ranks the halo exchanges, gathers and norms' all-reduces are timed apart as
    // "exchange" (the waits for slower ranks among them), so the phases add up to the wall.
    const double exchange =
        context_->comm_seconds() - comm_before + run_.outcome.device_exchange_seconds;
    double compute = run_.outcome.seconds - exchange;
    finish_march(timings, *march_, "V-cycle", p_.max_cycles, compute);
    // A converging multigrid stays within the size of the solution; a NaN or infinity means the
    // data overflowed T (validate() keeps the face values representable, not f's products).
    require_finite("poisson: the field u", u_);
    timings.add(phase::compute, compute);
    if (ranks() > 1) timings.add(phase::exchange, exchange);
    if (p_.source.kind != SourceKind::manufactured) return;
    const auto study = std::chrono::steady_clock::now();
    errors_ = poisson::run_errors(p_, run_, u_, cuts_, gpu_, *context_);
    if (p_.refinements > 1) timings.add(poisson::kRefinementsPhase, seconds_since(study));
  }

  void report(io::ResultFile& out) override {
    const poisson::Outcome& o = run_.outcome;
    set_attributes(out, "/diagnostics", poisson::diagnostics(p_, o, shift_, errors_));
    write_ranks(out, "slabs of z planes");
    for (const std::string& line : poisson::summary_lines(p_, o, shift_, errors_)) say(line);
    report_rate(out, "munknowns_per_s", o.seconds, 1e-6 * work() / o.seconds, "M unknowns/s");
    march_->report(out);
  }

  std::optional<std::string> unconverged() const override {
    return poisson::unconverged(p_, run_.outcome);
  }

  Reproducibility reproducibility() const override {
    return {true, poisson::kReproducibleBecause};
  }

  Agreement check() override {
    // The check's cost, not the run's: f on the host only now, where the device made the run's.
    if (made_on_device() && f_.empty()) make_host_source();
    return poisson::check_run(p_, f_, u_, gpu_, *context_, cuts_[0].begin);
  }

  // One solve of the grid's cells: the unit of the sweep's rate (G unknowns/s).
  double work() const override { return static_cast<double>(p_.cells()); }

  // One smoother sweep of this rank's planes of the finest level is one parallel loop.
  std::int64_t parallel_items() const override {
    return cuts_.empty() ? p_.cells() : p_.nx * p_.ny * cuts_[0].planes();
  }

  void write(Output& out) override {
    if (out.write_planes("/fields/u", "u", poisson::field_grid(p_), cuts_[0].begin,
                         cuts_[0].planes(), u_.data()))
      set_attributes(*out.file, "/fields/u", poisson::field_attributes(p_));
  }

 private:
  bool made_on_device() const { return poisson::made_on_device(p_, gpu_); }
  // f_ on the host, compatible when singular (a file's planes were read at prepare).
  void make_host_source() { shift_ = poisson::host_source(p_, f_, *context_, cuts_[0]); }

  // The source, in double, compatible when the problem is singular; empty where the device made
  // it, until a check asks for it.
  std::vector<double> f_;
  double shift_ = 0;       // subtracted from f for a singular problem
  std::vector<T> u_;
  poisson::DeviceSolve run_;  // the solve: its outcome, and what the device's making of f measured
  std::vector<poisson::DiscretisationError> errors_;  // manufactured: this grid's, then coarser
  std::vector<poisson::SlabCut> cuts_;  // this rank's planes of this grid, then each coarser one
  std::optional<FieldMarch<poisson::State<T>>> march_;  // its checkpoints
};

template <class T>
class PoissonStudy final : public MethodStudy<Params, SweepParams> {
 public:
  using MethodStudy::MethodStudy;

  void prepare() override {
    configs_ = poisson::sweep_configurations(p_, s_);
    study_.emplace(p_, sourced(t_, [&] { return poisson::compatible_source(p_); }));
  }

  std::string describe() const override {
    return poisson::problem_text(p_) + " on " + current_device().name;
  }

  SweepColumns columns() const override {
    return columns_with({"gunknowns_per_s", "Gunknowns/s", 12, 2}, std::nullopt,
                        {"relative_residual_l2", "rel resid", 11, 3, 'g'},
                        {{"cycles", "cycles", 7, 0}});
  }

  Measurement measure(std::size_t i) override {
    poisson::CycleMeasurement r = study_->measure(configs_[i], s_.repeats);
    return measured(std::move(r.row), {r.cycles});
  }

  // One solve: FMG and V-cycles to the tolerance, over the grid's cells.
  double units_per_run() const override { return static_cast<double>(p_.cells()); }

  void write_attributes(io::ResultFile& out) const override {
    out.set_attribute("/sweep", "cells", p_.cells());
  }

  InputError nothing_to_time() const override {
    return InputError(t_.source_of("sweep.variants"), "sweep.variants",
                      "at least one variant, smoother and cycle");
  }

 private:
  std::optional<poisson::CycleStudy<T>> study_;  // the source and the gold's solve of it
};

}  // namespace

Binding poisson_binding() {
  Binding b{"poisson",
            "3D Poisson and Helmholtz equations by geometric multigrid (Dirichlet, Neumann and "
            "periodic faces)",
            declared_run<read, PoissonRun>, declared_study<read, PoissonStudy>};
  b.keys = [] { return declared(poisson::keys(), poisson::sweep_keys()); };
  b.across_ranks = true;
  b.checkpoints = true;
  b.examples = {"inputs/poisson.toml", "inputs/poisson-periodic.toml", "inputs/poisson-512.toml",
                "inputs/poisson-laplace.toml"};
  return b;
}

}  // namespace parasol::app
