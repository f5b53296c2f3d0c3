// Comparing a result with the gold solver's, and the small statistics the apps report.
#pragma once

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "apps/io/result_file.hpp"

namespace parasol::app {

struct FieldDifference {
  double max_abs = 0;
  double rms = 0;
};

// Differences taken in double. A NaN anywhere makes both NaN: it must not pass as agreement.
template <class A, class B>
FieldDifference compare(const std::vector<A>& result, const std::vector<B>& gold) {
  FieldDifference d;
  double sum_sq = 0;
  for (std::size_t i = 0; i < result.size(); ++i) {
    const double e = static_cast<double>(result[i]) - static_cast<double>(gold[i]);
    if (std::isnan(e)) return {NAN, NAN};
    d.max_abs = std::max(d.max_abs, std::abs(e));
    sum_sq += e * e;
  }
  d.rms = result.empty() ? 0 : std::sqrt(sum_sq / static_cast<double>(result.size()));
  return d;
}

// Writes /check: the difference and the precision the gold ran in.
void write_check(io::ResultFile& out, const FieldDifference& d, const std::string& gold_precision);

template <class T>
double max_magnitude(const std::vector<T>& v) {
  double m = 0;
  for (const T& x : v) m = std::max(m, std::abs(static_cast<double>(x)));
  return m;
}

double median(std::vector<double> values);

}  // namespace parasol::app
