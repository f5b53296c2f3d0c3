// recurrence across ranks: one series cut into consecutive runs of elements, one run per rank.
// Each rank solves its run; what crosses a cut is one value, the v[-1] of the segment that
// continues past it (every prefix that starts at a segment's first element is a constant map, so
// a value is all of it). Host-only API: compiles without nvcc or MPI.
//
// How the carries are found, by backend and mode (docs/scaling.md):
//   CPU gold:          the gold's own loop on each run from the exact long-double value the
//                      rank before ended on, passed rank to rank; each rank first solves its run
//                      from 0 and then replays only the stretch the carry changes, so the result
//                      is the one-rank gold's, bit for bit, for any cut.
//   GPU fast:          each rank's aggregate (the composed affine map of its run) combined by an
//                      exclusive scan across ranks, in rank order; each run is then solved from
//                      its carry. Within the fast mode's tolerance.
//   GPU reproducible:  the runs are cut on the scan's tile boundaries; every rank's tile totals
//                      are gathered, every rank scans all of them as one rank would, and each
//                      scans its tiles from their prefixes: the one-rank run's bits for any N.
#pragma once

#include <cstdint>
#include <vector>

#include "comm/context.hpp"
#include "kernels/agreement.hpp"
#include "solvers/recurrence/recurrence.hpp"

namespace parasol::recurrence {

// How a series is cut among ranks.
//   elements: evenly by elements (the first n mod N ranks one more; with fewer elements than
//             ranks the last ranks get none);
//   tiles:    evenly by whole tiles of kTileElements<T> (the reproducible scan's), the last
//             tile of the series partial; ranks past the last tile get none.
enum class Cut { elements, tiles };

// A rank's run of a series cut among ranks: elements [first, first + size()) of the whole, as a
// Series of its own (offsets from its first element). Its segments are those of the whole that
// meet the run (empty segments inside it included). When the run's first segment began on an
// earlier rank (`continued`), its initial value is a placeholder: the carry replaces it.
template <class T>
struct SeriesPart {
  Series<T> series;
  std::int64_t first = 0;          // the whole series' element that local element 0 is
  std::int64_t whole = 0;          // elements in the whole series
  std::int64_t first_segment = 0;  // the whole series' segment that local segment 0 is
  bool continued = false;
  std::int64_t size() const { return series.size(); }
};

// The elements of rank `rank`'s run: [first, first + count), for a series of `elements` and
// tiles of `tile` elements.
struct Span {
  std::int64_t first = 0, count = 0;
};
Span span_of(std::int64_t elements, std::int64_t tile, int rank, int size, Cut cut);

// Rank `rank`'s run of `whole` cut among `size` ranks.
template <class T>
SeriesPart<T> part_of(const Series<T>& whole, int rank, int size, Cut cut);

// The same from what a rank reads of the whole itself: its offsets and initial values
// (`segments`, whose s and u are left empty: `elements` says how many it has) and the run's own
// s and u, over `span` (span_of).
template <class T>
SeriesPart<T> part_of(const Series<T>& segments, std::int64_t elements, const Span& span,
                      std::vector<T> s, std::vector<T> u);

// The gold on this rank's run: the one-rank solve_gold's values for these elements, bit for
// bit, whatever the cut. Collective (every rank calls it); `exchange_seconds`, when given, gets
// the seconds spent in the communication layer (waiting for the carry included).
template <class T>
std::vector<double> solve_gold_part(const SeriesPart<T>& part, comm::Context& context,
                                    double* exchange_seconds = nullptr);

// The scan on this rank's run on its device: upload, the exchange of carries, solve, download.
// Collective. The part must have been cut by tiles for ScanMode::reproducible (cut_for(mode)).
// With `drawn`, the part holds no s and u (ar1_run) and the run's are drawn on the device from
// that AR(1) problem (DeviceSeries), host_to_device timing the draw.
template <class T>
Result<T> solve_gpu_part(const SeriesPart<T>& part, ScanMode mode, comm::Context& context,
                         const Ar1* drawn = nullptr);

// The cut each way of solving needs.
inline Cut cut_for(bool gpu, ScanMode mode) {
  return gpu && mode == ScanMode::reproducible ? Cut::tiles : Cut::elements;
}

// The magnitude scale (problems.hpp) of this rank's run, and the whole series' tile_chain, as
// the one-rank functions give them: collective.
template <class T>
std::vector<double> magnitude_scale_part(const SeriesPart<T>& part, comm::Context& context);
template <class T>
double tile_chain_part(const SeriesPart<T>& part, std::int64_t tile, comm::Context& context);

// A run across ranks judged against the gold (check.hpp's measure and tolerance): this rank's
// `v` against `gold`, solve_gold_part's values for its run, each element relative to the whole
// series' magnitude scale there, within the tolerance of the whole series' tile chain; the
// differences combined over the ranks, and a NaN on any rank fails the whole run. Collective:
// every rank gets the whole run's agreement.
template <class T>
Agreement agreement_part(const SeriesPart<T>& part, const std::vector<T>& v,
                         const std::vector<double>& gold, comm::Context& context);

}  // namespace parasol::recurrence
