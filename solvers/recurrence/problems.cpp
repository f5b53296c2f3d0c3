#include "solvers/recurrence/problems.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <future>
#include <type_traits>
#include <vector>

#include "kernels/cpu_threads.hpp"
#include "kernels/error.hpp"
#include "kernels/host_memory.hpp"
#include "kernels/seeded_draws.hpp"
#include "solvers/recurrence/ar1_steps.hpp"

namespace parasol::recurrence {
namespace {

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

// s and u of n elements each, in fresh memory first touched on two threads at once: the page
// faults are most of what a fresh array of gigabytes costs (kernels/host_memory.hpp).
template <class T>
void fresh_elements(Series<T>& series, std::int64_t n) {
  const auto count = static_cast<std::size_t>(n);
  std::future<std::vector<T>> u =
      std::async(std::launch::async, [count] { return huge_vector<T>(count); });
  series.s = huge_vector<T>(count);
  series.u = u.get();
}

// Elements [begin, end) of the AR(1) series laid one after another (series k's step j is element
// k a.length + j), into s and u from their starts, on every core: a pair of steps at a time, as
// ar1_pair (ar1_steps.hpp) makes them.
template <class T>
void draw_ar1(const Ar1& problem, std::int64_t begin, std::int64_t end, T* s, T* u) {
  if (begin >= end) return;
  const std::int64_t length = problem.length;
  // Pair p is pair p % pairs of series p / pairs: steps 2 (p % pairs) and the one after, when
  // there is one (an odd length leaves the last pair half used).
  const std::int64_t pairs = (length + 1) / 2;
  const auto pair_of = [&](std::int64_t i) { return i / length * pairs + i % length / 2; };
  const std::int64_t first_pair = pair_of(begin), count = pair_of(end - 1) + 1 - first_pair;
  constexpr std::int64_t kPairsAtOnce = std::int64_t{1} << 14;  // a thread's share at a time
  for_chunks(
      count, kPairsAtOnce,
      [&](std::int64_t first, std::int64_t last) {
        // The thread's own copy: the stores through s and u might alias the caller's, so the
        // compiler would read it again at every pair and keep its tests in the loop.
        const Ar1 a = problem;
        for (std::int64_t p = first_pair + first; p < first_pair + last;) {
          const std::int64_t k = p / pairs, stop = std::min(first_pair + last, (k + 1) * pairs);
          const CounterDraws noise(a.seed, 2 * k), coefficients(a.seed, 2 * k + 1);
          // Steps [lo, hi) of series k are this chunk's: its pairs', within [begin, end) and
          // the series. Only the first step of all (begin) may cut a pair at its start, and
          // only the last (end, or an odd length) at its end: between them every pair is
          // written whole, with no test in the loop.
          const std::int64_t at = k * a.length - begin;  // where step 0 of series k goes
          const std::int64_t lo = std::max(2 * (p - k * pairs), -at);
          const std::int64_t hi = std::min({2 * (stop - k * pairs), a.length, end - begin - at});
          const auto put = [&](std::int64_t j, double s_value, double u_value) {
            s[at + j] = static_cast<T>(s_value);
            u[at + j] = static_cast<T>(u_value);
          };
          std::int64_t j = lo - lo % 2;
          if (lo % 2 == 1) {
            const Ar1Pair pair = ar1_pair(a, noise, coefficients, j);
            put(j + 1, pair.s1, pair.u1);
            j += 2;
          }
          // The loop twice, a fixed and a time-varying coefficient, each with its choice a
          // constant: a test in the loop would keep it from running in vector registers.
          const auto whole_pairs = [&](auto varying) {
            Ar1 rule = a;
            rule.time_varying = decltype(varying)::value;
            for (; j + 1 < hi; j += 2) {
              const Ar1Pair pair = ar1_pair(rule, noise, coefficients, j);
              put(j, pair.s0, pair.u0);
              put(j + 1, pair.s1, pair.u1);
            }
          };
          if (a.time_varying)
            whole_pairs(std::true_type{});
          else
            whole_pairs(std::false_type{});
          if (j < hi) {
            const Ar1Pair pair = ar1_pair(a, noise, coefficients, j);
            put(j, pair.s0, pair.u0);
          }
          p = stop;
        }
      },
      [](std::int64_t) {});
}

}  // namespace

template <class T>
Series<T> ar1_series(const Ar1& a) {
  Series<T> series = ar1_segments<T>(a);
  const std::int64_t n = a.series * a.length;
  fresh_elements(series, n);
  draw_ar1(a, 0, n, series.s.data(), series.u.data());
  return series;
}

template <class T>
SeriesPart<T> ar1_part(const Ar1& a, int rank, int size, Cut cut) {
  SeriesPart<T> part = ar1_run<T>(a, rank, size, cut);
  if (part.series.offsets.back() == 0) return part;
  fresh_elements(part.series, part.series.offsets.back());
  draw_ar1(a, part.first, part.first + part.series.offsets.back(), part.series.s.data(),
           part.series.u.data());
  return part;
}

template <class T>
SeriesPart<T> ar1_run(const Ar1& a, int rank, int size, Cut cut) {
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
  for (std::int64_t k = k0; k <= k1; ++k) {
    if (k > k0) series.offsets.push_back(k * a.length - begin);
    series.initial.push_back(k == k0 && part.continued ? T(0) : static_cast<T>(a.x0));
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

namespace {

// chain = max(chain, double((at scale - weighted) / scale)) for scale > 0, dividing only where
// the ratio may beat the chain so far: a long-double division per element would take most of
// the pass. The test before dividing lets through every ratio within 2^-40 below the chain (far
// wider than the product's rounding), and the ratio then taken is the same as always: so the
// chain ends on the largest ratio whatever it started from below that, and in whatever order
// the elements come.
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

// What tile_chain's walk carries along a segment: scale_i = |s_i| scale_{i-1} + |u_i| and
// weighted_i = |s_i| weighted_{i-1} + tile(i) |u_i|, each from the initial value at the
// segment's first tile. The chain to i is tile(i) scale_i - weighted_i.
struct Walk {
  long double scale = 0, weighted = 0;
};

// The walk before segment k's first element.
template <class T>
Walk segment_start(const Series<T>& series, std::int64_t k, std::int64_t tile) {
  const long double scale = std::abs(static_cast<long double>(series.initial[k]));
  return {scale, static_cast<long double>(series.offsets[k] / tile) * scale};
}

// The walk along elements [first, last) of one segment from `walk`: each chain raised into
// `chain`, and scale_i stored in scale_out when given (magnitude_scale's value there: the same
// recurrence on the same long doubles).
template <class T>
Walk walk_along(const Series<T>& series, std::int64_t tile, std::int64_t first, std::int64_t last,
                Walk walk, double* scale_out, double& chain) {
  long double scale = walk.scale, weighted = walk.weighted;
  double raised = chain;
  TileOf tile_of(first, tile);
  for (std::int64_t i = first; i < last; ++i) {
    const long double s = std::abs(static_cast<long double>(series.s[i]));
    const long double u = std::abs(static_cast<long double>(series.u[i]));
    const long double at = tile_of(i);
    scale = s * scale + u;
    if (scale_out != nullptr) scale_out[i] = static_cast<double>(scale);
    weighted = s * weighted + at * u;
    raise_chain(raised, at, scale, weighted);
  }
  chain = raised;
  return {scale, weighted};
}

// Elements [first, last) of a segment replayed from `carry` beside their run from 0 (the walk
// from Walk{}), block by block of `block` elements, until the two have met (scale and weighted
// both) at the end of a block: scale_i stored, every chain raised. Returns the walk where the
// replay stopped, the element it stopped before, and whether the two met.
struct WalkReplayed {
  Walk walk;
  std::int64_t stop;
  bool met;
};
template <class T>
[[gnu::noinline]] WalkReplayed replay_walk(const Series<T>& series, std::int64_t tile,
                                       std::int64_t first, std::int64_t last, std::int64_t block,
                                       Walk carry, double* scale_out, double& chain) {
  Walk zero, exact = carry;
  bool met = false;
  double raised = chain;
  TileOf tile_of(first, tile);
  std::int64_t at_block = first;
  for (; at_block < last && !met; at_block += block) {
    for (std::int64_t i = at_block; i < std::min(last, at_block + block); ++i) {
      const long double s = std::abs(static_cast<long double>(series.s[i]));
      const long double u = std::abs(static_cast<long double>(series.u[i]));
      const long double at = tile_of(i);
      zero = {s * zero.scale + u, s * zero.weighted + at * u};
      exact = {s * exact.scale + u, s * exact.weighted + at * u};
      if (scale_out != nullptr) scale_out[i] = static_cast<double>(exact.scale);
      raise_chain(raised, at, exact.scale, exact.weighted);
      if (same_value(zero.scale, exact.scale) && same_value(zero.weighted, exact.weighted))
        met = true;
    }
  }
  chain = raised;
  return {exact, std::min(last, at_block), met};
}

// tile_chain's walk along every segment, in chunks of `chunk` elements on every core with the
// one-thread walk's values (recurrence.hpp, kGoldChunk): the chain returned, scale_i stored in
// scale_out when given. As in solve_gold, a chunk's stretch of a segment continued from the chunk
// before runs from the walk that chunk ended on where that is settled already, else from 0, in
// blocks whose chains are kept: once the replay from the carry has met the walk from 0, the
// blocks after it hold the chains the carry gives.
template <class T>
double walk_chain(const Series<T>& series, std::int64_t tile, double* scale_out,
                  std::int64_t chunk) {
  if (chunk < 1) throw Error("recurrence: the tile chain's chunks must hold an element at least");
  const std::int64_t n = series.size();
  const auto chunks = static_cast<std::size_t>((n + chunk - 1) / chunk);
  const std::int64_t block = std::max<std::int64_t>(1, chunk / 256);
  const std::int64_t blocks = (chunk + block - 1) / block;  // a chunk's at most
  const auto& offsets = series.offsets;
  std::vector<Walk> ends(chunks);
  std::vector<std::atomic<bool>> settled(chunks);
  std::vector<char> from_zero(chunks);
  std::vector<double> exact_chains(chunks);  // of the elements walked from an exact start
  std::vector<double> block_chains(chunks * static_cast<std::size_t>(blocks));
  // The chain of the block starting at element b of a stretch walked from 0.
  const auto block_chain = [&](std::int64_t b) -> double& {
    const std::int64_t c = b / chunk;
    return block_chains[static_cast<std::size_t>(c * blocks + (b - c * chunk) / block)];
  };
  for_chunks(
      n, chunk,
      [&](std::int64_t first, std::int64_t last) {
        const auto c = static_cast<std::size_t>(first / chunk);
        std::int64_t k = segment_holding(offsets, first);
        const bool continued = offsets[k] < first;
        const bool carried = continued && settled[c - 1].load(std::memory_order_acquire);
        from_zero[c] = continued && !carried;
        // Its end is the walk's own unless a stretch walked from 0 fills the chunk.
        const bool end_settled = !from_zero[c] || offsets[k + 1] < last;
        Walk walk;
        if (continued) {
          const std::int64_t stop = std::min(last, offsets[k + 1]);
          if (carried)
            walk = walk_along(series, tile, first, stop, ends[c - 1], scale_out, exact_chains[c]);
          else
            for (std::int64_t b = first; b < stop; b += block)
              walk = walk_along(series, tile, b, std::min(stop, b + block), walk, scale_out,
                                block_chain(b));
          first = stop;
          ++k;
        }
        for (; first < last; ++k) {
          const std::int64_t stop = std::min(last, offsets[k + 1]);
          if (stop <= first) continue;  // empty
          walk = walk_along(series, tile, first, stop, segment_start(series, k, tile), scale_out,
                            exact_chains[c]);
          first = stop;
        }
        ends[c] = walk;
        if (end_settled) settled[c].store(true, std::memory_order_release);
      },
      [](std::int64_t) {});
  // In order, each stretch walked from 0 replayed from the exact walk the chunk before ended on.
  double chain = 0;
  for (std::size_t c = 0; c < chunks; ++c) {
    chain = std::max(chain, exact_chains[c]);
    if (!from_zero[c]) continue;
    const std::int64_t first = static_cast<std::int64_t>(c) * chunk;
    const std::int64_t last = std::min(n, first + chunk);
    const std::int64_t stop = std::min(last, offsets[segment_holding(offsets, first) + 1]);
    const WalkReplayed r = replay_walk(series, tile, first, stop, block, ends[c - 1], scale_out, chain);
    for (std::int64_t b = r.stop; b < stop; b += block) chain = std::max(chain, block_chain(b));
    if (!r.met && stop == last) ends[c] = r.walk;
  }
  return chain;
}

}  // namespace

template <class T>
std::vector<double> magnitude_scale(const Series<T>& series, std::int64_t chunk) {
  check_series(series);
  std::vector<double> scale = huge_vector<double>(series.s.size());
  walk_chain(series, 1, scale.data(), chunk);  // its chain, of tiles of one element, unused
  return scale;
}

template <class T>
double tile_chain(const Series<T>& series, std::int64_t tile, std::int64_t chunk) {
  check_series(series);
  return walk_chain(series, tile, nullptr, chunk);
}

template <class T>
GoldScaleChain gold_scale_chain(const Series<T>& series, std::int64_t tile, std::int64_t chunk) {
  check_series(series);
  // The scale's fresh pages are touched on a thread of their own, beside the gold's and the gold
  // (a first touch is one thread's work). The gold and the walk then run one after the other,
  // each on every core: 2^28 floats on two cores took 1.1 s so, and 1.4 s side by side on one
  // core each, where the slower pass (the walk) sets the time.
  std::future<std::vector<double>> scale =
      std::async(std::launch::async, [n = series.s.size()] { return huge_vector<double>(n); });
  GoldScaleChain r;
  r.gold = solve_gold(series, {}, chunk);
  r.scale = scale.get();
  r.chain = walk_chain(series, tile, r.scale.data(), chunk);
  return r;
}

template GoldScaleChain gold_scale_chain<float>(const Series<float>&, std::int64_t, std::int64_t);
template GoldScaleChain gold_scale_chain<double>(const Series<double>&, std::int64_t, std::int64_t);
template Series<float> ar1_series<float>(const Ar1&);
template Series<double> ar1_series<double>(const Ar1&);
template SeriesPart<float> ar1_part<float>(const Ar1&, int, int, Cut);
template SeriesPart<double> ar1_part<double>(const Ar1&, int, int, Cut);
template SeriesPart<float> ar1_run<float>(const Ar1&, int, int, Cut);
template SeriesPart<double> ar1_run<double>(const Ar1&, int, int, Cut);
template Series<float> ar1_segments<float>(const Ar1&);
template Series<double> ar1_segments<double>(const Ar1&);
template Series<float> smoothing_series<float>(const std::vector<double>&, std::int64_t, double);
template Series<double> smoothing_series<double>(const std::vector<double>&, std::int64_t,
                                                 double);
template std::vector<double> magnitude_scale<float>(const Series<float>&, std::int64_t);
template std::vector<double> magnitude_scale<double>(const Series<double>&, std::int64_t);
template double tile_chain<float>(const Series<float>&, std::int64_t, std::int64_t);
template double tile_chain<double>(const Series<double>&, std::int64_t, std::int64_t);

}  // namespace parasol::recurrence
