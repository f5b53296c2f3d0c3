// recurrence's series as the parameters describe it: generated, or read from a user's HDF5 file
// (through io/, which this library links privately: the rest of the host API compiles and links
// without HDF5's headers).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>

#include "solvers/recurrence/params.hpp"
#include "solvers/recurrence/ranks.hpp"
#include "solvers/recurrence/recurrence.hpp"

namespace parasol::recurrence {

// An AR(1) problem generated; a smoothing or file problem read from input.file. Bad input (a
// missing dataset, a shape that disagrees, a NaN, offsets out of order) is an InputError naming
// the file, the dataset and the key; one of the parameters alone (input.offsets beside 2D s and u)
// names its key, its source left for the caller.
template <class T>
Series<T> make_series(const Params& p);

// A `file` or `smoothing` problem as rank `rank` of `size` needs it (ranks.hpp): the whole's
// offsets and initial values into `segments`, and of s and u (smoothing: y) only the run's
// elements, one read of each dataset (1D, or 2D rows end to end, cut inside a row or not).
// nullopt for ar1, and for rows given offsets or empty datasets, which make_series reads whole
// to refuse. The same checks and messages as make_series, an element's index counted in the
// whole.
template <class T>
std::optional<SeriesPart<T>> file_run(const Params& p, int rank, int size, Cut cut,
                                      Series<T>& segments);

// The series a run holds: on one rank the whole; across ranks (`ranks` > 1) the whole's offsets
// and initial values, and this rank's run of it in `part`, each rank making or reading only its
// run. A GPU run that needs no host copy of a generated series (`host_copy` false: no gold to
// judge it by, no /input/s and /input/u to write) draws s and u on the device as it solves
// (`drawn`: the same bits). `require_host(elements)` is called with the elements the host will
// hold before a generated series is drawn, and once a file's are read or counted, so a run too
// large is refused naming its size.
template <class T>
struct RunSeries {
  Series<T> series;
  std::optional<SeriesPart<T>> part;
  bool drawn = false;
};
template <class T>
RunSeries<T> run_series(const Params& p, bool gpu, bool host_copy, int rank, int ranks,
                        const std::function<void(std::int64_t elements)>& require_host);

}  // namespace parasol::recurrence
