// laplace3d in the front end: parameter file -> Params, run or sweep, result -> HDF5.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <optional>
#include <tuple>

#include "apps/check.hpp"
#include "apps/io/autotune.hpp"
#include "apps/io/xdmf.hpp"
#include "apps/progress.hpp"
#include "apps/provenance.hpp"
#include "apps/solvers.hpp"
#include "apps/results_table.hpp"
#include "apps/timed_runs.hpp"
#include "kernels/device.hpp"
#include "kernels/error.hpp"
#include "kernels/validate.hpp"
#include "kernels/stream.hpp"
#include "parasol/version.hpp"
#include "solvers/laplace3d/laplace3d.hpp"

namespace parasol::app {
namespace {

using laplace3d::Params;
using laplace3d::Variant;

// Settings of `parasol sweep`, from the file's [sweep] table.
struct SweepParams {
  std::vector<Variant> variants;   // default: every variant
  std::vector<Shape> blocks;       // default: every shape compiled for each variant
  std::int64_t iterations = 20;    // sweeps per timed repeat
  std::int64_t repeats = 7;        // timed repeats; the median is reported
  std::int64_t check_iterations = 4;
};

// What method.variant says for "the choice `parasol sweep --autotune` stored": not a kernel, so
// not a Variant; the sweep's list of variants (kVariants) never holds it.
constexpr std::string_view kAutoVariant = "auto";

// What the file says. With method.variant = "auto" the variant and block are chosen at run time
// for the device that runs them (choose_automatic); until then `params` holds the defaults.
struct Input {
  Params params;
  SweepParams sweep;
  bool automatic = false;
};

// Where the variant and block that ran came from, for the summary line and /method.
struct MethodSource {
  std::string chosen_by = "parameters";  // or "autotune", or "default": "auto" found no choice
  std::filesystem::path autotune_file;   // where "auto" looked
};

// method.variant and method.block; true for "auto". The autotune choice brings its own block, so
// with "auto" the file's block is read but not used (nor checked against a variant): then
// `parasol run FILE method.variant=auto` works on a file written for one variant. The summary
// line and /method say which block ran. Without method.block a variant runs its default block.
bool read_method(io::ParamTable& t, Params& p) {
  const Params d;
  const std::string variant = t.get_string("method.variant", std::string(name(d.variant)));
  const Shape block = t.get_shape("method.block", d.block);
  if (variant == kAutoVariant) return true;
  try {
    p.variant = laplace3d::parse_variant(variant);
  } catch (const InputError& e) {
    throw InputError(t.source_of("method.variant"), "method.variant",
                     e.expected() + ", or \"auto\"");
  }
  p.block = t.has("method.block") ? block : laplace3d::default_block(p.variant);
  return false;
}

// Every key laplace3d accepts is read here, so anything else in the file is unknown.
Params read_params(io::ParamTable& t, bool& automatic) {
  const Params d;
  Params p;
  p.grid.nx = t.get_int("grid.nx");
  p.grid.ny = t.get_int("grid.ny");
  p.grid.nz = t.get_int("grid.nz");
  p.spacing = t.get_double("grid.spacing", d.spacing);
  p.boundary.x_min = t.get_double("boundary.x_min", d.boundary.x_min);
  p.boundary.x_max = t.get_double("boundary.x_max", d.boundary.x_max);
  p.boundary.y_min = t.get_double("boundary.y_min", d.boundary.y_min);
  p.boundary.y_max = t.get_double("boundary.y_max", d.boundary.y_max);
  p.boundary.z_min = t.get_double("boundary.z_min", d.boundary.z_min);
  p.boundary.z_max = t.get_double("boundary.z_max", d.boundary.z_max);
  p.interior = io::get_choice(t, "initial.interior", std::string(name(d.interior)),
                              laplace3d::parse_interior);
  p.interior_value = t.get_double("initial.value", d.interior_value);
  const std::int64_t seed = t.get_int("initial.seed", static_cast<std::int64_t>(d.seed));
  p.max_iterations = t.get_int("iteration.max_iterations");
  p.tolerance = t.get_double("iteration.tolerance", d.tolerance);
  p.check_every = t.get_int("iteration.check_every", d.check_every);
  automatic = read_method(t, p);
  p.precision = io::get_choice(t, "method.precision", std::string(name(d.precision)),
                               laplace3d::parse_precision);

  if (seed < 0) throw InputError(t.source_of("initial.seed"), "initial.seed", "expected an integer >= 0");
  p.seed = static_cast<std::uint64_t>(seed);
  return p;
}

SweepParams read_sweep_params(io::ParamTable& t) {
  SweepParams s;
  s.variants = io::get_choices(t, "sweep.variants", io::names_of(laplace3d::kVariants),
                               laplace3d::parse_variant);
  s.blocks = t.get_shapes("sweep.blocks", std::vector<Shape>{});
  s.iterations = io::get_positive_int(t, "sweep.iterations", s.iterations);
  s.repeats = io::get_positive_int(t, "sweep.repeats", s.repeats);
  s.check_iterations = io::get_positive_int(t, "sweep.check_iterations", s.check_iterations);
  return s;
}

// Reads and checks everything the file says; names the file (or the command line) and the key.
Input read_all(io::ParamTable& t) {
  Input in;
  std::tie(in.params, in.sweep) = io::read_checked(
      t, [&] { return read_params(t, in.automatic); }, [&] { return read_sweep_params(t); });
  return in;
}

io::AutotuneKey autotune_key(const Params& p, const DeviceInfo& device) {
  return {device.name, device.compute_capability(), "laplace3d", {p.grid.nx, p.grid.ny, p.grid.nz},
          std::string(name(p.precision))};
}

// method.variant = "auto": the choice `parasol sweep --autotune` stored for this device, grid and
// precision. Without one, Params' defaults (zreg and its default block) and a note on stderr:
// a run need not wait for a sweep, and the note says how to make one.
MethodSource choose_automatic(Params& p, const std::filesystem::path& given) {
  MethodSource source{"autotune", io::autotune_path(given)};
  const io::AutotuneFile file = io::AutotuneFile::load(source.autotune_file);
  const io::AutotuneKey key = autotune_key(p, current_device());
  const std::optional<io::AutotuneChoice> choice = file.find(key);
  if (!choice) {
    const Params d;
    p.variant = d.variant;
    p.block = d.block;
    source.chosen_by = "default";
    std::cerr << "parasol: method.variant = \"auto\": no choice for " << io::describe(key) << " in "
              << source.autotune_file.string() << "; running " << name(p.variant) << " "
              << to_string(p.block) << " (`parasol sweep --autotune` on this grid stores one)\n";
    return source;
  }
  try {
    p.variant = laplace3d::parse_variant(choice->variant);
    p.block = choice->block;
    p.validate();
  } catch (const InputError& e) {
    // Written by a build with other variants or shapes compiled in.
    throw InputError(source.autotune_file.string() + ":" + std::to_string(choice->line),
                     e.key().empty() ? "choice.variant" : "choice.block",
                     e.expected() + " in this build; run `parasol sweep --autotune` again");
  }
  return source;
}

void write_method(io::ResultFile& out, const Params& p, const MethodSource& source) {
  out.set_attribute("/method", "variant", std::string(name(p.variant)));
  out.set_attribute("/method", "block", std::vector<std::int64_t>{p.block.x, p.block.y, p.block.z});
  out.set_attribute("/method", "chosen_by", source.chosen_by);
  if (!source.autotune_file.empty())
    out.set_attribute("/method", "autotune_file", source.autotune_file.string());
}

// What only the device can tell: block limits and free memory.
void check_fits_device(const io::ParamTable& t, const Params& p) {
  const DeviceInfo device = current_device();
  try {
    check_block_limits(p.block, device, "method.block");
  } catch (const InputError& e) {
    throw InputError(t.source_of("method.block"), "method.block", e.expected());
  }
  const double need = static_cast<double>(laplace3d::device_bytes(p));
  if (need > static_cast<double>(device.free_memory))
    throw InputError(t.source(), "grid",
                     "a " + std::to_string(p.grid.nx) + "x" + std::to_string(p.grid.ny) + "x" +
                         std::to_string(p.grid.nz) + " grid in " + std::string(name(p.precision)) +
                         " needs " + gib(need) + " on the device; " + device.name + " has " +
                         gib(static_cast<double>(device.free_memory)) + " free");
}

void check_fits_host(const io::ParamTable& t, const Params& p, int copies) {
  const double host = host_memory_bytes();
  const double element = p.precision == laplace3d::Precision::single ? 4 : 8;
  const double need = copies * element * static_cast<double>(p.grid.points());
  if (need > host)
    throw InputError(t.source(), "grid",
                     "the grid needs about " + gib(need) + " of host memory; this machine has " +
                         gib(host));
}

template <class T>
int run_typed(io::ParamTable& t, const Params& p, const RunOptions& options, Backend backend,
              const std::filesystem::path& path, const MethodSource& source) {
  io::ResultFile out(path, options.force, options.compression);
  write_parameters(out, t);
  write_provenance(out, "laplace3d", backend, options.command_line);

  const bool gpu = backend == Backend::gpu;
  if (gpu) write_method(out, p, source);
  std::string chosen;
  if (source.chosen_by == "autotune") chosen = " (auto, from " + source.autotune_file.string() + ")";
  if (source.chosen_by == "default") chosen = " (auto: no choice stored)";
  std::cout << "laplace3d: " << p.grid.nx << "x" << p.grid.ny << "x" << p.grid.nz << " "
            << name(p.precision) << ", "
            << (gpu ? std::string(name(p.variant)) + " " + to_string(p.block) + chosen + " on " +
                          current_device().name
                    : std::string("CPU gold solver"))
            << ", up to " << p.max_iterations << " iterations\n";
  laplace3d::Result<T> result;
  {
    ProgressLine line(p.grid.points());
    const laplace3d::ProgressCallback report = [&](const laplace3d::Progress& pr) {
      line.update(pr.iterations, pr.max_iterations, pr.last_change, pr.seconds);
    };
    result = gpu ? laplace3d::solve_gpu<T>(p, report) : laplace3d::solve_gold<T>(p, report);
  }

  const double rate = 1e-9 * static_cast<double>(p.grid.points()) *
                      static_cast<double>(result.iterations) / result.timings.compute;
  out.set_attribute("/timings", "host_to_device_s", result.timings.host_to_device);
  out.set_attribute("/timings", "compute_s", result.timings.compute);
  out.set_attribute("/timings", "device_to_host_s", result.timings.device_to_host);
  out.set_attribute("/timings", "gpoints_per_s", rate);
  out.set_attribute("/diagnostics", "iterations", result.iterations);
  out.set_attribute("/diagnostics", "last_change", result.last_change);
  out.set_attribute("/diagnostics", "converged", result.converged);

  std::cout << "  " << result.iterations << " iterations"
            << (result.converged ? " (converged)" : "") << ", last max|du| " << result.last_change
            << ", " << result.timings.compute << " s, " << rate << " Gpoints/s\n";

  if (options.check) {
    // The gold in double, for exactly as many iterations as the run made.
    Params gold_params = p;
    gold_params.max_iterations = result.iterations;
    gold_params.tolerance = 0;
    const laplace3d::Result<double> gold = laplace3d::solve_gold<double>(gold_params);
    const FieldDifference diff = compare(result.u, gold.u);
    write_check(out, diff, "double");
    std::cout << "  check against the double-precision CPU gold: max abs diff " << diff.max_abs
              << ", rms diff " << diff.rms << "\n";
  }

  const auto& n = p.grid;
  out.write_field("/fields/u", result.u.data(),
                  {std::uint64_t(n.nz), std::uint64_t(n.ny), std::uint64_t(n.nx)});
  out.set_attribute("/fields/u", "spacing", p.spacing);
  out.set_attribute("/fields/u", "layout", std::string("[nz][ny][nx], x fastest"));
  io::UniformGrid3 grid;
  grid.points = {std::uint64_t(n.nx), std::uint64_t(n.ny), std::uint64_t(n.nz)};
  grid.spacing = {p.spacing, p.spacing, p.spacing};
  out.commit();
  const std::filesystem::path xmf = io::xdmf_path_for(path);
  io::write_file_atomically(
      xmf, io::xdmf_text(path.filename().string(), grid, {"/fields/u", "u", int(sizeof(T))}));
  std::cout << "  wrote " << path.string() << " (and " << xmf.string() << ")\n";
  return 0;
}

int run(io::ParamTable& t, const RunOptions& options) {
  Input in = read_all(t);
  Params& p = in.params;
  const Backend backend = resolve_backend(options.backend);
  // The CPU gold solver has no variants, so "auto" is looked up only for a GPU run.
  MethodSource source;
  if (backend == Backend::gpu && in.automatic) source = choose_automatic(p, options.autotune_file);
  if (backend == Backend::gpu) check_fits_device(t, p);
  // The host holds the initial field and the result, and the gold two fields of its own.
  check_fits_host(t, p, backend == Backend::gpu ? 2 : 3);
  const std::filesystem::path path = output_path(options.output, options.params_path, "");
  return p.precision == laplace3d::Precision::single
             ? run_typed<float>(t, p, options, backend, path, source)
             : run_typed<double>(t, p, options, backend, path, source);
}

template <class T>
int sweep_typed(io::ParamTable& t, const Params& p, const SweepParams& s, const SweepOptions& options,
                const std::filesystem::path& path, const std::filesystem::path& autotune_file) {
  io::ResultFile out(path, options.force, options.compression);
  write_parameters(out, t);
  write_provenance(out, "laplace3d", Backend::gpu, options.command_line);

  const int element = static_cast<int>(sizeof(T));
  const double sweep_bytes = laplace3d::bytes_per_sweep(p.grid, element);
  // The copy moves as many bytes as one sweep, so cache effects are alike for both.
  const double copy = measure_copy_bandwidth(static_cast<std::size_t>(sweep_bytes / 2));
  const DeviceInfo device = current_device();
  std::cout << "laplace3d sweep: " << p.grid.nx << "x" << p.grid.ny << "x" << p.grid.nz << " "
            << name(p.precision) << " on " << device.name << "; device-to-device copy "
            << copy * 1e-9 << " GB/s\n";

  const std::vector<T> initial = laplace3d::initial_field<T>(p);
  std::vector<T> gold = initial, scratch = initial;
  for (std::int64_t it = 0; it < s.check_iterations; ++it) {
    laplace3d::gold_sweep(p.grid, gold.data(), scratch.data());
    gold.swap(scratch);
  }
  // The kernels add in the gold's order, so the float gold should agree exactly; this bound
  // allows a few ulps a sweep in case a compiler reorders, and no more.
  const double tolerance = 8.0 * static_cast<double>(s.check_iterations) *
                           std::numeric_limits<T>::epsilon() * max_magnitude(initial);

  ResultsTable table({{"variant", "variant", 10},
                      {"block", "block", 10},
                      {"median_s", "median ms", 12, 4, 'f', 1e3},
                      {"gpoints_per_s", "Gpoints/s", 10, 1},
                      {"gb_per_s", "GB/s", 9, 1},
                      {"percent_of_copy", "% copy", 7, 1},
                      {"max_abs_diff", "max|diff|", 11, 3, 'g'}});
  // The fastest configuration that agreed with the gold, for --autotune.
  std::optional<io::AutotuneChoice> fastest;
  double fastest_seconds = 0;
  std::int64_t timed = 0;
  Stream stream;
  for (Variant v : s.variants) {
    std::vector<Shape> shapes = laplace3d::compiled_shapes(v);
    if (!s.blocks.empty()) {
      std::vector<Shape> chosen;
      for (const Shape& b : s.blocks)
        if (std::find(shapes.begin(), shapes.end(), b) != shapes.end()) chosen.push_back(b);
      shapes = chosen;
    }
    for (const Shape& block : shapes) {
      laplace3d::DeviceGrid<T> field(p.grid, initial, stream);
      field.sweep(v, block, s.check_iterations);
      const double diff = laplace3d::max_abs_difference(field.download(), gold);
      field.sweep(v, block, 2);  // warm-up
      const double per_sweep =
          median_run_seconds(stream, s.repeats, [&] { field.sweep(v, block, s.iterations); }) /
          static_cast<double>(s.iterations);
      const double gpoints = 1e-9 * static_cast<double>(p.grid.points()) / per_sweep;
      const double gb = 1e-9 * sweep_bytes / per_sweep;
      const double percent = 100.0 * sweep_bytes / per_sweep / copy;
      const bool passed = diff <= tolerance;
      table.add({std::string(name(v)), to_string(block), per_sweep, gpoints, gb, percent, diff},
                per_sweep, passed);
      ++timed;
      if (passed && (!fastest || per_sweep < fastest_seconds)) {
        fastest_seconds = per_sweep;
        fastest = io::AutotuneChoice{};
        fastest->variant = name(v);
        fastest->block = block;
        fastest->gpoints_per_s = gpoints;
        fastest->gb_per_s = gb;
        fastest->percent_of_copy = percent;
      }
    }
  }
  if (table.empty())
    throw InputError(t.source_of("sweep.blocks"), "sweep.blocks",
                     "no listed block is compiled for the listed variants");
  table.print(std::cout);
  table.write(out, "/sweep");
  out.set_attribute("/sweep", "copy_bandwidth_gb_per_s", copy * 1e-9);
  out.set_attribute("/sweep", "bytes_per_point", static_cast<double>(2 * element));
  out.set_attribute("/sweep", "check_tolerance", tolerance);
  out.commit();
  std::cout << "  wrote " << path.string() << "\n";

  if (!autotune_file.empty()) {
    if (!fastest) {
      std::cerr << "parasol: --autotune: no configuration agreed with the gold; nothing stored in "
                << autotune_file.string() << "\n";
      return 1;
    }
    fastest->key = autotune_key(p, device);
    fastest->timed = timed;
    fastest->date = utc_now();
    fastest->sweep_file = std::filesystem::absolute(path).string();
    fastest->parasol_version = std::string(kVersion) + " (" + kGitDescribe + ")";
    // Read again rather than reuse the copy read at the start: another sweep may have stored a
    // choice for another grid meanwhile.
    io::AutotuneFile file = io::AutotuneFile::load(autotune_file);
    file.put(*fastest);
    file.save();
    std::cout << "  autotune: " << fastest->variant << " " << to_string(fastest->block)
              << " stored for " << io::describe(fastest->key) << " in " << autotune_file.string()
              << "\n";
  }
  return table.all_passed() ? 0 : 1;
}

int sweep(io::ParamTable& t, const SweepOptions& options) {
  const Input in = read_all(t);
  const Params& p = in.params;
  const SweepParams& s = in.sweep;
  for (const Shape& b : s.blocks) {
    bool compiled = false;
    for (Variant v : s.variants) {
      const auto shapes = laplace3d::compiled_shapes(v);
      compiled = compiled || std::find(shapes.begin(), shapes.end(), b) != shapes.end();
    }
    if (!compiled)
      throw InputError(t.source_of("sweep.blocks"), "sweep.blocks",
                       "block " + to_string(b) + " is not compiled in for any listed variant");
  }
  // The autotune file is read now, so one that cannot be used fails before any timing.
  std::filesystem::path autotune_file;
  if (options.autotune) {
    autotune_file = io::autotune_path(options.autotune_file);
    (void)io::AutotuneFile::load(autotune_file);
  }
  std::string reason;
  if (!gpu_available(&reason)) throw Error("parasol sweep times GPU kernels and needs a device: " + reason);
  check_fits_device(t, p);
  const std::filesystem::path path = output_path(options.output, options.params_path, "-sweep");
  return p.precision == laplace3d::Precision::single
             ? sweep_typed<float>(t, p, s, options, path, autotune_file)
             : sweep_typed<double>(t, p, s, options, path, autotune_file);
}

}  // namespace

SolverApp laplace3d_app() {
  return {"laplace3d", "3D Laplace equation by Jacobi iteration (7-point stencil)", run, sweep};
}

}  // namespace parasol::app
