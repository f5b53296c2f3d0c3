// How a laplace3d run says why it stopped, in its summary and in /diagnostics: "converged" only
// with the criterion (max|du| < iteration.tolerance) named, the remaining error estimated from
// the measured contraction, and a prominent line when iteration.max_iterations ended it first.
// Plain C++ (kernels/convergence.hpp's checks): any front end says it alike.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "kernels/convergence.hpp"

namespace parasol::laplace3d {

struct StopReport {
  std::int64_t iterations = 0;  // run
  double tolerance = 0;         // of max|du|; 0: no test, every iteration runs
  bool converged = false;       // max|du| fell below a nonzero tolerance
  ConvergenceChecks checks;


  StopReason reason() const { return converged ? StopReason::tolerance : StopReason::max_iterations; }
};

// The stop of a solve (Result, SlabResult: its iterations, whether it converged, its checks) run
// to `tolerance`.
template <class Solve>
StopReport stop_report(const Solve& r, double tolerance) {
  return {r.iterations, tolerance, r.converged, r.checks};
}

// The summary's lines:
//   "converged: max|du| 9.6e-05 < 1e-04 after 2200 iterations"
//   "NOT converged after 100 iterations (max|du| 2.1e-02 > 1e-04)"
//   "100 iterations (no tolerance set), last max|du| 2.1e-02"
// then the estimate: "error bound ≈ 3.9e-02 (ρ = 0.99774 per iteration, from max|du| at
// iterations 2150 and 2200)", or why none is known.
std::vector<std::string> stop_lines(const StopReport& r);

// A fact of a stop as /diagnostics records it, by name (the kinds an HDF5 attribute holds).
using Diagnostic = std::pair<std::string, std::variant<bool, std::int64_t, double, std::string>>;
// /diagnostics: iterations, last_change, converged, stop_reason ("tolerance" or
// "max_iterations"), contraction and error_bound (NaN when not measured).
std::vector<Diagnostic> stop_diagnostics(const StopReport& r);

// Why the run did not meet its stopping criterion, for --require-convergence; nothing when it
// did. A run with no tolerance has none to meet.
std::optional<std::string> unmet(const StopReport& r);

}  // namespace parasol::laplace3d
