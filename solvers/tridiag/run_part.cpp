// One run of each tridiag problem on one rank: a batch of general systems, of another kind, the
// heat march, and one long system cut by rows.
#include "solvers/tridiag/run_part.hpp"

#include <chrono>

#include "kernels/error.hpp"
#include "kernels/phase_timer.hpp"
#include "kernels/printable.hpp"
#include "kernels/validate.hpp"
#include "solvers/tridiag/inputs.hpp"
#include "solvers/tridiag/long.hpp"

namespace parasol::tridiag {
namespace {

constexpr const char* kRowFastest = "[system][row], row fastest";
constexpr const char* kXUnits = "as d divided by the coefficients' unit";

template <class U, class T>
std::vector<U> rounded_to(const std::vector<T>& x) {
  return std::vector<U>(x.begin(), x.end());
}

// `t` with its compute as kSolves too: a solve with nothing else in its compute.
PhaseTimer solves_are_compute(PhaseTimer t) {
  t.add(kSolves, t.seconds(phase::compute));
  return t;
}

// A batch of general systems, this rank's share of them whole. A GPU run that needs no host
// copy (no check) draws a random batch on the device, the same bits (solve_drawn): batch_ then
// holds their extent alone.
template <class T>
class GeneralRun final : public RunPart<T> {
  using Base = RunPart<T>;
  using Base::first_, Base::gold_, Base::p_, Base::systems_, Base::unknowns_, Base::where_,
      Base::x_;

 public:
  GeneralRun(const Params& p, const Placement& where) : Base(p, where) {
    const auto take = [&](auto part) {
      first_ = part.first;
      systems_ = part.systems;
      batch_ = std::move(part.batch);
    };
    if (p_.problem == Problem::random) {
      drawn_ = where_.gpu && !where_.check;
      this->sourced([&] {
        take(random_batch_part<T>(p_.random, where_.rank, where_.ranks, !drawn_));
      });
    } else {
      take(read_batch_part<T>(p_.input, where_.rank, where_.ranks));
    }
    unknowns_ = static_cast<double>(systems_ * batch_.dims.n);
  }

  Dims launch_dims() const override { return batch_.dims; }
  void fit() const override {
    this->fits(footprint(batch_.dims, sizeof(T), !where_.gpu || where_.check),
               extent(batch_.dims), where_.gpu);
  }
  std::string what() const override {
    return std::to_string(systems_) + " systems of " + std::to_string(batch_.dims.n) + " rows" +
           this->source();
  }

  PhaseTimer solve(comm::Context&, const Launch& launch, const Marching<T>&) override {
    Solved<T> s;
    try {
      s = drawn_ ? solve_drawn<T>(launch, batch_.dims, p_.random.seed, first_)
                 : solve_on(where_.gpu, launch, batch_);
    } catch (const NumericalError& e) {
      throw this->from_source(e, " (these solvers do not pivot)");
    }
    x_ = std::move(s.x);
    gold_ = std::move(s.gold);
    return solves_are_compute(std::move(s.timings));
  }

  Agreement check(comm::Context& context, const ProgressCallback&) override {
    if (gold_.empty()) gold_ = solve_gold(batch_);
    return batch_agreement<T>(context, batch_, systems_, x_, gold_);
  }

  FieldBlock field() const override {
    const auto n = static_cast<std::uint64_t>(batch_.dims.n);
    return {"/fields/x", {std::uint64_t(systems_), n}, {std::uint64_t(first_), 0},
            {x_.size() / n, n}, kRowFastest, kXUnits};
  }
  Attributes input() const override { return this->input_of(batch_.dims.n); }

 private:
  Batch<T> batch_;      // this rank's systems, contiguous
  bool drawn_ = false;  // a random batch drawn on the device, never on the host
};

// A batch of another kind (periodic, multi-rhs, pentadiagonal, block2), this rank's share of
// them whole. A random batch is sized before it is drawn: one larger than the memory is an
// input error naming the key, not an allocation that fails.
template <class T>
class KindRun final : public RunPart<T> {
  using Base = RunPart<T>;
  using Base::first_, Base::gold_, Base::p_, Base::systems_, Base::unknowns_, Base::where_,
      Base::x_;

