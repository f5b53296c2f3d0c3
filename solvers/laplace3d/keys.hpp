// laplace3d's keys, declared once (kernels/declaration.hpp): what a parameter file may say, read
// by the front ends and listed by `parasol keys laplace3d` and docs/parameters.md.
#pragma once

#include <cstdint>
#include <vector>

#include "kernels/declaration.hpp"
#include "kernels/method_axes.hpp"
#include "kernels/sweep_keys.hpp"
#include "solvers/laplace3d/params.hpp"

namespace parasol::laplace3d {

// What `parasol sweep` times: the [sweep] table.
struct SweepParams {
  std::vector<Variant> variants;  // default: every variant
  std::vector<Shape> blocks;      // default: every shape compiled for each variant
  std::int64_t iterations = 20;   // sweeps per timed repeat
  Repeats repeats{7, kSweepMinTime};  // timed repeats; the median is reported
  std::int64_t check_iterations = 4;
};

const Keys<Params>& keys();
const Keys<SweepParams>& sweep_keys();
// What a sweep times: each listed variant with each block compiled for it that sweep.blocks
// lists (every one when it lists none), in the run's parameters.
std::vector<Params> sweep_configurations(const Params& p, const SweepParams& s);
// A sweep that lists a block no listed variant compiles is refused: InputError at sweep.blocks
// (its source left to the caller, which knows the file).
void require_compiled(const SweepParams& s);
// The variant and the block shape: /method's, a sweep's columns and an autotune choice's.
const MethodAxes<Params>& method_axes(const Params&);

}  // namespace parasol::laplace3d
