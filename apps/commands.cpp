#include "apps/commands.hpp"

#include <cstdio>

#include "kernels/cpu_threads.hpp"
#include "kernels/device.hpp"
#include "kernels/error.hpp"
#include "parasol/version.hpp"

namespace parasol::app {

int info_command(std::ostream& out) {
  out << "parasol " << kVersion << " (" << kGitDescribe << ")\n";
  std::string reason;
  if (!gpu_available(&reason)) {
    // Not a failure: a machine without a GPU runs the CPU solvers, and this says how.
    const int cores = available_cores();
    out << "device: none (" << reason << ")\n"
        << "CPU backend: " << cores << (cores == 1 ? " core" : " cores")
        << " (the cores this process may use; --threads to change)\n"
        << "`parasol run` runs the CPU gold solver here (--backend auto); `parasol sweep` times "
           "the CPU solver at 1, 2, 4, ... threads\n";
    return 0;
  }
  const DeviceInfo d = current_device();
  constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
  char line[256];
  std::snprintf(line, sizeof line,
                "device %d: %s, compute capability %s, %d multiprocessors, L2 %.0f MiB\n"
                "memory: %.1f GiB total, %.1f GiB free\n"
                "CUDA: runtime %s, driver %s\n"
                "block limits: %d threads, %s per dimension\n",
                d.ordinal, d.name.c_str(), d.compute_capability().c_str(), d.multiprocessors,
                static_cast<double>(d.l2_bytes) / (1024.0 * 1024.0),
                static_cast<double>(d.total_memory) / kGiB, static_cast<double>(d.free_memory) / kGiB,
                cuda_version_string(d.runtime_version).c_str(),
                cuda_version_string(d.driver_version).c_str(), d.max_threads_per_block,
                to_string(d.max_block).c_str());
  out << line;
  // Large enough to dwarf the L2 cache, so the copy measures device memory.
  const std::size_t bytes = std::size_t{1} << 30;
  const double bandwidth = measure_copy_bandwidth(bytes);
  std::snprintf(line, sizeof line,
                "device-to-device copy: %.1f GB/s (1 GiB, median of 20, bytes read + written)\n"
                "  the roofline for memory-bound kernels: e.g. laplace3d float at 8 bytes/point "
                "sweeps at most %.0f Gpoints/s\n",
                bandwidth * 1e-9, bandwidth / 8.0 * 1e-9);
  out << line;
  return 0;
}

}  // namespace parasol::app
