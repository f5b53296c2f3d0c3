// tridiag's sweep: every variant x threads x chunk on one batch (drawn, read, or one heat step;
// general systems or another kind's: tridiag::SweptBatch) against the copy bandwidth, and the
// autotune choice. A configuration that cannot solve the batch is skipped with its reason; the
// others are measured by the sweep-row protocol (kernels/sweep_row.hpp), each launch checked
// first on an output poisoned with NaN.
#include <optional>

#include "apps/bindings/tridiag_run.hpp"
#include "kernels/device.hpp"
#include "solvers/tridiag/check.hpp"
#include "solvers/tridiag/sweep.hpp"

namespace parasol::app {
namespace {

using tridiag::Launch;

template <class T>
class TridiagStudy final : public SolverStudy<tridiag::Params, tridiag::SweepParams> {
 public:
  using SolverStudy::SolverStudy;

  void prepare() override {
    batch_.emplace(p_, s_, [&](const tridiag::Footprint& f, const std::string& what) {
      require_memory(t_, tridiag::size_key(p_), what + " need", f.device, f.host, true);
    });
    stream_.emplace();
    measure_copy_roofline(batch_->bytes_per_solve());
  }

  std::string describe() const override {
    return batch_->described() + ", " + std::string(name(p_.precision)) + " on " +
           current_device().name + "; " + copy_described() + ", " +
           describe_repeats(s_.repeats, "solves");
  }

  SweepColumns columns() const override {
    return {{{"variant", "variant", 11}, {"threads", "threads", 7}, {"chunk", "chunk", 5}},
            {"gunknowns_per_s", "Gunknowns/s", 11, 2},
            copy_roofline(8),
            {tridiag::kMeasure, "max rel diff", 12, 2, 'g'},
            {}};
  }

  std::vector<std::vector<Cell>> configurations() override {
    return cells_of(batch_->configurations(), [](const tridiag::Configuration& c) {
      const Launch& l = c.launch;
      return std::vector<Cell>{std::string(name(l.variant)), std::int64_t{l.threads},
                               std::int64_t{l.chunk}};
    });
  }

  Measurement measure(std::size_t i) override {
    const tridiag::Configuration& c = batch_->configurations()[i];
    if (!c.skipped.empty()) {
      Measurement m;
      m.skipped = c.skipped;
      return m;
    }
    if (!c.note.empty()) say(c.note);
    return measured(batch_->steps(c.launch, *stream_, s_.repeats, say));
  }

  bool can_autotune() const override { return true; }
  std::optional<io::AutotuneChoice> autotune_choice(std::size_t i) const override {
    const Launch& l = batch_->configurations()[i].launch;
    const tridiag::KindDims& k = batch_->dims();
    return choice_of(autotune_key("tridiag", tridiag::problem_class(p_, k.n, k.systems),
                                  std::string(name(p_.precision))),
                     std::string(name(l.variant)),
                     {{"threads", std::to_string(l.threads)}, {"chunk", std::to_string(l.chunk)}});
  }

  double units_per_run() const override { return batch_->unknowns(); }

  void write_attributes(io::ResultFile& out) const override {
    const tridiag::KindDims& k = batch_->dims();
    write_copy_bandwidth(out);
    out.set_attribute("/sweep", "bytes_per_solve", bytes_);
    out.set_attribute("/sweep", "n", k.n);
    out.set_attribute("/sweep", "systems", k.systems);
    if (k.kind != tridiag::Kind::general) {
      out.set_attribute("/sweep", "kind", std::string(name(k.kind)));
      out.set_attribute("/sweep", "rhs", std::int64_t{k.rhs});
    }
    out.set_attribute("/sweep", "condition_bound", batch_->condition());
    out.set_attribute("/sweep", "check_tolerance", batch_->tolerance());
  }

  InputError nothing_to_time() const override {
    return InputError(t_.source_of("sweep.variants"), "sweep.variants", batch_->unsolvable());
  }

 private:
  std::optional<tridiag::SweptBatch<T>> batch_;  // made in prepare()
};

}  // namespace

std::unique_ptr<Study> make_tridiag_study(io::ParamTable& t, TridiagFile file) {
  return study_in_precision<TridiagStudy>(t, std::move(file));
}

}  // namespace parasol::app
