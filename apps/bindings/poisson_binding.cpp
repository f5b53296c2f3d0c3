// poisson's binding: the source made or read, the multigrid solved (the CPU gold, or the GPU's
// DeviceSolver where this build has it; across ranks the gold's slabs, or the GPU's plain variant
// on the same slabs, device_slab.hpp), and an honest account of it: the residual norms and
// convergence factor of every cycle, the stop reason, and on a manufactured solution the
// discretisation error and, over study.refinements grids, the observed order of accuracy.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "apps/fits.hpp"
#include "apps/progress.hpp"
#include "apps/solver_run.hpp"
#include "comm/over_ranks.hpp"
#include "io/input_file.hpp"
#include "io/read_keys.hpp"
#include "io/xdmf.hpp"
#include "kernels/finite.hpp"
#include "solvers/poisson/check.hpp"
#include "solvers/poisson/keys.hpp"
#include "solvers/poisson/poisson.hpp"
#include "solvers/poisson/problem.hpp"
#include "solvers/poisson/slab.hpp"
#if __has_include("solvers/poisson/device.hpp")
#include "solvers/poisson/device.hpp"
#include "solvers/poisson/device_slab.hpp"
#define PARASOL_POISSON_DEVICE 1
#endif

namespace parasol::app {
namespace {

using poisson::Cycle;
using poisson::Outcome;
using poisson::Params;
using poisson::SourceKind;
using poisson::SweepParams;

std::string extent(std::int64_t nx, std::int64_t ny, std::int64_t nz) {
  return std::to_string(nx) + "x" + std::to_string(ny) + "x" + std::to_string(nz);
}
std::string extent(const Params& p) { return extent(p.nx, p.ny, p.nz); }

// "9.6e-05": residuals and errors a decade apart line up as orders of magnitude.
std::string sci(double value) { return formatted("%.1e", value); }

// "FMG + V(2,2) rbgs".
std::string method(const Params& p) {
  return std::string(p.cycle == Cycle::fmg ? "FMG + " : "") + "V(" + std::to_string(p.pre_sweeps) +
         "," + std::to_string(p.post_sweeps) + ") " + std::string(name(p.smoother));
}

// The grid of refinement `r` below the run's: each side halved r times, the spacing doubled.
Params coarser(const Params& p, std::int64_t r) {
  Params q = p;
  q.nx >>= r;
  q.ny >>= r;
  q.nz >>= r;
  const double scale = static_cast<double>(std::int64_t{1} << r);
  q.hx *= scale;
  q.hy *= scale;
  q.hz *= scale;
  q.refinements = 1;
  return q;
}

// f from source.file: planes [z_begin, z_end) of its nz x ny x nx values, x fastest, in double.
// Each rank reads only its own planes.
std::vector<double> read_source(const io::ParamTable& t, const Params& p, std::int64_t z_begin,
                                std::int64_t z_end) {
  const char* key = "source.dataset";
  const std::unique_ptr<io::ResultReader> in = io::open_input_file(p.source.file, "source.file");
  const std::vector<std::uint64_t> dims =
      io::naming_key(key, [&] { return in->dataset_dims<double>(p.source.dataset, {3}); });
  const std::vector<std::uint64_t> want{static_cast<std::uint64_t>(p.nz),
                                        static_cast<std::uint64_t>(p.ny),
                                        static_cast<std::uint64_t>(p.nx)};
  if (dims != want)
    throw InputError(t.source_of(key), key,
                     "expected a dataset of " + io::shape_text(want) +
                         " values ([nz][ny][nx], the grid's cells), got " + io::shape_text(dims) +
                         " in " + p.source.file);
  std::vector<double> f = io::naming_key(key, [&] {
    return in->read_rows<double>(p.source.dataset, static_cast<std::uint64_t>(z_begin),
                                 static_cast<std::uint64_t>(z_end - z_begin), {3});
  });
  for (std::size_t c = 0; c < f.size(); ++c)
    if (!std::isfinite(f[c]))
      throw InputError(t.source_of(key), key,
                       "expected finite values of f, found " + std::to_string(f[c]) +
                           " at cell " + std::to_string(static_cast<std::uint64_t>(z_begin) *
                                                            want[1] * want[2] + c) +
                           " of " + p.source.file);
  return f;
}

// Each cycle's residual norms and factor as three series (/diagnostics and a checkpoint hold them
// so).
struct CycleSeries {
  std::vector<double> max, l2, factor;
  explicit CycleSeries(const std::vector<poisson::CycleReport>& cycles) {
    for (const poisson::CycleReport& c : cycles) {
      max.push_back(c.residual_max);
      l2.push_back(c.residual_l2);
      factor.push_back(c.factor);
    }
  }
};

template <class T>
class PoissonRun final : public SolverRun<Params> {
 public:
  using SolverRun::SolverRun;

