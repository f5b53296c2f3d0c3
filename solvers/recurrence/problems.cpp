#include "solvers/recurrence/problems.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <future>
#include <random>
#include <vector>

#include "kernels/seeded_draws.hpp"

namespace parasol::recurrence {
namespace {

using Draws = SeededDraws;

template <class T>
Series<T> sized(std::int64_t segments, std::int64_t length) {
  Series<T> series;
  const auto n = static_cast<std::size_t>(segments * length);
  series.s.resize(n);
  series.u.resize(n);
  series.initial.resize(static_cast<std::size_t>(segments));
  series.offsets.resize(static_cast<std::size_t>(segments) + 1);
  for (std::int64_t k = 0; k <= segments; ++k) series.offsets[k] = k * length;
  return series;
}


// u[0, count) = sigma times the next `count` normals of `draws`, as draws.normal() makes them:
// the engine's words drawn in order in chunks, Box-Muller taken on every core. A series of 2^28
// steps is made in a fraction of a second rather than seconds.
template <class T>
void fill_noise(Draws& draws, double sigma, std::int64_t count, T* u) {
  constexpr std::int64_t kChunkPairs = std::int64_t{1} << 19;
  std::vector<std::uint64_t> words(static_cast<std::size_t>(2 * kChunkPairs));
  for (std::int64_t done = 0; done < count; done += 2 * kChunkPairs) {
    const std::int64_t values = std::min(count - done, 2 * kChunkPairs);
    const std::int64_t pairs = (values + 1) / 2;
    for (std::int64_t w = 0; w < 2 * pairs; ++w) words[static_cast<std::size_t>(w)] = draws.word();
#pragma omp parallel for schedule(static)
    for (std::int64_t q = 0; q < pairs; ++q) {
      const auto [first, second] = Draws::normal_pair(words[static_cast<std::size_t>(2 * q)],
                                                      words[static_cast<std::size_t>(2 * q + 1)]);
      u[done + 2 * q] = static_cast<T>(sigma * first);
      if (2 * q + 1 < values) u[done + 2 * q + 1] = static_cast<T>(sigma * second);
    }
  }
}

}  // namespace

template <class T>
Series<T> ar1_series(const Ar1& a) {
  Series<T> series = sized<T>(a.series, a.length);
  const double width = a.phi_max - a.phi_min;
  for (std::int64_t k = 0; k < a.series; ++k) {
    Draws draws(a.seed, static_cast<std::uint64_t>(k));
    series.initial[k] = static_cast<T>(a.x0);
    const std::int64_t first = series.offsets[k];
    if (!a.time_varying) {
      std::fill(series.s.begin() + first, series.s.begin() + first + a.length,
                static_cast<T>(a.phi));
      fill_noise(draws, a.sigma, a.length, series.u.data() + first);
      continue;
    }
    for (std::int64_t i = first; i < first + a.length; ++i) {
      const double phi = a.time_varying ? a.phi_min + width * draws.open_unit() : a.phi;
      series.s[i] = static_cast<T>(phi);
      series.u[i] = static_cast<T>(a.sigma * draws.normal());
    }
  }
  return series;
}

template <class T>
SeriesPart<T> ar1_part(const Ar1& a, int rank, int size, Cut cut) {
  SeriesPart<T> part;
  part.whole = a.series * a.length;
  const Span span = span_of(part.whole, kTileElements<T>, rank, size, cut);
  part.first = span.first;
  part.series.offsets = {0};
  if (span.count == 0) return part;
  const std::int64_t begin = span.first, end = span.first + span.count;
  const std::int64_t k0 = begin / a.length, k1 = (end - 1) / a.length;
  part.first_segment = k0;
  part.continued = begin > k0 * a.length;
  Series<T>& series = part.series;
  series.s.resize(static_cast<std::size_t>(span.count));
  series.u.resize(static_cast<std::size_t>(span.count));
  const double width = a.phi_max - a.phi_min;
  for (std::int64_t k = k0; k <= k1; ++k) {
    Draws draws(a.seed, static_cast<std::uint64_t>(k));
    const std::int64_t first = k * a.length;
    if (k > k0) series.offsets.push_back(first - begin);
    series.initial.push_back(k == k0 && part.continued ? T(0) : static_cast<T>(a.x0));
    // The draws before the run are made and dropped: a series' stream is read in order.
    for (std::int64_t i = first; i < std::min(end, first + a.length); ++i) {
      const double phi = a.time_varying ? a.phi_min + width * draws.open_unit() : a.phi;
      const double noise = draws.normal();
      if (i < begin) continue;
      series.s[static_cast<std::size_t>(i - begin)] = static_cast<T>(phi);
      series.u[static_cast<std::size_t>(i - begin)] = static_cast<T>(a.sigma * noise);
    }
  }
  series.offsets.push_back(span.count);
  return part;
}

template <class T>
Series<T> ar1_segments(const Ar1& a) {
  Series<T> series;
  series.offsets.resize(static_cast<std::size_t>(a.series) + 1);
  for (std::int64_t k = 0; k <= a.series; ++k) series.offsets[k] = k * a.length;
  series.initial.assign(static_cast<std::size_t>(a.series), static_cast<T>(a.x0));
  return series;
}

template <class T>
Series<T> smoothing_series(const std::vector<double>& y, std::int64_t rows, double alpha) {
  const std::int64_t length = rows > 0 ? static_cast<std::int64_t>(y.size()) / rows : 0;
  Series<T> series = sized<T>(rows, length);
  const T keep = static_cast<T>(1.0 - alpha);
  for (std::int64_t k = 0; k < rows; ++k) {
    const std::int64_t first = series.offsets[k];
    series.initial[k] = length > 0 ? static_cast<T>(y[first]) : T(0);
    for (std::int64_t i = first; i < first + length; ++i) {
      series.s[i] = keep;
      series.u[i] = static_cast<T>(alpha * y[i]);
    }
  }
  return series;
}

template <class T>
std::vector<double> magnitude_scale(const Series<T>& series) {
  Series<T> magnitudes = series;
  for (T& x : magnitudes.s) x = std::abs(x);
  for (T& x : magnitudes.u) x = std::abs(x);
  for (T& x : magnitudes.initial) x = std::abs(x);
  return solve_gold(magnitudes);
}

namespace {

// chain = max(chain, double((at scale - weighted) / scale)) for scale > 0, dividing only where
// the ratio may beat the chain so far: a long-double division per element would take most of
// the pass. The test before dividing lets through every ratio within 2^-40 below the chain (far
// wider than the product's rounding), and the ratio then taken is the same as always.
void raise_chain(double& chain, long double at, long double scale, long double weighted) {
  if (!(scale > 0)) return;
  const long double excess = at * scale - weighted;
  if (excess < static_cast<long double>(chain) * scale * (1 - 0x1p-40L)) return;
  chain = std::max(chain, static_cast<double>(excess / scale));
}

// i / tile for i = first, first + 1, ... in turn, without a division per element (a 64-bit
// division would take most of a pass over the series).
class TileOf {
 public:
  TileOf(std::int64_t first, std::int64_t tile)
      : tile_(tile), index_(first / tile), next_((index_ + 1) * tile) {}
  long double operator()(std::int64_t i) {
    while (i >= next_) {
      ++index_;
      next_ += tile_;
    }
    return static_cast<long double>(index_);
  }

