// What every solver's Run and Study hold and say alike, so that a binding writes only what is its
// own: the parameter table and the parameters read from it, method.variant = "auto" and what the
// autotune file held, the setup's backend and ranks, and how a run across ranks combines its
// numbers and describes its cut; and the steps bindings would otherwise each write again (the
// Run or Study in its precision, method.block against the device, a restart's field and the
// checkpoint phase). docs/adding-a-solver.md lists them.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "apps/binding.hpp"
#include "apps/checkpointing.hpp"
#include "apps/fits.hpp"
#include "apps/method_axes.hpp"
#include "apps/progress.hpp"
#include "apps/solver_parts.hpp"
#include "comm/over_ranks.hpp"
#include "io/read_keys.hpp"
#include "io/spill_file.hpp"
#include "io/streamed_dataset.hpp"
#include "kernels/device.hpp"
#include "kernels/precision.hpp"
#include "kernels/stream.hpp"

namespace parasol::app {

// A parameter file read whole by a solver's declarations (its keys.hpp): the run's keys, then
// the [sweep] table's, any key neither read refused, and the parameters validated, as
// io::read_checked orders them.
template <class P, class S>
struct DeclaredFile {
  P params;
  S sweep;
  bool automatic = false;  // a key was given as "auto" (method.variant = "auto")
};

// `settle(params, automatic)` runs once the run's keys are read, before the [sweep] table: what
// a solver checks of them beyond their declarations (a key refused beside another, a model's
// other keys, a default that "auto" changes).
template <class P, class S, class Settle>
DeclaredFile<P, S> read_declared(io::ParamTable& t, const Keys<P>& keys, const Keys<S>& sweep_keys,
                                 const std::filesystem::path& params_path, Settle&& settle) {
  std::vector<std::string> autos;
  auto [p, s] = io::read_checked(
      t,
      [&] {
        P read = io::read_keys(t, keys, params_path, &autos);
        settle(read, !autos.empty());
        return read;
      },
      [&] { return io::read_keys(t, sweep_keys, params_path); });
  return {std::move(p), std::move(s), !autos.empty()};
}

template <class P, class S>
DeclaredFile<P, S> read_declared(io::ParamTable& t, const Keys<P>& keys, const Keys<S>& sweep_keys,
                                 const std::filesystem::path& params_path) {
  return read_declared(t, keys, sweep_keys, params_path, [](P&, bool) {});
}

// A run or sweep of a solver whose Run and Study are templates on the element type: Made<float>
// when the file's method.precision is single, else Made<double>.
template <template <class> class Made, class P, class S>
std::unique_ptr<Run> run_in_precision(io::ParamTable& t, DeclaredFile<P, S> file) {
  const bool single = file.params.precision == Precision::single;
  return in_precision<Run, Made>(single, t, std::move(file.params), file.automatic);
}
template <template <class> class Made, class P, class S>
std::unique_ptr<Study> study_in_precision(io::ParamTable& t, DeclaredFile<P, S> file) {
  const bool single = file.params.precision == Precision::single;
  return in_precision<Study, Made>(single, t, std::move(file.params), std::move(file.sweep));
}

// What only the device can tell of method.block: whether it fits the device's block limits.
inline void check_method_block(const io::ParamTable& t, const Shape& block) {
  io::with_sources(t, [&] { check_block_limits(block, current_device(), "method.block"); });
}

// The seconds `checkpoints` spent writing, as the phase "checkpoint" when there were any; returned,
// since the solver's own compute time includes them and must not count them again.
inline double add_checkpoint_phase(PhaseTimer& timings, const Checkpointing& checkpoints) {
  const double seconds = checkpoints.seconds();
  if (seconds > 0) timings.add(phase::checkpoint, seconds);
  return seconds;
}

// A solver's own timings (`device`: its phases, "compute" among them) added to a run's. A solve
// whose compute seconds hold some that are timed apart (`apart`: its exchange across ranks) or the
// writing of `checkpoints` (added just before it as the phase "checkpoint") has them taken out of
// "compute", so that the phases add up to the wall.
inline void add_device_phases(PhaseTimer& timings, const PhaseTimer& device, double apart = 0,
                              const Checkpointing* checkpoints = nullptr) {
  for (const auto& [name, seconds] : device.phases()) {
    if (name != phase::compute) {
      timings.add(name, seconds);
      continue;
    }
    double compute = seconds - apart;
    if (checkpoints != nullptr) compute -= add_checkpoint_phase(timings, *checkpoints);
    timings.add(name, std::max(0.0, compute));
  }
}

// Binding::make_run and make_study of a solver whose file `read(table, path)` reads (a
// DeclaredFile) and whose Run and Study are made from what it read: R<float> or R<double> by
// the file's method.precision (a template), or R itself.
template <auto read, template <class> class R>
std::unique_ptr<Run> declared_run(io::ParamTable& t, const std::filesystem::path& path) {
  return run_in_precision<R>(t, read(t, path));
}
template <auto read, class R>
std::unique_ptr<Run> declared_run(io::ParamTable& t, const std::filesystem::path& path) {
  auto file = read(t, path);
  return std::make_unique<R>(t, std::move(file.params), file.automatic);
}
template <auto read, template <class> class S>
std::unique_ptr<Study> declared_study(io::ParamTable& t, const std::filesystem::path& path) {
  return study_in_precision<S>(t, read(t, path));
}
template <auto read, class S>
std::unique_ptr<Study> declared_study(io::ParamTable& t, const std::filesystem::path& path) {
  auto file = read(t, path);
  return std::make_unique<S>(t, std::move(file.params), std::move(file.sweep));
}

template <class Params>
class SolverRun : public Run {
 public:
  SolverRun(io::ParamTable& t, Params p, bool automatic = false)
      : t_(t), p_(std::move(p)), automatic_(automatic) {}

