// One long system (or a few) cut among ranks by rows (system.cut = "rows"): the partition method
// of partition.hpp across ranks. Each rank holds rows [begin, end) of every system
// (comm::even_slab, uneven cuts allowed) and reduces them alone; the interface rows, the first
// and last of each piece, are reduced on their rank to two, which go to rank 0; it solves the
// ranks' interface by the Thomas algorithm in the order solve_partitioned does; the values come
// back and each rank substitutes them into its rows. On the host a rank's rows are one piece, so
// an N-rank run gives solve_partitioned(batch, N)'s bits; on the device they are cut again into
// pieces of about kDevicePieceRows rows, one thread each, whose chain of interface rows the
// device reduces again by the same method while it holds two pieces or more (long.cu), and the
// reference is solve_partitioned on that whole cut (long_cut), within the rounding of T
// and of the chains. Rings (periodic systems) too: rank 0's interface is a ring, solved by
// Sherman-Morrison. Host-only API: compiles without nvcc, MPI or NCCL. Every function that takes
// a Context is called by every rank, in the same order.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "comm/context.hpp"
#include "comm/halo.hpp"
#include "kernels/agreement.hpp"
#include "kernels/buffer.hpp"
#include "kernels/stream.hpp"
#include "solvers/tridiag/kinds.hpp"
#include "solvers/tridiag/tridiag.hpp"

