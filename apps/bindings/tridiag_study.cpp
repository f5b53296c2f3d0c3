// tridiag's sweep: every variant x threads x chunk on one batch (drawn, read, or one heat step;
// general systems or another kind's) against the copy bandwidth, and the autotune choice.
#include <algorithm>
#include <optional>

#include "apps/bindings/tridiag_run.hpp"
#include "kernels/device.hpp"
#include "solvers/tridiag/check.hpp"
#include "solvers/tridiag/sweep.hpp"

namespace parasol::app {
namespace {

using tridiag::Launch;
using tridiag::Params;
using tridiag::Problem;
using tridiag::SweepParams;

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
    return choice_of(autotune_key("tridiag", tridiag::problem_class(p_, n_, systems_),
                                  std::string(name(p_.precision))),
                     std::string(name(l.variant)),
                     {{"threads", std::to_string(l.threads)}, {"chunk", std::to_string(l.chunk)}});
  }

  std::string describe() const override {
    return what_ + rhs_ + ", " + std::string(name(p_.precision)) + " on " + current_device().name + "; " +
           this->copy_described() + ", " + describe_repeats(s_.repeats, "solves");
  }

  void write_attributes(io::ResultFile& out) const override {
    write_copy_bandwidth(out);
    out.set_attribute("/sweep", "bytes_per_solve", bytes_);
    out.set_attribute("/sweep", "n", n_);
    out.set_attribute("/sweep", "systems", systems_);
    write_batch_attributes(out);
    out.set_attribute("/sweep", "condition_bound", condition_);
    out.set_attribute("/sweep", "check_tolerance", tolerance_);
  }

 protected:
  static constexpr int kBytes = static_cast<int>(sizeof(T));

  virtual Measurement measure_launch(const Launch& launch) = 0;
  // The attributes of /sweep a kind adds.
  virtual void write_batch_attributes(io::ResultFile&) const {}

  // Once the batch is made (n_, systems_ and what_ set): whether `f` fits, before the gold is
  // solved (a singular batch stops there).
  void fits(const tridiag::Footprint& f) const {
    require_memory(t_, tridiag::size_key(p_), what_ + " need", f.device, f.host, true);
  }
  // Once the gold is: the launches of `variants`, the stream, and the roofline of `bytes` a solve.
  void sized(const std::vector<tridiag::Variant>& variants, double bytes) {
    // configurations_for's layouts are the general kind's: thomas interleaved, the rest
    // contiguous, as kind_layout has them for every kind.
    configurations_ = tridiag::configurations_for(
        variants, s_.threads, s_.chunks, {n_, systems_, tridiag::Layout::contiguous}, kBytes);
    stream_.emplace();
    this->measure_copy_roofline(bytes);
  }

  // `agree` once `check_device` finds the solves so far clean; a failure the gold did not meet
  // (a zero pivot) fails the row.
  template <class CheckDevice, class Agree>
  static Agreement checked(const Launch& launch, CheckDevice&& check_device, Agree&& agree) {
    try {
      check_device();
    } catch (const tridiag::NumericalError& e) {
      const std::string what = tridiag::method_of(launch) + ": " + e.what();
      say(what + ", where the gold solved it");
      return tridiag::failed_solve(what);
    }
    return agree();
  }

  std::vector<double> gold_;
  double condition_ = 0, tolerance_ = 0;
  std::int64_t n_ = 0, systems_ = 0;  // the batch's
  std::string what_;                  // the batch in words: "4096 systems of 1024 rows"
  std::string rhs_;                   // and a summary's " x 8 right-hand sides"
  std::vector<tridiag::Configuration> configurations_;
};

template <class T>
class GeneralStudy final : public BatchStudy<T> {
  using Base = BatchStudy<T>;
  using Base::checked, Base::condition_, Base::gold_, Base::p_, Base::s_, Base::stream_;

 public:
  using Base::Base;

  void prepare() override {
    batch_ = p_.problem == Problem::heat   ? tridiag::heat_step<T>(p_.heat)
             : p_.problem == Problem::file ? tridiag::read_batch<T>(p_.input)
                                           : tridiag::random_batch<T>(
                                                 {p_.random.n, p_.random.systems,
                                                  tridiag::Layout::contiguous},
                                                 p_.random.seed);
    this->n_ = batch_.dims.n;
    this->systems_ = batch_.dims.systems;
    this->what_ = tridiag::extent(batch_.dims);
    this->fits(tridiag::footprint(batch_.dims, Base::kBytes, true));
    gold_ = tridiag::solve_gold(batch_);
    // A heat step's bound as `parasol run` takes it (every row alike but the ends: three rows
    // give it), not a pass over the whole batch.
    condition_ = p_.problem == Problem::heat ? tridiag::condition_bound(p_.heat)
                                             : tridiag::condition_bound(batch_);
    this->tolerance_ = tridiag::tolerance<T>(condition_, batch_.dims.n);
    this->sized(s_.variants, tridiag::bytes_per_solve(batch_.dims, Base::kBytes));
    residents_.emplace(batch_, gold_, condition_, *stream_);
  }

  double units_per_run() const override { return static_cast<double>(batch_.dims.size()); }

