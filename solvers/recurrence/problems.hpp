// The series the parameter file describes, built as Series<T>, and the scale a result is judged
// against. Reading input files is inputs.hpp's (the only part of the library that links io/): it
// hands the values it read to smoothing_series.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "solvers/recurrence/params.hpp"
#include "solvers/recurrence/ranks.hpp"
#include "solvers/recurrence/recurrence.hpp"

namespace parasol::recurrence {

// `a.series` AR(1) processes of `a.length` steps each, segment k being series k, drawn on every
// core. Step j of series k depends on (a.seed, k, j) alone, through counter-based draws
// (kernels/seeded_draws.hpp, whose CounterDraws defines its words exactly): its normal is
// SeededDraws::normal_pair (Box-Muller) of words 2q and 2q + 1 of CounterDraws(a.seed, 2k),
// q = j / 2, the pair's first for even j and its second for odd j; a time-varying coefficient is
// phi_min + (phi_max - phi_min) times open_unit_of word j of CounterDraws(a.seed, 2k + 1).
// s = phi and u = sigma times the normal, rounded to T (ar1_pair in ar1_steps.hpp, shared with
// the device's draws). A seed gives the same series on any machine, host or device
// (kernels/portable_math.hpp).
template <class T>
Series<T> ar1_series(const Ar1& a);

// Rank `rank`'s run of ar1_series(a) cut among `size` ranks (ranks.hpp), the same values, made
// without the rest: only the run's elements are drawn.
template <class T>
SeriesPart<T> ar1_part(const Ar1& a, int rank, int size, Cut cut);

// ar1_part without s and u: the run's place, offsets and initial values alone, for a run whose
// elements are drawn on the device (draw_ar1_gpu).
template <class T>
SeriesPart<T> ar1_run(const Ar1& a, int rank, int size, Cut cut);

// Elements [first, first + count) of ar1_series(a)'s s and u, drawn on the device into d_s and
// d_u from their starts, enqueued on `stream`: the same bits as the host draws (ar1_pair, one
// definition), a thread per pair of steps (ar1_draw.cu).
template <class T>
void draw_ar1_gpu(const Ar1& a, std::int64_t first, std::int64_t count, T* d_s, T* d_u,
                  cudaStream_t stream);

// ar1_series(a)'s offsets and initial values alone (no elements): what every rank of a run
// across ranks holds of the whole.
template <class T>
Series<T> ar1_segments(const Ar1& a);

// Exponential smoothing of `rows` series of equal length stored one after another in `y`:
// s = 1 - alpha, u = alpha y[t], and v[-1] = y[0] of each row (0 for an empty row).
template <class T>
Series<T> smoothing_series(const std::vector<double>& y, std::int64_t rows, double alpha);

// The gold solver run on |s|, |u| and |initial|: at every element, an upper bound on the
// magnitude of every term summed into v there. Round-off in any order of evaluation is a
// multiple of it, so it is what a difference from the gold is measured against (v itself can
// cancel to 0). Run on every core in chunks of `chunk` elements (recurrence.hpp, kGoldChunk)
// with the one-thread loop's values, as is tile_chain.
template <class T>
std::vector<double> magnitude_scale(const Series<T>& series, std::int64_t chunk = kGoldChunk);

// How far back, weighted by magnitude, an element is reached through a chain of tiles of `tile`
// elements (a scan's tile prefixes): the largest over elements i of
// sum_j (tiles from j's to i's) |term_ij| / scale_i, where term_ij is u[j] (or a segment's
// initial value) times the s between j and i. About 0 when every element's terms come from its
// own tile (|s| well below 1); about half the tiles before it for a running sum (s = 1).
template <class T>
double tile_chain(const Series<T>& series, std::int64_t tile, std::int64_t chunk = kGoldChunk);

// solve_gold(series), magnitude_scale(series) and tile_chain(series, tile) in two passes rather
// than three (the scale and the chain share a recurrence): the same values as each of the three
// gives. What a sweep checks against.
struct GoldScaleChain {
  std::vector<double> gold, scale;
  double chain = 0;
};
template <class T>
GoldScaleChain gold_scale_chain(const Series<T>& series, std::int64_t tile,
                                std::int64_t chunk = kGoldChunk);

// The problem in words, for a run's summary and a sweep's header: "AR(1), 4 series x 1000 steps,
// phi 0.9, sigma 1 (single)", "exponential smoothing (alpha 0.3) of 2 series, 10 values in all,
// from y.h5 (double)".
template <class T>
std::string describe(const Params& p, const Series<T>& series);

// The dimensions /fields/v (and /input/s, /input/u) are stored in: [segments][length] when every
// segment has one length, else [elements] with /input/offsets saying where each segment starts.
template <class T>
std::vector<std::uint64_t> field_dims(const Series<T>& series);

}  // namespace parasol::recurrence
