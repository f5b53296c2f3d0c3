// fftconv's binding: its parameters; a run on operands held whole (on the GPU, or by the CPU
// gold) or streamed in pieces with the output written to the result file as it comes; and its
// sweep over variants on operands resident on the device. The operands' keys and files are
// fftconv_inputs'.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <future>
#include <optional>

#include "apps/binding.hpp"
#include "apps/bindings/fftconv_inputs.hpp"
#include "apps/bindings/fftconv_volume.hpp"
#include "apps/io/spill_file.hpp"
#include "apps/io/streamed_dataset.hpp"
#include "apps/progress.hpp"
#include "comm/over_ranks.hpp"
#include "kernels/device.hpp"
#include "kernels/timed_runs.hpp"
#include "solvers/fftconv/check.hpp"

namespace parasol::app {
namespace {

using fftconv::Extent;
using fftconv::Params;
using fftconv::Problem;
using fftconv::Variant;
namespace in = fftconv_inputs;
using Clock = std::chrono::steady_clock;

// The output computed at a time by a streamed run on the CPU (the GPU takes method.piece).
constexpr std::int64_t kCpuPiece = std::int64_t{1} << 20;

struct SweepParams {
  std::vector<Variant> variants;  // default: auto, then every variant
  // Timed convolutions per variant, after a warm-up; the median is reported.
  Repeats repeats{10, kSweepMinTime};
};

Params read_params(io::ParamTable& t, const std::filesystem::path& params_path) {
  const Params d;
  Params p;
  p.mode = io::get_choice(t, "problem.mode", std::string(name(d.mode)), fftconv::parse_mode);
  p.operation = io::get_choice(t, "problem.operation", std::string(name(d.operation)),
                               fftconv::parse_operation);
  p.precision = io::get_choice(t, "problem.precision", std::string(name(d.precision)),
                               fftconv::parse_precision);
  in::read_operand_params(t, params_path, p);
  p.variant = io::get_choice(t, "method.variant", std::string(name(d.variant)),
                             fftconv::parse_variant);
  p.block = t.get_int("method.block", d.block);
  p.streamed = t.get_bool("method.streamed", d.streamed);
  p.piece = t.get_int("method.piece", d.piece);
  p.write_input = t.get_bool("output.input", d.write_input);
  return p;
}

SweepParams read_sweep_params(io::ParamTable& t) {
  SweepParams s;
  std::vector<std::string> all = io::names_of(fftconv::kVariants);
  all.insert(all.begin(), std::string(name(Variant::automatic)));
  s.variants = io::get_choices(t, "sweep.variants", all, fftconv::parse_variant);
  if (s.variants.empty())
    throw InputError(t.source_of("sweep.variants"), "sweep.variants",
                     "expected at least one variant");
  s.repeats = get_sweep_repeats(t, s.repeats.at_least);
  return s;
}

std::pair<Params, SweepParams> read_all(io::ParamTable& t, const std::filesystem::path& path) {
  return io::read_checked(t, [&] { return read_params(t, path); },
                          [&] { return read_sweep_params(t); });
}

// The problem class of a choice: the signal's and filter's extents, the batch, the filters, the
// mode and the operation, exactly ("signal=1x16777216,filter=1x1025,batch=1,filters=1,full,
// convolve").
io::AutotuneKey fftconv_key(const Problem& q, std::size_t element) {
  return autotune_key("fftconv",
                      "signal=" + in::extent_text(q.signal) + ",filter=" + in::extent_text(q.filter) +
                          ",batch=" + std::to_string(q.batch) + ",filters=" +
                          std::to_string(q.filters) + "," + std::string(name(q.mode)) + "," +
                          std::string(name(q.operation)),
                      element == 4 ? "float" : "double");
}

double samples(std::int64_t count, const Extent& e) {
  return static_cast<double>(count) * static_cast<double>(e.size());
}

// The gold of a whole problem, with its progress on a terminal.
template <class T>
std::vector<double> gold_of(const in::Operands<T>& ops) {
  ProgressLine line("gold output sample", "samples", 1);
  return fftconv::convolve_gold(ops.problem, ops.signal, ops.filter,
                                [&](const fftconv::Progress& pr) {
                                  line.update(pr.done, pr.total, pr.seconds);
                                });
}

// /output's attributes: what was computed, by what, and where it lies in the full convolution.
void describe_output(io::ResultFile& out, const Problem& q, const std::string& variant) {
  out.set_attribute("/output", "mode", std::string(name(q.mode)));
  out.set_attribute("/output", "operation", std::string(name(q.operation)));
  out.set_attribute("/output", "variant", variant);
  out.set_attribute("/output", "layout", in::layout_of(q.batch > 1, q.is_2d(), "signal", "sample"));
  out.set_attribute("/output", "batch", q.batch);
  out.set_attribute("/output", "filters", q.filters);
  out.set_attribute("/output", "signal_extent", in::rows_cols(q.signal));
  out.set_attribute("/output", "filter_extent", in::rows_cols(q.filter));
  out.set_attribute("/output", "offset", in::rows_cols(fftconv::output_offset(q)));
}

// One run: whole (the operands and output held on the host, the GPU's convolve_gpu or the
// gold) or streamed (the output written to the result file piece by piece as it comes, and with
// --check judged against gold windows as it goes, that time charged to the check).
template <class T>
class FftconvRun final : public Run {
 public:
  FftconvRun(io::ParamTable& t, Params p) : t_(t), p_(std::move(p)) {}

