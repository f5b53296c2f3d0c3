#include "solvers/poisson/run.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>

#include "comm/over_ranks.hpp"
#include "io/checkpoint.hpp"
#include "io/xdmf.hpp"
#include "kernels/host_memory.hpp"
#include "kernels/printable.hpp"
#include "solvers/poisson/check.hpp"
#include "solvers/poisson/device.hpp"
#include "solvers/poisson/device_slab.hpp"

namespace parasol::poisson {

std::string extent_text(std::int64_t nx, std::int64_t ny, std::int64_t nz) {
  return std::to_string(nx) + "x" + std::to_string(ny) + "x" + std::to_string(nz);
}
std::string extent_text(const Params& p) { return extent_text(p.nx, p.ny, p.nz); }

std::string sci(double value) { return formatted("%.1e", value); }

std::string cycle_text(const Params& p) {
  return std::string(p.cycle == Cycle::fmg ? "FMG + " : "") + "V(" + std::to_string(p.pre_sweeps) +
         "," + std::to_string(p.post_sweeps) + ") " + std::string(name(p.smoother));
}

std::string problem_text(const Params& p) {
  return extent_text(p) + " cells " + std::string(name(p.precision));
}

std::string run_text(const Params& p, const std::string& method) {
  return problem_text(p) + ", " + cycle_text(p) + ", " + method + ", tolerance " +
         formatted("%g", p.tolerance);
}

void settle_variant(Params& p, bool gpu, int ranks, bool asked) {
  if (!gpu || ranks == 1 || p.variant == Variant::plain) return;
  if (asked)
    throw InputError("", "method.variant",
                     "\"plain\" on the GPU across ranks (the fused variant runs on one rank), or "
                     "--backend cpu; got \"" + std::string(name(p.variant)) + "\" on " +
                         std::to_string(ranks) + " ranks");
  p.variant = Variant::plain;
}

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

std::vector<SlabCut> refinement_cuts(const Params& p, int rank, int size) {
  std::vector<SlabCut> cuts;
  for (std::int64_t r = 0; r < p.refinements; ++r)
    cuts.push_back(slab_cut(coarser(p, r), rank, size));
  return cuts;
}

double host_bytes(const Params& p, std::int64_t planes, double element, bool u_only) {
  if (u_only) return static_cast<double>(p.nx * p.ny * planes) * element;
  double hierarchy = 0;
  for (const Level& l : levels(p))
    hierarchy += static_cast<double>(l.cells()) / static_cast<double>(p.cells());
  const double cells = static_cast<double>(p.nx * p.ny * planes);
  return cells * (4.0 * hierarchy * element + 3.0 * sizeof(double));
}

template <class T>
Outcome solve(const Params& q, const std::vector<double>& f, std::vector<T>& u, bool gpu,
              comm::Context& context, const CycleCallback& on_cycle,
              const Checkpoints<T>* checkpoints) {
  const std::vector<T> source(f.begin(), f.end());
  if (context.size() > 1)
    return gpu ? solve_device_slab(q, context, source, u, on_cycle, checkpoints)
               : solve_gold_slab(q, context, source, u, on_cycle, checkpoints);
  if (!gpu) return solve_gold(q, source, u, on_cycle, checkpoints);
  DeviceSolver<T> solver(q);
  solver.upload_source(source.data());
  const Outcome o = solver.solve(checkpoints);
  u.resize(source.size());
  solver.download(u.data());
  return o;
}

template <class T>
DeviceSolve solve_made_on_device(const Params& q, std::vector<T>* u, comm::Context& context,
                                 const CycleCallback& on_cycle, const Checkpoints<T>* checkpoints) {
  if (context.size() > 1) return solve_device_slab_made(q, context, u, on_cycle, checkpoints);
  const auto start = std::chrono::steady_clock::now();
  DeviceSolver<T> solver(q);
  DeviceSolve out;
  out.shift = solver.make_source();
  out.timings.add(phase::setup, seconds_since(start));
  out.outcome = solver.solve(checkpoints);
  if (u != nullptr) {
    const auto copying = out.timings.time(phase::device_to_host);
    // Huge pages before the first touch: the download is a GiB's first write at 512^3 in double.
    const auto cells = static_cast<std::size_t>(q.cells());
    if (u->size() != cells) *u = huge_vector<T>(cells);
    solver.download(u->data());
  }
  if (q.source.kind == SourceKind::manufactured) out.error = solver.manufactured_error();
  return out;
}

bool made_on_device(const Params& p, bool gpu) { return gpu && p.source.kind != SourceKind::file; }

double host_source(const Params& p, std::vector<double>& f, comm::Context& context,
                   const SlabCut& cut) {
  if (p.source.kind != SourceKind::file) f = make_source(p, cut.begin, cut.end);
  return make_compatible(p, f, &context, cut.begin, cut.end);
}

template <class T>
DeviceSolve solve_run(const Params& q, const std::vector<double>& f, std::vector<T>& u, bool gpu,
                      comm::Context& context, const CycleCallback& on_cycle,
                      const Checkpoints<T>* checkpoints) {
  if (made_on_device(q, gpu)) return solve_made_on_device(q, &u, context, on_cycle, checkpoints);
  DeviceSolve out;
  out.outcome = solve(q, f, u, gpu, context, on_cycle, checkpoints);
  return out;
}

template <class T>
std::vector<DiscretisationError> refinement_errors_on_device(const Params& p,
                                                             const DiscretisationError& finest,
                                                             comm::Context& context) {
  std::vector<DiscretisationError> errors{finest};
  for (std::int64_t r = 1; r < p.refinements; ++r)
    errors.push_back(*solve_made_on_device<T>(coarser(p, r), nullptr, context).error);
  return errors;
}

template <class T>
std::vector<DiscretisationError> refinement_errors(const Params& p, const std::vector<T>& u,
                                                   const std::vector<SlabCut>& cuts, bool gpu,
                                                   comm::Context& context) {
  std::vector<DiscretisationError> errors{discretisation_error(
      p, u, manufactured_solution(p, cuts[0].begin, cuts[0].end), context, cuts[0].begin)};
  for (std::int64_t r = 1; r < p.refinements; ++r) {
    const Params q = coarser(p, r);
    const SlabCut& c = cuts[static_cast<std::size_t>(r)];
    std::vector<double> f = make_source(q, c.begin, c.end);
    make_compatible(q, f, &context, c.begin, c.end);
    std::vector<T> v;
    (void)solve(q, f, v, gpu, context);
    errors.push_back(
        discretisation_error(q, v, manufactured_solution(q, c.begin, c.end), context, c.begin));
  }
  return errors;
}

template <class T>
std::vector<DiscretisationError> run_errors(const Params& p, const DeviceSolve& run,
                                            const std::vector<T>& u,
                                            const std::vector<SlabCut>& cuts, bool gpu,
                                            comm::Context& context) {
  return run.error ? refinement_errors_on_device<T>(p, *run.error, context)
                   : refinement_errors(p, u, cuts, gpu, context);
}

OrderStudy order_study(const Params& p, const std::vector<DiscretisationError>& errors) {
  OrderStudy o;
  for (std::size_t r = 0; r < errors.size(); ++r) {
    o.error_max.push_back(errors[r].max);
    o.nx.push_back(static_cast<double>(p.nx >> r));
  }
  for (std::size_t r = 0; r + 1 < errors.size(); ++r)
    o.orders.push_back(std::log2(errors[r + 1].max / errors[r].max));
  return o;
}

template <class T>
Agreement check_run(const Params& p, const std::vector<double>& f, const std::vector<T>& u,
                    bool gpu, comm::Context& context, std::int64_t z_begin) {
  std::vector<T> gold;
  if (context.size() > 1 && !gpu) {
    (void)solve_gold_slab(p, context, std::vector<T>(f.begin(), f.end()), gold);
    const FieldDifference d = comm::over_ranks(context, compare(u, gold), u.size(),
                                               static_cast<std::uint64_t>(p.cells()));
    return field_agreement(d, "max_abs_difference", "max abs diff", d.max_abs, 0.0);
  }
  if (context.size() == 1) {
    (void)solve_gold(p, std::vector<T>(f.begin(), f.end()), gold);
    return agreement(p, f, u, gold);
  }
  // The check's cost, not the run's: u and f whole on every rank.
  const std::size_t at = static_cast<std::size_t>(p.nx * p.ny) * static_cast<std::size_t>(z_begin);
  std::vector<double> whole_u(static_cast<std::size_t>(p.cells()), 0.0), whole_f = whole_u;
  std::copy(u.begin(), u.end(), whole_u.begin() + static_cast<std::ptrdiff_t>(at));
  std::copy(f.begin(), f.end(), whole_f.begin() + static_cast<std::ptrdiff_t>(at));
  context.all_reduce(whole_u, comm::Op::sum);
  context.all_reduce(whole_f, comm::Op::sum);
  (void)solve_gold(p, std::vector<T>(whole_f.begin(), whole_f.end()), gold);
  return agreement(p, whole_f, std::vector<T>(whole_u.begin(), whole_u.end()), gold);
}

CycleSeries::CycleSeries(const std::vector<CycleReport>& cycles) {
  for (const CycleReport& c : cycles) {
    max.push_back(c.residual_max);
    l2.push_back(c.residual_l2);
    factor.push_back(c.factor);
  }
}

std::vector<CycleReport> CycleSeries::reports() const {
  std::vector<CycleReport> cycles;
  for (std::size_t i = 0; i < max.size(); ++i) cycles.push_back({max[i], l2[i], factor[i]});
  return cycles;
}

void add_cycles(io::CheckpointWriter& w, const std::vector<CycleReport>& cycles) {
  const auto n = static_cast<std::uint64_t>(cycles.size());
  w.add("cycles", static_cast<std::int64_t>(n));
  const io::Share all{n, 0, 0, n};  // the same on every rank: whole shares of their own
  CycleSeries(cycles).each(
      [&](const char* name, const std::vector<double>& v) { w.add(name, v.data(), n, all); });
}

io::UniformGrid3 field_grid(const Params& p) {
  return {{std::uint64_t(p.nx), std::uint64_t(p.ny), std::uint64_t(p.nz)},
          {p.hx / 2, p.hy / 2, p.hz / 2},
          {p.hx, p.hy, p.hz}};
}

std::vector<Diagnostic> field_attributes(const Params& p) {
  return {{"spacing", std::vector<double>{p.hx, p.hy, p.hz}},
          {"layout", std::string("[nz][ny][nx], x fastest, at cell centres")}};
}

std::vector<CycleReport> read_cycles(const io::CheckpointReader& r, const Params& p) {
  const auto reports = static_cast<std::uint64_t>(r.integer("cycles"));
  CycleSeries series;
  series.each([&](const char* name, std::vector<double>& v) {
    v = r.doubles(name, 0, reports, reports);
  });
  State<double> from;
  from.cycles = series.reports();
  const std::int64_t step = from.step(p.cycle == Cycle::fmg);
  if (from.cycles.empty() || step > p.max_cycles)
    throw io::past_the_end(r, "V-cycle " + std::to_string(step), "iteration.max_cycles",
                           p.max_cycles);
  return from.cycles;
}

std::vector<Diagnostic> diagnostics(const Params& p, const Outcome& o, double shift,
                                    const std::vector<DiscretisationError>& errors) {
  const bool fmg = p.cycle == Cycle::fmg;
  const CycleSeries series(o.cycles);
  std::vector<Diagnostic> d{
      {"cycles", static_cast<std::int64_t>(o.cycles.size()) - (fmg ? 1 : 0)},
      {"fmg", fmg},
      {"levels", o.levels}};
  series.each([&](const char* name, const std::vector<double>& v) { d.push_back({name, v}); });
  d.push_back({"rhs_max", o.b_max});
  d.push_back({"rhs_l2", o.b_l2});
  d.push_back({"converged", o.stop == StopReason::tolerance});
  d.push_back({"stop_reason", std::string(name(o.stop))});
  d.push_back({"singular", singular(p)});
  d.push_back({"source_shift", shift});
  if (!errors.empty()) {
    d.push_back({"error_max", errors[0].max});
    d.push_back({"error_rms", errors[0].rms});
  }
  if (errors.size() > 1) {
    const OrderStudy study = order_study(p, errors);
    d.push_back({"refinement_error_max", study.error_max});
    d.push_back({"refinement_nx", study.nx});
    d.push_back({"observed_orders", study.orders});
    d.push_back({"observed_order", study.orders.front()});
  }
  return d;
}

std::vector<std::string> summary_lines(const Params& p, const Outcome& o, double shift,
                                       const std::vector<DiscretisationError>& errors) {
  const std::vector<CycleReport>& c = o.cycles;
  const bool fmg = p.cycle == Cycle::fmg;
  std::vector<std::string> lines{
      formatted("%-6s %-12s %-12s %s", "cycle", "max |r|/|b|", "l2 |r|/|b|", "factor")};
  for (std::size_t i = 0; i < c.size(); ++i) {
    const std::string label = fmg && i == 0 ? "fmg" : "v " + std::to_string(i + (fmg ? 0 : 1));
    lines.push_back(formatted("%-6s %-12s %-12s %.3f", label.c_str(),
                              sci(c[i].residual_max).c_str(), sci(c[i].residual_l2).c_str(),
                              c[i].factor));
  }
  const std::vector<Level> all = levels(p);
  const Level& coarsest = all.back();
  const std::int64_t vcycles = static_cast<std::int64_t>(c.size()) - (fmg ? 1 : 0);
  const std::string after = (fmg ? std::string("FMG and ") : std::string()) +
                            std::to_string(vcycles) + " V-cycles (" + std::to_string(all.size()) +
                            " levels, down to " +
                            extent_text(coarsest.nx, coarsest.ny, coarsest.nz) + ")";
  const double last = c.empty() ? NAN : c.back().residual_max;
  const std::string above = "NOT converged: relative residual " + sci(last) + " > " +
                            formatted("%g", p.tolerance) + " after " + after;
  if (o.stop == StopReason::tolerance)
    lines.push_back("converged: relative residual " + sci(last) + " < " +
                    formatted("%g", p.tolerance) + " after " + after);
  else if (o.stop == StopReason::stagnated)
    lines.push_back(above +
                    "; it stopped falling (none of the last three V-cycles took it to a new "
                    "low): the rounding floor of " +
                    (p.precision == Precision::single
                         ? "float; set a tolerance above it, or method.precision = \"double\""
                         : "double; set a tolerance above it"));
  else if (p.tolerance > 0)
    lines.push_back(above + "; iteration.max_cycles reached");
  else
    lines.push_back("relative residual " + sci(last) + " after " + after + " (no tolerance set)");
  if (singular(p))
    lines.push_back("singular (no Dirichlet face, α = 0): f shifted by " + sci(-shift) +
                    " to make the problem solvable, and u's mean set to 0");
  if (!errors.empty())
    lines.push_back("discretisation error against the manufactured solution: max " +
                    sci(errors[0].max) + ", rms " + sci(errors[0].rms));
  if (errors.size() > 1) {
    std::string ladder;
    for (std::size_t r = errors.size(); r-- > 0;)
      ladder += (ladder.empty() ? "" : ", ") + sci(errors[r].max) + " at nx " +
                std::to_string(p.nx >> r);
    lines.push_back(formatted("observed order of accuracy %.2f (max errors ",
                              order_study(p, errors).orders.front()) +
                    ladder + ")");
  }
  return lines;
}

std::optional<std::string> unconverged(const Params& p, const Outcome& o) {
  if (o.stop == StopReason::tolerance) return std::nullopt;
  if (p.tolerance > 0)
    return "NOT converged after " + std::to_string(o.cycles.size()) +
           " cycles (relative residual " + sci(o.cycles.back().residual_max) + " > " +
           formatted("%g", p.tolerance) + ")";
  return "no tolerance was set (iteration.tolerance = 0): the run had no criterion to meet";
}

#define PARASOL_POISSON_RUN(T)                                                                 \
  template Outcome solve<T>(const Params&, const std::vector<double>&, std::vector<T>&, bool,     \
                            comm::Context&, const CycleCallback&, const Checkpoints<T>*);        \
  template std::vector<DiscretisationError> refinement_errors<T>(                                \
      const Params&, const std::vector<T>&, const std::vector<SlabCut>&, bool,                   \
      comm::Context&);                                                                           \
  template DeviceSolve solve_made_on_device<T>(const Params&, std::vector<T>*, comm::Context&,   \
                                               const CycleCallback&, const Checkpoints<T>*);     \
  template std::vector<DiscretisationError> refinement_errors_on_device<T>(                      \
      const Params&, const DiscretisationError&, comm::Context&);                                \
  template Agreement check_run<T>(const Params&, const std::vector<double>&,                     \
                                  const std::vector<T>&, bool, comm::Context&, std::int64_t);     \
  template DeviceSolve solve_run<T>(const Params&, const std::vector<double>&, std::vector<T>&,  \
                                    bool, comm::Context&, const CycleCallback&,                  \
                                    const Checkpoints<T>*);                                      \
  template std::vector<DiscretisationError> run_errors<T>(                                       \
      const Params&, const DeviceSolve&, const std::vector<T>&, const std::vector<SlabCut>&,     \
      bool, comm::Context&);

PARASOL_POISSON_RUN(float)
PARASOL_POISSON_RUN(double)

#undef PARASOL_POISSON_RUN

}  // namespace parasol::poisson
