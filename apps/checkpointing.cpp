#include "apps/checkpointing.hpp"

#include <iostream>
#include <utility>
#include <vector>

#include "apps/provenance.hpp"
#include "apps/ranks.hpp"
#include "apps/units.hpp"
#include "kernels/phase_timer.hpp"

namespace parasol::app {

Checkpointing::Checkpointing(const CheckpointParams& cp, const RunSetup& setup,
                             std::string solver, const io::ParamTable& params,
                             std::set<std::string> may_differ)
    : cp_(cp),
      enabled_(cp.enabled() || !setup.options.restart.empty()),
      solver_(std::move(solver)),
      params_(params),
      context_(setup.context),
      file_(cp.file.empty() ? io::default_checkpoint_path(setup.output)
                            : std::filesystem::path(cp.file)),
      backend_(setup.backend),
      command_line_(setup.options.command_line),
      last_(std::chrono::steady_clock::now()) {
  if (setup.options.restart.empty()) return;
  // Every rank reads its own part, or on another rank count the parts that hold its pieces; a
  // refusal on any is said once and ends every rank with 2.
  together(context_, [&] {
    reader_.emplace(setup.options.restart, solver_, context_.rank(), context_.size(),
                    params.resolved(), may_differ);
  });
  // The parts must be of one checkpoint: a second signal between two ranks' renames could leave
  // one rank's newer than another's. (On another rank count the reader has compared them all.)
  if (context_.size() > 1) {
    std::vector<std::int64_t> steps{reader_->step(), -reader_->step()};
    context_.all_reduce(steps, comm::Op::max);
    if (steps[0] != -steps[1])
      throw InputError(setup.options.restart.string(), "",
                       "checkpoint refused: its ranks' parts are of different steps (" +
                           std::to_string(-steps[1]) + " to " + std::to_string(steps[0]) +
                           "); restart from an older checkpoint (checkpoint.keep)");
  }
}

AtSafePoint Checkpointing::at(std::int64_t step) {
  const int signal_number = checkpoint_requested();
  const bool by_count = cp_.every > 0 && step % cp_.every == 0;
  const bool by_time =
      cp_.every_seconds > 0 && seconds_since(last_) >= cp_.every_seconds;
  // Clocks and signals differ between ranks: the ranks agree, so that all save or none does.
  std::vector<std::int64_t> want{by_count || by_time || signal_number != 0 ? 1 : 0,
                                 signal_number};
  if (context_.size() > 1) context_.all_reduce(want, comm::Op::max);
  if (want[0] == 0) return AtSafePoint::go_on;
  step_ = step;
  if (want[1] == 0) return AtSafePoint::save;
  stopped_by_ = static_cast<int>(want[1]);
  stopped_at_ = step;
  return AtSafePoint::save_and_stop;
}

void Checkpointing::write(std::int64_t step, const std::function<void(io::CheckpointWriter&)>& fill) {
  const auto started = std::chrono::steady_clock::now();
  std::uint64_t bytes = 0;
  // Each rank writes its own part at once; a failure on any (a full disk) ends every rank.
  together(context_, [&] {
    io::CheckpointWriter w(file_, solver_, step, context_.rank(), context_.size());
    write_parameters(w.file(), params_);
    write_provenance(w.file(), solver_, backend_, command_line_);
    fill(w);
    bytes = w.bytes();
    w.commit(cp_.keep);
  });
  ++written_;
  bytes_ += bytes;
  seconds_ += seconds_since(started);
  last_ = std::chrono::steady_clock::now();
}

void Checkpointing::finish(const std::string& what, std::int64_t total) {
  signals_.reset();
  if (stopped_at_ < 0) return;
  if (is_speaker()) {
    std::cerr << "parasol: " << signal_text(stopped_by_) << ": stopped at " << what << " "
              << stopped_at_ << " of " << total << " with a checkpoint in " << file_.string()
              << "; continue with --restart " << file_.string() << "\n";
  }
  throw Stop{io::kCheckpointedStatus};
}

void Checkpointing::report(io::ResultFile& out) const {
  if (!enabled_) return;
  out.set_attribute("/checkpoint", "written", written_);
  out.set_attribute("/checkpoint", "file", file_.string());
  out.set_attribute("/checkpoint", "bytes_per_rank", static_cast<std::int64_t>(bytes_));
  out.set_attribute("/checkpoint", "write_s", seconds_);
  if (written_ == 0) return;
  say("checkpoints: " + std::to_string(written_) + " to " + file_.string() + ", " +
      bytes_text(static_cast<double>(bytes_)) + " in " + short_number(seconds_) + " s (" +
      byte_rate_text(static_cast<double>(bytes_) / seconds_) + ")");
}

}  // namespace parasol::app