  void write_method(io::ResultFile& out) const override {
    if (auto_.file.empty()) return;
    out.set_attribute("/method", "chosen_by", auto_.chosen_by());
    out.set_attribute("/method", "autotune_file", auto_.file.string());
  }

  void prepare(const RunSetup& setup) override {
    gpu_ = setup.gpu();
    check_ = setup.options.check;
    context_ = &setup.context;
    const Problem q = in::problem_of<T>(t_, p_);
    whole_ = q;
    // "auto" given in so many words looks for a stored choice first; the default (auto too)
    // goes straight to the built-in choice, without a note on every run.
    if (gpu_ && p_.variant == Variant::automatic && t_.has("method.variant") && !p_.streamed &&
        ranks() == 1)
      choose_automatic(setup.options.autotune_file, q);
    method_ = {p_.variant, p_.block};
    output_folder_ = setup.output.parent_path();
    if (ranks() > 1) return prepare_share(q);
    in::require_memory(t_, p_, q, sizeof(T), gpu_, !gpu_ || check_);
    ops_ = in::load_operands<T>(p_, q);
  }

  std::string describe() const override {
    const char* streamed = p_.streamed ? (gpu_ ? " streamed" : ", streamed") : "";
    return in::describe(p_, ops_.problem) + "; " +
           (gpu_ ? std::string(name(p_.streamed ? Variant::overlap_save : p_.variant)) +
                       streamed + (auto_.file.empty() ? "" : auto_.described()) + " on " +
                       current_device().name
                 : std::string("CPU gold solver") + streamed);
  }

  void solve(PhaseTimer& timings, io::ResultFile* out) override {
    if (p_.streamed && share_ == Share::none) return solve_streamed(timings, *out);
    if (share_ == Share::range) {
      solve_range(timings);
    } else if (gpu_) {
      try {
        result_ = fftconv::convolve_gpu(ops_.problem, method_, ops_.signal, ops_.filter);
      } catch (const InputError& e) {
        throw in::rephrased(t_, p_, e);
      }
      // The first convolution, which makes the cuFFT plans: kept out of compute.
      timings.add("setup", result_.timings.setup);
    } else {
      const auto started = Clock::now();
      gold_ = gold_of(ops_);
      result_.output = fftconv::rounded<T>(gold_);
      result_.timings.compute = seconds_since(started);
    }
    if (share_ != Share::range) {
      timings.add("host_to_device", result_.timings.host_to_device);
      timings.add("compute", result_.timings.compute);
      timings.add("device_to_host", result_.timings.device_to_host);
    }
    if (!result_.output.empty()) {
      const auto [low, high] = std::minmax_element(result_.output.begin(), result_.output.end());
      low_ = static_cast<double>(*low);
      high_ = static_cast<double>(*high);
    }
    if (ranks() == 1) return;
    // The output's range and the slowest rank's time: three numbers a rank.
    timings.add("wait", wait_for_ranks(*context_));
    const double before = context_->comm_seconds();
    const bool some = count_ > 0;
    low_ = context_->all_reduce(some ? low_ : INFINITY, comm::Op::min);
    high_ = context_->all_reduce(some ? high_ : -INFINITY, comm::Op::max);
    result_.timings.compute = context_->all_reduce(result_.timings.compute, comm::Op::max);
    timings.add("exchange", context_->comm_seconds() - before);
  }

