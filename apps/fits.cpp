#include "apps/fits.hpp"

#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <sstream>

#include "kernels/device.hpp"
#include "kernels/error.hpp"
#include "kernels/validate.hpp"

namespace parasol::app {

namespace {

// "MemAvailable:   12345678 kB" from /proc/meminfo, in bytes; 0 when it cannot be read.
double mem_available() {
  std::ifstream in("/proc/meminfo");
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    std::string name;
    double kib = 0;
    if (fields >> name >> kib && name == "MemAvailable:") return kib * 1024.0;
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
  double available = mem_available();
  if (available <= 0)
    available = static_cast<double>(sysconf(_SC_AVPHYS_PAGES)) * static_cast<double>(sysconf(_SC_PAGE_SIZE));
  const double limit = cgroup_bytes("memory.max"), used = cgroup_bytes("memory.current");
  if (limit > 0 && used >= 0) available = std::min(available, std::max(0.0, limit - used));
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

void require_device_memory(const std::string& source, const std::string& key,
                           const std::string& what, double bytes, const std::string& hint) {
  const DeviceInfo device = current_device();
  if (bytes > static_cast<double>(device.free_memory))
    throw InputError(source, key,
                     what + " " + gib(bytes) + " on the device; " + device.name + " has " +
                         gib(static_cast<double>(device.free_memory)) + " free" + hint);
}

}  // namespace parasol::app
