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

template <class T>
class TridiagStudy final : public MethodStudy<tridiag::Params, tridiag::SweepParams> {
 public:
  using MethodStudy::MethodStudy;

  void prepare() override {
    batch_.emplace(p_, s_, [&](const tridiag::Footprint& f, const std::string& what) {
      require_memory(t_, tridiag::size_key(p_), what + " need", f.device, f.host, true);
    });
    stream_.emplace();
    measure_copy_roofline(batch_->bytes_per_solve());
    configure(batch_->configurations(), [](tridiag::Params& c, const tridiag::Configuration& r) {
      c.variant = r.launch.variant;
      c.threads = r.launch.threads;
      c.chunk = r.launch.chunk;
    });
  }

  std::string describe() const override {
    return batch_->described() + ", " + std::string(name(p_.precision)) + " on " +
           current_device().name + "; " + copy_described() + ", " +
           describe_repeats(s_.repeats, "solves");
  }

  SweepColumns columns() const override {
    return columns_with({"gunknowns_per_s", "Gunknowns/s", 11, 2}, copy_roofline(8),
                        {tridiag::kMeasure, "max rel diff", 12, 2, 'g'});
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
  io::AutotuneKey choice_key() const override {
    const tridiag::KindDims& k = batch_->dims();
    return autotune_key("tridiag", tridiag::problem_class(p_, k.n, k.systems),
                        std::string(name(p_.precision)));
  }

 private:
  std::optional<tridiag::SweptBatch<T>> batch_;  // made in prepare()
};

}  // namespace

std::unique_ptr<Study> make_tridiag_study(io::ParamTable& t, TridiagFile file) {
  return study_in_precision<TridiagStudy>(t, std::move(file));
}

}  // namespace parasol::app
