// fftconv's binding: its parameters; a run on operands held whole (on the GPU, or by the CPU
// gold) or streamed in pieces with the output written to the result file as it comes; and its
// sweep over variants on operands resident on the device. The operands are made or read by
// solvers/fftconv/inputs.hpp, and written back by fftconv_result.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <optional>

#include "apps/bindings/fftconv_result.hpp"
#include "apps/bindings/fftconv_volume_binding.hpp"
#include "io/read_keys.hpp"
#include "io/spill_file.hpp"
#include "io/streamed_dataset.hpp"
#include "apps/progress.hpp"
#include "apps/solver_parts.hpp"
#include "apps/solver_run.hpp"
#include "kernels/device.hpp"
#include "solvers/fftconv/check.hpp"
#include "solvers/fftconv/keys.hpp"
#include "solvers/fftconv/share.hpp"
#include "solvers/fftconv/study.hpp"
#include "kernels/finite.hpp"

namespace parasol::app {
namespace {

using fftconv::Extent;
using fftconv::Params;
using fftconv::Problem;
using fftconv::Variant;
namespace res = fftconv_result;
using Clock = std::chrono::steady_clock;

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

double samples(std::int64_t count, const Extent& e) {
  return static_cast<double>(count) * static_cast<double>(e.size());
}

// The gold of a whole problem, with its progress on a terminal.
template <class T>
std::vector<double> gold_of(const fftconv::Operands<T>& ops) {
  ProgressLine line("gold output sample", "samples", 1);
  return fftconv::convolve_gold(ops.problem, ops.signal, ops.filter,
                                [&](const fftconv::Progress& pr) {
                                  line.update(pr.done, pr.total, pr.seconds);
                                });
}

// One run: whole (the operands and output held on the host, the GPU's convolve_gpu or the
// gold) or streamed (the output written to the result file piece by piece as it comes, and with
// --check judged against gold windows as it goes, that time charged to the check).
template <class T>
class FftconvRun final : public SolverRun<Params> {
 public:
  using SolverRun::SolverRun;

  void write_method(io::ResultFile& out) const override {
    if (auto_.file.empty()) return;
    out.set_attribute("/method", "chosen_by", auto_.chosen_by());
    out.set_attribute("/method", "autotune_file", auto_.file.string());
  }

  void prepare(const RunSetup& setup) override {
    take(setup);
    const Problem q = sourced(t_, [&] { return fftconv::problem_of<T>(p_); });
    whole_ = q;
    // "auto": the variant (and overlap-save's block) stored for this problem, or the built-in
    // choice (and a note on stderr) when none is.
    if (looks_up_choice() && ranks() == 1)
      auto_ = choose_stored(fftconv::method_axes(p_), p_, autotune_file_,
                            fftconv_key(q, sizeof(T)), auto_picks(q, int{sizeof(T)}));
    method_ = {p_.variant, p_.block};
    if (ranks() > 1) return prepare_share(q);
    require_needs(t_, fftconv::memory_needs(p_, q, sizeof(T), gpu_, !gpu_ || check_));
    ops_ = fftconv::load_operands<T>(p_, q, fftconv::draws_on_device(p_, gpu_, check_));
  }

  std::string describe() const override {
    const char* streamed = p_.streamed ? (gpu_ ? " streamed" : ", streamed") : "";
    return fftconv::describe(p_, ops_.problem) + "; " +
           (gpu_ ? std::string(name(p_.streamed ? Variant::overlap_save : p_.variant)) +
                       streamed + (auto_.file.empty() ? "" : auto_.described()) + " on " +
                       current_device().name
                 : std::string("CPU gold solver") + streamed);
  }

  void solve(PhaseTimer& timings, io::ResultFile* out) override {
    if (p_.streamed && !share_) return solve_streamed(timings, *out);
    if (range()) {
      solve_range(timings);
    } else if (gpu_) {
      result_ = rephrasing([&] {
        return ops_.drawn ? fftconv::convolve_gpu(ops_.problem, method_, p_.signal,
                                                  ops_.first_drawn, ops_.filter)
                          : fftconv::convolve_gpu(ops_.problem, method_, ops_.signal, ops_.filter);
      });
      add_phases(timings, true);
    } else {
      const auto started = Clock::now();
      gold_ = gold_of(ops_);
      result_.output = rounded<T>(gold_);
      result_.timings.compute = seconds_since(started);
      add_phases(timings, false);
    }
    finite_range("fftconv: the output", result_.output, low_, high_);
    // The output's range and the slowest rank's time: three numbers a rank.
    combine_over_ranks(timings, [&](comm::Context& context) {
      const bool some = share_->count > 0;
      low_ = context.all_reduce(some ? low_ : INFINITY, comm::Op::min);
      high_ = context.all_reduce(some ? high_ : -INFINITY, comm::Op::max);
      result_.timings.compute = context.all_reduce(result_.timings.compute, comm::Op::max);
    });
  }

