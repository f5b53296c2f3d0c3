// A problem as a run makes, sizes and solves it, on either backend: a batch's extent in words,
// the memory it takes, the launch a kind's variant makes for it, the problem class an autotune
// choice is stored under, a rank's share of a random batch, a heat ring's step as a periodic
// batch, the solve by the GPU or by the gold; and a long system's rows cut, drawn and checked
// (system.cut = "rows"). The front ends call these; so may any host program. Host-only API:
// compiles without nvcc. Every function that takes a Context is called by every rank.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "comm/context.hpp"
#include "comm/halo.hpp"
#include "kernels/agreement.hpp"
#include "solvers/tridiag/heat.hpp"
#include "solvers/tridiag/inputs.hpp"
#include "solvers/tridiag/kinds.hpp"
#include "solvers/tridiag/long.hpp"
#include "solvers/tridiag/params.hpp"
#include "solvers/tridiag/tridiag.hpp"

namespace parasol::tridiag {

// Attributes a result file records (/input's, /sweep's), in the order written.
using Attributes =
    std::vector<std::pair<std::string, std::variant<std::string, std::int64_t, double>>>;

// "4096 systems of 1024 rows".
std::string extent(const Dims& dims);
// "4096 periodic systems of 1024 rows".
std::string extent(const KindDims& dims);

// The key whose value sized the problem (heat.grids, input.file or random.systems), for a
// complaint about memory.
const char* size_key(const Params& p);

// The bytes a solve of a batch takes on the device and on the host.
struct Footprint {
  double device = 0, host = 0;
};
// a, b, c, d and x on the device (the solver's own workspace is small beside them); on the host
// six arrays of T and, with the gold (`gold`), about seven doubles a value.
Footprint footprint(const Dims& dims, int element_bytes, bool gold);
// A kind's coefficients, d and x (and the workspace, at most four values a row) on the device; on
// the host those, a relaid copy of each, and with the gold seven doubles a value of x.
Footprint footprint(const KindDims& dims, int element_bytes, bool gold);

// The problem class of an autotune choice: rows per system and systems, exactly
// ("n=1024,systems=65536"), and for another kind than general the kind ("...,kind=multi-rhs,rhs=8").
std::string problem_class(const Params& p, std::int64_t n, std::int64_t systems);

// "thomas-pcr, 256 threads, chunk 8": a launch in a summary's words.
std::string method_of(const Launch& launch);

// p with `launch`'s variant, threads and chunk: the launch that runs, as /method records it
// (method_axes) and a sweep's configuration holds it.
Params with_launch(Params p, const Launch& launch);

// p's launch (method.variant, threads, chunk) made concrete for `systems` systems of n rows of
// p.kind, in the layout the kind's variant solves on (chunk picked when 0): InputError naming
// method.variant when the variant does not solve the kind, else as resolve_launch throws.
Launch launch_for(const Params& p, std::int64_t n, std::int64_t systems, int element_bytes);

// This rank's share of the systems of the random batch `r` (system_share of r.systems: InputError
// naming random.systems when a rank would get none), as inputs.hpp reads a file's: drawn, or with
// `draw` false its extent alone, for the device to draw (solve_drawn).
template <class T>
BatchPart<T> random_batch_part(const RandomInput& r, int rank, int ranks, bool draw);
// The same for a kind's systems (random_kind_batch), always drawn.
template <class T>
KindBatchPart<T> random_kind_batch_part(const RandomInput& r, Kind kind, int rhs, int rank,
                                        int ranks);

// The heat ring's first step (heat_step of the ring) as a periodic batch: what a sweep of the
// heat problem with system.kind = "periodic" times.
template <class T>
KindBatch<T> heat_ring_step(const Heat& heat);

// A batch solved: x contiguous ([system][...], as the gold), and on the host the gold in double
// that x was rounded from (empty after a GPU solve).
template <class T>
struct Solved {
  std::vector<T> x;
  std::vector<double> gold;
  PhaseTimer timings;
};

// By `launch` on the GPU (relaid into the variant's layout and back), or with `gpu` false by the
// gold, timed as compute. NumericalError as the solver throws it.
template <class T>
Solved<T> solve_on(bool gpu, const Launch& launch, const Batch<T>& batch);
template <class T>
Solved<T> solve_on(bool gpu, const Launch& launch, const KindBatch<T>& batch);
// random_batch(dims, seed, first_system) drawn on the device and solved there (solve_gpu), x
// contiguous; dims.layout is ignored (the variant's own is drawn).
template <class T>
Solved<T> solve_drawn(const Launch& launch, const Dims& dims, std::uint64_t seed,
                      std::int64_t first_system);

// One long system (or a few) cut by rows among the ranks (system.cut = "rows", long.hpp).
//
// This rank's rows of n: the cut checked (long_cut with `piece_rows`: InputError naming `key`
// when a piece would hold fewer than two rows), then comm::even_slab's.
comm::Slab rows_share(std::int64_t n, int rank, int ranks, std::int64_t piece_rows,
                      const std::string& key);
// The rows `mine` of every system of the random batch `r` (rings when `periodic`); with `draw`
// false their extent alone, for the device to draw (solve_long_gpu).
template <class T>
RowsPart<T> random_rows(const RandomInput& r, bool periodic, const comm::Slab& mine, bool draw);
// x (this rank's rows `mine` of every system, [system][row]) against the gold of the whole batch
// `p` names (`systems` systems of n rows), which every rank makes and solves: read or drawn,
// lines or rings (long_agreement).
template <class T>
Agreement long_check(comm::Context& context, const Params& p, std::int64_t n,
                     std::int64_t systems, const std::vector<T>& x, const comm::Slab& mine);

}  // namespace parasol::tridiag
