// laplace3d's one definition of agreement with the gold, used by the tests, `parasol run
// --check`, `parasol sweep` and the benchmarks.
#pragma once

#include <cstdint>
#include <limits>
#include <vector>

#include "kernels/agreement.hpp"

namespace parasol::laplace3d {

// Each update is six adds and a multiply, and the kernels add the neighbours in the gold's order,
// so a float result usually matches a float gold bit for bit and a double gold to float's
// rounding. 8 ulps of T per sweep, of the largest magnitude in the field, bounds any honest
// reordering or rounding; a wrong index is off by a good fraction of that magnitude. Jacobi
// iterates stay within the range of the boundary and starting values (a maximum principle), so
// `scale` is max |initial field|.
template <class T>
double tolerance(std::int64_t sweeps, double scale) {
  return 8.0 * static_cast<double>(sweeps) * std::numeric_limits<T>::epsilon() * scale;
}

// A difference already taken (on the device, say), judged against tolerance<T>(sweeps, scale).
template <class T>
Agreement agreement(const FieldDifference& d, std::int64_t sweeps, double scale) {
  return field_agreement(d, "max_abs_difference", "max abs diff", d.max_abs,
                         tolerance<T>(sweeps, scale));
}

// max |u - gold| against tolerance<T>(sweeps, scale).
template <class T, class G>
Agreement agreement(const std::vector<T>& u, const std::vector<G>& gold, std::int64_t sweeps,
                    double scale) {
  return agreement<T>(compare(u, gold), sweeps, scale);
}

}  // namespace parasol::laplace3d
