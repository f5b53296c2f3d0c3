// recurrence's binding: a rank's run of the series (recurrence::RunPart: generated or read, solved
// by the scan or the gold, judged, reported), stored beside its inputs; the sweep times both scan
// modes and checks that the reproducible one gives the same bits every time.
#include <array>
#include <functional>
#include <optional>
#include <utility>

#include "apps/progress.hpp"
#include "apps/solver_parts.hpp"
#include "apps/solver_run.hpp"
#include "solvers/recurrence/check.hpp"
#include "solvers/recurrence/keys.hpp"
#include "solvers/recurrence/problems.hpp"
#include "solvers/recurrence/run_part.hpp"
#include "solvers/recurrence/study.hpp"

namespace parasol::app {
namespace {

using recurrence::Params;
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

// The host's memory for a series of `n` elements judged as it is made, against the file.
template <class T>
std::function<void(std::int64_t)> judged_host(const io::ParamTable& t, const Params& p) {
  return [&t, p](std::int64_t n) {
    require_file_needs(t, std::vector{recurrence::host_need<T>(p, n)});
  };
}

// The gold's steps as a live line on a terminal: a long series takes seconds.
void show_gold(const std::string& what,
               const std::function<void(const recurrence::ProgressCallback&)>& solve) {
  ProgressLine line(what, "elements", 1);
  solve([&](const recurrence::Progress& pr) { line.update(pr.elements, pr.total, pr.seconds); });
}

template <class T>
class RecurrenceRun final : public SolverRun<Params> {
 public:
  using SolverRun::SolverRun;

  void prepare(const RunSetup& setup) override {
    take(setup);
    part_.emplace(sourced(t_, [&] {
      return recurrence::RunPart<T>(p_, gpu_, check_ || p_.write_input, rank(), ranks(),
                                    judged_host<T>(t_, p_));
    }));
    if (gpu_) require_file_needs(t_, std::vector{part_->device_need()});
  }

  std::string describe() const override {
    return recurrence::describe(p_, part_->series()) + "; " +
           ran(std::string(name(p_.mode)) + " scan") +
           (ranks() > 1 ? ", across " + std::to_string(ranks()) + " ranks" : "");
  }

  void solve(PhaseTimer& timings, io::ResultFile*) override {
    add_device_phases(timings, part_->solve(*context_, show_gold));
  }

  double work() const override { return static_cast<double>(part_->elements()); }

  Reproducibility reproducibility() const override {
    auto [reproducible, because] = recurrence::reproducibility(p_, gpu_, ranks());
    return {reproducible, std::move(because)};
  }

  void report(io::ResultFile& out) override {
    const recurrence::Summary s = part_->summary();
    set_attributes(out, "/timings", s.timings);
    set_attributes(out, "/series", s.series);
    write_ranks(out, part_->decomposition());
    set_attributes(out, "/method", s.method);
    say(s.line);
  }

  Agreement check() override { return part_->check(*context_, show_gold); }

  // One rank holds the whole series; across ranks each writes its run of it.
  void write(Output& out) override {
    const Series<T>& whole = part_->series();
    const std::vector<std::uint64_t> dims = recurrence::field_dims(whole);
    out.write_run("/fields/v", dims, part_->first(), part_->v());
    if (p_.write_input) {
      out.write_run("/input/s", dims, part_->first(), part_->held().s);
      out.write_run("/input/u", dims, part_->first(), part_->held().u);
    }
    if (out.file == nullptr) return;
    out.file->set_attribute("/fields/v", "layout", recurrence::v_layout(dims));
    // v = s v + u with s a pure number: v is in u's unit.
    out.file->set_attribute("/fields/v", "units", std::string("as u"));
    out.file->write_column("/input/offsets", whole.offsets);
    out.file->write_field("/input/initial", whole.initial.data(),
                          {static_cast<std::uint64_t>(whole.segments())});
  }

 private:
  std::optional<recurrence::RunPart<T>> part_;  // made in prepare()
};

template <class T>
class RecurrenceStudy final : public MethodStudy<Params, SweepParams> {
 public:
  using MethodStudy::MethodStudy;

  void prepare() override {
    series_ = sourced(t_, [&] {
      return recurrence::run_series<T>(p_, true, true, 0, 1, judged_host<T>(t_, p_)).series;
    });
    require_file_needs(t_, std::vector{recurrence::device_need(p_, series_)});
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
    write_copy_bandwidth(out);
    set_attributes(out, "/sweep", recurrence::sweep_attributes(series_, bytes_, study_->chain()));
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
