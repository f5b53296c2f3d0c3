// coulomb's keys, declared once (kernels/declaration.hpp): what a parameter file may say, read
// by the front ends and listed by `parasol keys coulomb` and docs/parameters.md.
#pragma once

#include "kernels/declaration.hpp"
#include "kernels/method_axes.hpp"
#include "kernels/sweep_keys.hpp"
#include "solvers/coulomb/params.hpp"

namespace parasol::coulomb {

// What `parasol sweep` times: the [sweep] table.
struct SweepParams {
  // Timed runs per row, after the checked one; the median is reported.
  Repeats repeats{5, kSweepMinTime};
};

const Keys<Params>& keys();
const Keys<SweepParams>& sweep_keys();
// The variant, the block shape (none for scatter, which ignores it) and the points per thread:
// /method's, a sweep's columns and an autotune choice's.
const MethodAxes<Params>& method_axes(const Params&);

}  // namespace parasol::coulomb
