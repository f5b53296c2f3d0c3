// The front end's subcommands.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "apps/options.hpp"

namespace parasol::app {

int run_command(const RunOptions& options, const std::vector<std::string>& overrides);
int sweep_command(const SweepOptions& options, const std::vector<std::string>& overrides);
int info_command(std::ostream& out);

}  // namespace parasol::app
