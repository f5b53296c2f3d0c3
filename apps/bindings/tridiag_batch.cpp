// tridiag's run of one batch, drawn from a seed or read from HDF5: general systems, or another
// kind's (periodic, multi-rhs, pentadiagonal, block2). Across ranks each solves its share of the
// systems, whole.
#include "apps/bindings/tridiag_run.hpp"
#include "solvers/tridiag/run.hpp"

namespace parasol::app {
namespace {

using tridiag::Problem;

template <class T>
class BatchRun final : public TridiagRun<T> {
  using Base = TridiagRun<T>;
  using Base::check_, Base::context_, Base::first_, Base::gold_, Base::gpu_, Base::kBytes,
      Base::kRowFastest, Base::kXUnits, Base::launch_, Base::p_, Base::systems_, Base::unknowns_,
      Base::x_;

 public:
  using Base::Base;

  void prepare(const RunSetup& setup) override {
    this->take(setup);
    refuse_restart(setup, "a batch is one solve, with nothing to continue; only the heat march "
                          "checkpoints");
    const int rank = this->rank(), ranks = this->ranks();
    if (p_.problem == Problem::random) {
      // A GPU run that needs no host copy (no gold: no --check) draws its systems on the
      // device, the same bits (solve_drawn); batch_ then holds their extent alone.
      drawn_ = gpu_ && !check_;
      io::with_sources(this->t_, [&] {
        batch_ = this->take_part(tridiag::random_batch_part<T>(p_.random, rank, ranks, !drawn_));
      });
    } else {
      batch_ = this->take_part(tridiag::read_batch_part<T>(p_.input, rank, ranks));
    }
    this->choose_launch(batch_.dims.n, batch_.dims.systems);
    this->require_memory(tridiag::footprint(batch_.dims, kBytes, !gpu_ || check_),
                         tridiag::extent(batch_.dims), gpu_);
    unknowns_ = static_cast<double>(systems_ * batch_.dims.n);
  }

  std::string describe() const override {
    return this->described(std::to_string(systems_) + " systems of " +
                           std::to_string(batch_.dims.n) + " rows" + this->source());
  }

  void solve(PhaseTimer& timings, io::ResultFile*) override {
    tridiag::Solved<T> s;
    try {
      s = drawn_ ? tridiag::solve_drawn<T>(launch_, batch_.dims, p_.random.seed, first_)
                 : tridiag::solve_on(gpu_, launch_, batch_);
    } catch (const tridiag::NumericalError& e) {
      throw this->from_source(e, " (these solvers do not pivot)");
    }
    this->finish(timings, std::move(s));
  }

  Agreement check() override {
    if (gold_.empty()) gold_ = tridiag::solve_gold(batch_);
    return tridiag::batch_agreement<T>(*context_, batch_, systems_, x_, gold_);
  }

  void write(Output& out) override {
    const auto n = static_cast<std::uint64_t>(batch_.dims.n);
    if (this->write_x(out, "/fields/x", {std::uint64_t(systems_), n}, x_.size() / n, kRowFastest,
                      kXUnits))
      this->write_input(out, systems_, batch_.dims.n);
  }

 private:
  tridiag::Batch<T> batch_;  // this rank's systems, contiguous
  bool drawn_ = false;       // a random batch drawn on the device, never on the host
};

template <class T>
class KindRun final : public TridiagRun<T> {
  using Base = TridiagRun<T>;
  using Base::check_, Base::context_, Base::first_, Base::gold_, Base::gpu_, Base::kBytes,
      Base::kRowFastest, Base::kXUnits, Base::launch_, Base::p_, Base::systems_, Base::unknowns_,
      Base::x_;

 public:
  using Base::Base;

  void prepare(const RunSetup& setup) override {
    this->take(setup);
    refuse_restart(setup, "a batch is one solve, with nothing to continue; only the heat march "
                          "checkpoints");
    const int rank = this->rank(), ranks = this->ranks();
    const auto fits = [&](const tridiag::KindDims& dims) {
      this->require_memory(tridiag::footprint(dims, kBytes, !gpu_ || check_),
                           tridiag::extent(dims), gpu_);
    };
    if (p_.problem == Problem::random) {
      // Sized before it is drawn: a batch larger than the memory is an input error naming the
      // key, not an allocation that fails.
      comm::Slab mine;
      io::with_sources(this->t_, [&] {
        mine = tridiag::system_share(p_.random.systems, rank, ranks, "random.systems", "systems");
      });
      fits({p_.kind, p_.random.n, mine.count(), p_.rhs});
      kinds_ = this->take_part(
          tridiag::random_kind_batch_part<T>(p_.random, p_.kind, p_.rhs, rank, ranks));
    } else {
      kinds_ = this->take_part(
          tridiag::read_kind_batch_part<T>(p_.input, p_.kind, p_.rhs, rank, ranks));
      fits(kinds_.dims);
    }
    this->choose_launch(kinds_.dims.n, kinds_.dims.systems);
    unknowns_ = static_cast<double>(systems_ * kinds_.dims.rhs_width());
  }

  std::string describe() const override {
    tridiag::KindDims whole = kinds_.dims;
    whole.systems = systems_;
    const std::string rhs = p_.kind == tridiag::Kind::multi_rhs
                                ? " with " + std::to_string(p_.rhs) + " right-hand sides"
                                : "";
    return this->described(tridiag::extent(whole) + rhs + this->source());
  }

  void solve(PhaseTimer& timings, io::ResultFile*) override {
    tridiag::Solved<T> s;
    try {
      s = tridiag::solve_on(gpu_, launch_, kinds_);
    } catch (const tridiag::NumericalError& e) {
      throw this->from_source(e);
    }
    this->finish(timings, std::move(s));
  }

  Agreement check() override {
    if (gold_.empty()) gold_ = tridiag::solve_kind_gold(kinds_);
    return tridiag::kind_batch_agreement<T>(*context_, kinds_, systems_, x_, gold_);
  }

  // x shaped as d: [systems][n], [systems][rhs][n] or [systems][n][2].
  void write(Output& out) override {
    const tridiag::KindDims& k = kinds_.dims;
    std::vector<std::uint64_t> extent{std::uint64_t(systems_), std::uint64_t(k.n)};
    std::string layout = kRowFastest;
    if (k.kind == tridiag::Kind::multi_rhs) {
      extent = {std::uint64_t(systems_), std::uint64_t(k.rhs), std::uint64_t(k.n)};
      layout = "[system][rhs][row], row fastest";
    } else if (k.kind == tridiag::Kind::block2) {
      extent.push_back(2);
      layout = "[system][block row][2], the pair fastest";
    }
    if (!this->write_x(out, "/fields/x", extent, std::uint64_t(k.systems), layout, kXUnits))
      return;
    this->write_input(out, systems_, k.n);
    out.file->set_attribute("/input", "kind", std::string(name(k.kind)));
    if (k.kind == tridiag::Kind::multi_rhs)
      out.file->set_attribute("/input", "rhs", std::int64_t{k.rhs});
  }

 private:
  tridiag::KindBatch<T> kinds_;  // this rank's systems, contiguous
};

}  // namespace

std::unique_ptr<Run> make_batch_run(io::ParamTable& t, TridiagFile file) {
  return run_in_precision<BatchRun>(t, std::move(file));
}

std::unique_ptr<Run> make_kind_run(io::ParamTable& t, TridiagFile file) {
  return run_in_precision<KindRun>(t, std::move(file));
}

}  // namespace parasol::app
