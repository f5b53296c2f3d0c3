#include "apps/units.hpp"

#include <cmath>
#include <cstdio>

namespace parasol::app {

std::string bytes_text(double bytes) {
  static const char* const kUnits[] = {"B", "kB", "MB", "GB", "TB"};
  int unit = 0;
  double value = bytes;
  // Rounded as printed, so 999.96 kB reads "1 MB", not "1e+03 kB".
  while (unit < 4 && std::abs(value) >= 999.5) {
    value /= 1000;
    ++unit;
  }
  char text[32];
  std::snprintf(text, sizeof text, "%.3g %s", value, kUnits[unit]);
  return text;
}

std::string byte_rate_text(double bytes_per_second) { return bytes_text(bytes_per_second) + "/s"; }

}  // namespace parasol::app
