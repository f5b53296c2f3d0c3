// coulomb's binding: what a run reads, prints, records and writes (the potential with its XDMF
// sidecar, and an OpenDX map on request), and its sweep over variants, block shapes and
// coarsenings on one upload of the atoms. A run may be cut among ranks (solvers/coulomb/part.hpp,
// ranks.hpp): rank 0 reads the atoms and broadcasts them, each rank sums its part of the lattice
// and writes it into the one result file. The run's words, memory, attributes and a sweep's
// problem are the solver's (solvers/coulomb/summary.hpp, study.hpp).
#include <optional>

#include "apps/progress.hpp"
#include "apps/solver_run.hpp"
#include "io/dx.hpp"
#include "kernels/device.hpp"
#include "kernels/finite.hpp"
#include "solvers/coulomb/keys.hpp"
#include "solvers/coulomb/study.hpp"

namespace parasol::app {
namespace {

using coulomb::Atom;
using coulomb::Params;
using coulomb::SweepParams;

io::AutotuneKey coulomb_key(const Params& p, std::int64_t atoms) {
  return autotune_key("coulomb", coulomb::problem_class(p, atoms), "float");
}

constexpr auto progress_on =
    shown_on<coulomb::Progress, &coulomb::Progress::done, &coulomb::Progress::total>;

class CoulombRun final : public SolverRun<Params> {
 public:
  using SolverRun::SolverRun;

  void prepare(const RunSetup& setup) override {
    take(setup);
    atom_count_ = coulomb::read_atoms_on_root(*context_, p_, atoms_);
    io::with_sources(t_, [&] { part_ = coulomb::place_and_cut(*context_, p_, atoms_); });
    if (looks_up_choice()) choose_automatic(coulomb_key(p_, atom_count_));
    // What only the device can tell comes first (its block limits), then this rank's memory.
    if (gpu_) check_method_block(t_, p_.block);
    const bool gathers = ranks() > 1 && p_.write_dx && context_->is_root();
    require_file_needs(t_, coulomb::run_needs(p_, atom_count_, part_, gpu_, check_, gathers));
  }

  std::string describe() const override {
    return coulomb::describe_problem(p_, atom_count_) + "; " + ran(described_method());
  }

  std::vector<std::filesystem::path> sidecars(const std::filesystem::path& result) const override {
    std::vector<std::filesystem::path> paths{io::xdmf_path_for(result)};
    if (p_.write_dx) paths.push_back(std::filesystem::path(result).replace_extension(".dx"));
    return paths;
  }

  // Across ranks: the atoms' broadcast, the part's sums, then the potential's range and the
  // slowest rank's compute time (three numbers each), and for an OpenDX map every part sent to
  // rank 0. The communication is the "exchange" phase, the wait for the slowest rank "wait".
  void solve(PhaseTimer& timings, io::ResultFile*) override {
    const double broadcast = coulomb::broadcast_atoms(*context_, atoms_);
    {
      // A line of atoms summed on the GPU, of points finished by the CPU gold.
      ProgressLine line(gpu_ ? "atoms" : "points", "atom-evals",
                        static_cast<double>(gpu_ ? part_.points() : atom_count_));
      result_ = gpu_ ? coulomb::solve_gpu(p_, atoms_, part_, progress_on(line))
                     : coulomb::solve_cpu(p_, atoms_, part_, progress_on(line));
    }
    require_finite("coulomb: the potential", result_.potential);
    diagnostics_ = coulomb::diagnostics(result_);
    combine_over_ranks(timings, [&](comm::Context& context) {
      diagnostics_ = coulomb::over_ranks(context, diagnostics_);
      if (p_.write_dx) gathered_ = coulomb::gather_on_root(context, p_.lattice, result_.potential);
    });
    if (ranks() > 1) timings.add(phase::exchange, broadcast);  // the atoms' broadcast is exchange too
    add_device_phases(timings, result_.timings);
  }

  double work() const override { return coulomb::terms(p_.lattice, atoms_.size()); }

  Reproducibility reproducibility() const override {
    const auto [reproducible, because] = coulomb::reproducibility(p_, gpu_);
    return {reproducible, because};
  }

  void report(io::ResultFile& out) override {
    const double charge = coulomb::total_charge(atoms_);
    const double rate = work() / diagnostics_.compute_seconds;
    out.set_attribute("/timings", "atom_evaluations_per_s", rate);
    set_attributes(out, "/atoms", coulomb::atoms_attributes(p_, atoms_));
    write_ranks(out, coulomb::cuts_planes(p_.lattice) ? "slabs of z planes" : "bands of y rows");
    say(coulomb::summary_line(p_, diagnostics_, charge, rate));
  }

