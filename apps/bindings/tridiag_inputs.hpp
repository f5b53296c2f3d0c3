// tridiag's batch read from a user's HDF5 file (solvers do not link HDF5).
#pragma once

#include "solvers/tridiag/params.hpp"
#include "solvers/tridiag/tridiag.hpp"

namespace parasol::app {

// The four datasets [systems][n] the input names, as one contiguous batch in T (HDF5 converts
// from the stored numbers). A missing file or dataset, a group or a dataset of strings where a
// dataset of numbers should be, or shapes that disagree, are InputErrors naming the file and the
// key (input.file, input.a, ...).
template <class T>
tridiag::Batch<T> read_batch(const tridiag::FileInput& input);

}  // namespace parasol::app
