#include "apps/bindings/fftconv_inputs.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "apps/fits.hpp"
#include "io/input_file.hpp"
#include "io/streamed_dataset.hpp"
#include "kernels/validate.hpp"
#include "solvers/fftconv/keys.hpp"
#include "solvers/fftconv/signals.hpp"

namespace parasol::app::fftconv_inputs {
namespace {

using fftconv::FilterKind;
using fftconv::Layout;
using fftconv::SignalKind;

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
class HdfOperands final : public fftconv::OperandFiles<T> {
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
  typename fftconv::OperandFiles<T>::Slab slab(const std::string& file, const std::string& dataset,
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
             formatted(" (sigma %g)", fftconv::gaussian_sigma(p.filter, filter_cols));
  }
  return std::string(name(p.operation)) + " (" + std::string(name(p.mode)) + ") of " + signal +
         " with " + filter + ", " + std::string(name(p.precision));
}

// /input's attributes: where the signal and the filter came from.
void write_sources(io::ResultFile& out, const Params& p) {
  out.set_attribute("/input", "signal_source",
                    p.signal_generated() ? std::string(name(p.signal.kind)) : p.signal.file);
  out.set_attribute("/input", "filter_source",
                    p.filter_generated() ? std::string(name(p.filter.kind)) : p.filter.file);
}

}  // namespace

template <class T>
const fftconv::OperandFiles<T>& operand_files() {
  static const HdfOperands<T> files;
  return files;
}

// The solver's checks name an operand ("signal", "filters"), or a key by its last word ("block"):
// said against the declared key, or for an operand read from a file, the file and dataset. An
// error that names its source already (a streamed read of the input file) is kept.
InputError rephrased(const io::ParamTable& t, const Params& p, const InputError& e) {
  if (!e.source().empty()) return e;
  const std::string& key = e.key();
  if (key == "signal" || key == "filter" || key == "filters") {
    const bool signal = key == "signal";
    if (signal ? p.signal_generated() : p.filter_generated())
      return InputError(t.source_of(key), signal ? "signal" : "filter", e.expected());
    const std::string& file = signal ? p.signal.file : p.filter.file;
    const std::string& dataset = signal ? p.signal.dataset : p.filter.dataset;
    return InputError(file, io::dataset_display_path(dataset),
                      e.expected() + (signal ? " (signal.dataset)" : " (filter.dataset)"));
  }
  const std::string declared = fftconv::file_key(key);
  return InputError(t.source_of(declared), declared, e.expected());
}


// A generated filter is made from its taps along each axis in double (generate_filter), held
// beside it while it is made: checked alone first, so a filter too long is named as such.
void require_filter_memory(const io::ParamTable& t, const Params& p, double filter_bytes) {
  if (!p.filter_generated()) return;
  const fftconv::Filter& f = p.filter;
  const double making = 8.0 * (static_cast<double>(f.length) + static_cast<double>(f.rows) +
                               static_cast<double>(f.depth));
  const std::string key = f.depth > 1 ? "filter.depth" : f.rows > 1 ? "filter.rows" : "filter.length";
  require_host_memory(t.source_of("filter.length"), key, "the filter and its making need",
                      filter_bytes + making);
}

void require_memory(const io::ParamTable& t, const Params& p, const Problem& q, double element,
                    bool gpu, bool gold) {
  const auto samples = [](std::int64_t count, const Extent& e) {
    return static_cast<double>(count) * static_cast<double>(e.size());
  };
  const double filter_bytes = element * samples(q.filters, q.filter);
  require_filter_memory(t, p, filter_bytes);
  const std::string key = fftconv::size_key(p);
  const double operands = element * (samples(q.batch, q.signal) + samples(q.filters, q.filter));
  const double out = samples(q.batch, fftconv::output_extent(q));
  if (p.streamed) {
    // The filter whole, and the gold's window of the signal (the filter's length more than a
    // chunk's outputs).
    const double window = gold ? element * static_cast<double>(q.filter.cols) : 0.0;
    if (p.signal_generated())
      require_host_memory(t.source_of(key), key, "the signal and filter need",
                          operands + window);
    else {
      const std::string filter_key = p.filter_generated() ? "filter.length" : "filter.file";
      require_host_memory(t.source_of(filter_key), filter_key,
                          "the filter and the gold's window need", filter_bytes + window);
    }
    return;
  }
  require_host_memory(t.source_of(key), key, "the signal, filter and output need",
                      operands + element * out + (gold ? 8.0 * out : 0.0));
  if (!gpu) return;
  Problem full = q;
  full.mode = fftconv::Mode::full;
  const Extent e = fftconv::output_extent(full);
  const double padded = static_cast<double>(fftconv::good_fft_length(e.rows)) *
                        static_cast<double>(fftconv::good_fft_length(e.cols));
  require_device_memory(t.source_of(key), key, "the signal, filter, output and spectra need",
                        operands + element * (out + 4.0 * static_cast<double>(q.batch) * padded),
                        q.is_2d() || q.batch > 1 ? "" : " (method.streamed = true needs less)");
}

template <class T>
Problem problem_of(const io::ParamTable& t, const Params& p) {
  const Problem q = fftconv::operand_extents(p, operand_files<T>());
  try {
    fftconv::check_problem(q);
    fftconv::check_method(p, q);
  } catch (const InputError& e) {
    throw rephrased(t, p, e);
  }
  return q;
}

std::string describe(const Params& p, const Problem& q) {
  return described(p, counted(q.batch, q.is_2d() ? "image" : "signal"), extent_text(q.signal),
                   counted(q.filters, "filter"), extent_text(q.filter), q.filter.cols);
}

template <class T>
void write_inputs(io::ResultFile& out, const Params& p, const Operands<T>& ops,
                  const SignalSource<T>* source) {
  const std::int64_t run_samples = io::StreamedDataset<T>::kRunValues;
  const Problem& q = ops.problem;
  if (p.write_input) {
    if (source == nullptr) {
      out.write_field("/input/signal", ops.signal.data(),
                      stored_dims(q.batch, q.signal, q.is_2d()));
    } else {
      const std::int64_t n = q.signal.cols;
      out.create_dataset<T>("/input/signal", static_cast<std::uint64_t>(n));
      std::vector<T> run;
      for (std::int64_t first = 0; first < n; first += run_samples) {
        run.resize(static_cast<std::size_t>(std::min(run_samples, n - first)));
        source->read(first, static_cast<std::int64_t>(run.size()), run.data());
        out.write_slab("/input/signal", static_cast<std::uint64_t>(first), run.data(), run.size());
      }
    }
    out.set_attribute("/input/signal", "layout",
                      layout_of(q.batch > 1, q.is_2d(), "signal", "sample"));
    out.write_field("/input/filter", ops.filter.data(),
                    stored_dims(q.filters, q.filter, q.is_2d()));
    out.set_attribute("/input/filter", "layout",
                      layout_of(q.filters > 1, q.is_2d(), "filter", "tap"));
  }
  write_sources(out, p);
}

template <class T>
void write_input_share(Output& out, const Params& p, const Problem& whole, const Operands<T>& share,
                       std::int64_t first) {
  const Problem& q = whole;
  const auto rows = static_cast<std::uint64_t>(share.problem.batch);
  if (p.write_input) {
    out.write_rows("/input/signal", stored_dims(q.batch, q.signal, q.is_2d()),
                   static_cast<std::uint64_t>(first), rows, share.signal.data());
    if (q.filters > 1)
      out.write_rows("/input/filter", stored_dims(q.filters, q.filter, q.is_2d()),
                     static_cast<std::uint64_t>(first), rows, share.filter.data());
  }
  if (out.file == nullptr) return;
  if (p.write_input) {
    out.file->set_attribute("/input/signal", "layout",
                            layout_of(q.batch > 1, q.is_2d(), "signal", "sample"));
    if (q.filters == 1)
      out.file->write_field("/input/filter", share.filter.data(),
                            stored_dims(q.filters, q.filter, q.is_2d()));
    out.file->set_attribute("/input/filter", "layout",
                            layout_of(q.filters > 1, q.is_2d(), "filter", "tap"));
  }
  write_sources(*out.file, p);
}

template <class T>
VolumeProblem volume_problem_of(const io::ParamTable& t, const Params& p) {
  const VolumeProblem q = fftconv::volume_extents(p, operand_files<T>());
  try {
    fftconv::check_problem(q);
  } catch (const InputError& e) {
    throw rephrased(t, p, e);
  }
  return q;
}

void require_volume_memory(const io::ParamTable& t, const Params& p, const VolumeProblem& q,
                           double element, bool gpu, bool gold) {
  require_filter_memory(t, p, element * static_cast<double>(q.filter.size()));
  const std::string key = fftconv::size_key(p);
  const double operands = element * static_cast<double>(q.signal.size() + q.filter.size());
  const double out = static_cast<double>(fftconv::output_extent(q).size());
  require_host_memory(t.source_of(key), key, "the signal, filter and output need",
                      operands + element * out + (gold ? 8.0 * out : 0.0));
  // The transforms go along z in chunks as the device's memory allows; the operands and the
  // output stay whole.
  if (gpu)
    require_device_memory(t.source_of(key), key, "the signal, filter and output need",
                          operands + element * out, "");
}

std::string describe_volume(const Params& p, const VolumeProblem& q) {
  return described(p, "a volume", extent_text(q.signal), "a filter", extent_text(q.filter),
                   q.filter.cols);
}

template <class T>
void write_volume_inputs(io::ResultFile& out, const Params& p, const VolumeOperands<T>& ops) {
  const VolumeProblem& q = ops.problem;
  if (p.write_input) {
    out.write_field("/input/signal", ops.signal.data(), volume_dims(q.signal));
    out.set_attribute("/input/signal", "layout", std::string(kVolumeLayout));
    out.write_field("/input/filter", ops.filter.data(), volume_dims(q.filter));
    out.set_attribute("/input/filter", "layout", std::string(kVolumeLayout));
  }
  write_sources(out, p);
}

template VolumeProblem volume_problem_of<float>(const io::ParamTable&, const Params&);
template VolumeProblem volume_problem_of<double>(const io::ParamTable&, const Params&);
template void write_volume_inputs<float>(io::ResultFile&, const Params&,
                                         const VolumeOperands<float>&);
template void write_volume_inputs<double>(io::ResultFile&, const Params&,
                                          const VolumeOperands<double>&);
template Problem problem_of<float>(const io::ParamTable&, const Params&);
template Problem problem_of<double>(const io::ParamTable&, const Params&);
template const fftconv::OperandFiles<float>& operand_files<float>();
template const fftconv::OperandFiles<double>& operand_files<double>();
template void write_input_share<float>(Output&, const Params&, const Problem&,
                                        const Operands<float>&, std::int64_t);
template void write_input_share<double>(Output&, const Params&, const Problem&,
                                         const Operands<double>&, std::int64_t);
template void write_inputs<float>(io::ResultFile&, const Params&, const Operands<float>&,
                                  const SignalSource<float>*);
template void write_inputs<double>(io::ResultFile&, const Params&, const Operands<double>&,
                                   const SignalSource<double>*);

Reproducibility reproducibility(bool gpu) { return {true, fftconv::reproducibility_because(gpu)}; }

}  // namespace parasol::app::fftconv_inputs
