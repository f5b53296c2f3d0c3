// recurrence's binding: the series generated or read (solvers/recurrence/inputs.hpp), solved by
// the scan or the gold and stored beside its inputs; the sweep times both scan modes and checks
// that the reproducible one gives the same bits every time.
#include <array>
#include <optional>
#include <utility>

#include "apps/fits.hpp"
#include "apps/progress.hpp"
#include "apps/solver_run.hpp"
#include "io/read_keys.hpp"
#include "kernels/device.hpp"
#include "solvers/recurrence/check.hpp"
#include "solvers/recurrence/inputs.hpp"
#include "solvers/recurrence/keys.hpp"
#include "solvers/recurrence/problems.hpp"
#include "solvers/recurrence/ranks.hpp"
#include "solvers/recurrence/study.hpp"
#include "kernels/finite.hpp"

namespace parasol::app {
namespace {

using recurrence::Params;
using recurrence::Problem;
using recurrence::Series;

using recurrence::SweepParams;

// The parameters and the [sweep] table. Either end of ar1's coefficient range given asks for a
// coefficient drawn at every step: the other end is then required, and ar1.phi refused beside
// them. A relative input.file is resolved against the parameter file's folder.
DeclaredFile<Params, SweepParams> read(io::ParamTable& t, const std::filesystem::path& path) {
  // Before the keys are read, which would refuse ar1.phi as unread: this says why.
  if (t.has("ar1.phi") && (t.has("ar1.phi_min") || t.has("ar1.phi_max")))
    throw InputError(t.source_of("ar1.phi"), "ar1.phi",
                     "give either ar1.phi (one coefficient) or ar1.phi_min and ar1.phi_max "
                     "(a coefficient drawn at every step), not both");
  return read_declared(t, recurrence::keys(), recurrence::sweep_keys(), path, [&](Params& p, bool) {
    // The end not given, read as required: the table's own message for a missing key.
    if (p.ar1.time_varying)
      for (const char* end : {"ar1.phi_min", "ar1.phi_max"})
        if (!t.has(end)) (void)t.get_double(end);
  });
}

// The key a size complaint names: what set the size.
const char* size_key(const Params& p) { return p.problem == Problem::ar1 ? "ar1" : "input.file"; }

// s, u and v, with the gold and the magnitude scale in double (16 bytes) beside them. A
// generated problem is checked before it is made, a file's once it is read.
template <class T>
void require_host(const io::ParamTable& t, const Params& p, std::int64_t elements) {
  require_host_memory(t.source(), size_key(p), std::to_string(elements) + " elements need",
                      (3.0 * sizeof(T) + 16.0) * static_cast<double>(elements));
}

// s, u and v, the offsets and initial values, and a little for the scan's tile states. The
// elements are counted by the offsets: a series drawn on the device holds no s or u on the host.
template <class T>
void require_device(const io::ParamTable& t, const Params& p, const Series<T>& series) {
  const std::int64_t n = series.offsets.empty() ? 0 : series.offsets.back();
  require_device_memory(t.source(), size_key(p),
                        std::to_string(n) + " elements in " + std::string(name(p.precision)) +
                            " need",
                        1.01 * recurrence::bytes_per_solve(n, sizeof(T)) +
                            static_cast<double>(sizeof(std::int64_t) + sizeof(T)) *
                                static_cast<double>(series.segments() + 1));
}

// The series a run or sweep holds (recurrence::run_series), its host memory checked as it goes
// and a complaint of the parameters said against the file.
template <class T>
recurrence::RunSeries<T> run_series(const io::ParamTable& t, const Params& p, bool gpu,
                                    bool host_copy, int rank, int ranks) {
  return sourced(t, [&] {
    return recurrence::run_series<T>(p, gpu, host_copy, rank, ranks,
                                     [&](std::int64_t n) { require_host<T>(t, p, n); });
  });
}

template <class T>
class RecurrenceRun final : public SolverRun<Params> {
 public:
  using SolverRun::SolverRun;

  void prepare(const RunSetup& setup) override {
    take(setup);
    recurrence::RunSeries<T> r =
        run_series<T>(t_, p_, gpu_, check_ || p_.write_input, rank(), ranks());
    series_ = std::move(r.series);
    part_ = std::move(r.part);
    drawn_ = r.drawn;
    if (gpu_) require_device(t_, p_, ranks() > 1 ? part_->series : series_);
  }

  std::string describe() const override {
    return recurrence::describe(p_, series_) + "; " +
           ran(std::string(name(p_.mode)) + " scan") +
           (ranks() > 1 ? ", across " + std::to_string(ranks()) + " ranks" : "");
  }