  void report(io::ResultFile& out) override {
    const bool streamed = p_.streamed;
    const double seconds = streamed ? total_s_ : result_.timings.compute;
    const double signal = samples(whole_.batch, whole_.signal);
    const double rate = seconds > 0 ? signal / seconds : 0;
    out.set_attribute("/timings", "gsamples_per_s", 1e-9 * rate);
    if (streamed) out.set_attribute("/timings", "total_s", total_s_);
    if (ranks() > 1) {
      out.set_attribute("/method", "ranks", std::int64_t{ranks()});
      out.set_attribute("/method", "decomposition",
                        std::string(share_ == Share::batch ? "whole signals"
                                                           : "ranges of overlap-save blocks"));
    }
    const std::string who = gpu_ ? "ran " + std::string(name(variant())) : "gold";
    char line[256];
    if (streamed)
      std::snprintf(line, sizeof line,
                    "%s, streamed: output from %.6g to %.6g; %.3g s (reading %.3g s, writing %.3g "
                    "s), %.3g G samples/s",
                    who.c_str(), low_, high_, total_s_, read_s_, write_s_, 1e-9 * rate);
    else
      std::snprintf(line, sizeof line, "%s: output from %.6g to %.6g; %.3g s, %.3g G samples/s",
                    who.c_str(), low_, high_, seconds, 1e-9 * rate);
    say(line);
  }

  double work() const override { return samples(whole_.batch, whole_.signal); }

  // Across ranks each judges its share against the gold of the same samples, and the
  // differences are merged in rank order.
  Agreement check() override {
    if (p_.streamed && ranks() == 1)
      return difference_.agreement(fftconv::tolerance<T>(ops_.problem));
    if (ranks() == 1) {
      if (gold_.empty()) gold_ = gold_of(ops_);
      return fftconv::agreement(result_.output, gold_, ops_.problem);
    }
    fftconv::GoldDifference mine;
    if (spill_) {
      mine = difference_;  // judged piece by piece as the run went
    } else if (share_ == Share::range) {
      for (std::int64_t at = 0; at < count_; at += kCpuPiece) {
        const std::int64_t count = std::min(kCpuPiece, count_ - at);
        mine.add(result_.output.data() + at,
                 fftconv::gold_window(whole_, ops_.filter, first_ + at, count, reader()));
      }
    } else {
      if (gold_.empty()) gold_ = gold_of(ops_);
      mine.add(result_.output.data(), gold_);
    }
    fftconv::GoldDifference all;
    for (const fftconv::GoldDifference& d : context_->all_gather(mine)) all.merge(d);
    return all.agreement(fftconv::tolerance<T>(whole_));
  }

  void write(Output& out) override {
    if (ranks() > 1) return write_share(out);
    const Problem& q = ops_.problem;
    if (!p_.streamed)
      out.file->write_field("/output", result_.output.data(),
                           in::stored_dims(q.batch, fftconv::output_extent(q), q.is_2d()));
    describe_output(*out.file, q, gpu_ ? std::string(name(variant())) : "cpu-gold");
    if (p_.streamed) out.file->set_attribute("/output", "streamed", true);
    in::write_inputs(*out.file, p_, ops_, source_ ? &*source_ : nullptr);
  }

 private:
  // How a run across ranks is cut: whole signals of a batch, or one long 1D signal's output in
  // ranges of whole overlap-save blocks.
  enum class Share { none, batch, range };

  int ranks() const { return context_->size(); }