 protected:
  // Keeps what the run needs of `setup`: every prepare() starts here.
  void take(const RunSetup& setup) {
    gpu_ = setup.gpu();
    check_ = setup.options.check;
    context_ = &setup.context;
    transport_ = setup.options.transport;
    overlap_ = setup.options.overlap;
    autotune_file_ = setup.options.autotune_file;
    output_ = setup.output;
  }

  int ranks() const { return context_->size(); }
  int rank() const { return context_->rank(); }

  // A GPU run with method.variant = "auto" looks its choice up; the CPU gold has no variants.
  bool looks_up_choice() const { return gpu_ && automatic_; }
  // " (auto, from FILE)" in the summary of such a run; nothing otherwise.
  std::string chosen() const { return looks_up_choice() ? auto_.described() : std::string(); }
  // What the summary says ran: `method` (with how it was chosen) and the device, or the CPU gold.
  std::string ran(const std::string& method) const {
    return gpu_ ? method + chosen() + " on " + current_device().name : "CPU gold solver";
  }
  // /method's chosen_by ("parameters" unless method.variant = "auto") and, with "auto", the file
  // the choice was looked up in.
  void write_chosen_by(io::ResultFile& out) const {
    out.set_attribute("/method", "chosen_by", automatic_ ? auto_.chosen_by() : "parameters");
    if (automatic_) out.set_attribute("/method", "autotune_file", auto_.file.string());
  }
  // Across ranks: /method's ranks and decomposition ("slabs of z planes", ...).
  void write_ranks(io::ResultFile& out, const std::string& decomposition) const {
    if (ranks() == 1) return;
    out.set_attribute("/method", "ranks", std::int64_t{ranks()});
    out.set_attribute("/method", "decomposition", decomposition);
  }

  // /method: the solver's method axes (kernels/method_axes.hpp) and, where it autotunes, how
  // they were chosen. Nothing for a solver that declares none.
  void write_method(io::ResultFile& out) const override {
    if constexpr (kHasMethodAxes<Params>) {
      record_method(out, method_axes(p_), p_);
      if (method_axes(p_).autotuned) write_chosen_by(out);
    }
  }
  // What runs, in words, from the method axes: "zreg 64x4x1".
  std::string described_method() const { return method_text(method_axes(p_), p_); }
  // method.variant = "auto": the method axes' defaults, then the choice `parasol sweep
  // --autotune` stored under `key`, or else the shipped table's, when there is one. Without one,
  // the defaults and a note on stderr: a run need not wait for a sweep, and the note says how to
  // make one.
  void choose_automatic(const io::AutotuneKey& key) {
    const MethodAxes<Params>& m = method_axes(p_);
    for (const MethodAxis<Params>& a : m.axes)
      if (a.reset) a.reset(p_);
    const std::string defaults = method_text(m, p_);
    auto_ = look_up_choice(autotune_file_, key, defaults);
    if (auto_.choice) restore_found(m, auto_, p_, defaults);
  }

