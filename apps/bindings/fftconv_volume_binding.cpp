#include "apps/bindings/fftconv_volume_binding.hpp"

#include <algorithm>

#include "apps/bindings/fftconv_result.hpp"
#include "io/xdmf.hpp"
#include "apps/solver_parts.hpp"
#include "apps/solver_run.hpp"
#include "kernels/device.hpp"
#include "kernels/phase_timer.hpp"
#include "solvers/fftconv/check.hpp"
#include "solvers/fftconv/volume.hpp"
#include "kernels/finite.hpp"

namespace parasol::app::fftconv_volume {
namespace {

using fftconv::Params;
using fftconv::Variant;
using fftconv::VolumeProblem;
namespace res = fftconv_result;

std::vector<std::int64_t> extent_attribute(const fftconv::Extent3& e) {
  return {e.depth, e.rows, e.cols};
}

template <class T>
class VolumeRun final : public SolverRun<Params> {
 public:
  using SolverRun::SolverRun;

  // A volume's /method holds nothing: it runs the variant given, which /output@variant names.
  void write_method(io::ResultFile& /*out*/) const override {}

  void prepare(const RunSetup& setup) override {
    take(setup);
    if (ranks() > 1) {
      const std::string key = fftconv::size_key(p_);
      throw InputError(t_.source_of(key), key,
                       "a volume runs on one rank; run it without a launcher");
    }
    const VolumeProblem q = sourced(t_, [&] { return fftconv::volume_problem_of<T>(p_); });
    require_needs(t_, fftconv::volume_memory_needs(p_, q, sizeof(T), gpu_, !gpu_ || check_));
    ops_ = fftconv::load_volume<T>(p_, q);
  }

  std::string describe() const override {
    return fftconv::describe_volume(p_, ops_.problem) + "; " + ran(std::string(name(p_.variant)));
  }

  std::vector<std::filesystem::path> sidecars(const std::filesystem::path& result) const override {
    return {io::xdmf_path_for(result)};
  }

  void solve(PhaseTimer& timings, io::ResultFile* /*out*/) override {
    try {
      out_ = fftconv::convolve_volume(ops_, p_.variant, gpu_);
    } catch (const InputError& e) {
      throw sourced(t_, fftconv::rephrased(p_, e));
    }
    if (gpu_) timings.add("setup", out_.timings.setup);
    if (gpu_) add_device_phases(timings, out_.timings);
    else timings.add("compute", out_.timings.compute);
    finite_range("fftconv: the output", out_.output, low_, high_);
  }

  void report(io::ResultFile& out) override {
    const double compute_s = out_.timings.compute;
    const double rate = compute_s > 0 ? work() / compute_s : 0;
    out.set_attribute("/timings", "gsamples_per_s", 1e-9 * rate);
    // The describe() line names the CPU gold solver; a GPU run names the variant that ran.
    std::string who;
    if (gpu_) {
      who = "ran " + std::string(name(out_.ran));
      if (out_.ran == Variant::r2c)
        who += out_.chunks == 1 ? " (whole volume)"
                                : " (" + std::to_string(out_.chunks) + " chunks along z)";
      who += ": ";
    }
    say(formatted("%soutput from %.6g to %.6g; %.3g s, %.3g Gsamples/s", who.c_str(), low_,
                  high_, compute_s, 1e-9 * rate));
  }

  double work() const override { return static_cast<double>(ops_.problem.signal.size()); }
  Reproducibility reproducibility() const override { return res::reproducibility(gpu_); }

  Agreement check() override {
    std::vector<double>& gold = out_.gold;
    if (gold.empty()) gold = fftconv::convolve_gold(ops_.problem, ops_.signal, ops_.filter);
    return fftconv::agreement(out_.output, gold, ops_.problem);
  }

  void write(Output& out) override {
    const VolumeProblem& q = ops_.problem;
    const fftconv::Extent3 e = fftconv::output_extent(q);
    io::ResultFile& file = *out.file;
    file.write_field("/output", out_.output.data(), fftconv::volume_dims(e));
    file.set_attribute("/output", "mode", std::string(name(q.mode)));
    file.set_attribute("/output", "operation", std::string(name(q.operation)));
    file.set_attribute("/output", "variant", gpu_ ? std::string(name(out_.ran)) : "cpu-gold");
    file.set_attribute("/output", "layout", std::string(fftconv::kVolumeLayout));
    file.set_attribute("/output", "units", std::string(fftconv::kOutputUnits));
    file.set_attribute("/output", "signal_extent", extent_attribute(q.signal));
    file.set_attribute("/output", "filter_extent", extent_attribute(q.filter));
    file.set_attribute("/output", "offset", extent_attribute(fftconv::output_offset(q)));
    if (gpu_ && out_.ran == Variant::r2c) file.set_attribute("/output", "chunks", out_.chunks);
    res::write_volume_inputs(file, p_, ops_);
    // On the signal's grid, where the output's first sample lies (fftconv::output_origin).
    io::UniformGrid3 grid;
    grid.points = {static_cast<std::uint64_t>(e.cols), static_cast<std::uint64_t>(e.rows),
                   static_cast<std::uint64_t>(e.depth)};
    grid.origin = fftconv::output_origin(q);
    const std::filesystem::path& path = file.path();
    out.sidecars.push_back({io::xdmf_path_for(path),
                            io::xdmf_text(path.filename().string(), grid,
                                          {"/output", "output", int(sizeof(T))})});
  }

 private:
  fftconv::VolumeOperands<T> ops_;
  fftconv::VolumeOutput<T> out_;
  double low_ = 0, high_ = 0;
};

}  // namespace

std::unique_ptr<Run> make_run(io::ParamTable& t, Params p) {
  const bool single = p.precision == fftconv::Precision::single;
  return in_precision<Run, VolumeRun>(single, t, std::move(p));
}

}  // namespace parasol::app::fftconv_volume
