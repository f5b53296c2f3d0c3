// The solvers the front end can run, by the name a parameter file gives in `solver = "..."`.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "apps/io/param_table.hpp"
#include "apps/options.hpp"

namespace parasol::app {

struct SolverApp {
  std::string_view name;
  std::string_view summary;
  // Each returns the process exit status; input errors are thrown as InputError.
  int (*run)(io::ParamTable& params, const RunOptions& options);
  int (*sweep)(io::ParamTable& params, const SweepOptions& options);
};

const std::vector<SolverApp>& solver_apps();
// The solver a file names; InputError listing the known solvers otherwise.
const SolverApp& find_solver(io::ParamTable& params);

// One per solver module, defined beside its binding (apps/<solver>_app.cpp).
SolverApp coulomb_app();
SolverApp laplace3d_app();
SolverApp montecarlo_app();
SolverApp tridiag_app();
SolverApp recurrence_app();
SolverApp fftconv_app();

}  // namespace parasol::app
