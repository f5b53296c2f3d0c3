#include "apps/progress.hpp"

#include <unistd.h>

#include <cstdio>

namespace parasol::app {

namespace {
constexpr double kQuietSeconds = 1.0;  // runs shorter than this print no progress
}

ProgressLine::ProgressLine(std::int64_t points) : points_(points), terminal_(isatty(STDERR_FILENO) != 0) {}

ProgressLine::~ProgressLine() {
  if (drawn_) std::fputc('\n', stderr);
}

void ProgressLine::update(std::int64_t iterations, std::int64_t max_iterations, double residual,
                          double seconds) {
  if (!terminal_ || seconds < kQuietSeconds) return;
  const double rate = seconds > 0 ? 1e-9 * static_cast<double>(points_) * static_cast<double>(iterations) / seconds : 0;
  std::fprintf(stderr, "\r  iteration %lld/%lld  max|du| %.3e  %.2f Gpoints/s  %.1f s   ",
               static_cast<long long>(iterations), static_cast<long long>(max_iterations), residual,
               rate, seconds);
  std::fflush(stderr);
  drawn_ = true;
}

}  // namespace parasol::app
