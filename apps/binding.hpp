// What a solver tells the driver (apps/driver.cpp), and nothing more: how to read its parameters,
// what a run of it prints, checks and writes, and the axes of its sweep. The driver owns the
// routine every solver shares: result file, provenance, timing by phase, the check, the commit,
// the sweep table, autotune. One binding per solver, in apps/bindings/<solver>_binding.cpp, registered by
// parasol_add_solver() in CMake.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "io/autotune.hpp"
#include "io/direct_write.hpp"
#include "io/param_table.hpp"
#include "io/result_file.hpp"
#include "io/xdmf.hpp"
#include "apps/options.hpp"
#include "apps/results_table.hpp"
#include "comm/context.hpp"
#include "kernels/agreement.hpp"
#include "kernels/declaration.hpp"
#include "kernels/kernel_log.hpp"
#include "kernels/phase_timer.hpp"
#include "kernels/printable.hpp"
#include "kernels/sweep_keys.hpp"
#include "kernels/sweep_row.hpp"
#include "kernels/timed_runs.hpp"

namespace parasol::app {

// Prints one line of a run's summary ("  " + text) on standard output. Under several ranks only
// rank 0 speaks.
void say(const std::string& text);

using parasol::formatted;  // kernels/printable.hpp

// A text file written beside the result and committed with it (XDMF, OpenDX).
struct Sidecar {
  std::filesystem::path path;
  std::string contents;
};

class Run;

// Where a run writes, in one of three ways:
// - One rank (`whole`): the result file itself; every field is this rank's alone.
// - Across ranks, fields unfiltered (`direct`, the default): every rank writes its own block of
//   each field at once, straight into the file (io/direct_write.hpp). Rank 0's write() runs
//   first, on `file`: it makes each field cut among the ranks a contiguous dataset and keeps its
//   own blocks; then rank 0 writes those while the other ranks' write() runs, each with the
//   table of where rank 0's datasets lie.
// - Across ranks, fields filtered (--compression): rank 0 writes first, then each other rank in
//   its turn on a Part that takes blocks of the datasets rank 0 made.
// Sidecars are rank 0's.
struct Output {
  io::ResultFile* file = nullptr;        // rank 0; null on the other ranks
  io::ResultFile::Part* part = nullptr;  // ranks > 0 taking turns; null otherwise
  io::DirectWriter* direct = nullptr;    // every rank, when they write at once; null otherwise
  bool whole = true;                     // a one-rank run: every field is this rank's alone
  std::vector<Sidecar> sidecars;

  // A field this rank holds a block of (`offset`, `count`; C order, `dims` whole): on a one-rank
  // run the whole field, written as write_field writes any field (chunked and filtered when
  // large); across ranks into the dataset rank 0 makes whole. True where the field's attributes
  // are written (rank 0). Across ranks `data` must stay as it is until the run's write is over
  // (rank 0 writes its blocks after its write() returns): a Run's own members do.
  template <class T>
  bool write_part(const std::string& dataset, const std::vector<std::uint64_t>& dims,
                  const std::vector<std::uint64_t>& offset, const std::vector<std::uint64_t>& count,
                  const T* data) {
    if (whole) {
      file->write_field(dataset, data, dims);
      return true;
    }
    create<T>(dataset, dims);
    if (count[0] > 0) put(dataset, offset, count, data, true);
    return file != nullptr;
  }

  // The same for rows [first_row, first_row + rows) along the first dimension.
  template <class T>
  bool write_share(const std::string& dataset, const std::vector<std::uint64_t>& dims,
                   std::uint64_t first_row, std::uint64_t rows, const T* data) {
    std::vector<std::uint64_t> offset(dims.size(), 0), count = dims;
    offset[0] = first_row;
    count[0] = rows;
    return write_part(dataset, dims, offset, count, data);
  }

  // The same for elements [first, first + values.size()) of a 1D or 2D field in C order: up to
  // three blocks when the field is 2D (the rest of a row, whole rows, the start of a row).
  template <class T>
  bool write_run(const std::string& dataset, const std::vector<std::uint64_t>& dims,
                 std::uint64_t first, const std::vector<T>& values) {
    if (whole) return write_part(dataset, dims, {}, {}, values.data());
    create<T>(dataset, dims);
    const std::uint64_t n = values.size();
    if (dims.size() == 1) {
      if (n > 0) put(dataset, {first}, {n}, values.data(), true);
      return file != nullptr;
    }
    const std::uint64_t length = dims[1];
    for (std::uint64_t i = 0; i < n;) {
      const std::uint64_t at = first + i, row = at / length, column = at % length;
      const std::uint64_t rows = column != 0 || n - i < length ? 1 : (n - i) / length;
      const std::uint64_t count = rows == 1 ? std::min(length - column, n - i) : length;
      put(dataset, {row, column}, {rows, count}, values.data() + i, true);
      i += rows * count;
    }
    return file != nullptr;
  }

