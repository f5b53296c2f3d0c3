// `parasol keys SOLVER`, `parasol run FILE --help` and the tables of docs/parameters.md: every key
// of a solver, from its declaration (kernels/declaration.hpp).
#pragma once

#include <ostream>
#include <string>

#include "apps/binding.hpp"

namespace parasol::app {

// The solver named `solver`; InputError listing the known ones otherwise.
const Binding& binding_named(const std::string& solver);

// Every key `binding` declares, with its type, allowed values, unit, default and help, for a
// terminal: the run's keys, then the [sweep] table's.
void print_keys(std::ostream& out, const Binding& binding);

// The same as the Markdown tables docs/parameters.md holds between its generated markers.
void print_keys_markdown(std::ostream& out, const Binding& binding);

// "laplace3d  3D Laplace equation ... (inputs/laplace3d.toml, ...)": `parasol solvers`.
void print_solvers(std::ostream& out);

}  // namespace parasol::app
