#include "solvers/laplace3d/stop.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace parasol::laplace3d {
namespace {

// "9.6e-05": a change or a bound, two significant digits in exponent form, so that values a
// decade apart line up and read as orders of magnitude.
std::string sci(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1e", value);
  return text;
}

// The tolerance as given: the fewest digits that give it back ("1e-04", "2.5e-06").
std::string given(double value) {
  char text[32];
  for (int digits = 0; digits < 17; ++digits) {
    std::snprintf(text, sizeof text, "%.*e", digits, value);
    if (std::strtod(text, nullptr) == value) break;
  }
  return text;
}

// ρ with enough decimals to show 1 - ρ to two digits ("0.99774").
std::string contraction_text(double rho) {
  const int decimals =
      rho < 1 ? std::max(3, static_cast<int>(std::ceil(-std::log10(1 - rho))) + 2) : 3;
  char text[32];
  std::snprintf(text, sizeof text, "%.*f", std::min(decimals, 12), rho);
  return text;
}

std::string bound_line(const StopReport& r) {
  const ConvergenceChecks& c = r.checks;
  const double rho = c.contraction();
  if (!std::isnan(rho))
    return "error bound ≈ " + sci(c.error_bound()) + " (ρ = " + contraction_text(rho) +
           " per iteration, from max|du| at iterations " + std::to_string(c.previous_iteration) +
           " and " + std::to_string(c.last_iteration) + "; max|du| ρ/(1 - ρ))";
  if (std::isnan(c.previous_change))
    return "error bound unknown: one convergence check only (iteration.check_every)";
  if (c.last_change == 0) return "error bound 0: the last iteration changed nothing";
  return "error bound unknown: max|du| did not shrink between the last two checks (" +
         sci(c.previous_change) + " at " + std::to_string(c.previous_iteration) + ", " +
         sci(c.last_change) + " at " + std::to_string(c.last_iteration) +
         "): round-off reached, or not yet contracting";
}

}  // namespace

std::vector<std::string> stop_lines(const StopReport& r) {
  const std::string change = sci(r.checks.last_change);
  const std::string after = std::to_string(r.iterations) + " iterations";
  std::string first;
  if (r.converged)
    first = "converged: max|du| " + change + " < " + given(r.tolerance) + " after " + after;
  else if (r.tolerance > 0)
    first = "NOT converged after " + after + " (max|du| " + change + " > " + given(r.tolerance) +
            "; iteration.max_iterations reached)";
  else
    first = after + " (no tolerance set), last max|du| " + change;
  return {first, bound_line(r)};
}

std::vector<Diagnostic> stop_diagnostics(const StopReport& r) {
  return {{"iterations", r.iterations},
          {"last_change", r.checks.last_change},
          {"converged", r.converged},
          {"stop_reason", std::string(name(r.reason()))},
          {"contraction", r.checks.contraction()},
          {"error_bound", r.checks.error_bound()}};
}

std::optional<std::string> unmet(const StopReport& r) {
  if (r.converged) return std::nullopt;
  if (r.tolerance > 0)
    return "NOT converged after " + std::to_string(r.iterations) + " iterations (max|du| " +
           sci(r.checks.last_change) + " > " + given(r.tolerance) + ")";
  return "no tolerance was set (iteration.tolerance = 0): the run had no criterion to meet";
}

}  // namespace parasol::laplace3d