  void solve(PhaseTimer& timings, io::ResultFile*) override {
    // Across ranks, this rank's run, with the carries exchanged.
    recurrence::Timings t;
    if (gpu_) {
      recurrence::Result<T> r =
          ranks() > 1 ? recurrence::solve_gpu_part(*part_, p_.mode, *context_, drawn())
                      : recurrence::solve_gpu(series_, p_.mode, drawn());
      v_ = std::move(r.v);
      t = r.timings;
    } else {
      const auto start = std::chrono::steady_clock::now();
      gold_ = ranks() > 1 ? recurrence::solve_gold_part(*part_, *context_, &t.exchange)
                          : gold("element");
      t.compute = seconds_since(start) - t.exchange;
      v_.assign(gold_.begin(), gold_.end());
    }
    if (ranks() > 1) timings.add("exchange", t.exchange);
    add_device_phases(timings, t);
    compute_ = t.compute;
    require_finite("recurrence: the output v", v_);
    // The range of v over every rank, for rank 0's summary (report() waits on no one).
    range_ = range_over_ranks(*context_, v_);
    // The reproducible scan's two steps on the device, the slowest rank's each.
    if (ranks() > 1)
      steps_ = {max_over_ranks(*context_, t.tile_totals), max_over_ranks(*context_, t.prefixed_scan)};
  }

  double work() const override { return static_cast<double>(series_.offsets.back()); }

  Reproducibility reproducibility() const override {
    if (!gpu_)
      return {true, "the CPU gold runs the recurrence in order, the carry passed rank to rank"};
    if (p_.mode == ScanMode::reproducible)
      return {true, "the reproducible scan composes tiles in a fixed tree, across ranks too"};
    return {false, ranks() > 1 ? "the fast scan across ranks agrees within tolerance, not in bits"
                               : "the fast scan's look-back composes tiles in the order they finish"};
  }

  void report(io::ResultFile& out) override {
    const std::int64_t elements = series_.offsets.back();
    const double rate = static_cast<double>(elements) / compute_;
    const double bytes = recurrence::bytes_per_solve(elements, sizeof(T));
    out.set_attribute("/timings", "gelements_per_s", 1e-9 * rate);
    out.set_attribute("/timings", "gb_per_s", 1e-9 * bytes / compute_);
    out.set_attribute("/series", "problem", std::string(name(p_.problem)));
    out.set_attribute("/series", "elements", elements);
    out.set_attribute("/series", "segments", series_.segments());
    if (p_.problem != Problem::ar1) out.set_attribute("/series", "input_file", p_.input.file);
    const bool tiles = recurrence::cut_for(gpu_, p_.mode) == recurrence::Cut::tiles;
    write_ranks(out, tiles ? "runs of whole scan tiles" : "runs of elements");
    if (ranks() > 1) {
      out.set_attribute("/method", "carry", std::string(carry_words()));
      if (gpu_ && p_.mode == ScanMode::reproducible) {
        out.set_attribute("/timings", "tile_totals_s", steps_.first);
        out.set_attribute("/timings", "prefixed_scan_s", steps_.second);
      }
    }
    say(formatted("v from %.6g to %.6g; %.3g s, %.3f Gelements/s", range_.first, range_.second,
                  compute_, 1e-9 * rate));
  }

  Agreement check() override {
    if (ranks() == 1) {
      if (gold_.empty()) gold_ = gold("gold element");
      return recurrence::agreement(v_, gold_, series_);
    }
    // Each rank judges its run by the gold's values there (the one-rank gold's bits). A CPU
    // run's result is the gold already; a GPU run's gold is made by every rank, as it is
    // collective (a run may be empty, so whether gold_ is empty cannot decide it).
    if (gpu_) gold_ = recurrence::solve_gold_part(*part_, *context_);
    return recurrence::agreement_part(*part_, v_, gold_, *context_);
  }

  void write(Output& out) override {
    const std::vector<std::uint64_t> dims = recurrence::field_dims(series_);
    // One rank holds the whole series; across ranks part_ holds this rank's run of it.
    const Series<T>& mine = part_ ? part_->series : series_;
    const std::uint64_t first = part_ ? static_cast<std::uint64_t>(part_->first) : 0;
    out.write_run("/fields/v", dims, first, v_);
    if (p_.write_input) {
      out.write_run("/input/s", dims, first, mine.s);
      out.write_run("/input/u", dims, first, mine.u);
    }
    if (out.file == nullptr) return;
    out.file->set_attribute(
        "/fields/v", "layout",
        std::string(dims.size() == 2 ? "[segment][t], t fastest: row k is segment k"
                                     : "[element]: segment k is elements offsets[k] to "
                                       "offsets[k + 1] - 1 (/input/offsets)"));
    // v = s v + u with s a pure number: v is in u's unit.
    out.file->set_attribute("/fields/v", "units", std::string("as u"));
    out.file->write_column("/input/offsets", series_.offsets);
    out.file->write_field("/input/initial", series_.initial.data(),
                         {static_cast<std::uint64_t>(series_.segments())});
  }

