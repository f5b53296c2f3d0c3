// What `variant = "auto"` runs and how long overlap-save's transforms are: rules drawn from the
// filter-length sweep in bench/fftconv_bench.cu (docs/PERFORMANCE.md has the measurements).
#include <algorithm>
#include <cstdint>
#include <string>

#include "kernels/error.hpp"
#include "solvers/fftconv/fftconv.hpp"

namespace parasol::fftconv {
namespace {

std::int64_t power_of_two_at_least(std::int64_t n) {
  std::int64_t p = 1;
  while (p < n) p *= 2;
  return p;
}

}  // namespace

// Each block of B samples yields B - (k - 1) outputs: long blocks waste less on the overlap, but
// a transform that no longer fits on chip in one pass costs more per sample. With 1025 taps on
// an H200, 8192 and 16384 tied, 4096 ran 10 % slower, 2048 and 32768 slower still.
std::int64_t choose_block_length(std::int64_t filter_length) {
  const std::int64_t overlap = std::max<std::int64_t>(filter_length - 1, 0);
  std::int64_t block = std::clamp<std::int64_t>(power_of_two_at_least(8 * overlap), 8192, 16384);
  if (block < 2 * overlap) block = power_of_two_at_least(2 * overlap);
  return block;
}

std::int64_t overlap_save_block(const Problem& p, const Options& o) {
  // Never longer than one block covering a whole signal's outputs needs.
  const std::int64_t block =
      o.block > 0 ? o.block
                  : std::min(choose_block_length(p.filter.cols),
                             good_fft_length(output_extent(p).cols + p.filter.cols - 1));
  if (block < p.filter.cols)
    throw InputError("", "block",
                     "expected an overlap-save block of at least the filter length (" +
                         std::to_string(p.filter.cols) + "), got " + std::to_string(block));
  return block;
}

Variant choose_variant(const Problem& p, int element_bytes) {
  const std::int64_t taps = p.filter.size();
  // Direct sums cost a multiply-add per tap per output; the transforms cost a few passes over
  // memory whatever the taps. On the 2^24-sample sweep the two meet near 290 taps in 1D; a 2D
  // filter's rows each restart the sums, so there the rate per tap is lower. Doubles halve the
  // arithmetic rate but not the bandwidth.
  const std::int64_t crossover = (p.is_2d() ? 192 : 288) / (element_bytes == 4 ? 1 : 2);
  if (taps <= crossover) return Variant::direct;
  if (!p.is_2d() && p.filter.cols <= p.signal.cols &&
      p.signal.cols >= 2 * choose_block_length(p.filter.cols))
    return Variant::overlap_save;
  return Variant::r2c;
}

}  // namespace parasol::fftconv
