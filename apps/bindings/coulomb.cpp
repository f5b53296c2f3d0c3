// coulomb in the front end, through its application code until its binding is written.
#include "apps/binding.hpp"
#include "apps/solvers.hpp"

namespace parasol::app {

Binding coulomb_binding() {
  const SolverApp a = coulomb_app();
  Binding b{a.name, a.summary, nullptr, nullptr, {}};
  b.legacy_run = a.run;
  b.legacy_sweep = a.sweep;
  return b;
}

}  // namespace parasol::app
