#include "kernels/agreement.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>

namespace parasol {

namespace {

inline constexpr std::size_t kCompareBlock = std::size_t{1} << 16;

struct PartialDifference {
  double max_abs = 0, sum_sq = 0;
  bool nan = false;
};

template <class A, class B>
PartialDifference difference_of_block(const A* result, const B* gold, std::size_t first,
                                      std::size_t last) {
  PartialDifference p;
  for (std::size_t i = first; i < last; ++i) {
    const double e = static_cast<double>(result[i]) - static_cast<double>(gold[i]);
    if (std::isnan(e)) return {NAN, NAN, true};
    p.max_abs = std::max(p.max_abs, std::abs(e));
    p.sum_sq += e * e;
  }
  return p;
}

}  // namespace

template <class A, class B>
FieldDifference compare(const std::vector<A>& result, const std::vector<B>& gold) {
  if (result.size() != gold.size()) return {NAN, NAN};
  const std::size_t n = result.size();
  const auto blocks = static_cast<std::int64_t>((n + kCompareBlock - 1) / kCompareBlock);
  std::vector<PartialDifference> parts(static_cast<std::size_t>(blocks));
#pragma omp parallel for schedule(static)
  for (std::int64_t b = 0; b < blocks; ++b) {
    const std::size_t first = static_cast<std::size_t>(b) * kCompareBlock;
    parts[static_cast<std::size_t>(b)] = difference_of_block(
        result.data(), gold.data(), first, std::min(n, first + kCompareBlock));
  }
  FieldDifference d;
  double sum_sq = 0;
  for (const PartialDifference& p : parts) {
    if (p.nan) return {NAN, NAN};
    d.max_abs = std::max(d.max_abs, p.max_abs);
    sum_sq += p.sum_sq;
  }
  d.rms = n == 0 ? 0 : std::sqrt(sum_sq / static_cast<double>(n));
  return d;
}

template <class T>
double max_magnitude(const std::vector<T>& v) {
  const std::size_t n = v.size();
  double m = 0;
#pragma omp parallel for schedule(static) reduction(max : m)
  for (std::int64_t i = 0; i < static_cast<std::int64_t>(n); ++i)
    m = std::max(m, std::abs(static_cast<double>(v[static_cast<std::size_t>(i)])));
  return m;
}

template <class A>
double max_relative_to_scale(const std::vector<A>& result, const std::vector<double>& gold,
                             const std::vector<double>& scale) {
  if (result.size() != gold.size() || gold.size() != scale.size()) return NAN;
  const auto n = static_cast<std::int64_t>(result.size());
  double worst = 0;
  bool nan = false;
#pragma omp parallel for schedule(static) reduction(max : worst) reduction(|| : nan)
  for (std::int64_t j = 0; j < n; ++j) {
    const auto i = static_cast<std::size_t>(j);
    const double e = std::abs(static_cast<double>(result[i]) - gold[i]);
    if (std::isnan(e)) nan = true;
    else worst = std::max(worst, scale[i] > 0 ? e / scale[i] : (e == 0 ? 0 : INFINITY));
  }
  return nan ? NAN : worst;
}

template FieldDifference compare(const std::vector<float>&, const std::vector<double>&);
template FieldDifference compare(const std::vector<double>&, const std::vector<double>&);
template FieldDifference compare(const std::vector<float>&, const std::vector<float>&);
template double max_magnitude(const std::vector<float>&);
template double max_magnitude(const std::vector<double>&);
template double max_relative_to_scale(const std::vector<float>&, const std::vector<double>&,
                                      const std::vector<double>&);
template double max_relative_to_scale(const std::vector<double>&, const std::vector<double>&,
                                      const std::vector<double>&);

std::string short_number(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3g", value);
  return text;
}

Agreement field_agreement(const FieldDifference& d, std::string measure, std::string measure_words,
                          double value, double tolerance) {
  Agreement a;
  a.measure = std::move(measure);
  a.value = value;
  a.tolerance = tolerance;
  a.description = "max abs diff " + short_number(d.max_abs) + ", rms diff " + short_number(d.rms);
  if (a.measure != "max_abs_difference")
    a.description += ", " + measure_words + " " + short_number(value);
  a.values = {{"max_abs_difference", d.max_abs}, {"rms_difference", d.rms}};
  return a;
}

}  // namespace parasol
