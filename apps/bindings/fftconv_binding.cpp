// fftconv's binding: what a run reads, says and writes, its part solved by the solver (a 1D or 2D
// problem's, whole, streamed or cut among ranks, or a volume's: solvers/fftconv/run.hpp), and the
// sweep over variants on operands resident on the device (fftconv::VariantStudy).
#include <optional>
#include <type_traits>

#include "apps/progress.hpp"
#include "apps/solver_parts.hpp"
#include "apps/solver_run.hpp"
#include "io/xdmf.hpp"
#include "solvers/fftconv/keys.hpp"
#include "solvers/fftconv/run.hpp"
#include "solvers/fftconv/study.hpp"

namespace parasol::app {
namespace {

using fftconv::Params;
using fftconv::SweepParams;

// The parameters and the [sweep] table; a volume's file operands read as volumes.
DeclaredFile<Params, SweepParams> read(io::ParamTable& t, const std::filesystem::path& path) {
  return read_declared(t, fftconv::keys(), fftconv::sweep_keys(), path, [&](Params& p, bool) {
    io::with_sources(t, [&] {
      fftconv::settle_volume_layouts(p, t.has("signal.layout"), t.has("filter.layout"));
    });
  });
}

// The problem class of a choice (fftconv::problem_class) in the run's precision.
io::AutotuneKey fftconv_key(const fftconv::Problem& q, const Params& p) {
  return autotune_key("fftconv", fftconv::problem_class(q), std::string(name(p.precision)));
}

// Where a run or sweep runs: its memory refused, its complaints said at their keys' lines and its
// progress shown here.
fftconv::Placement placement_of(const io::ParamTable& t, int rank, int ranks, bool gpu,
                                bool check) {
  return {rank, ranks, gpu, check,
          [&t](const std::vector<fftconv::MemoryNeed>& needs) { require_needs(t, needs); },
          [&t](const InputError& e) { return sourced(t, e); },
          [](const char* what, const std::function<void(const fftconv::ProgressCallback&)>& f) {
            ProgressLine line(what, "samples", 1);
            f([&](const fftconv::Progress& pr) { line.update(pr.done, pr.total, pr.seconds); });
          }};
}

// A run of either problem from its part: a 1D or 2D one's (fftconv::RunPart), its output held or
// streamed (StreamedField: into the result file on one rank, a spill file across ranks), or a
// volume's (fftconv::VolumePart, a sub-solver: one rank, the variant given, an XDMF sidecar).
template <class T, class Part>
class FftconvRun final : public SolverRun<Params> {
 public:
  using SolverRun::SolverRun;

  void prepare(const RunSetup& setup) override {
    take(setup);
    const fftconv::Placement where = placement_of(t_, rank(), ranks(), gpu_, check_);
    if constexpr (std::is_same_v<Part, fftconv::VolumePart<T>>) {
      part_.emplace(p_, where);
    } else {
      const fftconv::Problem q = sourced(t_, [&] { return fftconv::problem_of<T>(p_); });
      // "auto": the variant (and overlap-save's block) stored for this problem, or the built-in
      // choice (and a note on stderr) when none is. Across ranks every rank runs the built-in one.
      automatic_ = automatic_ && ranks() == 1;
      if (looks_up_choice())
        auto_ = choose_stored(fftconv::method_axes(p_), p_, autotune_file_, fftconv_key(q, p_),
                              fftconv::auto_fallback(q, int{sizeof(T)}));
      part_.emplace(p_, q, fftconv::Options{p_.variant, p_.block}, where);
    }
  }
  std::string describe() const override {
    return part_->what() + "; " + ran(part_->method()) + (!gpu_ && p_.streamed ? ", streamed" : "");
  }
  std::vector<std::filesystem::path> sidecars(const std::filesystem::path& result) const override {
    if (p_.is_volume()) return {io::xdmf_path_for(result)};
    return {};
  }
  // /method holds how "auto" chose, where it looked; a run's variant is /output@variant.
  void write_method(io::ResultFile& out) const override {
    if (looks_up_choice()) write_chosen_by(out);
  }

  void solve(PhaseTimer& timings, io::ResultFile* out) override {
    if (p_.streamed)
      streamed_.emplace(ranks() == 1 ? out : nullptr, output_.parent_path(), "/output",
                        static_cast<std::int64_t>(part_->output_dims()[0]));
    part_->solve(timings, {[this](auto... piece) { streamed_->write(piece...); },
                           [this] { streamed_->finish(); }});
    combine_over_ranks(timings, [&](comm::Context& context) { part_->combine(context); });
  }
  void report(io::ResultFile& out) override {
    const auto [line, timings] = part_->summary();
    set_attributes(out, "/timings", timings);
    write_ranks(out, part_->decomposition());
    say(line);
  }
  double work() const override { return part_->samples(); }
  Reproducibility reproducibility() const override {
    return {true, fftconv::reproducibility_because(gpu_)};
  }
  Agreement check() override { return part_->check(*context_); }

