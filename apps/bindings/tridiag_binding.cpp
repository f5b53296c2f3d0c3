// tridiag's binding: the heat equation marched in time or one batch of systems read from HDF5,
// and the sweep of every variant x threads x chunk on one batch against the copy bandwidth.
#include <climits>
#include <cmath>
#include <optional>
#include <set>
#include <type_traits>

#include "apps/bindings/tridiag_inputs.hpp"
#include "apps/fits.hpp"
#include "apps/progress.hpp"
#include "apps/solver_run.hpp"
#include "io/read_keys.hpp"
#include "kernels/device.hpp"
#include "kernels/validate.hpp"
#include "solvers/tridiag/check.hpp"
#include "solvers/tridiag/keys.hpp"
#include "solvers/tridiag/long.hpp"
#include "solvers/tridiag/run.hpp"
#include "solvers/tridiag/sweep.hpp"
#include "kernels/finite.hpp"

namespace parasol::app {
namespace {

using tridiag::Batch;
using tridiag::Dims;
using tridiag::Launch;
using tridiag::Params;
using tridiag::Problem;
using tridiag::Variant;

using tridiag::SweepParams;

std::string method_of(const Launch& l) {
  std::string text = std::string(name(l.variant)) + ", " + std::to_string(l.threads) + " threads";
  if (l.chunk != 0) text += ", chunk " + std::to_string(l.chunk);
  return text;
}

std::string extent(const Dims& dims) {
  return std::to_string(dims.systems) + " systems of " + std::to_string(dims.n) + " rows";
}

// The problem class of a choice: rows per system and systems, exactly ("n=1024,systems=65536"),
// and for another kind than general the kind ("...,kind=multi-rhs,rhs=8").
io::AutotuneKey tridiag_key(const Params& p, std::int64_t n, std::int64_t systems) {
  std::string size = "n=" + std::to_string(n) + ",systems=" + std::to_string(systems);
  if (p.kind != tridiag::Kind::general) size += ",kind=" + std::string(name(p.kind));
  if (p.kind == tridiag::Kind::multi_rhs) size += ",rhs=" + std::to_string(p.rhs);
  return autotune_key("tridiag", size, std::string(name(p.precision)));
}

// The key that sized the problem, for a complaint about memory.
const char* size_key(const Params& p) {
  return p.problem == Problem::heat   ? "heat.grids"
         : p.problem == Problem::file ? "input.file"
                                      : "random.systems";
}

// Reports a march's progress on `line`.
tridiag::ProgressCallback shown_on(ProgressLine& line) {
  return [&line](const tridiag::Progress& pr) { line.update(pr.steps, pr.total_steps, pr.seconds); };
}

// a, b, c, d and x on the device (the solver's own workspace is small beside them); on the host
// six arrays of T and, with the gold, about seven of doubles. A complaint names the key that
// sized the problem.
template <class T>
void require_memory(const io::ParamTable& t, const Params& p, const Dims& dims, bool gpu,
                    bool gold) {
  const char* key = size_key(p);
  const double size = static_cast<double>(dims.size());
  if (gpu)
    require_device_memory(t.source_of(key), key, extent(dims) + " need", 5.0 * sizeof(T) * size);
  require_host_memory(t.source_of(key), key, extent(dims) + " need",
                      (6.0 * sizeof(T) + (gold ? 7.0 * 8 : 0.0)) * size);
}

// A kind's batch: its coefficients, d and x (and the workspace, at most four values a row) on the
// device; on the host those, a relaid copy of each, and with the gold seven doubles a value of x.
template <class T>
void require_kind_memory(const io::ParamTable& t, const Params& p, const tridiag::KindDims& dims,
                         bool gpu, bool gold) {
  const char* key = size_key(p);
  const double systems = static_cast<double>(dims.systems);
  const double coefficients = dims.bands() * static_cast<double>(dims.band_width()) * systems;
  const double rhs = static_cast<double>(dims.rhs_width()) * systems;
  const std::string what = std::to_string(dims.systems) + " " + std::string(name(dims.kind)) +
                           " systems of " + std::to_string(dims.n) + " rows need";
  if (gpu)
    require_device_memory(t.source_of(key), key, what,
                          sizeof(T) * (coefficients + 2 * rhs + 4 * static_cast<double>(dims.n) * systems));
  require_host_memory(t.source_of(key), key, what,
                      2.0 * sizeof(T) * (coefficients + 2 * rhs) + (gold ? 7.0 * 8 * rhs : 0.0));
}

template <class T>
class TridiagRun final : public SolverRun<Params> {
 public:
  using SolverRun::SolverRun;

  // Across ranks each takes a share of the systems (grids), whole: it reads only its own rows of
  // an input file, or marches its own grids.
  void prepare(const RunSetup& setup) override {
    take(setup);
    if (rows_cut()) {
      prepare_rows(setup);
      return;
    }
    if (heat()) {
      io::with_sources(t_, [&] { part_ = tridiag::heat_share(p_.heat, rank(), ranks()); });
      part_.ring = p_.kind == tridiag::Kind::periodic;
      first_ = part_.first_grid;
      systems_ = p_.heat.grids;
    } else if (kinds()) {
      prepare_kind();
      return;
    } else if (p_.problem == Problem::random) {
      const comm::Slab mine = share_of_random();
      // A GPU run that needs no host copy (no gold: no --check) draws its systems on the
      // device, the same bits (solve_batch); batch_ then holds their extent alone.
      drawn_ = gpu_ && !check_;
      const Dims dims{p_.random.n, mine.count(), tridiag::Layout::contiguous};
      if (drawn_)
        batch_.dims = dims;
      else
        batch_ = tridiag::random_batch<T>(dims, p_.random.seed, mine.begin);
    } else {
      batch_ = take_part(read_batch_part<T>(p_.input, rank(), ranks()));
    }
    const Dims dims = heat() ? Dims{part_.points, part_.grids} : batch_.dims;
    if (looks_up_choice()) choose_automatic(dims.n);
    // The launch the kernels will run (the chunk picked when 0), or why it cannot.
    io::with_sources(t_, [&] { launch_ = resolve(dims.n, dims.systems); });
    require_memory<T>(t_, p_, dims, gpu_, !gpu_ || check_);
    if (heat()) prepare_checkpoints(setup, dims);
    else if (!setup.options.restart.empty())
      throw InputError("command line", "--restart",
                       "a batch read from a file is one solve, with nothing to continue; only "
                       "the heat march checkpoints");
  }

