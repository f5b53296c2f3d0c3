// One run of a 1D or 2D fftconv problem (RunPart), or of a volume (VolumePart), usable
// without the command line: this rank's part of it (the whole problem on one rank; across ranks
// whole signals of a batch, or a range of one long signal's output: share.hpp) made or read,
// convolved on the GPU or by the gold, and judged against the gold. Its output is held in memory,
// or with method.streamed handed on piece by piece as it comes (to the result file, or to a
// spill file across ranks: the caller's sink), so that no rank ever holds more than a piece.
// What a run says is the whole run's once combine() has run on every rank. Host-only API.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "comm/context.hpp"
#include "kernels/agreement.hpp"
#include "kernels/phase_timer.hpp"
#include "solvers/fftconv/inputs.hpp"
#include "solvers/fftconv/share.hpp"

namespace parasol::io {
class ResultFile;  // io/result_file.hpp: this library writes through io/ privately
}

namespace parasol::fftconv {

// Whether method.variant = "auto" asks for a choice `parasol sweep --autotune` stored: when given
// in so many words (`given`: the default, auto too, goes straight to the built-in choice, without
// a note on every run), for a problem a choice is stored for (not a volume, which runs the variant
// given; not streamed, which runs overlap-save either way).
bool asks_stored_choice(const Params& p, bool given);

// What "auto" runs when no choice is stored (choose_variant's pick), for the note that says so.
std::string auto_fallback(const Problem& q, int element_bytes);

// Where a part runs, and what it asks of its caller.
struct Placement {
  int rank = 0, ranks = 1;
  bool gpu = false;
  bool check = false;  // a check against the gold follows (a streamed run's goes along with it)
  // Refuses memory the run cannot have, the needs in the order memory_needs gives them; null: not
  // judged.
  std::function<void(const std::vector<MemoryNeed>&)> fits;
  // A solver's InputError, its key the parameter file's (rephrased), said against what the caller
  // read: the key's line of the file; null: thrown as it is.
  std::function<InputError(const InputError&)> said;
  // Runs `body` with a callback that shows its progress, `what` naming a step ("output sample");
  // null: runs it unshown.
  std::function<void(const char* what, const std::function<void(const ProgressCallback&)>& body)>
      shown;

  // `e` as the caller says it.
  InputError told(const InputError& e) const { return said ? said(e) : e; }
  // `make()`; an InputError it throws restated by `restate` (when given: rephrased, say), then
  // told.
  template <class Make>
  auto telling(Make&& make, const std::function<InputError(const InputError&)>& restate = {}) const
      -> decltype(make()) {
    try {
      return make();
    } catch (const InputError& e) {
      throw told(restate ? restate(e) : e);
    }
  }
};

// Where a streamed part's output goes: each piece in order, then finish() once every piece came
// (its time is the write's too).
template <class T>
struct PieceSink {
  OutputWriter<T> write;
  std::function<void()> finish;
};

// Where a field's first sample lies on its grid, and its points along x, y and z: a volume's
// output, shown by a sidecar.
struct GridPlace {
  std::array<std::uint64_t, 3> points{};
  std::array<double, 3> origin{};
};

// The two parts below answer alike, so that a caller runs either the same way.
template <class T>
class RunPart {
 public:
  // Problem q (problem_of) cut for `where` and run with `method` (the parameters' variant and
  // block, or a stored choice's): the variant is chosen for the whole problem, so every rank runs
  // the one a single rank would. The operands are made or read, or for a streamed run or a range
  // of one long signal opened to be read piece by piece. InputError as the cut or memory refuse it.
  RunPart(const Params& p, const Problem& q, const Options& method, const Placement& where);
  RunPart(const RunPart&) = delete;  // source_ refers to loading_ and ops_
  RunPart& operator=(const RunPart&) = delete;

  // Whether the output goes to solve()'s sink piece by piece rather than into output().
  bool streamed() const { return p_.streamed; }
  // The output as stored (stored_dims), and this rank's rows of it along the first dimension
  // (signals of a batch, samples of one signal): all of them on one rank.
  std::vector<std::uint64_t> output_dims() const;
  std::uint64_t first_row() const { return share_ ? static_cast<std::uint64_t>(share_->first) : 0; }
  std::uint64_t rows() const;
  const std::vector<T>& output() const { return result_.output; }

  // This rank's part convolved, its phases added to `timings`; a streamed part's output handed to
  // `sink` piece by piece, in order, each checked finite (and with a check, judged) first.
  void solve(PhaseTimer& timings, const PieceSink<T>& sink);
  // Across ranks, on every rank: the output's range and the slowest rank's compute time made the
  // whole run's.
  void combine(comm::Context& context);
  // The whole run's agreement with the gold: across ranks each judges its part against the gold of
  // the same samples, and the differences are merged in rank order.
  Agreement check(comm::Context& context);

