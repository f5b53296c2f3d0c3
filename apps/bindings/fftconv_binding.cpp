// fftconv's binding: what a run reads, says and writes, its part solved by the solver
// (fftconv::RunPart: the output held whole, or streamed piece by piece; across ranks a share of
// signals or a range of one long signal's output), a volume's run (fftconv::VolumePart), and the
// sweep over variants on operands resident on the device (fftconv::VariantStudy).
#include <optional>

#include "io/read_keys.hpp"
#include "io/xdmf.hpp"
#include "apps/progress.hpp"
#include "apps/solver_parts.hpp"
#include "apps/solver_run.hpp"
#include "kernels/device.hpp"
#include "solvers/fftconv/check.hpp"
#include "solvers/fftconv/keys.hpp"
#include "solvers/fftconv/run.hpp"
#include "solvers/fftconv/study.hpp"

namespace parasol::app {
namespace {

using fftconv::Params;
using fftconv::Problem;
using fftconv::Variant;

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
io::AutotuneKey fftconv_key(const Problem& q, std::size_t element) {
  return autotune_key("fftconv", fftconv::problem_class(q), element == 4 ? "float" : "double");
}

// What "auto" runs when no choice is stored, for the note that says so.
std::string auto_picks(const Problem& q, int element) {
  try {
    return "the variant auto picks (" + std::string(name(fftconv::choose_variant(q, element))) +
           ")";
  } catch (const InputError&) {
    return "the variant auto picks";  // why it cannot pick is said by the run when it gets there
  }
}

// Where a run's part runs, with its memory refused, its complaints said at their keys' lines and
// its progress shown here.
fftconv::Placement placement_of(const io::ParamTable& t, int rank, int ranks, bool gpu,
                                bool check) {
  return {rank, ranks, gpu, check,
          [&t](const std::vector<fftconv::MemoryNeed>& needs) { require_needs(t, needs); },
          [&t](const InputError& e) { return sourced(t, e); },
          [](const char* what, const std::function<void(const fftconv::ProgressCallback&)>& body) {
            ProgressLine line(what, "samples", 1);
            body([&](const fftconv::Progress& pr) { line.update(pr.done, pr.total, pr.seconds); });
          }};
}

// One run (fftconv::RunPart): its output held in memory, or streamed (StreamedField): straight
// into the result file on one rank, through a spill file across ranks.
template <class T>
class FftconvRun final : public SolverRun<Params> {
 public:
  using SolverRun::SolverRun;

  void write_method(io::ResultFile& out) const override {
    if (looks_up_choice()) write_chosen_by(out);
  }

  void prepare(const RunSetup& setup) override {
    take(setup);
    const Problem q = sourced(t_, [&] { return fftconv::problem_of<T>(p_); });
    // "auto": the variant (and overlap-save's block) stored for this problem, or the built-in
    // choice (and a note on stderr) when none is. Across ranks every rank runs the built-in one.
    automatic_ = automatic_ && ranks() == 1;
    if (looks_up_choice())
      auto_ = choose_stored(fftconv::method_axes(p_), p_, autotune_file_,
                            fftconv_key(q, sizeof(T)), auto_picks(q, int{sizeof(T)}));
    part_.emplace(p_, q, fftconv::Options{p_.variant, p_.block},
                  placement_of(t_, rank(), ranks(), gpu_, check_));
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
  std::optional<fftconv::RunPart<T>> part_;
  std::optional<StreamedField<T>> streamed_;
};

// A volume's run (fftconv::VolumePart), a sub-solver of fftconv's own: one rank, the output a
// [z][row][col] field with its XDMF sidecar. Its /method holds nothing: it runs the variant given,
// which /output@variant names.
template <class T>
class VolumeRun final : public SolverRun<Params> {
 public:
  using SolverRun::SolverRun;

  void write_method(io::ResultFile&) const override {}
  void prepare(const RunSetup& setup) override {
    take(setup);
    part_.emplace(p_, placement_of(t_, rank(), ranks(), gpu_, check_));
  }
  std::string describe() const override {
    return part_->what() + "; " + ran(std::string(name(p_.variant)));
  }
  std::vector<std::filesystem::path> sidecars(const std::filesystem::path& result) const override {
    return {io::xdmf_path_for(result)};
  }
  void solve(PhaseTimer& timings, io::ResultFile*) override { part_->solve(timings); }
  void report(io::ResultFile& out) override {
    const auto [line, timings] = part_->summary();
    set_attributes(out, "/timings", timings);
    say(line);
  }
  double work() const override { return part_->samples(); }
  Reproducibility reproducibility() const override {
    return {true, fftconv::reproducibility_because(gpu_)};
  }
  Agreement check() override { return part_->check(); }
  // On the signal's grid, where the output's first sample lies (fftconv::output_origin).
  void write(Output& out) override {
    out.file->write_field("/output", part_->output().data(), part_->output_dims());
    set_attributes(*out.file, "/output", part_->output_attributes());
    part_->write_inputs(*out.file);
    io::UniformGrid3 grid;
    grid.points = part_->output_points();
    grid.origin = part_->origin();
    out.add_xdmf(grid, {"/output", "output", int(sizeof(T))});
  }

 private:
  std::optional<fftconv::VolumePart<T>> part_;
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

  double units_per_run() const override {
    const Problem& q = study_->problem();
    return static_cast<double>(q.batch) * static_cast<double>(q.signal.size());
  }

  void write_attributes(io::ResultFile& out) const override {
    const Problem& q = study_->problem();
    out.set_attribute("/sweep", "auto_variant", std::string(name(study_->chosen())));
    set_attributes(out, "/sweep", fftconv::problem_attributes(q));
    out.set_attribute("/sweep", "check_tolerance", fftconv::tolerance<T>(q));
    out.set_attribute("/sweep", "checked_samples", study_->checked_samples());
  }

  // What --autotune stores (method_axes): the variant that ran (auto's pick, for its row), and
  // the block overlap-save took.
  std::optional<io::AutotuneChoice> autotune_choice(std::size_t i) const override {
    const Variant v = configs_[i].variant;
    const Variant ran = v == Variant::automatic ? study_->chosen() : v;
    io::AutotuneChoice c =
        choice_of(fftconv_key(study_->problem(), sizeof(T)), std::string(name(ran)));
    if (ran == Variant::overlap_save) c.axes = {{"block", std::to_string(p_.block)}};
    return c;
  }

  InputError nothing_to_time() const override {
    const Problem& q = study_->problem();
    return InputError(t_.source_of("sweep.variants"), "sweep.variants",
                      "no listed variant can take this problem (the signal is " +
                          fftconv::extent_text(q.signal) + " and the filter " +
                          fftconv::extent_text(q.filter) + ")");
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
  if (file.params.streamed)
    throw InputError(t.source_of("method.streamed"), "method.streamed",
                     "parasol sweep times convolutions of data held on the device; expected false");
  if (file.params.is_volume()) {
    const std::string key = fftconv::volume_key(file.params);
    throw InputError(t.source_of(key), key,
                     "parasol sweep times 1D and 2D problems; a volume runs with parasol run "
                     "(bench/fftconv_bench times the volume variants)");
  }
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