  // A field cut among the ranks along its first dimension: rank 0 makes it whole (`dims`), and
  // every rank writes its rows [first_row, first_row + rows) of it from `data` (C order), which
  // must stay as write_part's does.
  template <class T>
  void write_rows(const std::string& dataset, const std::vector<std::uint64_t>& dims,
                  std::uint64_t first_row, std::uint64_t rows, const T* data) {
    create<T>(dataset, dims);
    std::vector<std::uint64_t> offset(dims.size(), 0), count = dims;
    offset[0] = first_row;
    count[0] = rows;
    if (rows > 0) put(dataset, offset, count, data, true);
  }

  // Planes [first, first + planes) of the [nz][ny][nx] field `dataset` on `grid` from `data`
  // (write_share), and on rank 0 the sidecar that shows it as `name`; true where the field's
  // attributes are written (rank 0).
  template <class T>
  bool write_planes(const std::string& dataset, const std::string& name,
                    const io::UniformGrid3& grid, std::int64_t first, std::int64_t planes,
                    const T* data) {
    const std::vector<std::uint64_t> dims{grid.points[2], grid.points[1], grid.points[0]};
    if (!write_share(dataset, dims, static_cast<std::uint64_t>(first),
                     static_cast<std::uint64_t>(planes), data))
      return false;
    add_xdmf(grid, {dataset, name, int(sizeof(T))});
    return true;
  }

  // The XDMF sidecar that shows `field` on `grid` beside the result (rank 0, once the field is
  // written), so that ParaView and VisIt open the HDF5 file.
  void add_xdmf(const io::UniformGrid3& grid, const io::XdmfField& field) {
    const std::filesystem::path& path = file->path();
    sidecars.push_back(
        {io::xdmf_path_for(path), io::xdmf_text(path.filename().string(), grid, field)});
  }

  // A field written on the uniform grid `grid` ([nz][ny][nx], x fastest): its spacing, layout
  // and `units` attributes, and the XDMF sidecar that shows it as `name` (rank 0, once the field
  // is written).
  void describe_grid_field(const std::string& dataset, const std::string& name,
                           const io::UniformGrid3& grid, const std::string& units, int bytes) {
    file->set_attribute(dataset, "spacing", grid.spacing[0]);
    file->set_attribute(dataset, "layout", std::string("[nz][ny][nx], x fastest"));
    file->set_attribute(dataset, "units", units);
    add_xdmf(grid, {dataset, name, bytes});
  }

  // The same in steps: rank 0 makes the dataset (`dims`), then each rank writes its blocks,
  // each written before write_block returns (so `data` may be reused at once). Every rank must
  // make the same datasets.
  template <class T>
  void create(const std::string& dataset, const std::vector<std::uint64_t>& dims) {
    if (direct == nullptr) {
      if (file != nullptr) file->create_dataset<T>(dataset, dims);
      return;
    }
    if (laid_out(dataset, dims, sizeof(T)) == nullptr)
      datasets_.push_back(file->create_contiguous<T>(dataset, dims));
  }
  template <class T>
  void write_block(const std::string& dataset, const std::vector<std::uint64_t>& offset,
                   const std::vector<std::uint64_t>& count, const T* data) {
    put(dataset, offset, count, data, false);
  }

 private:
  friend std::string write_fields(comm::Context& context, Run& run, io::ResultFile* file);

  // Writing at once: where `dataset` lies, after checking that it was made with these `dims`
  // and elements; null on rank 0 for one not made yet. Error on another rank for one rank 0
  // did not make: every rank's write() must make the same datasets.
  const io::DirectDataset* laid_out(const std::string& dataset,
                                    const std::vector<std::uint64_t>& dims,
                                    std::size_t element_bytes) const;
  // Writing at once: a block written now, or on rank 0 kept until the others write (`later`).
  void put_direct(const std::string& dataset, const std::vector<std::uint64_t>& offset,
                  const std::vector<std::uint64_t>& count, const void* data,
                  std::size_t element_bytes, bool later);
  // Rank 0's kept blocks, written; then this rank's writes reach the disk (DirectWriter::finish).
  void finish_direct();

