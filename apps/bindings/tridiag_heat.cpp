// tridiag's heat march: backward-Euler steps of the 1D heat equation on many grids (on a line, or
// a ring with system.kind = "periodic"), each step one batched solve, with checkpoints. Across
// ranks each marches its share of the grids, whole.
#include <optional>
#include <set>

#include "apps/bindings/tridiag_run.hpp"
#include "apps/progress.hpp"
#include "kernels/validate.hpp"

namespace parasol::app {
namespace {

// Reports a march's progress on `line`.
tridiag::ProgressCallback shown_on(ProgressLine& line) {
  return [&line](const tridiag::Progress& pr) { line.update(pr.steps, pr.total_steps, pr.seconds); };
}

template <class T>
class HeatRun final : public TridiagRun<T> {
  using Base = TridiagRun<T>;
  using Base::check_, Base::context_, Base::first_, Base::gold_, Base::gpu_, Base::kBytes,
      Base::launch_, Base::p_, Base::systems_, Base::t_, Base::x_;

 public:
  using Base::Base;

  void prepare(const RunSetup& setup) override {
    this->take(setup);
    io::with_sources(t_, [&] { part_ = tridiag::heat_share(p_.heat, this->rank(), this->ranks()); });
    part_.ring = p_.kind == tridiag::Kind::periodic;
    first_ = part_.first_grid;
    systems_ = p_.heat.grids;
    const tridiag::Dims dims{part_.points, part_.grids};
    this->choose_launch(dims.n, dims.systems);
    this->require_memory(tridiag::footprint(dims, kBytes, !gpu_ || check_), tridiag::extent(dims),
                         gpu_);
    this->unknowns_ =
        static_cast<double>(systems_ * p_.heat.points) * static_cast<double>(p_.heat.steps);
    this->decomposition_ = "whole grids";
    prepare_checkpoints(setup, dims);
  }

  std::string describe() const override {
    const tridiag::Heat& h = p_.heat;
    return this->described(std::string(part_.ring ? "heat ring on " : "heat on ") +
                           std::to_string(h.grids) + " grids x " + std::to_string(h.points) +
                           " points, " + std::to_string(h.steps) + " steps at lambda " +
                           shown(h.lambda));
  }

  void solve(PhaseTimer& timings, io::ResultFile*) override {
    tridiag::Timings t;
    {
      ProgressLine line("step", "unknowns", static_cast<double>(p_.heat.points * p_.heat.grids));
      if (gpu_) {
        const tridiag::HeatCheckpoints<T> points = safe_points<T>(restart_x_, x_from_);
        tridiag::HeatResult<T> r = tridiag::march_heat_gpu<T>(part_, launch_, shown_on(line), &points);
        x_ = std::move(r.u);
        t = r.timings;
        this->solve_seconds_ = r.solve_seconds;
      } else {
        const tridiag::HeatCheckpoints<double> points = safe_points<double>(restart_gold_, gold_from_);
        const auto start = std::chrono::steady_clock::now();
        gold_ = tridiag::march_heat_gold(part_, shown_on(line), &points);
        t.compute = this->solve_seconds_ = seconds_since(start);
        x_ = rounded<T>(gold_);
      }
    }
    checkpoints_->finish("step", p_.heat.steps);
    // Checkpoints are written inside the march: their seconds are a phase of their own.
    t.compute = std::max(0.0, t.compute - add_checkpoint_phase(timings, *checkpoints_));
    this->finish(timings, t);
  }

  void report(io::ResultFile& out) override {
    const tridiag::Diagnostics& d = this->diagnostics_;
    const double rate = this->write_rate(out);
    out.set_attribute("/diagnostics", "u_min", d.low);
    out.set_attribute("/diagnostics", "u_max", d.high);
    say(formatted("u from %.6g to %.6g; %.3f s (solves %.3f s), %.3f Gunknowns/s", d.low, d.high,
                  this->compute_seconds_, this->solve_seconds_, 1e-9 * rate));
    checkpoints_->report(out);
    if (!d.has_decay) return;
    out.set_attribute("/diagnostics", "sine_decay", d.decay.measured);
    out.set_attribute("/diagnostics", "exact_sine_decay", d.decay.exact);
    out.set_attribute("/diagnostics", "sine_decay_relative_error", d.decay.relative_error);
    out.set_attribute("/diagnostics", "decay_per_step", d.decay.per_step);
    say(formatted("sine mode %d decayed by %.6g over %lld steps; exact %.6g (relative error %.3g)",
                  p_.heat.mode, d.decay.measured, static_cast<long long>(p_.heat.steps),
                  d.decay.exact, d.decay.relative_error));
  }