  void prepare(const RunSetup& setup) override {
    take(setup);
#ifndef PARASOL_POISSON_DEVICE
    if (gpu_)
      throw parasol::Error(
          "poisson: the GPU multigrid is not in this build yet; run with --backend cpu");
#endif
    // Across ranks the GPU runs the plain variant's cycles on slabs of planes (device_slab.hpp):
    // the fused pass marches each tile through a level's whole z range. The default variant gives
    // way (describe() and /method say which ran); one asked for by name is refused.
    if (gpu_ && ranks() > 1 && p_.variant != poisson::Variant::plain) {
      if (t_.has("method.variant"))
        throw InputError(t_.source_of("method.variant"), "method.variant",
                         "\"plain\" on the GPU across ranks (the fused variant runs on one "
                         "rank), or --backend cpu; got \"" + std::string(name(p_.variant)) +
                             "\" on " + std::to_string(ranks()) + " ranks");
      p_.variant = poisson::Variant::plain;
    }
    // This rank's planes, of this grid and of each coarser one of the order study.
    io::with_sources(t_, [&] {
      for (std::int64_t r = 0; r < p_.refinements; ++r)
        cuts_.push_back(poisson::slab_cut(coarser(p_, r), rank(), ranks()));
    });
    // The levels hold four fields each (x, b, r and the smoother's scratch) in T: 8/7 of the
    // grid's cells on a cube, up to twice them where one axis halves alone; f, the gold's u and
    // the manufactured solution are in double beside them.
    double hierarchy = 0;
    for (const poisson::Level& l : poisson::levels(p_))
      hierarchy += static_cast<double>(l.cells()) / static_cast<double>(p_.cells());
    const double cells = static_cast<double>(p_.nx * p_.ny * cuts_[0].planes());
    require_host_memory(t_.source(), "grid", "a " + extent(p_) + " grid needs",
                        cells * (4.0 * hierarchy * sizeof(T) + 3.0 * sizeof(double)));
    if (p_.source.kind == SourceKind::file) f_ = read_source(t_, p_, cuts_[0].begin, cuts_[0].end);
    // A restart may run more cycles, or to another tolerance; the problem is the same.
    checkpoints_.emplace(p_.checkpoint, setup, "poisson", t_,
                         std::set<std::string>{"iteration.max_cycles", "iteration.tolerance"});
    if (const io::CheckpointReader* r = checkpoints_->restart()) {
      // This rank's planes of the fine level, without halos, from whichever ranks' parts hold
      // them (every cut gives the one-rank bits), and every cycle's report so far.
      const io::Share s = share();
      restart_u_ = restart_values<T>(*r, "u", s.first, s.owned_end - s.owned_begin, s.total);
      const auto reports = static_cast<std::uint64_t>(r->integer("cycles"));
      // The reports are the same on every rank: whole shares of their own.
      const auto whole = [&](const char* name) { return r->doubles(name, 0, reports, reports); };
      const std::vector<double> max = whole("residual_max"), l2 = whole("residual_l2"),
                                factor = whole("factor");
      from_.emplace();
      for (std::size_t i = 0; i < reports; ++i) from_->cycles.push_back({max[i], l2[i], factor[i]});
      from_->u = restart_u_.data();
      from_->points = static_cast<std::int64_t>(restart_u_.size());
      if (reports == 0 || from_->step(fmg()) > p_.max_cycles)
        throw past_the_end(*r, "V-cycle " + std::to_string(from_->step(fmg())),
                           "iteration.max_cycles", p_.max_cycles);
    }
  }

