// tridiag in the front end: parameter file -> Params, the heat equation marched in time or one
// batch of systems read from HDF5, solution -> HDF5; the sweep times every variant x threads x
// chunk on one batch against the device's copy bandwidth.
#include <algorithm>
#include <chrono>
#include <climits>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <limits>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "apps/check.hpp"
#include "apps/io/input_file.hpp"
#include "apps/provenance.hpp"
#include "apps/results_table.hpp"
#include "apps/solvers.hpp"
#include "kernels/timed_runs.hpp"
#include "kernels/buffer.hpp"
#include "kernels/device.hpp"
#include "kernels/error.hpp"
#include "kernels/stream.hpp"
#include "kernels/validate.hpp"
#include "solvers/tridiag/heat.hpp"
#include "solvers/tridiag/tridiag.hpp"

namespace parasol::app {
namespace {

using tridiag::Batch;
using tridiag::Dims;
using tridiag::Launch;
using tridiag::Layout;
using tridiag::Params;
using tridiag::Problem;
using tridiag::Variant;

// A backward-stable solve of a strictly diagonally dominant system is off from the exact answer
// by at most about cond(A) x (a few ulps) relative to max|x|. This many ulps per solve leaves
// room for PCR's log2(n) levels of rounding while any wrong index, lost row or stale value
// (errors of order max|x|) stays far outside.
constexpr double kUlpsPerSolve = 64;

// Settings of `parasol sweep`, from the file's [sweep] table.
struct SweepParams {
  std::vector<Variant> variants;              // default: every variant
  std::vector<int> threads{64, 128, 256, 512, 1024};
  std::vector<int> chunks;                    // default: every chunk compiled for each variant
  std::int64_t repeats = 7;                   // timed solves per row, after a warm-up; the median
};

// The keys only one problem reads: given with the other problem they are an error, not ignored.
const char* const kHeatKeys[] = {"heat.points", "heat.grids", "heat.steps", "heat.lambda",
                                 "heat.initial", "heat.mode",  "heat.left",  "heat.right",
                                 "heat.seed"};
const char* const kFileKeys[] = {"input.file", "input.a", "input.b", "input.c", "input.d"};

template <std::size_t N>
void reject_other_problem(const io::ParamTable& t, const char* const (&keys)[N], Problem p) {
  for (const char* key : keys)
    if (t.has(key))
      throw InputError(t.source_of(key), key,
                       "not read when problem.kind = \"" + std::string(name(p)) + "\"");
}

// A 32-bit integer key; validate() judges its range.
int get_int32(io::ParamTable& t, const std::string& key, int fallback) {
  const std::int64_t value = t.get_int(key, fallback);
  if (value < INT_MIN || value > INT_MAX)
    throw InputError(t.source_of(key), key, "expected a 32-bit integer, got " + std::to_string(value));
  return static_cast<int>(value);
}


// Every key tridiag accepts is read here, so anything else in the file is unknown. A relative
// input.file is resolved against the parameter file's folder (one given on the command line,
// against the current folder).
Params read_params(io::ParamTable& t, const std::filesystem::path& params_path) {
  const Params d;
  Params p;
  p.problem = io::get_choice(t, "problem.kind", std::string(name(d.problem)), tridiag::parse_problem);
  p.precision = io::get_choice(t, "problem.precision", std::string(name(d.precision)),
                               tridiag::parse_precision);
  if (p.problem == Problem::heat) {
    reject_other_problem(t, kFileKeys, p.problem);
    p.heat.points = t.get_int("heat.points");
    p.heat.grids = t.get_int("heat.grids");
    p.heat.steps = t.get_int("heat.steps");
    p.heat.lambda = t.get_double("heat.lambda", d.heat.lambda);
    p.heat.initial = io::get_choice(t, "heat.initial", std::string(name(d.heat.initial)),
                                    tridiag::parse_initial);
    p.heat.mode = get_int32(t, "heat.mode", d.heat.mode);
    p.heat.left = t.get_double("heat.left", d.heat.left);
    p.heat.right = t.get_double("heat.right", d.heat.right);
    p.heat.seed = static_cast<std::uint64_t>(get_seed(t, "heat.seed", d.heat.seed));
  } else {
    reject_other_problem(t, kHeatKeys, p.problem);
    p.input.file = io::get_file(t, "input.file", params_path);
    p.input.a = t.get_string("input.a", d.input.a);
    p.input.b = t.get_string("input.b", d.input.b);
    p.input.c = t.get_string("input.c", d.input.c);
    p.input.d = t.get_string("input.d", d.input.d);
  }
  p.variant = io::get_choice(t, "method.variant", std::string(name(d.variant)),
                             tridiag::parse_variant);
  p.threads = get_int32(t, "method.threads", d.threads);
  p.chunk = get_int32(t, "method.chunk", d.chunk);
  return p;
}

// A list of integers from a TOML array (read as numbers, so 256.5 is caught here).
std::vector<int> get_ints(io::ParamTable& t, const std::string& key, const std::vector<int>& fallback) {
  const std::vector<double> values =
      t.get_doubles(key, std::vector<double>(fallback.begin(), fallback.end()));
  std::vector<int> out;
  for (double v : values) {
    if (!(v == std::floor(v) && v >= INT_MIN && v <= INT_MAX))
      throw InputError(t.source_of(key), key, "expected a list of integers, got " + shown(v));
    out.push_back(static_cast<int>(v));
  }
  if (out.empty()) throw InputError(t.source_of(key), key, "expected at least one value");
  return out;
}

bool compiled_chunk(int chunk) {
  if (chunk == 0) return true;
  for (Variant v : tridiag::kVariants) {
    const std::vector<int> chunks = tridiag::compiled_chunks(v);
    if (std::find(chunks.begin(), chunks.end(), chunk) != chunks.end()) return true;
  }
  return false;
}

SweepParams read_sweep_params(io::ParamTable& t) {
  SweepParams s;
  s.variants = io::get_choices(t, "sweep.variants", io::names_of(tridiag::kVariants),
                               tridiag::parse_variant);
  s.threads = get_ints(t, "sweep.threads", s.threads);
  for (int threads : s.threads)
    if (threads < 32 || threads > 1024 || threads % 32 != 0)
      throw InputError(t.source_of("sweep.threads"), "sweep.threads",
                       "expected multiples of 32 from 32 to 1024, got " + std::to_string(threads));
  if (t.has("sweep.chunks")) {
    s.chunks = get_ints(t, "sweep.chunks", {});
    for (int chunk : s.chunks)
      if (!compiled_chunk(chunk))
        throw InputError(t.source_of("sweep.chunks"), "sweep.chunks",
                         "chunk " + std::to_string(chunk) +
                             " is compiled for no variant; expected 0 (picked from n), 1, 2, 4, 8 or 16");
  }
  s.repeats = io::get_positive_int(t, "sweep.repeats", s.repeats);
  return s;
}

// Reads and checks everything the file says; names the file (or the command line) and the key.
std::pair<Params, SweepParams> read_all(io::ParamTable& t,
                                        const std::filesystem::path& params_path) {
  return io::read_checked(
      t, [&] { return read_params(t, params_path); }, [&] { return read_sweep_params(t); });
}

// ---------------------------------------------------------------------------------------------
// Layouts and the systems solved.

Launch launch_of(const Params& p) { return {p.variant, p.threads, p.chunk}; }

// The launch the kernels will run for these dims in T (the chunk picked when 0), or the
// InputError saying why the method cannot solve them, given the parameter's source.
template <class T>
Launch resolved_launch(const io::ParamTable& t, const Launch& launch, const Dims& dims) {
  Launch resolved;
  io::with_sources(t, [&] {
    resolved = tridiag::resolve_launch(launch, dims, static_cast<int>(sizeof(T)));
  });
  return resolved;
}

std::string method_of(const Launch& l) {
  std::string text = std::string(name(l.variant)) + ", " + std::to_string(l.threads) + " threads";
  if (l.chunk != 0) text += ", chunk " + std::to_string(l.chunk);
  return text;
}

// The same values in another layout.
template <class T>
std::vector<T> relayout(const std::vector<T>& v, const Dims& from, Layout to) {
  if (from.layout == to) return v;
  const Dims target{from.n, from.systems, to};
  std::vector<T> out(v.size());
  for (std::int64_t m = 0; m < from.systems; ++m)
    for (std::int64_t i = 0; i < from.n; ++i)
      out[static_cast<std::size_t>(target.index(m, i))] = v[static_cast<std::size_t>(from.index(m, i))];
  return out;
}

template <class T>
Batch<T> relayout(const Batch<T>& batch, Layout to) {
  Batch<T> out{{batch.dims.n, batch.dims.systems, to},
               relayout(batch.a, batch.dims, to),
               relayout(batch.b, batch.dims, to),
               relayout(batch.c, batch.dims, to),
               relayout(batch.d, batch.dims, to)};
  return out;
}

template <class T>
std::vector<T> rounded(const std::vector<double>& v) {
  std::vector<T> out(v.size());
  std::transform(v.begin(), v.end(), out.begin(), [](double x) { return static_cast<T>(x); });
  return out;
}

// The four datasets [systems][n] of the file, as the contiguous layout. A missing file or
// dataset, or shapes that disagree, are input errors naming the file and dataset.
template <class T>
Batch<T> read_batch(const tridiag::FileInput& input) {
  const std::string& file = input.file;
  const std::unique_ptr<io::ResultReader> h5 = io::open_input_file(file, "input.file");
  const std::pair<const std::string&, const char*> datasets[] = {
      {input.a, "input.a"}, {input.b, "input.b"}, {input.c, "input.c"}, {input.d, "input.d"}};
  using io::shape_text;
  std::vector<std::uint64_t> shape;
  for (const auto& [dataset, key] : datasets) {
    if (!h5->exists(dataset))
      throw InputError(file, key, "no dataset \"" + dataset + "\" in the file");
    const std::vector<std::uint64_t> dims = h5->dims(dataset);
    if (dims.size() != 2 || dims[0] == 0 || dims[1] == 0)
      throw InputError(file, key,
                       "dataset \"" + dataset + "\" is " + shape_text(dims) +
                           "; expected [systems][n], both at least 1");
    if (shape.empty()) shape = dims;
    if (dims != shape)
      throw InputError(file, key,
                       "dataset \"" + dataset + "\" is " + shape_text(dims) + " but \"" +
                           input.a + "\" is " + shape_text(shape) +
                           "; a, b, c and d must have the same shape [systems][n]");
  }
  const auto read = [&](const std::string& dataset) {
    if constexpr (std::is_same_v<T, float>) return h5->read_floats(dataset);
    else return h5->read_doubles(dataset);
  };
  Batch<T> batch;
  batch.dims = {static_cast<std::int64_t>(shape[1]), static_cast<std::int64_t>(shape[0]),
                Layout::contiguous};
  batch.a = read(input.a);
  batch.b = read(input.b);
  batch.c = read(input.c);
  batch.d = read(input.d);
  return batch;
}

// One backward-Euler step of the heat problem: the step matrix and the right-hand side built
// from the starting temperatures, contiguous.
template <class T>
Batch<T> heat_step(const tridiag::Heat& heat) {
  Batch<T> batch = tridiag::heat_matrix<T>(heat, Layout::contiguous);
  const std::vector<T> u = tridiag::heat_initial<T>(heat);
  batch.d.resize(u.size());
  for (std::size_t k = 0; k < u.size(); ++k) {
    const auto row = static_cast<std::int64_t>(k) % heat.points;
    double value = heat.lambda * static_cast<double>(u[k]);
    if (row == 0) value += heat.left;
    if (row == heat.points - 1) value += heat.right;
    batch.d[k] = static_cast<T>(value);
  }
  return batch;
}

// max(|a| + |b| + |c|) / min(|b| - |a| - |c|) over the rows: for a strictly diagonally dominant
// matrix a bound on its condition number (infinity norm; Varah's bound on |A^-1|). Infinity when
// some row is not dominant: then no error bound is known.
template <class T>
double condition_bound(const Batch<T>& batch) {
  const Dims& dims = batch.dims;
  double norm = 0, margin = std::numeric_limits<double>::infinity();
  for (std::int64_t m = 0; m < dims.systems; ++m)
    for (std::int64_t i = 0; i < dims.n; ++i) {
      const auto k = static_cast<std::size_t>(dims.index(m, i));
      const double a = i > 0 ? std::abs(static_cast<double>(batch.a[k])) : 0;
      const double c = i < dims.n - 1 ? std::abs(static_cast<double>(batch.c[k])) : 0;
      const double b = std::abs(static_cast<double>(batch.b[k]));
      norm = std::max(norm, a + b + c);
      margin = std::min(margin, b - a - c);
    }
  return margin > 0 ? norm / margin : std::numeric_limits<double>::infinity();
}

// The largest difference from the gold allowed after `solves` solves, relative to max|x|: the
// step operator of the heat march is a contraction, so the errors of its solves at most add.
template <class T>
double tolerance(double condition, std::int64_t solves) {
  return kUlpsPerSolve * std::numeric_limits<T>::epsilon() * condition *
         static_cast<double>(std::max<std::int64_t>(solves, 1));
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

std::string extent(const Dims& dims) {
  return std::to_string(dims.systems) + " systems of " + std::to_string(dims.n) + " rows";
}

// Device memory for a, b, c, d and x (the solver's own workspace is small beside them).
void check_fits_device(const io::ParamTable& t, const Dims& dims, int element, const char* key) {
  const DeviceInfo device = current_device();
  const double need = 5.0 * element * static_cast<double>(dims.size());
  if (need > static_cast<double>(device.free_memory))
    throw InputError(t.source_of(key), key,
                     extent(dims) + " need " + gib(need) + " on the device; " + device.name +
                         " has " + gib(static_cast<double>(device.free_memory)) + " free");
}

// `copies` arrays of T besides, with the gold, about seven arrays of doubles.
void check_fits_host(const io::ParamTable& t, const Dims& dims, int element, bool gold,
                     const char* key) {
  const double host = host_memory_bytes();
  const double need = (6.0 * element + (gold ? 7.0 * 8 : 0.0)) * static_cast<double>(dims.size());
  if (need > host)
    throw InputError(t.source_of(key), key,
                     extent(dims) + " need about " + gib(need) + " of host memory; this machine has " +
                         gib(host));
}

void write_method(io::ResultFile& out, const Launch& l, bool gpu) {
  if (!gpu) return;
  out.set_attribute("/method", "variant", std::string(name(l.variant)));
  out.set_attribute("/method", "threads", std::int64_t{l.threads});
  out.set_attribute("/method", "chunk", std::int64_t{l.chunk});
  out.set_attribute("/method", "layout", std::string(name(tridiag::required_layout(l.variant))));
}

void write_timings(io::ResultFile& out, const tridiag::Timings& timings, double solve_seconds,
                   double unknowns) {
  out.set_attribute("/timings", "host_to_device_s", timings.host_to_device);
  out.set_attribute("/timings", "compute_s", timings.compute);
  out.set_attribute("/timings", "solve_s", solve_seconds);
  out.set_attribute("/timings", "device_to_host_s", timings.device_to_host);
  out.set_attribute("/timings", "unknowns_per_s", solve_seconds > 0 ? unknowns / solve_seconds : 0.0);
}

// Prints and stores the difference from the gold, relative to max|gold|, judged by `limit`.
template <class T>
void report_check(io::ResultFile& out, const std::vector<T>& result, const std::vector<double>& gold,
                  double limit) {
  const FieldDifference diff = compare(result, gold);
  const double scale = max_magnitude(gold);
  const double relative = scale > 0 ? diff.max_abs / scale : diff.max_abs;
  write_check(out, diff, "double");
  out.set_attribute("/check", "max_relative_difference", relative);
  out.set_attribute("/check", "tolerance", limit);
  std::string verdict;
  if (std::isinf(limit))
    verdict = " (not diagonally dominant: no bound to judge by)";
  else if (!(relative <= limit))
    verdict = " (above " + shown(limit) + ": suspect the solver)";
  char line[256];
  std::snprintf(line, sizeof line,
                "  check against the double-precision CPU gold: max abs diff %.3g, rms diff %.3g, "
                "max relative to max|x| %.3g%s\n",
                diff.max_abs, diff.rms, relative, verdict.c_str());
  std::cout << line;
}

// ---------------------------------------------------------------------------------------------
// run

// The sine mode's amplitude in each grid, by projection on the mode: the discrete sines are
// orthogonal, so this is exact for a field that is the mode alone.
template <class T>
std::vector<double> sine_amplitudes(const std::vector<T>& u, const tridiag::Heat& heat) {
  constexpr double kPi = 3.14159265358979323846;
  const std::int64_t n = heat.points;
  std::vector<double> s(static_cast<std::size_t>(n));
  double norm = 0;
  for (std::int64_t j = 0; j < n; ++j) {
    s[static_cast<std::size_t>(j)] =
        std::sin(kPi * heat.mode * static_cast<double>(j + 1) / static_cast<double>(n + 1));
    norm += s[static_cast<std::size_t>(j)] * s[static_cast<std::size_t>(j)];
  }
  std::vector<double> amplitude(static_cast<std::size_t>(heat.grids));
  for (std::int64_t g = 0; g < heat.grids; ++g) {
    double dot = 0;
    for (std::int64_t j = 0; j < n; ++j)
      dot += static_cast<double>(u[static_cast<std::size_t>(g * n + j)]) * s[static_cast<std::size_t>(j)];
    amplitude[static_cast<std::size_t>(g)] = dot / norm;
  }
  return amplitude;
}

// With a sine start and both ends at 0 every step multiplies the mode by sine_decay_per_step:
// the measured decay beside the exact one, in the worst grid.
template <class T>
void report_sine_decay(io::ResultFile& out, const tridiag::Heat& heat, const std::vector<T>& u) {
  const double start = sine_amplitudes(tridiag::heat_initial<T>(heat), heat)[0];
  if (!(std::abs(start) > 0)) return;  // mode a multiple of points + 1: the start is all zeros
  const double exact = std::pow(tridiag::sine_decay_per_step(heat), static_cast<double>(heat.steps));
  double worst = 0, measured = exact;
  for (double a : sine_amplitudes(u, heat)) {
    const double error = std::abs(a / start - exact) / exact;
    if (!(error <= worst)) {
      worst = error;
      measured = a / start;
    }
  }
  out.set_attribute("/diagnostics", "sine_decay", measured);
  out.set_attribute("/diagnostics", "exact_sine_decay", exact);
  out.set_attribute("/diagnostics", "sine_decay_relative_error", worst);
  out.set_attribute("/diagnostics", "decay_per_step", tridiag::sine_decay_per_step(heat));
  char line[256];
  std::snprintf(line, sizeof line,
                "  sine mode %d decayed by %.6g over %lld steps; exact %.6g (relative error %.3g)\n",
                heat.mode, measured, static_cast<long long>(heat.steps), exact, worst);
  std::cout << line;
}

template <class T>
int run_heat(io::ParamTable& t, const Params& p, const RunOptions& options) {
  const tridiag::Heat& heat = p.heat;
  const Dims dims{heat.points, heat.grids, tridiag::required_layout(p.variant)};
  const Launch launch = resolved_launch<T>(t, launch_of(p), dims);
  const Backend backend = resolve_backend(options.backend);
  const bool gpu = backend == Backend::gpu;
  const int element = static_cast<int>(sizeof(T));
  if (gpu) check_fits_device(t, dims, element, "heat.grids");
  check_fits_host(t, dims, element, !gpu || options.check, "heat.grids");
  const std::filesystem::path path = output_path(options.output, options.params_path, "");
  io::ResultFile out(path, options.force, options.compression);
  write_parameters(out, t);
  write_provenance(out, "tridiag", backend, options.command_line);
  write_method(out, launch, gpu);

  std::cout << "tridiag: heat on " << heat.grids << " grids x " << heat.points << " points, "
            << heat.steps << " steps at lambda " << heat.lambda << ", " << name(p.precision) << "; "
            << (gpu ? method_of(launch) + " on " + current_device().name
                    : std::string("CPU gold solver"))
            << "\n";

  tridiag::HeatResult<T> result;
  std::vector<double> gold;
  if (gpu) {
    result = tridiag::march_heat_gpu<T>(heat, launch);
  } else {
    const auto start = std::chrono::steady_clock::now();
    gold = tridiag::march_heat_gold(heat);
    result.timings.compute = seconds_since(start);
    result.solve_seconds = result.timings.compute;
    result.u = rounded<T>(gold);
  }
  const double unknowns = static_cast<double>(dims.size()) * static_cast<double>(heat.steps);
  write_timings(out, result.timings, result.solve_seconds, unknowns);

  const auto [low, high] = std::minmax_element(result.u.begin(), result.u.end());
  out.set_attribute("/diagnostics", "u_min", static_cast<double>(*low));
  out.set_attribute("/diagnostics", "u_max", static_cast<double>(*high));
  char line[256];
  std::snprintf(line, sizeof line,
                "  u from %.6g to %.6g; %.3f s (solves %.3f s), %.3f G unknowns/s\n",
                static_cast<double>(*low), static_cast<double>(*high), result.timings.compute,
                result.solve_seconds,
                result.solve_seconds > 0 ? 1e-9 * unknowns / result.solve_seconds : 0.0);
  std::cout << line;
  if (heat.initial == tridiag::Initial::sine && heat.left == 0 && heat.right == 0)
    report_sine_decay(out, heat, result.u);

  if (options.check) {
    if (gold.empty()) gold = tridiag::march_heat_gold(heat);
    // Every step solves the same matrix, whose rows are all alike but the two ends: three
    // points have both kinds.
    tridiag::Heat rows = heat;
    rows.points = std::min<std::int64_t>(heat.points, 3);
    rows.grids = 1;
    const double condition =
        condition_bound(tridiag::heat_matrix<double>(rows, Layout::contiguous));
    report_check(out, result.u, gold, tolerance<T>(condition, heat.steps));
  }

  out.write_field("/fields/u", result.u.data(), {std::uint64_t(heat.grids), std::uint64_t(heat.points)});
  out.set_attribute("/fields/u", "layout", std::string("[grid][point], point fastest"));
  out.commit();
  std::cout << "  wrote " << path.string() << "\n";
  return 0;
}

template <class T>
int run_file(io::ParamTable& t, const Params& p, const RunOptions& options) {
  const Batch<T> batch = read_batch<T>(p.input);
  const Dims& dims = batch.dims;
  const Launch launch = resolved_launch<T>(t, launch_of(p), {dims.n, dims.systems,
                                                             tridiag::required_layout(p.variant)});
  const Backend backend = resolve_backend(options.backend);
  const bool gpu = backend == Backend::gpu;
  const int element = static_cast<int>(sizeof(T));
  if (gpu) check_fits_device(t, dims, element, "input.file");
  check_fits_host(t, dims, element, !gpu || options.check, "input.file");
  const std::filesystem::path path = output_path(options.output, options.params_path, "");
  io::ResultFile out(path, options.force, options.compression);
  write_parameters(out, t);
  write_provenance(out, "tridiag", backend, options.command_line);
  write_method(out, launch, gpu);
  out.set_attribute("/input", "file", p.input.file);
  out.set_attribute("/input", "systems", dims.systems);
  out.set_attribute("/input", "n", dims.n);

  std::cout << "tridiag: " << extent(dims) << " from " << p.input.file << ", "
            << name(p.precision) << "; "
            << (gpu ? method_of(launch) + " on " + current_device().name
                    : std::string("CPU gold solver"))
            << "\n";

  std::vector<T> x;
  tridiag::Timings timings;
  std::vector<double> gold;
  try {
    if (gpu) {
      const tridiag::Result<T> r =
          tridiag::solve_gpu<T>(launch, relayout(batch, tridiag::required_layout(launch.variant)));
      x = relayout(r.x, {dims.n, dims.systems, tridiag::required_layout(launch.variant)},
                   Layout::contiguous);
      timings = r.timings;
    } else {
      const auto start = std::chrono::steady_clock::now();
      gold = tridiag::solve_gold(batch);
      timings.compute = seconds_since(start);
      x = rounded<T>(gold);
    }
  } catch (const tridiag::NumericalError& e) {
    // Say in which file, and that no algorithm here pivots; stop with no result.
    const std::string what = e.what();
    throw tridiag::NumericalError(
        e.system(), p.input.file + ": " + what +
                        (what.find("do not pivot") == std::string::npos ? " (these solvers do not pivot)"
                                                                        : ""));
  }
  const double unknowns = static_cast<double>(dims.size());
  write_timings(out, timings, timings.compute, unknowns);
  char line[256];
  std::snprintf(line, sizeof line, "  max|x| %.6g; %.3g s, %.3f G unknowns/s\n", max_magnitude(x),
                timings.compute, timings.compute > 0 ? 1e-9 * unknowns / timings.compute : 0.0);
  std::cout << line;

  if (options.check) {
    if (gold.empty()) gold = tridiag::solve_gold(batch);
    report_check(out, x, gold, tolerance<T>(condition_bound(batch), 1));
  }

  out.write_field("/fields/x", x.data(), {std::uint64_t(dims.systems), std::uint64_t(dims.n)});
  out.set_attribute("/fields/x", "layout", std::string("[system][row], row fastest"));
  out.commit();
  std::cout << "  wrote " << path.string() << "\n";
  return 0;
}

int run(io::ParamTable& t, const RunOptions& options) {
  const auto [p, sweep] = read_all(t, options.params_path);
  (void)sweep;
  const bool single = p.precision == tridiag::Precision::single;
  if (p.problem == Problem::heat)
    return single ? run_heat<float>(t, p, options) : run_heat<double>(t, p, options);
  return single ? run_file<float>(t, p, options) : run_file<double>(t, p, options);
}

// ---------------------------------------------------------------------------------------------
// sweep

// The chunks timed for a variant: those listed (or all compiled) that the variant takes.
std::vector<int> chunks_for(Variant v, const std::vector<int>& listed) {
  std::vector<int> compiled = tridiag::compiled_chunks(v);
  if (compiled.empty()) compiled = {0};
  if (listed.empty() || compiled == std::vector<int>{0}) return compiled;
  std::vector<int> chosen;
  for (int c : listed)
    if (c == 0 || std::find(compiled.begin(), compiled.end(), c) != compiled.end()) chosen.push_back(c);
  return chosen;
}

// One row of the sweep: the difference from the gold (relative to max|x|; infinite when the
// solver reports a failure), checked first on an output poisoned with NaN so an unwritten value
// cannot pass, then the median of `repeats` timed solves after a warm-up.
template <class T>
std::pair<double, double> time_launch(const Launch& l, const Dims& dims, const DeviceBuffer<T>& a,
                                      const DeviceBuffer<T>& b, const DeviceBuffer<T>& c,
                                      const DeviceBuffer<T>& d, DeviceBuffer<T>& x,
                                      const std::vector<double>& gold, std::int64_t repeats,
                                      const Stream& stream) {
  tridiag::Solver<T> solver(l, dims);
  const auto solve = [&] { solver.solve(a.data(), b.data(), c.data(), d.data(), x.data(), stream); };
  const double scale = max_magnitude(gold);
  double difference = std::numeric_limits<double>::infinity();
  fill_bytes(x, 0xFF, stream);
  try {
    solve();
    solver.check(stream);
    std::vector<T> laid_x(x.size());
    PARASOL_CUDA(cudaMemcpyAsync(laid_x.data(), x.data(), x.bytes(), cudaMemcpyDeviceToHost, stream));
    stream.synchronize();
    const FieldDifference diff = compare(relayout(laid_x, dims, Layout::contiguous), gold);
    difference = scale > 0 ? diff.max_abs / scale : diff.max_abs;
  } catch (const tridiag::NumericalError& e) {
    std::cout << "  " << method_of(l) << ": " << e.what() << ", where the gold solved it\n";
  }
  solve();  // warm-up
  const double m = median(timed_runs(stream, repeats, solve));
  try {
    solver.check(stream);
  } catch (const tridiag::NumericalError&) {
    difference = std::numeric_limits<double>::infinity();
  }
  return {m, difference};
}

template <class T>
int sweep_typed(io::ParamTable& t, const Params& p, const SweepParams& s, const SweepOptions& options) {
  const Batch<T> batch = p.problem == Problem::heat ? heat_step<T>(p.heat) : read_batch<T>(p.input);
  const Dims& dims = batch.dims;
  const int element = static_cast<int>(sizeof(T));
  std::string reason;
  if (!gpu_available(&reason))
    throw Error("parasol sweep times GPU kernels and needs a device: " + reason);
  const char* size_key = p.problem == Problem::heat ? "heat.grids" : "input.file";
  check_fits_device(t, dims, element, size_key);
  check_fits_host(t, dims, element, true, size_key);
  const std::vector<double> gold = tridiag::solve_gold(batch);  // a singular batch stops here
  const double limit = tolerance<T>(condition_bound(batch), 1);

  const std::filesystem::path path = output_path(options.output, options.params_path, "-sweep");
  io::ResultFile out(path, options.force, options.compression);
  write_parameters(out, t);
  write_provenance(out, "tridiag", Backend::gpu, options.command_line);

  const double bytes = tridiag::bytes_per_solve(dims, element);
  // The copy moves as many bytes as one solve (read + written), so cache effects are alike.
  const double copy = measure_copy_bandwidth(static_cast<std::size_t>(bytes / 2));
  std::cout << "tridiag sweep: " << extent(dims) << ", " << name(p.precision) << " on "
            << current_device().name << "; device-to-device copy " << copy * 1e-9 << " GB/s, "
            << s.repeats << " timed solves each\n";

  ResultsTable table({{"variant", "variant", 11},
                      {"threads", "threads", 7},
                      {"chunk", "chunk", 5},
                      {"median_s", "median ms", 11, 4, 'f', 1e3},
                      {"gunknowns_per_s", "Gunknowns/s", 11, 2},
                      {"gb_per_s", "GB/s", 8, 1},
                      {"percent_of_copy", "% copy", 7, 1},
                      {"max_relative_difference", "max rel diff", 12, 2, 'g'}});
  Stream stream;
  const auto size = static_cast<std::size_t>(dims.size());
  for (Variant v : s.variants) {
    const Dims vdims{dims.n, dims.systems, tridiag::required_layout(v)};
    // Each distinct launch once: chunk 0 resolves to one of the listed chunks.
    std::vector<Launch> launches;
    std::vector<std::string> skipped;
    for (int threads : s.threads)
      for (int chunk : chunks_for(v, s.chunks)) {
        try {
          const Launch l = tridiag::resolve_launch({v, threads, chunk}, vdims, element);
          const bool seen = std::any_of(launches.begin(), launches.end(), [&](const Launch& o) {
            return o.threads == l.threads && o.chunk == l.chunk;
          });
          if (!seen) launches.push_back(l);
        } catch (const InputError& e) {
          skipped.push_back(std::to_string(threads) + " threads, chunk " + std::to_string(chunk) +
                            ": " + e.expected());
        }
      }
    if (launches.empty()) {
      std::cout << "  " << name(v) << " skipped: "
                << (skipped.empty() ? std::string("no chunk listed for it") : skipped.front()) << "\n";
      continue;
    }
    if (!skipped.empty())
      std::cout << "  " << name(v) << ": " << skipped.size() << " launch"
                << (skipped.size() == 1 ? "" : "es") << " skipped (first: " << skipped.front() << ")\n";

    const Batch<T> laid = relayout(batch, vdims.layout);
    DeviceBuffer<T> a(size), b(size), c(size), d(size), x(size);
    const std::pair<DeviceBuffer<T>*, const std::vector<T>*> uploads[] = {
        {&a, &laid.a}, {&b, &laid.b}, {&c, &laid.c}, {&d, &laid.d}};
    for (const auto& [device, host] : uploads)
      PARASOL_CUDA(cudaMemcpyAsync(device->data(), host->data(), device->bytes(),
                                   cudaMemcpyHostToDevice, stream));
    for (const Launch& l : launches) {
      const double nan = std::numeric_limits<double>::quiet_NaN();
      try {
        const auto [m, difference] = time_launch(l, vdims, a, b, c, d, x, gold, s.repeats, stream);
        table.add({std::string(name(v)), std::int64_t{l.threads}, std::int64_t{l.chunk}, m,
                   1e-9 * static_cast<double>(dims.size()) / m, 1e-9 * bytes / m,
                   100.0 * bytes / m / copy, difference},
                  m, difference <= limit);
      } catch (const CudaError& e) {
        // A launch the device refuses (too many registers, say) fails its row; the context
        // survives, so the study goes on. A fault that poisons the context ends it.
        if (e.sticky()) throw;
        std::cout << "  " << method_of(l) << ": " << e.what() << "\n";
        table.add({std::string(name(v)), std::int64_t{l.threads}, std::int64_t{l.chunk}, nan, nan,
                   nan, nan, nan},
                  nan, false);
      }
    }
  }
  if (table.empty())
    throw InputError(t.source_of("sweep.variants"), "sweep.variants",
                     "no listed variant, threads and chunk can solve " + extent(dims));
  table.print(std::cout);
  table.write(out, "/sweep");
  out.set_attribute("/sweep", "copy_bandwidth_gb_per_s", copy * 1e-9);
  out.set_attribute("/sweep", "bytes_per_solve", bytes);
  out.set_attribute("/sweep", "n", dims.n);
  out.set_attribute("/sweep", "systems", dims.systems);
  out.set_attribute("/sweep", "check_tolerance", limit);
  out.commit();
  std::cout << "  wrote " << path.string() << "\n";
  return table.all_passed() ? 0 : 1;
}

int sweep(io::ParamTable& t, const SweepOptions& options) {
  const auto [p, s] = read_all(t, options.params_path);
  return p.precision == tridiag::Precision::single ? sweep_typed<float>(t, p, s, options)
                                                    : sweep_typed<double>(t, p, s, options);
}

}  // namespace

SolverApp tridiag_app() {
  return {"tridiag",
          "batched tridiagonal systems: the 1D heat equation by backward Euler, or a batch from HDF5",
          run, sweep};
}

}  // namespace parasol::app
