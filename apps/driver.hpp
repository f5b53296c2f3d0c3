// `parasol run` and `parasol sweep` for every solver: the routine they share lives in
// driver.cpp; what differs between solvers is in their bindings (apps/binding.hpp).
#pragma once

#include <string>
#include <vector>

#include "apps/options.hpp"
#include "comm/context.hpp"

namespace parasol::app {

// Each returns the process exit status; input errors are thrown as InputError.
// `parasol run`, as one rank of `context`'s (one rank without a launcher).
int run_command(comm::Context& context, const RunOptions& options,
                const std::vector<std::string>& overrides);
int sweep_command(comm::Context& context, const SweepOptions& options,
                  const std::vector<std::string>& overrides);

}  // namespace parasol::app
