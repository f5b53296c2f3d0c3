// poisson's keys, declared once (kernels/declaration.hpp): what a parameter file may say, read
// by the front ends and listed by `parasol keys poisson` and docs/parameters.md.
#pragma once

#include <cstdint>
#include <vector>

#include "kernels/declaration.hpp"
#include "kernels/method_axes.hpp"
#include "kernels/sweep_keys.hpp"
#include "solvers/poisson/params.hpp"

namespace parasol::poisson {

// What `parasol sweep` times: the [sweep] table.
struct SweepParams {
  std::vector<Variant> variants;    // default: every variant
  std::vector<Smoother> smoothers;  // default: both
  std::vector<Cycle> cycles;        // default: both
  Repeats repeats{7, kSweepMinTime};  // timed solves; the median is reported
};

const Keys<Params>& keys();
const Keys<SweepParams>& sweep_keys();
// The method's axes (kernels/method_axes.hpp): /method's variant, smoother, cycle and chosen_by,
// and the sweep's columns. No choice is stored: the sweep times each, and a run names its own.
const MethodAxes<Params>& method_axes(const Params&);

}  // namespace parasol::poisson
