#include "kernels/cpu_threads.hpp"

#include <sched.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <string>

#ifdef _OPENMP
#include <omp.h>
#endif

namespace parasol {

namespace {

// cgroup v2's "cpu.max": "max 100000" (no quota) or "200000 100000" (two cores' worth).
int quota_cores() {
  std::ifstream in("/sys/fs/cgroup/cpu.max");
  std::string quota, period;
  if (!(in >> quota >> period) || quota == "max") return 0;
  try {
    const double q = std::stod(quota), p = std::stod(period);
    return p > 0 ? std::max(1, static_cast<int>(std::ceil(q / p))) : 0;
  } catch (...) {
    return 0;
  }
}

}  // namespace

int available_cores() {
  int cores = 0;
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) == 0) cores = CPU_COUNT(&set);
  if (cores < 1) cores = 1;
  const int quota = quota_cores();
  return quota > 0 ? std::min(cores, quota) : cores;
}

void set_cpu_threads(int n) {
#ifdef _OPENMP
  omp_set_num_threads(std::max(1, n));
#else
  (void)n;
#endif
}

int cpu_threads() {
#ifdef _OPENMP
  return omp_get_max_threads();
#else
  return 1;
#endif
}

}  // namespace parasol