  std::string describe() const override {
    if (rows_cut()) {
      const std::string source = p_.problem == Problem::file
                                     ? " from " + p_.input.file
                                     : " drawn from seed " + std::to_string(p_.random.seed);
      const std::string cut =
          ranks() > 1 ? ", rows cut among " + std::to_string(ranks()) + " ranks" : "";
      const std::string method =
          "partition method" + (gpu_ ? ", pieces of " + std::to_string(tridiag::kDevicePieceRows) +
                                           " rows, " + std::to_string(p_.threads) + " threads"
                                     : std::string());
      const std::string kind = rows_.periodic ? " periodic" : "";
      return std::to_string(systems_) + kind + (systems_ == 1 ? " system of " : " systems of ") +
             std::to_string(rows_.n) + " rows" + source + cut + ", " +
             std::string(name(p_.precision)) + "; " +
             (gpu_ ? method + " on " + current_device().name : "CPU " + method);
    }
    const tridiag::Heat& h = p_.heat;
    const std::int64_t n = kinds() ? kinds_.dims.n : batch_.dims.n;
    const std::string source = p_.problem == Problem::file
                                   ? " from " + p_.input.file
                                   : " drawn from seed " + std::to_string(p_.random.seed);
    const std::string kind = p_.kind == tridiag::Kind::general ? "" : std::string(name(p_.kind)) + " ";
    const std::string rhs =
        p_.kind == tridiag::Kind::multi_rhs ? " with " + std::to_string(p_.rhs) + " right-hand sides" : "";
    const std::string what =
        heat() ? std::string(part_.ring ? "heat ring on " : "heat on ") + std::to_string(h.grids) +
                     " grids x " + std::to_string(h.points) + " points, " +
                     std::to_string(h.steps) + " steps at lambda " + shown(h.lambda)
               : std::to_string(systems_) + " " + kind + "systems of " + std::to_string(n) +
                     " rows" + rhs + source;
    return what + ", " + std::string(name(p_.precision)) + "; " + ran(method_of(launch_));
  }

  void write_method(io::ResultFile& out) const override {
    if (rows_cut()) {
      // The partition method's pieces are its rows per thread (about so many: even_planes).
      out.set_attribute("/method", "variant", std::string("partition"));
      out.set_attribute("/method", "threads", std::int64_t{p_.threads});
      out.set_attribute("/method", "chunk", tridiag::kDevicePieceRows);
      out.set_attribute("/method", "layout", std::string(name(tridiag::Layout::contiguous)));
      write_chosen_by(out);
      return;
    }
    out.set_attribute("/method", "variant", std::string(name(launch_.variant)));
    out.set_attribute("/method", "threads", std::int64_t{launch_.threads});
    out.set_attribute("/method", "chunk", std::int64_t{launch_.chunk});
    out.set_attribute("/method", "layout",
                      std::string(name(tridiag::kind_layout(p_.kind, launch_.variant))));
    write_chosen_by(out);
  }

  void solve(PhaseTimer& timings, io::ResultFile*) override {
    tridiag::Timings t;
    if (heat()) {
      {
        ProgressLine line("step", "unknowns", static_cast<double>(p_.heat.points * p_.heat.grids));
        if (gpu_) {
          const tridiag::HeatCheckpoints<T> points = safe_points<T>(restart_x_, x_from_);
          tridiag::HeatResult<T> r =
              tridiag::march_heat_gpu<T>(part_, launch_, shown_on(line), &points);
          x_ = std::move(r.u);
          t = r.timings;
          solve_seconds_ = r.solve_seconds;
        } else {
          const tridiag::HeatCheckpoints<double> points =
              safe_points<double>(restart_gold_, gold_from_);
          const auto start = std::chrono::steady_clock::now();
          gold_ = tridiag::march_heat_gold(part_, shown_on(line), &points);
          t.compute = solve_seconds_ = seconds_since(start);
          x_ = rounded<T>(gold_);
        }
      }
      checkpoints_->finish("step", p_.heat.steps);
      // Checkpoints are written inside the march: their seconds are a phase of their own.
      t.compute = std::max(0.0, t.compute - add_checkpoint_phase(timings, *checkpoints_));
    } else if (rows_cut()) {
      // The interface's trip through rank 0 is part of the partition method's solve.
      double exchange = 0;
      t = solve_rows(timings, exchange);
      solve_seconds_ = t.compute + exchange;
    } else if (kinds()) {
      t = solve_kind();
      solve_seconds_ = t.compute;
    } else {
      t = solve_batch();
      solve_seconds_ = t.compute;
    }
    add_device_phases(timings, t);
    compute_seconds_ = t.compute;
    require_finite("tridiag: the solution", x_);
    // What the summary says of the whole result, and the slowest rank's seconds.
    diagnostics_ = heat() ? tridiag::heat_diagnostics(part_, x_) : tridiag::batch_diagnostics(x_);
    combine_over_ranks(timings, [&](comm::Context& context) {
      diagnostics_ = tridiag::over_ranks(context, diagnostics_);
      solve_seconds_ = context.all_reduce(solve_seconds_, comm::Op::max);
      compute_seconds_ = context.all_reduce(compute_seconds_, comm::Op::max);
    });
  }

