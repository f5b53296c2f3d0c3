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

// A dataset's extent, refused when it holds nothing. A streamed signal is one 1D signal.
template <class T>
std::vector<std::uint64_t> dims_of(const std::string& file, const std::string& dataset,
                                   const char* key, const std::vector<int>& ranks,
                                   const char* least) {
  const std::unique_ptr<io::ResultReader> in = open_operand(file, key);
  const std::vector<std::uint64_t> dims =
      io::naming_key(key, [&] { return in->dataset_dims<T>(dataset, ranks); });
  if (std::find(dims.begin(), dims.end(), 0) != dims.end())
    throw InputError(file, io::dataset_display_path(dataset),
                     "has shape " + io::shape_text(dims) + "; expected at least " + least);
  return dims;
}

template <class T>
std::vector<T> read_values(const std::string& file, const std::string& dataset, const char* key) {
  const std::unique_ptr<io::ResultReader> in = open_operand(file, key);
  std::vector<T> values =
      io::naming_key(key, [&] { return in->read_dataset<T>(dataset, {1, 2, 3}).values; });
  io::require_finite(values.data(), static_cast<std::int64_t>(values.size()), 0, file, dataset);
  return values;
}

// Rows [first, first + count) of a batch's dataset, checked to be finite.
template <class T>
std::vector<T> read_share(const std::string& file, const std::string& dataset, const char* key,
                          std::int64_t first, std::int64_t count, std::int64_t size) {
  const std::unique_ptr<io::ResultReader> in = open_operand(file, key);
  std::vector<T> values = io::naming_key(key, [&] {
    return in->read_rows<T>(dataset, static_cast<std::uint64_t>(first),
                            static_cast<std::uint64_t>(count), {2, 3});
  });
  io::require_finite(values.data(), static_cast<std::int64_t>(values.size()), first * size, file,
                 dataset);
  return values;
}

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

void settle_operand_keys(const io::ParamTable& t, Params& p) {
  // A volume problem reads every dataset as one volume: a layout left out is "volume", one
  // given otherwise is a contradiction.
  if (!p.is_volume()) return;
  const auto as_volume = [&](bool from_file, const char* key, Layout& layout) {
    if (!from_file) return;
    if (t.has(key) && layout != Layout::volume)
      throw InputError(t.source_of(key), key,
                       "the other operand is a volume, so this dataset is read as one; expected "
                       "\"volume\" or no layout, got \"" + std::string(name(layout)) + "\"");
    layout = Layout::volume;
  };
  as_volume(!p.signal_generated(), "signal.layout", p.signal.layout);
  as_volume(!p.filter_generated(), "filter.layout", p.filter.layout);
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

std::string size_key(const Params& p) { return p.signal_generated() ? "signal" : "signal.file"; }

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
  const std::string key = size_key(p);
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
  Problem q;
  q.mode = p.mode;
  q.operation = p.operation;
  if (p.signal_generated()) {
    q.batch = p.signal.batch;
    q.signal = {p.signal.rows, p.signal.length};
  } else {
    // A streamed run reads the signal by hyperslab: one 1D dataset.
    const std::vector<int> ranks = p.streamed ? std::vector<int>{1} : std::vector<int>{1, 2, 3};
    const Stack s = stack_of(
        dims_of<T>(p.signal.file, p.signal.dataset, "signal.dataset", ranks, "one sample"),
        p.signal.layout);
    q.batch = s.count;
    q.signal = s.extent;
  }
  if (p.filter_generated()) {
    q.filter = {p.filter.rows, p.filter.length};
  } else {
    const Stack s = stack_of(
        dims_of<T>(p.filter.file, p.filter.dataset, "filter.dataset", {1, 2, 3}, "one tap"),
        p.filter.layout);
    q.filters = s.count;
    q.filter = s.extent;
  }
  try {
    fftconv::check_problem(q);
    fftconv::check_method(p, q);
  } catch (const InputError& e) {
    throw rephrased(t, p, e);
  }
  return q;
}

