// fftconv in parts: one long signal's output by the gold a piece at a time (what a streamed run
// on the CPU computes, and what a streamed output or a rank's range is checked against), and a
// problem cut among ranks (whole signals of a batch, or one long signal's output in ranges of
// whole blocks), with each rank's difference from the gold made the whole run's. Host-only API:
// compiles without nvcc, MPI or NCCL.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "comm/context.hpp"
#include "kernels/agreement.hpp"
#include "solvers/fftconv/check.hpp"
#include "solvers/fftconv/fftconv.hpp"

namespace parasol::fftconv {

// The output a streamed run on the CPU computes at a time (the GPU takes method.piece), and the
// pieces in which a streamed output or a rank's range is checked: the gold's window of a piece
// holds piece + taps - 1 samples, whatever the signal's length.
inline constexpr std::int64_t kGoldPiece = std::int64_t{1} << 20;

// Receives the gold of output samples [offset, offset + gold.size()).
using GoldPiece = std::function<void(std::int64_t offset, const std::vector<double>& gold)>;

// Output samples [first, first + count) of one 1D signal with one filter by the gold
// (gold_window), `piece` samples at a time, in order, each handed to `each`.
template <class T>
void gold_in_pieces(const Problem& p, const std::vector<T>& filter, std::int64_t first,
                    std::int64_t count, const SignalReader<T>& read, const GoldPiece& each,
                    std::int64_t piece = kGoldPiece);

// Output samples [first, first + count) of one long 1D signal to `sink` piece by piece: on the
// GPU overlap-save with `block` in pieces of `piece` (convolve_streamed), or on the CPU the gold's
// windows rounded to T. With `judged`, each CPU piece's rounding is judged against its gold as it
// goes, as a whole run's rounding is.
template <class T>
void convolve_pieces(const Problem& p, const std::vector<T>& filter, const SignalReader<T>& read,
                     const OutputWriter<T>& sink, std::int64_t first, std::int64_t count, bool gpu,
                     std::int64_t block, std::int64_t piece, GoldDifference* judged = nullptr);

// How a run across ranks is cut: whole signals of a batch, or one long 1D signal's output in
// ranges of whole blocks.
enum class Cut { batch, range };

// One rank's share of a problem cut among ranks.
struct Share {
  Cut cut = Cut::batch;
  // The batch's signals [first, first + count), or output samples [first, first + count) of the
  // one signal, starting at a block's first output so that every block is the one-rank run's.
  std::int64_t first = 0, count = 0;
  // What the share runs with, chosen for the whole problem (chosen_options), so that every rank
  // runs what a single rank would. A range not in memory runs overlap-save.
  Options method;
  // A range on the GPU, not streamed, whose variant computes ranges (computes_ranges): computed
  // by convolve_range_gpu from the signal samples its blocks read (range_window), held in memory.
  // Otherwise a range runs overlap-save from the host, piece by piece.
  bool in_memory = false;

  // A batch share's own problem: its signals, with their own filters when each has one.
  Problem part(const Problem& whole) const;
};

// This rank's share of problem q among `ranks`, asked to run with `asked` (the parameters'
// variant and block). A batch is cut in whole units of signals (batch_cut_unit's on the GPU),
// evenly, the last unit maybe short; one long signal's output in whole steps of range_step,
// evenly. InputError (key "ranks", saying why) when q cannot be cut so: fewer signals, or pairs
// of them, than ranks, a single image, or fewer blocks than ranks; and chosen_options',
// batch_cut_unit's or range_step's (key "block" or "variant") when the method cannot take q.
Share share_of(const Problem& q, const Options& asked, int element_bytes, bool gpu,
               bool streamed, int rank, int ranks);

// The whole run's agreement with the gold, from this rank's difference over its share: the
// ranks' differences merged in rank order, judged by tolerance<T>(whole). Every rank calls it
// and gets the same answer.
template <class T>
Agreement agreement_over_ranks(comm::Context& context, const GoldDifference& mine,
                               const Problem& whole) {
  GoldDifference all;
  for (const GoldDifference& d : context.all_gather(mine)) all.merge(d);
  return all.agreement(tolerance<T>(whole));
}

}  // namespace parasol::fftconv