  void report(io::ResultFile& out) override {
    const bool streamed = p_.streamed;
    const double seconds = streamed ? total_s_ : result_.timings.compute;
    const double rate = seconds > 0 ? work() / seconds : 0;
    out.set_attribute("/timings", "gsamples_per_s", 1e-9 * rate);
    if (streamed) out.set_attribute("/timings", "total_s", total_s_);
    write_ranks(out, range() ? "ranges of overlap-save blocks" : "whole signals");
    // The describe() line names the CPU gold solver; a GPU run names the variant that ran.
    const std::string who = gpu_ ? "ran " + std::string(name(variant())) + ": " : "";
    if (streamed)
      say(formatted("%sstreamed: output from %.6g to %.6g; %.3g s (reading %.3g s, writing "
                    "%.3g s), %.3g Gsamples/s",
                    who.c_str(), low_, high_, total_s_, read_s_, write_s_, 1e-9 * rate));
    else
      say(formatted("%soutput from %.6g to %.6g; %.3g s, %.3g Gsamples/s", who.c_str(), low_,
                    high_, seconds, 1e-9 * rate));
  }

  double work() const override { return samples(whole_.batch, whole_.signal); }
  Reproducibility reproducibility() const override { return res::reproducibility(gpu_); }

  // Across ranks each judges its share against the gold of the same samples, and the
  // differences are merged in rank order.
  Agreement check() override {
    if (ranks() == 1) {
      if (p_.streamed) return difference_.agreement(fftconv::tolerance<T>(ops_.problem));
      if (gold_.empty()) gold_ = gold_of(ops_);
      return fftconv::agreement(result_.output, gold_, ops_.problem);
    }
    fftconv::GoldDifference mine;
    if (spill_) {
      mine = difference_;  // judged piece by piece as the run went
    } else if (range()) {
      fftconv::gold_in_pieces<T>(whole_, ops_.filter, share_->first, share_->count, reader(),
                                 [&](std::int64_t offset, const std::vector<double>& gold) {
                                   mine.add(result_.output.data() + (offset - share_->first),
                                            gold);
                                 });
    } else {
      if (gold_.empty()) gold_ = gold_of(ops_);
      mine.add(result_.output.data(), gold_);
    }
    return fftconv::agreement_over_ranks<T>(*context_, mine, whole_);
  }

  // Across ranks each rank's rows of /output (signals, or samples of the one signal); rank 0 the
  // attributes, and the inputs when output.input asks for them.
  void write(Output& out) override {
    const Problem& q = whole_;
    const std::vector<std::uint64_t> dims =
        fftconv::stored_dims(q.batch, fftconv::output_extent(q), q.is_2d());
    if (!share_) {
      if (!p_.streamed) out.file->write_field("/output", result_.output.data(), dims);
      describe_output(*out.file, p_.streamed);
      res::write_inputs(*out.file, p_, ops_, source_ ? &*source_ : nullptr);
      return;
    }
    const std::int64_t first = share_->first, count = share_->count;
    if (spill_) {
      out.create<T>("/output", dims);
      std::vector<T> run;
      for (std::int64_t at = 0; at < count; at += io::StreamedDataset<T>::kRunValues) {
        run.resize(static_cast<std::size_t>(
            std::min(io::StreamedDataset<T>::kRunValues, count - at)));
        spill_->read(static_cast<std::uint64_t>(at) * sizeof(T), run.data(),
                     run.size() * sizeof(T));
        out.write_block("/output", {static_cast<std::uint64_t>(first + at)}, {run.size()},
                        run.data());
      }
    } else {
      out.write_rows("/output", dims, static_cast<std::uint64_t>(first),
                     static_cast<std::uint64_t>(count), result_.output.data());
    }
    if (!range()) res::write_input_share(out, p_, q, ops_, first);
    if (out.file == nullptr) return;
    describe_output(*out.file, spill_.has_value());
    if (range()) res::write_inputs(*out.file, loading_, ops_, &*source_);
  }

 private:
  bool range() const { return share_ && share_->cut == fftconv::Cut::range; }

  // A solver's InputError said against the parameter file's keys.
  InputError said(const InputError& e) const { return sourced(t_, fftconv::rephrased(p_, e)); }
  template <class F>
  auto rephrasing(F f) const -> decltype(f()) {
    try {
      return f();
    } catch (const InputError& e) {
      throw said(e);
    }
  }

