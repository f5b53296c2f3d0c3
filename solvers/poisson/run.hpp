// A run of poisson as any front end makes one: the solve on the backend and ranks it was given
// (the CPU gold or the GPU's DeviceSolver on one rank; the gold's slabs, slab.hpp, or the GPU's
// plain variant on the same slabs, device_slab.hpp, across ranks), its check against the gold,
// the order-of-accuracy study over study.refinements grids, and the account of it in words: each
// cycle's residual norms and factor, the stop reason, the discretisation error and the observed
// order. Host-only API: compiles without nvcc.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "comm/context.hpp"
#include "kernels/agreement.hpp"
#include "solvers/poisson/device_slab.hpp"
#include "solvers/poisson/params.hpp"
#include "solvers/poisson/poisson.hpp"
#include "solvers/poisson/problem.hpp"
#include "solvers/poisson/slab.hpp"

namespace parasol::io {
class CheckpointReader;
class CheckpointWriter;
struct UniformGrid3;
}  // namespace parasol::io

namespace parasol::poisson {

// "64x64x32": cells along x, y and z.
std::string extent_text(std::int64_t nx, std::int64_t ny, std::int64_t nz);
std::string extent_text(const Params& p);

// "9.6e-05": residuals and errors a decade apart line up as orders of magnitude.
std::string sci(double value);

// The cycle in words: "FMG + V(2,2) rbgs".
std::string cycle_text(const Params& p);
// The problem in words: "64x64x32 cells float"; and a run of it by `method` ("rbgs-fused on
// DEVICE"): "64x64x32 cells float, FMG + V(2,2) rbgs, METHOD, tolerance 1e-08".
std::string problem_text(const Params& p);
std::string run_text(const Params& p, const std::string& method);

// The variant that runs on `ranks` ranks: across ranks the GPU runs the plain variant
// (device_slab.hpp), since the fused pass marches each tile through a level's whole z range. The
// default gives way; one `asked` for by name is an InputError naming method.variant.
void settle_variant(Params& p, bool gpu, int ranks, bool asked);

// The grid of refinement `r` below p's: each side halved r times, the spacing doubled.
Params coarser(const Params& p, std::int64_t r);

// This rank's planes of p's grid, then of each coarser grid of the order study (p.refinements
// cuts in all). InputError (key "grid.nz") as slab_cut's.
std::vector<SlabCut> refinement_cuts(const Params& p, int rank, int size);

// Host bytes a run holds for `planes` planes of p's grid in T of `element` bytes: the levels'
// four fields each (x, b, r and the smoother's scratch; 8/7 of the grid's cells on a cube, up to
// twice them where one axis halves alone), and f, the gold's u and the manufactured solution in
// double beside them. A GPU run whose source is made on the device, unchecked, holds u alone
// (`u_only`).
double host_bytes(const Params& p, std::int64_t planes, double element, bool u_only = false);

// Whether a run makes its source on the device: a GPU run of an analytic source (sources.cuh),
// which holds no f on the host.
bool made_on_device(const Params& p, bool gpu);

// f on the host, this rank's planes `cut` of p's grid (made, unless `f` holds a file's planes,
// read already), made compatible where the problem is singular; returns the shift subtracted.
// Collective across ranks for a singular problem.
double host_source(const Params& p, std::vector<double>& f, comm::Context& context,
                   const SlabCut& cut);

// The solve of q with source f (this rank's planes across ranks; compatible when singular) into
// u, on the GPU (`gpu`) or by the gold, one rank or across the context's ranks. With
// `checkpoints`, as solve_gold. A GPU run of an analytic source makes it on the device instead
// (solve_made_on_device); this path is the CPU's, a file's source's and the tests' reference.
template <class T>
Outcome solve(const Params& q, const std::vector<double>& f, std::vector<T>& u, bool gpu,
              comm::Context& context, const CycleCallback& on_cycle = {},
              const Checkpoints<T>* checkpoints = nullptr);

// The GPU's solve of q with its analytic source (every source.kind but file) made on the device
// and made compatible there (DeviceSolver::make_source, or solve_device_slab_made across ranks):
// no host array of f. u, when given, is downloaded into once (this rank's planes); with a
// manufactured source the discretisation error is measured on the device, before the solver
// goes. The one-rank solve calls no `on_cycle`, as solve's does not.
template <class T>
DeviceSolve solve_made_on_device(const Params& q, std::vector<T>* u, comm::Context& context,
                                 const CycleCallback& on_cycle = {},
                                 const Checkpoints<T>* checkpoints = nullptr);

// A run's solve: solve_made_on_device into u where the device makes the source
// (made_on_device), otherwise solve of `f` (host_source's planes), whose outcome alone is set.
template <class T>
DeviceSolve solve_run(const Params& q, const std::vector<double>& f, std::vector<T>& u, bool gpu,
                      comm::Context& context, const CycleCallback& on_cycle = {},
                      const Checkpoints<T>* checkpoints = nullptr);

// refinement_errors for a GPU run whose source was made on the device: `finest` (p's grid's, as
// solve_made_on_device measured it), then each coarser grid of the order study made, solved and
// measured on the device the same way, with no host array of its size. Collective across ranks.
template <class T>
std::vector<DiscretisationError> refinement_errors_on_device(const Params& p,
                                                             const DiscretisationError& finest,
                                                             comm::Context& context);

// The discretisation error of `u` (p's grid solved by a manufactured source, this rank's planes
// cuts[0]) against the manufactured solution, then of each coarser grid of the order study,
// each solved afresh on the same backend and ranks. Collective across ranks.
template <class T>
std::vector<DiscretisationError> refinement_errors(const Params& p, const std::vector<T>& u,
                                                   const std::vector<SlabCut>& cuts, bool gpu,
                                                   comm::Context& context);

// A run's phase of the order study's solves of the coarser grids (run_errors, past the first).
inline constexpr char kRefinementsPhase[] = "refinements";

// The order study's errors of a run of a manufactured source: refinement_errors_on_device from
// the device's measure of p's grid (`run.error`) where it made the source, else refinement_errors
// of `u`.
template <class T>
std::vector<DiscretisationError> run_errors(const Params& p, const DeviceSolve& run,
                                            const std::vector<T>& u,
                                            const std::vector<SlabCut>& cuts, bool gpu,
                                            comm::Context& context);

// The order study as /diagnostics records it: errors[r] is of the grid with 2^r times fewer cells
// per side, so each observed order between consecutive grids is log2 of the ratio of max errors.
struct OrderStudy {
  std::vector<double> error_max, nx, orders;
};
OrderStudy order_study(const Params& p, const std::vector<DiscretisationError>& errors);

// A run's u (this rank's planes from z_begin, f beside it) judged against the gold's solve in the
// run's precision (check.hpp says why). Across ranks the CPU run is the gold's own arithmetic, so
// a second slab solve must give its bits; the GPU's planes are gathered onto every rank (a sum
// over zeros: exact) and judged whole by poisson's one rule. Every rank gets the whole run's.
template <class T>
Agreement check_run(const Params& p, const std::vector<double>& f, const std::vector<T>& u,
                    bool gpu, comm::Context& context, std::int64_t z_begin);

// Each cycle's residual norms and factor as three series (/diagnostics and a checkpoint hold
// them so), and back.
struct CycleSeries {
  std::vector<double> max, l2, factor;
  CycleSeries() = default;
  explicit CycleSeries(const std::vector<CycleReport>& cycles);
  std::vector<CycleReport> reports() const;
  // `f(name, series)` for each, by the names /diagnostics and a checkpoint give them.
  template <class F>
  void each(F&& f) {
    f("residual_max", max);
    f("residual_l2", l2);
    f("factor", factor);
  }
  template <class F>
  void each(F&& f) const {
    f("residual_max", max);
    f("residual_l2", l2);
    f("factor", factor);
  }
};

// A checkpoint's record of a state's cycle reports (State::cycles): their count as "cycles",
// then each series whole (the same on every rank, so any rank count reads it back); and back.
void add_cycles(io::CheckpointWriter& w, const std::vector<CycleReport>& cycles);
// A restart's cycle reports, the checkpoint refused when it holds none or is past the run's last
// V-cycle (iteration.max_cycles). fill_state is add_cycles as FieldMarch's fill takes it.
std::vector<CycleReport> read_cycles(const io::CheckpointReader& r, const Params& p);
template <class T>
void fill_state(io::CheckpointWriter& w, const State<T>& s) {
  add_cycles(w, s.cycles);
}

// A fact of a solve as /diagnostics records it, by name (the kinds an HDF5 attribute holds).
using DiagnosticValue =
    std::variant<bool, std::int64_t, double, std::string, std::vector<double>>;
using Diagnostic = std::pair<std::string, DiagnosticValue>;

// The field u at the cells' centres: its grid (the first centre half a cell from the origin, as
// its XDMF sidecar shows it), and the attributes written beside the sidecar's: spacing, layout.
io::UniformGrid3 field_grid(const Params& p);
std::vector<Diagnostic> field_attributes(const Params& p);

// A solve's /diagnostics: its cycles, levels, each cycle's residual norms and factor, the
// right-hand side's norms, how it stopped, the singular problem's shift and, with a manufactured
// source, the discretisation error and the order study.
std::vector<Diagnostic> diagnostics(const Params& p, const Outcome& o, double shift,
                                    const std::vector<DiscretisationError>& errors);

// The summary of a solve in lines: each cycle's norms and factor, how it stopped, the shift of a
// singular problem's f and, with a manufactured source, the discretisation error and the order
// study's ladder (`errors`, this grid's first).
std::vector<std::string> summary_lines(const Params& p, const Outcome& o, double shift,
                                       const std::vector<DiscretisationError>& errors);

// Why a run's bits repeat whatever the threads or ranks (/provenance@reproducible_because).
inline constexpr const char* kReproducibleBecause =
    "every cell's update is the same arithmetic in a fixed order, and every norm and mean is "
    "summed plane by plane in a fixed order, whatever the threads or ranks";

// Why a solve stopped short of its tolerance, or that none was set; nothing when it met it.
std::optional<std::string> unconverged(const Params& p, const Outcome& o);

}  // namespace parasol::poisson
