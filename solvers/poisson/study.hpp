// poisson's sweep study: each variant, smoother and cycle solved on the GPU from u = 0 and judged
// against the gold by the sweep-row protocol (kernels/sweep_row.hpp). Host-only API.
#pragma once

#include <cstdint>
#include <vector>

#include "kernels/sweep_row.hpp"
#include "kernels/timed_runs.hpp"
#include "solvers/poisson/keys.hpp"
#include "solvers/poisson/params.hpp"

namespace parasol::poisson {

// The configurations a sweep times: p with each listed variant, smoother and cycle, in that
// order of nesting.
std::vector<Params> sweep_configurations(const Params& p, const SweepParams& s);

// What one configuration measured: the row, and the cycles its last solve took.
struct CycleMeasurement {
  RowOutcome row;
  std::int64_t cycles = 0;
};

template <class T>
class CycleStudy {
 public:
  // The problem `p` with source `f` (compatible when singular), and the gold's solve of it in T,
  // which every configuration is judged against.
  CycleStudy(const Params& p, std::vector<double> f);

  // Configuration `q` (p with its variant, smoother and cycle set). Each solve starts from u = 0,
  // so the re-check judges the last timed solve like the first; a solve is timed by its own clock
  // (it waits for its cycles to learn whether to go on). The solver is made in the row, so its
  // failure is the row's.
  CycleMeasurement measure(const Params& q, const Repeats& repeats) const;

 private:
  std::vector<double> f_;
  std::vector<T> gold_;
};

}  // namespace parasol::poisson
