// How much host memory this process can still take, and the check every reader of a user's data
// makes before it allocates: a file that declares more than fits is refused naming its size, not
// met with std::bad_alloc (or the OOM killer) once the allocation is tried.
#pragma once

#include <string>

namespace parasol::io {

// The least of: the kernel's MemAvailable; the container's memory limit less its usage (cgroup
// v2 memory.max, where one is set); and the address-space limit (RLIMIT_AS, ulimit -v) less the
// address space this process already maps. Not the installed memory: a machine half full
// already cannot hold a problem sized for all of it.
double available_host_bytes();

// InputError (source, key) "<what> about 1.50 GiB of host memory; this machine has 0.80 GiB
// available" when `bytes` exceed it. `what` ends in its verb: "the grid needs".
void require_host_memory(const std::string& source, const std::string& key, const std::string& what,
                         double bytes);

}  // namespace parasol::io
