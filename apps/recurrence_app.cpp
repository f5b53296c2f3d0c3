// recurrence in the front end: parameter file (and input file) -> Series, run or sweep,
// v -> HDF5 beside its inputs.

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "apps/check.hpp"
#include "apps/io/input_file.hpp"
#include "apps/io/result_file.hpp"
#include "apps/provenance.hpp"
#include "apps/results_table.hpp"
#include "apps/solvers.hpp"
#include "kernels/timed_runs.hpp"
#include "kernels/buffer.hpp"
#include "kernels/device.hpp"
#include "kernels/error.hpp"
#include "kernels/stream.hpp"
#include "kernels/validate.hpp"
#include "solvers/recurrence/params.hpp"
#include "solvers/recurrence/problems.hpp"
#include "solvers/recurrence/recurrence.hpp"

namespace parasol::app {
namespace {

using recurrence::Params;
using recurrence::Precision;
using recurrence::Problem;
using recurrence::Series;

// Settings of `parasol sweep`, from the file's [sweep] table.
struct SweepParams {
  std::int64_t repeats = 20;  // timed solves per mode, after a warm-up; the median is reported
};

// Every key recurrence accepts is read here, so anything else in the file is unknown. A relative
// input.file is resolved against the parameter file's folder (one given on the command line,
// against the current folder).
Params read_params(io::ParamTable& t, const std::filesystem::path& params_path) {
  const Params d;
  Params p;
  p.problem = io::get_choice(t, "problem.kind", std::string(name(d.problem)),
                             recurrence::parse_problem);
  p.precision = io::get_choice(t, "problem.precision", std::string(name(d.precision)),
                               recurrence::parse_precision);

  p.ar1.series = t.get_int("ar1.series", d.ar1.series);
  p.ar1.length = t.get_int("ar1.length", d.ar1.length);
  // A coefficient that varies in time is asked for by giving its range instead of one value.
  p.ar1.time_varying = t.has("ar1.phi_min") || t.has("ar1.phi_max");
  if (p.ar1.time_varying) {
    if (t.has("ar1.phi"))
      throw InputError(t.source_of("ar1.phi"), "ar1.phi",
                       "give either ar1.phi (one coefficient) or ar1.phi_min and ar1.phi_max (a "
                       "coefficient drawn at every step), not both");
    p.ar1.phi_min = t.get_double("ar1.phi_min");
    p.ar1.phi_max = t.get_double("ar1.phi_max");
  } else {
    p.ar1.phi = t.get_double("ar1.phi", d.ar1.phi);
  }
  p.ar1.sigma = t.get_double("ar1.sigma", d.ar1.sigma);
  p.ar1.x0 = t.get_double("ar1.x0", d.ar1.x0);
  const std::int64_t seed = t.get_int("ar1.seed", static_cast<std::int64_t>(d.ar1.seed));
  if (seed < 0) throw InputError(t.source_of("ar1.seed"), "ar1.seed", "expected an integer >= 0");
  p.ar1.seed = static_cast<std::uint64_t>(seed);

  p.smoothing.alpha = t.get_double("smoothing.alpha", d.smoothing.alpha);

  p.input.file = io::get_file(t, "input.file", params_path, d.input.file);
  p.input.y = t.get_string("input.y", d.input.y);
  p.input.s = t.get_string("input.s", d.input.s);
  p.input.u = t.get_string("input.u", d.input.u);
  p.input.initial = t.get_string("input.initial", d.input.initial);
  p.input.offsets = t.get_string("input.offsets", d.input.offsets);

  p.mode = io::get_choice(t, "method.mode", std::string(name(d.mode)), parse_scan_mode);
  p.write_input = t.get_bool("output.input", d.write_input);
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

// ---------------------------------------------------------------------------------------------
// The series: generated, or read from the input file.

// A dataset named by `key`; its errors name the file, the dataset and the key.
template <class T>
io::Dataset<T> read_input(const io::ResultReader& in, const char* key, const std::string& dataset,
                          const std::vector<int>& ranks) {
  try {
    return in.read_dataset<T>(dataset, ranks);
  } catch (const InputError& e) {
    throw InputError(e.source(), e.key(), e.expected() + " (" + key + ")");
  }
}

// NaN or infinity in an input would spread through everything after it.
template <class T>
void require_finite(const std::vector<T>& values, const std::string& file,
                    const std::string& dataset) {
  for (std::size_t i = 0; i < values.size(); ++i)
    if (!std::isfinite(values[i]))
      throw InputError(file, io::dataset_display_path(dataset),
                       "holds " + shown(static_cast<double>(values[i])) + " at element " +
                           std::to_string(i) + "; expected finite numbers");
}

template <class T>
Series<T> smoothing_from_file(const Params& p) {
  const auto in = io::open_input_file(p.input.file);
  const io::Dataset<double> y = read_input<double>(*in, "input.y", p.input.y, {1, 2});
  if (y.values.empty())
    throw InputError(p.input.file, io::dataset_display_path(p.input.y),
                     "has shape " + io::shape_text(y.dims) + "; expected at least one value");
  require_finite(y.values, p.input.file, p.input.y);
  const std::int64_t rows = y.dims.size() == 2 ? static_cast<std::int64_t>(y.dims[0]) : 1;
  return recurrence::smoothing_series<T>(y.values, rows, p.smoothing.alpha);
}

template <class T>
Series<T> series_from_file(const io::ParamTable& t, const Params& p) {
  const auto in = io::open_input_file(p.input.file);
  io::Dataset<T> s = read_input<T>(*in, "input.s", p.input.s, {1, 2});
  io::Dataset<T> u = read_input<T>(*in, "input.u", p.input.u, {1, 2});
  if (u.dims != s.dims)
    throw InputError(p.input.file, io::dataset_display_path(p.input.u),
                     "has shape " + io::shape_text(u.dims) + " but " + io::dataset_display_path(p.input.s) +
                         " has " + io::shape_text(s.dims) + "; expected the same (input.u)");
  if (s.values.empty())
    throw InputError(p.input.file, io::dataset_display_path(p.input.s),
                     "has shape " + io::shape_text(s.dims) + "; expected at least one value");
  require_finite(s.values, p.input.file, p.input.s);
  require_finite(u.values, p.input.file, p.input.u);

  Series<T> series;
  series.s = std::move(s.values);
  series.u = std::move(u.values);
  const bool rows = s.dims.size() == 2;
  if (!p.input.offsets.empty()) {
    if (rows)
      throw InputError(t.source_of("input.offsets"), "input.offsets",
                       "offsets need 1D s and u; " + io::dataset_display_path(p.input.s) + " is " +
                           io::shape_text(s.dims) + ", one segment per row");
    series.offsets =
        read_input<std::int64_t>(*in, "input.offsets", p.input.offsets, {1}).values;
  } else if (rows) {
    const auto length = static_cast<std::int64_t>(s.dims[1]);
    for (std::uint64_t k = 0; k <= s.dims[0]; ++k)
      series.offsets.push_back(static_cast<std::int64_t>(k) * length);
  } else {
    series.offsets = {0, series.size()};
  }
  const std::size_t segments = series.offsets.empty() ? 0 : series.offsets.size() - 1;
  if (!p.input.initial.empty()) {
    io::Dataset<T> initial = read_input<T>(*in, "input.initial", p.input.initial, {0, 1});
    if (initial.values.size() != segments)
      throw InputError(p.input.file, io::dataset_display_path(p.input.initial),
                       "holds " + std::to_string(initial.values.size()) +
                           " values; expected one per segment, " + std::to_string(segments) +
                           " (input.initial)");
    require_finite(initial.values, p.input.file, p.input.initial);
    series.initial = std::move(initial.values);
  } else {
    series.initial.assign(segments, T(0));
  }
  try {
    recurrence::check_series(series);
  } catch (const InputError& e) {
    throw InputError(p.input.file, e.key(), e.expected());
  }
  return series;
}

template <class T>
Series<T> make_series(const io::ParamTable& t, const Params& p) {
  switch (p.problem) {
    case Problem::ar1: return recurrence::ar1_series<T>(p.ar1);
    case Problem::smoothing: return smoothing_from_file<T>(p);
    case Problem::file: return series_from_file<T>(t, p);
  }
  throw Error("recurrence: unknown problem");
}

// ---------------------------------------------------------------------------------------------
// Sizes, descriptions, tolerances.

int element_bytes(const Params& p) { return p.precision == Precision::single ? 4 : 8; }
template <class T>
constexpr int kBytes = static_cast<int>(sizeof(T));

// The key a size complaint is reported against: what set the size.
const char* size_key(const Params& p) { return p.problem == Problem::ar1 ? "ar1" : "input.file"; }

// s, u and v, and with the gold (CPU runs, --check, sweeps) the gold and the scale in double.
void check_fits_host(const io::ParamTable& t, const Params& p, std::int64_t elements,
                     bool gold) {
  const double host = host_memory_bytes();
  const double need =
      (3.0 * element_bytes(p) + (gold ? 16.0 : 0.0)) * static_cast<double>(elements);
  if (need > host)
    throw InputError(t.source(), size_key(p),
                     std::to_string(elements) + " elements need about " + gib(need) +
                         " of host memory; this machine has " + gib(host));
}

// s, u and v, the offsets and initial values, and a little for the scan's tile states.
template <class T>
void check_fits_device(const io::ParamTable& t, const Params& p, const Series<T>& series) {
  const DeviceInfo device = current_device();
  const double need = 1.01 * recurrence::bytes_per_solve(series.size(), kBytes<T>) +
                      static_cast<double>(sizeof(std::int64_t) + sizeof(T)) *
                          static_cast<double>(series.segments() + 1);
  if (need > static_cast<double>(device.free_memory))
    throw InputError(t.source(), size_key(p),
                     std::to_string(series.size()) + " elements in " +
                         std::string(name(p.precision)) + " need " + gib(need) +
                         " on the device; " + device.name + " has " +
                         gib(static_cast<double>(device.free_memory)) + " free");
}

template <class T>
std::string describe(const Params& p, const Series<T>& series) {
  char text[256];
  const auto n = static_cast<long long>(series.size());
  const auto segments = static_cast<long long>(series.segments());
  switch (p.problem) {
    case Problem::ar1:
      if (p.ar1.time_varying)
        std::snprintf(text, sizeof text,
                      "AR(1), %lld series x %lld steps, phi uniform in (%g, %g), sigma %g",
                      segments, n / segments, p.ar1.phi_min, p.ar1.phi_max, p.ar1.sigma);
      else
        std::snprintf(text, sizeof text, "AR(1), %lld series x %lld steps, phi %g, sigma %g",
                      segments, n / segments, p.ar1.phi, p.ar1.sigma);
      break;
    case Problem::smoothing:
      std::snprintf(text, sizeof text, "exponential smoothing (alpha %g) of %lld series, %lld "
                    "values in all, from %s", p.smoothing.alpha, segments, n,
                    p.input.file.c_str());
      break;
    case Problem::file:
      std::snprintf(text, sizeof text, "%lld elements in %lld segments from %s", n, segments,
                    p.input.file.c_str());
      break;
  }
  return std::string(text) + " (" + std::string(name(p.precision)) + ")";
}

// Round-off allowed, relative to the magnitude scale: some ulps for the combines of the scan's
// tree (64), plus what accumulates along the chain of tile prefixes, which grows like a random
// walk (4 sqrt(n)). A wrong index is off by a good fraction of the scale.
template <class T>
double check_tolerance(std::int64_t n) {
  return std::numeric_limits<T>::epsilon() * (64.0 + 4.0 * std::sqrt(static_cast<double>(n)));
}

// The largest |result - gold| / scale. NaN anywhere makes it NaN: it must not pass as agreement;
// an element whose scale is 0 must match exactly.
template <class T>
double max_relative_to_scale(const std::vector<T>& result, const std::vector<double>& gold,
                             const std::vector<double>& scale) {
  double worst = 0;
  for (std::size_t i = 0; i < result.size(); ++i) {
    const double e = std::abs(static_cast<double>(result[i]) - gold[i]);
    if (std::isnan(e)) return NAN;
    worst = std::max(worst, scale[i] > 0 ? e / scale[i] : (e == 0 ? 0 : INFINITY));
  }
  return worst;
}

// Equal-length segments are stored as rows, [segments][length]; others as one run of elements
// with /input/offsets saying where each segment starts.
template <class T>
std::vector<std::uint64_t> field_dims(const Series<T>& series) {
  const std::int64_t segments = series.segments();
  const std::int64_t length = segments > 0 ? series.offsets[1] : 0;
  bool rows = segments > 1 && length > 0;
  for (std::int64_t k = 0; rows && k < segments; ++k)
    rows = series.offsets[k + 1] - series.offsets[k] == length;
  if (rows) return {static_cast<std::uint64_t>(segments), static_cast<std::uint64_t>(length)};
  return {static_cast<std::uint64_t>(series.size())};
}

std::string layout_of(const std::vector<std::uint64_t>& dims) {
  return dims.size() == 2 ? "[segment][t], t fastest: row k is segment k"
                          : "[element]: segment k is elements offsets[k] to offsets[k + 1] - 1 "
                            "(/input/offsets)";
}

template <class T>
std::vector<T> rounded(const std::vector<double>& v) {
  std::vector<T> out(v.size());
  std::transform(v.begin(), v.end(), out.begin(), [](double x) { return static_cast<T>(x); });
  return out;
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// ---------------------------------------------------------------------------------------------
// run

template <class T>
int run_typed(io::ParamTable& t, const Params& p, const RunOptions& options) {
  Series<T> series = make_series<T>(t, p);
  if (p.problem != Problem::ar1) check_fits_host(t, p, series.size(), true);
  const Backend backend = resolve_backend(options.backend);
  const bool gpu = backend == Backend::gpu;
  if (gpu) check_fits_device(t, p, series);
  const std::filesystem::path path = output_path(options.output, options.params_path, "");
  io::ResultFile out(path, options.force, options.compression);
  write_parameters(out, t);
  write_provenance(out, "recurrence", backend, options.command_line);

  std::cout << "recurrence: " << describe(p, series) << "; "
            << (gpu ? std::string(name(p.mode)) + " scan on " + current_device().name
                    : std::string("CPU gold solver"))
            << "\n";

  recurrence::Result<T> result;
  std::vector<double> gold;
  if (gpu) {
    result = recurrence::solve_gpu(series, p.mode);
  } else {
    const auto start = std::chrono::steady_clock::now();
    gold = recurrence::solve_gold(series);
    result.timings.compute = seconds_since(start);
    result.v = rounded<T>(gold);
  }
  const double n = static_cast<double>(series.size());
  const double rate = n / result.timings.compute;
  const double bytes = recurrence::bytes_per_solve(series.size(), kBytes<T>);
  out.set_attribute("/timings", "host_to_device_s", result.timings.host_to_device);
  out.set_attribute("/timings", "compute_s", result.timings.compute);
  out.set_attribute("/timings", "device_to_host_s", result.timings.device_to_host);
  out.set_attribute("/timings", "gelements_per_s", 1e-9 * rate);
  out.set_attribute("/timings", "gb_per_s", 1e-9 * bytes / result.timings.compute);
  out.set_attribute("/series", "problem", std::string(name(p.problem)));
  out.set_attribute("/series", "elements", series.size());
  out.set_attribute("/series", "segments", series.segments());
  if (p.problem != Problem::ar1) out.set_attribute("/series", "input_file", p.input.file);

  const auto [low, high] = std::minmax_element(result.v.begin(), result.v.end());
  char line[256];
  std::snprintf(line, sizeof line, "  v from %.6g to %.6g; %.3g s, %.3f G elements/s\n",
                static_cast<double>(*low), static_cast<double>(*high), result.timings.compute,
                1e-9 * rate);
  std::cout << line;

  if (options.check) {
    if (gold.empty()) gold = recurrence::solve_gold(series);
    const std::vector<double> scale = recurrence::magnitude_scale(series);
    const FieldDifference diff = compare(result.v, gold);
    const double relative = max_relative_to_scale(result.v, gold, scale);
    const double tolerance = check_tolerance<T>(series.size());
    write_check(out, diff, "long double");
    out.set_attribute("/check", "max_relative_to_scale", relative);
    out.set_attribute("/check", "tolerance", tolerance);
    std::snprintf(line, sizeof line,
                  "  check against the long-double CPU gold: max abs diff %.3g, rms diff %.3g, "
                  "max relative to scale %.3g%s\n",
                  diff.max_abs, diff.rms, relative,
                  relative <= tolerance ? "" : " (above the round-off bound: suspect the solver)");
    std::cout << line;
  }

  const std::vector<std::uint64_t> dims = field_dims(series);
  out.write_field("/fields/v", result.v.data(), dims);
  out.set_attribute("/fields/v", "layout", layout_of(dims));
  if (p.write_input) {
    out.write_field("/input/s", series.s.data(), dims);
    out.write_field("/input/u", series.u.data(), dims);
  }
  out.write_column("/input/offsets", series.offsets);
  out.write_field("/input/initial", series.initial.data(),
                  {static_cast<std::uint64_t>(series.segments())});
  out.commit();
  std::cout << "  wrote " << path.string() << "\n";
  return 0;
}

int run(io::ParamTable& t, const RunOptions& options) {
  const auto [p, sweep] = read_all(t, options.params_path);
  (void)sweep;
  // A generated problem's size is known before anything is allocated.
  if (p.problem == Problem::ar1) check_fits_host(t, p, p.ar1.series * p.ar1.length, true);
  return p.precision == Precision::single ? run_typed<float>(t, p, options)
                                          : run_typed<double>(t, p, options);
}

// ---------------------------------------------------------------------------------------------
// sweep

template <class T>
int sweep_typed(io::ParamTable& t, const Params& p, const SweepParams& s,
                const SweepOptions& options) {
  const Series<T> series = make_series<T>(t, p);
  check_fits_host(t, p, series.size(), true);
  check_fits_device(t, p, series);
  const std::filesystem::path path = output_path(options.output, options.params_path, "-sweep");
  io::ResultFile out(path, options.force, options.compression);
  write_parameters(out, t);
  write_provenance(out, "recurrence", Backend::gpu, options.command_line);

  const std::int64_t n = series.size();
  const double bytes = recurrence::bytes_per_solve(n, kBytes<T>);
  // The copy moves as many bytes as one solve (it reads and writes bytes / 2).
  const double copy = measure_copy_bandwidth(static_cast<std::size_t>(bytes / 2));
  std::cout << "recurrence sweep: " << describe(p, series) << " on " << current_device().name
            << "; device-to-device copy " << 1e-9 * copy << " GB/s, " << s.repeats
            << " timed solves each\n";
  const std::vector<double> gold = recurrence::solve_gold(series);
  const std::vector<double> scale = recurrence::magnitude_scale(series);
  const double tolerance = check_tolerance<T>(n);

  Stream stream;
  DeviceBuffer<T> d_s(series.s.size()), d_u(series.u.size()), d_v(series.s.size());
  DeviceBuffer<std::int64_t> d_offsets(series.offsets.size());
  DeviceBuffer<T> d_initial(series.initial.size());
  upload(d_s, series.s, stream);
  upload(d_u, series.u, stream);
  upload(d_offsets, series.offsets, stream);
  upload(d_initial, series.initial, stream);

  ResultsTable table({{"mode", "mode", 13},
                      {"median_s", "median ms", 12, 4, 'f', 1e3},
                      {"gelements_per_s", "Gelements/s", 12, 2},
                      {"gb_per_s", "GB/s", 9, 1},
                      {"percent_of_copy", "% copy", 7, 1},
                      {"max_relative_to_scale", "max rel err", 11, 2, 'g'},
                      {"repeatable", "same bits", 9}});
  std::vector<T> first(series.s.size()), again(series.s.size());
  for (const ScanMode mode : {ScanMode::fast, ScanMode::reproducible}) {
    recurrence::Solver<T> solver(mode);
    const auto solve = [&] {
      solver.solve(d_s.data(), d_u.data(), d_offsets.data(), d_initial.data(), n,
                   series.segments(), d_v.data(), stream);
    };
    solve();  // warm-up (module loading, the workspace's first allocation), and the check
    first = download(d_v, stream);
    const double relative = max_relative_to_scale(first, gold, scale);
    bool repeatable = true;
    const double m = median(timed_runs(stream, s.repeats, solve, [&] {
      again = download(d_v, stream);
      repeatable =
          repeatable && std::memcmp(first.data(), again.data(), again.size() * sizeof(T)) == 0;
    }));
    table.add({std::string(name(mode)), m, 1e-9 * static_cast<double>(n) / m, 1e-9 * bytes / m,
               100.0 * bytes / m / copy, relative, std::int64_t{repeatable ? 1 : 0}},
              m, relative <= tolerance);
  }
  table.print(std::cout);
  table.write(out, "/sweep");
  out.set_attribute("/sweep", "copy_bandwidth_gb_per_s", 1e-9 * copy);
  out.set_attribute("/sweep", "bytes_per_element", bytes / static_cast<double>(n));
  out.set_attribute("/sweep", "elements", n);
  out.set_attribute("/sweep", "segments", series.segments());
  out.set_attribute("/sweep", "check_tolerance", tolerance);
  out.commit();
  std::cout << "  wrote " << path.string() << "\n";
  return table.all_passed() ? 0 : 1;
}

int sweep(io::ParamTable& t, const SweepOptions& options) {
  const auto [p, s] = read_all(t, options.params_path);
  std::string reason;
  if (!gpu_available(&reason))
    throw Error("parasol sweep times GPU kernels and needs a device: " + reason);
  if (p.problem == Problem::ar1) check_fits_host(t, p, p.ar1.series * p.ar1.length, true);
  return p.precision == Precision::single ? sweep_typed<float>(t, p, s, options)
                                          : sweep_typed<double>(t, p, s, options);
}

}  // namespace

SolverApp recurrence_app() {
  return {"recurrence",
          "first-order linear recurrences v[n] = s[n] v[n-1] + u[n] by a device-wide scan", run,
          sweep};
}

}  // namespace parasol::app
