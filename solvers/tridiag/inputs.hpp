// tridiag's batches read from a user's HDF5 file (through io/, which this library links
// privately: the rest of the host API compiles and links without HDF5's headers).
#pragma once

#include "solvers/tridiag/kinds.hpp"
#include "solvers/tridiag/long.hpp"
#include "solvers/tridiag/params.hpp"
#include "solvers/tridiag/tridiag.hpp"

namespace parasol::tridiag {

// The four datasets [systems][n] the input names, as one contiguous batch in T (HDF5 converts
// from the stored numbers). A missing file or dataset, a group or a dataset of strings where a
// dataset of numbers should be, or shapes that disagree, are InputErrors naming the file and the
// key (input.file, input.a, ...).
template <class T>
Batch<T> read_batch(const FileInput& input);

// One rank's share of the file's systems (comm::even_slab: as even as can be), read alone: the
// rank reads only its rows of each dataset. More ranks than systems is an InputError naming
// input.file.
template <class T>
struct BatchPart {
  Batch<T> batch;   // the rank's systems, contiguous
  std::int64_t first = 0;    // the first one's index in the file
  std::int64_t systems = 0;  // in the file
};
template <class T>
BatchPart<T> read_batch_part(const FileInput& input, int rank, int ranks);

// One rank's rows of every system of the file's batch (system.cut = "rows"; rings when
// `periodic`): comm::even_slab of n among the ranks, each dataset's block [all systems][rank's
// rows] read alone. A cut that leaves a piece fewer than two rows (long_cut with `piece_rows`),
// or a ring of fewer than three, is an InputError naming input.file.
template <class T>
RowsPart<T> read_rows_part(const FileInput& input, bool periodic, int rank, int ranks,
                           std::int64_t piece_rows);

// The same for a kind other than general (docs/hdf5-layout.md): periodic a, b, c, d and
// pentadiagonal e, a, b, c, f, d each [systems][n]; multi-rhs a, b, c [systems][n] and d
// [systems][rhs][n] with rhs = `rhs`; block2 a, b, c [systems][n][2][2] and d [systems][n][2].
// A shape that disagrees, or a periodic n < 3, is an InputError naming the file and the key.
template <class T>
struct KindBatchPart {
  KindBatch<T> batch;  // the rank's systems, contiguous
  std::int64_t first = 0;       // the first one's index in the file
  std::int64_t systems = 0;     // in the file
};
template <class T>
KindBatchPart<T> read_kind_batch_part(const FileInput& input, Kind kind, int rhs,
                                      int rank, int ranks);

}  // namespace parasol::tridiag
