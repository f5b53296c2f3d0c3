// `parasol info`; run and sweep are the driver's (apps/driver.hpp).
#pragma once

#include <ostream>

namespace parasol::app {

int info_command(std::ostream& out);

}  // namespace parasol::app