  std::string describe() const override {
    return extent(p_) + " cells " + std::string(name(p_.precision)) + ", " + method(p_) + ", " +
           ran(std::string(name(p_.variant))) + ", tolerance " + formatted("%g", p_.tolerance);
  }

  std::vector<std::filesystem::path> sidecars(const std::filesystem::path& result) const override {
    return {io::xdmf_path_for(result)};
  }

  void write_method(io::ResultFile& out) const override {
    out.set_attribute("/method", "variant", std::string(name(p_.variant)));
    out.set_attribute("/method", "smoother", std::string(name(p_.smoother)));
    out.set_attribute("/method", "cycle", std::string(name(p_.cycle)));
    write_chosen_by(out);
  }

  void solve(PhaseTimer& timings, io::ResultFile*) override {
    const auto start = std::chrono::steady_clock::now();
    const poisson::SlabCut& cut = cuts_[0];
    if (p_.source.kind != SourceKind::file) f_ = poisson::make_source(p_, cut.begin, cut.end);
    shift_ = poisson::make_compatible(p_, f_, context_, cut.begin, cut.end);
    timings.add("setup", seconds_since(start));
    const double comm_before = context_->comm_seconds();
    ProgressLine line("cycle", "unknowns", static_cast<double>(p_.cells()));
    const poisson::CycleCallback progress = [&](std::int64_t cycle, const poisson::CycleReport& c,
                                                double seconds) {
      line.update(cycle, p_.max_cycles, seconds, "residual " + sci(c.residual_max));
    };
    const poisson::Checkpoints<T> points = checkpoints_->safe_points<poisson::State<T>>(
        from_ ? &*from_ : nullptr,
        [share = share()](io::CheckpointWriter& w, const poisson::State<T>& s) {
          const CycleSeries series(s.cycles);
          w.add("cycles", static_cast<std::int64_t>(s.cycles.size()));
          w.add("u", s.u, static_cast<std::uint64_t>(s.points), share);
          const auto n = static_cast<std::uint64_t>(series.max.size());
          const io::Share all{n, 0, 0, n};
          w.add("residual_max", series.max.data(), n, all);
          w.add("residual_l2", series.l2.data(), n, all);
          w.add("factor", series.factor.data(), n, all);
        });
    outcome_ = solve_in_place(p_, f_, u_, progress, &points);
    checkpoints_->finish("V-cycle", p_.max_cycles);
    // Across ranks the halo exchanges, gathers and norms' all-reduces are timed apart as
    // "exchange" (the waits for slower ranks among them), so the phases add up to the wall.
    const double exchange = context_->comm_seconds() - comm_before;
    // A converging multigrid stays within the size of the solution; a NaN or infinity means the
    // data overflowed T (validate() keeps the face values representable, not f's products).
    require_finite("poisson: the field u", u_);
    // Checkpoints are written between cycles, inside the solve: their seconds are a phase apart.
    const double checkpointing = add_checkpoint_phase(timings, *checkpoints_);
    timings.add("compute", std::max(0.0, outcome_.seconds - exchange - checkpointing));
    if (ranks() > 1) timings.add("exchange", exchange);

    if (p_.source.kind != SourceKind::manufactured) return;
    const auto study = std::chrono::steady_clock::now();
    errors_.push_back(poisson::discretisation_error(p_, u_, poisson::manufactured_solution(p_, cut.begin, cut.end),
                                    *context_, cut.begin));
    for (std::int64_t r = 1; r < p_.refinements; ++r) {
      const Params q = coarser(p_, r);
      const poisson::SlabCut& c = cuts_[static_cast<std::size_t>(r)];
      std::vector<double> f = poisson::make_source(q, c.begin, c.end);
      poisson::make_compatible(q, f, context_, c.begin, c.end);
      std::vector<T> u;
      (void)solve_in_place(q, f, u);
      errors_.push_back(
          poisson::discretisation_error(q, u, poisson::manufactured_solution(q, c.begin, c.end), *context_, c.begin));
    }
    if (p_.refinements > 1) timings.add("refinements", seconds_since(study));
  }