bool draws_on_device(const Params& p, bool gpu, bool check) {
  return gpu && !check && !p.write_input && p.signal_generated() && !p.streamed;
}

// The filter first, and a file before a generated signal: a mistake in a file is reported
// before seconds go into a long signal.
template <class T>
Operands<T> load_operands(const Params& p, const Problem& q, bool on_device) {
  Operands<T> ops;
  ops.problem = q;
  ops.filter = p.filter_generated()
                   ? fftconv::generate_filter<T>(p.filter)
                   : read_values<T>(p.filter.file, p.filter.dataset, "filter.dataset");
  if (!p.signal_generated() && !p.streamed)
    ops.signal = read_values<T>(p.signal.file, p.signal.dataset, "signal.dataset");
  // A streamed run (or a rank's range) draws the stretches it reads as it reads them.
  ops.drawn = on_device && p.signal_generated() && !p.streamed;
  if (p.signal_generated() && !p.streamed && !ops.drawn)
    ops.signal = fftconv::generate_signal<T>(p.signal);
  return ops;
}

template <class T>
Operands<T> load_share(const Params& p, const Problem& q, std::int64_t first, std::int64_t count,
                       bool on_device) {
  Operands<T> ops;
  ops.problem = q;
  ops.problem.batch = count;
  const bool own_filters = q.filters == q.batch && q.batch > 1;
  if (own_filters) ops.problem.filters = count;
  if (p.filter_generated())
    ops.filter = fftconv::generate_filter<T>(p.filter);
  else if (own_filters)
    ops.filter = read_share<T>(p.filter.file, p.filter.dataset, "filter.dataset", first, count,
                               q.filter.size());
  else
    ops.filter = read_values<T>(p.filter.file, p.filter.dataset, "filter.dataset");
  ops.drawn = on_device && p.signal_generated() && !p.streamed;
  ops.first_drawn = first;
  if (ops.drawn) return ops;
  ops.signal = p.signal_generated()
                   ? fftconv::generate_signals<T>(p.signal, first, count)
                   : read_share<T>(p.signal.file, p.signal.dataset, "signal.dataset", first,
                                   count, q.signal.size());
  return ops;
}

template <class T>
SignalSource<T>::SignalSource(const Params& p, const Operands<T>& ops)
    : p_(p),
      ops_(ops),
      file_(p.signal_generated() ? nullptr : open_operand(p.signal.file, "signal.dataset")) {}

template <class T>
SignalSource<T>::~SignalSource() = default;