 private:
  // How a run learns what the runs before it ended on (ranks.hpp).
  const char* carry_words() const {
    if (!gpu_) return "the exact value the rank before ended on, passed rank to rank";
    if (p_.mode == ScanMode::reproducible)
      return "every rank's tile totals gathered and scanned by each rank as one rank would";
    return "an exclusive scan across ranks of each run's composed map";
  }

  // The gold, with a live line on a terminal: a long series takes seconds.
  std::vector<double> gold(const std::string& what) const {
    ProgressLine line(what, "elements", 1);
    return recurrence::solve_gold(series_, [&](const recurrence::Progress& pr) {
      line.update(pr.elements, pr.total, pr.seconds);
    });
  }

  const recurrence::Ar1* drawn() const { return drawn_ ? &p_.ar1 : nullptr; }

  // Across ranks on the GPU, reproducible: the slowest rank's tile totals and prefixed scan.
  std::pair<double, double> steps_{0, 0};
  bool drawn_ = false;  // s and u drawn on the device, never held on the host
  Series<T> series_;  // across ranks its offsets and initial values only: part_ holds the run
  std::optional<recurrence::SeriesPart<T>> part_;
  std::vector<T> v_;
  std::vector<double> gold_;
  double compute_ = 0;
  std::pair<double, double> range_{0, 0};  // v's least and greatest, over every rank
};

template <class T>
class RecurrenceStudy final : public MethodStudy<Params, SweepParams> {
 public:
  using MethodStudy::MethodStudy;

  void prepare() override {
    series_ = run_series<T>(t_, p_, true, true, 0, 1).series;
    require_device(t_, p_, series_);
    study_.emplace(series_);
    measure_copy_roofline(recurrence::bytes_per_solve(series_.size(), sizeof(T)));
    configure(std::array{ScanMode::fast, ScanMode::reproducible},
              [](Params& c, ScanMode mode) { c.mode = mode; });
  }

  std::string describe() const override {
    return recurrence::describe(p_, series_) + " on " + current_device().name + "; " +
           copy_described() + ", " + describe_repeats(s_.repeats, "solves");
  }

  SweepColumns columns() const override {
    return columns_with({"gelements_per_s", "Gelements/s", 12, 2}, copy_roofline(9),
                        {recurrence::kMeasure, "max rel err", 11, 2, 'g'},
                        {{"repeatable", "same bits", 9}});
  }

  // Checked, timed, and every timed solve compared bit for bit with the first
  // (recurrence::ModeStudy).
  Measurement measure(std::size_t i) override {
    recurrence::ModeMeasurement r = study_->measure(configs_[i].mode, s_.repeats);
    const bool repeatable = r.repeatable;
    Measurement m = measurement_of(std::move(r));
    m.extras = {std::int64_t{repeatable ? 1 : 0}};
    return m;
  }

  double units_per_run() const override { return static_cast<double>(series_.size()); }

  void write_attributes(io::ResultFile& out) const override {
    const double chain = study_->chain();
    write_copy_bandwidth(out);
    out.set_attribute("/sweep", "bytes_per_element", bytes_ / static_cast<double>(series_.size()));
    out.set_attribute("/sweep", "elements", series_.size());
    out.set_attribute("/sweep", "segments", series_.segments());
    out.set_attribute("/sweep", "tile_chain", chain);
    out.set_attribute("/sweep", "check_tolerance", recurrence::tolerance<T>(chain));
  }

  // Nothing to tune (the modes differ in what they promise), but each mode can be profiled.
  std::vector<std::string> run_overrides(std::size_t i) const override {
    return {"method.mode=" + std::string(name(configs_[i].mode))};
  }

  // Both modes always run: there is nothing a parameter could have left out.
  InputError nothing_to_time() const override {
    return InputError(t_.source(), "method.mode", "no scan mode to time");
  }

 private:
  Series<T> series_;
  std::optional<recurrence::ModeStudy<T>> study_;  // made once a device is known to be there
};

}  // namespace

Binding recurrence_binding() {
  Binding b{"recurrence",
            "first-order linear recurrences v[n] = s[n] v[n-1] + u[n] by a device-wide scan",
            declared_run<read, RecurrenceRun>, declared_study<read, RecurrenceStudy>};
  b.keys = [] { return declared(recurrence::keys(), recurrence::sweep_keys()); };
  b.across_ranks = true;
  b.examples = {"inputs/recurrence.toml", "inputs/recurrence-256m.toml"};
  return b;
}

}  // namespace parasol::app
