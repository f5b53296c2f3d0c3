// The CPU gold: every output sample as the direct sum that defines it, in double. Only the
// mode's window is computed, not the full convolution cropped, so a valid-mode check of a long
// signal costs what its output costs.
#include <algorithm>
#include <chrono>
#include <cstddef>
#include <string>
#include <vector>

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

}  // namespace

// y[I][J] = sum over m, n of h[m][n] x[I - m][J - n], x zero outside the signal, at the full
// convolution's (I, J) = offset + (i, j). Correlation reads h reversed in both axes. The loops
// over the filter are clipped to the taps that meet the signal, so nothing is summed twice and
// no padding is stored.
template <class T>
std::vector<double> convolve_gold(const Problem& p, const std::vector<T>& signal,
                                  const std::vector<T>& filter, const ProgressCallback& progress) {
  const auto started = std::chrono::steady_clock::now();
  check_problem(p);
  check_sizes(p, signal.size(), filter.size());
  const Extent out = output_extent(p);
  const Extent start = output_offset(p);
  const Extent n = p.signal, k = p.filter;
  const bool reversed = p.operation == Operation::correlate;
  std::vector<double> y(static_cast<std::size_t>(p.batch * out.size()));
  Progress done{0, p.batch * out.size(), 0};
  std::int64_t work = 0;  // multiply-adds since the last report
  const auto report = [&] {
    done.seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    progress(done);
    work = 0;
  };
  for (std::int64_t b = 0; b < p.batch; ++b) {
    const T* x = signal.data() + b * n.size();
    const T* h = filter.data() + (p.filters == 1 ? 0 : b) * k.size();
    double* yb = y.data() + b * out.size();
    for (std::int64_t i = 0; i < out.rows; ++i) {
      const std::int64_t row = start.rows + i;
      const std::int64_t m_first = std::max<std::int64_t>(0, row - (n.rows - 1));
      const std::int64_t m_end = std::min(k.rows, row + 1);
      for (std::int64_t j = 0; j < out.cols; ++j) {
        const std::int64_t col = start.cols + j;
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
        yb[i * out.cols + j] = sum;
        work += (m_end - m_first) * (c_end - c_first) + 1;
        if (progress && work >= kProgressWork) {
          done.done = (b * out.rows + i) * out.cols + j + 1;
          report();
        }
      }
    }
  }
  if (progress) {
    done.done = done.total;
    report();
  }
  return y;
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
template std::vector<double> gold_window<float>(const Problem&, const std::vector<float>&,
                                                std::int64_t, std::int64_t,
                                                const SignalReader<float>&);
template std::vector<double> gold_window<double>(const Problem&, const std::vector<double>&,
                                                 std::int64_t, std::int64_t,
                                                 const SignalReader<double>&);

}  // namespace parasol::fftconv