 public:
  KindRun(const Params& p, const Placement& where) : Base(p, where) {
    const auto fits = [&](const KindDims& dims) {
      this->fits(footprint(dims, sizeof(T), !where_.gpu || where_.check), extent(dims),
                 where_.gpu);
    };
    const auto take = [&](auto part) {
      first_ = part.first;
      systems_ = part.systems;
      kinds_ = std::move(part.batch);
    };
    if (p_.problem == Problem::random) {
      comm::Slab mine;
      this->sourced([&] {
        mine = system_share(p_.random.systems, where_.rank, where_.ranks, "random.systems",
                            "systems");
      });
      fits({p_.kind, p_.random.n, mine.count(), p_.rhs});
      take(random_kind_batch_part<T>(p_.random, p_.kind, p_.rhs, where_.rank, where_.ranks));
    } else {
      take(read_kind_batch_part<T>(p_.input, p_.kind, p_.rhs, where_.rank, where_.ranks));
      fits(kinds_.dims);
    }
    unknowns_ = static_cast<double>(systems_ * kinds_.dims.rhs_width());
  }

  Dims launch_dims() const override { return {kinds_.dims.n, kinds_.dims.systems}; }
  std::string what() const override {
    KindDims whole = kinds_.dims;
    whole.systems = systems_;
    const std::string rhs = p_.kind == Kind::multi_rhs
                                ? " with " + std::to_string(p_.rhs) + " right-hand sides"
                                : "";
    return extent(whole) + rhs + this->source();
  }

  PhaseTimer solve(comm::Context&, const Launch& launch, const Marching<T>&) override {
    Solved<T> s;
    try {
      s = solve_on(where_.gpu, launch, kinds_);
    } catch (const NumericalError& e) {
      throw this->from_source(e);
    }
    x_ = std::move(s.x);
    gold_ = std::move(s.gold);
    return solves_are_compute(std::move(s.timings));
  }

  Agreement check(comm::Context& context, const ProgressCallback&) override {
    if (gold_.empty()) gold_ = solve_kind_gold(kinds_);
    return kind_batch_agreement<T>(context, kinds_, systems_, x_, gold_);
  }

  // x shaped as d: [systems][n], [systems][rhs][n] or [systems][n][2].
  FieldBlock field() const override {
    const KindDims& k = kinds_.dims;
    FieldBlock f{"/fields/x", {std::uint64_t(systems_), std::uint64_t(k.n)}, {}, {}, kRowFastest,
                 kXUnits};
    if (k.kind == Kind::multi_rhs) {
      f.dims = {std::uint64_t(systems_), std::uint64_t(k.rhs), std::uint64_t(k.n)};
      f.layout = "[system][rhs][row], row fastest";
    } else if (k.kind == Kind::block2) {
      f.dims.push_back(2);
      f.layout = "[system][block row][2], the pair fastest";
    }
    f.offset.assign(f.dims.size(), 0);
    f.offset[0] = static_cast<std::uint64_t>(first_);
    f.count = f.dims;
    f.count[0] = static_cast<std::uint64_t>(k.systems);
    return f;
  }
  Attributes input() const override {
    Attributes a = this->input_of(kinds_.dims.n);
    a.emplace_back("kind", std::string(name(kinds_.dims.kind)));
    if (kinds_.dims.kind == Kind::multi_rhs) a.emplace_back("rhs", std::int64_t{kinds_.dims.rhs});
    return a;
  }

 private:
  KindBatch<T> kinds_;  // this rank's systems, contiguous
};

// The heat march: backward-Euler steps on this rank's grids, whole (on a ring with system.kind =
// "periodic"), each step one batched solve.
template <class T>
class HeatRun final : public RunPart<T> {
  using Base = RunPart<T>;
  using Base::first_, Base::gold_, Base::p_, Base::systems_, Base::unknowns_, Base::where_,
      Base::x_;

