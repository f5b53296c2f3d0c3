// saxpy's binding: what is the solver's own (its summary, its field, its sweep's axis and
// columns, the steps of a sweep row) and nothing the driver does for every solver.
#include <chrono>

#include "apps/solver_run.hpp"
#include "solvers/saxpy/check.hpp"
#include "solvers/saxpy/keys.hpp"
#include "solvers/saxpy/saxpy.hpp"

namespace parasol::app {
namespace {

using saxpy::Params;
using saxpy::SweepParams;

class SaxpyRun final : public SolverRun<Params> {
 public:
  using SolverRun::SolverRun;
  void prepare(const RunSetup& setup) override { take(setup); }
  std::string describe() const override {
    return std::to_string(p_.n) + " elements; " + ran(std::to_string(p_.threads) + " threads");
  }
  void solve(PhaseTimer& timings, io::ResultFile*) override {
    const auto start = std::chrono::steady_clock::now();
    if (gpu_) {
      Stream stream;  // made here: a CPU run has no device to make one on
      saxpy::DeviceProblem device(p_, stream.get());
      device.run(p_.threads);
      y_ = device.download();
    } else {
      gold_ = saxpy::solve_gold(p_);
      y_.assign(gold_.begin(), gold_.end());
    }
    timings.add("compute", seconds_since(start));
  }
  void report(io::ResultFile&) override {}
  Agreement check() override {
    if (gold_.empty()) gold_ = saxpy::solve_gold(p_);
    return saxpy::agreement(p_, y_, gold_);
  }
  void write(Output& out) override {
    const auto n = static_cast<std::uint64_t>(p_.n);
    out.write_part("/fields/y", {n}, {0}, {n}, y_.data());
  }
  Reproducibility reproducibility() const override {
    return {true, "each element is one fma of its own inputs"};
  }

 private:
  std::vector<float> y_;
  std::vector<double> gold_;
};

class SaxpyStudy final : public MethodStudy<Params, SweepParams> {
 public:
  using MethodStudy::MethodStudy;
  void prepare() override {
    // The configurations: the run's Params, each with its axis set.
    configure(saxpy::kSweptThreads, [](Params& c, int threads) { c.threads = threads; });
    stream_.emplace();
    gold_ = saxpy::solve_gold(p_);
    device_.emplace(p_, stream_->get());
    measure_copy_roofline(3.0 * sizeof(float) * static_cast<double>(p_.n));  // x, y in; y out
  }
  std::string describe() const override {
    return std::to_string(p_.n) + " elements; " + copy_described();
  }
  SweepColumns columns() const override {
    return columns_with({"gelements_per_s", "Gelements/s", 11, 2}, copy_roofline(8),
                        {"max_abs_difference", "max|diff|", 11, 3, 'g'});
  }
  // The sweep-row protocol (kernels/sweep_row.hpp): the binding gives the steps, the protocol
  // orders them and decides what a failure does.
  Measurement measure(std::size_t i) override {
    const int threads = configs_[i].threads;
    RowSteps steps;
    steps.method = std::to_string(threads) + " threads";
    steps.poison = [&] { device_->poison(); };
    steps.run = [&] { device_->run(threads); };
    steps.check = [&] { return saxpy::agreement(p_, device_->download(), gold_); };
    steps.time = timed_on(device_->stream(), s_.repeats);
    return measured(steps);
  }
  double units_per_run() const override { return static_cast<double>(p_.n); }
  void write_attributes(io::ResultFile& out) const override { write_copy_bandwidth(out); }
  InputError nothing_to_time() const override {
    return InputError(t_.source(), "sweep", "no block size to time");
  }

 private:
  std::vector<double> gold_;
  std::optional<saxpy::DeviceProblem> device_;
};

DeclaredFile<Params, SweepParams> read(io::ParamTable& t, const std::filesystem::path& path) {
  return read_declared(t, saxpy::keys(), saxpy::sweep_keys(), path);
}

}  // namespace

Binding saxpy_binding() {
  Binding b{"saxpy", "y = a x + y on a vector, the smallest solver", declared_run<read, SaxpyRun>,
            declared_study<read, SaxpyStudy>};
  b.keys = [] { return declared(saxpy::keys(), saxpy::sweep_keys()); };
  b.examples = {"inputs/saxpy.toml"};
  return b;
}

}  // namespace parasol::app
