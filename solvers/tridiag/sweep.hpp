// tridiag's sweep: the launches timed on one batch, each variant's listed threads and chunks
// made concrete for it, with why a variant or a launch is left out; the batch kept on the
// device in the layouts they solve, each launch judged there against the gold; and the batch a
// sweep times, made as a run makes it, with each launch's row steps. Host-only API.
#pragma once

#include <cuda_runtime_api.h>

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "kernels/agreement.hpp"
#include "kernels/buffer.hpp"
#include "kernels/sweep_row.hpp"
#include "solvers/tridiag/keys.hpp"
#include "solvers/tridiag/kinds.hpp"
#include "solvers/tridiag/params.hpp"
#include "solvers/tridiag/problem.hpp"
#include "solvers/tridiag/tridiag.hpp"

namespace parasol::tridiag {

// A sweep times the variants on whole systems: one long system cut by rows (system.cut = "rows")
// has one method, and is refused (InputError naming system.cut, its source left for the caller).
void require_sweepable(const Params& p);

// Whether a chunk is one a sweep may list: 0 (picked from n), or one compiled for some variant.
bool listable_chunk(int chunk);

// The chunks timed for a variant: those `listed` that it takes (0 always), or every one compiled
// for it when none is listed; {0} for a variant compiled with none.
std::vector<int> chunks_for(Variant v, const std::vector<int>& listed);

// One row of the sweep: a launch resolved for the batch, or why a variant has none.
struct Configuration {
  Launch launch;
  std::string skipped;  // the variant can take none of the listed launches
  std::string note;     // some listed launches skipped, said before its first row
};

// Each distinct launch of each variant once (chunk 0 resolves to one of the others), for
// `threads` x chunks_for(variant, `chunks`) on dims.n x dims.systems (the layout is the
// variant's own); element_bytes as resolve_launch takes it.
std::vector<Configuration> configurations_for(const std::vector<Variant>& variants,
                                              const std::vector<int>& threads,
                                              const std::vector<int>& chunks, const Dims& dims,
                                              int element_bytes);
// The same for another kind's batch, each launch made concrete by resolve_kind_launch.
std::vector<Configuration> configurations_for(const std::vector<Variant>& variants,
                                              const std::vector<int>& threads,
                                              const std::vector<int>& chunks,
                                              const KindDims& dims, int element_bytes);

// The batch on the device in each layout a sweep's variants need, with the gold in the same
// layout beside it, so that each launch is checked on the device. Each layout's copy is made once
// and kept while the device has room for the next beside it (twice the batch's bytes, and the
// gold in double); otherwise the copies made before are freed first. Without room for the gold,
// the check downloads x.
template <class T>
class ResidentBatches {
 public:
  struct Resident {
    DeviceBatch<T> batch;
    DeviceBuffer<double> gold;  // empty when it did not fit
  };
  // `batch` contiguous, `gold` its solution (solve_gold) and `condition` its condition bound;
  // the batch and the gold are kept by reference. Uploads nothing until in() asks.
  ResidentBatches(const Batch<T>& batch, const std::vector<double>& gold, double condition,
                  cudaStream_t stream);
  // The batch in `layout`, uploaded the first time that layout is asked for. Valid until the
  // next call.
  Resident& in(Layout layout);
  // x of `resident` (after a solve) against the gold, as agreement<T>() judges it.
  Agreement agreement(const Resident& resident) const;

 private:
  const Batch<T>& batch_;
  const std::vector<double>& gold_;
  double condition_, scale_;
  cudaStream_t stream_;
  std::vector<Resident> residents_;  // one per layout met so far, while there is room
};

// A kind's batch on the device in one layout at a time (the last launch's), with room for x: a
// sweep's launches of several variants each solve it in theirs. Uploaded when the layout
// changes, the previous copy freed first.
template <class T>
class ResidentKindBatch {
 public:
  // `batch` contiguous, kept by reference. Uploads nothing until use() asks.
  ResidentKindBatch(const KindBatch<T>& batch, cudaStream_t stream);
  // The batch in `solver`'s layout, x filled with NaN (all bits set), so that a value the solver
  // never writes cannot pass.
  void poison(const KindSolver<T>& solver);
  // x = A^-1 d by `solver`, enqueued on the stream; poison() with it first.
  void solve(KindSolver<T>& solver);
  // x contiguous, as the gold; waits.
  std::vector<T> x() const;