  // A run's phases on the host and the device; with `setup` the first convolution, which makes
  // the cuFFT plans, kept out of compute.
  void add_phases(PhaseTimer& timings, bool setup) const {
    if (setup) timings.add("setup", result_.timings.setup);
    add_device_phases(timings, result_.timings);
  }

  // /output's attributes: what was computed, by what, and where it lies in the full convolution.
  void describe_output(io::ResultFile& out, bool streamed) const {
    const Problem& q = whole_;
    res::write_problem(out, "/output", q);
    out.set_attribute("/output", "variant", gpu_ ? std::string(name(variant())) : "cpu-gold");
    out.set_attribute("/output", "layout",
                      fftconv::layout_of(q.batch > 1, q.is_2d(), "signal", "sample"));
    out.set_attribute("/output", "offset", fftconv::rows_cols(fftconv::output_offset(q)));
    if (streamed) out.set_attribute("/output", "streamed", true);
    out.set_attribute("/output", "units", std::string(fftconv::kOutputUnits));
  }

  Variant variant() const {
    if (share_ && share_->in_memory) return method_.variant;
    return p_.streamed || range() ? Variant::overlap_save : result_.variant;
  }

  // A rank's share of the problem (fftconv::share_of) and its operands. The variant is chosen
  // for the whole problem, so every rank runs the one a single rank would.
  void prepare_share(const Problem& q) {
    try {
      share_ = fftconv::share_of(q, method_, sizeof(T), gpu_, p_.streamed, rank(), ranks());
    } catch (const InputError& e) {
      if (e.key() != "ranks") throw said(e);
      const std::string key = fftconv::cut_key(p_, q);
      throw InputError(t_.source_of(key), key, e.expected());
    }
    method_ = share_->method;
    if (!range()) {
      require_needs(t_,
                    fftconv::memory_needs(p_, share_->part(q), sizeof(T), gpu_, !gpu_ || check_));
      ops_ = fftconv::load_share<T>(p_, q, share_->first, share_->count,
                               fftconv::draws_on_device(p_, gpu_, check_));
      return;
    }
    // The signal is read piece by piece as the blocks need it (a file's by hyperslab), as a
    // streamed run reads it.
    loading_ = p_;
    loading_.streamed = true;
    require_needs(t_, fftconv::memory_needs(loading_, q, sizeof(T), gpu_, !gpu_ || check_));
    ops_ = fftconv::load_operands<T>(loading_, q);
    source_.emplace(loading_, ops_, fftconv::operand_files<T>());
    if (share_->in_memory) {
      // The samples this rank's blocks read, into memory.
      const auto [begin, end] = fftconv::range_window(q, method_, static_cast<int>(sizeof(T)),
                                                      share_->first, share_->count);
      window_first_ = begin;
      window_.resize(static_cast<std::size_t>(end - begin));
      if (end > begin) source_->read(begin, end - begin, window_.data());
    }
    // A streamed run's share goes to a spill file beside the result as it comes, and into the
    // result when the ranks write: no rank holds more than a piece.
    if (p_.streamed) spill_.emplace(output_.parent_path());
  }

  fftconv::SignalReader<T> reader() const {
    return [this](std::int64_t offset, std::int64_t count, T* into) {
      source_->read(offset, count, into);
    };
  }

  // With --check, a streamed piece of the output judged against the gold's window as it comes.
  void check_piece(std::int64_t offset, std::int64_t count, const T* values) {
    const auto checking = Clock::now();
    difference_.add(values, fftconv::gold_window(whole_, ops_.filter, offset, count, reader()));
    check_s_ += seconds_since(checking);
  }

  // Output samples [first, first + count) of the one long signal to `sink` piece by piece
  // (fftconv::convolve_pieces; with `judge`, the CPU's rounding judged as it goes).
  void convolve_pieces(const fftconv::SignalReader<T>& read, const fftconv::OutputWriter<T>& sink,
                       std::int64_t first, std::int64_t count, bool judge) {
    rephrasing([&] {
      fftconv::convolve_pieces<T>(whole_, ops_.filter, read, sink, first, count, gpu_, p_.block,
                                  p_.piece, judge ? &difference_ : nullptr);
    });
  }