  // Across ranks, after each rank's solve: the time this rank waited for the others ("wait"),
  // then `combine` (the all-gathers and all-reduces that make the numbers the whole run's),
  // timed as "exchange". Nothing on one rank.
  template <class Combine>
  void combine_over_ranks(PhaseTimer& timings, Combine&& combine) {
    if (ranks() == 1) return;
    timings.add(phase::wait, wait_for_ranks(*context_));
    const double before = context_->comm_seconds();
    combine(*context_);
    timings.add(phase::exchange, context_->comm_seconds() - before);
  }

  io::ParamTable& t_;
  Params p_;
  bool automatic_;   // method.variant = "auto"
  AutoChoice auto_;  // with "auto" on a GPU: what the autotune file held
  bool gpu_ = false;
  bool check_ = false;  // --check: the run is judged against the gold after it
  comm::Context* context_ = nullptr;
  comm::Transport transport_ = comm::Transport::automatic;
  bool overlap_ = true;
  std::filesystem::path autotune_file_;  // --autotune-file, empty for the default
  std::filesystem::path output_;         // the result file's final path
};

// A sweep over the solver's method axes: each configuration is the run's Params with its axes
// set (configs_, made by prepare()), and its cells, columns and autotune choice follow from the
// declaration (apps/method_axes.hpp).
template <class Params, class SweepParams>
class MethodStudy : public Study {
 public:
  MethodStudy(io::ParamTable& t, Params p, SweepParams s)
      : t_(t), p_(std::move(p)), s_(std::move(s)) {}

  // A memory-bound sweep's roofline (measure_copy_roofline): the bytes a run moves, against the
  // copy. 0 for a sweep that measures none.
  double roofline_per_run() const override { return bytes_; }
  double ceiling_per_second() const override { return copy_; }
  // Kept for a sweep across ranks (one that says sweeps_across_ranks()).
  void use_ranks(comm::Context& context, comm::Transport transport) override {
    context_ = &context;
    transport_ = transport;
  }
  std::vector<std::vector<Cell>> configurations() override {
    return cells_of(configs_, [&](const Params& c) { return axis_cells(axes(), c); });
  }
  bool can_autotune() const override { return axes().autotuned; }
  // "no variant, block and coarsening to time": the swept axes, named.
  InputError nothing_to_time() const override {
    std::vector<std::string> keys;
    for (const MethodAxis<Params>& a : axes().axes)
      if (a.swept()) keys.push_back(a.key);
    std::string words;
    for (std::size_t i = 0; i < keys.size(); ++i)
      words += (i == 0 ? "" : i + 1 == keys.size() ? " and " : ", ") + keys[i];
    return InputError(this->t_.source(), "sweep", "no " + words + " to time");
  }
  std::optional<io::AutotuneChoice> autotune_choice(std::size_t i) const override {
    if (!axes().autotuned) return std::nullopt;
    return axis_choice(axes(), choice_key(), configs_[i]);
  }

 protected:
  // `bytes` one run must move (read + written), and a device-to-device copy of as many bytes
  // measured now, so that cache effects are alike for both.
  void measure_copy_roofline(double bytes) {
    bytes_ = bytes;
    copy_ = measure_copy_bandwidth(static_cast<std::size_t>(bytes / 2));
  }
  // "device-to-device copy 2861.5 GB/s", for the sweep's header line.
  std::string copy_described() const {
    return "device-to-device copy " + short_number(copy_ * 1e-9) + " GB/s";
  }
  void write_copy_bandwidth(io::ResultFile& out) const {
    out.set_attribute("/sweep", "copy_bandwidth_gb_per_s", copy_ * 1e-9);
  }
  const MethodAxes<Params>& axes() const { return method_axes(this->p_); }
  // The sweep's columns: the method axes', then the solver's rate, roofline, check and extras.
  SweepColumns columns_with(ResultsTable::Column rate,
                            std::optional<SweepColumns::Roofline> roofline,
                            ResultsTable::Column check,
                            std::vector<ResultsTable::Column> extras = {}) const {
    return {axis_columns(axes()), std::move(rate), std::move(roofline), std::move(check),
            std::move(extras)};
  }
  // The problem class a choice is stored under; a solver that autotunes says it.
  virtual io::AutotuneKey choice_key() const {
    throw Error("a sweep that autotunes names the key of its choice");
  }