  void report(io::ResultFile& out) override {
    const std::vector<poisson::CycleReport>& c = outcome_.cycles;
    const CycleSeries series(c);
    const std::int64_t vcycles = static_cast<std::int64_t>(c.size()) - (fmg() ? 1 : 0);
    out.set_attribute("/diagnostics", "cycles", vcycles);
    out.set_attribute("/diagnostics", "fmg", fmg());
    out.set_attribute("/diagnostics", "levels", outcome_.levels);
    out.set_attribute("/diagnostics", "residual_max", series.max);
    out.set_attribute("/diagnostics", "residual_l2", series.l2);
    out.set_attribute("/diagnostics", "factor", series.factor);
    out.set_attribute("/diagnostics", "rhs_max", outcome_.b_max);
    out.set_attribute("/diagnostics", "rhs_l2", outcome_.b_l2);
    out.set_attribute("/diagnostics", "converged", converged());
    out.set_attribute("/diagnostics", "stop_reason", std::string(name(outcome_.stop)));
    out.set_attribute("/diagnostics", "singular", poisson::singular(p_));
    out.set_attribute("/diagnostics", "source_shift", shift_);
    write_ranks(out, "slabs of z planes");

    say(formatted("%-6s %-12s %-12s %s", "cycle", "max |r|/|b|", "l2 |r|/|b|", "factor"));
    for (std::size_t i = 0; i < c.size(); ++i) {
      const std::string label = fmg() && i == 0 ? "fmg" : "v " + std::to_string(i + (fmg() ? 0 : 1));
      say(formatted("%-6s %-12s %-12s %.3f", label.c_str(), sci(c[i].residual_max).c_str(),
                    sci(c[i].residual_l2).c_str(), c[i].factor));
    }
    const std::vector<poisson::Level> levels = poisson::levels(p_);
    const poisson::Level& coarsest = levels.back();
    const std::string after = (fmg() ? std::string("FMG and ") : std::string()) +
                              std::to_string(vcycles) + " V-cycles (" +
                              std::to_string(levels.size()) + " levels, down to " +
                              extent(coarsest.nx, coarsest.ny, coarsest.nz) + ")";
    const double last = c.empty() ? NAN : c.back().residual_max;
    if (converged())
      say("converged: relative residual " + sci(last) + " < " + formatted("%g", p_.tolerance) +
          " after " + after);
    else if (outcome_.stop == StopReason::stagnated)
      say("NOT converged: relative residual " + sci(last) + " > " + formatted("%g", p_.tolerance) +
          " after " + after + "; it stopped falling (none of the last three V-cycles took it to a new "
          "low): the rounding floor of " +
          (single() ? "float; set a tolerance above it, or method.precision = \"double\""
                    : "double; set a tolerance above it"));
    else if (p_.tolerance > 0)
      say("NOT converged: relative residual " + sci(last) + " > " + formatted("%g", p_.tolerance) +
          " after " + after + "; iteration.max_cycles reached");
    else
      say("relative residual " + sci(last) + " after " + after + " (no tolerance set)");
    if (poisson::singular(p_))
      say("singular (no Dirichlet face, α = 0): f shifted by " + sci(-shift_) +
          " to make the problem solvable, and u's mean set to 0");

    if (!errors_.empty()) {
      out.set_attribute("/diagnostics", "error_max", errors_[0].max);
      out.set_attribute("/diagnostics", "error_rms", errors_[0].rms);
      say("discretisation error against the manufactured solution: max " + sci(errors_[0].max) +
          ", rms " + sci(errors_[0].rms));
    }
    if (errors_.size() > 1) {
      // errors_[r] is of the grid with 2^r times fewer cells per side: order = log2 of the ratio.
      std::vector<double> orders, maxima, cells_x;
      for (std::size_t r = 0; r < errors_.size(); ++r) {
        maxima.push_back(errors_[r].max);
        cells_x.push_back(static_cast<double>(p_.nx >> r));
      }
      for (std::size_t r = 0; r + 1 < errors_.size(); ++r)
        orders.push_back(std::log2(errors_[r + 1].max / errors_[r].max));
      out.set_attribute("/diagnostics", "refinement_error_max", maxima);
      out.set_attribute("/diagnostics", "refinement_nx", cells_x);
      out.set_attribute("/diagnostics", "observed_orders", orders);
      out.set_attribute("/diagnostics", "observed_order", orders.front());
      std::string ladder;
      for (std::size_t r = errors_.size(); r-- > 0;)
        ladder += (ladder.empty() ? "" : ", ") + sci(errors_[r].max) + " at nx " +
                  std::to_string(p_.nx >> r);
      say(formatted("observed order of accuracy %.2f (max errors ", orders.front()) + ladder + ")");
    }
    const double rate = 1e-6 * static_cast<double>(p_.cells()) / outcome_.seconds;
    out.set_attribute("/timings", "munknowns_per_s", rate);
    say("compute " + short_number(outcome_.seconds) + " s, " + short_number(rate) +
        " M unknowns/s");
    checkpoints_->report(out);
  }

