// The memory a run will take, checked before it starts, so a problem too large for the machine
// is refused naming the key that sized it instead of failing (or swapping) minutes in.
#pragma once

#include <string>

#include "io/host_memory.hpp"

namespace parasol::app {

// The host's memory, refused naming the key that sized it, as io/host_memory.hpp says.
using io::require_host_memory;

// InputError "<what> 1.50 GiB on the device; NVIDIA H100 has 0.80 GiB free<hint>" when `bytes`
// exceed the current device's free memory.
void require_device_memory(const std::string& source, const std::string& key,
                           const std::string& what, double bytes, const std::string& hint = "");

}  // namespace parasol::app