  // Each rank's rows of /output (signals, or samples of the one signal) and of /input when cut by
  // signals; rank 0 the attributes, and /input whole otherwise when output.input asks for it.
  void write(Output& out) override {
    const Part& r = *part_;
    if (!r.streamed())
      out.write_share("/output", r.output_dims(), r.first_row(), r.rows(), r.output().data());
    else if (ranks() > 1)
      streamed_->write_to(out, r.output_dims(), r.first_row());
    r.input_rows([&](const auto&... rows) { out.write_rows(rows...); });
    if (out.file == nullptr) return;
    set_attributes(*out.file, "/output", r.output_attributes());
    r.write_inputs(*out.file);
    if (const auto grid = r.grid())
      out.add_xdmf({grid->points, grid->origin}, {"/output", "output", int(sizeof(T))});
  }

 private:
  std::optional<Part> part_;
  std::optional<StreamedField<T>> streamed_;
};
template <class T> using LineRun = FftconvRun<T, fftconv::RunPart<T>>;
template <class T> using VolumeRun = FftconvRun<T, fftconv::VolumePart<T>>;

// The sweep: each listed variant checked against the gold and timed (fftconv::VariantStudy).
template <class T>
class FftconvStudy final : public MethodStudy<Params, SweepParams> {
 public:
  using MethodStudy::MethodStudy;

  void prepare() override {
    study_.emplace(p_, s_.variants, placement_of(t_, 0, 1, true, true));
    configure(s_.variants, [](Params& c, fftconv::Variant v) { c.variant = v; });
  }

  std::string describe() const override {
    return fftconv::describe(p_, study_->problem()) + " on " + current_device().name + "; " +
           describe_repeats(s_.repeats, "convolutions") + "; auto picks " +
           std::string(name(study_->chosen()));
  }

  SweepColumns columns() const override {
    return columns_with({"gsamples_per_s", "Gsamples/s", 11, 2}, std::nullopt,
                        {"max_relative_difference", "max rel diff", 12, 2, 'g'},
                        {{"ran", "ran", 12}});
  }

  Measurement measure(std::size_t i) override {
    fftconv::VariantMeasurement r = study_->measure(configs_[i].variant, s_.repeats);
    if (!r.skipped.empty()) return skipped(std::move(r.skipped));
    return measured(std::move(r.row), {r.ran});
  }

  double units_per_run() const override { return study_->samples(); }
  void write_attributes(io::ResultFile& out) const override {
    set_attributes(out, "/sweep", study_->attributes());
  }
  std::optional<io::AutotuneChoice> autotune_choice(std::size_t i) const override {
    auto [variant, axes] = study_->choice(configs_[i].variant);
    return choice_of(fftconv_key(study_->problem(), p_), variant, axes);
  }
  InputError nothing_to_time() const override {
    return InputError(t_.source_of("sweep.variants"), "sweep.variants", study_->unable());
  }

 private:
  std::optional<fftconv::VariantStudy<T>> study_;  // made once a device is known to be there
};

std::unique_ptr<Run> make_run(io::ParamTable& t, const std::filesystem::path& params_path) {
  DeclaredFile<Params, SweepParams> file = read(t, params_path);
  file.automatic = fftconv::asks_stored_choice(file.params, t.has("method.variant"));
  if (file.params.is_volume()) return run_in_precision<VolumeRun>(t, std::move(file));
  return run_in_precision<LineRun>(t, std::move(file));
}

std::unique_ptr<Study> make_study(io::ParamTable& t, const std::filesystem::path& params_path) {
  DeclaredFile<Params, SweepParams> file = read(t, params_path);
  sourced(t, [&] { fftconv::check_sweepable(file.params); });
  return study_in_precision<FftconvStudy>(t, std::move(file));
}

}  // namespace

Binding fftconv_binding() {
  Binding b{"fftconv",
            "convolution and correlation of signals and images with filters through cuFFT, "
            "scipy's modes",
            make_run, make_study};
  b.keys = [] { return declared(fftconv::keys(), fftconv::sweep_keys()); };
  b.across_ranks = true;
  b.examples = {"inputs/fftconv.toml", "inputs/fftconv-2d.toml", "inputs/fftconv-3d.toml",
                "inputs/fftconv-3d-field.toml", "inputs/fftconv-streamed.toml",
                "inputs/fftconv-study.toml"};
  return b;
}

}  // namespace parasol::app
