// The CPU gold: every output sample as the direct sum that defines it, in double. Only the
// mode's window is computed, not the full convolution cropped, so a valid-mode check of a long
// signal costs what its output costs.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <string>
#include <vector>

#include "kernels/cpu_threads.hpp"
#include "kernels/error.hpp"
#include "solvers/fftconv/fftconv.hpp"

namespace parasol::fftconv {
namespace {

void check_sizes(const Problem& p, std::size_t signal_values, std::size_t filter_values) {
  const auto signal_want = static_cast<std::size_t>(p.batch * p.signal.size());
  const auto filter_want = static_cast<std::size_t>(p.filters * p.filter.size());
  if (signal_values != signal_want)
    throw InputError("", "signal", "holds " + std::to_string(signal_values) +
                                       " values; expected batch x rows x cols = " +
                                       std::to_string(signal_want));
  if (filter_values != filter_want)
    throw InputError("", "filter", "holds " + std::to_string(filter_values) +
                                       " values; expected filters x rows x cols = " +
                                       std::to_string(filter_want));
}

// The gold reports its progress after about this many multiply-adds (some tens of
// milliseconds), counted as it goes: a report per output sample would cost more than a short
// filter's sums.
constexpr std::int64_t kProgressWork = std::int64_t{1} << 25;

// y[I][J] = sum over m, n of h[m][n] x[I - m][J - n], x zero outside the signal, at the full
// convolution's (I, J) = offset + (i, j). Correlation reads h reversed in both axes. The loops
// over the filter are clipped to the taps that meet the signal, so nothing is summed twice and
// no padding is stored. One output sample is one sum taken in one order, so the outputs can be
// shared among threads with the same bits.
template <class T>
class DirectSums {
 public:
  DirectSums(const Problem& p, const std::vector<T>& signal, const std::vector<T>& filter)
      : p_(checked(p, signal, filter)),
        signal_(signal),
        filter_(filter),
        out_(output_extent(p)),
        start_(output_offset(p)) {}

  std::int64_t outputs() const { return p_.batch * out_.size(); }

  // Output sample `index` of the batch ([signal][row][col]), and the multiply-adds it took.
  double at(std::int64_t index, std::int64_t& work) const {
    const std::int64_t b = index / out_.size(), ij = index % out_.size();
    const std::int64_t i = ij / out_.cols, j = ij % out_.cols;
    const Extent n = p_.signal, k = p_.filter;
    const bool reversed = p_.operation == Operation::correlate;
    const T* x = signal_.data() + b * n.size();
    const T* h = filter_.data() + (p_.filters == 1 ? 0 : b) * k.size();
    const std::int64_t row = start_.rows + i;
    const std::int64_t m_first = std::max<std::int64_t>(0, row - (n.rows - 1));
    const std::int64_t m_end = std::min(k.rows, row + 1);
    const std::int64_t col = start_.cols + j;
    const std::int64_t c_first = std::max<std::int64_t>(0, col - (n.cols - 1));
    const std::int64_t c_end = std::min(k.cols, col + 1);
    double sum = 0;
    for (std::int64_t m = m_first; m < m_end; ++m) {
      const std::int64_t h_row = reversed ? k.rows - 1 - m : m;
      for (std::int64_t c = c_first; c < c_end; ++c) {
        const std::int64_t h_col = reversed ? k.cols - 1 - c : c;
        sum += static_cast<double>(h[h_row * k.cols + h_col]) *
               static_cast<double>(x[(row - m) * n.cols + (col - c)]);
      }
    }
    work += std::max<std::int64_t>(0, m_end - m_first) * std::max<std::int64_t>(0, c_end - c_first) + 1;
    return sum;
  }

 private:
  static const Problem& checked(const Problem& p, const std::vector<T>& signal,
                                const std::vector<T>& filter) {
    check_problem(p);
    check_sizes(p, signal.size(), filter.size());
    return p;
  }

