// recurrence's one definition of agreement with the gold, used by the tests, `parasol run
// --check`, `parasol sweep` and the benchmarks.
#pragma once

#include <cstdint>
#include <limits>
#include <vector>

#include "kernels/agreement.hpp"
#include "kernels/compare.hpp"
#include "solvers/recurrence/problems.hpp"
#include "solvers/recurrence/recurrence.hpp"

namespace parasol::recurrence {

// The largest |v - gold| allowed, in units of the magnitude scale (problems.hpp: the gold of
// |s|, |u| and |initial|, which bounds every term summed into v, so round-off in any order of
// evaluation is a multiple of it), for a series whose tile_chain (problems.hpp) is `chain`.
//
// Each combine of the scan, (s1, u1) o (s2, u2) = (s1 s2, s2 u1 + u2), rounds twice, half an ulp
// each. Within its tile an element passes through about 30 of them (its thread's run of
// elements, the warp's and the block's trees, the tile's prefix): 96 ulps covers them. Beyond
// its tile a term is carried to it through two combines per tile boundary (the look-back's and
// the tile's own prefix), each rounding a value no larger than the scale of what it carries:
// 2 ulps per boundary, weighted by the share of the scale that crosses it, which is what
// tile_chain measures. That is a worst case, not a random walk, so a running sum (s = 1) of
// constant values, whose roundings all fall one way, stays inside it; on damped series (|s| < 1,
// the tests' and the examples') it adds a few ulps. A wrong index or a lost tile prefix is off
// by a good fraction of the scale.
template <class T>
double tolerance(double chain) {
  return std::numeric_limits<T>::epsilon() * (96 + 2 * chain);
}

// The measure the check and the sweep store.
inline constexpr const char* kMeasure = "max_relative_to_scale";

// v against the gold, every element's difference relative to its magnitude scale, judged by
// tolerance<T>(tile_chain(series, kTileElements<T>)).
// The comparison made on the device (kernels/compare.hpp: the same measure), judged alike.
template <class T>
Agreement agreement(const ScaledComparison& c, double chain) {
  Agreement a = field_agreement(c.difference, kMeasure, "max relative to scale", c.max_relative,
                                tolerance<T>(chain));
  a.gold = "the long-double CPU gold";
  a.gold_precision = "long double";
  a.values.emplace_back("tile_chain", chain);
  return a;
}

template <class T>
Agreement agreement(const std::vector<T>& v, const std::vector<double>& gold,
                    const std::vector<double>& scale, double chain) {
  return agreement<T>(ScaledComparison{compare(v, gold), max_relative_to_scale(v, gold, scale)},
                      chain);
}

// The same, with the scale and the chain taken from the series.
template <class T>
Agreement agreement(const std::vector<T>& v, const std::vector<double>& gold,
                    const Series<T>& series) {
  return agreement(v, gold, magnitude_scale(series), tile_chain(series, kTileElements<T>));
}

}  // namespace parasol::recurrence