 private:
  std::int64_t tile_, index_, next_;
};

}  // namespace

namespace {

// tile_chain's walk along each segment: scale_i = |s_i| scale_{i-1} + |u_i| and weighted_i =
// |s_i| weighted_{i-1} + tile(i) |u_i|, each from the initial value at the segment's first tile:
// the chain to i is tile(i) scale_i - weighted_i. Stores scale_i in `scale` when given (it is
// magnitude_scale's value there: the same recurrence on the same long doubles).
template <class T>
double walk_chain(const Series<T>& series, std::int64_t tile, double* scale_out) {
  double chain = 0;
  for (std::int64_t k = 0; k < series.segments(); ++k) {
    const std::int64_t first = series.offsets[k], end = series.offsets[k + 1];
    long double scale = std::abs(static_cast<long double>(series.initial[k]));
    TileOf tile_of(first, tile);
    long double weighted = tile_of(first) * scale;
    for (std::int64_t i = first; i < end; ++i) {
      const long double s = std::abs(static_cast<long double>(series.s[i]));
      const long double u = std::abs(static_cast<long double>(series.u[i]));
      const long double at = tile_of(i);
      scale = s * scale + u;
      if (scale_out != nullptr) scale_out[i] = static_cast<double>(scale);
      weighted = s * weighted + at * u;
      raise_chain(chain, at, scale, weighted);
    }
  }
  return chain;
}

}  // namespace

template <class T>
double tile_chain(const Series<T>& series, std::int64_t tile) {
  check_series(series);
  return walk_chain(series, tile, nullptr);
}

template <class T>
GoldScaleChain gold_scale_chain(const Series<T>& series, std::int64_t tile) {
  check_series(series);
  // Two passes that share nothing but the series, each on a core of its own.
  std::future<std::vector<double>> gold =
      std::async(std::launch::async, [&series] { return solve_gold(series); });
  GoldScaleChain r;
  r.scale.resize(series.s.size());
  r.chain = walk_chain(series, tile, r.scale.data());
  r.gold = gold.get();
  return r;
}

template GoldScaleChain gold_scale_chain<float>(const Series<float>&, std::int64_t);
template GoldScaleChain gold_scale_chain<double>(const Series<double>&, std::int64_t);
template Series<float> ar1_series<float>(const Ar1&);
template Series<double> ar1_series<double>(const Ar1&);
template SeriesPart<float> ar1_part<float>(const Ar1&, int, int, Cut);
template SeriesPart<double> ar1_part<double>(const Ar1&, int, int, Cut);
template Series<float> ar1_segments<float>(const Ar1&);
template Series<double> ar1_segments<double>(const Ar1&);
template Series<float> smoothing_series<float>(const std::vector<double>&, std::int64_t, double);
template Series<double> smoothing_series<double>(const std::vector<double>&, std::int64_t,
                                                 double);
template std::vector<double> magnitude_scale<float>(const Series<float>&);
template std::vector<double> magnitude_scale<double>(const Series<double>&);
template double tile_chain<float>(const Series<float>&, std::int64_t);
template double tile_chain<double>(const Series<double>&, std::int64_t);

}  // namespace parasol::recurrence