  const Problem& p_;
  const std::vector<T>& signal_;
  const std::vector<T>& filter_;
  Extent out_, start_;
};

// y[o] = sums.at(index_of(o)) for o in [0, count), on every core, with progress told after
// about every kProgressWork multiply-adds.
template <class T, class IndexOf>
void fill_outputs(const DirectSums<T>& sums, std::int64_t count, IndexOf index_of, double* y,
                  const ProgressCallback& progress) {
  const auto started = std::chrono::steady_clock::now();
  // Chunks of about a sixteenth of kProgressWork, judged from the first output's multiply-adds,
  // so that the threads share the work evenly and progress is told often enough.
  std::int64_t first_work = 0;
  if (count > 0) (void)sums.at(index_of(0), first_work);
  const std::int64_t chunk =
      std::max<std::int64_t>(1, kProgressWork / 16 / std::max<std::int64_t>(first_work, 1));
  std::atomic<std::int64_t> work{0};
  std::int64_t reported_work = 0;
  for_chunks(
      count, chunk,
      [&](std::int64_t first, std::int64_t last) {
        std::int64_t chunk_work = 0;
        for (std::int64_t o = first; o < last; ++o) y[o] = sums.at(index_of(o), chunk_work);
        work += chunk_work;
      },
      [&](std::int64_t finished) {
        const std::int64_t now = work.load();
        if (!progress || now - reported_work < kProgressWork || finished == count) return;
        reported_work = now;
        progress({finished, count,
                  std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count()});
      });
  if (progress)
    progress({count, count,
              std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count()});
}

}  // namespace

template <class T>
std::vector<double> convolve_gold(const Problem& p, const std::vector<T>& signal,
                                  const std::vector<T>& filter, const ProgressCallback& progress) {
  const DirectSums<T> sums(p, signal, filter);
  std::vector<double> y(static_cast<std::size_t>(sums.outputs()));
  fill_outputs(sums, sums.outputs(), [](std::int64_t o) { return o; }, y.data(), progress);
  return y;
}

template <class T>
std::vector<double> convolve_gold_at(const Problem& p, const std::vector<T>& signal,
                                     const std::vector<T>& filter,
                                     const std::vector<std::int64_t>& outputs) {
  const DirectSums<T> sums(p, signal, filter);
  for (std::int64_t o : outputs)
    if (o < 0 || o >= sums.outputs())
      throw Error("fftconv: convolve_gold_at: output sample " + std::to_string(o) + " of " +
                  std::to_string(sums.outputs()));
  std::vector<double> y(outputs.size());
  fill_outputs(
      sums, static_cast<std::int64_t>(outputs.size()),
      [&](std::int64_t o) { return outputs[static_cast<std::size_t>(o)]; }, y.data(), {});
  return y;
}

std::vector<std::int64_t> sampled_outputs(const Problem& p, std::int64_t stride) {
  const Extent out = output_extent(p);
  // Outputs within a filter's length less one of an edge reach past the signal's end.
  const std::int64_t edge_rows = p.filter.rows - 1, edge_cols = p.filter.cols - 1;
  std::vector<std::int64_t> outputs;
  for (std::int64_t b = 0; b < p.batch; ++b)
    for (std::int64_t i = 0; i < out.rows; ++i)
      for (std::int64_t j = 0; j < out.cols; ++j) {
        const std::int64_t o = (b * out.rows + i) * out.cols + j;
        const bool near_edge = i < edge_rows || i >= out.rows - edge_rows || j < edge_cols ||
                               j >= out.cols - edge_cols;
        if (near_edge || o % stride == 0) outputs.push_back(o);
      }
  return outputs;
}

// Output sample `first` of the mode's output is sample s + first of the full convolution (s its
// offset), which reaches signal samples s + first - (k - 1) ... s + first: the window starts
// k - 1 before, and its valid-mode convolution with the filter is exactly the outputs asked for.
template <class T>
std::vector<double> gold_window(const Problem& p, const std::vector<T>& filter,
                                std::int64_t first, std::int64_t count,
                                const SignalReader<T>& read) {
  check_problem(p);
  if (p.batch != 1 || p.filters != 1 || p.is_2d())
    throw InputError("", "signal", "a window of the gold takes one 1D signal and one 1D filter");
  const std::int64_t m = output_extent(p).cols;
  if (first < 0 || count < 1 || count > m - first)
    throw Error("fftconv: gold_window: output samples [" + std::to_string(first) + ", " +
                std::to_string(first + count) + ") asked of " + std::to_string(m));
  const std::int64_t k = p.filter.cols;
  const std::int64_t start = output_offset(p).cols + first - (k - 1);
  std::vector<T> window(static_cast<std::size_t>(count + k - 1), T(0));
  const std::int64_t begin = std::max<std::int64_t>(start, 0);
  const std::int64_t end = std::min(start + count + k - 1, p.signal.cols);
  if (begin < end) read(begin, end - begin, window.data() + (begin - start));
  Problem piece = p;
  piece.signal = {1, count + k - 1};
  piece.mode = Mode::valid;
  return convolve_gold(piece, window, filter);
}

template std::vector<double> convolve_gold<float>(const Problem&, const std::vector<float>&,
                                                  const std::vector<float>&,
                                                  const ProgressCallback&);
template std::vector<double> convolve_gold<double>(const Problem&, const std::vector<double>&,
                                                   const std::vector<double>&,
                                                   const ProgressCallback&);
template std::vector<double> convolve_gold_at<float>(const Problem&, const std::vector<float>&,
                                                     const std::vector<float>&,
                                                     const std::vector<std::int64_t>&);
template std::vector<double> convolve_gold_at<double>(const Problem&, const std::vector<double>&,
                                                      const std::vector<double>&,
                                                      const std::vector<std::int64_t>&);
template std::vector<double> gold_window<float>(const Problem&, const std::vector<float>&,
                                                std::int64_t, std::int64_t,
                                                const SignalReader<float>&);
template std::vector<double> gold_window<double>(const Problem&, const std::vector<double>&,
                                                 std::int64_t, std::int64_t,
                                                 const SignalReader<double>&);

}  // namespace parasol::fftconv
