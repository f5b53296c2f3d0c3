// The CPU gold: every output sample as the direct sum that defines it, in double. Only the
// mode's window is computed, not the full convolution cropped, so a valid-mode check of a long
// signal costs what its output costs.
#include <algorithm>
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

}  // namespace

// y[I][J] = sum over m, n of h[m][n] x[I - m][J - n], x zero outside the signal, at the full
// convolution's (I, J) = offset + (i, j). Correlation reads h reversed in both axes. The loops
// over the filter are clipped to the taps that meet the signal, so nothing is summed twice and
// no padding is stored.
template <class T>
std::vector<double> convolve_gold(const Problem& p, const std::vector<T>& signal,
                                  const std::vector<T>& filter) {
  check_problem(p);
  check_sizes(p, signal.size(), filter.size());
  const Extent out = output_extent(p);
  const Extent start = output_offset(p);
  const Extent n = p.signal, k = p.filter;
  const bool reversed = p.operation == Operation::correlate;
  std::vector<double> y(static_cast<std::size_t>(p.batch * out.size()));
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
      }
    }
  }
  return y;
}

template std::vector<double> convolve_gold<float>(const Problem&, const std::vector<float>&,
                                                  const std::vector<float>&);
template std::vector<double> convolve_gold<double>(const Problem&, const std::vector<double>&,
                                                   const std::vector<double>&);

}  // namespace parasol::fftconv