  // configs_: the run's Params once for each of `values`, `set(config, value)` setting its axes.
  template <class Values, class Set>
  void configure(const Values& values, Set set) {
    for (const auto& v : values) {
      configs_.push_back(this->p_);
      set(configs_.back(), v);
    }
  }

  io::ParamTable& t_;
  Params p_;
  SweepParams s_;
  std::optional<Stream> stream_;  // made in prepare(), once a device is known to be there
  double bytes_ = 0, copy_ = 0;   // measure_copy_roofline's
  comm::Context* context_ = nullptr;  // across ranks only (use_ranks)
  comm::Transport transport_ = comm::Transport::automatic;
  std::vector<Params> configs_;
};

// ---- what a run refuses before it starts: memory it cannot have, a restart it cannot take -------

// A run's memory checked before anything is made (apps/fits.hpp): `device` bytes on the device
// when `gpu`, then `host` bytes on the host; a complaint names `key` of the file and says
// "<what> about ...", `what` ending in its verb ("4096 systems of 1024 rows need").
inline void require_memory(const io::ParamTable& t, const std::string& key, const std::string& what,
                           double device, double host, bool gpu) {
  if (gpu) require_device_memory(t.source_of(key), key, what, device);
  require_host_memory(t.source_of(key), key, what, host);
}

// A run with nothing to continue refuses --restart, saying `why` ("one long system is one solve,
// with nothing to continue").
inline void refuse_restart(const RunSetup& setup, const std::string& why) {
  if (!setup.options.restart.empty()) throw InputError("command line", "--restart", why);
}

// ---- a march's state in its checkpoints, by share or by rank --------------------------------

// A restart refused when the checkpoint holds its state otherwise than this run would (`held`:
// "float in the interleaved layout"), rather than converted: "checkpoint refused: it holds ...,
// and this run needs ... (restart it on `wrote` that wrote it)".
inline void require_held(const io::CheckpointReader& r, const std::string& held,
                         const std::string& wrote) {
  const std::string stored = std::get<std::string>(r.scalar("held"));
  if (stored != held)
    throw InputError(r.path().string(), "",
                     "checkpoint refused: it holds " + stored + ", and this run needs " + held +
                         " (restart it on " + wrote + " that wrote it)");
}

// This rank's `count` values from `first` of a whole of `total` laid out one part after another
// (whole grids, say): a checkpoint of them continues on any rank count.
inline io::Share contiguous_share(std::uint64_t total, std::uint64_t first, std::uint64_t count) {
  return io::Share{total, first, first, first + count};
}

// A state's `count` values of `name` into a checkpoint: as this rank's `share` of the whole, or
// without one as this rank's own part.
template <class T>
void add_share(io::CheckpointWriter& w, const std::string& name, const T* values,
               std::uint64_t count, const std::optional<io::Share>& share) {
  if (share) w.add(name, values, count, *share);
  else w.add(name, values, count);
}

// Back from a restart, in the run's precision T (a checkpoint holds its own): this rank's `count`
// values of `name` by `share`, from whichever parts hold them; without one, this rank's own part,
// which only the same cut reads back (refused otherwise, saying `why`).
template <class T>
std::vector<T> restart_share(const io::CheckpointReader& r, const std::string& name,
                             std::uint64_t count, const std::optional<io::Share>& share,
                             const std::string& why) {
  constexpr bool single = std::is_same_v<T, float>;
  if (share) {
    if constexpr (single) return r.floats(name, share->first, count, share->total);
    else return r.doubles(name, share->first, count, share->total);
  }
  r.require_same_ranks(why);
  if constexpr (single) return r.floats(name, count);
  else return r.doubles(name, count);
}

// ---- a solver's own reading of its inputs, said against the parameter file --------------------

// A solver's complaint (below the front end, which knows no parameter file) given the source of
// its key in `t` ("inputs/a.toml:12") when it names none; one that names its file and dataset
// already keeps them. The second runs `read` (a solver's making or reading of its inputs) and
// says so of any InputError it throws.
inline InputError sourced(const io::ParamTable& t, const InputError& e) {
  return e.source().empty() ? InputError(t.source_of(e.key()), e.key(), e.expected()) : e;
}
template <class Read>
auto sourced(const io::ParamTable& t, Read&& read) -> decltype(read()) {
  try {
    return read();
  } catch (const InputError& e) {
    throw sourced(t, e);
  }
}

// ---- a solver's own account of the memory a run takes ---------------------------------------------

// Each of a solver's memory needs (fftconv::MemoryNeed, with source_key, key, what, bytes, device
// and hint), checked in turn before anything is made: the host's memory, or the device's free
// memory, refused naming its key at the source of its source_key.
template <class Needs>
void require_needs(const io::ParamTable& t, const Needs& needs) {
  for (const auto& n : needs) {
    if (n.device) require_device_memory(t.source_of(n.source_key), n.key, n.what, n.bytes, n.hint);
    else require_host_memory(t.source_of(n.source_key), n.key, n.what, n.bytes);
  }
}

// ---- "auto" for a solver whose parameters as given run when no choice is stored ------------------

// method.variant = "auto" where the parameters as given are what runs without a stored choice
// (fftconv: "auto" is itself a variant, picked by the problem, and method.block is kept): the
// choice stored under `key` in `file` (look_up_choice) restored into `p` over the method axes'
// defaults (restore_choice); without one, `p` as it is and a note on stderr that `fallback` runs.
template <class P>
AutoChoice choose_stored(const MethodAxes<P>& m, P& p, const std::filesystem::path& file,
                         const io::AutotuneKey& key, const std::string& fallback) {
  AutoChoice c = look_up_choice(file, key, fallback);
  if (!c.choice) return c;
  const P given = p;
  for (const MethodAxis<P>& a : m.axes)
    if (a.reset) a.reset(p);
  restore_found(m, c, p, fallback);
  if (!c.choice) p = given;  // a shipped choice this build cannot run: as with none
  return c;
}

// ---- memory the whole problem takes, refused at the parameter file itself -----------------------

// Each of a solver's needs of its whole problem rather than of one key's value (coulomb::
// MemoryNeed, with key, what, bytes and device), checked in turn: the device's free memory or the
// host's, refused naming `key` at the parameter file rather than a line of it.
template <class Needs>
void require_file_needs(const io::ParamTable& t, const Needs& needs) {
  for (const auto& n : needs) {
    if (n.device) require_device_memory(t.source(), n.key, n.what, n.bytes);
    else require_host_memory(t.source(), n.key, n.what, n.bytes);
  }
}

// ---- a field's uniform grid, a solver's phases, and a sweep's configuration left out -----------

// The uniform grid of a field of nx x ny x nz points (stored [nz][ny][nx]) at `spacing` along
// every axis from `origin`: what its XDMF sidecar and its attributes describe.
inline io::UniformGrid3 uniform_grid(std::int64_t nx, std::int64_t ny, std::int64_t nz,
                                     double spacing, const std::array<double, 3>& origin = {}) {
  return {{std::uint64_t(nx), std::uint64_t(ny), std::uint64_t(nz)},
          origin,
          {spacing, spacing, spacing}};
}

// A row a solver's study measured (RowOutcome) with its own cells beside it, one per
// SweepColumns::extras (montecarlo's price and standard error).
inline Measurement measured(RowOutcome row, std::vector<Cell> extras) {
  Measurement m = measured(std::move(row));
  m.extras = std::move(extras);
  return m;
}

// The Measurement of a configuration that cannot take the problem (a variant for other kinds of
// systems): the driver says `why` and adds no row.
inline Measurement skipped(std::string why) {
  Measurement m;
  m.skipped = std::move(why);
  return m;
}

// A sweep's configuration: left out with `why` (the driver says it and adds no row), or, with
// no reason, measured by `measure` (its RowSteps, or the RowOutcome a solver's study measured).
template <class Measure>
Measurement unless_skipped(std::string why, Measure&& measure) {
  return why.empty() ? measured(measure()) : skipped(std::move(why));
}

// ---- a solver of two models, its file read by the one it names -------------------------------

// Binding::make_run or make_study of a solver of two declared models (montecarlo's two-asset
// model and its basket), each made as `first` and `other` make it (declared_run, declared_study):
// `other`'s where `is_other(table)` says the file is of that model, else `first`'s.
template <auto is_other, auto first, auto other>
auto by_model(io::ParamTable& t, const std::filesystem::path& path) {
  return is_other(t) ? other(t, path) : first(t, path);
}

// ---- a file its solver's declarations read whole ------------------------------------------------

// The `read` of declared_run and declared_study for a solver whose whole file its declarations
// read (read_declared): `declared_file<tridiag::keys, tridiag::sweep_keys>`, or with the solver's
// `settle` of what its keys read, before the [sweep] table (a default that "auto" changes):
// `declared_file<laplace3d::keys, laplace3d::sweep_keys, laplace3d::settle>`. A relative file
// name is resolved against the parameter file's folder.
template <auto keys, auto sweep_keys, auto settle = nullptr>
auto declared_file(io::ParamTable& t, const std::filesystem::path& path) {
  if constexpr (std::is_null_pointer_v<decltype(settle)>)
    return read_declared(t, keys(), sweep_keys(), path);
  else
    return read_declared(t, keys(), sweep_keys(), path, settle);
}

// ---- a march that checkpoints, at its end -----------------------------------------------------

// After a march that checkpoints: Checkpointing::finish (`what` names a step, `total` the steps
// asked for), then the seconds spent writing checkpoints as the phase "checkpoint", taken out of
// the march's `compute` seconds, which hold them.
inline void finish_march(PhaseTimer& timings, Checkpointing& checkpoints, const std::string& what,
                         std::int64_t total, double& compute) {
  checkpoints.finish(what, total);
  compute = std::max(0.0, compute - add_checkpoint_phase(timings, checkpoints));
}

// ---- a march whose state is its part of one field: its checkpoints and where its part lies ------

// Where this rank's local planes of a field of z planes lie in the whole (`planes` of `plane`
// values each): local plane 0 is the whole's plane `first` (halos below included), and it owns
// planes [begin, end). The whole field on one rank: planes_share(plane, nz, 0, 0, nz).
inline io::Share planes_share(std::int64_t plane, std::int64_t planes, std::int64_t first,
                              std::int64_t begin, std::int64_t end) {
  const auto at = [plane](std::int64_t z) { return static_cast<std::uint64_t>(z * plane); };
  return {at(planes), at(first), at(begin), at(end)};
}

namespace detail {
// The count of a march state's values at `u`: `points` (laplace3d, poisson) or `values` (tridiag).
template <class S, class = void>
inline constexpr bool kCountsPoints = false;
template <class S>
inline constexpr bool kCountsPoints<S, std::void_t<decltype(std::declval<S&>().points)>> = true;
template <class S>
auto& values_of(S& s) {
  if constexpr (kCountsPoints<S>) return s.points;
  else return s.values;
}
}  // namespace detail

// The checkpoints of a march whose state (State) is this rank's values of one field at `u`
// beside a step count and whatever else its solver keeps (laplace3d::State, poisson::State): the
// field written as "u" by this rank's `share` of the whole, so that any rank count continues it
// (none: this rank's own part, which only the same cut reads back), the rest by the binding's
// `fill` and read back by its `read`. Checkpointing's own calls (finish, report, seconds) are the
// run's as they are.
template <class State>
class FieldMarch : public Checkpointing {
 public:
  using Value = std::remove_const_t<std::remove_pointer_t<decltype(State::u)>>;

