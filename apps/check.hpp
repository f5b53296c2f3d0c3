// /check for the solvers whose application code predates the driver.
#pragma once

#include <string>

#include "apps/io/result_file.hpp"
#include "kernels/agreement.hpp"
#include "kernels/timed_runs.hpp"

namespace parasol::app {

// Writes /check: the difference and the precision the gold ran in.
void write_check(io::ResultFile& out, const FieldDifference& d, const std::string& gold_precision);

}  // namespace parasol::app
