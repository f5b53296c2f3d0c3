// What `variant = "auto"` runs and how long overlap-save's transforms are: rules drawn from the
// filter-length sweep in bench/fftconv_bench.cu (docs/journal/2026-11.md has the measurements).
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "kernels/error.hpp"
#include "solvers/fftconv/fftconv.hpp"
#include "solvers/fftconv/fused.hpp"

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

bool fused_compiled_in() { return fused::compiled_in(); }

std::vector<std::int64_t> fused_block_lengths(int element_bytes) {
  return element_bytes == 4 ? fused::block_lengths<float>() : fused::block_lengths<double>();
}

// The lengths are few (1024 to 8192 in float). Without a block asked for, the one whose
// transforms cost least for a signal's output: blocks x N x the length's cost a point, over the
// lengths of at least twice the overlap (so at least half of each transform is output).
// The cost a transform point, relative to 1024's, as measured on an H100 (float, the benchmark's
// 1d and batch cases at each length): flat to 2048, then rising as a block's transform needs
// more threads and shared memory a block, so fewer blocks share a multiprocessor.
namespace {
double fused_cost_a_point(std::int64_t length) {
  return length <= 2048 ? 1.0 : length <= 4096 ? 1.15 : 1.65;
}

// 2D: the rows' transform length (fused_image_extent's), or the one asked for where it holds
// the rows' circular length or, with the wrapped outputs recomputed, their window.
std::int64_t fused_row_length(const Problem& p, const Options& o,
                              const std::vector<std::int64_t>& lengths) {
  if (!supports(Variant::fused, p))
    throw InputError("", "variant",
                     "fused takes images whose rows need a transform of at most " +
                         std::to_string(kFusedMostRowLength) + " points; these need " +
                         std::to_string(circular_extent(p).cols));
  // With auto a block length is overlap-save's, which images do not run.
  const std::int64_t asked = o.variant == Variant::automatic ? 0 : o.block;
  const std::int64_t chosen = fused_image_extent(p, lengths).cols;
  if (asked == 0 || asked == chosen) return chosen;
  std::string listed;
  for (const std::int64_t l : lengths) {
    if (l < chosen) continue;
    if (l == asked) return l;
    listed += (listed.empty() ? "" : ", ") + std::to_string(l);
  }
  throw InputError("", "block",
                   "fused runs these images' rows at transform lengths " + listed +
                       " (at least " + std::to_string(chosen) + "), got " +
                       std::to_string(asked));
}
}  // namespace

std::int64_t fused_block(const Problem& p, const Options& o, int element_bytes) {
  if (!fused_compiled_in())
    throw InputError("", "variant",
                     "the fused variant is not compiled in (it needs cuFFTDx: ./build.sh deps "
                     "unpacks it into .deps/mathdx/, then configure the build again)");
  const std::vector<std::int64_t> lengths = fused_block_lengths(element_bytes);
  if (p.is_2d()) return fused_row_length(p, o, lengths);
  if (!supports(Variant::fused, p))
    throw InputError("", "variant",
                     "fused takes 1D problems with filters of at most " +
                         std::to_string(kFusedMostTaps) + " taps; the filter has " +
                         std::to_string(p.filter.rows) + " x " + std::to_string(p.filter.cols));
  // With auto the block length is overlap-save's: fused keeps it only where it is compiled.
  const bool compiled_block =
      std::find(lengths.begin(), lengths.end(), o.block) != lengths.end();
  if (o.block > 0 && (o.variant != Variant::automatic || compiled_block)) {
    std::string listed;
    for (const std::int64_t l : lengths) {
      if (l == o.block && l >= p.filter.cols) return l;
      listed += (listed.empty() ? "" : ", ") + std::to_string(l);
    }
    throw InputError("", "block",
                     "fused runs transform lengths " + listed + " (at least the filter's " +
                         std::to_string(p.filter.cols) + " taps), got " +
                         std::to_string(o.block));
  }
  const std::int64_t overlap = p.filter.cols - 1;
  const std::int64_t outputs = std::max<std::int64_t>(output_extent(p).cols, 1);
  std::int64_t best = lengths.back();
  double least = -1;
  for (const std::int64_t l : lengths) {
    if (l < 2 * overlap || l < p.filter.cols) continue;
    const std::int64_t blocks = (outputs + (l - overlap) - 1) / (l - overlap);
    const double cost = static_cast<double>(blocks) * static_cast<double>(l) *
                        fused_cost_a_point(l);
    if (least < 0 || cost < least) {
      least = cost;
      best = l;
    }
  }
  return best;
}