  void report(io::ResultFile& out) override {
    const tridiag::Diagnostics& d = diagnostics_;
    const double rate = solve_seconds_ > 0 ? work() / solve_seconds_ : 0.0;
    out.set_attribute("/timings", "solve_s", solve_seconds_);
    out.set_attribute("/timings", "unknowns_per_s", rate);
    write_ranks(out, heat() ? "whole grids" : rows_cut() ? "rows of every system" : "whole systems");
    if (!heat()) {
      say(formatted("max|x| %.6g; %.3g s, %.3f Gunknowns/s", d.high, compute_seconds_,
                    1e-9 * rate));
      return;
    }
    out.set_attribute("/diagnostics", "u_min", d.low);
    out.set_attribute("/diagnostics", "u_max", d.high);
    say(formatted("u from %.6g to %.6g; %.3f s (solves %.3f s), %.3f Gunknowns/s", d.low, d.high,
                  compute_seconds_, solve_seconds_, 1e-9 * rate));
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

  // Unknowns solved: every system's rows, at every step of a march.
  double work() const override {
    if (rows_cut()) return static_cast<double>(systems_ * rows_.n);
    if (kinds()) {
      tridiag::KindDims whole = kinds_.dims;
      whole.systems = systems_;
      return static_cast<double>(whole.systems * whole.rhs_width());
    }
    return heat() ? static_cast<double>(systems_ * p_.heat.points) *
                        static_cast<double>(p_.heat.steps)
                  : static_cast<double>(systems_ * batch_.dims.n);
  }

  // The gold in double (a CPU run's own result); across ranks each judges its share against the
  // gold of the same systems.
  Reproducibility reproducibility() const override {
    if (rows_cut())
      return {true, "the partition method in a fixed order on a cut fixed by the rank count "
                    "(and on the GPU by its pieces of rows): the same ranks give the same bits, "
                    "another count the same answer rounded otherwise"};
    return {true, "each system is solved alone in a fixed order of operations; ranks split the "
                  "systems, not a system"};
  }

  Agreement check() override {
    if (rows_cut()) {
      // Every rank solves the whole batch's gold: one long system's is one sweep down and up.
      if (rows_.periodic) {
        const tridiag::KindBatch<T> ring =
            p_.problem == Problem::file
                ? read_kind_batch_part<T>(p_.input, tridiag::Kind::periodic, 1, 0, 1).batch
                : tridiag::random_kind_batch<T>({tridiag::Kind::periodic, rows_.n, systems_, 1},
                                                p_.random.seed);
        return tridiag::long_agreement<T>(*context_, ring, x_, mine_);
      }
      const Batch<T> whole =
          p_.problem == Problem::file
              ? read_batch<T>(p_.input)
              : tridiag::random_batch<T>({rows_.n, systems_, tridiag::Layout::contiguous},
                                         p_.random.seed);
      return tridiag::long_agreement<T>(*context_, whole, x_, mine_);
    }
    if (kinds()) {
      if (gold_.empty()) gold_ = tridiag::solve_kind_gold(kinds_);
      return tridiag::kind_batch_agreement<T>(*context_, kinds_, systems_, x_, gold_);
    }
    if (gold_.empty() && !heat()) gold_ = tridiag::solve_gold(batch_);
    if (gold_.empty()) {
      ProgressLine line("gold step", "unknowns", static_cast<double>(part_.points * part_.grids));
      gold_ = tridiag::march_heat_gold(part_, shown_on(line));
    }
    if (heat()) return tridiag::march_agreement<T>(*context_, p_.heat, x_, gold_);
    return tridiag::batch_agreement<T>(*context_, batch_, systems_, x_, gold_);
  }

  void write(Output& out) override {
    if (rows_cut()) {
      const auto n = static_cast<std::uint64_t>(rows_.n), systems = static_cast<std::uint64_t>(systems_);
      if (!out.write_part("/fields/x", {systems, n}, {0, static_cast<std::uint64_t>(mine_.begin)},
                          {systems, static_cast<std::uint64_t>(mine_.count())}, x_.data()))
        return;
      out.file->set_attribute("/fields/x", "layout", std::string("[system][row], row fastest"));
      out.file->set_attribute("/fields/x", "units",
                              std::string("as d divided by the coefficients' unit"));
      write_input(out, systems_, rows_.n);
      out.file->set_attribute("/input", "cut", std::string("rows"));
      if (rows_.periodic) out.file->set_attribute("/input", "kind", std::string("periodic"));
      return;
    }
    if (kinds()) {
      write_kind(out);
      return;
    }
    const Dims dims = heat() ? Dims{p_.heat.points, p_.heat.grids} : Dims{batch_.dims.n, systems_};
    const char* field = heat() ? "/fields/u" : "/fields/x";
    const std::vector<std::uint64_t> extent{std::uint64_t(dims.systems), std::uint64_t(dims.n)};
    if (!out.write_share(field, extent, static_cast<std::uint64_t>(first_),
                         x_.size() / static_cast<std::size_t>(dims.n), x_.data()))
      return;
    out.file->set_attribute(
        field, "layout",
        std::string(heat() ? "[grid][point], point fastest" : "[system][row], row fastest"));
    out.file->set_attribute(field, "units",
                            std::string(heat() ? "as the initial temperatures"
                                               : "as d divided by the coefficients' unit"));
    if (heat()) return;
    write_input(out, dims.systems, dims.n);
  }

 private:
  bool heat() const { return p_.problem == Problem::heat; }
  // One long system (or a few) whose rows are cut among the ranks (system.cut = "rows").
  bool rows_cut() const { return p_.cut == tridiag::Cut::rows; }
  // A batch of another kind than general (heat rings are marched as heat).
  bool kinds() const { return !heat() && p_.kind != tridiag::Kind::general; }

  // This rank's systems of a file's batch, with where they lie among the file's.
  template <class Part>
  auto take_part(Part part) {
    first_ = part.first;
    systems_ = part.systems;
    return std::move(part.batch);
  }

  // A CPU run of a batch: the gold in double (`gold()`), timed as compute, and x rounded from it.
  template <class Gold>
  tridiag::Timings solve_on_cpu(Gold&& gold) {
    const auto start = std::chrono::steady_clock::now();
    gold_ = gold();
    x_ = rounded<T>(gold_);
    return {0, seconds_since(start), 0};
  }

  // This rank's share of a random batch's systems.
  comm::Slab share_of_random() {
    comm::Slab mine;
    io::with_sources(t_, [&] {
      mine = tridiag::system_share(p_.random.systems, rank(), ranks(), "random.systems", "systems");
    });
    systems_ = p_.random.systems;
    first_ = mine.begin;
    return mine;
  }

  // This rank's rows of every system, drawn or read; a cut that leaves a rank (on the GPU, a
  // piece) fewer than two rows names the key that sized n.
  void prepare_rows(const RunSetup& setup) {
    const std::int64_t piece_rows = gpu_ ? tridiag::kDevicePieceRows : 0;
    const bool ring = p_.kind == tridiag::Kind::periodic;
    if (p_.problem == Problem::file) {
      rows_ = read_rows_part<T>(p_.input, rank(), ranks(), piece_rows);
      rows_.periodic = ring;
      systems_ = rows_.batch.dims.systems;
      if (ring && rows_.n < 3)
        throw InputError(p_.input.file, "input.file",
                         "periodic systems need n >= 3 (a ring of three rows at least), got " +
                             std::to_string(rows_.n));
      require_rows_memory(rows_.n, rows_.batch.dims);
    } else {
      io::with_sources(t_, [&] { (void)tridiag::long_cut(p_.random.n, ranks(), piece_rows, "random.n"); });
      systems_ = p_.random.systems;
      const comm::Slab mine = comm::even_slab(p_.random.n, rank(), ranks());
      require_rows_memory(p_.random.n, {mine.count(), systems_, tridiag::Layout::contiguous});
      // A GPU run that needs no host copy (no --check) draws a line's rows on the device, the
      // same bits (solve_long_gpu); rows_ then holds their extent alone.
      rows_drawn_ = gpu_ && !check_ && !ring;
      if (rows_drawn_) {
        rows_.n = p_.random.n;
        rows_.first_row = mine.begin;
        rows_.batch.dims = {mine.count(), systems_, tridiag::Layout::contiguous};
      } else {
        rows_ = ring ? tridiag::random_ring_rows_part<T>(p_.random.n, systems_, p_.random.seed, mine)
                     : tridiag::random_rows_part<T>(p_.random.n, systems_, p_.random.seed, mine);
      }
    }
    mine_ = comm::even_slab(rows_.n, rank(), ranks());
    if (!setup.options.restart.empty())
      throw InputError("command line", "--restart",
                       "one long system is one solve, with nothing to continue; only the heat "
                       "march checkpoints");
  }

  // This rank's rows (`mine`) of systems of n rows: the CPU's partition method keeps about as
  // many doubles a row as the gold; with --check every rank holds the whole batch and its gold
  // besides.
  void require_rows_memory(std::int64_t n, const Dims& mine) const {
    require_memory<T>(t_, p_, mine, gpu_, !gpu_);
    if (check_) require_memory<T>(t_, p_, {n, mine.systems, tridiag::Layout::contiguous}, false, true);
  }

  // This rank's rows by the partition method, the interface across ranks timed as "exchange"
  // (its seconds in `exchange`; on one rank, where nothing is exchanged, as compute); a failure
  // names where the systems came from.
  tridiag::Timings solve_rows(PhaseTimer& timings, double& exchange) {
    const auto timed = [&](const tridiag::LongTimings& t) {
      tridiag::Timings device = t.device;
      if (ranks() > 1) {
        timings.add("exchange", t.exchange);
        exchange = t.exchange;
      } else {
        device.compute += t.exchange;
      }
      return device;
    };
    try {
      if (gpu_) {
        tridiag::LongResult<T> r =
            rows_drawn_ ? tridiag::solve_long_gpu<T>(*context_, rows_.n, systems_, p_.random.seed,
                                                     mine_, p_.threads)
                        : tridiag::solve_long_gpu<T>(*context_, rows_, p_.threads);
        x_ = std::move(r.x);
        return timed(r.timings);
      }
      const tridiag::LongResult<double> r = tridiag::solve_long<T>(*context_, rows_);
      x_ = rounded<T>(r.x);
      return timed(r.timings);
    } catch (const tridiag::NumericalError& e) {
      const std::string where = p_.problem == Problem::file ? p_.input.file : "random.seed";
      throw tridiag::NumericalError(e.system(), where + ": " + e.what());
    }
  }

  // A kind's batch, drawn or read (this rank's systems of it), its launch and its memory.
  void prepare_kind() {
    if (p_.problem == Problem::random) {
      const comm::Slab mine = share_of_random();
      kinds_ = tridiag::random_kind_batch<T>({p_.kind, p_.random.n, mine.count(), p_.rhs},
                                             p_.random.seed, mine.begin);
    } else {
      kinds_ = take_part(read_kind_batch_part<T>(p_.input, p_.kind, p_.rhs, rank(), ranks()));
    }
    if (looks_up_choice()) choose_automatic(kinds_.dims.n);
    io::with_sources(t_, [&] { launch_ = resolve(kinds_.dims.n, kinds_.dims.systems); });
    require_kind_memory<T>(t_, p_, kinds_.dims, gpu_, !gpu_ || check_);
  }

  // The kind's batch on the GPU or by the gold; a failure names where the systems came from.
  tridiag::Timings solve_kind() {
    try {
      if (!gpu_) return solve_on_cpu([&] { return tridiag::solve_kind_gold(kinds_); });
      tridiag::Result<T> r = tridiag::solve_kind_gpu<T>(launch_, kinds_);
      x_ = std::move(r.x);
      return r.timings;
    } catch (const tridiag::NumericalError& e) {
      const std::string where = p_.problem == Problem::file ? p_.input.file : "random.seed";
      throw tridiag::NumericalError(e.system(), where + ": " + e.what());
    }
  }

  // x of a kind, shaped as its d: [systems][n], [systems][rhs][n] or [systems][n][2].
  void write_kind(Output& out) {
    const tridiag::KindDims& k = kinds_.dims;
    std::vector<std::uint64_t> extent{std::uint64_t(systems_), std::uint64_t(k.n)};
    std::string layout = "[system][row], row fastest";
    if (k.kind == tridiag::Kind::multi_rhs) {
      extent = {std::uint64_t(systems_), std::uint64_t(k.rhs), std::uint64_t(k.n)};
      layout = "[system][rhs][row], row fastest";
    } else if (k.kind == tridiag::Kind::block2) {
      extent.push_back(2);
      layout = "[system][block row][2], the pair fastest";
    }
    if (!out.write_share("/fields/x", extent, static_cast<std::uint64_t>(first_),
                         static_cast<std::uint64_t>(k.systems), x_.data()))
      return;
    out.file->set_attribute("/fields/x", "layout", layout);
    out.file->set_attribute("/fields/x", "units",
                            std::string("as d divided by the coefficients' unit"));
    write_input(out, systems_, k.n);
    out.file->set_attribute("/input", "kind", std::string(name(k.kind)));
    if (k.kind == tridiag::Kind::multi_rhs)
      out.file->set_attribute("/input", "rhs", std::int64_t{k.rhs});
  }

  // Where the systems came from: the file, or the seed they were drawn from.
  void write_input(Output& out, std::int64_t systems, std::int64_t n) {
    if (p_.problem == Problem::file)
      out.file->set_attribute("/input", "file", p_.input.file);
    else
      out.file->set_attribute("/input", "seed", static_cast<std::int64_t>(p_.random.seed));
    out.file->set_attribute("/input", "systems", systems);
    out.file->set_attribute("/input", "n", n);
  }

  // method.variant = "auto": the variant, threads and chunk stored for this problem, or the
  // defaults (and a note on stderr) when none is.
  void choose_automatic(std::int64_t n) {
    Params d;
    d.variant = tridiag::default_variant(p_.kind);
    p_.variant = d.variant;
    p_.threads = d.threads;
    p_.chunk = d.chunk;
    if (!look_up(tridiag_key(p_, n, systems_), method_of({d.variant, d.threads, d.chunk}))) return;
    p_.variant = auto_.variant(tridiag::parse_variant);
    p_.threads = static_cast<int>(auto_.integer("threads", INT_MIN, INT_MAX, "an integer"));
    p_.chunk = static_cast<int>(auto_.integer("chunk", INT_MIN, INT_MAX, "an integer"));
    auto_.validate("chunk", [&] { (void)resolve(n, systems_); });
  }

  // The launch the parameters make for `systems` systems of n rows (the chunk picked when 0), or
  // the InputError naming the key at fault.
  Launch resolve(std::int64_t n, std::int64_t systems) const {
    const std::vector<Variant> solvers = tridiag::variants_for(p_.kind);
    if (std::find(solvers.begin(), solvers.end(), p_.variant) == solvers.end())
      throw InputError("", "method.variant",
                       std::string(name(p_.kind)) + " systems are not solved by " +
                           std::string(name(p_.variant)));
    return tridiag::resolve_launch({p_.variant, p_.threads, p_.chunk},
                                   {n, systems, tridiag::kind_layout(p_.kind, p_.variant)},
                                   static_cast<int>(sizeof(T)));
  }

  // The file's batch on the GPU (in the layout the variant needs) or by the gold; a failure
  // names the file, and that no algorithm here pivots.
  tridiag::Timings solve_batch() {
    try {
      if (!gpu_) return solve_on_cpu([&] { return tridiag::solve_gold(batch_); });
      const tridiag::Layout layout = tridiag::required_layout(launch_.variant);
      const tridiag::Result<T> r =
          drawn_ ? tridiag::solve_gpu<T>(launch_, {batch_.dims.n, batch_.dims.systems, layout},
                                         p_.random.seed, first_)
                 : tridiag::solve_gpu<T>(launch_, relayout(batch_, layout));
      x_ = relayout(r.x, {batch_.dims.n, batch_.dims.systems, layout}, tridiag::Layout::contiguous);
      return r.timings;
    } catch (const tridiag::NumericalError& e) {
      const std::string what = e.what();
      throw tridiag::NumericalError(e.system(), p_.input.file + ": " + what +
                                                    (what.find("do not pivot") == std::string::npos
                                                         ? " (these solvers do not pivot)"
                                                         : ""));
    }
  }

  // The heat march's checkpoints: this rank's grids after some steps. The GPU keeps them in T in
  // its variant's layout, the gold in contiguous doubles: a checkpoint says which it holds
  // (`held`), and a restart on the other backend is refused rather than rounded.
  void prepare_checkpoints(const RunSetup& setup, const Dims& dims) {
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
    if (gpu_ && tridiag::required_layout(launch_.variant) != tridiag::Layout::contiguous)
      return std::nullopt;
    const auto points = static_cast<std::uint64_t>(p_.heat.points);
    const auto first = static_cast<std::uint64_t>(part_.first_grid) * points;
    return io::Share{static_cast<std::uint64_t>(p_.heat.grids) * points, first, first,
                     first + static_cast<std::uint64_t>(part_.grids) * points};
  }

  // "the gold's doubles", "float in the interleaved layout".
  std::string held_by() const {
    if (!gpu_) return "the gold's doubles";
    return std::string(std::is_same_v<T, float> ? "float" : "double") + " in the " +
           std::string(name(tridiag::required_layout(launch_.variant))) + " layout";
  }

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

  std::optional<Checkpointing> checkpoints_;
  std::int64_t restart_steps_ = 0;
  std::vector<T> restart_x_;             // a GPU restart's temperatures
  std::vector<double> restart_gold_;     // a CPU restart's
  tridiag::HeatState<T> x_from_;          // the state each points at
  tridiag::HeatState<double> gold_from_;
  tridiag::Heat part_;        // the grids this rank marches: all of them on one rank
  std::int64_t first_ = 0;            // this rank's first system (grid)
  bool drawn_ = false;                // a random batch drawn on the device, never on the host
  std::int64_t systems_ = 0;          // in the whole problem
  tridiag::KindBatch<T> kinds_;       // another kind's (this rank's systems), contiguous
  tridiag::RowsPart<T> rows_;         // system.cut = "rows": this rank's rows of every system
  comm::Slab mine_;                   // ... which rows they are
  bool rows_drawn_ = false;           // ... drawn on the device, never on the host
  tridiag::Diagnostics diagnostics_;  // the whole run's, across ranks
  Launch launch_;
  Batch<T> batch_;  // the file's (this rank's rows of it), contiguous
  std::vector<T> x_;
  std::vector<double> gold_;
  double compute_seconds_ = 0, solve_seconds_ = 0;
};

// What the sweeps of a general batch and of another kind's share: the axes (variant x threads x
// chunk), the rate in unknowns, the roofline against the copy, the check of a solve the device
// flags as failed, and the autotune choice. A configuration that cannot solve the batch is
// skipped with its reason; the others are measured by the sweep-row protocol
// (kernels/sweep_row.hpp), each launch checked first on an output poisoned with NaN.
template <class T>
class BatchStudy : public SolverStudy<Params, SweepParams> {
 public:
  using SolverStudy::SolverStudy;

