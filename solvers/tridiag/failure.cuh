// How the kernels report a zero pivot or a NaN: the lowest failing system, for Solver::check.
#pragma once

#include <climits>
#include <cstdint>

namespace parasol::tridiag {

inline constexpr unsigned long long kNoFailure = ULLONG_MAX;

// Called by each thread with whether its outputs were all finite: a zero pivot or a NaN shows up
// as a non-finite unknown. Records the lowest failing system.
__device__ inline void note_failure(bool finite, std::int64_t system,
                                    unsigned long long* failure) {
  if (!finite) atomicMin(failure, static_cast<unsigned long long>(system));
}

}  // namespace parasol::tridiag
