// poisson's one definition of agreement with the gold, used by the tests, `parasol run --check`,
// `parasol sweep` and the benchmarks.
//
// Two multigrid solves stop at small residuals, not at the same bits, and a bound on their
// difference through A⁻¹ is either loose by A's condition number or, for a wrong answer whose
// residual is large, no bound at all. What a solve must show is that it solved A u = b as well
// as the gold did: its relative residual ‖b − A u‖₂ / ‖b‖₂, evaluated in double from the values
// as stored, is judged against twice the gold's (the same cycles in the same precision T reach
// the same level, whatever the order of their sums) plus the residual that rounding the gold to
// T leaves, 4 ε_T ‖D u_gold‖₂ / ‖b‖₂ (each rounded cell moves its own row by diag·ε|u| and its
// six neighbours' by less in all). A lost plane, a wrong index or a face of the wrong kind leaves
// a residual of the order of b at the cells it touches and fails by orders of magnitude. The
// difference from the gold is reported beside it, not judged.
#pragma once

#include <cmath>
#include <limits>
#include <vector>

#include "kernels/agreement.hpp"
#include "solvers/poisson/params.hpp"
#include "solvers/poisson/poisson.hpp"
#include "solvers/poisson/problem.hpp"

namespace parasol::poisson {

namespace detail {

inline double l2(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += x * x;
  return std::sqrt(s);
}

// ‖b − A u‖₂ / ‖b‖₂ in double (absolute where b = 0).
template <class T>
double relative_residual(const Params& p, const std::vector<double>& f, const std::vector<T>& u,
                         double b_l2) {
  const double r = l2(residual(p, f, std::vector<double>(u.begin(), u.end())));
  return b_l2 > 0 ? r / b_l2 : r;
}

}  // namespace detail

// `u` from any solver against `gold`, the gold's solve in the same precision T of the same
// problem (source f, compatible when singular), by the rule above.
template <class T, class G>
Agreement agreement(const Params& p, const std::vector<double>& f, const std::vector<T>& u,
                    const std::vector<G>& gold) {
  std::vector<double> b = f;
  add_boundary_terms(p, levels(p).front(), b);
  const double b_l2 = detail::l2(b);
  const Level level = levels(p).front();
  double scaled = 0;  // ‖D u_gold‖₂
  for (std::int64_t k = 0; k < level.nz; ++k)
    for (std::int64_t j = 0; j < level.ny; ++j)
      for (std::int64_t i = 0; i < level.nx; ++i) {
        const double v = diagonal(p, level, i, j, k) *
                         static_cast<double>(gold[static_cast<std::size_t>(i + p.nx * (j + p.ny * k))]);
        scaled += v * v;
      }
  const double rounding = 4 * std::numeric_limits<T>::epsilon() * std::sqrt(scaled) /
                          (b_l2 > 0 ? b_l2 : 1.0);
  const double mine = detail::relative_residual(p, f, u, b_l2);
  const double golds = detail::relative_residual(p, f, gold, b_l2);
  Agreement a = field_agreement(compare(u, gold), "relative_residual_l2", "relative residual",
                                mine, 2 * golds + rounding);
  a.gold_precision = sizeof(T) == 4 ? "float" : "double";
  a.gold = "the CPU gold in " + a.gold_precision;
  a.values.push_back({"gold_relative_residual_l2", golds});
  return a;
}

}  // namespace parasol::poisson
