// The names users type, the checks on a Problem, and the shapes of scipy's modes: everything
// about a convolution that is decided by its sizes alone.
#include <algorithm>
#include <string>

#include "kernels/error.hpp"
#include "kernels/name_table.hpp"
#include "solvers/fftconv/fftconv.hpp"
#include "solvers/fftconv/params.hpp"

namespace parasol::fftconv {
namespace {

constexpr NameTable<Mode, 3> kModeNames{
    {{Mode::full, "full"}, {Mode::same, "same"}, {Mode::valid, "valid"}}};
constexpr NameTable<Operation, 2> kOperationNames{
    {{Operation::convolve, "convolve"}, {Operation::correlate, "correlate"}}};
constexpr NameTable<Variant, 6> kVariantNames{{{Variant::automatic, "auto"},
                                               {Variant::c2c, "c2c"},
                                               {Variant::r2c, "r2c"},
                                               {Variant::overlap_save, "overlap-save"},
                                               {Variant::direct, "direct"},
                                               {Variant::fused, "fused"}}};

std::string shown(const Extent& e) {
  return e.rows == 1 ? std::to_string(e.cols) : std::to_string(e.rows) + " x " +
                                                    std::to_string(e.cols);
}

// `count` operands of extent `e` hold at most kMostSamples (2^40) in all. Divided, not
// multiplied, so nothing overflows before it is compared; past the check every product of sizes
// stays exact in int64.
bool within_limit(std::int64_t count, const Extent& e) {
  return e.rows <= kMostSamples && e.cols <= kMostSamples / e.rows &&
         count <= kMostSamples / e.size();
}

// One axis of scipy's modes: the output length, and its start inside the full convolution.
std::int64_t axis_extent(Mode m, std::int64_t n, std::int64_t k) {
  switch (m) {
    case Mode::full: return n + k - 1;
    case Mode::same: return n;
    case Mode::valid: return std::max(n, k) - std::min(n, k) + 1;
  }
  return 0;
}

std::int64_t axis_offset(Mode m, std::int64_t n, std::int64_t k) {
  switch (m) {
    case Mode::full: return 0;
    case Mode::same: return (k - 1) / 2;
    case Mode::valid: return std::min(n, k) - 1;
  }
  return 0;
}

}  // namespace

std::string_view name(Mode m) { return lookup_name(kModeNames, m); }
Mode parse_mode(std::string_view s) { return lookup_value(kModeNames, s, "mode"); }
std::string_view name(Operation o) { return lookup_name(kOperationNames, o); }
Operation parse_operation(std::string_view s) {
  return lookup_value(kOperationNames, s, "operation");
}
std::string_view name(Variant v) { return lookup_name(kVariantNames, v); }
Variant parse_variant(std::string_view s) { return lookup_value(kVariantNames, s, "variant"); }

void check_problem(const Problem& p) {
  if (p.batch < 1)
    throw InputError("", "signal", "expected at least one signal, got a batch of " +
                                       std::to_string(p.batch));
  if (p.signal.rows < 1 || p.signal.cols < 1)
    throw InputError("", "signal", "expected at least one sample in each axis, got " +
                                       shown(p.signal));
  if (p.filter.rows < 1 || p.filter.cols < 1)
    throw InputError("", "filter", "expected at least one tap in each axis, got " +
                                       shown(p.filter));
  if (p.filters != 1 && p.filters != p.batch)
    throw InputError("", "filters",
                     "expected 1 filter (for every signal) or one per signal (" +
                         std::to_string(p.batch) + "), got " + std::to_string(p.filters));
  if (!within_limit(p.batch, p.signal))
    throw InputError("", "signal", "expected at most 2^40 samples in all, got " +
                                       std::to_string(p.batch) + " signals of " + shown(p.signal));
  if (!within_limit(p.filters, p.filter))
    throw InputError("", "filter", "expected at most 2^40 taps in all, got " +
                                       std::to_string(p.filters) + " filters of " +
                                       shown(p.filter));
  // Both operands are below 2^40 in each axis now, so the full extent cannot overflow either.
  if (p.mode == Mode::valid) {
    const bool signal_larger = p.signal.rows >= p.filter.rows && p.signal.cols >= p.filter.cols;
    const bool filter_larger = p.filter.rows >= p.signal.rows && p.filter.cols >= p.signal.cols;
    if (!signal_larger && !filter_larger)
      throw InputError("", "mode",
                       "valid needs one operand at least as large as the other in every axis; "
                       "the signal is " + shown(p.signal) + " and the filter " + shown(p.filter));
  }
  if (!within_limit(p.batch, output_extent(p)))
    throw InputError("", "signal", "expected at most 2^40 output samples in all, got " +
                                       std::to_string(p.batch) + " outputs of " +
                                       shown(output_extent(p)));
}

Extent output_extent(const Problem& p) {
  return {axis_extent(p.mode, p.signal.rows, p.filter.rows),
          axis_extent(p.mode, p.signal.cols, p.filter.cols)};
}

Extent output_offset(const Problem& p) {
  return {axis_offset(p.mode, p.signal.rows, p.filter.rows),
          axis_offset(p.mode, p.signal.cols, p.filter.cols)};
}

// Every 3^b 5^c 7^d up to the answer, each raised to the first power of two times it that
// reaches n: about a thousand candidates at n = 2^40, so no table is needed.
std::int64_t good_fft_length(std::int64_t n) {
  constexpr std::int64_t kLargest = std::int64_t{1} << 62;
  if (n < 1 || n > kLargest)
    throw Error("good_fft_length: expected a length in [1, 2^62], got " + std::to_string(n));
  std::int64_t best = 1;
  while (best < n) best *= 2;
  // Each loop stops once its factor reaches n (a larger one only overshoots further) or cannot
  // beat the best found (checked by division, so the next product never overflows).
  for (std::int64_t p7 = 1;; p7 *= 7) {
    for (std::int64_t p5 = p7;; p5 *= 5) {
      for (std::int64_t p3 = p5;; p3 *= 3) {
        std::int64_t m = p3;
        while (m < n) m *= 2;
        best = std::min(best, m);
        if (p3 >= n || p3 > best / 3) break;
      }
      if (p5 >= n || p5 > best / 5) break;
    }
    if (p7 >= n || p7 > best / 7) break;
  }
  return best;
}

// The circular length per axis that reproduces the window exactly (see the top of fftconv.cu):
// the wrapped-around terms of a shorter one would land inside it.
Extent circular_extent(const Problem& p) {
  const Extent out = output_extent(p), at = output_offset(p);
  const auto length = [](std::int64_t n, std::int64_t k, std::int64_t start, std::int64_t count) {
    return std::max(n + k - 1 - start, start + count);
  };
  return {p.is_2d() ? length(p.signal.rows, p.filter.rows, at.rows, out.rows) : 1,
          length(p.signal.cols, p.filter.cols, at.cols, out.cols)};
}

Extent transform_extent(const Problem& p) {
  const Extent l = circular_extent(p);
  return {good_fft_length(l.rows), good_fft_length(l.cols)};
}

std::int64_t next_power_of_two(std::int64_t n) {
  std::int64_t l = 1;
  while (l < n) l *= 2;
  return l;
}

namespace {
// Per axis, the least length a transform may have: the window's, the signal's, the filter's.
Extent least_extent(const Problem& p) {
  const Extent out = output_extent(p);
  return {std::max({out.rows, p.signal.rows, p.filter.rows}),
          std::max({out.cols, p.signal.cols, p.filter.cols})};
}

// The window's outputs along one axis that length l wraps terms into: [0, low) and [high, m),
// for a window of m outputs from full index s of a full convolution of `full`.
std::pair<std::int64_t, std::int64_t> wrapped_band(std::int64_t full, std::int64_t s,
                                                   std::int64_t m, std::int64_t l) {
  const std::int64_t low = std::clamp<std::int64_t>(full - l - s, 0, m);
  const std::int64_t high = std::clamp<std::int64_t>(l - s, low, m);
  return {low, high};
}
}  // namespace

std::vector<Rect> wrapped_outputs(const Problem& p, Extent l) {
  const Extent out = output_extent(p), at = output_offset(p);
  const auto [row_low, row_high] = wrapped_band(p.signal.rows + p.filter.rows - 1, at.rows,
                                                out.rows, l.rows);
  const auto [col_low, col_high] = wrapped_band(p.signal.cols + p.filter.cols - 1, at.cols,
                                                out.cols, l.cols);
  std::vector<Rect> rects;
  const auto add = [&rects](Rect r) {
    if (r.size() > 0) rects.push_back(r);
  };
  add({0, row_low, 0, out.cols});
  add({row_high, out.rows - row_high, 0, out.cols});
  // The columns' bands between the rows' bands: the corners once.
  add({row_low, row_high - row_low, 0, col_low});
  add({row_low, row_high - row_low, col_high, out.cols - col_high});
  return rects;
}

Extent image_extent(const Problem& p, Extent usual, Extent shorter) {
  if (!p.is_2d() || p.filter.rows > kWrappedMostTaps || p.filter.cols > kWrappedMostTaps)
    return usual;
  const Extent out = output_extent(p);
  const Extent least = least_extent(p);
  const auto pick = [](std::int64_t u, std::int64_t s, std::int64_t at_least) {
    return s >= at_least && s < u ? s : u;
  };
  const Extent l{pick(usual.rows, shorter.rows, least.rows),
                 pick(usual.cols, shorter.cols, least.cols)};
  if (l == usual) return usual;
  std::int64_t wrapped = 0;
  for (const Rect& r : wrapped_outputs(p, l)) wrapped += r.size();
  return wrapped * p.filter.size() <= kWrappedMostWork * out.size() ? l : usual;
}

Extent r2c_image_extent(const Problem& p) {
  const Extent least = least_extent(p);
  return image_extent(p, transform_extent(p),
                      {next_power_of_two(least.rows), next_power_of_two(least.cols)});
}

Extent fused_image_extent(const Problem& p, const std::vector<std::int64_t>& lengths) {
  const auto shortest = [&lengths](std::int64_t at_least) {
    for (const std::int64_t l : lengths)
      if (l >= at_least) return l;
    return std::max(at_least, kFusedMostRowLength + 1);
  };
  const Extent c = circular_extent(p), least = least_extent(p);
  return image_extent(p, {good_fft_length(c.rows), shortest(c.cols)},
                      {next_power_of_two(least.rows), shortest(least.cols)});
}

bool supports(Variant v, const Problem& p) {
  switch (v) {
    case Variant::overlap_save: return !p.is_2d();
    case Variant::fused:
      // The compiled lengths are powers of two up to kFusedMostRowLength in both precisions:
      // where any of them holds the rows, this one does.
      return p.is_2d() ? fused_image_extent(p, {kFusedMostRowLength}).cols <= kFusedMostRowLength
                       : p.filter.cols <= kFusedMostTaps;
    default: return true;
  }
}

}  // namespace parasol::fftconv
