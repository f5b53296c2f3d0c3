// Helpers for Params::validate(): a failed check is an InputError naming its key (the caller
// adds the file or "command line"), and numbers are shown as users wrote them.
#pragma once

#include <cstdio>
#include <string>

#include "kernels/error.hpp"

namespace parasol {

inline void require(bool ok, const char* key, const std::string& expected) {
  if (!ok) throw InputError("", key, expected);
}

// "%g", not std::to_string: a sigma of 1e-9 must not read as 0.000000.
inline std::string shown(double x) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", x);
  return text;
}

// "1.50 GiB"
inline std::string gib(double bytes) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2f GiB", bytes / (1024.0 * 1024.0 * 1024.0));
  return text;
}

}  // namespace parasol