  // method.variant = "auto": the variant (and overlap-save's block) stored for this problem, or
  // the built-in choice (and a note on stderr) when none is.
  void choose_automatic(const std::filesystem::path& given, const Problem& q) {
    std::string fallback = "the variant auto picks";
    try {
      fallback += " (" + std::string(name(fftconv::choose_variant(q, sizeof(T)))) + ")";
    } catch (const InputError&) {
      // Said by the run itself when it gets there.
    }
    auto_ = look_up_choice(given, fftconv_key(q, sizeof(T)), fallback);
    if (!auto_.choice) return;
    const io::AutotuneChoice& c = *auto_.choice;
    try {
      p_.variant = fftconv::parse_variant(c.variant);
      if (p_.variant == Variant::automatic) throw InputError("expected a variant other than auto");
    } catch (const InputError& e) {
      throw auto_.unusable(e, "variant");
    }
    p_.block = auto_.integer("block", 0, INT64_MAX, "a transform length", "0");
    try {
      p_.validate();
    } catch (const InputError& e) {
      throw auto_.unusable(e, "block");
    }
  }

  Variant variant() const {
    if (in_memory_) return method_.variant;
    return p_.streamed || share_ == Share::range ? Variant::overlap_save : result_.variant;
  }

  // A rank's share of the problem, and its operands: a batch's signals [first_, first_ +
  // count_), or output samples [first_, first_ + count_) of one long signal, starting at a
  // block's first output so that every block is the one-rank run's. The variant is chosen for the
  // whole problem, so every rank runs the one a single rank would.
  void prepare_share(const Problem& q) {
    const std::string key = !p_.signal_generated() ? "signal.file"
                            : q.batch > 1          ? "signal.batch"
                                                   : "signal.length";
    const auto refuse = [&](const std::string& why) {
      return InputError(t_.source_of(key), key, why);
    };
    const std::int64_t rank = context_->rank();
    if (q.batch > 1) {
      if (q.batch < ranks())
        throw refuse(std::to_string(q.batch) + " signals cannot be cut among " +
                     std::to_string(ranks()) + " ranks; run fewer ranks");
      share_ = Share::batch;
      std::int64_t unit = 1;  // signals kept together (fused's pairs of blocks)
      try {
        method_ = fftconv::chosen_options(q, {p_.variant, p_.block}, static_cast<int>(sizeof(T)));
        if (gpu_) unit = fftconv::batch_cut_unit(q, method_, static_cast<int>(sizeof(T)));
      } catch (const InputError& e) {
        throw in::rephrased(t_, p_, e);
      }
      // Whole units to each rank, the last unit maybe short.
      const std::int64_t whole_units = (q.batch + unit - 1) / unit;
      if (whole_units < ranks())
        throw refuse(std::to_string(q.batch) + " signals, cut in pairs (fused pairs blocks of " +
                     "neighbouring signals in one transform), cannot be cut among " +
                     std::to_string(ranks()) + " ranks; run fewer ranks or another variant");
      const comm::Slab units = comm::even_slab(whole_units, static_cast<int>(rank), ranks());
      first_ = std::min(q.batch, units.begin * unit);
      count_ = std::min(q.batch, units.end * unit) - first_;
      Problem part = q;
      part.batch = count_;
      if (q.filters > 1) part.filters = count_;
      in::require_memory(t_, p_, part, sizeof(T), gpu_, !gpu_ || check_);
      ops_ = in::load_share<T>(p_, q, first_, count_);
      return;
    }
    if (q.is_2d())
      throw refuse("one image runs on one rank; a batch of images is cut among ranks");
    share_ = Share::range;
    std::int64_t step = 0;  // outputs a rank's range starts at a multiple of
    try {
      // On the GPU in memory, the variant the whole problem would run (overlap-save or fused)
      // computes each range; otherwise overlap-save from the host, piece by piece.
      const fftconv::Options chosen =
          fftconv::chosen_options(q, {p_.variant, p_.block}, static_cast<int>(sizeof(T)));
      in_memory_ = gpu_ && !p_.streamed && fftconv::computes_ranges(chosen);
      method_ = in_memory_ ? chosen : fftconv::Options{Variant::overlap_save, p_.block};
      step = in_memory_ ? fftconv::range_step(q, method_, static_cast<int>(sizeof(T)))
                        : fftconv::overlap_save_block(q, method_) - (q.filter.cols - 1);
    } catch (const InputError& e) {
      throw in::rephrased(t_, p_, e);
    }
    const std::int64_t outputs = fftconv::output_extent(q).cols;
    const std::int64_t blocks = (outputs + step - 1) / step;
    if (blocks < ranks())
      throw refuse(std::to_string(outputs) + " output samples make " + std::to_string(blocks) +
                   " " + std::string(in_memory_ ? name(method_.variant) : "overlap-save") +
                   " blocks of " +
                   std::to_string(step) + ", too few to cut among " + std::to_string(ranks()) +
                   " ranks");
    const comm::Slab mine = comm::even_slab(blocks, static_cast<int>(rank), ranks());
    first_ = mine.begin * step;
    count_ = std::min(outputs, mine.end * step) - first_;
    // The signal is read piece by piece as the blocks need it (a file's by hyperslab), as a
    // streamed run reads it.
    loading_ = p_;
    loading_.streamed = true;
    in::require_memory(t_, loading_, q, sizeof(T), gpu_, !gpu_ || check_);
    ops_ = in::load_operands<T>(loading_, q);
    source_.emplace(loading_, ops_);
    if (in_memory_) {
      // The samples this rank's blocks read, into memory.
      const auto [begin, end] =
          fftconv::range_window(q, method_, static_cast<int>(sizeof(T)), first_, count_);
      window_first_ = begin;
      window_.resize(static_cast<std::size_t>(end - begin));
      if (end > begin) source_->read(begin, end - begin, window_.data());
    }
    // A streamed run's share goes to a spill file beside the result as it comes, and into the
    // result in the rank's turn: no rank holds more than a piece.
    if (p_.streamed) spill_.emplace(output_folder_);
  }

