// A run's checkpoints, as a binding uses them: where they go, when one is due (every N steps,
// every S seconds, or on a signal), writing this rank's part of one, reading it back on
// `--restart`, and how a run that stopped for one ends. The file itself is io/checkpoint.hpp's;
// the solver's loop meets this at its safe points (kernels/checkpoint_keys.hpp's SafePoints).
//
// In a binding (laplace3d's is the model):
//   prepare():  checkpoints_.emplace(p_.checkpoint, setup, "laplace3d", t_, {keys a restart may change});
//               if (const io::CheckpointReader* r = checkpoints_->restart()) { read the state }
//   solve():    SafePoints<State> points = checkpoints_->safe_points<State>(from, [&](w, s) { add s to w });
//               ... solve with &points ...; checkpoints_->finish("iteration", total);
//   report():   checkpoints_->report(out);
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <set>
#include <string>

#include "apps/binding.hpp"
#include "apps/progress.hpp"
#include "io/checkpoint.hpp"
#include "kernels/checkpoint_keys.hpp"

namespace parasol::app {

class Checkpointing {
 public:
  // For a run of `solver` set up by `setup`, checkpointing as `cp` says. With --restart, opens
  // and checks this rank's part now, or on another rank count every part (collective: every rank
  // agrees, and a refusal is one line, exit 2): every parameter but the [checkpoint] keys and
  // `may_differ` must match. The binding reads its state from restart(): the pieces of a whole
  // by their share, so that any rank count can continue them.
  Checkpointing(const CheckpointParams& cp, const RunSetup& setup, std::string solver,
                const io::ParamTable& params, std::set<std::string> may_differ);

  // Whether this run checkpoints at all (a [checkpoint] key, or --restart).
  bool enabled() const { return enabled_; }
  // The checkpoint a restart continues from, as this rank reads it; null when not restarting.
  const io::CheckpointReader* restart() const { return reader_ ? &*reader_ : nullptr; }

  // The SafePoints a solver takes: the state a restart continues from (`from`, or null), and a
  // save that writes this rank's part of a checkpoint with `fill(writer, state)` adding the
  // state. Signals are caught from here until finish().
  template <class State, class Fill>
  SafePoints<State> safe_points(const State* from, Fill fill) {
    if (enabled_) signals_.emplace();
    SafePoints<State> points;
    points.from = from;
    points.every = cp_.every;
    if (!enabled_) return points;
    points.at = [this](std::int64_t step) { return at(step); };
    points.save = [this, fill](const State& state) {
      write(step_, [&](io::CheckpointWriter& w) { fill(w, state); });
    };
    return points;
  }

  // After the solve. A run that stopped for a checkpoint says so in its last line, naming the
  // checkpoint and the command that continues it, and ends every rank with status 75
  // (io::kCheckpointedStatus); `what` names a step ("iteration"), `total` the steps asked for.
  void finish(const std::string& what, std::int64_t total);

  // Seconds spent writing checkpoints, which the solver's own compute timing includes.
  double seconds() const { return seconds_; }
  // /checkpoint in the result: how many were written, where, their bytes and rate; and the
  // summary's line.
  void report(io::ResultFile& out) const;

 private:
  AtSafePoint at(std::int64_t step);
  void write(std::int64_t step, const std::function<void(io::CheckpointWriter&)>& fill);

  CheckpointParams cp_;
  bool enabled_ = false;
  std::string solver_;
  const io::ParamTable& params_;
  comm::Context& context_;
  std::filesystem::path file_;  // where this run's checkpoints go (rank 0's part)
  Backend backend_;
  std::string command_line_;
  std::optional<io::CheckpointReader> reader_;
  std::optional<CheckpointOnSignal> signals_;
  std::chrono::steady_clock::time_point last_;  // the last checkpoint, or the solve's start
  std::int64_t step_ = 0;                       // the step `at` last said to save
  int stopped_by_ = 0;                          // the signal a stop answered
  std::int64_t stopped_at_ = -1;
  std::int64_t written_ = 0;
  std::uint64_t bytes_ = 0;
  double seconds_ = 0;
};

}  // namespace parasol::app
