// What an iterative solver's stopping test can and cannot say. The test is max|du| < tolerance,
// the largest change of the last iteration; the distance to the converged answer is larger: for
// an iteration that contracts the error by rho each step, e_k = du_k rho / (1 - rho) once the
// slowest mode dominates, and rho near 1 (Jacobi on a fine grid) makes that many times the
// tolerance. So a solver keeps its last two checks, from which rho is measured and the remaining
// error estimated. Plain C++: any iterative solver (Jacobi today, multigrid later) records here.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>

namespace parasol {

// Why an iteration stopped: its tolerance met, its iteration cap reached, or its residual no
// longer falling (the precision's rounding floor, above the tolerance).
enum class StopReason { tolerance, max_iterations, stagnated };

inline const char* name(StopReason r) {
  return r == StopReason::tolerance        ? "tolerance"
         : r == StopReason::max_iterations ? "max_iterations"
                                           : "stagnated";
}

// The last two convergence checks: iteration numbers and max|du| at each.
struct ConvergenceChecks {
  static constexpr double kUnknown = std::numeric_limits<double>::quiet_NaN();
  std::int64_t previous_iteration = 0, last_iteration = 0;
  double previous_change = kUnknown, last_change = kUnknown;

  void record(std::int64_t iteration, double change) {
    previous_iteration = last_iteration;
    previous_change = last_change;
    last_iteration = iteration;
    last_change = change;
  }

  // rho per iteration, (d_last / d_previous)^(1/m) with m the iterations between the checks.
  // NaN when it cannot be measured: fewer than two checks, a change of zero (converged to the
  // last bit) or one that did not shrink (round-off reached, or not contracting yet).
  double contraction() const {
    const std::int64_t m = last_iteration - previous_iteration;
    if (m <= 0 || !(previous_change > 0) || !(last_change > 0) || !(last_change < previous_change))
      return kUnknown;
    return std::pow(last_change / previous_change, 1.0 / static_cast<double>(m));
  }

  // The estimate of max|u - u_converged| after the last check: last_change rho / (1 - rho), the
  // sum of the changes still to come if each is rho times the one before. NaN when rho is.
  double error_bound() const {
    const double rho = contraction();
    return std::isnan(rho) ? kUnknown : last_change * rho / (1 - rho);
  }
};

}  // namespace parasol