  SweepColumns columns() const override {
    return {{{"variant", "variant", 11}, {"threads", "threads", 7}, {"chunk", "chunk", 5}},
            {"gunknowns_per_s", "Gunknowns/s", 11, 2},
            copy_roofline(8),
            {tridiag::kMeasure, "max rel diff", 12, 2, 'g'},
            {}};
  }

  std::vector<std::vector<Cell>> configurations() override {
    return cells_of(configurations_, [](const tridiag::Configuration& c) -> std::vector<Cell> {
      const Launch& l = c.launch;
      return {std::string(name(l.variant)), std::int64_t{l.threads}, std::int64_t{l.chunk}};
    });
  }

  Measurement measure(std::size_t i) override {
    const tridiag::Configuration& c = configurations_[i];
    if (!c.skipped.empty()) {
      Measurement m;
      m.skipped = c.skipped;
      return m;
    }
    if (!c.note.empty()) say(c.note);
    return measure_launch(c.launch);
  }

  bool can_autotune() const override { return true; }
  std::optional<io::AutotuneChoice> autotune_choice(std::size_t i) const override {
    const Launch& l = configurations_[i].launch;
    return choice_of(tridiag_key(p_, n_, systems_), std::string(name(l.variant)),
                     {{"threads", std::to_string(l.threads)}, {"chunk", std::to_string(l.chunk)}});
  }

