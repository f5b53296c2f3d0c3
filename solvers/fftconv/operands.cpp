#include "solvers/fftconv/operands.hpp"

#include <algorithm>
#include <chrono>

#include "kernels/error.hpp"
#include "kernels/phase_timer.hpp"
#include "kernels/precision.hpp"
#include "solvers/fftconv/signals.hpp"

namespace parasol::fftconv {
namespace {

// How many operands a dataset holds, and the extent of each.
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

// A dataset read as a volume: [n] is 1 x 1 x n, [rows][cols] 1 x rows x cols.
Extent3 volume_of(const std::vector<std::uint64_t>& dims) {
  std::int64_t e[3] = {1, 1, 1};
  for (std::size_t i = 0; i < dims.size(); ++i)
    e[3 - dims.size() + i] = static_cast<std::int64_t>(dims[i]);
  return {e[0], e[1], e[2]};
}

template <class T>
std::vector<T> filter_values(const Params& p, const OperandFiles<T>& files) {
  return p.filter_generated() ? generate_filter<T>(p.filter)
                              : files.values(p.filter.file, p.filter.dataset, "filter.dataset");
}

}  // namespace

void settle_volume_layouts(Params& p, bool signal_layout_given, bool filter_layout_given) {
  if (!p.is_volume()) return;
  const auto as_volume = [](bool from_file, bool given, const char* key, Layout& layout) {
    if (!from_file) return;
    if (given && layout != Layout::volume)
      throw InputError("", key,
                       "the other operand is a volume, so this dataset is read as one; expected "
                       "\"volume\" or no layout, got \"" + std::string(name(layout)) + "\"");
    layout = Layout::volume;
  };
  as_volume(!p.signal_generated(), signal_layout_given, "signal.layout", p.signal.layout);
  as_volume(!p.filter_generated(), filter_layout_given, "filter.layout", p.filter.layout);
}

std::string size_key(const Params& p) { return p.signal_generated() ? "signal" : "signal.file"; }

std::string cut_key(const Params& p, const Problem& q) {
  return !p.signal_generated() ? "signal.file" : q.batch > 1 ? "signal.batch" : "signal.length";
}

std::string volume_key(const Params& p) {
  return !p.signal_generated()   ? "signal.layout"
         : p.signal.depth > 1    ? "signal.depth"
         : !p.filter_generated() ? "filter.layout"
                                 : "filter.depth";
}

template <class T>
Problem operand_extents(const Params& p, const OperandFiles<T>& files) {
  Problem q;
  q.mode = p.mode;
  q.operation = p.operation;
  if (p.signal_generated()) {
    q.batch = p.signal.batch;
    q.signal = {p.signal.rows, p.signal.length};
  } else {
    // A streamed run reads the signal by slab: one 1D dataset.
    const std::vector<int> ranks = p.streamed ? std::vector<int>{1} : std::vector<int>{1, 2, 3};
    const Stack s = stack_of(
        files.dims(p.signal.file, p.signal.dataset, "signal.dataset", ranks, "one sample"),
        p.signal.layout);
    q.batch = s.count;
    q.signal = s.extent;
  }
  if (p.filter_generated()) {
    q.filter = {p.filter.rows, p.filter.length};
  } else {
    const Stack s = stack_of(
        files.dims(p.filter.file, p.filter.dataset, "filter.dataset", {1, 2, 3}, "one tap"),
        p.filter.layout);
    q.filters = s.count;
    q.filter = s.extent;
  }
  return q;
}

bool draws_on_device(const Params& p, bool gpu, bool check) {
  return gpu && !check && !p.write_input && p.signal_generated() && !p.streamed;
}

template <class T>
Operands<T> load_operands(const Params& p, const Problem& q, const OperandFiles<T>& files,
                          bool on_device) {
  Operands<T> ops;
  ops.problem = q;
  ops.filter = filter_values(p, files);
  if (!p.signal_generated() && !p.streamed)
    ops.signal = files.values(p.signal.file, p.signal.dataset, "signal.dataset");
  // A streamed run (or a rank's range) draws the stretches it reads as it reads them.
  ops.drawn = on_device && p.signal_generated() && !p.streamed;
  if (p.signal_generated() && !p.streamed && !ops.drawn) ops.signal = generate_signal<T>(p.signal);
  return ops;
}

template <class T>
Operands<T> load_share(const Params& p, const Problem& q, const OperandFiles<T>& files,
                       std::int64_t first, std::int64_t count, bool on_device) {
  Operands<T> ops;
  ops.problem = q;
  ops.problem.batch = count;
  const bool own_filters = q.filters == q.batch && q.batch > 1;
  if (own_filters) ops.problem.filters = count;
  if (!p.filter_generated() && own_filters)
    ops.filter = files.rows(p.filter.file, p.filter.dataset, "filter.dataset", first, count,
                            q.filter.size());
  else
    ops.filter = filter_values(p, files);
  ops.drawn = on_device && p.signal_generated() && !p.streamed;
  ops.first_drawn = first;
  if (ops.drawn) return ops;
  ops.signal = p.signal_generated()
                   ? generate_signals<T>(p.signal, first, count)
                   : files.rows(p.signal.file, p.signal.dataset, "signal.dataset", first, count,
                                q.signal.size());
  return ops;
}

template <class T>
SignalSource<T>::SignalSource(const Params& p, const Operands<T>& ops, const OperandFiles<T>& files)
    : p_(p), ops_(ops) {
  if (!p.signal_generated()) file_ = files.slab(p.signal.file, p.signal.dataset, "signal.dataset");
}

template <class T>
void SignalSource<T>::read(std::int64_t offset, std::int64_t count, T* into) const {
  const std::int64_t n = ops_.problem.signal.cols;
  if (offset < 0 || count < 0 || count > n - offset)
    throw Error("fftconv: the streamed convolution asked for signal samples [" +
                std::to_string(offset) + ", " + std::to_string(offset + count) + ") of " +
                std::to_string(n));
  if (file_) file_(offset, count, into);
  else generate_samples(p_.signal, offset, count, into);
}

template <class T>
VolumeProblem volume_extents(const Params& p, const OperandFiles<T>& files) {
  VolumeProblem q = generated_volume(p);
  if (!p.signal_generated())
    q.signal = volume_of(
        files.dims(p.signal.file, p.signal.dataset, "signal.dataset", {1, 2, 3}, "one sample"));
  if (!p.filter_generated())
    q.filter = volume_of(
        files.dims(p.filter.file, p.filter.dataset, "filter.dataset", {1, 2, 3}, "one tap"));
  return q;
}

template <class T>
VolumeOperands<T> load_volume(const Params& p, const VolumeProblem& q,
                              const OperandFiles<T>& files) {
  VolumeOperands<T> ops;
  ops.problem = q;
  ops.filter = filter_values(p, files);
  ops.signal = p.signal_generated()
                   ? generate_signal<T>(p.signal)
                   : files.values(p.signal.file, p.signal.dataset, "signal.dataset");
  return ops;
}

template <class T>
VolumeOutput<T> convolve_volume(const VolumeOperands<T>& ops, Variant variant, bool gpu) {
  VolumeOutput<T> v;
  if (gpu) {
    v.output = convolve_volume_gpu(ops.problem, {variant, 0}, ops.signal, ops.filter, &v.ran,
                                   &v.chunks, &v.timings);
    return v;
  }
  const auto started = std::chrono::steady_clock::now();
  v.gold = convolve_gold(ops.problem, ops.signal, ops.filter);
  v.output = rounded<T>(v.gold);
  v.timings.add(phase::compute, seconds_since(started));
  return v;
}

std::array<double, 3> output_origin(const VolumeProblem& q) {
  const Extent3 at = output_offset(q);
  const auto origin = [](std::int64_t offset, std::int64_t taps) {
    return static_cast<double>(offset - (taps - 1) / 2);
  };
  return {origin(at.cols, q.filter.cols), origin(at.rows, q.filter.rows),
          origin(at.depth, q.filter.depth)};
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

std::vector<std::uint64_t> volume_dims(const Extent3& e) {
  return {static_cast<std::uint64_t>(e.depth), static_cast<std::uint64_t>(e.rows),
          static_cast<std::uint64_t>(e.cols)};
}

std::string extent_text(const Extent& e) {
  return e.rows == 1 ? std::to_string(e.cols)
                     : std::to_string(e.rows) + " x " + std::to_string(e.cols);
}

std::string extent_text(const Extent3& e) {
  return std::to_string(e.depth) + " x " + std::to_string(e.rows) + " x " +
         std::to_string(e.cols);
}

Attributes problem_attributes(const Problem& q) {
  return {{"mode", std::string(name(q.mode))},
          {"operation", std::string(name(q.operation))},
          {"batch", q.batch},
          {"filters", q.filters},
          {"signal_extent", rows_cols(q.signal)},
          {"filter_extent", rows_cols(q.filter)}};
}

std::string problem_class(const Problem& q) {
  return "signal=" + extent_text(q.signal) + ",filter=" + extent_text(q.filter) +
         ",batch=" + std::to_string(q.batch) + ",filters=" + std::to_string(q.filters) + "," +
         std::string(name(q.mode)) + "," + std::string(name(q.operation));
}

std::string reproducibility_because(bool gpu) {
  if (!gpu) return "the CPU gold sums each output in a fixed order";
  return "cuFFT's plans and the fused kernels run in a fixed order, without atomics, on one "
         "device model and CUDA version; ranks split whole signals";
}

template VolumeOutput<float> convolve_volume<float>(const VolumeOperands<float>&, Variant, bool);
template VolumeOutput<double> convolve_volume<double>(const VolumeOperands<double>&, Variant,
                                                      bool);
template Problem operand_extents<float>(const Params&, const OperandFiles<float>&);
template Problem operand_extents<double>(const Params&, const OperandFiles<double>&);
template Operands<float> load_operands<float>(const Params&, const Problem&,
                                              const OperandFiles<float>&, bool);
template Operands<double> load_operands<double>(const Params&, const Problem&,
                                                const OperandFiles<double>&, bool);
template Operands<float> load_share<float>(const Params&, const Problem&,
                                           const OperandFiles<float>&, std::int64_t,
                                           std::int64_t, bool);
template Operands<double> load_share<double>(const Params&, const Problem&,
                                             const OperandFiles<double>&, std::int64_t,
                                             std::int64_t, bool);
template class SignalSource<float>;
template class SignalSource<double>;
template VolumeProblem volume_extents<float>(const Params&, const OperandFiles<float>&);
template VolumeProblem volume_extents<double>(const Params&, const OperandFiles<double>&);
template VolumeOperands<float> load_volume<float>(const Params&, const VolumeProblem&,
                                                  const OperandFiles<float>&);
template VolumeOperands<double> load_volume<double>(const Params&, const VolumeProblem&,
                                                    const OperandFiles<double>&);

}  // namespace parasol::fftconv
