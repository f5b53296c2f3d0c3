#include "solvers/fftconv/signals.hpp"

#include <algorithm>
#include <cmath>
#include <type_traits>

#include "kernels/cpu_threads.hpp"
#include "kernels/host_memory.hpp"
#include "kernels/seeded_draws.hpp"
#include "solvers/fftconv/signal_sample.hpp"

namespace parasol::fftconv {
namespace {

std::vector<double> taps_along(const Filter& f, std::int64_t taps) {
  return f.kind == FilterKind::box ? box_taps(taps) : gaussian_taps(taps, gaussian_sigma(f, taps));
}

}  // namespace

template <class T>
std::vector<T> generate_signal(const Signal& s) {
  return generate_signals<T>(s, 0, s.batch);
}

template <class T>
std::vector<T> generate_signals(const Signal& s, std::int64_t first, std::int64_t count) {
  const std::int64_t size = s.depth * s.rows * s.length;
  std::vector<T> values = huge_vector<T>(static_cast<std::size_t>(count * size));
  generate_samples(s, first * size, count * size, values.data());
  return values;
}

template <class T>
void generate_samples(const Signal& s, std::int64_t first, std::int64_t count, T* into) {
  const SampleRule rule_of_all = sample_rule(s);
  // A chunk's samples on one thread, a pair at a time (sample_pair): the chunks are even in
  // length, so a pair is split between two chunks only at a stretch's odd first sample, and
  // then each makes the pair and keeps its own half.
  constexpr std::int64_t kSamplesAtOnce = std::int64_t{1} << 14;
  for_chunks(
      count, kSamplesAtOnce,
      [&](std::int64_t begin, std::int64_t end) {
        // The thread's own copy: the stores through `into` might alias the caller's, so the
        // compiler would read the rule again at every pair and keep its tests in the loop.
        const SampleRule rule = rule_of_all;
        for (std::int64_t at = first + begin; at < first + end;) {
          // Samples [i, stop) of signal b, into `out` from its sample 0.
          const std::int64_t b = at / rule.size;
          const std::int64_t i = at - b * rule.size;
          const std::int64_t stop = std::min(first + end, (b + 1) * rule.size) - b * rule.size;
          T* out = into + (b * rule.size - first);
          const CounterDraws draws(rule.seed, static_cast<std::uint64_t>(b));
          std::int64_t q = i / 2;
          if (i % 2 == 1) out[i] = static_cast<T>(sample_pair(rule, draws, q++).second);
          // The loop for each kind, its choices constants: a test in the loop would keep it from
          // running in vector registers (noise; a chirp's i mod length keeps it scalar anyway).
          const auto whole_pairs = [&](auto chirp, auto noisy) {
            SampleRule r = rule;
            r.chirp = decltype(chirp)::value;
            r.noisy = decltype(noisy)::value;
            for (; 2 * q + 1 < stop; ++q) {
              const SamplePair pair = sample_pair(r, draws, q);
              out[2 * q] = static_cast<T>(pair.first);
              out[2 * q + 1] = static_cast<T>(pair.second);
            }
          };
          if (!rule.chirp)
            whole_pairs(std::false_type{}, std::true_type{});
          else if (rule.noisy)
            whole_pairs(std::true_type{}, std::true_type{});
          else
            whole_pairs(std::true_type{}, std::false_type{});
          if (2 * q < stop) out[2 * q] = static_cast<T>(sample_pair(rule, draws, q).first);
          at = b * rule.size + stop;
        }
      },
      [](std::int64_t) {});
}

template <class T>
std::vector<T> generate_filter(const Filter& f) {
  const std::vector<double> across = taps_along(f, f.length);
  const std::vector<double> down = f.rows == 1 ? std::vector<double>{1.0} : taps_along(f, f.rows);
  const std::vector<double> deep =
      f.depth == 1 ? std::vector<double>{1.0} : taps_along(f, f.depth);
  std::vector<T> taps(static_cast<std::size_t>(f.depth * f.rows * f.length));
  std::size_t at = 0;
  for (std::size_t z = 0; z < deep.size(); ++z)
    for (std::size_t r = 0; r < down.size(); ++r)
      for (std::size_t c = 0; c < across.size(); ++c)
        taps[at++] = static_cast<T>(deep[z] * down[r] * across[c]);
  return taps;
}

// Taken relative to the tap nearest the centre (which is then exactly 1), so a sigma far below a
// tap's spacing gives a unit impulse (an even count: two halves) rather than 0 / 0.
std::vector<double> gaussian_taps(std::int64_t taps, double sigma) {
  std::vector<double> g(static_cast<std::size_t>(taps));
  const double centre = 0.5 * static_cast<double>(taps - 1);
  const double nearest = taps % 2 == 1 ? 0.0 : 0.5;
  double sum = 0;
  for (std::int64_t i = 0; i < taps; ++i) {
    const double d = std::abs(static_cast<double>(i) - centre);
    const double tap = std::exp(-0.5 * ((d - nearest) * (d + nearest) / sigma) / sigma);
    g[static_cast<std::size_t>(i)] = tap;
    sum += tap;
  }
  for (double& x : g) x /= sum;
  return g;
}

std::vector<double> box_taps(std::int64_t taps) {
  return std::vector<double>(static_cast<std::size_t>(taps), 1.0 / static_cast<double>(taps));
}

double gaussian_sigma(const Filter& f, std::int64_t taps) {
  return f.sigma > 0 ? f.sigma : static_cast<double>(taps) / 6.0;
}

template std::vector<float> generate_signal<float>(const Signal&);
template std::vector<double> generate_signal<double>(const Signal&);
template std::vector<float> generate_signals<float>(const Signal&, std::int64_t, std::int64_t);
template std::vector<double> generate_signals<double>(const Signal&, std::int64_t, std::int64_t);
template void generate_samples<float>(const Signal&, std::int64_t, std::int64_t, float*);
template void generate_samples<double>(const Signal&, std::int64_t, std::int64_t, double*);
template std::vector<float> generate_filter<float>(const Filter&);
template std::vector<double> generate_filter<double>(const Filter&);

}  // namespace parasol::fftconv
