// fftconv's keys, declared once (kernels/declaration.hpp): what a parameter file may say, read
// by the front ends and listed by `parasol keys fftconv` and docs/parameters.md. Volumes
// (Params::is_volume) read the same keys into the same Params; which problem it is follows from
// them.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "kernels/declaration.hpp"
#include "kernels/method_axes.hpp"
#include "kernels/sweep_keys.hpp"
#include "solvers/fftconv/params.hpp"

namespace parasol::fftconv {

// What `parasol sweep` times: the [sweep] table.
struct SweepParams {
  std::vector<Variant> variants;  // default: auto, then every variant
  // Timed convolutions per variant, after a warm-up; the median is reported.
  Repeats repeats{10, kSweepMinTime};
};

const Keys<Params>& keys();
const Keys<SweepParams>& sweep_keys();
// The method's axes (kernels/method_axes.hpp): the variant a sweep varies (its column), and what
// --autotune stores and method.variant = "auto" restores: the variant that ran, and
// overlap-save's block. /method records neither (a run's variant is /output@variant, what ran).
const MethodAxes<Params>& method_axes(const Params&);

// The declared key a solver's check names by its last word ("block": method.block, "mode":
// problem.mode), so that the solver's messages name what the parameter file says; a word no
// declared key ends in ("signal", "filters") is returned as it is.
std::string file_key(std::string_view solver_key);

}  // namespace parasol::fftconv
