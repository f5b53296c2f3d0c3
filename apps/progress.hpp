// A one-line progress report for long runs, redrawn in place on a terminal and silent otherwise
// (logs and pipes get the summary only): work done of the total, the rate, time spent and left.
#pragma once

#include <cstdint>
#include <string>

namespace parasol::app {

class ProgressLine {
 public:
  // `what` names a step ("iteration", "batch", "step"); each step is `units_per_step` units of
  // work, reported as a rate in G`unit`/s ("points", "path-steps"). Draws only on a terminal, and
  // only once a run has lasted long enough to need it. Under several ranks only rank 0 draws.
  ProgressLine(std::string what, std::string unit, double units_per_step);
  ~ProgressLine();  // ends the line if one was drawn
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;

  // `done` of `total` steps after `seconds`; `detail` ("max|du| 1.2e-03") is shown beside.
  void update(std::int64_t done, std::int64_t total, double seconds, const std::string& detail = "");

 private:
  std::string what_, unit_;
  double units_per_step_;
  bool terminal_;
  bool drawn_ = false;
};

// Whether this process draws progress and speaks for the run (false on ranks other than 0).
void set_speaker(bool speaks);
bool is_speaker();

}  // namespace parasol::app
