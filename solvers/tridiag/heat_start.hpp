// A random or step start's value at one point, the same on the host (heat_initial, heat.cpp)
// and on the device (march_heat_gpu, heat.cu), bit for bit: integer words and exact scalings
// alone. The sine start calls the C library's sin and is made on the host.
#pragma once

#include <cstdint>

#include "kernels/seeded_draws.hpp"
#include "solvers/tridiag/params.hpp"

namespace parasol::tridiag {

// Point j of grid g (of these grids: heat.first_grid + g of the whole problem's) when
// heat.initial is random or step; `draws` is CounterDraws(heat.seed, 0).
PARASOL_HOST_DEVICE inline double drawn_start_at(const Heat& heat, const CounterDraws& draws,
                                                 std::int64_t g, std::int64_t j) {
  const std::int64_t n = heat.points;
  if (heat.initial == Initial::random) {
    const auto word = static_cast<std::uint64_t>((heat.first_grid + g) * n + j);
    return SeededDraws::unit_of(draws.word(word));
  }
  // Point j sits at x = (j + 1) / (n + 1) on [0, 1]; 1 where 1/3 <= x <= 2/3.
  const std::int64_t x3 = 3 * (j + 1);
  return x3 >= n + 1 && x3 <= 2 * (n + 1) ? 1.0 : 0.0;
}

}  // namespace parasol::tridiag
