// recurrence's one definition of agreement with the gold, used by the tests, `parasol run
// --check`, `parasol sweep` and the benchmarks.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "kernels/agreement.hpp"
#include "solvers/recurrence/recurrence.hpp"

namespace parasol::recurrence {

// The largest |v - gold| allowed, in units of the magnitude scale (problems.hpp: the gold of
// |s|, |u| and |initial|, which bounds every term summed into v, so round-off in any order of
// evaluation is a multiple of it).
//
// Each combine of the scan, (s1, u1) o (s2, u2) = (s1 s2, s2 u1 + u2), rounds twice. Within its
// tile an element passes through about 30 of them (its thread's run of elements, the warp's and
// the block's trees, the tile's prefix): 96 ulps covers them. Beyond its tile it is reached
// through one combine per tile back to where the recurrence has damped away what lies before
// (|s| < 1), or to the series' start (|s| = 1: a running sum). Those roundings are independent
// and fall either way, so they add like a random walk: sqrt(tiles) ulps, for n elements in
// n / kTileElements tiles. A wrong index or a lost tile prefix is off by a good fraction of the
// scale.
template <class T>
double tolerance(std::int64_t n) {
  const double tiles = std::ceil(static_cast<double>(n) / static_cast<double>(kTileElements<T>));
  return std::numeric_limits<T>::epsilon() * (96 + std::sqrt(tiles));
}

// The measure the check and the sweep store.
inline constexpr const char* kMeasure = "max_relative_to_scale";

// v against the gold, every element's difference relative to its magnitude scale, judged by
// tolerance<T>(v.size()).
template <class T>
Agreement agreement(const std::vector<T>& v, const std::vector<double>& gold,
                    const std::vector<double>& scale) {
  Agreement a = field_agreement(compare(v, gold), kMeasure, "max relative to scale",
                                max_relative_to_scale(v, gold, scale),
                                tolerance<T>(static_cast<std::int64_t>(v.size())));
  a.gold = "the long-double CPU gold";
  a.gold_precision = "long double";
  return a;
}

}  // namespace parasol::recurrence