  FieldMarch(const CheckpointParams& cp, const RunSetup& setup, std::string solver,
             const io::ParamTable& params, std::set<std::string> may_differ,
             std::optional<io::Share> share)
      : Checkpointing(cp, setup, std::move(solver), params, std::move(may_differ)),
        share_(std::move(share)) {}
  FieldMarch(const FieldMarch&) = delete;  // from_ points into values_
  FieldMarch& operator=(const FieldMarch&) = delete;

  // With --restart, the state the run continues from: first `read(reader, state)` sets what the
  // state holds beside "u", refusing a checkpoint that cannot continue this run (past its last
  // step, held otherwise), then this rank's `count` values of "u" (refused, saying `why`, from
  // a checkpoint cut otherwise where there is no share).
  template <class Read>
  void resume(std::uint64_t count, Read read, const std::string& why = "") {
    const io::CheckpointReader* r = restart();
    if (r == nullptr) return;
    State s;
    read(*r, s);
    values_ = restart_share<Value>(*r, "u", count, share_, why);
    s.u = values_.data();
    detail::values_of(s) = static_cast<std::int64_t>(values_.size());
    from_ = std::move(s);
  }
  // The state a restart continues from; null without one.
  const State* from() const { return from_ ? &*from_ : nullptr; }

  // The march's safe points, from the restart's state when there is one: each checkpoint holds
  // what `fill(writer, state)` adds, then "u".
  template <class Fill>
  SafePoints<State> points(Fill fill) {
    return safe_points<State>(from(), [share = share_, fill](io::CheckpointWriter& w,
                                                             const State& s) {
      fill(w, s);
      add_share(w, "u", s.u, static_cast<std::uint64_t>(detail::values_of(s)), share);
    });
  }

