// coulomb's one definition of agreement with the gold, used by the tests, `parasol run --check`,
// `parasol sweep` and the benchmarks.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

#include "kernels/agreement.hpp"
#include "solvers/coulomb/coulomb.hpp"
#include "solvers/coulomb/params.hpp"

namespace parasol::coulomb {

// Each point's error is measured against its magnitude scale, sum |k q| / r (magnitude_scale()),
// not against the potential, which can cancel to zero. Every variant takes the same float terms
// (one rsqrt.approx each, within 2^-22.9 of the root) and sums them in float; they differ in how
// deep the sums go, and so in the tolerance:
// - the gather variants sum at most 256 terms a tile and add the tiles' sums into a running
//   total: about sqrt(256) + sqrt(atoms / 256) roundings deep, some 1e-6 of the scale for 10^4
//   atoms. 1e-5 leaves a tenfold margin; a lost tile is off by 256 terms and a wrong index by the
//   change of every near term across a lattice spacing, each a good fraction of the scale.
// - scatter adds every term straight into its point with atomics, in whatever order they land:
//   one float running sum per point, as deep as there are atoms (9001 in the tests, thousands in
//   its sweeps), so 5e-5.
inline double tolerance(Variant v) { return v == Variant::scatter ? 5e-5 : 1e-5; }

// The bound `parasol run --check`, the sweep and the benchmark judge by, for `atoms` atoms: the
// variant's, or where a point's sum runs through more terms than its tiles suggest (a lattice too
// small to fill the device has its atoms summed in slices, each one running sum) the rigorous
// bound of a float running sum of n terms, each a part of the scale: (n - 1) u of it, u = eps / 2.
// A lattice of 2048^2 points and 4000 atoms measured 2.9e-5 of the scale on an H100 (gather),
// under this bound's 2.4e-4; a lost tile or a wrong index stays a good fraction of the scale. The
// tests judge their small problems by tolerance(v) alone.
inline double tolerance(Variant v, std::size_t atoms) {
  const double running_sum =
      0.5 * std::numeric_limits<float>::epsilon() * static_cast<double>(atoms > 0 ? atoms - 1 : 0);
  return std::max(tolerance(v), running_sum);
}

// The CPU run's result is the gold rounded to float: half an ulp of each value at most, and a
// value is no larger than its scale. One ulp leaves room for the scale's own rounding.
inline constexpr double kRoundedGoldTolerance = std::numeric_limits<float>::epsilon();

// The bound a run of p with `atoms` atoms is checked by: its variant's on the GPU, that of the
// gold rounded to float for a CPU run.
inline double run_tolerance(const Params& p, std::size_t atoms, bool gpu) {
  return gpu ? tolerance(p.variant, atoms) : kRoundedGoldTolerance;
}

// max |result - gold| / scale over the lattice against `tolerance`; max and rms |result - gold|
// are stored beside it.
inline Agreement agreement(const std::vector<float>& result, const std::vector<double>& gold,
                           const std::vector<double>& scale, double tolerance) {
  return field_agreement(compare(result, gold), "max_relative_to_scale", "max relative to scale",
                         max_relative_to_scale(result, gold, scale), tolerance);
}

// A sweep checks each configuration at every kSweepCheckStride-th x row of the lattice
// (sampled_rows), against the gold of those rows alone: a seventeenth of the gold's sums. 17 is
// prime to the block shapes and coarsenings (powers of two), so the rows fall at every position
// within a block; a lost tile or a wrong index moves whole rows. `parasol run --check` and the
// tests judge the whole lattice.
inline constexpr std::int64_t kSweepCheckStride = 17;

// The result at the x rows `rows` lists (in the lattice's [nz][ny][nx] order, row r starting at
// point r nx) against their gold (solve_gold_with_scale_rows), as agreement() judges them.
inline Agreement agreement_at_rows(const std::vector<float>& result, std::int64_t nx,
                                   const std::vector<std::int64_t>& rows,
                                   const GoldWithScale& gold, double tolerance) {
  std::vector<float> picked;
  picked.reserve(rows.size() * static_cast<std::size_t>(nx));
  for (std::int64_t r : rows) {
    const auto first = static_cast<std::size_t>(r * nx);
    if (first + static_cast<std::size_t>(nx) > result.size())
      return agreement({}, gold.potential, gold.scale, tolerance);  // sizes differ: NaN
    picked.insert(picked.end(), result.begin() + static_cast<std::ptrdiff_t>(first),
                  result.begin() + static_cast<std::ptrdiff_t>(first + static_cast<std::size_t>(nx)));
  }
  return agreement(picked, gold.potential, gold.scale, tolerance);
}

}  // namespace parasol::coulomb
