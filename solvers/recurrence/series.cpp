// The checks on a Series and the CPU gold solver: the recurrence as written, one element after
// another, in long double.
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
  const std::vector<std::int64_t>& offsets = series.offsets;
  if (offsets.size() != series.initial.size() + 1)
    bad_series("offsets has " + std::to_string(offsets.size()) + " entries for " +
               std::to_string(series.initial.size()) +
               " initial values; expected one more offset than initial values (segments + 1)");
  if (offsets.front() != 0)
    bad_series("offsets[0] is " + std::to_string(offsets.front()) + "; expected 0");
  for (std::size_t k = 0; k + 1 < offsets.size(); ++k)
    if (offsets[k + 1] < offsets[k])
      bad_series("offsets decrease at segment " + std::to_string(k) + ": offsets[" +
                 std::to_string(k) + "] = " + std::to_string(offsets[k]) + ", offsets[" +
                 std::to_string(k + 1) + "] = " + std::to_string(offsets[k + 1]) +
                 "; expected them non-decreasing");
  if (offsets.back() != static_cast<std::int64_t>(n))
    bad_series("offsets end at " + std::to_string(offsets.back()) + "; expected " +
               std::to_string(n) + ", the number of elements");
}

template <class T>
std::vector<double> solve_gold(const Series<T>& series) {
  check_series(series);
  std::vector<double> v(series.s.size());
  for (std::int64_t k = 0; k < series.segments(); ++k) {
    const auto first = static_cast<std::size_t>(series.offsets[k]);
    const auto end = static_cast<std::size_t>(series.offsets[k + 1]);
    long double value = series.initial[k];
    for (std::size_t i = first; i < end; ++i) {
      value = static_cast<long double>(series.s[i]) * value + series.u[i];
      v[i] = static_cast<double>(value);
    }
  }
  return v;
}

template void check_series<float>(const Series<float>&);
template void check_series<double>(const Series<double>&);
template std::vector<double> solve_gold<float>(const Series<float>&);
template std::vector<double> solve_gold<double>(const Series<double>&);

}  // namespace parasol::recurrence
