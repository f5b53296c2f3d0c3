// poisson's one definition of agreement with the gold, used by the tests, `parasol run --check`,
// `parasol sweep` and the benchmarks.
//
// Two multigrid solves of A u = b stop at small residuals, not at the same bits, so their
// difference is judged by what the residuals allow: A is symmetric (the ghost-cell faces keep it
// so), hence ‖u − v‖₂ ≤ (‖r_u‖₂ + ‖r_v‖₂) / λ_min(A), with λ_min bounded below from the box
// (lambda_min_bound). Each residual is evaluated in double from the stored values, so the
// rounding of u to float is inside the bound, not beside it. A wrong index leaves a residual of
// the size of b and fails by orders of magnitude; an honest solve passes whatever the order of
// its sums.
#pragma once

#include <algorithm>
#include <cmath>
#include <vector>

#include "kernels/agreement.hpp"
#include "solvers/poisson/params.hpp"
#include "solvers/poisson/poisson.hpp"

namespace parasol::poisson {

// A lower bound on A's smallest eigenvalue (its smallest nonzero one when A is singular, on the
// mean-free fields both solves keep): α plus per axis the continuous operator's smallest mode,
// (π/L)² between two Dirichlet faces, (π/2L)² between a Dirichlet and a Neumann face, and 0
// otherwise; a singular problem takes the smallest nonzero axis mode instead, (π/L)² Neumann or
// (2π/L)² periodic. The discrete eigenvalue (2/h · sin(kh/2))² is at least 4/π² of the
// continuous one (sin x ≥ 2x/π on [0, π/2]).
inline double lambda_min_bound(const Params& p) {
  constexpr double kPi = 3.14159265358979323846;
  const double length[3] = {static_cast<double>(p.nx) * p.hx, static_cast<double>(p.ny) * p.hy,
                            static_cast<double>(p.nz) * p.hz};
  double sum = 0, smallest_nonzero = INFINITY;
  for (int axis = 0; axis < 3; ++axis) {
    const FaceKind lo = p.face(axis, 0).kind, hi = p.face(axis, 1).kind;
    const double k = kPi / length[axis];
    const int dirichlet = (lo == FaceKind::dirichlet) + (hi == FaceKind::dirichlet);
    if (dirichlet == 2) sum += k * k;
    else if (dirichlet == 1) sum += k * k / 4;
    smallest_nonzero = std::min(smallest_nonzero, lo == FaceKind::periodic ? 4 * k * k : k * k);
  }
  const double continuous = singular(p) ? smallest_nonzero : p.alpha + sum;
  return 4 / (kPi * kPi) * continuous;
}

// The L2 norm of b − A u for u as stored, in double.
template <class T>
double residual_l2(const Params& p, const std::vector<double>& f, const std::vector<T>& u) {
  double s = 0;
  for (double r : residual(p, f, std::vector<double>(u.begin(), u.end()))) s += r * r;
  return std::sqrt(s);
}

// u (any solver's) against the gold's u, both solutions of A u = b with source f: their L2
// difference judged by the residual bound above. The bound is doubled for the residuals' own
// evaluation in double.
template <class T, class G>
Agreement agreement(const Params& p, const std::vector<double>& f, const std::vector<T>& u,
                    const std::vector<G>& gold) {
  const double bound = 2 * (residual_l2(p, f, u) + residual_l2(p, f, gold)) / lambda_min_bound(p);
  const FieldDifference d = compare(u, gold);
  const double l2 = d.rms * std::sqrt(static_cast<double>(u.size()));
  Agreement a = field_agreement(d, "l2_difference", "l2 diff", l2, bound);
  return a;
}

}  // namespace parasol::poisson