  template <class T>
  void put(const std::string& dataset, const std::vector<std::uint64_t>& offset,
           const std::vector<std::uint64_t>& count, const T* data, bool later) {
    if (direct != nullptr) put_direct(dataset, offset, count, data, sizeof(T), later);
    else if (file != nullptr) file->write_hyperslab(dataset, offset, count, data);
    else part->write_hyperslab(dataset, offset, count, data);
  }

  struct Kept {
    std::size_t dataset;  // in datasets_
    std::vector<std::uint64_t> offset, count;
    const void* data;
  };
  std::vector<io::DirectDataset> datasets_;  // rank 0 makes them; the others are sent them
  std::vector<Kept> kept_;                   // rank 0's blocks, until every rank writes
};

// The dims of a field on `grid`, in C order: [nz][ny][nx].
inline std::vector<std::uint64_t> grid_dims(const io::UniformGrid3& grid) {
  return {grid.points[2], grid.points[1], grid.points[0]};
}

// Writes the run's fields and sidecars (Run::write) on every rank into rank 0's `file` (null on
// the other ranks), in whichever way of Output's the file's compression allows, and returns the
// sidecars' names for the summary (" (and a.xmf, a.dx"), "" for none). Collective; a failure
// on any rank is every rank's (together(): one line from rank 0), and leaves the file
// uncommitted. Across ranks rank 0's file is left suspended.
std::string write_fields(comm::Context& context, Run& run, io::ResultFile* file);

// What the driver knows about the run when it hands it to the binding.
struct RunSetup {
  const RunOptions& options;
  Backend backend;           // resolved: gpu or cpu
  std::filesystem::path output;  // the result file's final path
  comm::Context& context;    // this rank among the run's (one rank without a launcher)
  bool gpu() const { return backend == Backend::gpu; }
};

// Whether a run's bits are promised to repeat (the same inputs, backend, device model and rank
// count), and the reason in a few words: /provenance@reproducible and @reproducible_because.
struct Reproducibility {
  bool reproducible = false;
  std::string because;
};

// One run of a solver: made by the binding from the parameter file, then driven in this order.
class Run {
 public:
  virtual ~Run() = default;
  // Everything the run needs that the parameters alone cannot tell: inputs read from files, the
  // device's limits and memory, an autotune choice. Bad input here is an InputError (exit 2),
  // raised before the result file is made.
  virtual void prepare(const RunSetup& setup) = 0;
  // The summary's first line, after "<solver>: ".
  virtual std::string describe() const = 0;
  // The sidecars write() will add beside `result` (its .xmf, say), judged up front like it.
  virtual std::vector<std::filesystem::path> sidecars(const std::filesystem::path& /*result*/) const {
    return {};
  }
  // /method, when the run has one to record (the GPU variant that ran, say).
  virtual void write_method(io::ResultFile&) const {}
  // Solves, adding the solver's own phases (host_to_device, compute, device_to_host...) to
  // `timings`. A run whose output never fits in memory whole (a streamed convolution) writes it
  // to `out` as it comes; others write in write(). `out` is null on ranks other than 0.
  virtual void solve(PhaseTimer& timings, io::ResultFile* out) = 0;
  // Prints the lines that follow the run (diagnostics, rate) and stores /diagnostics and rates.
  // Rank 0's alone, across ranks: it must not wait on the others.
  virtual void report(io::ResultFile& out) = 0;
  // Why an iterative run stopped short of its criterion ("NOT converged after 100 iterations
  // ..."), for --require-convergence; nothing for a run that met it or has none (a direct solve).
  virtual std::optional<std::string> unconverged() const { return std::nullopt; }
  // The result judged against the gold (solvers/<solver>/check.hpp). Across ranks every rank
  // calls it and each gets the whole run's agreement.
  virtual Agreement check() = 0;
  // The fields, and the sidecars that go with them. Across ranks, rank 0 first, then the others
  // (Output says how).
  virtual void write(Output& out) = 0;
  // Units of work the run did, in the unit of its Study's rate column (points x iterations,
  // path-steps, ...), for the rate of a CPU sweep; 0 when not known.
  virtual double work() const { return 0; }
  // What one parallel loop of this rank's CPU solver shares among threads, in items of about a
  // nanosecond each (a grid point of one sweep, a path step), once prepare() has run; 0 when not
  // known. --threads auto gives a small problem fewer threads (kernels/cpu_threads.hpp).
  virtual std::int64_t parallel_items() const { return 0; }
  // What this run promises of its bits, given its variant, backend, transport and rank count,
  // once prepare() has run (docs/hdf5-layout.md lists each solver's).
  virtual Reproducibility reproducibility() const = 0;
};

// "at least 7 timed solves and 0.5 s each": what the repeats are, for a sweep's header line.
std::string describe_repeats(const Repeats& repeats, const std::string& runs);

// One axis value, one measurement per configuration of a sweep.
using Cell = ResultsTable::Cell;

// The axis cells of each of a sweep's configurations (Study::configurations): `cells(c)` of each.
template <class Configurations, class Cells>
std::vector<std::vector<Cell>> cells_of(const Configurations& configurations, Cells cells) {
  std::vector<std::vector<Cell>> all;
  for (const auto& c : configurations) all.push_back(cells(c));
  return all;
}

// The columns of a solver's sweep table besides those every sweep has (median, spread, rate,
// roofline, check): its axes first, its own extras after the check.
struct SweepColumns {
  std::vector<ResultsTable::Column> axes;  // variant, block, threads, chunk, ...
  ResultsTable::Column rate;               // e.g. {"gpoints_per_s", "Gpoints/s", 10, 1}
  // The roofline: what one run must move or compute, and the ceiling measured in the same sweep.
  // `throughput` is the achieved rate column (GB/s), `percent` the share of the ceiling.
  struct Roofline {
    ResultsTable::Column throughput;  // {"gb_per_s", "GB/s", 9, 1}
    ResultsTable::Column percent;     // {"percent_of_copy", "% copy", 7, 1}
  };
  std::optional<Roofline> roofline;
  ResultsTable::Column check;  // the agreement's measure, e.g. {"max_abs_diff", "max|diff|", ...}
  std::vector<ResultsTable::Column> extras;
};

// What one configuration measured.
struct Measurement {
  std::vector<double> seconds;  // each timed run; empty when the configuration failed to run
  Agreement agreement;
  std::vector<Cell> extras;     // one per SweepColumns::extras
  // The kernels the configuration launched, with why they ran as they did: filled by the driver,
  // which holds a KernelLog while measure() runs.
  std::vector<KernelRecord> kernels;
  // Wall seconds of the whole configuration (its check, warm-up, timed repeats and whatever the
  // binding does around them): filled by the driver, so that a sweep's overhead can be read row
  // by row. NaN where not measured.
  double wall_s = std::numeric_limits<double>::quiet_NaN();
  // Seconds of wall time inside the timed repeats, when `seconds` are not those repeats' own
  // (laplace3d's are per sweep); 0: the sum of `seconds`. For the sweep's overhead.
  double timed_s = 0;
  // Set when this configuration cannot take the problem at all (a variant for 1D problems only,
  // given an image): the driver says why and adds no row.
  std::string skipped;
  // Set when a CUDA error the context survives failed the configuration (measure_row's line,
  // naming the method): the driver says it and adds the row untimed.
  std::string failure;
  // Across ranks: the slowest rank's seconds of exchange per timed run (measured with the
  // exchange not overlapped), and the share of it the overlap hid: (seconds without overlap -
  // seconds with it) / exchange. NaN on one rank.
  double exchange_seconds = std::numeric_limits<double>::quiet_NaN();
  double hidden_fraction = std::numeric_limits<double>::quiet_NaN();
};

namespace detail {
template <class R, class = void>
inline constexpr bool kTimesInside = false;
template <class R>
inline constexpr bool kTimesInside<R, std::void_t<decltype(std::declval<R&>().timed_s)>> = true;
}  // namespace detail

// A solver's own measurement of a configuration (laplace3d's ShapeMeasurement, recurrence's
// ModeMeasurement, kernels/sweep_row.hpp's RowOutcome) as the driver's: its agreement, seconds and failure, and where it has them,
// the wall seconds inside its timed runs and the exchange figures across ranks.
template <class R>
Measurement measurement_of(R r) {
  Measurement m;
  m.agreement = std::move(r.agreement);
  m.seconds = std::move(r.seconds);
  m.failure = std::move(r.failure);
  if constexpr (detail::kTimesInside<R>) {
    m.timed_s = r.timed_s;
    m.exchange_seconds = r.exchange_seconds;
    m.hidden_fraction = r.hidden_fraction;
  }
  return m;
}

// A configuration measured by the sweep-row protocol (kernels/sweep_row.hpp): from its steps, or
// as a solver's study measured it (solvers/<s>/study.hpp).
inline Measurement measured(RowOutcome row) { return measurement_of(std::move(row)); }
inline Measurement measured(const RowSteps& steps) { return measured(measure_row(steps)); }

// A solver's sweep: made by the binding from the parameter file and its [sweep] table.
class Study {
 public:
  virtual ~Study() = default;
  // Inputs, device checks, the gold, and the ceiling measured now. InputError before any timing.
  virtual void prepare() = 0;
  // The header line, after "<solver> sweep: ".
  virtual std::string describe() const = 0;
  virtual SweepColumns columns() const = 0;
  // Each configuration's axis cells; measure(i) times the i-th.
  virtual std::vector<std::vector<Cell>> configurations() = 0;
  virtual Measurement measure(std::size_t configuration) = 0;
  // Units of work per timed run, for the rate column (points x sweeps, path-steps, ...), and the
  // roofline's quantity per run (bytes, rsqrt evaluations) and ceiling per second.
  virtual double units_per_run() const = 0;
  virtual double roofline_per_run() const { return 0; }
  virtual double ceiling_per_second() const { return 0; }
  // /sweep's own attributes (copy bandwidth, sizes, tolerance).
  virtual void write_attributes(io::ResultFile& out) const = 0;
  virtual bool can_autotune() const { return false; }
  // What --autotune stores for the fastest configuration that agreed with the gold: its key and
  // choice (variant, block); nullopt when this solver has nothing to choose between.
  virtual std::optional<io::AutotuneChoice> autotune_choice(std::size_t /*configuration*/) const {
    return std::nullopt;
  }
  // The overrides that make `parasol run` of this file run the configuration (for --profile):
  // by default method.<axis>=<value> of its autotune choice; empty when it cannot be run alone.
  virtual std::vector<std::string> run_overrides(std::size_t configuration) const;
  // The message of an empty sweep (no listed configuration can run).
  virtual InputError nothing_to_time() const = 0;
  // Whether this sweep can run across ranks (`mpirun -np N parasol sweep`), and the ranks it
  // runs on, given before prepare(): every rank then measures every configuration together.
  virtual bool sweeps_across_ranks() const { return false; }
  virtual void use_ranks(comm::Context& /*context*/, comm::Transport /*transport*/) {}
};

// method.variant = "auto" in a GPU run: what the autotune file holds for this run's key, else
// what the table shipped with Parasol holds for it (io::shipped_autotune_path).
struct AutoChoice {
  std::filesystem::path file;              // where it looked, or where the shipped choice is
  std::optional<io::AutotuneChoice> choice;  // nullopt: none stored, the solver's own choice runs
  bool shipped = false;                    // the choice is the shipped table's
  // /method's chosen_by: "autotune", "shipped", or "default" when neither file held a choice.
  std::string chosen_by() const { return !choice ? "default" : shipped ? "shipped" : "autotune"; }
  // " (auto, from FILE)", " (auto, shipped: FILE)" or " (auto: no choice stored)", for a run's
  // summary.
  std::string described() const;
  // The InputError for a stored choice this build cannot run (`e` says why; `axis` is the
  // choice's key at fault: "variant", "block"...), naming the file and the choice's line.
  InputError unusable(const InputError& e, const std::string& axis) const;
  // Runs `validate` (the parameters with the stored choice in them); an InputError from it
  // becomes the unusable() error for `axis`.
  template <class Validate>
  void validate(const std::string& axis, Validate validate) const {
    try {
      validate();
    } catch (const InputError& e) {
      throw unusable(e, axis);
    }
  }
};

// The key of a choice for `solver` on the current device.
io::AutotuneKey autotune_key(std::string_view solver, std::string problem, std::string precision);

// What --autotune stores for a configuration (Study::autotune_choice): the key of its problem,
// its variant and its other axes as users type them.
inline io::AutotuneChoice choice_of(io::AutotuneKey key, std::string variant,
                                    std::vector<std::pair<std::string, std::string>> axes = {}) {
  io::AutotuneChoice c;
  c.key = std::move(key);
  c.variant = std::move(variant);
  c.axes = std::move(axes);
  return c;
}

// The key of a CPU sweep's choice (its thread count) for `solver` on this processor, with the
// cores this process may use, for the problem `params` describe (a digest of the keys read and
// the input files, the sweep's and output's keys left out).
io::AutotuneKey cpu_autotune_key(std::string_view solver, const io::ParamTable& params,
                                 const std::filesystem::path& params_path);

// Under --threads auto, a CPU run of the problem uses the thread count a CPU sweep stored for it
// in the autotune file (`given`, else the default place), when there is one.
void use_stored_cpu_threads(const std::filesystem::path& given, std::string_view solver,
                            const io::ParamTable& params, const std::filesystem::path& params_path);

// Looks `key` up in the autotune file (`given`, else the default place: io::autotune_path), then
// in the table shipped with Parasol (io::shipped_autotune_path). With no choice in either, says
// so in one line on stderr, naming the key, the file and `fallback` (what runs instead: "zreg
// 64x4x1").
AutoChoice look_up_choice(const std::filesystem::path& given, const io::AutotuneKey& key,
                          const std::string& fallback);

// A solver as the front end knows it.
struct Binding {
  std::string_view name;
  std::string_view summary;
  // Read and validate the parameter file (every key a solver accepts is read here, so anything
  // else is unknown). `params_path` resolves relative input files.
  std::unique_ptr<Run> (*make_run)(io::ParamTable& params, const std::filesystem::path& params_path);
  std::unique_ptr<Study> (*make_study)(io::ParamTable& params,
                                       const std::filesystem::path& params_path);
  // Whether a run may be cut among several ranks (mpirun -np N): the Run then solves its part,
  // meets the others in the communication layer, and writes its part with theirs (Output).
  bool across_ranks = false;
  // Every key the solver's parameter file may hold, declared once beside the solver
  // (kernels/declaration.hpp): `parasol keys`, `parasol run FILE --help` and docs/parameters.md
  // list them, and a CPU run given one only the GPU solver reads says it does not use it. Null for
  // a solver that has not declared its keys.
  std::vector<KeyInfo> (*keys)() = nullptr;
  // Parameter files under inputs/ that run it ("inputs/laplace3d.toml"): `parasol solvers` lists
  // them, and a test checks each names this solver.
  std::vector<std::string_view> examples{};
  // Whether its runs write checkpoints ([checkpoint] keys) and continue from one (--restart).
  bool checkpoints = false;
};

// The KeyInfo of a solver's run keys and [sweep] keys, for Binding::keys.
template <class P, class S>
std::vector<KeyInfo> declared(const Keys<P>& run, const Keys<S>& sweep) {
  std::vector<KeyInfo> all = infos(run);
  for (KeyInfo& k : infos(sweep, true)) all.push_back(std::move(k));
  return all;
}

// The same for a solver of two models (montecarlo's course model and its basket): the second
// model's keys after the first's, a key both read alike listed once.
template <class P, class Q, class S>
std::vector<KeyInfo> declared(const Keys<P>& run, const Keys<Q>& other, const Keys<S>& sweep) {
  std::vector<KeyInfo> all = infos(run);
  for (KeyInfo& k : infos(other)) {
    const bool listed = std::any_of(all.begin(), all.end(), [&](const KeyInfo& o) {
      return o.key == k.key && o.read_when == k.read_when;
    });
    if (!listed) all.push_back(std::move(k));
  }
  for (KeyInfo& k : infos(sweep, true)) all.push_back(std::move(k));
  return all;
}

// The roofline of a memory-bound sweep against a device-to-device copy
// (MethodStudy::measure_copy_roofline), its GB/s column `width` wide.
inline SweepColumns::Roofline copy_roofline(int width) {
  return {{"gb_per_s", "GB/s", width, 1}, {"percent_of_copy", "% copy", 7, 1}};
}

// A solver's Run or Study in the precision the parameters chose: Made<float> when `single`,
// else Made<double>, built from `args`.
template <class Base, template <class> class Made, class... Args>
std::unique_ptr<Base> in_precision(bool single, Args&&... args) {
  if (single) return std::make_unique<Made<float>>(std::forward<Args>(args)...);
  return std::make_unique<Made<double>>(std::forward<Args>(args)...);
}

// Every registered solver, in the order parasol_add_solver() named them (solver_registry.cpp is
// generated from that list).
const std::vector<Binding>& bindings();
// The solver a file names; InputError listing the known solvers otherwise.
const Binding& find_binding(io::ParamTable& params);

}  // namespace parasol::app
