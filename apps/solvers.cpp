#include "apps/solvers.hpp"

#include "kernels/error.hpp"

namespace parasol::app {

const std::vector<SolverApp>& solver_apps() {
  static const std::vector<SolverApp> apps{laplace3d_app(), montecarlo_app(), coulomb_app(),
                                                tridiag_app(), recurrence_app(), fftconv_app()};
  return apps;
}

const SolverApp& find_solver(io::ParamTable& params) {
  const std::string solver = params.get_string("solver");
  std::string known;
  for (const SolverApp& app : solver_apps()) {
    if (app.name == solver) return app;
    known += (known.empty() ? "\"" : ", \"") + std::string(app.name) + "\"";
  }
  throw InputError(params.source_of("solver"), "solver",
                   "unknown solver \"" + solver + "\"; expected one of " + known);
}

}  // namespace parasol::app
