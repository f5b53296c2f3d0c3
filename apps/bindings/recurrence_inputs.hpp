// recurrence's series as the parameters describe it: generated, or read from a user's HDF5 file
// (solvers do not link HDF5).
#pragma once

#include "apps/io/param_table.hpp"
#include "solvers/recurrence/params.hpp"
#include "solvers/recurrence/recurrence.hpp"

namespace parasol::app {

// An AR(1) problem generated; a smoothing or file problem read from input.file. Bad input (a
// missing dataset, a shape that disagrees, a NaN, offsets out of order) is an InputError naming
// the file, the dataset and the key.
template <class T>
recurrence::Series<T> make_series(const io::ParamTable& t, const recurrence::Params& p);

}  // namespace parasol::app