  fftconv::SignalReader<T> reader() const {
    return [this](std::int64_t offset, std::int64_t count, T* into) {
      source_->read(offset, count, into);
    };
  }

  // A rank's range of one long signal's output, into memory: overlap-save on the GPU in pieces
  // of method.piece, or the gold's windows on the CPU.
  void solve_range(PhaseTimer& timings) {
    if (!spill_) result_.output.assign(static_cast<std::size_t>(count_), T(0));
    const auto started = Clock::now();
    double check_s = 0;
    low_ = INFINITY;
    high_ = -INFINITY;
    const auto keep = [&](std::int64_t offset, std::int64_t count, const T* values) {
      if (!spill_) {
        std::copy(values, values + count, result_.output.begin() + (offset - first_));
        return;
      }
      for (std::int64_t i = 0; i < count; ++i) {
        low_ = std::min(low_, static_cast<double>(values[i]));
        high_ = std::max(high_, static_cast<double>(values[i]));
      }
      if (check_) {
        const auto checking = Clock::now();
        difference_.add(values, fftconv::gold_window(whole_, ops_.filter, offset, count, reader()));
        check_s += seconds_since(checking);
      }
      spill_->append(values, static_cast<std::size_t>(count) * sizeof(T));
    };
    if (in_memory_) {
      try {
        result_ = fftconv::convolve_range_gpu<T>(whole_, method_, window_, window_first_,
                                                 ops_.filter, first_, count_);
      } catch (const InputError& e) {
        throw in::rephrased(t_, p_, e);
      }
      timings.add("setup", result_.timings.setup);
      timings.add("host_to_device", result_.timings.host_to_device);
      timings.add("compute", result_.timings.compute);
      timings.add("device_to_host", result_.timings.device_to_host);
      return;
    }
    if (gpu_) {
      try {
        fftconv::convolve_streamed<T>(whole_, {Variant::overlap_save, p_.block}, ops_.filter,
                                      reader(), keep, p_.piece, first_, count_);
      } catch (const InputError& e) {
        throw in::rephrased(t_, p_, e);
      }
    } else {
      for (std::int64_t at = 0; at < count_; at += kCpuPiece) {
        const std::int64_t count = std::min(kCpuPiece, count_ - at);
        const std::vector<T> piece = fftconv::rounded<T>(
            fftconv::gold_window(whole_, ops_.filter, first_ + at, count, reader()));
        keep(first_ + at, count, piece.data());
      }
    }
    result_.timings.compute = seconds_since(started) - check_s;
    result_.variant = Variant::overlap_save;
    timings.add("compute", result_.timings.compute);
    if (check_s > 0) timings.add("check", check_s);
  }