 private:
  std::optional<io::Share> share_;
  std::vector<Value> values_;  // a restart's, until the solve takes them
  std::optional<State> from_;
};

// The checkpoints of a march whose state is a step count and one array (tridiag::HeatState:
// `steps`, and `values` of them at `u`), which the GPU holds as `Gpu` and the CPU gold as `Gold`
// (HeatState<T> in its variant's layout, HeatState<double>): the FieldMarch of the backend that
// runs, writing "steps", then the words `held` that say how it holds them, so that a restart on
// the other backend, or one held otherwise, is refused rather than rounded.
template <class Gpu, class Gold>
class BackendMarch {
 public:
  // `m` is the state as the solver describes it (tridiag::MarchState: its words `held`, this
  // rank's `values`, their `share` of the whole as total, first and count or none, and a
  // restart's limits `key`, `last`, `wrote` and `interleaved`), read back on a restart.
  template <class State>
  BackendMarch(const CheckpointParams& cp, const RunSetup& setup, const std::string& solver,
               const io::ParamTable& params, const std::set<std::string>& may_differ, bool gpu,
               const State& m)
      : held_(m.held) {
    std::optional<io::Share> share;
    if (m.share) share = contiguous_share(m.share->total, m.share->first, m.share->count);
    const auto resume = [&](auto& march) {
      march.emplace(cp, setup, solver, params, may_differ, share);
      march->resume(m.values, [&](const io::CheckpointReader& r, auto& s) {
        require_held(r, m.held, m.wrote);
        s.steps = io::restart_step(r, "steps", "step", m.key, m.last);
      }, m.interleaved);
    };
    if (gpu) resume(gpu_);
    else resume(gold_);
  }
  // The checkpoints of the backend that runs.
  Checkpointing& checkpoints() { return gpu_ ? static_cast<Checkpointing&>(*gpu_) : *gold_; }
  // The safe points of the backend that runs; none for the other.
  std::optional<SafePoints<Gpu>> gpu() { return points(gpu_); }
  std::optional<SafePoints<Gold>> gold() { return points(gold_); }

