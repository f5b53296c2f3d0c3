// A random test system's row as one function of its place (tridiag.hpp's random_batch;
// docs/generated-inputs.md), the same on the host (random_batch, gold.cpp) and on the device
// (solve_gpu of a drawn batch, tridiag.cu), bit for bit: integer words, and each operation
// rounded to nearest, never fused (kernels/portable_math.hpp).
#pragma once

#include <cstdint>

#include "kernels/portable_math.hpp"
#include "kernels/seeded_draws.hpp"

namespace parasol::tridiag {

template <class T>
struct RandomRow {
  T a, b, c, d;
};

// Row r of the whole batch of systems of n rows (system r / n, its row r mod n), from words 5r
// to 5r + 4 of `draws` (CounterDraws(seed, 0)); a is 0 in a system's first row, c in its last,
// and b dominates the row as a and c are stored in T.
template <class T>
PARASOL_HOST_DEVICE inline RandomRow<T> random_row(const CounterDraws& draws, std::int64_t n,
                                                   std::int64_t r) {
  using portable::Rn;
  const auto w = 5 * static_cast<std::uint64_t>(r);
  const std::int64_t i = r % n;
  const auto symmetric = [&](std::uint64_t k) {  // uniform in [-1, 1)
    return (Rn(2.0) * SeededDraws::unit_of(draws.word(w + k)) - 1.0).v;
  };
  const double magnitude_of_unit = SeededDraws::unit_of(draws.word(w + 2));
  const bool negative = (draws.word(w + 3) >> 63) != 0;
  const T a = static_cast<T>(i == 0 ? 0.0 : symmetric(0));
  const T c = static_cast<T>(i == n - 1 ? 0.0 : symmetric(1));
  const double at = static_cast<double>(a), ct = static_cast<double>(c);
  const double magnitude =
      (Rn(at < 0 ? -at : at) + (ct < 0 ? -ct : ct) + 1.0 + magnitude_of_unit).v;
  return {a, static_cast<T>(negative ? -magnitude : magnitude), c, static_cast<T>(symmetric(4))};
}

}  // namespace parasol::tridiag
