// recurrence across ranks, on the host: the cut, the gold's run from the exact carry, and the
// magnitude scale and tile chain the check judges by.
#include "solvers/recurrence/ranks.hpp"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "comm/halo.hpp"
#include "kernels/buffer.hpp"
#include "kernels/error.hpp"
#include "kernels/phase_timer.hpp"
#include "kernels/stream.hpp"
#include "solvers/recurrence/check.hpp"

namespace parasol::recurrence {
namespace {

// The elements of local segment 0 when it continues from an earlier rank (0 otherwise).
template <class T>
std::int64_t continued_stretch(const SeriesPart<T>& part) {
  if (!part.continued) return 0;
  // The offsets, not s: a run drawn on the device holds no s on the host.
  return part.series.segments() > 1 ? part.series.offsets[1] : part.series.offsets.back();
}

// A product of many coefficients, as the carry's weight: below long double's least normal it
// is 0 (no carry of any precision survives it), and the loop stops there. Multiplying on would
// keep it among the denormals, where x * 0.99 rounds back to x and every step costs a hundred
// cycles: 6 s on 2^27 elements.
inline void times(long double& product, long double s) {
  product *= s;
  if (std::abs(product) < std::numeric_limits<long double>::min()) product = 0;
}

// The product of a run's s, the run being one continued stretch.
template <class T>
T product_of(const std::vector<T>& s) {
  long double product = 1;
  for (std::size_t i = 0; i < s.size() && product != 0; ++i) times(product, s[i]);
  return static_cast<T>(product);
}

// The same of a run whose s is on the device alone (drawn there), brought back a piece at a
// time until the product is 0: for |s| <= 0.99 within 1.2 million elements (0.99^n passes long
// double's least normal, 2^-16382, at n = 1.13 million), so a run's s is not brought back whole.
template <class T>
T product_on_device(const DeviceSeries<T>& device) {
  constexpr std::int64_t kPiece = std::int64_t{1} << 16;
  std::vector<T> piece;
  long double product = 1;
  for (std::int64_t at = 0; at < device.size() && product != 0; at += kPiece) {
    piece.resize(static_cast<std::size_t>(std::min(kPiece, device.size() - at)));
    download(piece.data(), device.s() + at, piece.size(), device.stream());
    for (std::size_t i = 0; i < piece.size() && product != 0; ++i) times(product, piece[i]);
  }
  return static_cast<T>(product);
}

}  // namespace

Span span_of(std::int64_t elements, std::int64_t tile, int rank, int size, Cut cut) {
  if (cut == Cut::elements) {
    const comm::Slab slab = comm::even_slab(elements, rank, size);
    return {slab.begin, slab.count()};
  }
  const std::int64_t tiles = (elements + tile - 1) / tile;
  const comm::Slab slab = comm::even_slab(tiles, rank, size);
  const std::int64_t first = std::min(elements, slab.begin * tile);
  return {first, std::min(elements, slab.end * tile) - first};
}

template <class T>
SeriesPart<T> part_of(const Series<T>& whole, int rank, int size, Cut cut) {
  check_series(whole);
  const Span span = span_of(whole.size(), kTileElements<T>, rank, size, cut);
  const auto begin = whole.s.begin() + span.first, end = begin + span.count;
  return part_of(whole, whole.size(), span, std::vector<T>(begin, end),
                 std::vector<T>(whole.u.begin() + span.first, whole.u.begin() + span.first + span.count));
}

template <class T>
SeriesPart<T> part_of(const Series<T>& segments, std::int64_t elements, const Span& span,
                      std::vector<T> s, std::vector<T> u) {
  check_offsets(segments.offsets, segments.initial.size(), elements);
  if (static_cast<std::int64_t>(s.size()) != span.count ||
      static_cast<std::int64_t>(u.size()) != span.count)
    throw Error("recurrence: a run's s and u must hold its elements");
  SeriesPart<T> part;
  part.first = span.first;
  part.whole = elements;
  part.series.offsets = {0};
  if (span.count == 0) return part;
  const std::int64_t begin = span.first, end = span.first + span.count;
  const Series<T>& whole = segments;
  const std::vector<std::int64_t>& offsets = whole.offsets;
  // The segment holding `begin`: the last k with offsets[k] <= begin (empty ones skipped); the
  // run's segments go on to the one holding its last element.
  const std::int64_t k0 = segment_holding(offsets, begin), k1 = segment_holding(offsets, end - 1);
  part.first_segment = k0;
  part.continued = offsets[k0] < begin;
  part.series.s = std::move(s);
  part.series.u = std::move(u);
  part.series.initial.assign(whole.initial.begin() + k0, whole.initial.begin() + k1 + 1);
  if (part.continued) part.series.initial[0] = T(0);
  for (std::int64_t k = k0 + 1; k <= k1; ++k) part.series.offsets.push_back(offsets[k] - begin);
  part.series.offsets.push_back(span.count);
  return part;
}

template <class T>
std::vector<double> solve_gold_part(const SeriesPart<T>& part, comm::Context& context,
                                    double* exchange_seconds) {
  const Series<T>& series = part.series;
  check_series(series);
  const std::int64_t n = series.size();
  std::vector<double> v(static_cast<std::size_t>(n));
  // Every segment of the run solved as the gold does; the continued one from 0 for now.
  long double last = 0;
  for (std::int64_t k = 0; k < series.segments(); ++k) {
    long double value = k == 0 && part.continued ? 0.0L : static_cast<long double>(series.initial[k]);
    const std::int64_t first = series.offsets[k];
    value = gold_run(series.s.data() + first, series.u.data() + first,
                     series.offsets[k + 1] - first, value, v.data() + first);
    if (series.offsets[k + 1] > series.offsets[k]) last = value;
  }

  // The carry goes from rank to rank: the exact value the rank before ended on. A run whose end
  // does not depend on its carry (it starts a segment after its first) passes its own on before
  // it waits; the others (an empty run, or one inside a single segment) only once they have it.
  const std::int64_t stretch = continued_stretch(part);
  const bool independent = n > 0 && (!part.continued || stretch < n);
  const int before = context.rank() > 0 ? context.rank() - 1 : comm::kNoRank;
  const int after = context.rank() + 1 < context.size() ? context.rank() + 1 : comm::kNoRank;
  const double comm_start = context.comm_seconds();
  long double carry = 0;
  if (independent) context.send(&last, 1, after);
  context.recv(&carry, 1, before);
  if (part.continued) {
    // Replay the continued stretch from the carry beside its run from 0: once the two meet, the
    // rest of the run from 0 is the run from the carry.
    const Replayed r = replay_gold(series.s.data(), series.u.data(), stretch, carry, v.data());
    if (!r.met && stretch == n) last = r.value;
  } else if (n == 0) {
    last = carry;
  }
  if (!independent) context.send(&last, 1, after);
  if (exchange_seconds != nullptr) *exchange_seconds = context.comm_seconds() - comm_start;
  return v;
}

template <class T>
Result<T> solve_gpu_part(const SeriesPart<T>& part, ScanMode mode, comm::Context& context,
                         const Ar1* drawn) {
  const std::int64_t n = drawn ? part.series.offsets.back() : part.size();
  if (mode == ScanMode::reproducible && part.first % kTileElements<T> != 0)
    throw Error("recurrence: a reproducible run across ranks must start on a tile boundary");
  Result<T> result;
  Stream stream;
  auto start = std::chrono::steady_clock::now();
  DeviceSeries<T> device = drawn ? DeviceSeries<T>(part.series, *drawn, part.first, stream.get())
                                 : DeviceSeries<T>(part.series, stream.get());  // waits
  result.timings.add(phase::host_to_device, seconds_since(start));

  if (mode == ScanMode::reproducible) {
    // Every buffer made before the clock starts: a timed run allocates nothing.
    const std::int64_t series_tiles = (part.whole + kTileElements<T> - 1) / kTileElements<T>;
    device.prepare_prefixed(series_tiles);
  }
  start = std::chrono::steady_clock::now();
  const double comm_start = context.comm_seconds();
  if (mode == ScanMode::reproducible) {
    // The one-rank scan's tile prefixes, from every run's tile totals in order: each rank's
    // downloaded into its place in pinned memory, and broadcast from there to the others.
    const std::int64_t series_tiles = (part.whole + kTileElements<T> - 1) / kTileElements<T>;
    Map<T>* all = device.series_totals_host(series_tiles);
    auto step = std::chrono::steady_clock::now();
    if (n > 0) device.tile_totals_into(part.continued, all + part.first / kTileElements<T>);
    result.timings.add(kTileTotals, seconds_since(step));
    for (int root = 0; root < context.size(); ++root) {
      const comm::Slab tiles = comm::even_slab(series_tiles, root, context.size());
      if (tiles.count() > 0)
        context.broadcast_bytes(all + tiles.begin,
                                static_cast<std::size_t>(tiles.count()) * sizeof(Map<T>), root);
    }
    step = std::chrono::steady_clock::now();
    device.solve_prefixed_from_host(series_tiles, part.first / kTileElements<T>, part.continued);
    result.timings.add(kPrefixedScan, seconds_since(step));
  } else {
    // The run's composed map: its end from v[-1] = 0, and the product of its s while the
    // continued segment lasts (0 once a segment starts in it).
    Map<T> mine{T(1), T(0)};
    if (n > 0) {
      device.solve(mode);
      mine.u = device.value(n - 1);
      const bool through = part.continued && continued_stretch(part) == n;
      mine.s = !through ? T(0) : drawn ? product_on_device(device) : product_of(part.series.s);
    }
    const comm::Scan<Map<T>> scan =
        context.exclusive_scan(mine, Map<T>{T(1), T(0)}, [](const Map<T>& a, const Map<T>& b) {
          return Map<T>{a.s * b.s, std::fma(b.s, a.u, b.u)};
        });
    if (part.continued) {
      device.set_initial(0, scan.before.u);
      device.solve(mode);
    }
  }
  PARASOL_CUDA(cudaStreamSynchronize(stream.get()));
  const double exchange = context.comm_seconds() - comm_start;
  result.timings.add(phase::exchange, exchange);
  result.timings.add(phase::compute, seconds_since(start) - exchange);

  start = std::chrono::steady_clock::now();
  result.v = n > 0 ? device.download() : std::vector<T>{};
  result.timings.add(phase::device_to_host, seconds_since(start));
  return result;
}

template <class T>
std::vector<double> magnitude_scale_part(const SeriesPart<T>& part, comm::Context& context) {
  SeriesPart<T> magnitudes = part;
  for (T& x : magnitudes.series.s) x = std::abs(x);
  for (T& x : magnitudes.series.u) x = std::abs(x);
  for (T& x : magnitudes.series.initial) x = std::abs(x);
  return solve_gold_part(magnitudes, context);
}

namespace {

// The scale and the tile-weighted scale of tile_chain (problems.cpp), composed as maps
// x -> s x + u over a run: s is shared, u is each's.
struct ChainMap {
  long double s = 1, scale = 0, weighted = 0;
};

}  // namespace

template <class T>
double tile_chain_part(const SeriesPart<T>& part, std::int64_t tile, comm::Context& context) {
  const Series<T>& series = part.series;
  const auto at_tile = [&](std::int64_t i) {
    return static_cast<long double>((part.first + i) / tile);
  };
  // One pass of tile_chain's loop over the run, the continued segment from `carry`.
  const auto pass = [&](const ChainMap& carry, double& chain) {
    ChainMap end{part.continued && continued_stretch(part) == part.size() ? 1.0L : 0.0L, 0, 0};
    for (std::int64_t k = 0; k < series.segments(); ++k) {
      const std::int64_t first = series.offsets[k], stop = series.offsets[k + 1];
      if (first == stop) continue;
      long double scale = std::abs(static_cast<long double>(series.initial[k]));
      long double weighted = at_tile(first) * scale;
      if (k == 0 && part.continued) {
        scale = carry.scale;
        weighted = carry.weighted;
      }
      for (std::int64_t i = first; i < stop; ++i) {
        const long double s = std::abs(static_cast<long double>(series.s[i]));
        const long double u = std::abs(static_cast<long double>(series.u[i]));
        const long double at = at_tile(i);
        scale = s * scale + u;
        weighted = s * weighted + at * u;
        if (k == 0 && part.continued) times(end.s, s);
        if (scale > 0)
          chain = std::max(chain, static_cast<double>((at * scale - weighted) / scale));
      }
      end.scale = scale;
      end.weighted = weighted;
    }
    return end;
  };
  double ignored = 0, chain = 0;
  const ChainMap mine = part.size() > 0 ? pass(ChainMap{}, ignored) : ChainMap{};
  const comm::Scan<ChainMap> scan =
      context.exclusive_scan(mine, ChainMap{}, [](const ChainMap& a, const ChainMap& b) {
        return ChainMap{a.s * b.s, b.s * a.scale + b.scale, b.s * a.weighted + b.weighted};
      });
  if (part.size() > 0) pass(scan.before, chain);
  return context.all_reduce(chain, comm::Op::max);
}

template SeriesPart<float> part_of<float>(const Series<float>&, int, int, Cut);
template SeriesPart<double> part_of<double>(const Series<double>&, int, int, Cut);
template <class T>
Agreement agreement_part(const SeriesPart<T>& part, const std::vector<T>& v,
                         const std::vector<double>& gold, comm::Context& context) {
  const std::vector<double> scale = magnitude_scale_part(part, context);
  const double chain = tile_chain_part(part, kTileElements<T>, context);
  FieldDifference d = compare(v, gold);
  double relative = max_relative_to_scale(v, gold, scale);
  // A max over NaN need not keep it, so whether any rank met one is asked apart.
  const bool nan = context.all_reduce(std::int64_t{std::isnan(d.max_abs) || std::isnan(relative)},
                                      comm::Op::max) > 0;
  const double squares =
      context.all_reduce(d.rms * d.rms * static_cast<double>(v.size()), comm::Op::sum);
  d.max_abs = nan ? NAN : context.all_reduce(d.max_abs, comm::Op::max);
  relative = nan ? NAN : context.all_reduce(relative, comm::Op::max);
  d.rms = nan ? NAN : std::sqrt(squares / static_cast<double>(part.whole));
  return agreement<T>(ScaledComparison{d, relative}, chain);
}

template SeriesPart<float> part_of<float>(const Series<float>&, std::int64_t, const Span&,
                                          std::vector<float>, std::vector<float>);
template SeriesPart<double> part_of<double>(const Series<double>&, std::int64_t, const Span&,
                                            std::vector<double>, std::vector<double>);
template std::vector<double> solve_gold_part<float>(const SeriesPart<float>&, comm::Context&,
                                                    double*);
template std::vector<double> solve_gold_part<double>(const SeriesPart<double>&, comm::Context&,
                                                     double*);
template Result<float> solve_gpu_part<float>(const SeriesPart<float>&, ScanMode, comm::Context&,
                                             const Ar1*);
template Result<double> solve_gpu_part<double>(const SeriesPart<double>&, ScanMode,
                                               comm::Context&, const Ar1*);
template std::vector<double> magnitude_scale_part<float>(const SeriesPart<float>&,
                                                         comm::Context&);
template std::vector<double> magnitude_scale_part<double>(const SeriesPart<double>&,
                                                          comm::Context&);
template double tile_chain_part<float>(const SeriesPart<float>&, std::int64_t, comm::Context&);
template double tile_chain_part<double>(const SeriesPart<double>&, std::int64_t,
                                        comm::Context&);
template Agreement agreement_part<float>(const SeriesPart<float>&, const std::vector<float>&,
                                         const std::vector<double>&, comm::Context&);
template Agreement agreement_part<double>(const SeriesPart<double>&, const std::vector<double>&,
                                          const std::vector<double>&, comm::Context&);

}  // namespace parasol::recurrence