  Agreement check() override {
    if (gold_.empty()) {
      ProgressLine line("gold step", "unknowns", static_cast<double>(part_.points * part_.grids));
      gold_ = tridiag::march_heat_gold(part_, shown_on(line));
    }
    return tridiag::march_agreement<T>(*context_, p_.heat, x_, gold_);
  }

  void write(Output& out) override {
    const auto n = static_cast<std::uint64_t>(p_.heat.points);
    this->write_x(out, "/fields/u", {std::uint64_t(p_.heat.grids), n}, x_.size() / n,
                  "[grid][point], point fastest", "as the initial temperatures");
  }

 private:
  tridiag::Diagnostics diagnostics() const override {
    return tridiag::heat_diagnostics(part_, x_);
  }

  // The march's checkpoints: this rank's grids after some steps. The GPU keeps them in T in its
  // variant's layout, the gold in contiguous doubles: a checkpoint says which it holds (`held`),
  // and a restart on the other backend is refused rather than rounded.
  void prepare_checkpoints(const RunSetup& setup, const tridiag::Dims& dims) {
    checkpoints_.emplace(p_.checkpoint, setup, "tridiag", t_, std::set<std::string>{"heat.steps"});
    const io::CheckpointReader* r = checkpoints_->restart();
    if (r == nullptr) return;
    const std::string held = std::get<std::string>(r->scalar("held"));
    if (held != held_by())
      throw InputError(r->path().string(), "",
                       "checkpoint refused: it holds " + held + ", and this run needs " +
                           held_by() + " (restart it on the backend and variant that wrote it)");
    restart_steps_ = r->integer("steps");
    if (restart_steps_ > p_.heat.steps)
      throw past_the_end(*r, "step " + std::to_string(restart_steps_), "heat.steps", p_.heat.steps);
    const auto size = static_cast<std::uint64_t>(dims.size());
    if (const std::optional<io::Share> s = share()) {
      // Whole grids one after another: this rank's from whichever ranks' parts hold them (every
      // cut marches each grid alike, so a checkpoint continues on any rank count).
      if (!gpu_) restart_gold_ = r->doubles("u", s->first, size, s->total);
      else restart_x_ = restart_values<T>(*r, "u", s->first, size, s->total);
      return;
    }
    r->require_same_ranks("it holds each rank's grids interleaved point by point, which only "
                          "the same cut reads back");
    restart_x_ = restart_values<T>(*r, "u", size);
  }

  // Where this rank's grids lie among the whole run's, when the march holds them contiguous
  // ([grid][point]); none when its layout interleaves them.
  std::optional<io::Share> share() const {
    if (!tridiag::held_contiguous(gpu_, launch_.variant)) return std::nullopt;
    const auto points = static_cast<std::uint64_t>(p_.heat.points);
    const auto first = static_cast<std::uint64_t>(part_.first_grid) * points;
    return io::Share{static_cast<std::uint64_t>(p_.heat.grids) * points, first, first,
                     first + static_cast<std::uint64_t>(part_.grids) * points};
  }

  std::string held_by() const { return tridiag::held_by(gpu_, launch_.variant, kBytes); }

  // The march's safe points, continuing from `restart` (when a restart read one) through `from`.
  template <class U>
  tridiag::HeatCheckpoints<U> safe_points(const std::vector<U>& restart,
                                          tridiag::HeatState<U>& from) {
    from = {restart_steps_, restart.data(), static_cast<std::int64_t>(restart.size())};
    const std::string held = held_by();
    return checkpoints_->safe_points<tridiag::HeatState<U>>(
        restart.empty() ? nullptr : &from,
        [held, share = share()](io::CheckpointWriter& w, const tridiag::HeatState<U>& s) {
          w.add("steps", s.steps);
          w.add("held", std::string(held));
          if (share) w.add("u", s.u, static_cast<std::uint64_t>(s.values), *share);
          else w.add("u", s.u, static_cast<std::uint64_t>(s.values));
        });
  }

  tridiag::Heat part_;  // the grids this rank marches: all of them on one rank
  std::optional<Checkpointing> checkpoints_;
  std::int64_t restart_steps_ = 0;
  std::vector<T> restart_x_;           // a GPU restart's temperatures
  std::vector<double> restart_gold_;   // a CPU restart's
  tridiag::HeatState<T> x_from_;       // the state each points at
  tridiag::HeatState<double> gold_from_;
};

}  // namespace

std::unique_ptr<Run> make_heat_run(io::ParamTable& t, TridiagFile file) {
  return run_in_precision<HeatRun>(t, std::move(file));
}

}  // namespace parasol::app
