// tridiag's long systems (system.cut = "rows"): one system (or a few) whose rows are cut among
// the ranks, solved by the partition method with the interface across ranks (solvers/tridiag/
// long.hpp).
#include "apps/bindings/tridiag_run.hpp"
#include "kernels/device.hpp"
#include "solvers/tridiag/long.hpp"

namespace parasol::app {
namespace {

using tridiag::Problem;

template <class T>
class LongRun final : public TridiagRun<T> {
  using Base = TridiagRun<T>;
  using Base::check_, Base::context_, Base::gpu_, Base::kBytes, Base::kRowFastest, Base::kXUnits,
      Base::p_, Base::systems_, Base::t_, Base::x_;

 public:
  using Base::Base;

  // This rank's rows of every system, read or drawn (the memory judged before they are drawn);
  // a cut that leaves a rank (on the GPU, a piece) fewer than two rows names the key that sized n.
  void prepare(const RunSetup& setup) override {
    this->take(setup);
    const std::int64_t piece_rows = gpu_ ? tridiag::kDevicePieceRows : 0;
    const bool ring = p_.kind == tridiag::Kind::periodic;
    const int rank = this->rank(), ranks = this->ranks();
    if (p_.problem == Problem::file) {
      rows_ = tridiag::read_rows_part<T>(p_.input, ring, rank, ranks, piece_rows);
      systems_ = rows_.batch.dims.systems;
      require_rows_memory(rows_.n, rows_.batch.dims);
    } else {
      comm::Slab mine;
      io::with_sources(t_, [&] {
        mine = tridiag::rows_share(p_.random.n, rank, ranks, piece_rows, "random.n");
      });
      systems_ = p_.random.systems;
      require_rows_memory(p_.random.n, {mine.count(), systems_, tridiag::Layout::contiguous});
      // A GPU run that needs no host copy (no --check) draws a line's rows on the device, the
      // same bits (solve_long_gpu); rows_ then holds their extent alone.
      drawn_ = gpu_ && !check_ && !ring;
      rows_ = tridiag::random_rows<T>(p_.random, ring, mine, !drawn_);
    }
    mine_ = comm::even_slab(rows_.n, rank, ranks);
    this->unknowns_ = static_cast<double>(systems_ * rows_.n);
    this->decomposition_ = "rows of every system";
    refuse_restart(setup, "one long system is one solve, with nothing to continue; only the heat "
                          "march checkpoints");
  }

  std::string describe() const override {
    const int ranks = this->ranks();
    const std::string cut = ranks > 1 ? ", rows cut among " + std::to_string(ranks) + " ranks" : "";
    const std::string method =
        "partition method" + (gpu_ ? ", pieces of " + std::to_string(tridiag::kDevicePieceRows) +
                                         " rows, " + std::to_string(p_.threads) + " threads"
                                   : std::string());
    const std::string kind = rows_.periodic ? " periodic" : "";
    return std::to_string(systems_) + kind + (systems_ == 1 ? " system of " : " systems of ") +
           std::to_string(rows_.n) + " rows" + this->source() + cut + ", " +
           std::string(name(p_.precision)) + "; " +
           (gpu_ ? method + " on " + current_device().name : "CPU " + method);
  }

  // This rank's rows by the partition method, the interface across ranks timed as "exchange"
  // (on one rank, where nothing is exchanged, as compute) and counted in the solve's seconds; a
  // failure names where the systems came from.
  void solve(PhaseTimer& timings, io::ResultFile*) override {
    tridiag::LongTimings t;
    try {
      if (gpu_) {
        tridiag::LongResult<T> r =
            drawn_ ? tridiag::solve_long_gpu<T>(*context_, rows_.n, systems_, p_.random.seed,
                                                mine_, p_.threads)
                   : tridiag::solve_long_gpu<T>(*context_, rows_, p_.threads);
        x_ = std::move(r.x);
        t = r.timings;
      } else {
        const tridiag::LongResult<double> r = tridiag::solve_long<T>(*context_, rows_);
        x_ = rounded<T>(r.x);
        t = r.timings;
      }
    } catch (const tridiag::NumericalError& e) {
      throw this->from_source(e);
    }
    double exchange = 0;
    if (this->ranks() > 1) {
      timings.add("exchange", t.exchange);
      exchange = t.exchange;
    } else {
      t.device.compute += t.exchange;
    }
    this->solve_seconds_ = t.device.compute + exchange;
    this->finish(timings, t.device);
  }

  Reproducibility reproducibility() const override {
    return {true, "the partition method in a fixed order on a cut fixed by the rank count "
                  "(and on the GPU by its pieces of rows): the same ranks give the same bits, "
                  "another count the same answer rounded otherwise"};
  }

  // Every rank solves the whole batch's gold: one long system's is one sweep down and up.
  Agreement check() override {
    return tridiag::long_check<T>(*context_, p_, rows_.n, systems_, x_, mine_);
  }

  void write(Output& out) override {
    const auto n = static_cast<std::uint64_t>(rows_.n), systems = static_cast<std::uint64_t>(systems_);
    if (!out.write_part("/fields/x", {systems, n}, {0, static_cast<std::uint64_t>(mine_.begin)},
                        {systems, static_cast<std::uint64_t>(mine_.count())}, x_.data()))
      return;
    out.file->set_attribute("/fields/x", "layout", std::string(kRowFastest));
    out.file->set_attribute("/fields/x", "units", std::string(kXUnits));
    this->write_input(out, systems_, rows_.n);
    out.file->set_attribute("/input", "cut", std::string("rows"));
    if (rows_.periodic) out.file->set_attribute("/input", "kind", std::string("periodic"));
  }

 private:
  // This rank's rows (`mine`) of systems of n rows: the CPU's partition method keeps about as
  // many doubles a row as the gold; with --check every rank holds the whole batch and its gold
  // besides.
  void require_rows_memory(std::int64_t n, const tridiag::Dims& mine) const {
    this->require_memory(tridiag::footprint(mine, kBytes, !gpu_), tridiag::extent(mine), gpu_);
    if (!check_) return;
    const tridiag::Dims whole{n, mine.systems, tridiag::Layout::contiguous};
    this->require_memory(tridiag::footprint(whole, kBytes, true), tridiag::extent(whole), false);
  }

  tridiag::RowsPart<T> rows_;  // this rank's rows of every system
  comm::Slab mine_;            // ... which rows they are
  bool drawn_ = false;         // ... drawn on the device, never on the host
};

}  // namespace

std::unique_ptr<Run> make_long_run(io::ParamTable& t, TridiagFile file) {
  return run_in_precision<LongRun>(t, std::move(file));
}

}  // namespace parasol::app
