#include "solvers/fftconv/inputs.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "io/input_file.hpp"
#include "kernels/printable.hpp"
#include "kernels/validate.hpp"
#include "solvers/fftconv/keys.hpp"
#include "solvers/fftconv/signals.hpp"

namespace parasol::fftconv {
namespace {

// An operand's file, opened. One that is missing is named by its key (`signal.file` for
// `signal.dataset`'s file); one that is another run's result by the docs' convention,
// results/<name>.h5 beside inputs/<name>.toml, also says the command that makes it.
std::unique_ptr<io::ResultReader> open_operand(const std::string& file,
                                               const std::string& dataset_key) {
  const std::string key = dataset_key.substr(0, dataset_key.find('.')) + ".file";
  const std::filesystem::path path = std::filesystem::path(file).lexically_normal();
  std::error_code ec;
  if (std::filesystem::exists(path, ec)) return io::open_input_file(file, key);
  std::string expected = "no such file";
  const std::filesystem::path results = path.parent_path();
  const std::filesystem::path input =
      results.parent_path() / "inputs" / (path.stem().string() + ".toml");
  if (results.filename() == "results" && path.extension() == ".h5" &&
      std::filesystem::is_regular_file(input, ec))
    expected += "; make it first, from " + results.parent_path().string() + ": parasol run inputs/" +
                input.filename().string() + " -o results/" + path.filename().string();
  throw InputError(file, key, expected);
}

// fftconv's operand files read through io/: the messages name the file, the dataset and the key.
template <class T>
class HdfOperands final : public OperandFiles<T> {
 public:
  std::vector<std::uint64_t> dims(const std::string& file, const std::string& dataset,
                                  const char* key, const std::vector<int>& ranks,
                                  const char* least) const override {
    const std::unique_ptr<io::ResultReader> in = open_operand(file, key);
    const std::vector<std::uint64_t> dims =
        io::naming_key(key, [&] { return in->dataset_dims<T>(dataset, ranks); });
    if (std::find(dims.begin(), dims.end(), 0) != dims.end())
      throw InputError(file, io::dataset_display_path(dataset),
                       "has shape " + io::shape_text(dims) + "; expected at least " + least);
    return dims;
  }

  std::vector<T> values(const std::string& file, const std::string& dataset,
                        const char* key) const override {
    const std::unique_ptr<io::ResultReader> in = open_operand(file, key);
    std::vector<T> values =
        io::naming_key(key, [&] { return in->read_dataset<T>(dataset, {1, 2, 3}).values; });
    io::require_finite(values.data(), static_cast<std::int64_t>(values.size()), 0, file, dataset);
    return values;
  }

  std::vector<T> rows(const std::string& file, const std::string& dataset, const char* key,
                      std::int64_t first, std::int64_t count, std::int64_t size) const override {
    const std::unique_ptr<io::ResultReader> in = open_operand(file, key);
    std::vector<T> values = io::naming_key(key, [&] {
      return in->read_rows<T>(dataset, static_cast<std::uint64_t>(first),
                              static_cast<std::uint64_t>(count), {2, 3});
    });
    io::require_finite(values.data(), static_cast<std::int64_t>(values.size()), first * size,
                       file, dataset);
    return values;
  }