 protected:
  virtual Measurement measure_launch(const Launch& launch) = 0;

  // The attributes of /sweep both write first.
  void write_batch_attributes(io::ResultFile& out) const {
    write_copy_bandwidth(out);
    out.set_attribute("/sweep", "bytes_per_solve", bytes_);
    out.set_attribute("/sweep", "n", n_);
    out.set_attribute("/sweep", "systems", systems_);
  }

  // `agree` once `check_device` finds the solves so far clean; a failure the gold did not meet
  // (a zero pivot) fails the row.
  template <class CheckDevice, class Agree>
  static Agreement checked(const Launch& launch, CheckDevice&& check_device, Agree&& agree) {
    try {
      check_device();
    } catch (const tridiag::NumericalError& e) {
      const std::string what = method_of(launch) + ": " + e.what();
      say(what + ", where the gold solved it");
      return tridiag::failed_solve(what);
    }
    return agree();
  }

  std::vector<double> gold_;
  double condition_ = 0;
  std::int64_t n_ = 0, systems_ = 0;  // the batch's
  std::vector<tridiag::Configuration> configurations_;
};

template <class T>
class TridiagStudy final : public BatchStudy<T> {
  using Base = BatchStudy<T>;
  using Base::checked, Base::condition_, Base::configurations_, Base::gold_, Base::p_, Base::s_,
      Base::stream_, Base::t_;

