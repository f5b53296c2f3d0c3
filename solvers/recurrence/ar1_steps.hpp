// An AR(1) series' steps as one function of their place (docs/generated-inputs.md), the same on
// the host (ar1_series and ar1_part, problems.cpp, on every core) and on the device
// (DeviceSeries' generated constructor, ar1_draw.cu), bit for bit: the normals' log, sin and cos
// are kernels/portable_math.hpp's, and every operation here is rounded to nearest, never fused.
#pragma once

#include <cstdint>

#include "kernels/portable_math.hpp"
#include "kernels/seeded_draws.hpp"
#include "solvers/recurrence/params.hpp"

namespace parasol::recurrence {

// s and u of two steps, j and j + 1.
struct Ar1Pair {
  double s0, u0, s1, u1;
};

// Steps j and j + 1 (j even) of the series whose normals are `noise`'s words and whose
// time-varying coefficients are `coefficients`' (CounterDraws(a.seed, 2k) and (a.seed, 2k + 1)
// for series k): one Box-Muller pair, words j and j + 1, serves both. Step j + 1 is past the
// series' end when j + 1 = a.length (an odd length), and then unused.
PARASOL_HOST_DEVICE PARASOL_INLINE_DRAW inline Ar1Pair ar1_pair(const Ar1& a,
                                                                const CounterDraws& noise,
                                                                const CounterDraws& coefficients,
                                                                std::int64_t j) {
  using portable::Rn;
  const auto w = static_cast<std::uint64_t>(j);
  const SeededDraws::Pair normals = SeededDraws::normal_pair(noise.word(w), noise.word(w + 1));
  double s0 = a.phi, s1 = a.phi;
  if (a.time_varying) {
    const Rn width = Rn(a.phi_max) - a.phi_min;
    s0 = (Rn(a.phi_min) + width * SeededDraws::open_unit_of(coefficients.word(w))).v;
    s1 = (Rn(a.phi_min) + width * SeededDraws::open_unit_of(coefficients.word(w + 1))).v;
  }
  return {s0, (Rn(a.sigma) * normals.first).v, s1, (Rn(a.sigma) * normals.second).v};
}

}  // namespace parasol::recurrence