 private:
  template <class S>
  std::optional<SafePoints<S>> points(std::optional<FieldMarch<S>>& march) {
    if (!march) return std::nullopt;
    return march->points([held = held_](io::CheckpointWriter& w, const S& s) {
      w.add("steps", s.steps);
      w.add("held", held);
    });
  }

  std::string held_;
  std::optional<FieldMarch<Gpu>> gpu_;
  std::optional<FieldMarch<Gold>> gold_;
};

// ---- a run's rate, said and recorded ------------------------------------------------------------

// The summary's line of a run's compute: "compute 0.0444 s, 0.0292 Gpoints/s" (`rate` in `unit`
// over `seconds`), and the rate as /timings@`attribute` ("gpoints_per_s").
inline void report_rate(io::ResultFile& out, const std::string& attribute, double seconds,
                        double rate, const std::string& unit) {
  out.set_attribute("/timings", attribute, rate);
  say("compute " + short_number(seconds) + " s, " + short_number(rate) + " " + unit);
}

// ---- a 1D field handed on piece by piece, never whole on any rank ------------------------------

// A 1D field a run computes in order and never holds whole (fftconv's streamed output), in one
// shape whatever the ranks: on one rank each piece goes straight into `dataset` of the result
// file (io::StreamedDataset, made at once); across ranks into a spill file beside the result,
// and from it into the rank's block of the field when the ranks write (write_to). Either way no
// rank holds more than a piece.
template <class T>
class StreamedField {
 public:
  // `file` (one rank) or null (across ranks: a spill file in `folder`); `length` values in all.
  StreamedField(io::ResultFile* file, const std::filesystem::path& folder, std::string dataset,
                std::int64_t length)
      : dataset_(std::move(dataset)) {
    if (file != nullptr) whole_.emplace(*file, dataset_, length);
    else spill_.emplace(folder);
  }
  // Values [offset, offset + count), where the last ones ended.
  void write(std::int64_t offset, std::int64_t count, const T* values) {
    if (whole_) whole_->write(offset, count, values);
    else spill_->append(values, static_cast<std::size_t>(count) * sizeof(T));
  }
  void finish() {
    if (whole_) whole_->finish();
  }
  // Across ranks, in Run::write: this rank's values into `dataset` (`dims`, made by rank 0 with
  // every rank's), from element `first` on, in runs of the result file's writes.
  void write_to(Output& out, const std::vector<std::uint64_t>& dims, std::uint64_t first) const {
    out.create<T>(dataset_, dims);
    const auto count = static_cast<std::int64_t>(spill_->size() / sizeof(T));
    std::vector<T> run;
    for (std::int64_t at = 0; at < count; at += io::StreamedDataset<T>::kRunValues) {
      run.resize(
          static_cast<std::size_t>(std::min(io::StreamedDataset<T>::kRunValues, count - at)));
      spill_->read(static_cast<std::uint64_t>(at) * sizeof(T), run.data(), run.size() * sizeof(T));
      out.write_block(dataset_, {first + static_cast<std::uint64_t>(at)}, {run.size()}, run.data());
    }
  }

