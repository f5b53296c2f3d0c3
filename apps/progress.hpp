// What a long run says while it runs. On a terminal: one line redrawn in place. Off a terminal
// (a batch job's log file, a pipe): plain lines, one every interval (--progress SECONDS, 10 s by
// default), so a log read mid-run shows where the run is. And, on a signal that ends the run, one
// last line saying so, with the step the run had reached.
#pragma once

#include <cstdint>
#include <string>

namespace parasol::app {

// Off a terminal, a progress line every `interval_s` seconds (0: every update); `quiet`: no
// progress lines and no heartbeats anywhere. Set once by the front end, before any run.
void configure_progress(double interval_s, bool quiet);
inline constexpr double kDefaultProgressInterval = 10.0;  // seconds, between lines in a log

class ProgressLine {
 public:
  // `what` names a step ("iteration", "batch", "step"); each step is `units_per_step` units of
  // work, reported as a rate in G`unit`/s ("points", "path-steps"). On a terminal it draws once a
  // run has lasted a second; off one it prints a line each interval. Only the speaker (rank 0)
  // prints; every rank keeps its step for the line a signal prints.
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
  double printed_at_ = 0;  // off a terminal: the seconds of the last line printed
  int slot_;               // where the signal handler reads this line's step
};

// A phase with no progress of its own (setup, writing sidecars, waiting on other ranks): off a
// terminal, a line "  setup: running for 20 s" each interval in which no progress line was
// printed, so a log never goes silent for longer than the interval. Nothing on a terminal.
class Heartbeat {
 public:
  explicit Heartbeat(std::string phase);
  ~Heartbeat();
  Heartbeat(const Heartbeat&) = delete;
  Heartbeat& operator=(const Heartbeat&) = delete;

 private:
  struct Beat;
  Beat* beat_;  // null when it prints nothing (a terminal, --quiet, a rank other than 0)
};

// Whether this process draws progress and speaks for the run (false on ranks other than 0).
void set_speaker(bool speaks);
bool is_speaker();

// The line a signal that ends the run prints on stderr, through write(2) only (it runs inside a
// signal handler): "parasol: interrupted by SIGTERM at iteration 40 of 1000 after 12.3 s;
// nothing written". `committed`: a result had been put in place before the signal. Only the
// speaker prints it. Async-signal-safe.
void say_interrupted(int signal_number, bool committed) noexcept;

// The command has its outcome (its status, and any failure already said): a signal from here on
// (a launcher ending the other ranks once one has returned) cleans up silently, so a failed run
// across ranks stays one line.
void mark_outcome_known() noexcept;

// While a run that checkpoints is solving: the first SIGTERM, SIGINT or SIGUSR1 does not end the
// process but asks the run to write a checkpoint at its next safe point and stop (one line on
// stderr says so at once); a second one ends the process as the handler installed before does
// (its temporaries removed, so the checkpoint before stays whole). The handlers before it are
// back once it goes.
class CheckpointOnSignal {
 public:
  CheckpointOnSignal();
  ~CheckpointOnSignal();
  CheckpointOnSignal(const CheckpointOnSignal&) = delete;
  CheckpointOnSignal& operator=(const CheckpointOnSignal&) = delete;
};

// The signal that asked for a checkpoint (SIGTERM, ...), 0 while none has. Async-signal-safe.
int checkpoint_requested() noexcept;
// "SIGTERM", "SIGUSR1", or "signal N".
std::string signal_text(int signal_number);

}  // namespace parasol::app