 private:
  const KindBatch<T>& batch_;
  cudaStream_t stream_;
  Layout layout_ = Layout::contiguous;
  std::vector<DeviceBuffer<T>> bands_;  // empty until the first poison()
  std::vector<const T*> pointers_;
  DeviceBuffer<T> d_, x_;
};

// The batch a sweep of `p` times, whole, as a run of it would make it: drawn from the seed, read,
// or one heat step (a ring's with system.kind = "periodic"); general systems or another kind's.
// Its gold is solved once; its condition bound gives the tolerance each launch is judged by; the
// launches are the listed variants (those that solve its kind), threads and chunks made concrete
// for it (configurations_for). Each launch's row steps (kernels/sweep_row.hpp) solve it on the
// device, where it stays between rows. Kept where it is made: it holds references to itself.
template <class T>
class SweptBatch {
 public:
  // Judges the memory a batch takes (`what`: "4096 systems of 1024 rows") before its gold is
  // solved, which a singular batch stops at.
  using Fits = std::function<void(const Footprint&, const std::string& what)>;
  // Says a row's failure that the gold did not meet ("thomas, 256 threads: zero pivot ...").
  using Note = std::function<void(const std::string&)>;

  SweptBatch(const Params& p, const SweepParams& s, const Fits& fits);
  SweptBatch(const SweptBatch&) = delete;
  SweptBatch& operator=(const SweptBatch&) = delete;

  const KindDims& dims() const { return dims_; }  // kind general for a general batch
  const std::string& what() const { return what_; }
  // The batch in a summary's words: what() and its right-hand sides ("... x 8 right-hand sides").
  std::string described() const;
  // described() and the precision, for a sweep's header line ("..., float").
  std::string header() const;
  double condition() const { return condition_; }
  // /sweep's attributes of the batch: the bytes a solve moves, its extent (and kind), condition
  // bound and tolerance.
  Attributes attributes() const;
  double tolerance() const { return tolerance_; }
  // Bytes a solve must move (bytes_per_solve, kind_bytes_per_solve): the roofline's.
  double bytes_per_solve() const { return bytes_; }
  // Unknowns a solve finds: systems x rhs_width.
  double unknowns() const { return static_cast<double>(dims_.systems * dims_.rhs_width()); }
  const std::vector<Configuration>& configurations() const { return configurations_; }
  // `p` with each configuration's launch in it (with_launch), in their order: what /method and
  // the sweep's axis columns say of each.
  std::vector<Params> launch_params(const Params& p) const;
  // Why no row can be timed: "no listed variant, threads and chunk can solve ...".
  std::string unsolvable() const;

  // One launch's row: x poisoned, the solve, its check (a failure the device flags where the gold
  // solved the batch fails the row, said through `note`), the timed solves on `stream` by
  // `repeats`, and the re-check. `stream` is the same for every row.
  RowSteps steps(const Launch& launch, cudaStream_t stream, const Repeats& repeats,
                 const Note& note);
  // The same for configuration `c`, its note (the launches its variant left out) said first.
  RowSteps steps(const Configuration& c, cudaStream_t stream, const Repeats& repeats,
                 const Note& note) {
    if (!c.note.empty()) note(c.note);
    return steps(c.launch, stream, repeats, note);
  }

 private:
  KindDims dims_;
  Batch<T> batch_;       // general: contiguous
  KindBatch<T> kinds_;   // another kind: contiguous
  std::vector<double> gold_;
  std::string what_;
  double condition_ = 0, tolerance_ = 0, bytes_ = 0;
  std::vector<Configuration> configurations_;
  std::optional<ResidentBatches<T>> residents_;      // general, once a row asks
  std::optional<ResidentKindBatch<T>> kind_resident_;  // another kind, once a row asks
};

}  // namespace parasol::tridiag