 public:
  using Base::Base;

  void prepare() override {
    batch_ = p_.problem == Problem::heat   ? tridiag::heat_step<T>(p_.heat)
             : p_.problem == Problem::file ? read_batch<T>(p_.input)
                                           : tridiag::random_batch<T>(
                                                 {p_.random.n, p_.random.systems,
                                                  tridiag::Layout::contiguous},
                                                 p_.random.seed);
    Base::n_ = batch_.dims.n;
    Base::systems_ = batch_.dims.systems;
    require_memory<T>(t_, p_, batch_.dims, true, true);
    gold_ = tridiag::solve_gold(batch_);  // a singular batch stops here
    // A heat step's bound as `parasol run` takes it (every row alike but the ends: three rows
    // give it), not a pass over the whole batch.
    condition_ = p_.problem == Problem::heat ? tridiag::condition_bound(p_.heat)
                                             : tridiag::condition_bound(batch_);
    configurations_ = tridiag::configurations_for(s_.variants, s_.threads, s_.chunks, batch_.dims,
                                                  static_cast<int>(sizeof(T)));
    stream_.emplace();
    residents_.emplace(batch_, gold_, condition_, *stream_);
    this->measure_copy_roofline(tridiag::bytes_per_solve(batch_.dims, static_cast<int>(sizeof(T))));
  }

