// Links the installed laplace3d and tridiag libraries through their public headers and runs
// their CPU gold solvers on problems with known answers; no GPU needed. Exits 0 when both agree.
#include <cmath>
#include <cstdio>
#include <exception>
#include <vector>

#include "solvers/laplace3d/laplace3d.hpp"
#include "solvers/tridiag/tridiag.hpp"

namespace {

// Every face held at 1: the harmonic field, and Jacobi's fixed point, is 1 everywhere.
bool laplace3d_reaches_the_constant_field() {
  namespace l = parasol::laplace3d;
  l::Params p;
  p.grid = {10, 9, 8};
  p.boundary = {1, 1, 1, 1, 1, 1};
  p.interior = l::Interior::constant;
  p.interior_value = 0;
  p.max_iterations = 5000;
  p.tolerance = 1e-12;
  p.check_every = 10;
  p.validate();
  const l::Result<double> r = l::solve_gold<double>(p);
  double worst = 0;
  for (const double u : r.u) worst = std::fmax(worst, std::fabs(u - 1));
  std::printf("laplace3d gold: %lld iterations, converged %d, max |u - 1| = %.3g\n",
              static_cast<long long>(r.iterations), r.converged ? 1 : 0, worst);
  return r.converged && r.u.size() == 10u * 9u * 8u && worst < 1e-10;
}

// [2 1 0; 1 2 1; 0 1 2] x = (4, 8, 8) has x = (1, 2, 3).
bool tridiag_solves_a_known_system() {
  namespace t = parasol::tridiag;
  t::Batch<double> batch;
  batch.dims = {3, 1, t::Layout::contiguous};
  batch.a = {0, 1, 1};
  batch.b = {2, 2, 2};
  batch.c = {1, 1, 0};
  batch.d = {4, 8, 8};
  const std::vector<double> x = t::solve_gold(batch);
  const std::vector<double> want{1, 2, 3};
  double worst = 0;
  for (std::size_t i = 0; i < want.size(); ++i) worst = std::fmax(worst, std::fabs(x.at(i) - want[i]));
  std::printf("tridiag gold: max |x - (1, 2, 3)| = %.3g\n", worst);
  return x.size() == 3 && worst < 1e-14;
}

}  // namespace

int main() {
  try {
    const bool laplace3d = laplace3d_reaches_the_constant_field();
    const bool tridiag = tridiag_solves_a_known_system();
    if (laplace3d && tridiag) return 0;
    std::fprintf(stderr, "consumer: %s off its known answer\n", laplace3d ? "tridiag" : "laplace3d");
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "consumer: %s\n", e.what());
    return 1;
  }
}