 private:
  std::string dataset_;
  std::optional<io::StreamedDataset<T>> whole_;
  std::optional<io::SpillFile> spill_;
};

// ---- a run whose field its XDMF sidecar shows --------------------------------------------------

// A run whose write() adds the XDMF sidecar of its field (Output::add_xdmf, describe_grid_field):
// the sidecar's path beside the result, named up front so that it is judged like the result.
template <class Params>
class GridRun : public SolverRun<Params> {
 public:
  using SolverRun<Params>::SolverRun;

  std::vector<std::filesystem::path> sidecars(const std::filesystem::path& result) const override {
    return {io::xdmf_path_for(result)};
  }
};

// ---- what only the device can tell of a problem, before anything is made -----------------------

// What only the device can tell: method.block against its block limits (check_method_block),
// then its free memory for the problem's `needs` (require_file_needs), in that order.
template <class Needs>
void check_fits_device(const io::ParamTable& t, const Shape& block, const Needs& needs) {
  check_method_block(t, block);
  require_file_needs(t, needs);
}

}  // namespace parasol::app

// ---- a solver's account of a run, and its progress on a live line ----------------------------
namespace parasol::app {

// A solver's account of a run (montecarlo::Report: `attributes`, each a group and its list, and
// the summary's `lines`): recorded in `out` and said.
template <class Report>
void record_and_say(io::ResultFile& out, const Report& r) {
  for (const auto& [group, list] : r.attributes) set_attributes(out, group, list);
  for (const std::string& line : r.lines) say(line);
}

// A solver's ProgressCallback drawing on `line`: its Progress's `done` of `total` steps (pointers
// to its members: &montecarlo::Progress::paths, &montecarlo::Progress::total_paths) after its
// `seconds`.
template <class Progress, auto done, auto total>
std::function<void(const Progress&)> shown_on(ProgressLine& line) {
  return [&line](const Progress& pr) { line.update(pr.*done, pr.*total, pr.seconds); };
}

}  // namespace parasol::app
