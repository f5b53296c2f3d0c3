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

bool supports(Variant v, const Problem& p) {
  switch (v) {
    case Variant::overlap_save: return !p.is_2d();
    case Variant::fused:
      return p.is_2d() ? circular_extent(p).cols <= kFusedMostRowLength
                       : p.filter.cols <= kFusedMostTaps;
    default: return true;
  }
}

}  // namespace parasol::fftconv
