// What tridiag's runs share (tridiag_binding.cpp makes one per problem: a batch of general
// systems, of another kind, the heat march, one long system cut by rows): the launch and
// method.variant = "auto", the solve's phases and numbers made the whole run's, the summary's
// rate, and the result's /input. Each rank holds its share; what is said is the whole run's.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "apps/solver_run.hpp"
#include "kernels/finite.hpp"
#include "solvers/tridiag/inputs.hpp"
#include "solvers/tridiag/keys.hpp"
#include "solvers/tridiag/problem.hpp"
#include "solvers/tridiag/run.hpp"

namespace parasol::app {

template <class T>
class TridiagRun : public SolverRun<tridiag::Params> {
 public:
  using SolverRun::SolverRun;

  // A batch's summary: max|x| and the rate (the heat march says more).
  void report(io::ResultFile& out) override {
    const double rate = write_rate(out);
    say(formatted("max|x| %.6g; %.3g s, %.3f Gunknowns/s", diagnostics_.high, compute_seconds_,
                  1e-9 * rate));
  }

  double work() const override { return unknowns_; }

  Reproducibility reproducibility() const override {
    return {true, "each system is solved alone in a fixed order of operations; ranks split the "
                  "systems, not a system"};
  }

 protected:
  static constexpr int kBytes = static_cast<int>(sizeof(T));
  static constexpr const char* kRowFastest = "[system][row], row fastest";
  static constexpr const char* kXUnits = "as d divided by the coefficients' unit";

  // What the summary says of this rank's result (the heat march's its own).
  virtual tridiag::Diagnostics diagnostics() const { return tridiag::batch_diagnostics(x_); }

  // After this rank's solve (x_ made, `t` its phases): the phases, x checked finite, and the
  // diagnostics and the slowest rank's seconds made the whole run's.
  void finish(PhaseTimer& timings, const tridiag::Timings& t) {
    add_device_phases(timings, t);
    compute_seconds_ = t.compute;
    require_finite("tridiag: the solution", x_);
    diagnostics_ = diagnostics();
    combine_over_ranks(timings, [&](comm::Context& context) {
      diagnostics_ = tridiag::over_ranks(context, diagnostics_);
      solve_seconds_ = context.all_reduce(solve_seconds_, comm::Op::max);
      compute_seconds_ = context.all_reduce(compute_seconds_, comm::Op::max);
    });
  }

  // The same for a batch solved in one call: x (and the gold a CPU run kept), its compute seconds
  // the solve's.
  void finish(PhaseTimer& timings, tridiag::Solved<T>&& s) {
    x_ = std::move(s.x);
    gold_ = std::move(s.gold);
    solve_seconds_ = s.timings.compute;
    finish(timings, s.timings);
  }

  // /timings' seconds of the solves and their rate, and /method's ranks; the rate returned.
  double write_rate(io::ResultFile& out) const {
    const double rate = solve_seconds_ > 0 ? work() / solve_seconds_ : 0.0;
    out.set_attribute("/timings", "solve_s", solve_seconds_);
    out.set_attribute("/timings", "unknowns_per_s", rate);
    write_ranks(out, decomposition_);
    return rate;
  }

  // method.variant = "auto" looked up for systems of n rows (systems_ of them in the whole run),
  // then the launch for this rank's `systems`, or the InputError naming the key at fault (a
  // stored choice's, naming the autotune file). p_ then holds the launch that runs, as /method
  // and the summary say it (tridiag::method_axes).
  void choose_launch(std::int64_t n, std::int64_t systems) {
    if (looks_up_choice()) {
      choose_automatic(autotune_key("tridiag", tridiag::problem_class(p_, n, systems_),
                                    std::string(name(p_.precision))));
      if (auto_.choice)
        auto_.validate("chunk", [&] { (void)tridiag::launch_for(p_, n, systems_, kBytes); });
    }
    io::with_sources(t_, [&] { launch_ = tridiag::launch_for(p_, n, systems, kBytes); });
    p_.variant = launch_.variant;
    p_.threads = launch_.threads;
    p_.chunk = launch_.chunk;
  }

