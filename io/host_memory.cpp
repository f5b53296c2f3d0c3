#include "io/host_memory.hpp"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <sstream>

#include "kernels/error.hpp"
#include "kernels/validate.hpp"

namespace parasol::io {

namespace {

// "NAME:   12345678 kB" from a /proc file, in bytes; 0 when it cannot be read.
double proc_kib(const char* file, const char* field) {
  std::ifstream in(file);
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    std::string name;
    double kib = 0;
    if (fields >> name >> kib && name == field) return kib * 1024.0;
  }
  return 0;
}

// A cgroup v2 file holding a byte count or "max"; negative when absent or unlimited.
double cgroup_bytes(const char* file) {
  std::ifstream in(std::string("/sys/fs/cgroup/") + file);
  std::string text;
  if (!(in >> text) || text == "max") return -1;
  try {
    return std::stod(text);
  } catch (...) {
    return -1;
  }
}

}  // namespace

double available_host_bytes() {
  double available = proc_kib("/proc/meminfo", "MemAvailable:");
  if (available <= 0)
    available = static_cast<double>(sysconf(_SC_AVPHYS_PAGES)) * static_cast<double>(sysconf(_SC_PAGE_SIZE));
  const double limit = cgroup_bytes("memory.max"), used = cgroup_bytes("memory.current");
  if (limit > 0 && used >= 0) available = std::min(available, std::max(0.0, limit - used));
  // Under ulimit -v an allocation fails once the address space reaches the limit, however much
  // memory is free; what is mapped already (libraries, CUDA's reservations) counts against it.
  rlimit as{};
  if (getrlimit(RLIMIT_AS, &as) == 0 && as.rlim_cur != RLIM_INFINITY) {
    const double mapped = proc_kib("/proc/self/status", "VmSize:");
    available = std::min(available, std::max(0.0, static_cast<double>(as.rlim_cur) - mapped));
  }
  return available;
}

void require_host_memory(const std::string& source, const std::string& key, const std::string& what,
                         double bytes) {
  const double available = available_host_bytes();
  if (bytes > available)
    throw InputError(source, key,
                     what + " about " + gib(bytes) + " of host memory; this machine has " +
                         gib(available) + " available");
}

}  // namespace parasol::io