  // Each rank's rows of /output (signals, or samples of the one signal) in its turn; rank 0 the
  // attributes, and the inputs when output.input asks for them.
  void write_share(Output& out) {
    const Problem& q = whole_;
    const std::vector<std::uint64_t> dims =
        in::stored_dims(q.batch, fftconv::output_extent(q), q.is_2d());
    if (spill_) {
      out.create<T>("/output", dims);
      std::vector<T> run;
      for (std::int64_t at = 0; at < count_; at += io::StreamedDataset<T>::kRunValues) {
        run.resize(static_cast<std::size_t>(
            std::min(io::StreamedDataset<T>::kRunValues, count_ - at)));
        spill_->read(static_cast<std::uint64_t>(at) * sizeof(T), run.data(),
                     run.size() * sizeof(T));
        out.write_block("/output", {static_cast<std::uint64_t>(first_ + at)}, {run.size()},
                        run.data());
      }
    } else {
      out.write_rows("/output", dims, static_cast<std::uint64_t>(first_),
                     static_cast<std::uint64_t>(count_), result_.output.data());
    }
    if (share_ == Share::batch) in::write_input_share(out, p_, q, ops_, first_);
    if (out.file == nullptr) return;
    describe_output(*out.file, q, gpu_ ? std::string(name(variant())) : "cpu-gold");
    if (spill_) out.file->set_attribute("/output", "streamed", true);
    if (share_ == Share::range) in::write_inputs(*out.file, loading_, ops_, &*source_);
  }

  // Time spent on the check's gold windows goes to the check, not to the convolution's total.
  void solve_streamed(PhaseTimer& timings, io::ResultFile& file) {
    const Problem& q = ops_.problem;
    const std::int64_t length = fftconv::output_extent(q).cols;
    source_.emplace(p_, ops_);
    io::StreamedDataset<T> output(file, "/output", length);
    ProgressLine line("output sample", "samples", 1);
    double check_s = 0;
    const auto started = Clock::now();
    const fftconv::SignalReader<T> fetch = [&](std::int64_t offset, std::int64_t count, T* into) {
      source_->read(offset, count, into);
    };
    const fftconv::SignalReader<T> read = [&](std::int64_t offset, std::int64_t count, T* into) {
      const auto reading = Clock::now();
      source_->read(offset, count, into);
      read_s_ += seconds_since(reading);
    };
    const auto write = [&](std::int64_t offset, std::int64_t count, const T* values) {
      if (check_ && gpu_) {
        const auto checking = Clock::now();
        difference_.add(values, fftconv::gold_window(q, ops_.filter, offset, count, fetch));
        check_s += seconds_since(checking);
      }
      const auto writing = Clock::now();
      output.write(offset, count, values);
      write_s_ += seconds_since(writing);
      line.update(offset + count, length, seconds_since(started));
    };
    if (gpu_) {
      try {
        fftconv::convolve_streamed<T>(q, {Variant::overlap_save, p_.block}, ops_.filter, read,
                                      write, p_.piece);
      } catch (const InputError& e) {
        throw in::rephrased(t_, p_, e);
      }
    } else {
      // The CPU streams the gold rounded to T: the check measures that rounding, as a whole
      // run's does.
      for (std::int64_t first = 0; first < length; first += kCpuPiece) {
        const std::int64_t count = std::min(kCpuPiece, length - first);
        const std::vector<double> gold = fftconv::gold_window(q, ops_.filter, first, count, read);
        const std::vector<T> piece = fftconv::rounded<T>(gold);
        if (check_) difference_.add(piece.data(), gold);
        write(first, count, piece.data());
      }
    }
    const auto finishing = Clock::now();
    output.finish();
    write_s_ += seconds_since(finishing);
    low_ = output.low();
    high_ = output.high();
    total_s_ = seconds_since(started) - check_s;
    timings.add("read", read_s_);
    timings.add("compute", total_s_ - read_s_ - write_s_);
    timings.add("write", write_s_);
    if (check_) timings.add("check", check_s);
  }

