// recurrence's keys, declared once (kernels/declaration.hpp): what a parameter file may say, read
// by the front ends and listed by `parasol keys recurrence` and docs/parameters.md.
#pragma once

#include "kernels/declaration.hpp"
#include "kernels/method_axes.hpp"
#include "kernels/sweep_keys.hpp"
#include "solvers/recurrence/params.hpp"

namespace parasol::recurrence {

// What `parasol sweep` times: the [sweep] table.
struct SweepParams {
  // Timed solves per mode, after a warm-up; the median is reported.
  Repeats repeats{20, kSweepMinTime};
};

// The keys of Params. ar1.phi_min and ar1.phi_max have no default: giving them asks for a
// coefficient drawn at every step (Ar1::time_varying), and then ar1.phi is not read. That both
// are given, and ar1.phi not with them, is the reader's to check: it depends on what the file
// sets, not on a value.
const Keys<Params>& keys();
const Keys<SweepParams>& sweep_keys();
// The scan's mode: /method's and a sweep's column. Not autotuned: the modes differ in what they
// promise, not only in speed.
const MethodAxes<Params>& method_axes(const Params&);

}  // namespace parasol::recurrence