  std::string describe() const override {
    return extent(batch_.dims) + ", " + std::string(name(p_.precision)) + " on " +
           current_device().name + "; " + this->copy_described() + ", " +
           describe_repeats(s_.repeats, "solves");
  }

  double units_per_run() const override { return static_cast<double>(batch_.dims.size()); }

  void write_attributes(io::ResultFile& out) const override {
    this->write_batch_attributes(out);
    out.set_attribute("/sweep", "condition_bound", condition_);
    out.set_attribute("/sweep", "check_tolerance",
                      tridiag::tolerance<T>(condition_, batch_.dims.n));
  }

  InputError nothing_to_time() const override {
    return InputError(t_.source_of("sweep.variants"), "sweep.variants",
                      "no listed variant, threads and chunk can solve " + extent(batch_.dims));
  }

 private:
  Measurement measure_launch(const Launch& launch) override {
    auto& on_device = residents_->in(tridiag::required_layout(launch.variant));
    tridiag::DeviceBatch<T>& device = on_device.batch;
    RowSteps steps;
    steps.method = method_of(launch);
    steps.poison = [&] { device.poison(); };
    steps.run = [&] { device.solve(launch); };
    steps.check = [&] {
      return checked(device.launch(), [&] { device.check(); },
                     [&] { return residents_->agreement(on_device); });
    };
    steps.time = timed_on(device.stream(), s_.repeats);
    return measured(steps);
  }

  Batch<T> batch_;  // contiguous
  std::optional<tridiag::ResidentBatches<T>> residents_;  // made in prepare(), beside stream_
};

// The sweep of another kind's batch (drawn, read, or one step of a heat ring): each variant that
// solves the kind (variants_for) over the listed threads and chunks, against the kind's byte
// floor (kind_bytes_per_solve) at the copy bandwidth, each launch checked against the kind's gold.
template <class T>
class KindStudy final : public BatchStudy<T> {
  using Base = BatchStudy<T>;
  using Base::checked, Base::condition_, Base::configurations_, Base::gold_, Base::p_, Base::s_,
      Base::stream_, Base::t_;

 public:
  using Base::Base;

  void prepare() override {
    batch_ = drawn_read_or_stepped();
    Base::n_ = batch_.dims.n;
    Base::systems_ = batch_.dims.systems;
    require_kind_memory<T>(t_, p_, batch_.dims, true, true);
    gold_ = tridiag::solve_kind_gold(batch_);  // a singular batch stops here
    condition_ = tridiag::condition_bound(batch_);
    const std::vector<Variant> solvers = tridiag::variants_for(p_.kind);
    std::vector<Variant> variants;
    for (Variant v : s_.variants)
      if (std::find(solvers.begin(), solvers.end(), v) != solvers.end()) variants.push_back(v);
    // configurations_for's layouts are the general kind's: thomas interleaved, the rest
    // contiguous, as kind_layout has them for every kind.
    configurations_ = tridiag::configurations_for(
        variants, s_.threads, s_.chunks, {batch_.dims.n, batch_.dims.systems, tridiag::Layout::contiguous},
        static_cast<int>(sizeof(T)));
    stream_.emplace();
    this->measure_copy_roofline(tridiag::kind_bytes_per_solve(batch_.dims, static_cast<int>(sizeof(T))));
  }

  std::string describe() const override {
    const tridiag::KindDims& k = batch_.dims;
    return std::to_string(k.systems) + " " + std::string(name(k.kind)) + " systems of " +
           std::to_string(k.n) + " rows" +
           (k.kind == tridiag::Kind::multi_rhs ? " x " + std::to_string(k.rhs) + " right-hand sides" : "") +
           ", " + std::string(name(p_.precision)) + " on " + current_device().name + "; " +
           this->copy_described() + ", " + describe_repeats(s_.repeats, "solves");
  }

  double units_per_run() const override {
    return static_cast<double>(batch_.dims.systems * batch_.dims.rhs_width());
  }

  void write_attributes(io::ResultFile& out) const override {
    this->write_batch_attributes(out);
    out.set_attribute("/sweep", "kind", std::string(name(batch_.dims.kind)));
    out.set_attribute("/sweep", "rhs", std::int64_t{batch_.dims.rhs});
    out.set_attribute("/sweep", "condition_bound", condition_);
    out.set_attribute("/sweep", "check_tolerance",
                      tridiag::kind_tolerance<T>(batch_.dims, condition_));
  }

  InputError nothing_to_time() const override {
    std::string names;
    for (Variant v : tridiag::variants_for(p_.kind))
      names += (names.empty() ? "" : ", ") + std::string(name(v));
    return InputError(t_.source_of("sweep.variants"), "sweep.variants",
                      "no listed variant, threads and chunk can solve " +
                          std::to_string(batch_.dims.systems) + " " + std::string(name(p_.kind)) +
                          " systems of " + std::to_string(batch_.dims.n) + " rows (" + names +
                          " solve them)");
  }

