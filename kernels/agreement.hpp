// One definition of "agrees with the gold". Each solver's check.hpp turns a result and its gold
// into an Agreement: the measure of their difference, the tolerance it is judged by, and the
// reason for that tolerance beside it. The tests, `parasol run --check`, `parasol sweep` and the
// benchmarks all call the same function, so none can pass what another rejects.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

namespace parasol {

struct Agreement {
  std::string measure;  // its name under /check: "max_abs_difference", "max_relative_to_scale"...
  double value = std::numeric_limits<double>::quiet_NaN();  // NaN when a NaN was met
  // The bound `value` is judged by. Infinity: no bound is known (a tridiagonal matrix that is not
  // diagonally dominant): the difference is reported, never judged.
  double tolerance = 0;
  std::string gold = "the double-precision CPU gold";  // what the result was compared with
  std::string gold_precision = "double";
  // What the summary line says after "check against <gold>: ", e.g. "max abs diff 3e-07, rms
  // diff 4e-08".
  std::string description;
  // Stored under /check besides the measure and the tolerance, in this order.
  std::vector<std::pair<std::string, double>> values;

  // NaN never passes; an unjudged difference does.
  bool passed() const { return !judged() || value <= tolerance; }
  bool judged() const { return !std::isinf(tolerance); }
};

// Differences taken in double. A NaN anywhere makes both NaN: it must not pass as agreement.
struct FieldDifference {
  double max_abs = 0;
  double rms = 0;
};

// The comparisons below run on every core the CPU solvers may use (cpu_threads()). They cut the
// arrays into blocks of a fixed length and combine the blocks' partial results in order, so a
// result has the same bits whatever the thread count. Defined in agreement.cpp for the element
// types the solvers compare: float or double results against a float or double gold.
template <class A, class B>
FieldDifference compare(const std::vector<A>& result, const std::vector<B>& gold);

template <class T>
double max_magnitude(const std::vector<T>& v);

// The largest |result - gold| / scale, point by point. NaN anywhere makes it NaN; a point whose
// scale is 0 must match exactly.
template <class A>
double max_relative_to_scale(const std::vector<A>& result, const std::vector<double>& gold,
                             const std::vector<double>& scale);

// "3.1e-07": a number as the summary lines print it.
std::string short_number(double value);

// A field compared point by point: max and rms of |result - gold| stored, and the measure
// `value` (computed by the caller: relative to a scale, say) judged by `tolerance`.
Agreement field_agreement(const FieldDifference& d, std::string measure, std::string measure_words,
                          double value, double tolerance);

}  // namespace parasol
