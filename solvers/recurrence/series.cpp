// The checks on a Series and the CPU gold solver: the recurrence as written, one element after
// another, in long double.
#include <algorithm>
#include <chrono>
#include <string>
#include <vector>

#include "kernels/error.hpp"
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

template <class T>
std::vector<double> solve_gold(const Series<T>& series, const ProgressCallback& progress) {
  check_series(series);
  const auto started = std::chrono::steady_clock::now();
  const auto report = [&](std::int64_t done) {
    if (progress)
      progress({done, series.size(),
                std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count()});
  };
  constexpr std::int64_t kReportEvery = std::int64_t{1} << 24;  // about 0.1 s in long double
  std::int64_t next_report = kReportEvery;
  std::vector<double> v(series.s.size());
  for (std::int64_t k = 0; k < series.segments(); ++k) {
    const std::int64_t end = series.offsets[k + 1];
    long double value = series.initial[k];
    for (std::int64_t i = series.offsets[k]; i < end;) {
      const std::int64_t stop = std::min(end, next_report);
      value = gold_run(series.s.data() + i, series.u.data() + i, stop - i, value, v.data() + i);
      i = stop;
      if (i == next_report) {
        report(i);
        next_report += kReportEvery;
      }
    }
  }
  report(series.size());
  return v;
}

template long double gold_run<float>(const float*, const float*, std::int64_t, long double,
                                    double*);
template long double gold_run<double>(const double*, const double*, std::int64_t, long double,
                                     double*);
template void check_series<float>(const Series<float>&);
template void check_series<double>(const Series<double>&);
template std::vector<double> solve_gold<float>(const Series<float>&, const ProgressCallback&);
template std::vector<double> solve_gold<double>(const Series<double>&, const ProgressCallback&);

}  // namespace parasol::recurrence