  std::optional<std::string> unconverged() const override {
    if (converged()) return std::nullopt;
    if (p_.tolerance > 0)
      return "NOT converged after " + std::to_string(outcome_.cycles.size()) +
             " cycles (relative residual " + sci(outcome_.cycles.back().residual_max) + " > " +
             formatted("%g", p_.tolerance) + ")";
    return "no tolerance was set (iteration.tolerance = 0): the run had no criterion to meet";
  }

  Reproducibility reproducibility() const override {
    return {true, "every cell's update is the same arithmetic in a fixed order, and every norm "
                  "and mean is summed plane by plane in a fixed order, whatever the threads or ranks"};
  }

  // Judged against the gold's solve in the run's precision (check.hpp says why). Across ranks the
  // CPU run is the gold's own arithmetic: a second solve must give its bits.
  Agreement check() override {
    if (ranks() > 1 && gpu_) return whole_agreement();
    if (ranks() > 1) {
      std::vector<T> gold;
      (void)poisson::solve_gold_slab(p_, *context_, std::vector<T>(f_.begin(), f_.end()), gold);
      const FieldDifference d = comm::over_ranks(
          *context_, compare(u_, gold), u_.size(), static_cast<std::uint64_t>(p_.cells()));
      return field_agreement(d, "max_abs_difference", "max abs diff", d.max_abs, 0.0);
    }
    std::vector<T> gold;
    (void)poisson::solve_gold(p_, std::vector<T>(f_.begin(), f_.end()), gold);
    return poisson::agreement(p_, f_, u_, gold);
  }

  // One solve of the grid's cells: the unit of the sweep's rate (G unknowns/s).
  double work() const override { return static_cast<double>(p_.cells()); }

  // One smoother sweep of this rank's planes of the finest level is one parallel loop.
  std::int64_t parallel_items() const override {
    return cuts_.empty() ? p_.cells() : p_.nx * p_.ny * cuts_[0].planes();
  }

  void write(Output& out) override {
    const std::vector<std::uint64_t> dims{static_cast<std::uint64_t>(p_.nz),
                                          static_cast<std::uint64_t>(p_.ny),
                                          static_cast<std::uint64_t>(p_.nx)};
    if (!out.write_share("/fields/u", dims, static_cast<std::uint64_t>(cuts_[0].begin),
                         static_cast<std::uint64_t>(cuts_[0].planes()), u_.data()))
      return;
    out.file->set_attribute("/fields/u", "spacing", std::vector<double>{p_.hx, p_.hy, p_.hz});
    out.file->set_attribute("/fields/u", "layout",
                            std::string("[nz][ny][nx], x fastest, at cell centres"));
    io::UniformGrid3 grid;
    grid.points = {dims[2], dims[1], dims[0]};
    grid.origin = {p_.hx / 2, p_.hy / 2, p_.hz / 2};
    grid.spacing = {p_.hx, p_.hy, p_.hz};
    out.add_xdmf(grid, {"/fields/u", "u", int(sizeof(T))});
  }