  io::ParamTable& t_;
  Params p_;
  bool gpu_ = false, check_ = false;
  comm::Context* context_ = nullptr;
  Problem whole_;                  // the whole problem, whatever this rank's share
  Share share_ = Share::none;      // across ranks: how it is cut
  std::int64_t first_ = 0, count_ = 0;  // this rank's signals, or output samples
  fftconv::Options method_;        // across ranks: chosen for the whole problem
  AutoChoice auto_;  // with method.variant = "auto" given: what the autotune file held
  Params loading_;                 // a long signal's: read as a streamed run reads it
  bool in_memory_ = false;         // a long signal's range on the GPU, from its window in memory
  std::vector<T> window_;          // the samples that range's blocks read, from window_first_
  std::int64_t window_first_ = 0;
  std::filesystem::path output_folder_;     // where the result goes
  std::optional<io::SpillFile> spill_;      // a streamed share, until the rank's turn to write
  in::Operands<T> ops_;
  fftconv::Result<T> result_;          // whole runs
  std::vector<double> gold_;           // whole runs: the CPU's output, or the check's
  std::optional<in::SignalSource<T>> source_;  // streamed runs
  fftconv::GoldDifference difference_;         // streamed runs with --check
  double low_ = 0, high_ = 0, total_s_ = 0, read_s_ = 0, write_s_ = 0;
};

// The sweep: each listed variant checked against the gold and timed on one DeviceProblem.
template <class T>
class FftconvStudy final : public Study {
 public:
  FftconvStudy(io::ParamTable& t, Params p, SweepParams s)
      : t_(t), p_(std::move(p)), s_(std::move(s)) {}

  void prepare() override {
    const Problem q = in::problem_of<T>(t_, p_);
    in::require_memory(t_, p_, q, sizeof(T), true, true);
    // Every variant runs once aside while the host makes the operands and the gold: on a machine
    // whose CUDA cache is empty, cuFFT compiles their kernels then, a few hundred ms a variant,
    // and the rows' own first convolutions find them compiled.
    std::vector<fftconv::Options> options;
    for (const Variant v : s_.variants)
      if (fftconv::supports(v, q)) options.push_back(options_of(v));
    std::future<void> warming = fftconv::warm_up_async<T>(q, std::move(options));
    ops_ = in::load_operands<T>(p_, q);
    checked_ = fftconv::sampled_outputs(ops_.problem, fftconv::kSweepCheckStride);
    gold_ = fftconv::convolve_gold_at(ops_.problem, ops_.signal, ops_.filter, checked_);
    warming.get();
    device_.emplace(q, ops_.signal, ops_.filter);
    device_->sample_outputs(checked_);
    chosen_ = fftconv::choose_variant(q, sizeof(T));
  }

  std::string describe() const override {
    return in::describe(p_, ops_.problem) + " on " + current_device().name + "; " +
           describe_repeats(s_.repeats, "convolutions") + "; auto picks " +
           std::string(name(chosen_));
  }

  SweepColumns columns() const override {
    return {{{"variant", "variant", 12}},
            {"gsamples_per_s", "Gsamples/s", 11, 2},
            std::nullopt,
            {"max_relative_difference", "max rel diff", 12, 2, 'g'},
            {{"ran", "ran", 12}}};
  }

  std::vector<std::vector<Cell>> configurations() override {
    std::vector<std::vector<Cell>> cells;
    for (const Variant v : s_.variants) cells.push_back({std::string(name(v))});
    return cells;
  }

  // Checked first on an output poisoned with NaN, so an unwritten sample cannot pass; that run
  // is also the warm-up (plans made, scratch allocated).
  Measurement measure(std::size_t i) override {
    const Variant v = s_.variants[i];
    const std::string called(name(v));
    Measurement m;
    // fused says itself why it cannot take an image (below, from convolve).
    if (v == Variant::overlap_save && !fftconv::supports(v, ops_.problem)) {
      m.skipped = called + " skipped: it takes 1D problems only";
      return m;
    }
    const fftconv::Options o = options_of(v);
    m.extras = {std::string("-")};
    try {
      device_->poison_output();
      const Variant ran = device_->convolve(o);
      m.agreement = fftconv::agreement(device_->download_samples(), gold_, ops_.problem);
      m.extras = {std::string(name(ran))};
      m.seconds = timed_runs(device_->stream(), s_.repeats, [&] { device_->convolve(o); });
    } catch (const InputError& e) {
      m.skipped = called + " skipped: " + e.expected();
    } catch (const CudaError& e) {
      // A launch the device refuses fails its row; the context survives, so the study goes on.
      // A fault that poisons the context ends it.
      if (e.sticky()) throw;
      say(called + ": " + e.what());
      m.seconds.clear();
    }
    return m;
  }

