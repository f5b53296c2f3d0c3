// The CPU gold solver and the random test systems every variant is judged on.
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "kernels/cpu_threads.hpp"
#include "kernels/error.hpp"
#include "kernels/host_memory.hpp"
#include "kernels/seeded_draws.hpp"
#include "solvers/tridiag/random_rows.hpp"
#include "solvers/tridiag/tridiag.hpp"

namespace parasol::tridiag {
namespace {

void check_dims(const Dims& dims, const char* caller) {
  if (dims.n < 1 || dims.systems < 0 ||
      (dims.systems > 0 && dims.n > INT64_MAX / dims.systems))
    throw Error(std::string(caller) + ": expected n >= 1 and systems >= 0 with n x systems in " +
                "range, got n " + std::to_string(dims.n) + ", " + std::to_string(dims.systems) +
                " systems");
}

// Where one system's elimination stopped; row < 0 when it did not.
struct Failure {
  std::int64_t row = -1;
  const char* what = "";
};

// The Thomas algorithm on system m, in double: c' and d' down the rows, x back up. `cp` and `dp`
// are scratch of n elements; x is written in the batch's layout.
template <class T>
Failure solve_system(const Batch<T>& batch, std::int64_t m, double* cp, double* dp, double* x) {
  const Dims& dims = batch.dims;
  const std::int64_t n = dims.n;
  for (std::int64_t i = 0; i < n; ++i) {
    const std::int64_t k = dims.index(m, i);
    // a of the first row and c of the last are outside the matrix: never read.
    const double a = i > 0 ? static_cast<double>(batch.a[k]) : 0.0;
    const double b = static_cast<double>(batch.b[k]);
    const double c = i < n - 1 ? static_cast<double>(batch.c[k]) : 0.0;
    const double d = static_cast<double>(batch.d[k]);
    if (!std::isfinite(a) || !std::isfinite(b) || !std::isfinite(c) || !std::isfinite(d))
      return {i, "non-finite value"};
    const double pivot = i > 0 ? b - a * cp[i - 1] : b;
    if (pivot == 0) return {i, "zero pivot"};
    cp[i] = c / pivot;
    dp[i] = (i > 0 ? d - a * dp[i - 1] : d) / pivot;
    if (!std::isfinite(pivot) || !std::isfinite(cp[i]) || !std::isfinite(dp[i]))
      return {i, "non-finite value"};
  }
  double next = 0;  // x of the row below
  for (std::int64_t i = n - 1; i >= 0; --i) {
    const double xi = i < n - 1 ? dp[i] - cp[i] * next : dp[i];
    if (!std::isfinite(xi)) return {i, "non-finite value"};
    x[dims.index(m, i)] = xi;
    next = xi;
  }
  return {};
}

}  // namespace

template <class T>
Batch<T> random_batch(const Dims& dims, std::uint64_t seed, std::int64_t first_system) {
  check_dims(dims, "tridiag::random_batch");
  Batch<T> batch;
  batch.dims = dims;
  const auto size = static_cast<std::size_t>(dims.size());
  batch.a.resize(size);
  batch.b.resize(size);
  batch.c.resize(size);
  batch.d.resize(size);
  // Five words a row, counted from the whole batch's first row (tridiag.hpp), whatever the
  // layout or the ends: a seed gives the same systems in either layout, and any systems are
  // drawn alone, on every core.
  const CounterDraws draws(seed, 0);
  constexpr std::int64_t kRowsAtOnce = std::int64_t{1} << 12;
  for_chunks(
      dims.systems * dims.n, kRowsAtOnce,
      [&](std::int64_t first, std::int64_t last) {
        for (std::int64_t row = first; row < last; ++row) {
          const std::int64_t m = row / dims.n, i = row % dims.n;
          const RandomRow<T> drawn = random_row<T>(draws, dims.n, first_system * dims.n + row);
          const auto k = static_cast<std::size_t>(dims.index(m, i));
          batch.a[k] = drawn.a;
          batch.b[k] = drawn.b;
          batch.c[k] = drawn.c;
          batch.d[k] = drawn.d;
        }
      },
      [](std::int64_t) {});
  return batch;
}

template <class T>
std::vector<double> solve_gold(const Batch<T>& batch) {
  const Dims& dims = batch.dims;
  check_dims(dims, "tridiag::solve_gold");
  const auto size = static_cast<std::size_t>(dims.size());
  if (batch.a.size() != size || batch.b.size() != size || batch.c.size() != size ||
      batch.d.size() != size)
    throw Error("tridiag::solve_gold: a, b, c and d must each hold n x systems = " +
                std::to_string(size) + " elements");
  std::vector<double> x = huge_vector<double>(size);
  // Systems are independent; the lowest failing one is reported, as the GPU solvers do.
  std::int64_t failed_system = dims.systems;
  Failure failure;
#pragma omp parallel
  {
    std::vector<double> cp(static_cast<std::size_t>(dims.n)), dp(cp.size());
#pragma omp for schedule(static)
    for (std::int64_t m = 0; m < dims.systems; ++m) {
      const Failure f = solve_system(batch, m, cp.data(), dp.data(), x.data());
      if (f.row >= 0) {
#pragma omp critical(parasol_tridiag_gold_failure)
        if (m < failed_system) {
          failed_system = m;
          failure = f;
        }
      }
    }
  }
  if (failed_system < dims.systems)
    throw NumericalError(failed_system, "system " + std::to_string(failed_system) + ": " +
                                            failure.what + " at row " +
                                            std::to_string(failure.row));
  return x;
}

#define PARASOL_TRIDIAG_GOLD(T)                                              \
  template Batch<T> random_batch<T>(const Dims&, std::uint64_t, std::int64_t);            \
  template std::vector<double> solve_gold<T>(const Batch<T>&);
PARASOL_TRIDIAG_GOLD(float)
PARASOL_TRIDIAG_GOLD(double)
#undef PARASOL_TRIDIAG_GOLD

}  // namespace parasol::tridiag
