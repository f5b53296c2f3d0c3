// A one-line progress report for long runs, redrawn in place on a terminal and silent
// otherwise (logs and pipes get the summary only).
#pragma once

#include <cstdint>
#include <string>

namespace parasol::app {

class ProgressLine {
 public:
  // `points` per iteration, for the rate. Reports only on a terminal, and only once a run has
  // lasted long enough to need it.
  explicit ProgressLine(std::int64_t points);
  ~ProgressLine();  // ends the line if one was drawn
  void update(std::int64_t iterations, std::int64_t max_iterations, double residual, double seconds);

 private:
  std::int64_t points_;
  bool terminal_;
  bool drawn_ = false;
};

}  // namespace parasol::app
