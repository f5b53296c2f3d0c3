#include "apps/progress.hpp"

#include <unistd.h>

#include <cstdio>

namespace parasol::app {

namespace {
constexpr double kQuietSeconds = 1.0;  // runs shorter than this print no progress
bool speaker = true;
}  // namespace

void set_speaker(bool speaks) { speaker = speaks; }
bool is_speaker() { return speaker; }

ProgressLine::ProgressLine(std::string what, std::string unit, double units_per_step)
    : what_(std::move(what)),
      unit_(std::move(unit)),
      units_per_step_(units_per_step),
      terminal_(speaker && isatty(STDERR_FILENO) != 0) {}

ProgressLine::~ProgressLine() {
  if (drawn_) std::fputc('\n', stderr);
}

void ProgressLine::update(std::int64_t done, std::int64_t total, double seconds,
                          const std::string& detail) {
  if (!terminal_ || seconds < kQuietSeconds || done <= 0) return;
  const double steps = static_cast<double>(done);
  const double rate = 1e-9 * units_per_step_ * steps / seconds;
  const double left = seconds * (static_cast<double>(total) - steps) / steps;
  std::fprintf(stderr, "\r  %s %lld/%lld%s%s  %.3g G%s/s  %.1f s, %.1f s left   ", what_.c_str(),
               static_cast<long long>(done), static_cast<long long>(total),
               detail.empty() ? "" : "  ", detail.c_str(), rate, unit_.c_str(), seconds,
               left > 0 ? left : 0.0);
  std::fflush(stderr);
  drawn_ = true;
}

}  // namespace parasol::app