template <class T>
void SignalSource<T>::read(std::int64_t offset, std::int64_t count, T* into) const {
  const std::int64_t n = ops_.problem.signal.cols;
  if (offset < 0 || count < 0 || count > n - offset)
    throw Error("fftconv: the streamed convolution asked for signal samples [" +
                std::to_string(offset) + ", " + std::to_string(offset + count) + ") of " +
                std::to_string(n));
  if (!file_) {
    fftconv::generate_samples(p_.signal, offset, count, into);
    return;
  }
  const std::vector<T> values = file_->read_slab<T>(
      p_.signal.dataset, static_cast<std::uint64_t>(offset), static_cast<std::uint64_t>(count));
  io::require_finite(values.data(), count, offset, p_.signal.file, p_.signal.dataset);
  std::copy(values.begin(), values.end(), into);
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

namespace {

// A dataset read as a volume: [n] is 1 x 1 x n, [rows][cols] 1 x rows x cols.
fftconv::Extent3 volume_of(const std::vector<std::uint64_t>& dims) {
  std::int64_t e[3] = {1, 1, 1};
  for (std::size_t i = 0; i < dims.size(); ++i)
    e[3 - dims.size() + i] = static_cast<std::int64_t>(dims[i]);
  return {e[0], e[1], e[2]};
}

}  // namespace

template <class T>
VolumeProblem volume_problem_of(const io::ParamTable& t, const Params& p) {
  VolumeProblem q = fftconv::generated_volume(p);
  if (!p.signal_generated())
    q.signal = volume_of(
        dims_of<T>(p.signal.file, p.signal.dataset, "signal.dataset", {1, 2, 3}, "one sample"));
  if (!p.filter_generated())
    q.filter = volume_of(
        dims_of<T>(p.filter.file, p.filter.dataset, "filter.dataset", {1, 2, 3}, "one tap"));
  try {
    fftconv::check_problem(q);
  } catch (const InputError& e) {
    throw rephrased(t, p, e);
  }
  return q;
}

template <class T>
VolumeOperands<T> load_volume(const Params& p, const VolumeProblem& q) {
  VolumeOperands<T> ops;
  ops.problem = q;
  ops.filter = p.filter_generated()
                   ? fftconv::generate_filter<T>(p.filter)
                   : read_values<T>(p.filter.file, p.filter.dataset, "filter.dataset");
  ops.signal = p.signal_generated()
                   ? fftconv::generate_signal<T>(p.signal)
                   : read_values<T>(p.signal.file, p.signal.dataset, "signal.dataset");
  return ops;
}

void require_volume_memory(const io::ParamTable& t, const Params& p, const VolumeProblem& q,
                           double element, bool gpu, bool gold) {
  require_filter_memory(t, p, element * static_cast<double>(q.filter.size()));
  const std::string key = size_key(p);
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

std::vector<std::uint64_t> volume_dims(const fftconv::Extent3& e) {
  return {static_cast<std::uint64_t>(e.depth), static_cast<std::uint64_t>(e.rows),
          static_cast<std::uint64_t>(e.cols)};
}

std::string extent_text(const fftconv::Extent3& e) {
  return std::to_string(e.depth) + " x " + std::to_string(e.rows) + " x " +
         std::to_string(e.cols);
}

std::string extent_text(const Extent& e) {
  return e.rows == 1 ? std::to_string(e.cols)
                     : std::to_string(e.rows) + " x " + std::to_string(e.cols);
}

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

template VolumeProblem volume_problem_of<float>(const io::ParamTable&, const Params&);
template VolumeProblem volume_problem_of<double>(const io::ParamTable&, const Params&);
template VolumeOperands<float> load_volume<float>(const Params&, const VolumeProblem&);
template VolumeOperands<double> load_volume<double>(const Params&, const VolumeProblem&);
template void write_volume_inputs<float>(io::ResultFile&, const Params&,
                                         const VolumeOperands<float>&);
template void write_volume_inputs<double>(io::ResultFile&, const Params&,
                                          const VolumeOperands<double>&);
template Problem problem_of<float>(const io::ParamTable&, const Params&);
template Problem problem_of<double>(const io::ParamTable&, const Params&);
template Operands<float> load_operands<float>(const Params&, const Problem&, bool);
template Operands<double> load_operands<double>(const Params&, const Problem&, bool);
template Operands<float> load_share<float>(const Params&, const Problem&, std::int64_t,
                                         std::int64_t, bool);
template Operands<double> load_share<double>(const Params&, const Problem&, std::int64_t,
                                           std::int64_t, bool);
template void write_input_share<float>(Output&, const Params&, const Problem&,
                                        const Operands<float>&, std::int64_t);
template void write_input_share<double>(Output&, const Params&, const Problem&,
                                         const Operands<double>&, std::int64_t);
template class SignalSource<float>;
template class SignalSource<double>;
template void write_inputs<float>(io::ResultFile&, const Params&, const Operands<float>&,
                                  const SignalSource<float>*);
template void write_inputs<double>(io::ResultFile&, const Params&, const Operands<double>&,
                                   const SignalSource<double>*);

Reproducibility reproducibility(bool gpu) {
  if (!gpu) return {true, "the CPU gold sums each output in a fixed order"};
  return {true, "cuFFT's plans and the fused kernels run in a fixed order, without atomics, on "
                "one device model and CUDA version; ranks split whole signals"};
}

}  // namespace parasol::app::fftconv_inputs