namespace parasol::tridiag {

// Rows a device thread reduces: a few hundred, so that a rank's 2^27 rows make 2^19 threads (the
// device full many times over) while the interface, two rows a piece, stays a hundredth of n.
inline constexpr std::int64_t kDevicePieceRows = 256;

// `rows` rows cut into pieces of about `piece_rows` (rows / piece_rows of them, at least one,
// as even as can be: comm::even_planes); piece_rows 0: one piece. Rows per piece, in order.
std::vector<std::int64_t> pieces_of(std::int64_t rows, std::int64_t piece_rows);

// The whole cut of n rows: comm::even_slab among `ranks`, each rank's rows cut by pieces_of.
// Rows per piece, rank 0's first. InputError naming `key` when a piece would hold fewer than two
// rows (the partition method eliminates within a piece from its first two rows).
std::vector<std::int64_t> long_cut(std::int64_t n, int ranks, std::int64_t piece_rows,
                                   const std::string& key);

// Rows [first_row, first_row + rows) of each of `systems` systems of n rows: batch holds them as
// systems of dims.n = rows rows, contiguous. Unlike a Batch's systems, a of its first row couples
// row first_row - 1 (0 in a system's row 0) and c of its last row couples the row after it (0 in
// a system's last row).
// With `periodic` each system is a ring (kinds.hpp): its row 0's a couples row n - 1 and its row
// n - 1's c couples row 0.
template <class T>
struct RowsPart {
  std::int64_t n = 0;          // rows of each whole system
  std::int64_t first_row = 0;  // where the part's rows begin in it
  bool periodic = false;
  Batch<T> batch;
};

// The rows `mine` of random_batch({n, systems}, seed)'s systems, drawn alone (random_row: the
// same bits as the whole batch's).
template <class T>
RowsPart<T> random_rows_part(std::int64_t n, std::int64_t systems, std::uint64_t seed,
                             const comm::Slab& mine);

// The same for random_kind_batch's periodic systems (rings): drawn whole on every rank and cut,
// since the kind's draw takes whole systems (n values a row more on each rank than its share).
template <class T>
RowsPart<T> random_ring_rows_part(std::int64_t n, std::int64_t systems, std::uint64_t seed,
                                  const comm::Slab& mine);

// The rows `mine` of a whole batch (contiguous) already on the host; `periodic`: its systems are
// rings (a periodic KindBatch's arrays in a Batch: periodic_as_batch).
template <class T>
RowsPart<T> rows_part_of(const Batch<T>& whole, const comm::Slab& mine, bool periodic = false);

// A periodic KindBatch's a, b, c and d as a Batch (the same [system][row] arrays), for
// solve_partitioned(..., periodic = true) and rows_part_of.
template <class T>
Batch<T> periodic_as_batch(const KindBatch<T>& ring);

template <class U>
struct LongResult {
  std::vector<U> x;  // the part's rows, [system][row]
  // The device's phases (on the host, compute alone), and as exchange the seconds this rank spent
  // in the interface across ranks (its gather to rank 0, the solve there, the values sent back).
  PhaseTimer timings;
};

// The interface across ranks: `mine` holds this rank's pieces' interface rows, [system][piece]
// then a', c', d' of the piece's first row and of its last (6 values), `pieces` pieces a system.
// Each rank reduces its own chain of them (2 rows a piece) to two rows by the partition method
// once more (reduce_piece), rank 0 gathers the ranks' two rows each and solves them
// (solve_interface, in rank order), and each rank substitutes its two values into its chain:
// returned, its pieces' first and last unknowns, [system][piece][2]. With one piece a rank the
// chain of two rows reduces exactly (divided by its unit diagonal), so the values are
// solve_partitioned's bits on the ranks' cut. `periodic`: rank 0's interface is a ring
// (solve_periodic_interface). NumericalError naming the system on a zero pivot.
std::vector<double> interface_across(comm::Context& context, const std::vector<double>& mine,
                                     std::int64_t systems, std::int64_t pieces, bool periodic);

// On the host, in double: this rank's rows as one piece (reduce_piece), the interface across
// ranks, then substitute_piece. The bits of solve_partitioned(whole, ranks) on these rows.
// NumericalError naming the system on a zero pivot or a non-finite value.
template <class T>
LongResult<double> solve_long(comm::Context& context, const RowsPart<T>& part);

// On the device in T: this rank's rows cut by pieces_of(rows, kDevicePieceRows), one thread a
// piece (solvers/tridiag/long.cu), the chain of their interface rows reduced again on the device
// in double, its last few hundred rows across ranks on the host in double. `threads` per block, a
// multiple of 32 whose staging fits the device's shared memory (InputError naming
// method.threads otherwise). NumericalError naming the lowest failing system. The rows are
// solved in place: four arrays of the rank's rows on the device.
template <class T>
LongResult<T> solve_long_gpu(comm::Context& context, const RowsPart<T>& part, int threads = 256);

// The same for the rows `mine` of random_batch({n, systems}, seed)'s systems, drawn on the device
// (random_row: the host's bits) and never on the host; the draw is timed as host_to_device.
template <class T>
LongResult<T> solve_long_gpu(comm::Context& context, std::int64_t n, std::int64_t systems,
                             std::uint64_t seed, const comm::Slab& mine, int threads = 256);

// The chains of interface rows a solve on the device reduces, kept between solves (long.cu).
struct LongChains;

// A rank's rows on the device, drawn there once (random_batch({n, systems}, seed)'s rows `mine`,
// random_row's bits) and solved as often as asked, as solve_long_gpu solves them: for the
// benchmark, which times the solve alone. a, b, c, d stay as drawn; a solve writes a', c' and x
// (d' then x) beside them, seven arrays of the rank's rows in all.
template <class T>
class DeviceRows {
 public:
  DeviceRows(std::int64_t n, std::int64_t systems, std::uint64_t seed, const comm::Slab& mine);
  ~DeviceRows();
  DeviceRows(const DeviceRows&) = delete;
  DeviceRows& operator=(const DeviceRows&) = delete;

  // Called by every rank, in the same order: the timings of solve_long_gpu less the transfers.
  PhaseTimer solve(comm::Context& context, int threads = 256);
  // The last solve's x, [system][row].
  std::vector<T> x() const;

 private:
  RowsPart<T> part_;  // the extent alone
  Stream stream_;
  DeviceBuffer<T> a_, b_, c_, d_, ra_, rc_, x_;
  std::unique_ptr<LongChains> chains_;
};

// x (this rank's rows `mine` of every system, [system][row]) against the gold of the whole batch
// (contiguous), which every rank solves (the gold of one long system is one sweep down and up
// it), judged by tolerance<T>(condition_bound(whole), n) as a batch is (check.hpp): the
// partition method is backward stable on the dominant rows that bound holds for. The
// differences and max|gold| are combined over the ranks.
template <class T>
Agreement long_agreement(comm::Context& context, const Batch<T>& whole, const std::vector<T>& x,
                         const comm::Slab& mine);

// The same for rings: the periodic gold (solve_kind_gold) and kind_tolerance's bound.
template <class T>
Agreement long_agreement(comm::Context& context, const KindBatch<T>& whole,
                         const std::vector<T>& x, const comm::Slab& mine);

}  // namespace parasol::tridiag
