// coulomb's binding: what a run reads, prints, records and writes (the potential with its XDMF
// sidecar, and an OpenDX map on request), and its sweep over variants, block shapes and
// coarsenings on one upload of the atoms. A run may be cut among ranks (solvers/coulomb/part.hpp,
// ranks.hpp): rank 0 reads the atoms and broadcasts them, each rank sums its part of the lattice
// and writes it into the one result file. The run's words, memory, attributes and a sweep's rows
// are the solver's (solvers/coulomb/summary.hpp).
#include <optional>

#include "apps/progress.hpp"
#include "apps/solver_parts.hpp"
#include "apps/solver_run.hpp"
#include "io/dx.hpp"
#include "io/xdmf.hpp"
#include "kernels/device.hpp"
#include "kernels/finite.hpp"
#include "solvers/coulomb/keys.hpp"
#include "solvers/coulomb/summary.hpp"

namespace parasol::app {
namespace {

using coulomb::Atom;
using coulomb::Params;
using coulomb::SweepParams;

io::AutotuneKey coulomb_key(const Params& p, std::int64_t atoms) {
  return autotune_key("coulomb", coulomb::problem_class(p, atoms), "float");
}

// What only the device can tell: block limits, and room for the whole lattice or this rank's part.
void check_fits_device(const io::ParamTable& t, const Params& p, std::int64_t atoms,
                       const coulomb::Part& part) {
  check_method_block(t, p.block);
  require_file_needs(t, std::vector{coulomb::device_need(p, atoms, part)});
}

coulomb::ProgressCallback progress_on(ProgressLine& line) {
  return [&line](const coulomb::Progress& pr) { line.update(pr.done, pr.total, pr.seconds); };
}

class CoulombRun final : public SolverRun<Params> {
 public:
  using SolverRun::SolverRun;

  void prepare(const RunSetup& setup) override {
    take(setup);
    atom_count_ = coulomb::read_atoms_on_root(*context_, p_, atoms_);
    io::with_sources(t_, [&] { part_ = coulomb::place_and_cut(*context_, p_, atoms_); });
    if (looks_up_choice()) choose_automatic(coulomb_key(p_, atom_count_));
    if (gpu_) check_fits_device(t_, p_, atom_count_, part_);
    const bool gathers = ranks() > 1 && p_.write_dx && context_->is_root();
    require_file_needs(t_, std::vector{coulomb::host_need(
                               p_, !gpu_, check_, static_cast<double>(part_.points()),
                               gathers ? static_cast<double>(p_.lattice.points()) : 0.0)});
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
    const double before = context_->comm_seconds();
    if (ranks() > 1) context_->broadcast(atoms_);
    const double broadcast = context_->comm_seconds() - before;
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
    if (ranks() > 1) timings.add("exchange", broadcast);  // the atoms' broadcast is exchange too
    add_device_phases(timings, result_.timings);
  }

  double work() const override { return coulomb::terms(p_.lattice, atoms_.size()); }

  Reproducibility reproducibility() const override {
    auto [reproducible, because] = coulomb::reproducibility(p_, gpu_);
    return {reproducible, std::move(because)};
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
    const io::UniformGrid3 grid{{std::uint64_t(n.nx), std::uint64_t(n.ny), std::uint64_t(n.nz)},
                                n.origin,
                                {n.spacing, n.spacing, n.spacing}};
    if (!out.write_part(kField, grid_dims(grid),
                        {std::uint64_t(part_.k_first), std::uint64_t(part_.j_first), 0},
                        {std::uint64_t(part_.nz), std::uint64_t(part_.ny), std::uint64_t(part_.nx)},
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
    atoms_ = coulomb::read_atoms(p_.atoms_file, p_.atom_format);
    io::with_sources(t_, [&] { p_ = coulomb::placed(p_, coulomb::bounding_box(atoms_)); });
    for (const coulomb::Method& m : coulomb::sweep_methods(p_.block))
      configs_.push_back(coulomb::with_method(p_, m));
    check_fits_device(t_, coulomb::largest(configs_, atom_count()), atom_count(),
                      coulomb::whole(p_.lattice));
    require_file_needs(t_, std::vector{coulomb::host_need(
                               p_, false, true, static_cast<double>(p_.lattice.points()))});
    stream_.emplace();
    rsqrt_ = coulomb::measure_rsqrt_throughput();
    rows_ = coulomb::sampled_rows(p_.lattice, coulomb::kSweepCheckStride);
    {
      ProgressLine line("gold points", "atom-evals", static_cast<double>(atoms_.size()));
      gold_ = coulomb::solve_gold_with_scale_rows(p_, atoms_, rows_, progress_on(line));
    }
    problem_.emplace(p_, atoms_, *stream_);
  }

  std::string describe() const override {
    return coulomb::extent(p_.lattice) + " lattice" + coulomb::placement(p_) + ", " +
           std::to_string(atoms_.size()) +
           " atoms on " + current_device().name + "; rsqrtf " + short_number(1e-9 * rsqrt_) +
           " G/s";
  }

  SweepColumns columns() const override {
    return columns_with({"gatom_evals_per_s", "Gatom-evals/s", 15, 2},
                        SweepColumns::Roofline{{"grsqrt_per_s", "Grsqrt/s", 10, 1},
                                               {"percent_of_rsqrt", "% rsqrt", 8, 1}},
                        {"max_relative_to_scale", "max rel err", 11, 2, 'g'});
  }

  // The sweep-row protocol (kernels/sweep_row.hpp), checked at the sampled rows.
  Measurement measure(std::size_t i) override {
    Measurement m;
    m.skipped = coulomb::sweep_skip(configs_[i], atoms_.size());
    if (!m.skipped.empty()) return m;
    return measured(coulomb::measure(*problem_, configs_[i], s_.repeats, rows_, gold_));
  }

  double units_per_run() const override { return terms(); }
  double roofline_per_run() const override { return terms(); }  // one rsqrt a term
  double ceiling_per_second() const override { return rsqrt_; }

  void write_attributes(io::ResultFile& out) const override {
    set_attributes(out, "/sweep",
                   coulomb::sweep_attributes(p_, atoms_.size(), rows_.size(), rsqrt_));
  }

  io::AutotuneKey choice_key() const override { return coulomb_key(p_, atom_count()); }

 private:
  std::int64_t atom_count() const { return static_cast<std::int64_t>(atoms_.size()); }
  double terms() const { return coulomb::terms(p_.lattice, atoms_.size()); }

  std::vector<Atom> atoms_;
  double rsqrt_ = 0;
  std::vector<std::int64_t> rows_;  // the x rows each configuration is checked at
  coulomb::GoldWithScale gold_;     // the gold of those rows
  std::optional<coulomb::DeviceProblem> problem_;  // the atoms, uploaded once
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
