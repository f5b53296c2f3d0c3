// What a coulomb run says, for the front end and anything else that runs the solver: the run in
// words, the problem class a tuned choice is stored under, the memory a run takes before it is
// made, what it promises of its bits, /atoms and the rate as attributes and the summary's line,
// the potential in its unit, and one row of a sweep. Host-only API: compiles without nvcc.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "kernels/sweep_row.hpp"
#include "solvers/coulomb/check.hpp"
#include "solvers/coulomb/coulomb.hpp"
#include "solvers/coulomb/ranks.hpp"

namespace parasol::coulomb {

// "65x65x65 lattice at spacing 0.5, centred on ..., 2 atoms from a.pqr": the run's problem.
std::string describe_problem(const Params& p, std::int64_t atoms);

// The problem class a tuned choice is stored under: the lattice and the atom count, exactly
// ("lattice=256x256x256,atoms=23558").
std::string problem_class(const Params& p, std::int64_t atoms);

// Memory of the whole problem (its key "lattice", refused at the parameter file), in the order it
// is checked: "<what> about ..." (`what` ends in its verb).
struct MemoryNeed {
  std::string key = "lattice", what;
  double bytes = 0;
  bool device = false;
};
// On the device: the potential, the atoms and the atom slices' partial sums, of the whole
// lattice or of this rank's `part`.
MemoryNeed device_need(const Params& p, std::int64_t atoms, const Part& part);
// On the host: the float result; the gold in double on a CPU run (`cpu`); its potential and
// scale for a `check`: of `points` points (the whole lattice, or a rank's part), and `gathered`
// more for rank 0's OpenDX map of a run across ranks.
MemoryNeed host_need(const Params& p, bool cpu, bool check, double points, double gathered = 0);
// A run's, in order: on the GPU (`gpu`) device_need of this rank's `part`, then host_need of the
// part, with the whole lattice gathered more where this rank `gathers` an OpenDX map.
std::vector<MemoryNeed> run_needs(const Params& p, std::int64_t atoms, const Part& part, bool gpu,
                                  bool check, bool gathers);

// Whether a run's bits repeat (the same inputs, backend, device and rank count), and why.
std::pair<bool, std::string> reproducibility(const Params& p, bool gpu);

// A fact of a run as an attribute records it, by name (the kinds an HDF5 attribute holds).
using Attribute = std::pair<std::string, std::variant<std::int64_t, double, std::string>>;
// /atoms: their count, total charge and file.
std::vector<Attribute> atoms_attributes(const Params& p, const std::vector<Atom>& atoms);
// A sweep's /sweep: the measured rsqrt throughput (`rsqrt`, a second), the points, the atoms,
// the check's tolerances (scatter's apart) and the rows checked.
std::vector<Attribute> sweep_attributes(const Params& p, std::size_t atoms, std::size_t rows,
                                        double rsqrt);
// The summary's line: the potential's range in its unit, the total charge, the compute seconds
// and the rate (`rate`: atom evaluations a second).
std::string summary_line(const Params& p, const Diagnostics& d, double charge, double rate);

// The unit the potential is written in, as the result file names it.
std::string unit(const Params& p);
// The sum as computed, in the chosen unit: what is written (the check and the report judge the
// sum itself).
void to_unit(const Params& p, std::vector<float>& values);

// scatter, the slowest variant by far, is left out of a sweep past this many terms: it would take
// minutes a row with atomics.
inline constexpr double kScatterSweepLimit = 2e9;
// Why a sweep leaves configuration `c` of `atoms` atoms out ("scatter skipped: ..."); empty
// when it runs.
std::string sweep_skip(const Params& c, std::size_t atoms);
// Of a sweep's configurations, the one that takes the most device memory with `atoms` atoms.
const Params& largest(const std::vector<Params>& configs, std::int64_t atoms);
// One configuration `c` on the uploaded `problem` by the sweep-row protocol: poisoned, run, and
// checked at the sampled `rows` against their `gold`, timed on the problem's stream.
RowOutcome measure(DeviceProblem& problem, const Params& c, const Repeats& repeats,
                   const std::vector<std::int64_t>& rows, const GoldWithScale& gold);

}  // namespace parasol::coulomb