  // What a row of `v` convolves with: the variants that cut the signal into blocks take
  // method.block.
  fftconv::Options options_of(Variant v) const {
    const bool takes_block =
        v == Variant::overlap_save || v == Variant::fused || v == Variant::automatic;
    return {v, takes_block ? p_.block : 0};
  }

  double units_per_run() const override { return samples(ops_.problem.batch, ops_.problem.signal); }

  void write_attributes(io::ResultFile& out) const override {
    const Problem& q = ops_.problem;
    out.set_attribute("/sweep", "auto_variant", std::string(name(chosen_)));
    out.set_attribute("/sweep", "batch", q.batch);
    out.set_attribute("/sweep", "filters", q.filters);
    out.set_attribute("/sweep", "signal_extent", in::rows_cols(q.signal));
    out.set_attribute("/sweep", "filter_extent", in::rows_cols(q.filter));
    out.set_attribute("/sweep", "mode", std::string(name(q.mode)));
    out.set_attribute("/sweep", "operation", std::string(name(q.operation)));
    out.set_attribute("/sweep", "check_tolerance", fftconv::tolerance<T>(q));
    out.set_attribute("/sweep", "checked_samples", static_cast<std::int64_t>(checked_.size()));
  }

  // The variant that ran (auto's pick, for its row), and the block overlap-save took.
  bool can_autotune() const override { return true; }
  std::optional<io::AutotuneChoice> autotune_choice(std::size_t i) const override {
    const Variant v = s_.variants[i];
    const Variant ran = v == Variant::automatic ? chosen_ : v;
    io::AutotuneChoice c;
    c.key = fftconv_key(ops_.problem, sizeof(T));
    c.variant = name(ran);
    if (ran == Variant::overlap_save) c.axes = {{"block", std::to_string(p_.block)}};
    return c;
  }

  InputError nothing_to_time() const override {
    const Problem& q = ops_.problem;
    return InputError(t_.source_of("sweep.variants"), "sweep.variants",
                      "no listed variant can take this problem (the signal is " +
                          in::extent_text(q.signal) + " and the filter " +
                          in::extent_text(q.filter) + ")");
  }

 private:
  io::ParamTable& t_;
  Params p_;
  SweepParams s_;
  in::Operands<T> ops_;
  std::vector<std::int64_t> checked_;  // the output samples each configuration is checked at
  std::vector<double> gold_;           // the gold at those samples
  std::optional<fftconv::DeviceProblem<T>> device_;  // made once a device is known to be there
  Variant chosen_ = Variant::automatic;
};

std::unique_ptr<Run> make_run(io::ParamTable& t, const std::filesystem::path& params_path) {
  Params p = read_all(t, params_path).first;
  if (p.is_volume()) return fftconv_volume::make_run(t, std::move(p));
  const bool single = p.precision == fftconv::Precision::single;
  return in_precision<Run, FftconvRun>(single, t, std::move(p));
}

std::unique_ptr<Study> make_study(io::ParamTable& t, const std::filesystem::path& params_path) {
  auto [p, s] = read_all(t, params_path);
  if (p.streamed)
    throw InputError(t.source_of("method.streamed"), "method.streamed",
                     "parasol sweep times convolutions of data held on the device; expected false");
  if (p.is_volume()) {
    const char* key = !p.signal_generated() ? "signal.layout"
                      : p.signal.depth > 1  ? "signal.depth"
                      : !p.filter_generated() ? "filter.layout"
                                              : "filter.depth";
    throw InputError(t.source_of(key), key,
                     "parasol sweep times 1D and 2D problems; a volume runs with parasol run "
                     "(bench/fftconv_bench times the volume variants)");
  }
  const bool single = p.precision == fftconv::Precision::single;
  return in_precision<Study, FftconvStudy>(single, t, std::move(p), std::move(s));
}

}  // namespace

Binding fftconv_binding() {
  Binding b{"fftconv",
            "convolution and correlation of signals and images with filters through cuFFT, "
            "scipy's modes",
            make_run, make_study, {"method.variant", "method.block", "method.piece"}};
  b.across_ranks = true;
  return b;
}

}  // namespace parasol::app