 public:
  HeatRun(const Params& p, const Placement& where) : Base(p, where) {
    this->sourced([&] { part_ = heat_share(p_.heat, where_.rank, where_.ranks); });
    part_.ring = p_.kind == Kind::periodic;
    first_ = part_.first_grid;
    systems_ = p_.heat.grids;
    unknowns_ = static_cast<double>(systems_ * p_.heat.points) * static_cast<double>(p_.heat.steps);
  }

  Dims launch_dims() const override { return {part_.points, part_.grids}; }
  void fit() const override {
    const Dims dims = launch_dims();
    this->fits(footprint(dims, sizeof(T), !where_.gpu || where_.check), extent(dims), where_.gpu);
  }
  const char* decomposition() const override { return "whole grids"; }
  std::string what() const override {
    const Heat& h = p_.heat;
    return std::string(part_.ring ? "heat ring on " : "heat on ") + std::to_string(h.grids) +
           " grids x " + std::to_string(h.points) + " points, " + std::to_string(h.steps) +
           " steps at lambda " + shown(h.lambda);
  }

  PhaseTimer solve(comm::Context&, const Launch& launch, const Marching<T>& m) override {
    if (where_.gpu) {
      HeatResult<T> r = march_heat_gpu<T>(part_, launch, m.progress, m.gpu ? &*m.gpu : nullptr);
      x_ = std::move(r.u);
      return std::move(r.timings);
    }
    const auto start = std::chrono::steady_clock::now();
    gold_ = march_heat_gold(part_, m.progress, m.gold ? &*m.gold : nullptr);
    PhaseTimer t;
    t.add(phase::compute, seconds_since(start));
    x_ = rounded_to<T>(gold_);
    return solves_are_compute(std::move(t));
  }

  Diagnostics diagnostics() const override { return heat_diagnostics(part_, x_); }
  Agreement check(comm::Context& context, const ProgressCallback& progress) override {
    if (gold_.empty()) gold_ = march_heat_gold(part_, progress);
    return march_agreement<T>(context, p_.heat, x_, gold_);
  }

  FieldBlock field() const override {
    const auto n = static_cast<std::uint64_t>(p_.heat.points);
    return {"/fields/u", {std::uint64_t(p_.heat.grids), n}, {std::uint64_t(first_), 0},
            {std::uint64_t(part_.grids), n}, "[grid][point], point fastest",
            "as the initial temperatures"};
  }
  Attributes input() const override { return {}; }

 private:
  Heat part_;  // the grids this rank marches: all of them on one rank
};

// One long system (or a few) whose rows are cut among the ranks, solved by the partition method
// with the interface across ranks (long.hpp). A cut that leaves a rank (on the GPU, a piece)
// fewer than two rows names the key that sized n. The CPU's partition method keeps about as many
// doubles a row as the gold; with a check every rank holds the whole batch and its gold besides.
template <class T>
class LongRun final : public RunPart<T> {
  using Base = RunPart<T>;
  using Base::p_, Base::systems_, Base::unknowns_, Base::where_, Base::x_;

 public:
  LongRun(const Params& p, const Placement& where) : Base(p, where) {
    const std::int64_t piece_rows = where_.gpu ? kDevicePieceRows : 0;
    const bool ring = p_.kind == Kind::periodic;
    if (p_.problem == Problem::file) {
      rows_ = read_rows_part<T>(p_.input, ring, where_.rank, where_.ranks, piece_rows);
      systems_ = rows_.batch.dims.systems;
      fits_rows(rows_.n, rows_.batch.dims);
    } else {
      comm::Slab mine;
      this->sourced([&] {
        mine = rows_share(p_.random.n, where_.rank, where_.ranks, piece_rows, "random.n");
      });
      systems_ = p_.random.systems;
      fits_rows(p_.random.n, {mine.count(), systems_, Layout::contiguous});
      // A GPU run that needs no host copy draws a line's rows on the device, the same bits
      // (solve_long_gpu); rows_ then holds their extent alone.
      drawn_ = where_.gpu && !where_.check && !ring;
      rows_ = random_rows<T>(p_.random, ring, mine, !drawn_);
    }
    mine_ = comm::even_slab(rows_.n, where_.rank, where_.ranks);
    unknowns_ = static_cast<double>(systems_ * rows_.n);
  }

