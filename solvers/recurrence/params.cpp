#include "solvers/recurrence/params.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "kernels/error.hpp"
#include "kernels/name_table.hpp"
#include "kernels/validate.hpp"

namespace parasol::recurrence {
namespace {

constexpr NameTable<Problem, 3> kProblemNames{
    {{Problem::ar1, "ar1"}, {Problem::smoothing, "smoothing"}, {Problem::file, "file"}}};

}  // namespace

std::string_view name(Problem p) { return lookup_name(kProblemNames, p); }
Problem parse_problem(std::string_view s) { return lookup_value(kProblemNames, s, "problem"); }

void Params::validate() const {
  if (problem == Problem::ar1) {
    require(ar1.series >= 1, "ar1.series",
            "expected a positive integer, got " + std::to_string(ar1.series));
    require(ar1.length >= 1, "ar1.length",
            "expected a positive integer, got " + std::to_string(ar1.length));
    // Divided, not multiplied, so the product cannot overflow before it is compared.
    require(ar1.length <= kMostElements / ar1.series, "ar1",
            "expected at most 2^40 elements in all, got " + std::to_string(ar1.series) +
                " series of " + std::to_string(ar1.length));
    if (ar1.time_varying) {
      require(std::isfinite(ar1.phi_min) && ar1.phi_min > -1 && ar1.phi_min < 1, "ar1.phi_min",
              "expected a number in (-1, 1), got " + shown(ar1.phi_min));
      require(std::isfinite(ar1.phi_max) && ar1.phi_max > -1 && ar1.phi_max < 1, "ar1.phi_max",
              "expected a number in (-1, 1), got " + shown(ar1.phi_max));
      require(ar1.phi_min < ar1.phi_max, "ar1.phi_max",
              "expected more than ar1.phi_min (" + shown(ar1.phi_min) + "), got " +
                  shown(ar1.phi_max));
    } else {
      // |phi| = 1 is a random walk; beyond it the series grows geometrically and soon overflows.
      require(std::isfinite(ar1.phi) && std::abs(ar1.phi) <= 1, "ar1.phi",
              "expected a number in [-1, 1], got " + shown(ar1.phi));
    }
    require(std::isfinite(ar1.sigma) && ar1.sigma >= 0, "ar1.sigma",
            "expected a number >= 0, got " + shown(ar1.sigma));
    require(std::isfinite(ar1.x0), "ar1.x0", "expected a finite number, got " + shown(ar1.x0));
    // The series is made and scanned in the run's precision. With |phi| <= 1 a value stays
    // within |x0| plus the noise's sum, which eight sigmas a step bound over the length.
    const bool single = precision == Precision::single;
    require_representable(ar1.x0, "ar1.x0", single, 2);
    require_representable(ar1.sigma, "ar1.sigma", single,
                          16.0 * static_cast<double>(std::max<std::int64_t>(ar1.length, 1)));
  }
  if (problem == Problem::smoothing) {
    require(std::isfinite(smoothing.alpha) && smoothing.alpha > 0 && smoothing.alpha <= 1,
            "smoothing.alpha", "expected a number in (0, 1], got " + shown(smoothing.alpha));
    require(!input.file.empty(), "input.file",
            "expected the name of an HDF5 file holding the series to smooth");
    require(!input.y.empty(), "input.y", "expected the name of a dataset");
  }
  if (problem == Problem::file) {
    require(!input.file.empty(), "input.file",
            "expected the name of an HDF5 file holding the datasets s and u");
    require(!input.s.empty(), "input.s", "expected the name of a dataset");
    require(!input.u.empty(), "input.u", "expected the name of a dataset");
  }
}

}  // namespace parasol::recurrence
