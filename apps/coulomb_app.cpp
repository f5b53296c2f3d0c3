// coulomb in the front end: parameter file and atoms -> Params, run or sweep, potential -> HDF5
// (with an XDMF sidecar, and an OpenDX map on request).

#include <algorithm>
#include <chrono>
#include <climits>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include "apps/check.hpp"
#include "apps/io/dx.hpp"
#include "apps/io/xdmf.hpp"
#include "apps/provenance.hpp"
#include "apps/results_table.hpp"
#include "apps/solvers.hpp"
#include "kernels/device.hpp"
#include "kernels/error.hpp"
#include "kernels/validate.hpp"
#include "solvers/coulomb/coulomb.hpp"
#include "solvers/coulomb/shapes.hpp"

namespace parasol::app {
namespace {

using coulomb::Atom;
using coulomb::Params;
using coulomb::Variant;


// A sweep of scatter, the slowest variant by far, past this many atom evaluations would take
// minutes per row.
constexpr double kScatterSweepLimit = 2e9;

// A float sum of n terms is off by about n ulps of its magnitude scale at worst; 1e-5 is far
// past honest round-off for the atom counts here and far below any indexing error.
constexpr double kCheckTolerance = 1e-5;

// Settings of `parasol sweep`, from the file's [sweep] table.
struct SweepParams {
  std::int64_t repeats = 5;  // timed runs per row, after one warm-up; the median is reported
};

// The atoms file's format from its extension, or empty when the extension does not say.
std::string format_from_extension(const std::filesystem::path& file) {
  std::string ext = file.extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (ext == ".pqr") return "pqr";
  if (ext == ".xyz") return "xyz";
  return "";
}

// Every key coulomb accepts is read here, so anything else in the file is unknown. A relative
// atoms.file is resolved against the parameter file's folder (one given on the command line,
// against the current folder).
Params read_params(io::ParamTable& t, const std::filesystem::path& params_path) {
  const Params d;
  Params p;
  const std::vector<double> origin = t.get_doubles(
      "lattice.origin", std::vector<double>(d.lattice.origin.begin(), d.lattice.origin.end()));
  if (origin.size() != 3)
    throw InputError(t.source_of("lattice.origin"), "lattice.origin",
                     "expected three numbers [x, y, z], got " + std::to_string(origin.size()));
  std::copy(origin.begin(), origin.end(), p.lattice.origin.begin());
  p.lattice.spacing = t.get_double("lattice.spacing", d.lattice.spacing);
  p.lattice.nx = t.get_int("lattice.nx");
  p.lattice.ny = t.get_int("lattice.ny");
  p.lattice.nz = t.get_int("lattice.nz");

  p.atoms_file = io::get_file(t, "atoms.file", params_path);
  const std::string inferred = format_from_extension(p.atoms_file);
  if (inferred.empty() && !t.has("atoms.format"))
    throw InputError(t.source(), "atoms.format",
                     "missing; the extension of \"" +
                         std::filesystem::path(p.atoms_file).filename().string() +
                         "\" does not say, so expected \"pqr\" or \"xyz\"");
  p.atom_format = io::get_choice(t, "atoms.format", inferred, coulomb::parse_atom_format);

  p.coulomb_constant = t.get_double("physics.coulomb_constant", d.coulomb_constant);
  p.min_distance = t.get_double("physics.min_distance", d.min_distance);
  p.variant = io::get_choice(t, "method.variant", std::string(name(d.variant)),
                             coulomb::parse_variant);
  p.block = t.get_shape("method.block", d.block);
  const std::int64_t coarsening = t.get_int("method.coarsening", d.coarsening);
  // validate() names the allowed values; out of int range becomes a value it rejects.
  p.coarsening = coarsening < 1 || coarsening > INT_MAX ? 0 : static_cast<int>(coarsening);
  p.write_dx = t.get_bool("output.dx", d.write_dx);
  return p;
}

SweepParams read_sweep_params(io::ParamTable& t) {
  SweepParams s;
  s.repeats = io::get_positive_int(t, "sweep.repeats", s.repeats);
  return s;
}

// Reads and checks everything the file says; names the file (or the command line) and the key.
std::pair<Params, SweepParams> read_all(io::ParamTable& t,
                                        const std::filesystem::path& params_path) {
  return io::read_checked(
      t, [&] { return read_params(t, params_path); }, [&] { return read_sweep_params(t); });
}

std::string extent(const Params& p) {
  return std::to_string(p.lattice.nx) + "x" + std::to_string(p.lattice.ny) + "x" +
         std::to_string(p.lattice.nz);
}

double points(const Params& p) { return static_cast<double>(p.lattice.points()); }

// What only the device can tell: block limits, and room for the potential and the atoms.
void check_fits_device(const io::ParamTable& t, const Params& p, std::size_t atoms) {
  const DeviceInfo device = current_device();
  try {
    check_block_limits(p.block, device, "method.block");
  } catch (const InputError& e) {
    throw InputError(t.source_of("method.block"), "method.block", e.expected());
  }
  const double need = sizeof(float) * points(p) + sizeof(Atom) * static_cast<double>(atoms);
  if (need > static_cast<double>(device.free_memory))
    throw InputError(t.source(), "lattice",
                     "a " + extent(p) + " lattice and " + std::to_string(atoms) + " atoms need " +
                         gib(need) + " on the device; " + device.name + " has " +
                         gib(static_cast<double>(device.free_memory)) + " free");
}

// The float result, and with the gold (CPU runs, --check, sweeps) two double fields besides.
void check_fits_host(const io::ParamTable& t, const Params& p, bool gold) {
  const double host = host_memory_bytes();
  const double need = (sizeof(float) + (gold ? 2 * sizeof(double) : 0)) * points(p);
  if (need > host)
    throw InputError(t.source(), "lattice",
                     "a " + extent(p) + " lattice needs about " + gib(need) +
                         " of host memory; this machine has " + gib(host));
}

// NaN anywhere makes it NaN: it must not pass as agreement. A point whose scale is 0 (all
// charges zero) must match exactly.
double max_relative_to_scale(const std::vector<float>& result, const std::vector<double>& gold,
                             const std::vector<double>& scale) {
  double worst = 0;
  for (std::size_t i = 0; i < result.size(); ++i) {
    const double e = std::abs(static_cast<double>(result[i]) - gold[i]);
    if (std::isnan(e)) return NAN;
    const double r = scale[i] > 0 ? e / scale[i] : (e == 0 ? 0 : INFINITY);
    worst = std::max(worst, r);
  }
  return worst;
}

double total_charge(const std::vector<Atom>& atoms) {
  double q = 0;
  for (const Atom& a : atoms) q += a.q;
  return q;
}

std::vector<float> to_float(const std::vector<double>& v) {
  std::vector<float> out(v.size());
  std::transform(v.begin(), v.end(), out.begin(), [](double x) { return static_cast<float>(x); });
  return out;
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

std::string method_of(const Params& p) {
  std::string text = std::string(name(p.variant)) + " " + to_string(p.block);
  if (coulomb::coarsens(p.variant))
    text += ", " + std::to_string(p.coarsening) + " points per thread";
  return text;
}

// "OUT.h5" -> "OUT.dx", beside it.
std::filesystem::path dx_path_for(const std::filesystem::path& h5_path) {
  std::filesystem::path dx = h5_path;
  return dx.replace_extension(".dx");
}

int run(io::ParamTable& t, const RunOptions& options) {
  const auto [p, sweep] = read_all(t, options.params_path);
  (void)sweep;
  const std::vector<Atom> atoms = coulomb::read_atoms(p.atoms_file, p.atom_format);
  const Backend backend = resolve_backend(options.backend);
  const bool gpu = backend == Backend::gpu;
  if (gpu) check_fits_device(t, p, atoms.size());
  check_fits_host(t, p, !gpu || options.check);
  const std::filesystem::path path = output_path(options.output, options.params_path, "");
  io::ResultFile out(path, options.force, options.compression);
  write_parameters(out, t);
  write_provenance(out, "coulomb", backend, options.command_line);

  std::cout << "coulomb: " << extent(p) << " lattice at spacing " << p.lattice.spacing << ", "
            << atoms.size() << " atoms from " << p.atoms_file << "; "
            << (gpu ? method_of(p) + " on " + current_device().name
                    : std::string("CPU gold solver"))
            << "\n";

  coulomb::Result result;
  std::vector<double> gold;
  if (gpu) {
    result = coulomb::solve_gpu(p, atoms);
  } else {
    const auto start = std::chrono::steady_clock::now();
    gold = coulomb::solve_gold(p, atoms);
    result.timings.compute = seconds_since(start);
    result.potential = to_float(gold);
  }
  const double evaluations = points(p) * static_cast<double>(atoms.size());
  const double rate = evaluations / result.timings.compute;
  out.set_attribute("/timings", "host_to_device_s", result.timings.host_to_device);
  out.set_attribute("/timings", "compute_s", result.timings.compute);
  out.set_attribute("/timings", "device_to_host_s", result.timings.device_to_host);
  out.set_attribute("/timings", "atom_evaluations_per_s", rate);
  out.set_attribute("/atoms", "count", static_cast<std::int64_t>(atoms.size()));
  out.set_attribute("/atoms", "total_charge", total_charge(atoms));
  out.set_attribute("/atoms", "file", p.atoms_file);

  const auto [low, high] = std::minmax_element(result.potential.begin(), result.potential.end());
  char line[256];
  std::snprintf(line, sizeof line,
                "  potential from %.6g to %.6g; total charge %.4g; %.3f s, %.3f G atom-evals/s\n",
                static_cast<double>(*low), static_cast<double>(*high), total_charge(atoms),
                result.timings.compute, 1e-9 * rate);
  std::cout << line;

  if (options.check) {
    if (gold.empty()) gold = coulomb::solve_gold(p, atoms);
    const std::vector<double> scale = coulomb::magnitude_scale(p, atoms);
    const FieldDifference diff = compare(result.potential, gold);
    const double relative = max_relative_to_scale(result.potential, gold, scale);
    write_check(out, diff, "double");
    out.set_attribute("/check", "max_relative_to_scale", relative);
    std::snprintf(line, sizeof line,
                  "  check against the double-precision CPU gold: max abs diff %.3g, rms diff "
                  "%.3g, max relative to scale %.3g%s\n",
                  diff.max_abs, diff.rms, relative,
                  relative <= kCheckTolerance ? "" : " (above 1e-5: suspect the solver)");
    std::cout << line;
  }

  const coulomb::Lattice& n = p.lattice;
  out.write_field("/fields/potential", result.potential.data(),
                  {std::uint64_t(n.nz), std::uint64_t(n.ny), std::uint64_t(n.nx)});
  out.set_attribute("/fields/potential", "origin",
                    std::vector<double>(n.origin.begin(), n.origin.end()));
  out.set_attribute("/fields/potential", "spacing", n.spacing);
  out.set_attribute("/fields/potential", "layout", std::string("[nz][ny][nx], x fastest"));
  io::UniformGrid3 grid;
  grid.points = {std::uint64_t(n.nx), std::uint64_t(n.ny), std::uint64_t(n.nz)};
  grid.origin = n.origin;
  grid.spacing = {n.spacing, n.spacing, n.spacing};
  out.commit();
  const std::filesystem::path xmf = io::xdmf_path_for(path);
  io::write_file_atomically(
      xmf, io::xdmf_text(path.filename().string(), grid, {"/fields/potential", "potential", 4}));
  std::cout << "  wrote " << path.string() << " (and " << xmf.string();
  if (p.write_dx) {
    const std::filesystem::path dx = dx_path_for(path);
    io::write_dx(dx, {n.origin, n.spacing, n.nx, n.ny, n.nz}, result.potential.data(),
                 "Coulomb potential by direct summation (parasol coulomb)\n" +
                     std::to_string(atoms.size()) + " atoms from " + p.atoms_file +
                     "\ncoulomb_constant " + std::to_string(p.coulomb_constant));
    std::cout << ", " << dx.string();
  }
  std::cout << ")\n";
  return 0;
}

int sweep(io::ParamTable& t, const SweepOptions& options) {
  const auto [p, s] = read_all(t, options.params_path);
  const std::vector<Atom> atoms = coulomb::read_atoms(p.atoms_file, p.atom_format);
  std::string reason;
  if (!gpu_available(&reason))
    throw Error("parasol sweep times GPU kernels and needs a device: " + reason);
  check_fits_device(t, p, atoms.size());
  check_fits_host(t, p, true);
  const std::filesystem::path path = output_path(options.output, options.params_path, "-sweep");
  io::ResultFile out(path, options.force, options.compression);
  write_parameters(out, t);
  write_provenance(out, "coulomb", Backend::gpu, options.command_line);

  const double evaluations = points(p) * static_cast<double>(atoms.size());
  const double rsqrt = coulomb::measure_rsqrt_throughput();
  std::cout << "coulomb sweep: " << extent(p) << " lattice, " << atoms.size() << " atoms on "
            << current_device().name << "; rsqrtf " << 1e-9 * rsqrt << " G/s, "
            << s.repeats << " timed runs each\n";
  const std::vector<double> gold = coulomb::solve_gold(p, atoms);
  const std::vector<double> scale = coulomb::magnitude_scale(p, atoms);

  ResultsTable table({{"variant", "variant", 14},
                      {"block", "block", 9},
                      {"coarsening", "coarse", 6},
                      {"median_s", "median ms", 12, 3, 'f', 1e3},
                      {"gatom_evals_per_s", "G atom-evals/s", 18, 2},
                      {"percent_of_rsqrt", "% rsqrt", 9, 1},
                      {"max_relative_to_scale", "max rel err", 11, 2, 'g'}});
  for (Variant v : coulomb::kVariants) {
    if (v == Variant::scatter && evaluations > kScatterSweepLimit) {
      std::cout << "  scatter skipped: " << evaluations << " atom evaluations (over "
                << kScatterSweepLimit << ") would take too long with atomics\n";
      continue;
    }
    const bool coarsens = coulomb::coarsens(v);
    for (const Shape& block : coulomb::compiled_shapes())
      for (int c : coulomb::kCoarsenings) {
        if (!coarsens && c != 1) continue;
        Params q = p;
        q.variant = v;
        q.block = block;
        q.coarsening = c;
        const coulomb::Result first = coulomb::solve_gpu(q, atoms);  // warm-up, and the check
        const double relative = max_relative_to_scale(first.potential, gold, scale);
        std::vector<double> seconds;
        for (std::int64_t r = 0; r < s.repeats; ++r)
          seconds.push_back(coulomb::solve_gpu(q, atoms).timings.compute);
        const double m = median(seconds);
        table.add({std::string(name(v)), to_string(block), std::int64_t{c}, m,
                   1e-9 * evaluations / m, 100 * evaluations / m / rsqrt, relative},
                  m, relative <= kCheckTolerance);
      }
  }
  table.print(std::cout);
  table.write(out, "/sweep");
  out.set_attribute("/sweep", "rsqrt_per_s", rsqrt);
  out.set_attribute("/sweep", "points", static_cast<std::int64_t>(p.lattice.points()));
  out.set_attribute("/sweep", "atoms", static_cast<std::int64_t>(atoms.size()));
  out.set_attribute("/sweep", "check_tolerance", kCheckTolerance);
  out.commit();
  std::cout << "  wrote " << path.string() << "\n";
  return table.all_passed() ? 0 : 1;
}

}  // namespace

SolverApp coulomb_app() {
  return {"coulomb", "electrostatic potential of point charges on a lattice by direct summation",
          run, sweep};
}

}  // namespace parasol::app