  Dims launch_dims() const override { return {0, systems_}; }
  const char* decomposition() const override { return "rows of every system"; }
  std::string what() const override {
    const std::string cut = where_.ranks > 1
                                ? ", rows cut among " + std::to_string(where_.ranks) + " ranks"
                                : "";
    return std::to_string(systems_) + (rows_.periodic ? " periodic" : "") +
           (systems_ == 1 ? " system of " : " systems of ") + std::to_string(rows_.n) + " rows" +
           this->source() + cut;
  }
  std::string method(const Launch&) const override {
    return "partition method, pieces of " + std::to_string(kDevicePieceRows) + " rows, " +
           std::to_string(p_.threads) + " threads";
  }
  std::string cpu_method() const override { return "CPU partition method"; }
  std::string reproducible_because() const override {
    return "the partition method in a fixed order on a cut fixed by the rank count (and on the "
           "GPU by its pieces of rows): the same ranks give the same bits, another count the "
           "same answer rounded otherwise";
  }

  // The interface across ranks is the exchange, first among the phases (on one rank, where
  // nothing is exchanged, compute), counted in the solve's seconds.
  PhaseTimer solve(comm::Context& context, const Launch&, const Marching<T>&) override {
    PhaseTimer t;
    if (where_.ranks > 1) t.add(phase::exchange, 0);
    try {
      if (where_.gpu) {
        LongResult<T> r =
            drawn_ ? solve_long_gpu<T>(context, rows_.n, systems_, p_.random.seed, mine_,
                                       p_.threads)
                   : solve_long_gpu<T>(context, rows_, p_.threads);
        x_ = std::move(r.x);
        t.add(r.timings);
      } else {
        const LongResult<double> r = solve_long<T>(context, rows_);
        x_ = rounded_to<T>(r.x);
        t.add(r.timings);
      }
    } catch (const NumericalError& e) {
      throw this->from_source(e);
    }
    if (where_.ranks == 1) {
      t.add(phase::compute, t.seconds(phase::exchange));
      t.drop(phase::exchange);
    }
    t.add(kSolves, t.seconds(phase::compute) + t.seconds(phase::exchange));
    return t;
  }

  // Every rank solves the whole batch's gold: one long system's is one sweep down and up.
  Agreement check(comm::Context& context, const ProgressCallback&) override {
    return long_check<T>(context, p_, rows_.n, systems_, x_, mine_);
  }

  FieldBlock field() const override {
    const auto n = static_cast<std::uint64_t>(rows_.n), systems = std::uint64_t(systems_);
    return {"/fields/x", {systems, n}, {0, std::uint64_t(mine_.begin)},
            {systems, std::uint64_t(mine_.count())}, kRowFastest, kXUnits};
  }
  Attributes input() const override {
    Attributes a = this->input_of(rows_.n);
    a.emplace_back("cut", std::string("rows"));
    if (rows_.periodic) a.emplace_back("kind", std::string("periodic"));
    return a;
  }

 private:
  void fits_rows(std::int64_t n, const Dims& mine) const {
    this->fits(footprint(mine, sizeof(T), !where_.gpu), extent(mine), where_.gpu);
    if (!where_.check) return;
    const Dims whole{n, mine.systems, Layout::contiguous};
    this->fits(footprint(whole, sizeof(T), true), extent(whole), false);
  }