  InputError nothing_to_time() const override {
    return InputError(this->t_.source_of("sweep.variants"), "sweep.variants",
                      "no listed variant, threads and chunk can solve " + this->what_);
  }

 private:
  Measurement measure_launch(const Launch& launch) override {
    auto& on_device = residents_->in(tridiag::required_layout(launch.variant));
    tridiag::DeviceBatch<T>& device = on_device.batch;
    RowSteps steps;
    steps.method = tridiag::method_of(launch);
    steps.poison = [&] { device.poison(); };
    steps.run = [&] { device.solve(launch); };
    steps.check = [&] {
      return checked(device.launch(), [&] { device.check(); },
                     [&] { return residents_->agreement(on_device); });
    };
    steps.time = timed_on(device.stream(), s_.repeats);
    return measured(steps);
  }

  tridiag::Batch<T> batch_;  // contiguous
  std::optional<tridiag::ResidentBatches<T>> residents_;  // made in prepare(), beside stream_
};

// The sweep of another kind's batch (drawn, read, or one step of a heat ring): each variant that
// solves the kind (variants_for) over the listed threads and chunks, against the kind's byte
// floor (kind_bytes_per_solve) at the copy bandwidth, each launch checked against the kind's gold.
template <class T>
class KindStudy final : public BatchStudy<T> {
  using Base = BatchStudy<T>;
  using Base::checked, Base::condition_, Base::gold_, Base::p_, Base::s_, Base::stream_;

 public:
  using Base::Base;

  void prepare() override {
    batch_ = p_.problem == Problem::random
                 ? tridiag::random_kind_batch<T>({p_.kind, p_.random.n, p_.random.systems, p_.rhs},
                                                 p_.random.seed)
             : p_.problem == Problem::file
                 ? tridiag::read_kind_batch_part<T>(p_.input, p_.kind, p_.rhs, 0, 1).batch
                 : tridiag::heat_ring_step<T>(p_.heat);
    const tridiag::KindDims& k = batch_.dims;
    this->n_ = k.n;
    this->systems_ = k.systems;
    this->what_ = tridiag::extent(k);
    if (k.kind == tridiag::Kind::multi_rhs)
      this->rhs_ = " x " + std::to_string(k.rhs) + " right-hand sides";
    this->fits(tridiag::footprint(k, Base::kBytes, true));
    gold_ = tridiag::solve_kind_gold(batch_);
    condition_ = tridiag::condition_bound(batch_);
    this->tolerance_ = tridiag::kind_tolerance<T>(k, condition_);
    const std::vector<tridiag::Variant> solvers = tridiag::variants_for(p_.kind);
    std::vector<tridiag::Variant> variants;
    for (tridiag::Variant v : s_.variants)
      if (std::find(solvers.begin(), solvers.end(), v) != solvers.end()) variants.push_back(v);
    this->sized(variants, tridiag::kind_bytes_per_solve(k, Base::kBytes));
    resident_.emplace(batch_, *stream_);
  }

  double units_per_run() const override {
    return static_cast<double>(batch_.dims.systems * batch_.dims.rhs_width());
  }

  InputError nothing_to_time() const override {
    std::string names;
    for (tridiag::Variant v : tridiag::variants_for(p_.kind))
      names += (names.empty() ? "" : ", ") + std::string(name(v));
    return InputError(this->t_.source_of("sweep.variants"), "sweep.variants",
                      "no listed variant, threads and chunk can solve " + this->what_ + " (" +
                          names + " solve them)");
  }

 private:
  void write_batch_attributes(io::ResultFile& out) const override {
    out.set_attribute("/sweep", "kind", std::string(name(batch_.dims.kind)));
    out.set_attribute("/sweep", "rhs", std::int64_t{batch_.dims.rhs});
  }

  // The solver is made, and the batch uploaded in its layout, inside the row's poison step, so
  // that a launch the device refuses there fails only its row. The re-check asks the device
  // whether a timed solve failed; the first check's agreement stands otherwise.
  Measurement measure_launch(const Launch& launch) override {
    std::optional<tridiag::KindSolver<T>> solver;
    Agreement first;
    const auto check_device = [&] { solver->check(*stream_); };
    RowSteps steps;
    steps.method = tridiag::method_of(launch);
    steps.poison = [&] {
      solver.emplace(launch, batch_.dims);
      resident_->poison(*solver);
    };
    steps.run = [&] { resident_->solve(*solver); };
    steps.check = [&] {
      first = checked(solver->launch(), check_device, [&] {
        return tridiag::kind_agreement(resident_->x(), gold_, batch_.dims, condition_);
      });
      return first;
    };
    steps.recheck = [&] { return checked(solver->launch(), check_device, [&] { return first; }); };
    steps.time = timed_on(*stream_, s_.repeats);
    return measured(steps);
  }

  tridiag::KindBatch<T> batch_;  // contiguous
  std::optional<tridiag::ResidentKindBatch<T>> resident_;
};

}  // namespace

std::unique_ptr<Study> make_tridiag_study(io::ParamTable& t, TridiagFile file) {
  if (file.params.kind != tridiag::Kind::general)
    return study_in_precision<KindStudy>(t, std::move(file));
  return study_in_precision<GeneralStudy>(t, std::move(file));
}

}  // namespace parasol::app