 private:
  bool fmg() const { return p_.cycle == Cycle::fmg; }
  // Where this rank's planes of u lie in the whole grid's cells.
  io::Share share() const {
    const auto plane = static_cast<std::uint64_t>(p_.nx * p_.ny);
    const auto begin = static_cast<std::uint64_t>(cuts_[0].begin) * plane;
    return {static_cast<std::uint64_t>(p_.cells()), begin, begin,
            static_cast<std::uint64_t>(cuts_[0].end) * plane};
  }
  bool single() const { return p_.precision == poisson::Precision::single; }
  bool converged() const { return outcome_.stop == StopReason::tolerance; }

  // The solve of `q` with source `f` into `u`, on the backend the run was given.
  Outcome solve_in_place(const Params& q, const std::vector<double>& f, std::vector<T>& u,
                         const poisson::CycleCallback& progress = {},
                         const poisson::Checkpoints<T>* points = nullptr) {
    const std::vector<T> source(f.begin(), f.end());
#ifdef PARASOL_POISSON_DEVICE
    if (gpu_ && ranks() > 1)
      return poisson::solve_device_slab(q, *context_, source, u, progress, points);
#endif
    if (ranks() > 1) return poisson::solve_gold_slab(q, *context_, source, u, progress, points);
#ifdef PARASOL_POISSON_DEVICE
    if (gpu_) {
      poisson::DeviceSolver<T> solver(q);
      solver.upload_source(source.data());
      const Outcome o = solver.solve(points);
      u.resize(source.size());
      solver.download(u.data());
      return o;
    }
#endif
    return poisson::solve_gold(q, source, u, progress, points);
  }

  // The GPU's planes across ranks against the one-rank gold by poisson's one rule (check.hpp):
  // u and f gathered onto every rank (a sum over zeros: exact), each rank judging the whole grid
  // alike. The check's cost, not the run's.
  Agreement whole_agreement() {
    const auto plane = static_cast<std::size_t>(p_.nx * p_.ny);
    const std::size_t at = plane * static_cast<std::size_t>(cuts_[0].begin);
    std::vector<double> u(static_cast<std::size_t>(p_.cells()), 0.0), f = u;
    std::copy(u_.begin(), u_.end(), u.begin() + static_cast<std::ptrdiff_t>(at));
    std::copy(f_.begin(), f_.end(), f.begin() + static_cast<std::ptrdiff_t>(at));
    context_->all_reduce(u, comm::Op::sum);
    context_->all_reduce(f, comm::Op::sum);
    std::vector<T> gold;
    (void)poisson::solve_gold(p_, std::vector<T>(f.begin(), f.end()), gold);
    return poisson::agreement(p_, f, std::vector<T>(u.begin(), u.end()), gold);
  }

  std::vector<double> f_;  // the source, in double, compatible when the problem is singular
  double shift_ = 0;       // subtracted from f for a singular problem
  std::vector<T> u_;
  Outcome outcome_;
  std::vector<poisson::DiscretisationError> errors_;  // manufactured only: this grid's, then each coarser one's
  std::vector<poisson::SlabCut> cuts_;  // this rank's planes of this grid, then each coarser one
  std::optional<Checkpointing> checkpoints_;
  std::vector<T> restart_u_;                 // a restart's planes of u, until the solve takes them
  std::optional<poisson::State<T>> from_;    // a restart's state
};

template <class T>
class PoissonStudy final : public SolverStudy<Params, SweepParams> {
 public:
  using SolverStudy::SolverStudy;