  // The summary's first words (describe), the method a GPU run names, and how the ranks cut it.
  std::string what() const { return describe(p_, ops_.problem); }
  std::string method() const;
  const char* decomposition() const;
  std::optional<GridPlace> grid() const { return std::nullopt; }
  // The summary's line after the run, and /timings' rate (and a streamed run's total).
  std::pair<std::string, Attributes> summary() const;
  // Units of work for a rate: the whole problem's output samples.
  double samples() const;
  // /output's attributes: what was computed, by what, and where it lies in the full convolution.
  Attributes output_attributes() const;

  // /input (output.input) where rank 0 writes it (every part of it but input_rows'), and its
  // attributes: the signal whole (a streamed or a range's read through its source in runs of the
  // result file's chunks), the filter, their layouts and where they came from.
  void write_inputs(io::ResultFile& out) const;
  // A batch cut among ranks with output.input: this rank's rows of /input/signal, and of
  // /input/filter when each signal has its own, each to `rows(dataset, dims, first_row, rows,
  // data)` (on every rank; Output::write_rows).
  template <class Rows>
  void input_rows(Rows&& rows) const {
    if (!cut_by_signals() || !p_.write_input) return;
    const Problem& q = whole_;
    rows("/input/signal", stored_dims(q.batch, q.signal, q.is_2d()), first_row(), this->rows(),
         ops_.signal.data());
    if (q.filters > 1)
      rows("/input/filter", stored_dims(q.filters, q.filter, q.is_2d()), first_row(), this->rows(),
           ops_.filter.data());
  }

 private:
  bool range() const { return share_ && share_->cut == Cut::range; }
  bool cut_by_signals() const { return share_ && share_->cut == Cut::batch; }
  Variant variant() const;
  // `make()`, a complaint of the solver's said at the parameter file's key (rephrased).
  template <class Make>
  auto rephrasing(Make&& make) const -> decltype(make()) {
    return where_.telling(make, [this](const InputError& e) { return rephrased(p_, e); });
  }
  void shown(const char* what, const std::function<void(const ProgressCallback&)>& body) const;
  std::vector<double> gold_of() const;
  void cut(const Problem& q);
  SignalReader<T> reader() const;
  void check_piece(std::int64_t offset, std::int64_t count, const T* values);
  void solve_range();
  void solve_streamed(PhaseTimer& timings, const PieceSink<T>& sink);

  Params p_;
  Placement where_;
  Problem whole_;             // the whole problem, whatever this rank's share
  std::optional<Share> share_;  // across ranks: this rank's
  Options method_;            // chosen for the whole problem
  Params loading_;            // a long signal's: read as a streamed run reads it
  std::vector<T> window_;     // the samples an in-memory range's blocks read, from window_first_
  std::int64_t window_first_ = 0;
  Operands<T> ops_;
  Result<T> result_;          // unstreamed parts
  std::vector<double> gold_;  // unstreamed: the CPU's output, or the check's
  std::optional<SignalSource<T>> source_;  // streamed parts and ranges
  GoldDifference difference_;  // streamed parts with a check
  double low_ = 0, high_ = 0, total_s_ = 0, read_s_ = 0, write_s_ = 0;
  double compute_s_ = 0;  // unstreamed: this rank's compute, the slowest rank's once combined
  double check_s_ = 0;  // a streamed part's time on the gold's windows, charged to the check
};

// One run of a volume (Params::is_volume), on one rank: its operands made or read, convolved by
// the variant given on the GPU or by the gold (convolve_volume), and judged against the gold.
template <class T>
class VolumePart {
 public:
  // InputError when run across ranks (a volume runs on one rank), or as the problem or memory
  // refuse it.
  VolumePart(const Params& p, const Placement& where);

  // Phases to `timings`; the output checked finite. Never streamed: `sink` is not called.
  void solve(PhaseTimer& timings, const PieceSink<T>& sink);
  Agreement check(comm::Context& context);  // on one rank
  void combine(comm::Context&) {}            // never cut
  bool streamed() const { return false; }
  const std::vector<T>& output() const { return out_.output; }
  std::vector<std::uint64_t> output_dims() const {
    return volume_dims(output_extent(ops_.problem));
  }
  std::uint64_t first_row() const { return 0; }
  std::uint64_t rows() const { return output_dims()[0]; }
  template <class Rows>
  void input_rows(Rows&&) const {}  // never cut
  // The output's grid: where its first sample lies on the signal's (output_origin).
  std::optional<GridPlace> grid() const;

  std::string what() const { return describe_volume(p_, ops_.problem); }
  std::string method() const { return std::string(name(p_.variant)); }
  const char* decomposition() const { return "one volume"; }  // never cut
  std::pair<std::string, Attributes> summary() const;
  double samples() const { return static_cast<double>(ops_.problem.signal.size()); }
  Attributes output_attributes() const;
  // /input/signal and /input/filter as [depth][rows][cols] (output.input), and /input's attributes.
  void write_inputs(io::ResultFile& out) const;

 private:
  Params p_;
  Placement where_;
  VolumeOperands<T> ops_;
  VolumeOutput<T> out_;
  double low_ = 0, high_ = 0;
};

}  // namespace parasol::fftconv
