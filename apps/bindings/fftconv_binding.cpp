// fftconv's binding: what a run reads, says and writes, its part solved by the solver
// (fftconv::RunPart: the output held whole, or streamed piece by piece; across ranks a share of
// signals or a range of one long signal's output), a volume's run (fftconv::VolumePart), and the
// sweep over variants on operands resident on the device (fftconv::VariantStudy).
#include <optional>

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
using fftconv::Problem;
using fftconv::SweepParams;
using fftconv::Variant;

// The parameters and the [sweep] table; a volume's file operands read as volumes.
DeclaredFile<Params, SweepParams> read(io::ParamTable& t, const std::filesystem::path& path) {
  return read_declared(t, fftconv::keys(), fftconv::sweep_keys(), path, [&](Params& p, bool) {
    io::with_sources(t, [&] {
      fftconv::settle_volume_layouts(p, t.has("signal.layout"), t.has("filter.layout"));
    });
  });
}

// The problem class of a choice (fftconv::problem_class) in the run's precision.
io::AutotuneKey fftconv_key(const Problem& q, const Params& p) {
  return autotune_key("fftconv", fftconv::problem_class(q), std::string(name(p.precision)));
}

// What the runs of fftconv's two problems do alike with their part (fftconv::RunPart,
// fftconv::VolumePart, made in prepare() where the part runs: its memory refused, its complaints
// said at their keys' lines and its progress shown here).
template <class Part>
class PartRun : public SolverRun<Params> {
 public:
  using SolverRun::SolverRun;

  // /method holds how "auto" chose, where it looked; a run's variant is /output@variant.
  void write_method(io::ResultFile& out) const override {
    if (looks_up_choice()) write_chosen_by(out);
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

 protected:
  fftconv::Placement placement() const {
    return {rank(), ranks(), gpu_, check_,
            [this](const std::vector<fftconv::MemoryNeed>& needs) { require_needs(t_, needs); },
            [this](const InputError& e) { return sourced(t_, e); },
            [](const char* what, const std::function<void(const fftconv::ProgressCallback&)>& f) {
              ProgressLine line(what, "samples", 1);
              f([&](const fftconv::Progress& pr) { line.update(pr.done, pr.total, pr.seconds); });
            }};
  }

  std::optional<Part> part_;
};

// A 1D or 2D problem's run: its output held in memory, or streamed (StreamedField): straight
// into the result file on one rank, through a spill file across ranks.
template <class T>
class FftconvRun final : public PartRun<fftconv::RunPart<T>> {
 public:
  using Base = PartRun<fftconv::RunPart<T>>;
  using Base::PartRun;

  void prepare(const RunSetup& setup) override {
    take(setup);
    const Problem q = sourced(t_, [&] { return fftconv::problem_of<T>(p_); });
    // "auto": the variant (and overlap-save's block) stored for this problem, or the built-in
    // choice (and a note on stderr) when none is. Across ranks every rank runs the built-in one.
    automatic_ = automatic_ && ranks() == 1;
    if (looks_up_choice())
      auto_ = choose_stored(fftconv::method_axes(p_), p_, autotune_file_,
                            fftconv_key(q, p_), fftconv::auto_fallback(q, int{sizeof(T)}));
    part_.emplace(p_, q, fftconv::Options{p_.variant, p_.block}, this->placement());
  }

  std::string describe() const override {
    return part_->what() + "; " + ran(part_->method()) + (!gpu_ && p_.streamed ? ", streamed" : "");
  }

  void solve(PhaseTimer& timings, io::ResultFile* out) override {
    if (p_.streamed)
      streamed_.emplace(ranks() == 1 ? out : nullptr, output_.parent_path(), "/output",
                        static_cast<std::int64_t>(part_->output_dims()[0]));
    part_->solve(timings, {[this](std::int64_t offset, std::int64_t count, const T* values) {
                             streamed_->write(offset, count, values);
                           },
                           [this] { streamed_->finish(); }});
    this->combine_over_ranks(timings, [&](comm::Context& context) { part_->combine(context); });
  }

  // Each rank's rows of /output (signals, or samples of the one signal) and of /input when cut by
  // signals; rank 0 the attributes, and /input whole otherwise when output.input asks for it.
  void write(Output& out) override {
    const fftconv::RunPart<T>& r = *part_;
    if (!r.streamed())
      out.write_share("/output", r.output_dims(), r.first_row(), r.rows(), r.output().data());
    else if (ranks() > 1)
      streamed_->write_to(out, r.output_dims(), r.first_row());
    r.input_rows([&](const auto&... rows) { out.write_rows(rows...); });
    if (out.file == nullptr) return;
    set_attributes(*out.file, "/output", r.output_attributes());
    r.write_inputs(*out.file);
  }

 private:
  using Base::p_, Base::t_, Base::part_, Base::gpu_, Base::auto_, Base::automatic_, Base::output_;
  using Base::autotune_file_, Base::ranks, Base::looks_up_choice, Base::ran, Base::take;
  std::optional<StreamedField<T>> streamed_;
};

// A volume's run, a sub-solver of fftconv's own: one rank, the variant given, the output a
// [z][row][col] field with its XDMF sidecar on the signal's grid (fftconv::output_origin).
template <class T>
class VolumeRun final : public PartRun<fftconv::VolumePart<T>> {
 public:
  using Base = PartRun<fftconv::VolumePart<T>>;
  using Base::PartRun;

  void prepare(const RunSetup& setup) override {
    take(setup);
    part_.emplace(p_, this->placement());
  }
  std::string describe() const override {
    return part_->what() + "; " + ran(std::string(name(p_.variant)));
  }
  std::vector<std::filesystem::path> sidecars(const std::filesystem::path& result) const override {
    return {io::xdmf_path_for(result)};
  }
  void solve(PhaseTimer& timings, io::ResultFile*) override { part_->solve(timings); }
  void write(Output& out) override {
    out.file->write_field("/output", part_->output().data(), part_->output_dims());
    set_attributes(*out.file, "/output", part_->output_attributes());
    part_->write_inputs(*out.file);
    out.add_xdmf({part_->output_points(), part_->origin()}, {"/output", "output", int(sizeof(T))});
  }

 private:
  using Base::p_, Base::part_, Base::ran, Base::take;
};

// The sweep: each listed variant checked against the gold and timed on one DeviceProblem
// (solvers/fftconv/study.hpp).
template <class T>
class FftconvStudy final : public MethodStudy<Params, SweepParams> {
 public:
  using MethodStudy::MethodStudy;

  void prepare() override {
    const Problem q = sourced(t_, [&] { return fftconv::problem_of<T>(p_); });
    require_needs(t_, fftconv::memory_needs(p_, q, sizeof(T), true, true));
    study_.emplace(q, s_.variants, p_.block, [&] { return fftconv::load_operands<T>(p_, q); });
    configure(s_.variants, [](Params& c, Variant v) { c.variant = v; });
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
    Measurement m = measured(std::move(r.row));
    m.skipped = std::move(r.skipped);
    m.extras = {r.ran};
    return m;
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
  // "auto" given in so many words looks for a stored choice first (a GPU run on one rank); the
  // default (auto too) goes straight to the built-in choice, without a note on every run. A
  // volume runs the variant given.
  const Params& p = file.params;
  file.automatic = !p.is_volume() && p.variant == Variant::automatic && t.has("method.variant") &&
                   !p.streamed;
  if (p.is_volume()) return run_in_precision<VolumeRun>(t, std::move(file));
  return run_in_precision<FftconvRun>(t, std::move(file));
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