  // The file stays open while the run reads: the slab holds it.
  typename OperandFiles<T>::Slab slab(const std::string& file, const std::string& dataset,
                                               const char* key) const override {
    std::shared_ptr<io::ResultReader> in = open_operand(file, key);
    return [in, file, dataset](std::int64_t offset, std::int64_t count, T* into) {
      const std::vector<T> values = in->read_slab<T>(dataset, static_cast<std::uint64_t>(offset),
                                                     static_cast<std::uint64_t>(count));
      io::require_finite(values.data(), count, offset, file, dataset);
      std::copy(values.begin(), values.end(), into);
    };
  }
};

std::string counted(std::int64_t n, const std::string& noun) {
  return std::to_string(n) + " " + noun + (n == 1 ? "" : "s");
}

// The operands as the summary names them: "<signals> of <extent> samples" and where they come
// from or how they are made, then the filter: "<filters> of <extent> taps" from a file, or how
// it is made.
std::string described(const Params& p, const std::string& signals, const std::string& signal_extent,
                      const std::string& filters, const std::string& filter_extent,
                      std::int64_t filter_cols) {
  std::string signal = signals + " of " + signal_extent + " samples";
  if (!p.signal_generated()) {
    signal += " from " + p.signal.file + ":" + io::dataset_display_path(p.signal.dataset);
  } else if (p.signal.kind == SignalKind::noise) {
    signal += formatted(" (noise, sigma %g)", p.signal.amplitude);
  } else {
    signal += formatted(" (chirp from %g to %g cycles/sample, noise %g)", p.signal.f0,
                        p.signal.f1, p.signal.noise);
  }
  std::string filter;
  if (p.filter.kind == FilterKind::file) {
    filter = filters + " of " + filter_extent + " taps from " + p.filter.file + ":" +
             io::dataset_display_path(p.filter.dataset);
  } else if (p.filter.kind == FilterKind::box) {
    filter = "a " + filter_extent + "-tap box";
  } else {
    filter = "a " + filter_extent + "-tap Gaussian" +
             formatted(" (sigma %g)", gaussian_sigma(p.filter, filter_cols));
  }
  return std::string(name(p.operation)) + " (" + std::string(name(p.mode)) + ") of " + signal +
         " with " + filter + ", " + std::string(name(p.precision));
}

}  // namespace

template <class T>
const OperandFiles<T>& operand_files() {
  static const HdfOperands<T> files;
  return files;
}

// The solver's checks name an operand ("signal", "filters"), or a key by its last word ("block").
InputError rephrased(const Params& p, const InputError& e) {
  if (!e.source().empty()) return e;
  const std::string& key = e.key();
  if (key == "signal" || key == "filter" || key == "filters") {
    const bool signal = key == "signal";
    if (signal ? p.signal_generated() : p.filter_generated())
      return InputError("", signal ? "signal" : "filter", e.expected());
    const std::string& file = signal ? p.signal.file : p.filter.file;
    const std::string& dataset = signal ? p.signal.dataset : p.filter.dataset;
    return InputError(file, io::dataset_display_path(dataset),
                      e.expected() + (signal ? " (signal.dataset)" : " (filter.dataset)"));
  }
  return InputError("", file_key(key), e.expected());
}

namespace {

// A generated filter is made from its taps along each axis in double (generate_filter), held
// beside it while it is made: checked alone first, so a filter too long is named as such.
void add_filter_need(std::vector<MemoryNeed>& needs, const Params& p, double filter_bytes) {
  if (!p.filter_generated()) return;
  const Filter& f = p.filter;
  const double making = 8.0 * (static_cast<double>(f.length) + static_cast<double>(f.rows) +
                               static_cast<double>(f.depth));
  const std::string key =
      f.depth > 1 ? "filter.depth" : f.rows > 1 ? "filter.rows" : "filter.length";
  needs.push_back(
      {"filter.length", key, "the filter and its making need", filter_bytes + making, false, ""});
}

// A need of the host's memory (or with `device`, the device's), said against `key`.
MemoryNeed need(const std::string& key, const std::string& what, double bytes, bool device = false,
                const std::string& hint = "") {
  return {key, key, what, bytes, device, hint};
}

double samples(std::int64_t count, const Extent& e) {
  return static_cast<double>(count) * static_cast<double>(e.size());
}

}  // namespace

std::vector<MemoryNeed> memory_needs(const Params& p, const Problem& q, double element, bool gpu,
                                     bool gold) {
  std::vector<MemoryNeed> needs;
  const double filter_bytes = element * samples(q.filters, q.filter);
  add_filter_need(needs, p, filter_bytes);
  const std::string key = size_key(p);
  const double operands = element * (samples(q.batch, q.signal) + samples(q.filters, q.filter));
  const double out = samples(q.batch, output_extent(q));
  if (p.streamed) {
    // The filter whole, and the gold's window of the signal (the filter's length more than a
    // chunk's outputs).
    const double window = gold ? element * static_cast<double>(q.filter.cols) : 0.0;
    if (p.signal_generated()) {
      needs.push_back(need(key, "the signal and filter need", operands + window));
    } else {
      const std::string filter_key = p.filter_generated() ? "filter.length" : "filter.file";
      needs.push_back(
          need(filter_key, "the filter and the gold's window need", filter_bytes + window));
    }
    return needs;
  }
  needs.push_back(need(key, "the signal, filter and output need",
                            operands + element * out + (gold ? 8.0 * out : 0.0)));
  if (!gpu) return needs;
  Problem full = q;
  full.mode = Mode::full;
  const Extent e = output_extent(full);
  const double padded = static_cast<double>(good_fft_length(e.rows)) *
                        static_cast<double>(good_fft_length(e.cols));
  needs.push_back(need(key, "the signal, filter, output and spectra need",
                       operands + element * (out + 4.0 * static_cast<double>(q.batch) * padded),
                       true,
                       q.is_2d() || q.batch > 1 ? "" : " (method.streamed = true needs less)"));
  return needs;
}

template <class T>
Problem problem_of(const Params& p) {
  const Problem q = operand_extents(p, operand_files<T>());
  try {
    check_problem(q);
    check_method(p, q);
  } catch (const InputError& e) {
    throw rephrased(p, e);
  }
  return q;
}

std::string describe(const Params& p, const Problem& q) {
  return described(p, counted(q.batch, q.is_2d() ? "image" : "signal"), extent_text(q.signal),
                   counted(q.filters, "filter"), extent_text(q.filter), q.filter.cols);
}

template <class T>
VolumeProblem volume_problem_of(const Params& p) {
  const VolumeProblem q = volume_extents(p, operand_files<T>());
  try {
    check_problem(q);
  } catch (const InputError& e) {
    throw rephrased(p, e);
  }
  return q;
}

std::vector<MemoryNeed> volume_memory_needs(const Params& p, const VolumeProblem& q,
                                            double element, bool gpu, bool gold) {
  std::vector<MemoryNeed> needs;
  add_filter_need(needs, p, element * static_cast<double>(q.filter.size()));
  const std::string key = size_key(p);
  const double operands = element * static_cast<double>(q.signal.size() + q.filter.size());
  const double out = static_cast<double>(output_extent(q).size());
  needs.push_back(need(key, "the signal, filter and output need",
                            operands + element * out + (gold ? 8.0 * out : 0.0)));
  // The transforms go along z in chunks as the device's memory allows; the operands and the
  // output stay whole.
  if (gpu)
    needs.push_back(
        need(key, "the signal, filter and output need", operands + element * out, true));
  return needs;
}

std::string describe_volume(const Params& p, const VolumeProblem& q) {
  return described(p, "a volume", extent_text(q.signal), "a filter", extent_text(q.filter),
                   q.filter.cols);
}

template VolumeProblem volume_problem_of<float>(const Params&);
template VolumeProblem volume_problem_of<double>(const Params&);
template Problem problem_of<float>(const Params&);
template Problem problem_of<double>(const Params&);
template const OperandFiles<float>& operand_files<float>();
template const OperandFiles<double>& operand_files<double>();

}  // namespace parasol::fftconv
