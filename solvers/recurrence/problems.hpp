// The series the parameter file describes, built as Series<T>, and the scale a result is judged
// against. Reading input files is the front end's (solvers do not depend on HDF5); it hands the
// values it read to smoothing_series.
#pragma once

#include <cstdint>
#include <vector>

#include "solvers/recurrence/params.hpp"
#include "solvers/recurrence/ranks.hpp"
#include "solvers/recurrence/recurrence.hpp"

namespace parasol::recurrence {

// `a.series` AR(1) processes of `a.length` steps each, segment k being series k. The normals
// come from std::mt19937_64 seeded with (a.seed, k) through std::seed_seq, by Box-Muller, and
// the time-varying coefficients from the same stream; all three are fully specified by the
// standard (std::normal_distribution is not), so a seed gives the same series with any standard
// library.
template <class T>
Series<T> ar1_series(const Ar1& a);

// Rank `rank`'s run of ar1_series(a) cut among `size` ranks (ranks.hpp), the same values, made
// without the rest: each series the run meets is drawn from its start, and only the run's
// elements are kept.
template <class T>
SeriesPart<T> ar1_part(const Ar1& a, int rank, int size, Cut cut);

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
// cancel to 0).
template <class T>
std::vector<double> magnitude_scale(const Series<T>& series);

// How far back, weighted by magnitude, an element is reached through a chain of tiles of `tile`
// elements (a scan's tile prefixes): the largest over elements i of
// sum_j (tiles from j's to i's) |term_ij| / scale_i, where term_ij is u[j] (or a segment's
// initial value) times the s between j and i. About 0 when every element's terms come from its
// own tile (|s| well below 1); about half the tiles before it for a running sum (s = 1).
template <class T>
double tile_chain(const Series<T>& series, std::int64_t tile);

// solve_gold(series), magnitude_scale(series) and tile_chain(series, tile) in two passes rather
// than three and no copy of the series (the scale and the chain share a recurrence), the two on
// two threads: the same values as each of the three gives. What a sweep checks against.
struct GoldScaleChain {
  std::vector<double> gold, scale;
  double chain = 0;
};
template <class T>
GoldScaleChain gold_scale_chain(const Series<T>& series, std::int64_t tile);

}  // namespace parasol::recurrence
