// The CPU gold solver. Every GPU variant is judged by it, so it is one obvious loop nest, and it
// is itself tested against exact answers (tests/laplace3d_gold_test.cpp).
#include <chrono>
#include <cmath>

#include "solvers/laplace3d/initial.hpp"
#include "solvers/laplace3d/laplace3d.hpp"

namespace parasol::laplace3d {

template <class T>
std::vector<T> initial_planes(const Params& p, std::int64_t first, std::int64_t count) {
  const Extent3& n = p.grid;
  const Start start = start_of(p);
  std::vector<T> u(static_cast<std::size_t>(n.nx * n.ny * count));
#pragma omp parallel for schedule(static)
  for (std::int64_t k = first; k < first + count; ++k) {
    std::size_t c = static_cast<std::size_t>((k - first) * n.nx * n.ny);
    for (std::int64_t j = 0; j < n.ny; ++j)
      for (std::int64_t i = 0; i < n.nx; ++i) u[c++] = static_cast<T>(start_value(start, i, j, k));
  }
  return u;
}

template <class T>
std::vector<T> initial_field(const Params& p) {
  return initial_planes<T>(p, 0, p.grid.nz);
}

template <class T>
void gold_sweep(const Extent3& n, const T* u, T* u_next) {
  const std::int64_t sx = 1, sy = n.nx, sz = n.nx * n.ny;
  const T sixth = T(1) / T(6);
  // The GPU kernels add the neighbours in this same order, so float results agree bit for bit.
#pragma omp parallel for schedule(static)
  for (std::int64_t k = 1; k < n.nz - 1; ++k)
    for (std::int64_t j = 1; j < n.ny - 1; ++j)
      for (std::int64_t i = 1; i < n.nx - 1; ++i) {
        const std::int64_t c = i + sy * j + sz * k;
        u_next[c] = (u[c - sx] + u[c + sx] + u[c - sy] + u[c + sy] + u[c - sz] + u[c + sz]) * sixth;
      }
}

template <class T>
double max_abs_difference(const std::vector<T>& a, const std::vector<T>& b) {
  double worst = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    const double d = std::abs(static_cast<double>(a[i]) - static_cast<double>(b[i]));
    if (d > worst || std::isnan(d)) worst = d;
    if (std::isnan(worst)) break;
  }
  return worst;
}

template <class T>
Result<T> solve_gold(const Params& p, const ProgressCallback& progress,
                     const Checkpoints<T>* checkpoints) {
  const auto start = std::chrono::steady_clock::now();
  Result<T> result;
  result.grid = p.grid;
  const State<T>* from = checkpoints != nullptr ? checkpoints->from : nullptr;
  std::vector<T> u = from != nullptr ? std::vector<T>(from->u, from->u + from->points)
                                     : initial_field<T>(p);
  if (from != nullptr) {
    result.iterations = from->iterations;
    result.checks = from->checks;
    result.last_change = from->checks.last_change;
  }
  std::vector<T> u_next = u;  // boundaries are set in both copies and never change
  const bool checking = p.tolerance > 0 || progress;
  const auto check = [&](std::int64_t it) {
    result.last_change = max_abs_difference(u, u_next);
    result.checks.record(it, result.last_change);
    result.converged = p.tolerance > 0 && result.last_change < p.tolerance;
    if (progress) {
      const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start;
      progress({it, p.max_iterations, result.last_change, elapsed.count()});
    }
  };
  for (std::int64_t it = result.iterations + 1; it <= p.max_iterations; ++it) {
    gold_sweep(p.grid, u.data(), u_next.data());
    u.swap(u_next);
    result.iterations = it;
    const bool periodic = checking && it % p.check_every == 0;
    if (periodic) check(it);
    if (result.converged) break;
    // Saved before the last iteration's own check, which an uninterrupted longer run never makes.
    if (at_safe_point(checkpoints, p, it, [&] {
          return State<T>{it, u.data(), p.grid.points(), result.checks};
        }))
      break;
    if (it == p.max_iterations && !periodic) check(it);
  }
  const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start;
  result.timings.add(phase::compute, elapsed.count());
  result.u = std::move(u);
  return result;
}

#define PARASOL_LAPLACE3D_GOLD(T)                                                     \
  template std::vector<T> initial_field<T>(const Params&);                            \
  template std::vector<T> initial_planes<T>(const Params&, std::int64_t, std::int64_t); \
  template void gold_sweep<T>(const Extent3&, const T*, T*);                          \
  template double max_abs_difference<T>(const std::vector<T>&, const std::vector<T>&); \
  template Result<T> solve_gold<T>(const Params&, const ProgressCallback&, const Checkpoints<T>*);
PARASOL_LAPLACE3D_GOLD(float)
PARASOL_LAPLACE3D_GOLD(double)
#undef PARASOL_LAPLACE3D_GOLD

}  // namespace parasol::laplace3d