 private:
  // The batch on the device in one layout (the last launch's), with room for x.
  struct Resident {
    tridiag::Layout layout;
    std::vector<DeviceBuffer<T>> bands;
    std::vector<const T*> pointers;
    DeviceBuffer<T> d, x;
  };

  // The solver is made, and the batch uploaded in its layout, inside the row's poison step, so
  // that a launch the device refuses there fails only its row. The re-check asks the device
  // whether a timed solve failed; the first check's agreement stands otherwise.
  Measurement measure_launch(const Launch& launch) override {
    std::optional<tridiag::KindSolver<T>> solver;
    Resident* r = nullptr;
    Agreement first;
    const auto check_device = [&] { solver->check(*stream_); };
    RowSteps steps;
    steps.method = method_of(launch);
    steps.poison = [&] {
      solver.emplace(launch, batch_.dims);
      r = &resident(solver->layout());
      fill_bytes(r->x, 0xFF, *stream_);
    };
    steps.run = [&] { solver->solve(r->pointers.data(), r->d.data(), r->x.data(), *stream_); };
    steps.check = [&] {
      first = checked(solver->launch(), check_device, [&] {
        const tridiag::KindDims& k = batch_.dims;
        const std::vector<T> x = tridiag::relayout(download(r->x, *stream_),
                                                   {k.rhs_width(), k.systems, r->layout},
                                                   tridiag::Layout::contiguous);
        return tridiag::kind_agreement(x, gold_, k, condition_);
      });
      return first;
    };
    steps.recheck = [&] { return checked(solver->launch(), check_device, [&] { return first; }); };
    steps.time = timed_on(*stream_, s_.repeats);
    return measured(steps);
  }

  // The batch the sweep solves: drawn from the seed, read, or a heat ring's first step.
  tridiag::KindBatch<T> drawn_read_or_stepped() const {
    const tridiag::Kind kind = p_.kind;
    if (p_.problem == Problem::random)
      return tridiag::random_kind_batch<T>({kind, p_.random.n, p_.random.systems, p_.rhs},
                                           p_.random.seed);
    if (p_.problem == Problem::file)
      return read_kind_batch_part<T>(p_.input, kind, p_.rhs, 0, 1).batch;
    tridiag::Heat ring = p_.heat;
    ring.ring = true;
    tridiag::Batch<T> step = tridiag::heat_step<T>(ring);
    tridiag::KindBatch<T> batch;
    batch.dims = {kind, ring.points, ring.grids, 1};
    batch.bands = {std::move(step.a), std::move(step.b), std::move(step.c)};
    batch.d = std::move(step.d);
    return batch;
  }

  // The batch in `layout`, uploaded when the layout changes (the previous copy freed first).
  Resident& resident(tridiag::Layout layout) {
    if (resident_ && resident_->layout == layout) return *resident_;
    resident_.reset();
    const tridiag::KindDims& k = batch_.dims;
    Resident r{layout, {}, {}, {}, {}};
    for (const std::vector<T>& band : batch_.bands) {
      r.bands.push_back(tridiag::upload_relaid(band, {k.band_width(), k.systems, tridiag::Layout::contiguous},
                                               layout, *stream_));
      r.pointers.push_back(r.bands.back().data());
    }
    r.d = tridiag::upload_relaid(batch_.d, {k.rhs_width(), k.systems, tridiag::Layout::contiguous},
                                 layout, *stream_);
    r.x = DeviceBuffer<T>(batch_.d.size());
    resident_ = std::move(r);
    return *resident_;
  }

  tridiag::KindBatch<T> batch_;  // contiguous
  std::optional<Resident> resident_;
};

// The whole parameter file, its [sweep] table included, read and checked. A relative input.file
// is resolved against the parameter file's folder. The other problem's keys are an error, not
// ignored (io::read_keys refuses them).
std::unique_ptr<Run> make_run(io::ParamTable& t, const std::filesystem::path& params_path) {
  return run_in_precision<TridiagRun>(
      t, read_declared(t, tridiag::keys(), tridiag::sweep_keys(), params_path));
}

std::unique_ptr<Study> make_study(io::ParamTable& t, const std::filesystem::path& params_path) {
  auto file = read_declared(t, tridiag::keys(), tridiag::sweep_keys(), params_path);
  if (file.params.cut == tridiag::Cut::rows)
    throw InputError(t.source_of("system.cut"), "system.cut",
                     "`parasol sweep` times the variants on whole systems; one long system cut "
                     "by rows has one method (run it with `parasol run`)");
  if (file.params.kind != tridiag::Kind::general)
    return study_in_precision<KindStudy>(t, std::move(file));
  return study_in_precision<TridiagStudy>(t, std::move(file));
}

}  // namespace

Binding tridiag_binding() {
  Binding b{
      "tridiag",
      "batched tridiagonal systems: the 1D heat equation by backward Euler (on a line or a "
      "ring), or a batch from HDF5 or a seed; periodic, many right-hand sides, pentadiagonal "
      "and 2x2 blocks too",
      make_run,
      make_study};
  b.keys = [] { return declared(tridiag::keys(), tridiag::sweep_keys()); };
  b.across_ranks = true;
  b.checkpoints = true;
  b.examples = {"inputs/heat1d.toml",       "inputs/tridiag-file.toml",
                "inputs/tridiag-periodic.toml", "inputs/tridiag-rhs.toml",
                "inputs/tridiag-penta.toml",  "inputs/tridiag-block2.toml",
                "inputs/tridiag-study.toml",  "inputs/tridiag-long.toml"};
  return b;
}

}  // namespace parasol::app