  RowsPart<T> rows_;    // this rank's rows of every system
  comm::Slab mine_;     // ... which rows they are
  bool drawn_ = false;  // ... drawn on the device, never on the host
};

}  // namespace

template <class T>
std::unique_ptr<RunPart<T>> RunPart<T>::make(const Params& p, const Placement& where) {
  if (p.cut == Cut::rows) return std::make_unique<LongRun<T>>(p, where);
  if (p.problem == Problem::heat) return std::make_unique<HeatRun<T>>(p, where);
  if (p.kind != Kind::general) return std::make_unique<KindRun<T>>(p, where);
  return std::make_unique<GeneralRun<T>>(p, where);
}

std::string why_no_restart(const Params& p) {
  if (p.problem == Problem::heat) return "";
  return std::string(p.cut == Cut::rows ? "one long system" : "a batch") +
         " is one solve, with nothing to continue; only the heat march checkpoints";
}

template <class T>
void RunPart<T>::keep(const PhaseTimer& t) {
  compute_seconds_ = t.seconds(phase::compute);
  solve_seconds_ = t.seconds(kSolves);
  combined_ = diagnostics();
}

template <class T>
void RunPart<T>::combine(comm::Context& context) {
  combined_ = over_ranks(context, combined_);
  solve_seconds_ = context.all_reduce(solve_seconds_, comm::Op::max);
  compute_seconds_ = context.all_reduce(compute_seconds_, comm::Op::max);
}

template <class T>
Summary RunPart<T>::summary() const {
  const double rate = solve_seconds_ > 0 ? unknowns_ / solve_seconds_ : 0.0;
  Summary s = tridiag::summary(p_, combined_, compute_seconds_, solve_seconds_, rate);
  s.timings = {{"solve_s", solve_seconds_}, {"unknowns_per_s", rate}};
  return s;
}

template <class T>
MarchState RunPart<T>::march_state(const Launch& launch) const {
  MarchState m;
  m.held = held_by(where_.gpu, launch.variant, static_cast<int>(sizeof(T)));
  const auto points = static_cast<std::uint64_t>(p_.heat.points);
  const FieldBlock f = field();
  m.values = static_cast<std::uint64_t>(launch_dims().size());
  if (held_contiguous(where_.gpu, launch.variant))
    m.share = MarchState::Share{f.dims[0] * points, f.offset[0] * points, f.count[0] * points};
  m.last = p_.heat.steps;
  return m;
}

template <class T>
std::string RunPart<T>::source() const {
  return p_.problem == Problem::file ? " from " + p_.input.file
                                     : " drawn from seed " + std::to_string(p_.random.seed);
}

template <class T>
NumericalError RunPart<T>::from_source(const NumericalError& e, const std::string& note) const {
  const std::string where = p_.problem == Problem::file ? p_.input.file : std::string("random.seed");
  const std::string what = e.what();
  const bool noted = note.empty() || what.find("do not pivot") != std::string::npos;
  return NumericalError(e.system(), where + ": " + what + (noted ? "" : note));
}

template <class T>
Attributes RunPart<T>::input_of(std::int64_t n) const {
  Attributes a;
  if (p_.problem == Problem::file) a.emplace_back("file", p_.input.file);
  else a.emplace_back("seed", static_cast<std::int64_t>(p_.random.seed));
  a.emplace_back("systems", systems_);
  a.emplace_back("n", n);
  return a;
}

Summary summary(const Params& p, const Diagnostics& d, double seconds, double solve_seconds,
                double unknowns_per_s) {
  Summary s;
  if (p.problem != Problem::heat) {
    s.first = formatted("max|x| %.6g; %.3g s, %.3f Gunknowns/s", d.high, seconds,
                        1e-9 * unknowns_per_s);
    return s;
  }
  s.first = formatted("u from %.6g to %.6g; %.3f s (solves %.3f s), %.3f Gunknowns/s", d.low,
                      d.high, seconds, solve_seconds, 1e-9 * unknowns_per_s);
  s.diagnostics = {{"u_min", d.low}, {"u_max", d.high}};
  if (!d.has_decay) return s;
  s.diagnostics.insert(s.diagnostics.end(), {{"sine_decay", d.decay.measured},
                                             {"exact_sine_decay", d.decay.exact},
                                             {"sine_decay_relative_error", d.decay.relative_error},
                                             {"decay_per_step", d.decay.per_step}});
  s.more.push_back(formatted(
      "sine mode %d decayed by %.6g over %lld steps; exact %.6g (relative error %.3g)", p.heat.mode,
      d.decay.measured, static_cast<long long>(p.heat.steps), d.decay.exact,
      d.decay.relative_error));
  return s;
}

template class RunPart<float>;
template class RunPart<double>;

}  // namespace parasol::tridiag