  // The memory `f` on the device (on a GPU run, `device`) and the host, before anything is made;
  // a complaint names the key that sized the problem.
  void require_memory(const tridiag::Footprint& f, const std::string& what, bool device) const {
    app::require_memory(t_, tridiag::size_key(p_), what + " need", f.device, f.host, device);
  }

  // This rank's systems of a batch (read or drawn), with where they lie among the whole's.
  template <class Part>
  auto take_part(Part part) {
    first_ = part.first;
    systems_ = part.systems;
    return std::move(part.batch);
  }

  // " from FILE" or " drawn from seed N": where the systems came from, for the summary.
  std::string source() const {
    return p_.problem == tridiag::Problem::file
               ? " from " + p_.input.file
               : " drawn from seed " + std::to_string(p_.random.seed);
  }

  // The summary's first line: `what` was solved, in which precision, by what on which device.
  std::string described(const std::string& what) const {
    return what + ", " + std::string(name(p_.precision)) + "; " + ran(described_method());
  }

  // `e` restated naming where the systems came from (the file, or the seed that drew them), and
  // `note` after it unless it says so already.
  tridiag::NumericalError from_source(const tridiag::NumericalError& e,
                                      const std::string& note = "") const {
    const std::string where =
        p_.problem == tridiag::Problem::file ? p_.input.file : std::string("random.seed");
    const std::string what = e.what();
    const bool noted = note.empty() || what.find("do not pivot") != std::string::npos;
    return tridiag::NumericalError(e.system(), where + ": " + what + (noted ? "" : note));
  }

  // `field` (x or u) of this rank's `rows` systems from first_, and on rank 0 its attributes;
  // false on the ranks that write no attributes.
  bool write_x(Output& out, const char* field, const std::vector<std::uint64_t>& extent,
               std::uint64_t rows, const std::string& layout, const std::string& units) {
    if (!out.write_share(field, extent, static_cast<std::uint64_t>(first_), rows, x_.data()))
      return false;
    out.file->set_attribute(field, "layout", layout);
    out.file->set_attribute(field, "units", units);
    return true;
  }

  // /input: the file, or the seed the systems were drawn from, and their count and rows.
  void write_input(Output& out, std::int64_t systems, std::int64_t n) const {
    if (p_.problem == tridiag::Problem::file)
      out.file->set_attribute("/input", "file", p_.input.file);
    else
      out.file->set_attribute("/input", "seed", static_cast<std::int64_t>(p_.random.seed));
    out.file->set_attribute("/input", "systems", systems);
    out.file->set_attribute("/input", "n", n);
  }

  tridiag::Launch launch_;
  std::vector<T> x_;                  // this rank's solution, contiguous
  std::vector<double> gold_;          // ... by the gold in double (a CPU run's, or the check's)
  std::int64_t systems_ = 0;          // in the whole problem
  std::int64_t first_ = 0;            // this rank's first system (grid)
  double unknowns_ = 0;               // solved in the whole run (work())
  const char* decomposition_ = "whole systems";  // how the ranks cut the problem
  tridiag::Diagnostics diagnostics_;  // the whole run's, across ranks
  double compute_seconds_ = 0, solve_seconds_ = 0;

};

// One run of each problem (tridiag_batch.cpp, tridiag_heat.cpp, tridiag_long.cpp) and the sweeps
// (tridiag_study.cpp), in the file's precision.
using TridiagFile = DeclaredFile<tridiag::Params, tridiag::SweepParams>;
std::unique_ptr<Run> make_batch_run(io::ParamTable& t, TridiagFile file);
std::unique_ptr<Run> make_kind_run(io::ParamTable& t, TridiagFile file);
std::unique_ptr<Run> make_heat_run(io::ParamTable& t, TridiagFile file);
std::unique_ptr<Run> make_long_run(io::ParamTable& t, TridiagFile file);
std::unique_ptr<Study> make_tridiag_study(io::ParamTable& t, TridiagFile file);

}  // namespace parasol::app
