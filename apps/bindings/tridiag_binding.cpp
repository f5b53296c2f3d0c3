// tridiag's binding: the whole parameter file read by the solver's declarations, and the run of
// the problem it names (tridiag_run.hpp and one file a problem) or the sweep of its variants
// (tridiag_study.cpp).
#include "apps/bindings/tridiag_run.hpp"

namespace parasol::app {
namespace {

// The whole parameter file, its [sweep] table included, read and checked. A relative input.file
// is resolved against the parameter file's folder. The other problem's keys are an error, not
// ignored (io::read_keys refuses them).
TridiagFile read(io::ParamTable& t, const std::filesystem::path& params_path) {
  return read_declared(t, tridiag::keys(), tridiag::sweep_keys(), params_path);
}

// Across ranks each takes a share of the systems (grids), whole, reading only its own rows of an
// input file or marching its own grids; or, with system.cut = "rows", its rows of every system.
std::unique_ptr<Run> make_run(io::ParamTable& t, const std::filesystem::path& params_path) {
  TridiagFile file = read(t, params_path);
  const tridiag::Params& p = file.params;
  if (p.cut == tridiag::Cut::rows) return make_long_run(t, std::move(file));
  if (p.problem == tridiag::Problem::heat) return make_heat_run(t, std::move(file));
  if (p.kind != tridiag::Kind::general) return make_kind_run(t, std::move(file));
  return make_batch_run(t, std::move(file));
}

std::unique_ptr<Study> make_study(io::ParamTable& t, const std::filesystem::path& params_path) {
  TridiagFile file = read(t, params_path);
  if (file.params.cut == tridiag::Cut::rows)
    throw InputError(t.source_of("system.cut"), "system.cut",
                     "`parasol sweep` times the variants on whole systems; one long system cut "
                     "by rows has one method (run it with `parasol run`)");
  return make_tridiag_study(t, std::move(file));
}

}  // namespace

Binding tridiag_binding() {
  Binding b{
      "tridiag",
      "batched tridiagonal systems: the 1D heat equation by backward Euler (on a line or a "
      "ring), or a batch from HDF5 or a seed; periodic, many right-hand sides, pentadiagonal "
      "and 2x2 blocks too",
      make_run,
      make_study};
  b.keys = [] { return declared(tridiag::keys(), tridiag::sweep_keys()); };
  b.across_ranks = true;
  b.checkpoints = true;
  b.examples = {"inputs/heat1d.toml",       "inputs/tridiag-file.toml",
                "inputs/tridiag-periodic.toml", "inputs/tridiag-rhs.toml",
                "inputs/tridiag-penta.toml",  "inputs/tridiag-block2.toml",
                "inputs/tridiag-study.toml",  "inputs/tridiag-long.toml"};
  return b;
}

}  // namespace parasol::app
