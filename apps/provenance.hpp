// Where a result came from: code version, device, CUDA versions, date, host, command line, and
// the CPU solvers' thread count.
#pragma once

#include <string>

#include "io/param_table.hpp"
#include "io/result_file.hpp"
#include "apps/options.hpp"

namespace parasol::app {

// Writes /provenance (and the root's identifying attributes) for a run on `backend`.
void write_provenance(io::ResultFile& out, std::string_view solver, Backend backend,
                      const std::string& command_line);

// Writes every resolved parameter as an attribute of /parameters, named by its dotted key.
void write_parameters(io::ResultFile& out, const io::ParamTable& params);

// "2026-11-21T19:04:05Z"
std::string utc_now();

}  // namespace parasol::app
