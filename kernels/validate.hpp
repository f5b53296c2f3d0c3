// Helpers for Params::validate(): a failed check is an InputError naming its key (the caller
// adds the file or "command line"), and numbers are shown as users wrote them.
#pragma once

#include <cfloat>
#include <cmath>
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

// A value the run computes with in float (`single`) or double: finite, and in float no larger
// than FLT_MAX / `headroom` in magnitude, where `headroom` is how many such values the solver
// adds before scaling (six neighbours for a Jacobi update), so no sum overflows to infinity.
inline void require_representable(double value, const char* key, bool single, double headroom = 1) {
  require(std::isfinite(value), key, "expected a finite number, got " + shown(value));
  const double limit = (single ? FLT_MAX : DBL_MAX) / headroom;
  require(std::abs(value) <= limit, key,
          "expected a magnitude of at most " + shown(limit) + " for precision \"" +
              (single ? "float" : "double") + "\", got " + shown(value));
}

// "1.50 GiB"
inline std::string gib(double bytes) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2f GiB", bytes / (1024.0 * 1024.0 * 1024.0));
  return text;
}

}  // namespace parasol
