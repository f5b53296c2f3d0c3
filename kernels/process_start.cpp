#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <string>

#include "kernels/phase_timer.hpp"

namespace parasol {
namespace {

using Clock = std::chrono::steady_clock;

// Made among the executable's first static initialisers: after the dynamic linker and the shared
// libraries' initialisers, so a bound from below.
__attribute__((init_priority(101))) const Clock::time_point g_initialised = Clock::now();

// Seconds since the kernel started this process, from /proc/self/stat's starttime (field 22,
// clock ticks since boot) and the boot-time clock; negative where it cannot be read.
double seconds_since_kernel_start() {
  std::ifstream in("/proc/self/stat");
  std::string line;
  if (!std::getline(in, line)) return -1;
  // The command name, field 2, is in parentheses and may hold spaces: count from the last ')'.
  const auto close = line.rfind(')');
  if (close == std::string::npos) return -1;
  std::istringstream fields(line.substr(close + 1));
  std::string field;
  for (int i = 3; i < 22; ++i) fields >> field;  // state (3) ... itrealvalue (21)
  unsigned long long ticks = 0;
  if (!(fields >> ticks)) return -1;
  const long hz = sysconf(_SC_CLK_TCK);
  timespec now{};
  if (hz <= 0 || clock_gettime(CLOCK_BOOTTIME, &now) != 0) return -1;
  const double tick = 1.0 / static_cast<double>(hz);
  const double since = static_cast<double>(now.tv_sec) + 1e-9 * static_cast<double>(now.tv_nsec) -
                       static_cast<double>(ticks) * tick;
  // The start is recorded in whole ticks, rounded down: on average half a tick early.
  return since - 0.5 * tick;
}

}  // namespace

Clock::time_point process_start() {
  const Clock::time_point now = Clock::now();
  const double kernel = seconds_since_kernel_start();
  const double initialised = std::chrono::duration<double>(now - g_initialised).count();
  const double seconds = std::max(kernel, initialised);
  return now - std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
}

}  // namespace parasol
