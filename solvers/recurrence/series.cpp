// The checks on a Series and the CPU gold solver: the recurrence as written, one element after
// another, in long double, cut into chunks run on every core with the same bits.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "kernels/printable.hpp"
#include "kernels/cpu_threads.hpp"
#include "kernels/error.hpp"
#include "kernels/host_memory.hpp"
#include "solvers/recurrence/problems.hpp"
#include "solvers/recurrence/recurrence.hpp"

namespace parasol::recurrence {
namespace {

[[noreturn]] void bad_series(const std::string& expected) {
  throw InputError("", "input", expected);
}

}  // namespace

template <class T>
void check_series(const Series<T>& series) {
  const std::size_t n = series.s.size();
  if (series.u.size() != n)
    bad_series("s has " + std::to_string(n) + " elements but u has " +
               std::to_string(series.u.size()) + "; expected as many");
  check_offsets(series.offsets, series.initial.size(), static_cast<std::int64_t>(n));
}

void check_offsets(const std::vector<std::int64_t>& offsets, std::size_t segments, std::int64_t n) {
  if (offsets.size() != segments + 1)
    bad_series("offsets has " + std::to_string(offsets.size()) + " entries for " +
               std::to_string(segments) +
               " initial values; expected one more offset than initial values (segments + 1)");
  if (offsets.front() != 0)
    bad_series("offsets[0] is " + std::to_string(offsets.front()) + "; expected 0");
  for (std::size_t k = 0; k + 1 < offsets.size(); ++k)
    if (offsets[k + 1] < offsets[k])
      bad_series("offsets decrease at segment " + std::to_string(k) + ": offsets[" +
                 std::to_string(k) + "] = " + std::to_string(offsets[k]) + ", offsets[" +
                 std::to_string(k + 1) + "] = " + std::to_string(offsets[k + 1]) +
                 "; expected them non-decreasing");
  if (offsets.back() != n)
    bad_series("offsets end at " + std::to_string(offsets.back()) + "; expected " +
               std::to_string(n) + ", the number of elements");
}

template <class T>
[[gnu::noinline]] long double gold_run(const T* s, const T* u, std::int64_t n, long double value,
                                       double* v) {
  for (std::int64_t i = 0; i < n; ++i) {
    value = gold_step(s[i], value, u[i]);
    v[i] = static_cast<double>(value);
  }
  return value;
}

namespace {

// Elements [first, last) of the gold as its loop runs them, but for a segment continued from
// before `first`, which is run from `carry`; v stored, the value at last - 1 returned.
template <class T>
long double run_chunk(const Series<T>& series, std::int64_t first, std::int64_t last,
                      long double carry, double* v) {
  long double value = carry;
  for (std::int64_t k = segment_holding(series.offsets, first); first < last; ++k) {
    const std::int64_t start = series.offsets[k], stop = std::min(last, series.offsets[k + 1]);
    if (stop <= first) continue;  // empty
    if (start == first) value = series.initial[k];
    const std::int64_t count = stop - first;
    value = gold_run(series.s.data() + first, series.u.data() + first, count, value, v + first);
    first = stop;
  }
  return value;
}

}  // namespace

template <class T>
[[gnu::noinline]] Replayed replay_gold(const T* s, const T* u, std::int64_t n, long double carry,
                                       double* v) {
  long double from_zero = 0, value = carry;
  for (std::int64_t i = 0; i < n; ++i) {
    from_zero = gold_step(s[i], from_zero, u[i]);
    value = gold_step(s[i], value, u[i]);
    v[i] = static_cast<double>(value);
    if (same_value(from_zero, value)) return {value, true};
  }
  return {value, false};
}

template <class T>
std::vector<double> solve_gold(const Series<T>& series, const ProgressCallback& progress,
                               std::int64_t chunk) {
  check_series(series);
  if (chunk < 1) throw Error("recurrence: the gold's chunks must hold an element at least");
  const auto started = std::chrono::steady_clock::now();
  const auto report = [&](std::int64_t done) {
    if (progress)
      progress({done, series.size(),
                std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count()});
  };
  constexpr std::int64_t kReportEvery = std::int64_t{1} << 24;  // about 0.1 s in long double
  std::int64_t next_report = kReportEvery;
  const std::int64_t n = series.size();
  std::vector<double> v = huge_vector<double>(static_cast<std::size_t>(n));
  // Every chunk at once. A segment continued from the chunk before runs from the value that
  // chunk ended on where that is settled already (the loop's own: always so on one thread), else
  // from 0, to be replayed below.
  const auto chunks = static_cast<std::size_t>((n + chunk - 1) / chunk);
  std::vector<long double> ends(chunks);
  std::vector<std::atomic<bool>> settled(chunks);
  std::vector<char> from_zero(chunks);
  for_chunks(
      n, chunk,
      [&](std::int64_t first, std::int64_t last) {
        const auto c = static_cast<std::size_t>(first / chunk);
        const std::int64_t k = segment_holding(series.offsets, first);
        const bool continued = series.offsets[k] < first;
        const bool carried = continued && settled[c - 1].load(std::memory_order_acquire);
        from_zero[c] = continued && !carried;
        ends[c] = run_chunk(series, first, last, carried ? ends[c - 1] : 0.0L, v.data());
        // Its end is the loop's own unless a stretch run from 0 fills the chunk.
        if (!from_zero[c] || series.offsets[k + 1] < last)
          settled[c].store(true, std::memory_order_release);
      },
      [&](std::int64_t finished) {
        if (finished < next_report || finished == n) return;
        report(finished);
        next_report = (finished / kReportEvery + 1) * kReportEvery;
      });
  // Then in order, each stretch run from 0 replayed from the exact value the chunk before ended
  // on: where the replay meets the run from 0, the rest of the chunk is the loop's already, and
  // so is its end; where it never does, the replay is the stretch, and ends a chunk it fills.
  for (std::size_t c = 1; c < chunks; ++c) {
    if (!from_zero[c]) continue;
    const std::int64_t first = static_cast<std::int64_t>(c) * chunk;
    const std::int64_t last = std::min(n, first + chunk);
    const std::int64_t k = segment_holding(series.offsets, first);
    const std::int64_t stretch = std::min(last, series.offsets[k + 1]) - first;
    const Replayed r = replay_gold(series.s.data() + first, series.u.data() + first, stretch,
                              ends[c - 1], v.data() + first);
    if (!r.met && first + stretch == last) ends[c] = r.value;
  }
  report(n);
  return v;
}

template long double gold_run<float>(const float*, const float*, std::int64_t, long double,
                                    double*);
template long double gold_run<double>(const double*, const double*, std::int64_t, long double,
                                     double*);
template Replayed replay_gold<float>(const float*, const float*, std::int64_t, long double,
                                    double*);
template Replayed replay_gold<double>(const double*, const double*, std::int64_t, long double,
                                     double*);
template void check_series<float>(const Series<float>&);
template void check_series<double>(const Series<double>&);
template std::vector<double> solve_gold<float>(const Series<float>&, const ProgressCallback&,
                                               std::int64_t);
template std::vector<double> solve_gold<double>(const Series<double>&, const ProgressCallback&,
                                                std::int64_t);

template <class T>
std::string describe(const Params& p, const Series<T>& series) {
  const auto n = static_cast<long long>(series.offsets.back());
  const auto segments = static_cast<long long>(series.segments());
  const std::string precision = " (" + std::string(name(p.precision)) + ")";
  if (p.problem == Problem::ar1 && p.ar1.time_varying)
    return formatted("AR(1), %lld series x %lld steps, phi uniform in (%g, %g), sigma %g",
                     segments, n / segments, p.ar1.phi_min, p.ar1.phi_max, p.ar1.sigma) +
           precision;
  if (p.problem == Problem::ar1)
    return formatted("AR(1), %lld series x %lld steps, phi %g, sigma %g", segments, n / segments,
                     p.ar1.phi, p.ar1.sigma) +
           precision;
  if (p.problem == Problem::smoothing)
    return formatted("exponential smoothing (alpha %g) of %lld series, %lld values in all, from %s",
                     p.smoothing.alpha, segments, n, p.input.file.c_str()) +
           precision;
  return formatted("%lld elements in %lld segments from %s", n, segments, p.input.file.c_str()) +
         precision;
}

template <class T>
std::vector<std::uint64_t> field_dims(const Series<T>& series) {
  const std::int64_t segments = series.segments();
  const std::int64_t length = segments > 0 ? series.offsets[1] : 0;
  bool rows = segments > 1 && length > 0;
  for (std::int64_t k = 0; rows && k < segments; ++k)
    rows = series.offsets[k + 1] - series.offsets[k] == length;
  if (rows) return {static_cast<std::uint64_t>(segments), static_cast<std::uint64_t>(length)};
  return {static_cast<std::uint64_t>(series.offsets.back())};
}

template std::string describe<float>(const Params&, const Series<float>&);
template std::string describe<double>(const Params&, const Series<double>&);
template std::vector<std::uint64_t> field_dims<float>(const Series<float>&);
template std::vector<std::uint64_t> field_dims<double>(const Series<double>&);

}  // namespace parasol::recurrence
