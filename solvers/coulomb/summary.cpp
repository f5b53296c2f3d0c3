// What a coulomb run says (summary.hpp).
#include "solvers/coulomb/summary.hpp"

#include <algorithm>

#include "kernels/agreement.hpp"
#include "kernels/printable.hpp"

namespace parasol::coulomb {

std::string describe_problem(const Params& p, std::int64_t atoms) {
  return extent(p.lattice) + " lattice at spacing " + short_number(p.lattice.spacing) +
         placement(p) + ", " + std::to_string(atoms) + " atoms from " + p.atoms_file;
}

std::string problem_class(const Params& p, std::int64_t atoms) {
  return "lattice=" + extent(p.lattice) + ",atoms=" + std::to_string(atoms);
}

MemoryNeed device_need(const Params& p, std::int64_t atoms, const Part& part) {
  const bool share = part.points() < p.lattice.points();
  MemoryNeed n;
  n.what = "a " + extent(p.lattice) + " lattice and " + std::to_string(atoms) + " atoms need" +
           (share ? ", for this rank's part," : "");
  n.bytes = device_bytes(p, atoms, part);
  n.device = true;
  return n;
}

MemoryNeed host_need(const Params& p, bool cpu, bool check, double points, double gathered) {
  const double per_point = 4.0 + (cpu ? 8.0 : 0.0) + (check ? 16.0 : 0.0);
  MemoryNeed n;
  n.what = "a " + extent(p.lattice) + " lattice needs";
  n.bytes = per_point * points + 4.0 * gathered;
  return n;
}

std::vector<MemoryNeed> run_needs(const Params& p, std::int64_t atoms, const Part& part, bool gpu,
                                  bool check, bool gathers) {
  std::vector<MemoryNeed> needs;
  if (gpu) needs.push_back(device_need(p, atoms, part));
  needs.push_back(host_need(p, !gpu, check, static_cast<double>(part.points()),
                            gathers ? static_cast<double>(p.lattice.points()) : 0.0));
  return needs;
}

std::pair<bool, std::string> reproducibility(const Params& p, bool gpu) {
  // scatter adds each atom's term into every point with atomics, in the order blocks run.
  if (gpu && p.variant == Variant::scatter)
    return {false, "scatter adds the atoms' terms with atomics, in the order blocks run"};
  return {true, "each point sums the atoms in their file's order, whatever the cut"};
}

std::vector<Attribute> atoms_attributes(const Params& p, const std::vector<Atom>& atoms) {
  return {{"count", static_cast<std::int64_t>(atoms.size())},
          {"total_charge", total_charge(atoms)},
          {"file", p.atoms_file}};
}

std::vector<Attribute> sweep_attributes(const Params& p, std::size_t atoms, std::size_t rows,
                                        double rsqrt) {
  return {{"rsqrt_per_s", rsqrt},
          {"points", p.lattice.points()},
          {"atoms", static_cast<std::int64_t>(atoms)},
          {"check_tolerance", tolerance(Variant::gather, atoms)},
          {"scatter_check_tolerance", tolerance(Variant::scatter, atoms)},
          {"checked_rows", static_cast<std::int64_t>(rows)}};
}

std::string summary_line(const Params& p, const Diagnostics& d, double charge, double rate) {
  const double scale = p.potential_scale();
  return formatted(
      "potential from %.6g to %.6g %s; total charge %.4g e; %.3f s, %.3f Gatom-evals/s",
      scale * d.low, scale * d.high, unit(p).c_str(), charge, d.compute_seconds, 1e-9 * rate);
}

std::string unit(const Params& p) { return std::string(name(p.potential_unit)); }

void to_unit(const Params& p, std::vector<float>& values) {
  const auto scale = static_cast<float>(p.potential_scale());
  if (scale != 1.0f)
    for (float& v : values) v *= scale;
}

std::string sweep_skip(const Params& c, std::size_t atoms) {
  const double n = terms(c.lattice, atoms);
  if (c.variant != Variant::scatter || n <= kScatterSweepLimit) return {};
  return "scatter skipped: " + short_number(n) + " atom evaluations (over " +
         short_number(kScatterSweepLimit) + ") would take too long with atomics";
}

const Params& largest(const std::vector<Params>& configs, std::int64_t atoms) {
  const auto bytes = [&](const Params& c) { return device_bytes(c, atoms); };
  return *std::max_element(configs.begin(), configs.end(),
                           [&](auto& a, auto& b) { return bytes(a) < bytes(b); });
}

RowOutcome measure(DeviceProblem& problem, const Params& c, const Repeats& repeats,
                   const std::vector<std::int64_t>& rows, const GoldWithScale& gold) {
  const auto atoms = static_cast<std::size_t>(problem.atom_count());
  RowSteps steps;
  steps.method = describe_method(c);
  steps.poison = [&] { problem.poison(); };
  steps.run = [&] { problem.run(c.variant, c.block, c.coarsening); };
  steps.check = [&] {
    return agreement_at_rows(problem.download(), c.lattice.nx, rows, gold,
                             tolerance(c.variant, atoms));
  };
  steps.time = timed_on(problem.stream(), repeats);
  return measure_row(steps);
}

}  // namespace parasol::coulomb
