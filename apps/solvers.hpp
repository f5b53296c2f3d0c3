// Solvers whose application code predates the driver (apps/driver.cpp): each runs whole.
#pragma once

#include <string_view>

#include "apps/io/param_table.hpp"
#include "apps/options.hpp"

namespace parasol::app {

struct SolverApp {
  std::string_view name;
  std::string_view summary;
  int (*run)(io::ParamTable& params, const RunOptions& options);
  int (*sweep)(io::ParamTable& params, const SweepOptions& options);
};

SolverApp tridiag_app();
SolverApp recurrence_app();
SolverApp fftconv_app();

}  // namespace parasol::app
