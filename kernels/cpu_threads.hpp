// How many threads the CPU solvers (the gold solvers, the CPU backend) use. By default the cores
// this process may run on (its affinity mask, and a container's CPU quota), so a run on a loaded
// or shared machine does not oversubscribe it; `--threads N` sets it.
#pragma once

#include <algorithm>
#include <cstdint>

namespace parasol {

// The cores this process may use: its affinity mask, capped by a cgroup CPU quota where one is
// set; at least 1.
int available_cores();

// Sets the CPU solvers' thread count (n >= 1).
void set_cpu_threads(int n);
int cpu_threads();

// body(first, last) over [0, count) in chunks of `chunk` items, the chunks shared among the CPU
// solvers' threads as they come free, and after each chunk done(finished), one thread at a time,
// with the number of items finished so far (increasing): where a long loop tells its progress.
// Neither may throw. Runs on one thread where the including file is compiled without OpenMP.
template <class Body, class Done>
void for_chunks(std::int64_t count, std::int64_t chunk, const Body& body, const Done& done) {
  chunk = std::max<std::int64_t>(chunk, 1);
  const std::int64_t chunks = (count + chunk - 1) / chunk;
  std::int64_t finished = 0;
#ifdef _OPENMP
#pragma omp parallel for schedule(dynamic, 1)
#endif
  for (std::int64_t c = 0; c < chunks; ++c) {
    const std::int64_t first = c * chunk, last = std::min(count, first + chunk);
    body(first, last);
#ifdef _OPENMP
#pragma omp critical(parasol_for_chunks)
#endif
    {
      finished += last - first;
      done(finished);
    }
  }
}

}  // namespace parasol
