#include "solvers/fftconv/run.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>

#include "io/result_file.hpp"
#include "io/streamed_dataset.hpp"
#include "kernels/finite.hpp"
#include "kernels/precision.hpp"
#include "kernels/printable.hpp"
#include "solvers/fftconv/check.hpp"

namespace parasol::fftconv {

namespace {

using Clock = std::chrono::steady_clock;

// /input's attributes: where the signal and the filter came from.
void write_sources(io::ResultFile& out, const Params& p) {
  out.set_attribute("/input", "signal_source",
                    p.signal_generated() ? std::string(name(p.signal.kind)) : p.signal.file);
  out.set_attribute("/input", "filter_source",
                    p.filter_generated() ? std::string(name(p.filter.kind)) : p.filter.file);
}

// The output finite (a guard on the kernels), and its least and greatest values for the summary.
template <class T>
void finite_range(const std::vector<T>& output, double& low, double& high) {
  require_finite("fftconv: the output", output);
  if (output.empty()) return;
  const auto [lowest, highest] = std::minmax_element(output.begin(), output.end());
  low = static_cast<double>(*lowest);
  high = static_cast<double>(*highest);
}

}  // namespace

bool asks_stored_choice(const Params& p, bool given) {
  return given && p.variant == Variant::automatic && !p.is_volume() && !p.streamed;
}

std::string auto_fallback(const Problem& q, int element_bytes) {
  try {
    return "the variant auto picks (" + std::string(name(choose_variant(q, element_bytes))) + ")";
  } catch (const InputError&) {
    return "the variant auto picks";  // why it cannot pick is said by the run when it gets there
  }
}

template <class T>
RunPart<T>::RunPart(const Params& p, const Problem& q, const Options& method,
                    const Placement& where)
    : p_(p), where_(where), whole_(q), method_(method), loading_(p) {
  if (where_.ranks > 1) {
    cut(q);
    return;
  }
  if (where_.fits)
    where_.fits(memory_needs(p_, q, sizeof(T), where_.gpu, !where_.gpu || where_.check));
  ops_ = load_operands<T>(p_, q, draws_on_device(p_, where_.gpu, where_.check));
}

// A rank's share of the problem (share_of) and its operands.
template <class T>
void RunPart<T>::cut(const Problem& q) {
  const bool gold = !where_.gpu || where_.check;
  try {
    share_ = share_of(q, method_, sizeof(T), where_.gpu, p_.streamed, where_.rank, where_.ranks);
  } catch (const InputError& e) {
    if (e.key() != "ranks") throw where_.told(rephrased(p_, e));
    throw where_.told(InputError("", cut_key(p_, q), e.expected()));  // what sized the cut
  }
  method_ = share_->method;
  if (!range()) {
    if (where_.fits)
      where_.fits(memory_needs(p_, share_->part(q), sizeof(T), where_.gpu, gold));
    ops_ = load_share<T>(p_, q, share_->first, share_->count,
                         draws_on_device(p_, where_.gpu, where_.check));
    return;
  }
  // The signal is read piece by piece as the blocks need it (a file's by hyperslab), as a
  // streamed run reads it.
  loading_.streamed = true;
  if (where_.fits) where_.fits(memory_needs(loading_, q, sizeof(T), where_.gpu, gold));
  ops_ = load_operands<T>(loading_, q);
  source_.emplace(loading_, ops_, operand_files<T>());
  if (share_->in_memory) {
    // The samples this rank's blocks read, into memory.
    const auto [begin, end] = range_window(q, method_, static_cast<int>(sizeof(T)),
                                           share_->first, share_->count);
    window_first_ = begin;
    window_.resize(static_cast<std::size_t>(end - begin));
    if (end > begin) source_->read(begin, end - begin, window_.data());
  }
}

template <class T>
void RunPart<T>::shown(const char* what,
                       const std::function<void(const ProgressCallback&)>& body) const {
  if (where_.shown) where_.shown(what, body);
  else body({});
}

// The gold of the operands held, with its progress shown.
template <class T>
std::vector<double> RunPart<T>::gold_of() const {
  std::vector<double> gold;
  shown("gold output sample", [&](const ProgressCallback& progress) {
    gold = convolve_gold(ops_.problem, ops_.signal, ops_.filter, progress);
  });
  return gold;
}

template <class T>
std::vector<std::uint64_t> RunPart<T>::output_dims() const {
  return stored_dims(whole_.batch, output_extent(whole_), whole_.is_2d());
}

template <class T>
std::uint64_t RunPart<T>::rows() const {
  return static_cast<std::uint64_t>(share_ ? share_->count : whole_.batch);
}

template <class T>
Variant RunPart<T>::variant() const {
  if (share_ && share_->in_memory) return method_.variant;
  return p_.streamed || range() ? Variant::overlap_save : result_.variant;
}

template <class T>
std::string RunPart<T>::method() const {
  return std::string(name(p_.streamed ? Variant::overlap_save : p_.variant)) +
         (p_.streamed ? " streamed" : "");
}

template <class T>
const char* RunPart<T>::decomposition() const {
  return range() ? "ranges of overlap-save blocks" : "whole signals";
}

template <class T>
double RunPart<T>::samples() const {
  return static_cast<double>(whole_.batch) * static_cast<double>(whole_.signal.size());
}

template <class T>
void RunPart<T>::solve(PhaseTimer& timings, const PieceSink<T>& sink) {
  if (p_.streamed) return solve_streamed(timings, sink);
  if (range()) {
    solve_range();
  } else if (where_.gpu) {
    result_ = rephrasing([&] {
      return ops_.drawn ? convolve_gpu(ops_.problem, method_, p_.signal, ops_.first_drawn,
                                       ops_.filter)
                        : convolve_gpu(ops_.problem, method_, ops_.signal, ops_.filter);
    });
  } else {
    const auto started = Clock::now();
    gold_ = gold_of();
    result_.output = rounded<T>(gold_);
    result_.timings.add(phase::compute, seconds_since(started));
  }
  timings.add(result_.timings);
  compute_s_ = result_.timings.seconds(phase::compute);
  finite_range(result_.output, low_, high_);
}

template <class T>
void RunPart<T>::combine(comm::Context& context) {
  const bool some = !share_ || share_->count > 0;
  low_ = context.all_reduce(some ? low_ : INFINITY, comm::Op::min);
  high_ = context.all_reduce(some ? high_ : -INFINITY, comm::Op::max);
  compute_s_ = context.all_reduce(compute_s_, comm::Op::max);
}

template <class T>
SignalReader<T> RunPart<T>::reader() const {
  return [this](std::int64_t offset, std::int64_t count, T* into) {
    source_->read(offset, count, into);
  };
}

// With a check, a streamed piece of the output judged against the gold's window as it comes.
template <class T>
void RunPart<T>::check_piece(std::int64_t offset, std::int64_t count, const T* values) {
  const auto checking = Clock::now();
  difference_.add(values, gold_window(whole_, ops_.filter, offset, count, reader()));
  check_s_ += seconds_since(checking);
}

// A rank's range of one long signal's output, into result_ with its phases: on the GPU from its
// window in memory, or overlap-save in pieces of method.piece, or the gold's windows on the CPU.
template <class T>
void RunPart<T>::solve_range() {
  const std::int64_t first = share_->first, count = share_->count;
  if (share_->in_memory) {
    result_ = rephrasing([&] {
      return convolve_range_gpu<T>(whole_, method_, window_, window_first_, ops_.filter, first,
                                   count);
    });
    return;
  }
  result_.output.assign(static_cast<std::size_t>(count), T(0));
  const auto started = Clock::now();
  const OutputWriter<T> keep = [&](std::int64_t offset, std::int64_t n, const T* values) {
    require_finite("fftconv: the output", values, static_cast<std::size_t>(n));
    std::copy(values, values + n, result_.output.begin() + (offset - first));
  };
  rephrasing([&] {
    convolve_pieces<T>(whole_, ops_.filter, reader(), keep, first, count, where_.gpu, p_.block,
                       p_.piece);
  });
  result_.timings.add(phase::compute, seconds_since(started));
  result_.variant = Variant::overlap_save;
}

// The output samples this rank owns ([0, length) on one rank, a range across ranks) to `sink`
// piece by piece. Each piece is judged before it is handed on: a bad one ends the run, and the
// sink's temporary with it. Time on the check's gold windows goes to the check, not the total.
template <class T>
void RunPart<T>::solve_streamed(PhaseTimer& timings, const PieceSink<T>& sink) {
  const std::int64_t first = share_ ? share_->first : 0;
  const std::int64_t count = share_ ? share_->count : output_extent(ops_.problem).cols;
  if (!source_) source_.emplace(loading_, ops_, operand_files<T>());
  low_ = INFINITY;
  high_ = -INFINITY;
  const auto started = Clock::now();
  shown("output sample", [&](const ProgressCallback& progress) {
    const SignalReader<T> read = [&](std::int64_t offset, std::int64_t n, T* into) {
      const auto reading = Clock::now();
      source_->read(offset, n, into);
      read_s_ += seconds_since(reading);
    };
    const OutputWriter<T> write = [&](std::int64_t offset, std::int64_t n, const T* values) {
      require_finite("fftconv: the output", values, static_cast<std::size_t>(n));
      for (std::int64_t i = 0; i < n; ++i) {
        low_ = std::min(low_, static_cast<double>(values[i]));
        high_ = std::max(high_, static_cast<double>(values[i]));
      }
      if (where_.check && where_.gpu) check_piece(offset, n, values);
      const auto writing = Clock::now();
      sink.write(offset, n, values);
      write_s_ += seconds_since(writing);
      if (progress) progress({offset + n - first, count, seconds_since(started)});
    };
    // The CPU's pieces are the gold's windows rounded: their rounding is judged as it goes.
    rephrasing([&] {
      convolve_pieces<T>(whole_, ops_.filter, read, write, first, count, where_.gpu, p_.block,
                         p_.piece, where_.check ? &difference_ : nullptr);
    });
  });
  const auto finishing = Clock::now();
  sink.finish();
  write_s_ += seconds_since(finishing);
  total_s_ = seconds_since(started) - check_s_;
  timings.add(phase::read, read_s_);
  timings.add(phase::compute, total_s_ - read_s_ - write_s_);
  timings.add(phase::write, write_s_);
  if (where_.check) timings.add(phase::check, check_s_);
}

template <class T>
Agreement RunPart<T>::check(comm::Context& context) {
  if (context.size() == 1) {
    if (p_.streamed) return difference_.agreement(tolerance<T>(ops_.problem));
    if (gold_.empty()) gold_ = gold_of();
    return agreement(result_.output, gold_, ops_.problem);
  }
  GoldDifference mine;
  if (p_.streamed) {
    mine = difference_;  // judged piece by piece as the run went
  } else if (range()) {
    gold_in_pieces<T>(whole_, ops_.filter, share_->first, share_->count, reader(),
                      [&](std::int64_t offset, const std::vector<double>& gold) {
                        mine.add(result_.output.data() + (offset - share_->first), gold);
                      });
  } else {
    if (gold_.empty()) gold_ = gold_of();
    mine.add(result_.output.data(), gold_);
  }
  return agreement_over_ranks<T>(context, mine, whole_);
}

template <class T>
std::pair<std::string, Attributes> RunPart<T>::summary() const {
  const bool streamed = p_.streamed;
  const double seconds = streamed ? total_s_ : compute_s_;
  const double rate = seconds > 0 ? samples() / seconds : 0;
  Attributes timings{{"gsamples_per_s", 1e-9 * rate}};
  if (streamed) timings.push_back({"total_s", total_s_});
  // The summary's first line names the CPU gold solver; a GPU run names the variant that ran.
  const std::string who = where_.gpu ? "ran " + std::string(name(variant())) + ": " : "";
  if (streamed)
    return {formatted("%sstreamed: output from %.6g to %.6g; %.3g s (reading %.3g s, writing "
                      "%.3g s), %.3g Gsamples/s",
                      who.c_str(), low_, high_, total_s_, read_s_, write_s_, 1e-9 * rate),
            timings};
  return {formatted("%soutput from %.6g to %.6g; %.3g s, %.3g Gsamples/s", who.c_str(), low_,
                    high_, seconds, 1e-9 * rate),
          timings};
}

template <class T>
Attributes RunPart<T>::output_attributes() const {
  const Problem& q = whole_;
  Attributes a = problem_attributes(q);
  a.push_back({"variant", where_.gpu ? std::string(name(variant())) : "cpu-gold"});
  a.push_back({"layout", layout_of(q.batch > 1, q.is_2d(), "signal", "sample")});
  a.push_back({"offset", rows_cols(output_offset(q))});
  if (p_.streamed) a.push_back({"streamed", true});
  a.push_back({"units", std::string(kOutputUnits)});
  return a;
}

template <class T>
void RunPart<T>::write_inputs(io::ResultFile& out) const {
  const Problem& q = whole_;
  if (loading_.write_input) {
    if (!source_ && !cut_by_signals()) {
      out.write_field("/input/signal", ops_.signal.data(),
                      stored_dims(q.batch, q.signal, q.is_2d()));
    } else if (source_) {
      const std::int64_t n = q.signal.cols, run_samples = io::StreamedDataset<T>::kRunValues;
      out.create_dataset<T>("/input/signal", static_cast<std::uint64_t>(n));
      std::vector<T> run;
      for (std::int64_t first = 0; first < n; first += run_samples) {
        run.resize(static_cast<std::size_t>(std::min(run_samples, n - first)));
        source_->read(first, static_cast<std::int64_t>(run.size()), run.data());
        out.write_slab("/input/signal", static_cast<std::uint64_t>(first), run.data(), run.size());
      }
    }
    out.set_attribute("/input/signal", "layout",
                      layout_of(q.batch > 1, q.is_2d(), "signal", "sample"));
    if (!cut_by_signals() || q.filters == 1)
      out.write_field("/input/filter", ops_.filter.data(),
                      stored_dims(q.filters, q.filter, q.is_2d()));
    out.set_attribute("/input/filter", "layout",
                      layout_of(q.filters > 1, q.is_2d(), "filter", "tap"));
  }
  write_sources(out, loading_);
}

template <class T>
VolumePart<T>::VolumePart(const Params& p, const Placement& where) : p_(p), where_(where) {
  if (where_.ranks > 1) {
    throw where_.told(
        InputError("", size_key(p_), "a volume runs on one rank; run it without a launcher"));
  }
  const VolumeProblem q = where_.telling([&] { return volume_problem_of<T>(p_); });
  if (where_.fits)
    where_.fits(volume_memory_needs(p_, q, sizeof(T), where_.gpu, !where_.gpu || where_.check));
  ops_ = load_volume<T>(p_, q);
}

template <class T>
void VolumePart<T>::solve(PhaseTimer& timings, const PieceSink<T>&) {
  out_ = where_.telling([&] { return convolve_volume(ops_, p_.variant, where_.gpu); },
                        [&](const InputError& e) { return rephrased(p_, e); });
  timings.add(out_.timings);
  finite_range(out_.output, low_, high_);
}

template <class T>
Agreement VolumePart<T>::check(comm::Context&) {
  std::vector<double>& gold = out_.gold;
  if (gold.empty()) gold = convolve_gold(ops_.problem, ops_.signal, ops_.filter);
  return agreement(out_.output, gold, ops_.problem);
}

template <class T>
std::optional<GridPlace> VolumePart<T>::grid() const {
  const Extent3 e = output_extent(ops_.problem);
  return GridPlace{{static_cast<std::uint64_t>(e.cols), static_cast<std::uint64_t>(e.rows),
                    static_cast<std::uint64_t>(e.depth)},
                   output_origin(ops_.problem)};
}

template <class T>
std::pair<std::string, Attributes> VolumePart<T>::summary() const {
  const double compute_s = out_.timings.seconds(phase::compute);
  const double rate = compute_s > 0 ? samples() / compute_s : 0;
  // The summary's first line names the CPU gold solver; a GPU run names the variant that ran.
  std::string who;
  if (where_.gpu) {
    who = "ran " + std::string(name(out_.ran));
    if (out_.ran == Variant::r2c)
      who += out_.chunks == 1 ? " (whole volume)"
                              : " (" + std::to_string(out_.chunks) + " chunks along z)";
    who += ": ";
  }
  return {formatted("%soutput from %.6g to %.6g; %.3g s, %.3g Gsamples/s", who.c_str(), low_,
                    high_, compute_s, 1e-9 * rate),
          {{"gsamples_per_s", 1e-9 * rate}}};
}

template <class T>
Attributes VolumePart<T>::output_attributes() const {
  const VolumeProblem& q = ops_.problem;
  const auto extent = [](const Extent3& e) {
    return std::vector<std::int64_t>{e.depth, e.rows, e.cols};
  };
  Attributes a{{"mode", std::string(name(q.mode))},
               {"operation", std::string(name(q.operation))},
               {"variant", where_.gpu ? std::string(name(out_.ran)) : "cpu-gold"},
               {"layout", std::string(kVolumeLayout)},
               {"units", std::string(kOutputUnits)},
               {"signal_extent", extent(q.signal)},
               {"filter_extent", extent(q.filter)},
               {"offset", extent(output_offset(q))}};
  if (where_.gpu && out_.ran == Variant::r2c) a.push_back({"chunks", out_.chunks});
  return a;
}

template <class T>
void VolumePart<T>::write_inputs(io::ResultFile& out) const {
  if (p_.write_input) {
    out.write_field("/input/signal", ops_.signal.data(), volume_dims(ops_.problem.signal));
    out.set_attribute("/input/signal", "layout", std::string(kVolumeLayout));
    out.write_field("/input/filter", ops_.filter.data(), volume_dims(ops_.problem.filter));
    out.set_attribute("/input/filter", "layout", std::string(kVolumeLayout));
  }
  write_sources(out, p_);
}

template class RunPart<float>;
template class RunPart<double>;
template class VolumePart<float>;
template class VolumePart<double>;

}  // namespace parasol::fftconv
