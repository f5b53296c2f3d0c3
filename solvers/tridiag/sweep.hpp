// tridiag's sweep: the launches timed on one batch, each variant's listed threads and chunks
// made concrete for it, with why a variant or a launch is left out; and the batch kept on the
// device in the layouts they solve, each launch judged there against the gold. Host-only API.
#pragma once

#include <cuda_runtime_api.h>

#include <string>
#include <vector>

#include "kernels/agreement.hpp"
#include "kernels/buffer.hpp"
#include "solvers/tridiag/kinds.hpp"
#include "solvers/tridiag/params.hpp"
#include "solvers/tridiag/tridiag.hpp"

namespace parasol::tridiag {

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

}  // namespace parasol::tridiag
