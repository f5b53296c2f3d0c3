// A run of laplace3d as any front end makes one: the grid in words, the block a run with
// method.variant = "auto" starts from, this rank's slab across ranks, the memory a run takes
// before it is made, and what it promises of its bits. Host-only API: compiles without nvcc.
#pragma once

#include <cstdint>
#include <string>

#include "solvers/laplace3d/params.hpp"
#include "kernels/convergence.hpp"
#include "solvers/laplace3d/slab.hpp"
#include "solvers/laplace3d/stop.hpp"

namespace parasol::io {
class CheckpointReader;
class CheckpointWriter;
}  // namespace parasol::io

namespace parasol::laplace3d {

// "512x512x512": points along x, y and z; the problem class a tuned choice is stored under.
std::string extent_text(const Params& p);

// What a parameter file's method.variant = "auto" changes once its keys are read: the autotune
// choice brings its own block, so the file's is read but not used and the variant's default
// stands in until a choice is found (`parasol run FILE method.variant=auto` works on a file
// written for one variant).
void settle(Params& p, bool automatic);

// This rank's slab of the grid cut among `ranks` (the whole grid, without halos, on one rank):
// its planes and halos are what it holds, halo_depth(variant) deep on the GPU and one plane deep
// for the CPU gold, whatever the variant. InputError (key "grid.nz") as slab_part's.
SlabPart run_part(const Params& p, bool gpu, int rank, int ranks);

// Memory of the whole problem (its key "grid", refused at the parameter file), in the order it
// is checked: "<what> about ..." (`what` ends in its verb).
struct MemoryNeed {
  std::string key = "grid", what;
  double bytes = 0;
  bool device = false;
};
// On the device: the GPU solver's fields for `points` of the grid (all of them, or a rank's slab
// with its halos).
MemoryNeed device_need(const Params& p, double points);
// On the host: the initial field and the result, and on a CPU run (not `gpu`) the gold's second
// field, each of `points` values of `element` bytes.
MemoryNeed host_need(const Params& p, bool gpu, double points, double element);

// /method of a run across `ranks` (nothing on one): the transport its halos took (`route` on the
// GPU, "mpi-host" for the CPU gold's) and whether the exchange hid behind the interior sweep.
std::vector<Diagnostic> method_across_ranks(int ranks, bool gpu, bool overlap, comm::Route route);

// A checkpoint's record of a state beside its field (State): its iterations, and its convergence
// checks, so that the contraction and the error bound go on as if uninterrupted; and both back,
// the checks into `checks` and the iterations returned, a checkpoint past the run's last
// (iteration.max_iterations) refused. fill_state is the record as FieldMarch's fill takes it.
void add_state(io::CheckpointWriter& w, std::int64_t iterations, const ConvergenceChecks& checks);
std::int64_t read_state(const io::CheckpointReader& r, const Params& p, ConvergenceChecks& checks);
template <class T>
void fill_state(io::CheckpointWriter& w, const State<T>& s) {
  add_state(w, s.iterations, s.checks);
}

// Why a run's bits repeat on any backend, shape and rank count (/provenance@reproducible_because).
inline constexpr const char* kReproducibleBecause =
    "each point's update is the same arithmetic in a fixed order on every backend, shape and "
    "rank count; the convergence maxima are order-free";

}  // namespace parasol::laplace3d
