// `parasol run` (run.cpp) and `parasol sweep` (sweep.cpp) for every solver; what they share is in
// driver.cpp and ranks.hpp, what differs between solvers in their bindings (apps/binding.hpp).
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
