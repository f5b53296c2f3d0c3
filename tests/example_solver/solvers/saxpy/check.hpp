// saxpy's one definition of agreement with the gold, for its tests, `--check` and the sweep.
#pragma once
#include <cmath>
#include <limits>
#include <vector>

#include "kernels/agreement.hpp"
#include "solvers/saxpy/params.hpp"

namespace parasol::saxpy {

// One fma per element, rounded once to float, with a rounded to float: half an ulp of
// |a x + y| <= |a| + 1 each. Four ulps leave room for a compiler that does not fuse; a wrong
// index is off by O(1).
inline double tolerance(const Params& p) {
  return 4 * std::numeric_limits<float>::epsilon() * (std::abs(p.a) + 1);
}
inline Agreement agreement(const Params& p, const std::vector<float>& y,
                           const std::vector<double>& gold) {
  const FieldDifference d = compare(y, gold);
  return field_agreement(d, "max_abs_difference", "max abs diff", d.max_abs, tolerance(p));
}

}  // namespace parasol::saxpy
