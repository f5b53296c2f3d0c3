// Wall-clock seconds by phase of a run (setup, upload, compute, download, check, write): what a
// user waits for, I/O included. Device work is timed on the device (EventTimer) and added here
// under its own phase. Each timed scope is also an NVTX range of the phase's name (kernels/nvtx.hpp:
// only with -DPARASOL_NVTX=ON), so a profile's timeline shows the same phases as the summary.
#pragma once

#include <chrono>
#include <string>
#include <utility>
#include <vector>

#include "kernels/nvtx.hpp"

namespace parasol {

// The phases' names, written once: a run's /timings and summary, and the solvers' results (their
// own phases beside these, e.g. montecarlo's "paths", are named in their headers).
namespace phase {
inline constexpr char startup[] = "startup";      // process start to the parameters read
inline constexpr char setup[] = "setup";          // inputs made or read, device and plans made
inline constexpr char read[] = "read";            // input files read
inline constexpr char host_to_device[] = "host_to_device";
inline constexpr char compute[] = "compute";      // device (or CPU) work, exchange not included
inline constexpr char device_to_host[] = "device_to_host";
inline constexpr char exchange[] = "exchange";    // in the communication layer, across ranks
inline constexpr char wait[] = "wait";            // for the slowest rank
inline constexpr char check[] = "check";
inline constexpr char checkpoint[] = "checkpoint";
inline constexpr char write[] = "write";
inline constexpr char release[] = "release";      // device memory and handles given back
}  // namespace phase

class PhaseTimer {
 public:
  // Adds the seconds from its making to its end (or stop()) to `phase`.
  class Scope {
   public:
    Scope(PhaseTimer& timer, std::string phase)
        : timer_(&timer), phase_(std::move(phase)), range_(phase_.c_str()), start_(Clock::now()) {}
    Scope(Scope&& other) noexcept
        : timer_(std::exchange(other.timer_, nullptr)),
          phase_(std::move(other.phase_)),
          range_(std::move(other.range_)),
          start_(other.start_) {}
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;
    Scope& operator=(Scope&&) = delete;
    ~Scope() { stop(); }
    // The seconds added; later calls add nothing.
    double stop() {
      if (timer_ == nullptr) return 0;
      const double s = std::chrono::duration<double>(Clock::now() - start_).count();
      range_.end();
      std::exchange(timer_, nullptr)->add(phase_, s);
      return s;
    }

   private:
    PhaseTimer* timer_;
    std::string phase_;
    NvtxRange range_;
    std::chrono::steady_clock::time_point start_;
  };

  Scope time(std::string phase) { return Scope(*this, std::move(phase)); }

  void add(const std::string& phase, double seconds) {
    for (auto& [name, total] : phases_)
      if (name == phase) {
        total += seconds;
        return;
      }
    phases_.emplace_back(phase, seconds);
  }

  // Every phase of `other` added to this one's (a solver's own timings into a run's).
  void add(const PhaseTimer& other) {
    for (const auto& [name, seconds] : other.phases_) add(name, seconds);
  }

  // Forgets `phase` (a device phase on a run with no device, say); nothing if never timed.
  void drop(const std::string& phase) {
    for (auto it = phases_.begin(); it != phases_.end(); ++it)
      if (it->first == phase) {
        phases_.erase(it);
        return;
      }
  }

  // 0 for a phase never timed.
  double seconds(const std::string& phase) const {
    for (const auto& [name, total] : phases_)
      if (name == phase) return total;
    return 0;
  }

  // In the order each phase was first met.
  const std::vector<std::pair<std::string, double>>& phases() const { return phases_; }

 private:
  using Clock = std::chrono::steady_clock;
  std::vector<std::pair<std::string, double>> phases_;
};

// When this process started, on the steady clock: the kernel's record of its start (in clock
// ticks, 10 ms at the usual 100 Hz, so it is read half a tick late), never later than this
// library's first static initialiser. The wall time a user waits for begins there, before the
// dynamic linker and every static initialiser. kernels/process_start.cpp.
std::chrono::steady_clock::time_point process_start();

// Seconds of wall time since `start`.
inline double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace parasol
