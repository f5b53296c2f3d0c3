// The memory a run will take, checked before it starts, so a problem too large for the machine
// is refused naming the key that sized it instead of failing (or swapping) minutes in.
#pragma once

#include <string>

namespace parasol::app {

// Host memory this process can still take: io::available_host_bytes (MemAvailable, capped by a
// cgroup v2 memory limit and by RLIMIT_AS).
double available_host_bytes();

// InputError (source, key) "<what> about 1.50 GiB of host memory; this machine has 0.80 GiB
// available" when `bytes` exceed it. `what` ends in its verb: "the grid needs".
void require_host_memory(const std::string& source, const std::string& key, const std::string& what,
                         double bytes);

// InputError "<what> 1.50 GiB on the device; NVIDIA H100 has 0.80 GiB free<hint>" when `bytes`
// exceed the current device's free memory.
void require_device_memory(const std::string& source, const std::string& key,
                           const std::string& what, double bytes, const std::string& hint = "");

}  // namespace parasol::app
