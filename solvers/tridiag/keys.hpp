// tridiag's keys, declared once (kernels/declaration.hpp): what a parameter file may say, read by
// the front ends and listed by `parasol keys tridiag` and docs/parameters.md.
#pragma once

#include <vector>

#include "kernels/declaration.hpp"
#include "kernels/method_axes.hpp"
#include "kernels/sweep_keys.hpp"
#include "solvers/tridiag/params.hpp"

namespace parasol::tridiag {

// What `parasol sweep` times: the [sweep] table.
struct SweepParams {
  std::vector<Variant> variants;  // default: every variant
  std::vector<int> threads{64, 128, 256, 512, 1024};
  std::vector<int> chunks;   // default: every chunk compiled for each variant
  Repeats repeats{7, kSweepMinTime};  // timed solves per row, after a warm-up; the median
};

// The keys of Params. Each problem's keys are read only with that problem.kind; the front end
// refuses the other problem's keys rather than noting them (docs/parameters.md).
const Keys<Params>& keys();
const Keys<SweepParams>& sweep_keys();
// The method's axes (kernels/method_axes.hpp): the variant, threads and chunk a sweep varies and
// --autotune stores, and the layout /method records. A run records its launch as it runs
// (launch_for's, or the partition method's for one long system), so the Params it passes hold
// the resolved launch; "auto" falls back to the kind's own variant (default_variant).
const MethodAxes<Params>& method_axes(const Params&);

}  // namespace parasol::tridiag