  void prepare() override {
#ifndef PARASOL_POISSON_DEVICE
    throw parasol::Error("poisson sweep: the GPU multigrid is not in this build yet");
#else
    for (poisson::Variant v : s_.variants)
      for (poisson::Smoother m : s_.smoothers)
        for (Cycle c : s_.cycles) configurations_.push_back({v, m, c});
    f_ = p_.source.kind == SourceKind::file ? read_source(t_, p_, 0, p_.nz)
                                            : poisson::make_source(p_);
    poisson::make_compatible(p_, f_);
    (void)poisson::solve_gold(p_, std::vector<T>(f_.begin(), f_.end()), gold_);
#endif
  }

  std::string describe() const override {
    return extent(p_) + " cells " + std::string(name(p_.precision)) + " on " +
           current_device().name;
  }

  SweepColumns columns() const override {
    return {{{"variant", "variant", 8}, {"smoother", "smoother", 10}, {"cycle", "cycle", 6}},
            {"gunknowns_per_s", "Gunknowns/s", 12, 2},
            std::nullopt,
            {"relative_residual_l2", "rel resid", 11, 3, 'g'},
            {{"cycles", "cycles", 7, 0}}};
  }

  std::vector<std::vector<Cell>> configurations() override {
    return cells_of(configurations_, [](const Config& c) {
      return std::vector<Cell>{std::string(name(c.variant)), std::string(name(c.smoother)),
                               std::string(name(c.cycle))};
    });
  }

  // The sweep-row protocol (kernels/sweep_row.hpp). Each solve starts from u = 0, so the re-check
  // judges the last timed solve like the first; a solve is timed by its own clock (it waits for
  // its cycles to learn whether to go on), and the row's extra is the cycles the last one took.
  Measurement measure(std::size_t i) override {
#ifdef PARASOL_POISSON_DEVICE
    const Config& c = configurations_[i];
    Params q = p_;
    q.variant = c.variant;
    q.smoother = c.smoother;
    q.cycle = c.cycle;
    const std::vector<T> source(f_.begin(), f_.end());
    std::optional<poisson::DeviceSolver<T>> solver;  // made in the row, so its failure is the row's
    Outcome o;
    RowSteps steps;
    steps.method = std::string(name(c.variant)) + " " + method(q);
    steps.poison = [&] {
      solver.emplace(q);
      solver->upload_source(source.data());
      solver->poison();
    };
    steps.run = [&] { o = solver->solve(); };
    steps.check = [&] {
      std::vector<T> u(source.size());
      solver->download(u.data());
      return poisson::agreement(q, f_, u, gold_);
    };
    steps.time = [&](const std::function<void()>&) {
      std::vector<double> seconds;
      double total = 0;
      for (std::int64_t r = 0; s_.repeats.more(r, total); ++r) {
        o = solver->solve();
        total += o.seconds;
        seconds.push_back(o.seconds);
      }
      return seconds;
    };
    Measurement m = measured(steps);
    m.extras = {static_cast<std::int64_t>(o.cycles.size())};
    return m;
#else
    (void)i;
    return {};
#endif
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
  struct Config {
    poisson::Variant variant;
    poisson::Smoother smoother;
    Cycle cycle;
  };
  std::vector<Config> configurations_;
  std::vector<double> f_;
  std::vector<T> gold_;  // the gold's solve in T, which every configuration is judged against
};

std::unique_ptr<Run> make_run(io::ParamTable& t, const std::filesystem::path& path) {
  return run_in_precision<PoissonRun>(
      t, read_declared(t, poisson::keys(), poisson::sweep_keys(), path));
}

std::unique_ptr<Study> make_study(io::ParamTable& t, const std::filesystem::path& path) {
  return study_in_precision<PoissonStudy>(
      t, read_declared(t, poisson::keys(), poisson::sweep_keys(), path));
}

}  // namespace

Binding poisson_binding() {
  Binding b{"poisson",
            "3D Poisson and Helmholtz equations by geometric multigrid (Dirichlet, Neumann and "
            "periodic faces)",
            make_run, make_study};
  b.keys = [] { return declared(poisson::keys(), poisson::sweep_keys()); };
  b.across_ranks = true;
  b.checkpoints = true;
  b.examples = {"inputs/poisson.toml", "inputs/poisson-periodic.toml", "inputs/poisson-512.toml"};
  return b;
}

}  // namespace parasol::app
