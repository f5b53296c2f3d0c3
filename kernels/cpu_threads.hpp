// How many threads the CPU solvers (the gold solvers, the CPU backend) use. By default the cores
// this process may run on (its affinity mask, and a container's CPU quota), so a run on a loaded
// or shared machine does not oversubscribe it; `--threads N` sets it.
#pragma once

namespace parasol {

// The cores this process may use: its affinity mask, capped by a cgroup CPU quota where one is
// set; at least 1.
int available_cores();

// Sets the CPU solvers' thread count (n >= 1).
void set_cpu_threads(int n);
int cpu_threads();

}  // namespace parasol