  // The gold and its scale at this rank's points, with a live line: points done, atom
  // evaluations a second. A CPU run's result is the gold itself, rounded to float.
  Agreement check() override {
    ProgressLine line("gold points", "atom-evals", static_cast<double>(atoms_.size()));
    const coulomb::GoldWithScale gold =
        coulomb::solve_gold_with_scale(p_, atoms_, part_, progress_on(line));
    return coulomb::agreement(*context_, p_.lattice, result_.potential, gold,
                              coulomb::run_tolerance(p_, atoms_.size(), gpu_));
  }

  void write(Output& out) override {
    coulomb::to_unit(p_, result_.potential);
    coulomb::to_unit(p_, gathered_);
    const coulomb::Lattice& n = p_.lattice;
    const io::UniformGrid3 grid = uniform_grid(n.nx, n.ny, n.nz, n.spacing, n.origin);
    if (!out.write_part(kField, grid_dims(grid), part_.offset(), part_.count(),
                        result_.potential.data()))
      return;
    out.file->set_attribute(kField, "origin",
                           std::vector<double>(n.origin.begin(), n.origin.end()));
    out.file->set_attribute(kField, "center", std::string(name(p_.center)));
    out.describe_grid_field(kField, "potential", grid, coulomb::unit(p_), 4);
    if (!p_.write_dx) return;
    const std::filesystem::path& path = out.file->path();
    const float* values = ranks() == 1 ? result_.potential.data() : gathered_.data();
    out.sidecars.push_back({std::filesystem::path(path).replace_extension(".dx"),
                            io::dx_text({n.origin, n.spacing, n.nx, n.ny, n.nz}, values,
                                        coulomb::dx_comment(p_, atoms_.size()))});
  }

 private:
  static constexpr const char* kField = "/fields/potential";

  coulomb::Part part_;            // this rank's points: the whole lattice on one rank
  std::int64_t atom_count_ = 0;   // known on every rank once prepared; atoms_ on rank 0 alone
  std::vector<Atom> atoms_;       // on every rank once solve() broadcast them
  coulomb::Result result_;        // this rank's part
  coulomb::Diagnostics diagnostics_;  // the whole run's, once solved
  std::vector<float> gathered_;   // rank 0's whole potential for the OpenDX map, across ranks
};

class CoulombStudy final : public MethodStudy<Params, SweepParams> {
 public:
  using MethodStudy::MethodStudy;

  void prepare() override {
    sourced(t_, [&] { lattice_.emplace(p_); });
    p_ = lattice_->params();
    configs_ = lattice_->configurations();
    check_method_block(t_, lattice_->largest().block);
    require_file_needs(t_, lattice_->needs());
    stream_.emplace();
    ProgressLine line("gold points", "atom-evals", static_cast<double>(lattice_->atom_count()));
    lattice_->prepare(*stream_, progress_on(line));
  }

  std::string describe() const override { return lattice_->described(current_device().name); }

  SweepColumns columns() const override {
    return columns_with({"gatom_evals_per_s", "Gatom-evals/s", 15, 2},
                        SweepColumns::Roofline{{"grsqrt_per_s", "Grsqrt/s", 10, 1},
                                               {"percent_of_rsqrt", "% rsqrt", 8, 1}},
                        {"max_relative_to_scale", "max rel err", 11, 2, 'g'});
  }

  // The sweep-row protocol (kernels/sweep_row.hpp), checked at the sampled rows.
  Measurement measure(std::size_t i) override {
    return unless_skipped(lattice_->skipped(i), [&] { return lattice_->measure(i, s_.repeats); });
  }

  double units_per_run() const override { return lattice_->terms(); }
  double roofline_per_run() const override { return lattice_->terms(); }  // one rsqrt a term
  double ceiling_per_second() const override { return lattice_->rsqrt_per_second(); }

  void write_attributes(io::ResultFile& out) const override {
    set_attributes(out, "/sweep", lattice_->attributes());
  }

  io::AutotuneKey choice_key() const override { return coulomb_key(p_, lattice_->atom_count()); }

 private:
  std::optional<coulomb::SweptLattice> lattice_;  // the atoms, their gold rows, their upload
};

// The whole parameter file: the parameters, then the [sweep] table. A relative atoms.file is
// resolved against the parameter file's folder (one given on the command line, against the
// current folder).
DeclaredFile<Params, SweepParams> read(io::ParamTable& t, const std::filesystem::path& path) {
  return read_declared(t, coulomb::keys(), coulomb::sweep_keys(), path);
}

}  // namespace

Binding coulomb_binding() {
  Binding b{"coulomb", "electrostatic potential of point charges on a lattice by direct summation",
            declared_run<read, CoulombRun>, declared_study<read, CoulombStudy>};
  b.keys = [] { return declared(coulomb::keys(), coulomb::sweep_keys()); };
  b.across_ranks = true;
  b.examples = {"inputs/coulomb.toml", "inputs/coulomb-centred.toml", "inputs/coulomb-bench.toml"};
  return b;
}

}  // namespace parasol::app
