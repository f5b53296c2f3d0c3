// recurrence's binding: the series generated or read (recurrence_inputs.cpp), solved by the scan
// or the gold and stored beside its inputs; the sweep times both scan modes and checks that the
// reproducible one gives the same bits every time.
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <optional>

#include "apps/binding.hpp"
#include "apps/bindings/recurrence_inputs.hpp"
#include "apps/fits.hpp"
#include "apps/progress.hpp"
#include "kernels/device.hpp"
#include "kernels/stream.hpp"
#include "kernels/timed_runs.hpp"
#include "kernels/validate.hpp"
#include "solvers/recurrence/check.hpp"
#include "solvers/recurrence/problems.hpp"

namespace parasol::app {
namespace {

using recurrence::Params;
using recurrence::Problem;
using recurrence::Series;

struct SweepParams {
  std::int64_t repeats = 20;  // timed solves per mode, after a warm-up; the median is reported
};

// A relative input.file is resolved against the parameter file's folder.
Params read_params(io::ParamTable& t, const std::filesystem::path& params_path) {
  const Params d;
  Params p;
  p.problem =
      io::get_choice(t, "problem.kind", std::string(name(d.problem)), recurrence::parse_problem);
  p.precision = io::get_choice(t, "problem.precision", std::string(name(d.precision)),
                               recurrence::parse_precision);
  p.ar1.series = t.get_int("ar1.series", d.ar1.series);
  p.ar1.length = t.get_int("ar1.length", d.ar1.length);
  // A coefficient that varies in time is asked for by giving its range instead of one value.
  p.ar1.time_varying = t.has("ar1.phi_min") || t.has("ar1.phi_max");
  if (p.ar1.time_varying) {
    if (t.has("ar1.phi"))
      throw InputError(t.source_of("ar1.phi"), "ar1.phi",
                       "give either ar1.phi (one coefficient) or ar1.phi_min and ar1.phi_max (a "
                       "coefficient drawn at every step), not both");
    p.ar1.phi_min = t.get_double("ar1.phi_min");
    p.ar1.phi_max = t.get_double("ar1.phi_max");
  } else {
    p.ar1.phi = t.get_double("ar1.phi", d.ar1.phi);
  }
  p.ar1.sigma = t.get_double("ar1.sigma", d.ar1.sigma);
  p.ar1.x0 = t.get_double("ar1.x0", d.ar1.x0);
  p.ar1.seed = io::get_seed(t, "ar1.seed", d.ar1.seed);
  p.smoothing.alpha = t.get_double("smoothing.alpha", d.smoothing.alpha);
  p.input.file = io::get_file(t, "input.file", params_path, d.input.file);
  p.input.y = t.get_string("input.y", d.input.y);
  p.input.s = t.get_string("input.s", d.input.s);
  p.input.u = t.get_string("input.u", d.input.u);
  p.input.initial = t.get_string("input.initial", d.input.initial);
  p.input.offsets = t.get_string("input.offsets", d.input.offsets);
  p.mode = io::get_choice(t, "method.mode", std::string(name(d.mode)), parse_scan_mode);
  p.write_input = t.get_bool("output.input", d.write_input);
  return p;
}

SweepParams read_sweep_params(io::ParamTable& t) {
  SweepParams s;
  s.repeats = io::get_positive_int(t, "sweep.repeats", s.repeats);
  return s;
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

// s, u and v, the offsets and initial values, and a little for the scan's tile states.
template <class T>
void require_device(const io::ParamTable& t, const Params& p, const Series<T>& series) {
  require_device_memory(
      t.source(), size_key(p),
      std::to_string(series.size()) + " elements in " + std::string(name(p.precision)) + " need",
      1.01 * recurrence::bytes_per_solve(series.size(), sizeof(T)) +
          static_cast<double>(sizeof(std::int64_t) + sizeof(T)) *
              static_cast<double>(series.segments() + 1));
}

template <class T>
Series<T> prepared_series(const io::ParamTable& t, const Params& p) {
  if (p.problem == Problem::ar1) require_host<T>(t, p, p.ar1.series * p.ar1.length);
  Series<T> series = make_series<T>(t, p);
  if (p.problem != Problem::ar1) require_host<T>(t, p, series.size());
  return series;
}

template <class T>
std::string describe_series(const Params& p, const Series<T>& series) {
  char text[256];
  const auto n = static_cast<long long>(series.size());
  const auto segments = static_cast<long long>(series.segments());
  if (p.problem == Problem::ar1 && p.ar1.time_varying)
    std::snprintf(text, sizeof text,
                  "AR(1), %lld series x %lld steps, phi uniform in (%g, %g), sigma %g", segments,
                  n / segments, p.ar1.phi_min, p.ar1.phi_max, p.ar1.sigma);
  else if (p.problem == Problem::ar1)
    std::snprintf(text, sizeof text, "AR(1), %lld series x %lld steps, phi %g, sigma %g", segments,
                  n / segments, p.ar1.phi, p.ar1.sigma);
  else if (p.problem == Problem::smoothing)
    std::snprintf(text, sizeof text,
                  "exponential smoothing (alpha %g) of %lld series, %lld values in all, from %s",
                  p.smoothing.alpha, segments, n, p.input.file.c_str());
  else
    std::snprintf(text, sizeof text, "%lld elements in %lld segments from %s", n, segments,
                  p.input.file.c_str());
  return std::string(text) + " (" + std::string(name(p.precision)) + ")";
}

// Equal-length segments are stored as rows, [segments][length]; others as one run of elements
// with /input/offsets saying where each segment starts.
template <class T>
std::vector<std::uint64_t> field_dims(const Series<T>& series) {
  const std::int64_t segments = series.segments();
  const std::int64_t length = segments > 0 ? series.offsets[1] : 0;
  bool rows = segments > 1 && length > 0;
  for (std::int64_t k = 0; rows && k < segments; ++k)
    rows = series.offsets[k + 1] - series.offsets[k] == length;
  if (rows) return {static_cast<std::uint64_t>(segments), static_cast<std::uint64_t>(length)};
  return {static_cast<std::uint64_t>(series.size())};
}

template <class T>
class RecurrenceRun final : public Run {
 public:
  RecurrenceRun(io::ParamTable& t, Params p) : t_(t), p_(std::move(p)) {}

  void prepare(const RunSetup& setup) override {
    gpu_ = setup.gpu();
    series_ = prepared_series<T>(t_, p_);
    if (gpu_) require_device(t_, p_, series_);
  }

  std::string describe() const override {
    return describe_series(p_, series_) + "; " +
           (gpu_ ? std::string(name(p_.mode)) + " scan on " + current_device().name
                 : "CPU gold solver");
  }

  void write_method(io::ResultFile& out) const override {
    out.set_attribute("/method", "mode", std::string(name(p_.mode)));
  }

  void solve(PhaseTimer& timings, io::ResultFile*) override {
    recurrence::Timings t;
    if (gpu_) {
      recurrence::Result<T> r = recurrence::solve_gpu(series_, p_.mode);
      v_ = std::move(r.v);
      t = r.timings;
    } else {
      const auto start = std::chrono::steady_clock::now();
      gold_ = gold("element");
      t.compute = seconds_since(start);
      v_.assign(gold_.begin(), gold_.end());
    }
    timings.add("host_to_device", t.host_to_device);
    timings.add("compute", t.compute);
    timings.add("device_to_host", t.device_to_host);
    compute_ = t.compute;
  }

  void report(io::ResultFile& out) override {
    const double rate = static_cast<double>(series_.size()) / compute_;
    const double bytes = recurrence::bytes_per_solve(series_.size(), sizeof(T));
    out.set_attribute("/timings", "gelements_per_s", 1e-9 * rate);
    out.set_attribute("/timings", "gb_per_s", 1e-9 * bytes / compute_);
    out.set_attribute("/series", "problem", std::string(name(p_.problem)));
    out.set_attribute("/series", "elements", series_.size());
    out.set_attribute("/series", "segments", series_.segments());
    if (p_.problem != Problem::ar1) out.set_attribute("/series", "input_file", p_.input.file);
    const auto [low, high] = std::minmax_element(v_.begin(), v_.end());
    char line[256];
    std::snprintf(line, sizeof line, "v from %.6g to %.6g; %.3g s, %.3f G elements/s",
                  static_cast<double>(*low), static_cast<double>(*high), compute_, 1e-9 * rate);
    say(line);
  }

  Agreement check() override {
    if (gold_.empty()) gold_ = gold("gold element");
    return recurrence::agreement(v_, gold_, series_);
  }

  void write(Output& out) override {
    const std::vector<std::uint64_t> dims = field_dims(series_);
    out.file->write_field("/fields/v", v_.data(), dims);
    out.file->set_attribute(
        "/fields/v", "layout",
        std::string(dims.size() == 2 ? "[segment][t], t fastest: row k is segment k"
                                     : "[element]: segment k is elements offsets[k] to "
                                       "offsets[k + 1] - 1 (/input/offsets)"));
    if (p_.write_input) {
      out.file->write_field("/input/s", series_.s.data(), dims);
      out.file->write_field("/input/u", series_.u.data(), dims);
    }
    out.file->write_column("/input/offsets", series_.offsets);
    out.file->write_field("/input/initial", series_.initial.data(),
                         {static_cast<std::uint64_t>(series_.segments())});
  }

 private:
  // The gold, with a live line on a terminal: a long series takes seconds.
  std::vector<double> gold(const std::string& what) const {
    ProgressLine line(what, "elements", 1);
    return recurrence::solve_gold(series_, [&](const recurrence::Progress& pr) {
      line.update(pr.elements, pr.total, pr.seconds);
    });
  }

  io::ParamTable& t_;
  Params p_;
  bool gpu_ = false;
  Series<T> series_;
  std::vector<T> v_;
  std::vector<double> gold_;
  double compute_ = 0;
};

constexpr ScanMode kModes[] = {ScanMode::fast, ScanMode::reproducible};

template <class T>
class RecurrenceStudy final : public Study {
 public:
  RecurrenceStudy(io::ParamTable& t, Params p, SweepParams s) : t_(t), p_(std::move(p)), s_(s) {}

  void prepare() override {
    series_ = prepared_series<T>(t_, p_);
    require_device(t_, p_, series_);
    gold_ = recurrence::solve_gold(series_);
    scale_ = recurrence::magnitude_scale(series_);
    chain_ = recurrence::tile_chain(series_, recurrence::kTileElements<T>);
    stream_.emplace();
    device_.emplace(series_, *stream_);
    bytes_ = recurrence::bytes_per_solve(series_.size(), sizeof(T));
    // The copy moves as many bytes as one solve (it reads and writes bytes / 2).
    copy_ = measure_copy_bandwidth(static_cast<std::size_t>(bytes_ / 2));
  }

  std::string describe() const override {
    return describe_series(p_, series_) + " on " + current_device().name +
           "; device-to-device copy " + short_number(1e-9 * copy_) + " GB/s, " +
           std::to_string(s_.repeats) + " timed solves each";
  }

  SweepColumns columns() const override {
    return {{{"mode", "mode", 13}},
            {"gelements_per_s", "Gelements/s", 12, 2},
            SweepColumns::Roofline{{"gb_per_s", "GB/s", 9, 1}, {"percent_of_copy", "% copy", 7, 1}},
            {recurrence::kMeasure, "max rel err", 11, 2, 'g'},
            {{"repeatable", "same bits", 9}}};
  }

  std::vector<std::vector<Cell>> configurations() override {
    std::vector<std::vector<Cell>> cells;
    for (ScanMode mode : kModes) cells.push_back({std::string(name(mode))});
    return cells;
  }

  // The first solve (on v poisoned with NaN) is the warm-up and the check; every timed solve
  // after it is read back, outside the timing, and compared bit for bit with the first.
  Measurement measure(std::size_t i) override {
    const ScanMode mode = kModes[i];
    recurrence::DeviceSeries<T>& device = *device_;
    device.poison();
    device.solve(mode);
    const std::vector<T> first = device.download();
    Measurement m;
    m.agreement = recurrence::agreement(first, gold_, scale_, chain_);
    bool repeatable = true;
    m.seconds = timed_runs(
        device.stream(), s_.repeats, [&] { device.solve(mode); },
        [&] {
          const std::vector<T> again = device.download();
          repeatable =
              repeatable && std::memcmp(first.data(), again.data(), again.size() * sizeof(T)) == 0;
        });
    m.extras = {std::int64_t{repeatable ? 1 : 0}};
    return m;
  }

  double units_per_run() const override { return static_cast<double>(series_.size()); }
  double roofline_per_run() const override { return bytes_; }
  double ceiling_per_second() const override { return copy_; }

  void write_attributes(io::ResultFile& out) const override {
    out.set_attribute("/sweep", "copy_bandwidth_gb_per_s", 1e-9 * copy_);
    out.set_attribute("/sweep", "bytes_per_element", bytes_ / static_cast<double>(series_.size()));
    out.set_attribute("/sweep", "elements", series_.size());
    out.set_attribute("/sweep", "segments", series_.segments());
    out.set_attribute("/sweep", "tile_chain", chain_);
    out.set_attribute("/sweep", "check_tolerance", recurrence::tolerance<T>(chain_));
  }

  // Both modes always run: there is nothing a parameter could have left out.
  InputError nothing_to_time() const override {
    return InputError(t_.source(), "method.mode", "no scan mode to time");
  }

 private:
  io::ParamTable& t_;
  Params p_;
  SweepParams s_;
  Series<T> series_;
  std::vector<double> gold_, scale_;
  double chain_ = 0, bytes_ = 0, copy_ = 0;
  std::optional<Stream> stream_;  // made once a device is known to be there
  std::optional<recurrence::DeviceSeries<T>> device_;
};

std::unique_ptr<Run> make_run(io::ParamTable& t, const std::filesystem::path& params_path) {
  Params p =
      io::read_checked(
          t, [&] { return read_params(t, params_path); }, [&] { return read_sweep_params(t); })
          .first;
  const bool single = p.precision == recurrence::Precision::single;
  return in_precision<Run, RecurrenceRun>(single, t, std::move(p));
}

std::unique_ptr<Study> make_study(io::ParamTable& t, const std::filesystem::path& params_path) {
  auto [p, s] = io::read_checked(
      t, [&] { return read_params(t, params_path); }, [&] { return read_sweep_params(t); });
  const bool single = p.precision == recurrence::Precision::single;
  return in_precision<Study, RecurrenceStudy>(single, t, std::move(p), s);
}

}  // namespace

Binding recurrence_binding() {
  return {"recurrence",
          "first-order linear recurrences v[n] = s[n] v[n-1] + u[n] by a device-wide scan",
          make_run,
          make_study,
          {"method.mode"}};
}

}  // namespace parasol::app