  // A rank's range of one long signal's output, into memory (or a spill file when streamed):
  // on the GPU from its window in memory or overlap-save in pieces of method.piece, or the
  // gold's windows on the CPU.
  void solve_range(PhaseTimer& timings) {
    const std::int64_t first = share_->first, count = share_->count;
    if (!spill_) result_.output.assign(static_cast<std::size_t>(count), T(0));
    const auto started = Clock::now();
    low_ = INFINITY;
    high_ = -INFINITY;
    const auto keep = [&](std::int64_t offset, std::int64_t n, const T* values) {
      require_finite("fftconv: the output", values, static_cast<std::size_t>(n));
      if (!spill_) {
        std::copy(values, values + n, result_.output.begin() + (offset - first));
        return;
      }
      for (std::int64_t i = 0; i < n; ++i) {
        low_ = std::min(low_, static_cast<double>(values[i]));
        high_ = std::max(high_, static_cast<double>(values[i]));
      }
      if (check_) check_piece(offset, n, values);
      spill_->append(values, static_cast<std::size_t>(n) * sizeof(T));
    };
    if (share_->in_memory) {
      result_ = rephrasing([&] {
        return fftconv::convolve_range_gpu<T>(whole_, method_, window_, window_first_,
                                              ops_.filter, first, count);
      });
      return add_phases(timings, true);
    }
    convolve_pieces(reader(), keep, first, count, false);
    result_.timings.compute = seconds_since(started) - check_s_;
    result_.variant = Variant::overlap_save;
    timings.add("compute", result_.timings.compute);
    if (check_s_ > 0) timings.add("check", check_s_);
  }

  // Time spent on the check's gold windows goes to the check, not to the convolution's total.
  void solve_streamed(PhaseTimer& timings, io::ResultFile& file) {
    const Problem& q = ops_.problem;
    const std::int64_t length = fftconv::output_extent(q).cols;
    source_.emplace(p_, ops_, fftconv::operand_files<T>());
    io::StreamedDataset<T> output(file, "/output", length);
    ProgressLine line("output sample", "samples", 1);
    const auto started = Clock::now();
    const fftconv::SignalReader<T> read = [&](std::int64_t offset, std::int64_t count, T* into) {
      const auto reading = Clock::now();
      source_->read(offset, count, into);
      read_s_ += seconds_since(reading);
    };
    const auto write = [&](std::int64_t offset, std::int64_t count, const T* values) {
      // Streamed: each piece is judged before it is written; a bad one ends the run with the
      // temporary file, so nothing is kept.
      require_finite("fftconv: the output", values, static_cast<std::size_t>(count));
      if (check_ && gpu_) check_piece(offset, count, values);
      const auto writing = Clock::now();
      output.write(offset, count, values);
      write_s_ += seconds_since(writing);
      line.update(offset + count, length, seconds_since(started));
    };
    convolve_pieces(read, write, 0, length, check_);
    const auto finishing = Clock::now();
    output.finish();
    write_s_ += seconds_since(finishing);
    low_ = output.low();
    high_ = output.high();
    total_s_ = seconds_since(started) - check_s_;
    timings.add("read", read_s_);
    timings.add("compute", total_s_ - read_s_ - write_s_);
    timings.add("write", write_s_);
    if (check_) timings.add("check", check_s_);
  }

  Problem whole_;                        // the whole problem, whatever this rank's share
  std::optional<fftconv::Share> share_;  // across ranks: this rank's
  fftconv::Options method_;              // across ranks: chosen for the whole problem
  Params loading_;                       // a long signal's: read as a streamed run reads it
  std::vector<T> window_;  // the samples an in-memory range's blocks read, from window_first_
  std::int64_t window_first_ = 0;
  std::optional<io::SpillFile> spill_;  // a streamed share, until the ranks write
  fftconv::Operands<T> ops_;
  fftconv::Result<T> result_;                  // whole runs
  std::vector<double> gold_;                   // whole runs: the CPU's output, or the check's
  std::optional<fftconv::SignalSource<T>> source_;  // streamed runs
  fftconv::GoldDifference difference_;         // streamed runs with --check
  double low_ = 0, high_ = 0, total_s_ = 0, read_s_ = 0, write_s_ = 0;
  double check_s_ = 0;  // a streamed run's time on the gold's windows, charged to the check
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
    return samples(study_->problem().batch, study_->problem().signal);
  }

  void write_attributes(io::ResultFile& out) const override {
    const Problem& q = study_->problem();
    out.set_attribute("/sweep", "auto_variant", std::string(name(study_->chosen())));
    res::write_problem(out, "/sweep", q);
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
  if (file.params.is_volume()) return fftconv_volume::make_run(t, std::move(file.params));
  // "auto" given in so many words looks for a stored choice first (a GPU run on one rank); the
  // default (auto too) goes straight to the built-in choice, without a note on every run.
  file.automatic = file.params.variant == Variant::automatic && t.has("method.variant") &&
                   !file.params.streamed;
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