Options chosen_options(const Problem& p, const Options& o, int element_bytes) {
  if (o.variant != Variant::automatic) return o;
  const Variant v = choose_variant(p, element_bytes);
  if (v == Variant::fused) return {v, fused_block(p, o, element_bytes)};
  return {v, v == Variant::overlap_save ? o.block : 0};
}

bool computes_ranges(const Options& o) {
  return o.variant == Variant::overlap_save || o.variant == Variant::fused;
}

std::int64_t range_step(const Problem& p, const Options& o, int element_bytes) {
  const std::int64_t overlap = p.filter.cols - 1;
  if (o.variant == Variant::fused) return 2 * (fused_block(p, o, element_bytes) - overlap);
  return overlap_save_block(p, o) - overlap;
}

std::pair<std::int64_t, std::int64_t> range_window(const Problem& p, const Options& o,
                                                   int element_bytes, std::int64_t first_output,
                                                   std::int64_t outputs) {
  const std::int64_t overlap = p.filter.cols - 1;
  const std::int64_t step = (o.variant == Variant::fused ? fused_block(p, o, element_bytes)
                                                         : overlap_save_block(p, o)) -
                            overlap;
  const std::int64_t blocks = (outputs + step - 1) / step;
  const std::int64_t start = output_offset(p).cols + first_output - overlap;
  const std::int64_t end = output_offset(p).cols + first_output + blocks * step;
  return {std::clamp<std::int64_t>(start, 0, p.signal.cols),
          std::clamp<std::int64_t>(end, 0, p.signal.cols)};
}

std::int64_t batch_cut_unit(const Problem& p, const Options& chosen, int element_bytes) {
  if (chosen.variant != Variant::fused || p.filters != 1 || p.is_2d()) return 1;
  const std::int64_t step = fused_block(p, chosen, element_bytes) - (p.filter.cols - 1);
  const std::int64_t blocks = (output_extent(p).cols + step - 1) / step;
  return blocks % 2 == 1 ? 2 : 1;
}

// Taps up to which the direct sums stay ahead of fused.
constexpr std::int64_t kDirectBeforeFused = 8;

Variant choose_variant(const Problem& p, int element_bytes) {
  const std::int64_t taps = p.filter.size();
  // fused reads the signal and writes the output once, with transforms short enough to stay in
  // a thread block: on an H100 it beat the direct sums from 15 taps on (2^24 samples: 0.077 ms
  // against 0.085 at 15 taps, 0.079 against 0.132 at 63) and tied them at 3. Wherever it is
  // compiled in and takes the filter, it goes first past a handful of taps.
  if (!p.is_2d() && taps > kDirectBeforeFused && fused_compiled_in() &&
      supports(Variant::fused, p) && p.filter.cols <= p.signal.cols)
    return Variant::fused;
  // Direct sums cost a multiply-add per tap per output; the transforms cost a few passes over
  // memory whatever the taps. On the 2^24-sample sweep the two meet near 290 taps in 1D; a 2D
  // filter's rows each restart the sums, so there the rate per tap is lower. Doubles halve the
  // arithmetic rate but not the bandwidth.
  const std::int64_t crossover = (p.is_2d() ? 192 : 288) / (element_bytes == 4 ? 1 : 2);
  if (taps <= crossover) return Variant::direct;
  // Images: fused is r2c's transforms without the padded image and the padded result, so it goes
  // first wherever its rows are no longer than r2c's (its lengths are powers of two).
  if (p.is_2d() && fused_compiled_in() && supports(Variant::fused, p) &&
      fused_image_extent(p, fused_block_lengths(element_bytes)).cols <= r2c_image_extent(p).cols)
    return Variant::fused;
  if (!p.is_2d() && p.filter.cols <= p.signal.cols &&
      p.signal.cols >= 2 * choose_block_length(p.filter.cols))
    return Variant::overlap_save;
  return Variant::r2c;
}

}  // namespace parasol::fftconv
