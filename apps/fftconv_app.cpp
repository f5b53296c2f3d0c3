// fftconv in the front end: parameter file (and input files) -> signal and filter, convolved on
// the GPU or by the CPU gold, output -> HDF5 beside its inputs. A streamed run pulls the signal in
// pieces from host memory or the input file and writes the output to the result file as it
// comes; the sweep times every variant on data resident on the device.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <limits>
#include <memory>
#include <string>
#include <type_traits>
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
#include "solvers/fftconv/fftconv.hpp"
#include "solvers/fftconv/params.hpp"
#include "solvers/fftconv/signals.hpp"

namespace parasol::app {
namespace {

using fftconv::Extent;
using fftconv::FilterKind;
using fftconv::Layout;
using fftconv::Params;
using fftconv::Precision;
using fftconv::Problem;
using fftconv::SignalKind;
using fftconv::Source;
using fftconv::Variant;

// The largest difference from the gold allowed, relative to max |gold|. An FFT convolution's
// round-off grows with log2 of the transform length: a few hundred ulps of float (or a few
// hundred thousand of double) leave room for transforms of 2^30 points, while a wrong index, a
// block missed or a spectrum left unscaled is off by a good fraction of the output.
template <class T>
constexpr double kTolerance = std::is_same_v<T, float> ? 1e-4 : 1e-10;

// A streamed run's output is written in runs of this many samples: a multiple of every chunk
// length the result file uses for it (2^18 floats, 2^17 doubles), so each chunk is compressed once.
constexpr std::int64_t kFlushSamples = std::int64_t{1} << 22;

// The output computed at a time by a streamed run on the CPU (the GPU takes method.piece).
constexpr std::int64_t kCpuPiece = std::int64_t{1} << 20;

// Settings of `parasol sweep`, from the file's [sweep] table.
struct SweepParams {
  std::vector<Variant> variants;  // default: auto, then every variant
  std::int64_t repeats = 10;      // timed convolutions per variant, after a warm-up; the median
};

// The keys only one source reads: given with the other they are an error, not ignored.
const char* const kGeneratedSignalKeys[] = {"signal.kind",      "signal.batch", "signal.rows",
                                            "signal.length",    "signal.seed",  "signal.amplitude",
                                            "signal.f0",        "signal.f1",    "signal.noise"};
const char* const kChirpKeys[] = {"signal.f0", "signal.f1", "signal.noise"};
const char* const kSignalFileKeys[] = {"signal.file", "signal.dataset", "signal.layout"};
const char* const kGeneratedFilterKeys[] = {"filter.rows", "filter.length", "filter.sigma"};
const char* const kFilterFileKeys[] = {"filter.file", "filter.dataset", "filter.layout"};

template <std::size_t N>
void reject_keys(const io::ParamTable& t, const char* const (&keys)[N], const std::string& why) {
  for (const char* key : keys)
    if (t.has(key)) throw InputError(t.source_of(key), key, "not read when " + why);
}


// Every key fftconv accepts is read here, so anything else in the file is unknown.
Params read_params(io::ParamTable& t, const std::filesystem::path& params_path) {
  const Params d;
  Params p;
  p.mode = io::get_choice(t, "problem.mode", std::string(name(d.mode)), fftconv::parse_mode);
  p.operation = io::get_choice(t, "problem.operation", std::string(name(d.operation)),
                               fftconv::parse_operation);
  p.precision = io::get_choice(t, "problem.precision", std::string(name(d.precision)),
                               fftconv::parse_precision);

  p.signal.source = io::get_choice(t, "signal.source", std::string(name(d.signal.source)),
                                   fftconv::parse_source);
  if (p.signal_generated()) {
    reject_keys(t, kSignalFileKeys, "signal.source = \"generated\"");
    p.signal.kind = io::get_choice(t, "signal.kind", std::string(name(d.signal.kind)),
                                   fftconv::parse_signal_kind);
    p.signal.batch = t.get_int("signal.batch", d.signal.batch);
    p.signal.rows = t.get_int("signal.rows", d.signal.rows);
    p.signal.length = t.get_int("signal.length", d.signal.length);
    p.signal.amplitude = t.get_double("signal.amplitude", d.signal.amplitude);
    if (p.signal.kind == SignalKind::chirp) {
      p.signal.f0 = t.get_double("signal.f0", d.signal.f0);
      p.signal.f1 = t.get_double("signal.f1", d.signal.f1);
      p.signal.noise = t.get_double("signal.noise", d.signal.noise);
    } else {
      reject_keys(t, kChirpKeys, "signal.kind = \"noise\"");
    }
    p.signal.seed = get_seed(t, "signal.seed", d.signal.seed);
  } else {
    reject_keys(t, kGeneratedSignalKeys, "signal.source = \"file\"");
    p.signal.file = io::get_file(t, "signal.file", params_path, "");
    p.signal.dataset = t.get_string("signal.dataset", d.signal.dataset);
    p.signal.layout = io::get_choice(t, "signal.layout", std::string(name(d.signal.layout)),
                                     fftconv::parse_layout);
  }

  p.filter.kind = io::get_choice(t, "filter.kind", std::string(name(d.filter.kind)),
                                 fftconv::parse_filter_kind);
  if (p.filter_generated()) {
    const std::string why = "filter.kind = \"" + std::string(name(p.filter.kind)) + "\"";
    reject_keys(t, kFilterFileKeys, why);
    p.filter.rows = t.get_int("filter.rows", d.filter.rows);
    p.filter.length = t.get_int("filter.length", d.filter.length);
    if (p.filter.kind == FilterKind::gaussian)
      p.filter.sigma = t.get_double("filter.sigma", d.filter.sigma);
    else if (t.has("filter.sigma"))
      throw InputError(t.source_of("filter.sigma"), "filter.sigma", "not read when " + why);
  } else {
    reject_keys(t, kGeneratedFilterKeys, "filter.kind = \"file\"");
    p.filter.file = io::get_file(t, "filter.file", params_path, "");
    p.filter.dataset = t.get_string("filter.dataset", d.filter.dataset);
    p.filter.layout = io::get_choice(t, "filter.layout", std::string(name(d.filter.layout)),
                                     fftconv::parse_layout);
  }

  p.variant = io::get_choice(t, "method.variant", std::string(name(d.variant)),
                             fftconv::parse_variant);
  p.block = t.get_int("method.block", d.block);
  p.streamed = t.get_bool("method.streamed", d.streamed);
  p.piece = t.get_int("method.piece", d.piece);
  p.write_input = t.get_bool("output.input", d.write_input);
  return p;
}

SweepParams read_sweep_params(io::ParamTable& t) {
  SweepParams s;
  std::vector<std::string> all = io::names_of(fftconv::kVariants);
  all.insert(all.begin(), std::string(name(Variant::automatic)));
  s.variants = io::get_choices(t, "sweep.variants", all, fftconv::parse_variant);
  if (s.variants.empty())
    throw InputError(t.source_of("sweep.variants"), "sweep.variants",
                     "expected at least one variant");
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
// The operands: generated, or read from input files.

std::string extent_text(const Extent& e) {
  return e.rows == 1 ? std::to_string(e.cols)
                     : std::to_string(e.rows) + " x " + std::to_string(e.cols);
}

// A dataset's errors name the file, the dataset and the key that named it.
template <class Read>
auto from_input(const char* key, Read&& read) {
  try {
    return read();
  } catch (const InputError& e) {
    throw InputError(e.source(), e.key(), e.expected() + " (" + key + ")");
  }
}

// NaN or infinity in an input would spread through every output it reaches.
template <class T>
void require_finite(const T* values, std::int64_t count, std::int64_t first,
                    const std::string& file, const std::string& dataset) {
  for (std::int64_t i = 0; i < count; ++i)
    if (!std::isfinite(values[i]))
      throw InputError(file, io::dataset_display_path(dataset),
                       "holds " + shown(static_cast<double>(values[i])) + " at element " +
                           std::to_string(first + i) + "; expected finite numbers");
}

// How many operands a dataset holds, and the extent of each: [n] is one; [batch][n] a batch
// or [rows][cols] one image, as `layout` says; [batch][rows][cols] a batch of images.
struct Stack {
  std::int64_t count = 1;
  Extent extent;
};

Stack stack_of(const std::vector<std::uint64_t>& dims, Layout layout) {
  const auto d = [&](std::size_t i) { return static_cast<std::int64_t>(dims[i]); };
  if (dims.size() == 1) return {1, {1, d(0)}};
  if (dims.size() == 3) return {d(0), {d(1), d(2)}};
  return layout == Layout::batch ? Stack{d(0), {1, d(1)}} : Stack{1, {d(0), d(1)}};
}

// One signal is stored as itself, [n] or (2D problems) [rows][cols]; a batch adds a dimension.
std::vector<std::uint64_t> stored_dims(std::int64_t count, const Extent& e, bool two_d) {
  std::vector<std::uint64_t> dims;
  if (count > 1) dims.push_back(static_cast<std::uint64_t>(count));
  if (two_d) dims.push_back(static_cast<std::uint64_t>(e.rows));
  dims.push_back(static_cast<std::uint64_t>(e.cols));
  return dims;
}

std::string layout_of(bool batch, bool two_d, const char* item, const char* axis) {
  std::string text = batch ? std::string("[") + item + "]" : "";
  text += two_d ? "[row][col], col fastest" : std::string("[") + axis + "]";
  return text;
}

// What a failed check says about an operand or a method key, given the file or parameter that
// set it: check_problem's and the solver's keys ("signal", "filters", "block") are not the
// parameter file's.
InputError rephrased(const io::ParamTable& t, const Params& p, const InputError& e) {
  const std::string& key = e.key();
  if (key == "mode") return InputError(t.source_of("problem.mode"), "problem.mode", e.expected());
  if (key == "block" || key == "variant" || key == "piece" || key == "streamed")
    return InputError(t.source_of("method." + key), "method." + key, e.expected());
  if (key == "signal" || key == "filter" || key == "filters") {
    const bool signal = key == "signal";
    if (signal ? p.signal_generated() : p.filter_generated())
      return InputError(t.source_of(key), signal ? "signal" : "filter", e.expected());
    const std::string& file = signal ? p.signal.file : p.filter.file;
    const std::string& dataset = signal ? p.signal.dataset : p.filter.dataset;
    return InputError(file, io::dataset_display_path(dataset),
                      e.expected() + (signal ? " (signal.dataset)" : " (filter.dataset)"));
  }
  return InputError(t.source_of(key), key, e.expected());
}

template <class T>
struct Operands {
  Problem problem;
  std::vector<T> signal;  // batch * signal.size() values; empty when streamed from a file
  std::vector<T> filter;  // filters * filter.size() values
};

// The signal dataset: its values, or (streamed) only its extent, checked to be one 1D signal.
template <class T>
void read_signal(const Params& p, Operands<T>& ops) {
  const std::unique_ptr<io::ResultReader> in = io::open_input_file(p.signal.file);
  const std::string& dataset = p.signal.dataset;
  std::vector<std::uint64_t> dims;
  if (p.streamed) {
    dims = from_input("signal.dataset", [&] { return in->dataset_dims<T>(dataset, {1}); });
  } else {
    io::Dataset<T> d =
        from_input("signal.dataset", [&] { return in->read_dataset<T>(dataset, {1, 2, 3}); });
    dims = d.dims;
    ops.signal = std::move(d.values);
  }
  if (std::find(dims.begin(), dims.end(), 0) != dims.end())
    throw InputError(p.signal.file, io::dataset_display_path(dataset),
                     "has shape " + io::shape_text(dims) + "; expected at least one sample");
  require_finite(ops.signal.data(), static_cast<std::int64_t>(ops.signal.size()), 0,
                 p.signal.file, dataset);
  const Stack stack = stack_of(dims, p.signal.layout);
  ops.problem.batch = stack.count;
  ops.problem.signal = stack.extent;
}

template <class T>
void read_filter(const Params& p, Operands<T>& ops) {
  const std::unique_ptr<io::ResultReader> in = io::open_input_file(p.filter.file);
  const std::string& dataset = p.filter.dataset;
  io::Dataset<T> d =
      from_input("filter.dataset", [&] { return in->read_dataset<T>(dataset, {1, 2, 3}); });
  if (d.values.empty())
    throw InputError(p.filter.file, io::dataset_display_path(dataset),
                     "has shape " + io::shape_text(d.dims) + "; expected at least one tap");
  require_finite(d.values.data(), static_cast<std::int64_t>(d.values.size()), 0, p.filter.file,
                 dataset);
  const Stack stack = stack_of(d.dims, p.filter.layout);
  ops.problem.filters = stack.count;
  ops.problem.filter = stack.extent;
  ops.filter = std::move(d.values);
}

// The signal and filter the parameters describe, with the checks that need their sizes.
template <class T>
Operands<T> make_operands(const io::ParamTable& t, const Params& p) {
  Operands<T> ops;
  ops.problem.mode = p.mode;
  ops.problem.operation = p.operation;
  if (p.signal_generated()) {
    ops.problem.batch = p.signal.batch;
    ops.problem.signal = {p.signal.rows, p.signal.length};
  } else {
    read_signal(p, ops);
  }
  if (p.filter_generated()) {
    ops.problem.filter = {p.filter.rows, p.filter.length};
    ops.filter = fftconv::generate_filter<T>(p.filter);
  } else {
    read_filter(p, ops);
  }
  try {
    fftconv::check_problem(ops.problem);
    fftconv::check_method(p, ops.problem);
  } catch (const InputError& e) {
    throw rephrased(t, p, e);
  }
  // Generated last: a mistake in a file is reported before seconds go into a long signal.
  if (p.signal_generated()) ops.signal = fftconv::generate_signal<T>(p.signal);
  return ops;
}

// ---------------------------------------------------------------------------------------------
// Sizes, descriptions, the check.

template <class T>
constexpr int kBytes = static_cast<int>(sizeof(T));

double samples(std::int64_t count, const Extent& e) {
  return static_cast<double>(count) * static_cast<double>(e.size());
}

// The key a size complaint is reported against: what set the signal's size.
const char* size_key(const Params& p) { return p.signal_generated() ? "signal" : "signal.file"; }

// Signal, filter and output, and with the gold (CPU runs, --check, sweeps) its output in double.
void check_fits_host(const io::ParamTable& t, const Params& p, const Problem& q, int element,
                     bool gold) {
  const double host = host_memory_bytes();
  const double out = samples(q.batch, fftconv::output_extent(q));
  const double need = element * (samples(q.batch, q.signal) + samples(q.filters, q.filter) + out) +
                      (gold ? 8.0 * out : 0.0);
  if (need > host)
    throw InputError(t.source_of(size_key(p)), size_key(p),
                     "the signal, filter and output need about " + gib(need) +
                         " of host memory; this machine has " + gib(host));
}

// The operands and the output, and about two complex spectra per signal at the padded full
// extent: the FFT variants' working set (direct needs less).
void check_fits_device(const io::ParamTable& t, const Params& p, const Problem& q, int element) {
  const DeviceInfo device = current_device();
  Problem full = q;
  full.mode = fftconv::Mode::full;
  const Extent e = fftconv::output_extent(full);
  const double padded = static_cast<double>(fftconv::good_fft_length(e.rows)) *
                        static_cast<double>(fftconv::good_fft_length(e.cols));
  const double need = element * (samples(q.batch, q.signal) + samples(q.filters, q.filter) +
                                 samples(q.batch, fftconv::output_extent(q))) +
                      4.0 * element * static_cast<double>(q.batch) * padded;
  if (need > static_cast<double>(device.free_memory))
    throw InputError(t.source_of(size_key(p)), size_key(p),
                     "the signal, filter, output and spectra need about " + gib(need) +
                         " on the device; " + device.name + " has " +
                         gib(static_cast<double>(device.free_memory)) + " free" +
                         (q.is_2d() || q.batch > 1 ? "" : " (method.streamed = true needs less)"));
}

std::string counted(std::int64_t n, const std::string& noun) {
  return std::to_string(n) + " " + noun + (n == 1 ? "" : "s");
}

std::string describe(const Params& p, const Problem& q) {
  char text[256];
  std::string signal = counted(q.batch, q.is_2d() ? "image" : "signal") + " of " +
                       extent_text(q.signal) + " samples";
  if (!p.signal_generated()) {
    signal += " from " + p.signal.file + ":" + io::dataset_display_path(p.signal.dataset);
  } else if (p.signal.kind == SignalKind::noise) {
    std::snprintf(text, sizeof text, " (noise, sigma %g)", p.signal.amplitude);
    signal += text;
  } else {
    std::snprintf(text, sizeof text, " (chirp from %g to %g cycles/sample, noise %g)",
                  p.signal.f0, p.signal.f1, p.signal.noise);
    signal += text;
  }
  std::string filter;
  if (p.filter.kind == FilterKind::file) {
    filter = counted(q.filters, "filter") + " of " + extent_text(q.filter) + " taps from " +
             p.filter.file + ":" + io::dataset_display_path(p.filter.dataset);
  } else if (p.filter.kind == FilterKind::box) {
    filter = "a " + extent_text(q.filter) + "-tap box";
  } else {
    std::snprintf(text, sizeof text, " (sigma %g)",
                  fftconv::gaussian_sigma(p.filter, q.filter.cols));
    filter = "a " + extent_text(q.filter) + "-tap Gaussian" + text;
  }
  return std::string(name(q.operation)) + " (" + std::string(name(q.mode)) + ") of " + signal +
         " with " + filter + ", " + std::string(name(p.precision));
}

// The difference from the gold, gathered piece by piece: a streamed output is never whole.
class GoldDifference {
 public:
  template <class T>
  void add(const T* result, const std::vector<double>& gold) {
    for (std::size_t i = 0; i < gold.size(); ++i) {
      const double e = static_cast<double>(result[i]) - gold[i];
      nan_ = nan_ || std::isnan(e);
      max_abs_ = std::max(max_abs_, std::abs(e));
      sum_sq_ += e * e;
      scale_ = std::max(scale_, std::abs(gold[i]));
    }
    count_ += static_cast<double>(gold.size());
  }
  // NaN anywhere makes both NaN: it must not pass as agreement.
  FieldDifference difference() const {
    if (nan_) return {NAN, NAN};
    return {max_abs_, count_ > 0 ? std::sqrt(sum_sq_ / count_) : 0.0};
  }
  // Relative to max |gold|; an all-zero gold must be matched exactly.
  double relative() const {
    const double d = difference().max_abs;
    return scale_ > 0 ? d / scale_ : d;
  }

 private:
  double max_abs_ = 0, sum_sq_ = 0, scale_ = 0, count_ = 0;
  bool nan_ = false;
};

void report_check(io::ResultFile& out, const GoldDifference& diff, double tolerance) {
  const FieldDifference d = diff.difference();
  const double relative = diff.relative();
  write_check(out, d, "double");
  out.set_attribute("/check", "max_relative_difference", relative);
  out.set_attribute("/check", "tolerance", tolerance);
  char line[256];
  std::snprintf(line, sizeof line,
                "  check against the CPU gold (direct sums in double): max abs diff %.3g, rms diff "
                "%.3g, max relative to max|gold| %.3g%s\n",
                d.max_abs, d.rms, relative,
                relative <= tolerance ? "" : (" (above " + shown(tolerance) +
                                              ": suspect the solver)").c_str());
  std::cout << line;
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

// An extent as an attribute: [rows, cols].
std::vector<std::int64_t> rows_cols(const Extent& e) { return {e.rows, e.cols}; }

// /output's attributes: what was computed, by what, and where it lies in the full convolution.
void describe_output(io::ResultFile& out, const Problem& q, const std::string& variant) {
  const Extent offset = fftconv::output_offset(q);
  out.set_attribute("/output", "mode", std::string(name(q.mode)));
  out.set_attribute("/output", "operation", std::string(name(q.operation)));
  out.set_attribute("/output", "variant", variant);
  out.set_attribute("/output", "layout",
                    layout_of(q.batch > 1, q.is_2d(), "signal", "sample"));
  out.set_attribute("/output", "batch", q.batch);
  out.set_attribute("/output", "filters", q.filters);
  out.set_attribute("/output", "signal_extent", rows_cols(q.signal));
  out.set_attribute("/output", "filter_extent", rows_cols(q.filter));
  out.set_attribute("/output", "offset", rows_cols(offset));
}

void describe_input(io::ResultFile& out, const Params& p) {
  out.set_attribute("/input", "signal_source",
                    p.signal_generated() ? std::string(name(p.signal.kind)) : p.signal.file);
  out.set_attribute("/input", "filter_source",
                    p.filter_generated() ? std::string(name(p.filter.kind)) : p.filter.file);
}

template <class T>
void write_filter(io::ResultFile& out, const Problem& q, const std::vector<T>& filter) {
  out.write_field("/input/filter", filter.data(), stored_dims(q.filters, q.filter, q.is_2d()));
  out.set_attribute("/input/filter", "layout",
                    layout_of(q.filters > 1, q.is_2d(), "filter", "tap"));
}

// ---------------------------------------------------------------------------------------------
// run

template <class T>
int run_whole(const io::ParamTable& t, const Params& p, Operands<T>& ops, bool gpu,
              const RunOptions& options, io::ResultFile& out) {
  const Problem& q = ops.problem;
  fftconv::Result<T> result;
  std::vector<double> gold;
  if (gpu) {
    try {
      result = fftconv::convolve_gpu(q, {p.variant, p.block}, ops.signal, ops.filter);
    } catch (const InputError& e) {
      throw rephrased(t, p, e);
    }
  } else {
    const auto start = std::chrono::steady_clock::now();
    gold = fftconv::convolve_gold(q, ops.signal, ops.filter);
    result.timings.compute = seconds_since(start);
    result.output = rounded<T>(gold);
  }
  const double rate = result.timings.compute > 0
                          ? samples(q.batch, q.signal) / result.timings.compute
                          : 0.0;
  out.set_attribute("/timings", "host_to_device_s", result.timings.host_to_device);
  out.set_attribute("/timings", "compute_s", result.timings.compute);
  out.set_attribute("/timings", "device_to_host_s", result.timings.device_to_host);
  if (gpu) out.set_attribute("/timings", "setup_s", result.timings.setup);
  out.set_attribute("/timings", "gsamples_per_s", 1e-9 * rate);

  const auto [low, high] = std::minmax_element(result.output.begin(), result.output.end());
  char line[256];
  std::snprintf(line, sizeof line, "  %s%s: output from %.6g to %.6g; %.3g s, %.3g G samples/s\n",
                gpu ? "ran " : "", gpu ? std::string(name(result.variant)).c_str() : "gold",
                static_cast<double>(*low), static_cast<double>(*high), result.timings.compute,
                1e-9 * rate);
  std::cout << line;

  if (options.check) {
    if (gold.empty()) gold = fftconv::convolve_gold(q, ops.signal, ops.filter);
    GoldDifference diff;
    diff.add(result.output.data(), gold);
    report_check(out, diff, kTolerance<T>);
  }

  out.write_field("/output", result.output.data(),
                  stored_dims(q.batch, fftconv::output_extent(q), q.is_2d()));
  describe_output(out, q, gpu ? std::string(name(result.variant)) : "cpu-gold");
  if (p.write_input) {
    out.write_field("/input/signal", ops.signal.data(), stored_dims(q.batch, q.signal, q.is_2d()));
    out.set_attribute("/input/signal", "layout",
                      layout_of(q.batch > 1, q.is_2d(), "signal", "sample"));
    write_filter(out, q, ops.filter);
  }
  describe_input(out, p);
  return 0;
}

// A streamed run's output as it arrives, in order: gathered into runs of whole chunks before
// each write (so no compressed chunk is written twice), with its range, so that the whole
// output is never held.
template <class T>
class StreamedOutput {
 public:
  StreamedOutput(io::ResultFile& out, std::string dataset, std::int64_t length)
      : out_(out), dataset_(std::move(dataset)), length_(length) {
    out_.create_dataset<T>(dataset_, static_cast<std::uint64_t>(length_));
    buffer_.reserve(static_cast<std::size_t>(std::min(length_, kFlushSamples)));
  }

  void write(std::int64_t offset, std::int64_t count, const T* values) {
    const std::int64_t next = written_ + static_cast<std::int64_t>(buffer_.size());
    if (offset != next || count < 0 || count > length_ - offset)
      throw Error("fftconv: streamed output samples [" + std::to_string(offset) + ", " +
                  std::to_string(offset + count) + ") arrived where sample " +
                  std::to_string(next) + " of " + std::to_string(length_) + " was due");
    for (std::int64_t i = 0; i < count; ++i) {
      low_ = std::min(low_, static_cast<double>(values[i]));
      high_ = std::max(high_, static_cast<double>(values[i]));
      buffer_.push_back(values[i]);
      if (static_cast<std::int64_t>(buffer_.size()) == kFlushSamples) flush();
    }
  }

  // Writes what is left; the output must be complete.
  void finish() {
    flush();
    if (written_ != length_)
      throw Error("fftconv: the streamed output stopped at sample " + std::to_string(written_) +
                  " of " + std::to_string(length_));
  }

  double low() const { return low_; }
  double high() const { return high_; }

 private:
  void flush() {
    out_.write_slab(dataset_, static_cast<std::uint64_t>(written_), buffer_.data(),
                    buffer_.size());
    written_ += static_cast<std::int64_t>(buffer_.size());
    buffer_.clear();
  }

  io::ResultFile& out_;
  std::string dataset_;
  std::int64_t length_;
  std::int64_t written_ = 0;
  std::vector<T> buffer_;
  double low_ = std::numeric_limits<double>::infinity();
  double high_ = -std::numeric_limits<double>::infinity();
};

// Output samples [first, first + count) of a 1D problem with one filter, by the gold: the signal
// samples they reach (zeros past its ends), fetched by `fetch(offset, count, into)`, convolved
// in valid mode. What a streamed run is checked against, and what it computes on the CPU.
template <class T, class Fetch>
std::vector<double> gold_window(const Problem& q, const std::vector<T>& filter, std::int64_t first,
                                std::int64_t count, Fetch&& fetch) {
  const std::int64_t k = q.filter.cols;
  const std::int64_t start = fftconv::output_offset(q).cols + first - (k - 1);
  std::vector<T> window(static_cast<std::size_t>(count + k - 1), T(0));
  const std::int64_t begin = std::max<std::int64_t>(start, 0);
  const std::int64_t end = std::min(start + count + k - 1, q.signal.cols);
  if (begin < end) fetch(begin, end - begin, window.data() + (begin - start));
  Problem piece = q;
  piece.signal = {1, count + k - 1};
  piece.mode = fftconv::Mode::valid;
  return fftconv::convolve_gold(piece, window, filter);
}

template <class T>
int run_streamed(const io::ParamTable& t, const Params& p, Operands<T>& ops, bool gpu,
                 const RunOptions& options, io::ResultFile& out) {
  const Problem& q = ops.problem;
  const std::int64_t n = q.signal.cols;
  const std::int64_t length = fftconv::output_extent(q).cols;
  const std::unique_ptr<io::ResultReader> in =
      p.signal_generated() ? nullptr : io::open_input_file(p.signal.file);
  // Signal samples [offset, offset + count), from memory or by hyperslab from the input file.
  const auto fetch = [&](std::int64_t offset, std::int64_t count, T* into) {
    if (offset < 0 || count < 0 || count > n - offset)
      throw Error("fftconv: the streamed convolution asked for signal samples [" +
                  std::to_string(offset) + ", " + std::to_string(offset + count) + ") of " +
                  std::to_string(n));
    if (p.signal_generated()) {
      std::copy(ops.signal.begin() + offset, ops.signal.begin() + offset + count, into);
      return;
    }
    const std::vector<T> values = in->read_slab<T>(
        p.signal.dataset, static_cast<std::uint64_t>(offset), static_cast<std::uint64_t>(count));
    require_finite(values.data(), count, offset, p.signal.file, p.signal.dataset);
    std::copy(values.begin(), values.end(), into);
  };

  StreamedOutput<T> output(out, "/output", length);
  GoldDifference diff;
  double read_s = 0, write_s = 0, check_s = 0;
  const auto write = [&](std::int64_t offset, std::int64_t count, const T* values) {
    if (options.check && gpu) {
      const auto checking = std::chrono::steady_clock::now();
      diff.add(values, gold_window(q, ops.filter, offset, count, fetch));
      check_s += seconds_since(checking);
    }
    const auto writing = std::chrono::steady_clock::now();
    output.write(offset, count, values);
    write_s += seconds_since(writing);
  };

  const auto read = [&](std::int64_t offset, std::int64_t count, T* host) {
    const auto reading = std::chrono::steady_clock::now();
    fetch(offset, count, host);
    read_s += seconds_since(reading);
  };
  const auto start = std::chrono::steady_clock::now();
  if (gpu) {
    Stream stream;
    fftconv::Convolver<T> convolver;
    try {
      convolver.convolve_streamed(q, {Variant::overlap_save, p.block}, ops.filter, read, write,
                                  stream, p.piece);
    } catch (const InputError& e) {
      throw rephrased(t, p, e);
    }
    stream.synchronize();
  } else {
    for (std::int64_t first = 0; first < length; first += kCpuPiece) {
      const std::int64_t count = std::min(kCpuPiece, length - first);
      const std::vector<double> gold = gold_window(q, ops.filter, first, count, read);
      const std::vector<T> piece = rounded<T>(gold);
      // The output is the gold rounded to T: the check measures that rounding, as a whole run's.
      if (options.check) diff.add(piece.data(), gold);
      write(first, count, piece.data());
    }
  }
  output.finish();
  const double total_s = seconds_since(start) - check_s;
  const double rate = total_s > 0 ? static_cast<double>(n) / total_s : 0.0;
  out.set_attribute("/timings", "total_s", total_s);
  out.set_attribute("/timings", "read_s", read_s);
  out.set_attribute("/timings", "write_s", write_s);
  out.set_attribute("/timings", "gsamples_per_s", 1e-9 * rate);

  char line[256];
  std::snprintf(line, sizeof line,
                "  %s, streamed: output from %.6g to %.6g; %.3g s (reading %.3g s, writing %.3g "
                "s), %.3g G samples/s\n",
                gpu ? "ran overlap-save" : "gold", output.low(), output.high(), total_s, read_s,
                write_s, 1e-9 * rate);
  std::cout << line;
  if (options.check) report_check(out, diff, kTolerance<T>);

  describe_output(out, q, gpu ? std::string(name(Variant::overlap_save)) : "cpu-gold");
  out.set_attribute("/output", "streamed", true);
  if (p.write_input) {
    if (p.signal_generated()) {
      out.write_field("/input/signal", ops.signal.data(), {static_cast<std::uint64_t>(n)});
    } else {
      // Copied across in runs of whole chunks, as the output was written.
      out.create_dataset<T>("/input/signal", static_cast<std::uint64_t>(n));
      std::vector<T> run;
      for (std::int64_t first = 0; first < n; first += kFlushSamples) {
        run.resize(static_cast<std::size_t>(std::min(kFlushSamples, n - first)));
        fetch(first, static_cast<std::int64_t>(run.size()), run.data());
        out.write_slab("/input/signal", static_cast<std::uint64_t>(first), run.data(), run.size());
      }
    }
    out.set_attribute("/input/signal", "layout", layout_of(false, false, "signal", "sample"));
    write_filter(out, q, ops.filter);
  }
  describe_input(out, p);
  return 0;
}

template <class T>
int run_typed(io::ParamTable& t, const Params& p, const RunOptions& options) {
  Operands<T> ops = make_operands<T>(t, p);
  const Problem& q = ops.problem;
  const Backend backend = resolve_backend(options.backend);
  const bool gpu = backend == Backend::gpu;
  // A streamed run holds a piece at a time, and the signal only when it was generated.
  if (!p.streamed) {
    check_fits_host(t, p, q, kBytes<T>, !gpu || options.check);
    if (gpu) check_fits_device(t, p, q, kBytes<T>);
  }
  const std::filesystem::path path = output_path(options.output, options.params_path, "");
  io::ResultFile out(path, options.force, options.compression);
  write_parameters(out, t);
  write_provenance(out, "fftconv", backend, options.command_line);

  std::cout << "fftconv: " << describe(p, q) << "; "
            << (gpu ? std::string(name(p.streamed ? Variant::overlap_save : p.variant)) +
                          (p.streamed ? " streamed" : "") + " on " + current_device().name
                    : std::string("CPU gold solver") + (p.streamed ? ", streamed" : ""))
            << "\n";
  const int status = p.streamed ? run_streamed(t, p, ops, gpu, options, out)
                                : run_whole(t, p, ops, gpu, options, out);
  out.commit();
  std::cout << "  wrote " << path.string() << "\n";
  return status;
}

int run(io::ParamTable& t, const RunOptions& options) {
  const auto [p, sweep] = read_all(t, options.params_path);
  (void)sweep;
  return p.precision == Precision::single ? run_typed<float>(t, p, options)
                                          : run_typed<double>(t, p, options);
}

// ---------------------------------------------------------------------------------------------
// sweep

template <class T>
int sweep_typed(io::ParamTable& t, const Params& p, const SweepParams& s,
                const SweepOptions& options) {
  const Operands<T> ops = make_operands<T>(t, p);
  const Problem& q = ops.problem;
  check_fits_host(t, p, q, kBytes<T>, true);
  check_fits_device(t, p, q, kBytes<T>);
  const std::vector<double> gold = fftconv::convolve_gold(q, ops.signal, ops.filter);
  const std::filesystem::path path = output_path(options.output, options.params_path, "-sweep");
  io::ResultFile out(path, options.force, options.compression);
  write_parameters(out, t);
  write_provenance(out, "fftconv", Backend::gpu, options.command_line);

  const Variant chosen = fftconv::choose_variant(q, kBytes<T>);
  std::cout << "fftconv sweep: " << describe(p, q) << " on " << current_device().name << "; "
            << s.repeats << " timed convolutions each; auto picks " << name(chosen) << "\n";

  Stream stream;
  DeviceBuffer<T> d_signal(ops.signal.size()), d_filter(ops.filter.size());
  DeviceBuffer<T> d_output(static_cast<std::size_t>(q.batch * fftconv::output_extent(q).size()));
  PARASOL_CUDA(cudaMemcpyAsync(d_signal.data(), ops.signal.data(), d_signal.bytes(),
                               cudaMemcpyHostToDevice, stream));
  PARASOL_CUDA(cudaMemcpyAsync(d_filter.data(), ops.filter.data(), d_filter.bytes(),
                               cudaMemcpyHostToDevice, stream));
  std::vector<T> output(d_output.size());
  fftconv::Convolver<T> convolver;

  ResultsTable table({{"variant", "variant", 12},
                      {"ran", "ran", 12},
                      {"median_s", "median ms", 11, 4, 'f', 1e3},
                      {"gsamples_per_s", "Gsamples/s", 11, 2},
                      {"max_relative_difference", "max rel diff", 12, 2, 'g'}});
  const double signal_samples = samples(q.batch, q.signal);
  for (const Variant v : s.variants) {
    if (!fftconv::supports(v, q)) {
      std::cout << "  " << name(v) << " skipped: it takes 1D problems only\n";
      continue;
    }
    const bool takes_block = v == Variant::overlap_save || v == Variant::automatic;
    const fftconv::Options o{v, takes_block ? p.block : 0};
    const auto convolve = [&] {
      return convolver.convolve(q, o, d_signal.data(), d_filter.data(), d_output.data(), stream);
    };
    try {
      // Checked first on an output poisoned with NaN, so an unwritten sample cannot pass; this
      // is also the warm-up (plans made, scratch allocated).
      fill_bytes(d_output, 0xFF, stream);
      const Variant ran = convolve();
      PARASOL_CUDA(cudaMemcpyAsync(output.data(), d_output.data(), d_output.bytes(),
                                   cudaMemcpyDeviceToHost, stream));
      stream.synchronize();
      GoldDifference diff;
      diff.add(output.data(), gold);
      const double relative = diff.relative();
      const double m = median(timed_runs(stream, s.repeats, convolve));
      table.add({std::string(name(v)), std::string(name(ran)), m, 1e-9 * signal_samples / m,
                 relative},
                m, relative <= kTolerance<T>);
    } catch (const InputError& e) {
      std::cout << "  " << name(v) << " skipped: " << e.expected() << "\n";
    } catch (const CudaError& e) {
      // A launch the device refuses fails its row; the context survives, so the study goes on.
      // A fault that poisons the context ends it.
      if (e.sticky()) throw;
      std::cout << "  " << name(v) << ": " << e.what() << "\n";
      const double nan = std::numeric_limits<double>::quiet_NaN();
      table.add({std::string(name(v)), std::string("-"), nan, nan, nan}, nan, false);
    }
  }
  if (table.empty())
    throw InputError(t.source_of("sweep.variants"), "sweep.variants",
                     "no listed variant can take this problem (the signal is " +
                         extent_text(q.signal) + " and the filter " + extent_text(q.filter) +
                         ")");
  table.print(std::cout);
  table.write(out, "/sweep");
  out.set_attribute("/sweep", "auto_variant", std::string(name(chosen)));
  out.set_attribute("/sweep", "batch", q.batch);
  out.set_attribute("/sweep", "filters", q.filters);
  out.set_attribute("/sweep", "signal_extent", rows_cols(q.signal));
  out.set_attribute("/sweep", "filter_extent", rows_cols(q.filter));
  out.set_attribute("/sweep", "mode", std::string(name(q.mode)));
  out.set_attribute("/sweep", "operation", std::string(name(q.operation)));
  out.set_attribute("/sweep", "check_tolerance", kTolerance<T>);
  out.commit();
  std::cout << "  wrote " << path.string() << "\n";
  return table.all_passed() ? 0 : 1;
}

int sweep(io::ParamTable& t, const SweepOptions& options) {
  const auto [p, s] = read_all(t, options.params_path);
  if (p.streamed)
    throw InputError(t.source_of("method.streamed"), "method.streamed",
                     "parasol sweep times convolutions of data held on the device; expected false");
  std::string reason;
  if (!gpu_available(&reason))
    throw Error("parasol sweep times GPU kernels and needs a device: " + reason);
  return p.precision == Precision::single ? sweep_typed<float>(t, p, s, options)
                                          : sweep_typed<double>(t, p, s, options);
}

}  // namespace

SolverApp fftconv_app() {
  return {"fftconv",
          "convolution and correlation of signals and images with filters through cuFFT, "
          "scipy's modes",
          run, sweep};
}

}  // namespace parasol::app
